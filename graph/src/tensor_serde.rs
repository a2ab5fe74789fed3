//! Tensors in JSON: `{"dtype": "float32", "shape": [2], "data": ["0.1", "nan"]}`.
//! Bools and ints are JSON values; floats are exact text (`float_text.rs`),
//! since JSON numbers cannot hold NaN or infinities and need not round-trip.

use crate::dtype::DType;
use crate::float_text::{f32_from_text, f32_to_text, f64_from_text, f64_to_text};
use crate::tensor::{Data, Tensor};
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

#[derive(Serialize, Deserialize)]
struct Repr {
    dtype: DType,
    shape: Vec<usize>,
    data: Elements,
}

#[derive(Serialize, Deserialize)]
#[serde(untagged)]
enum Elements {
    Bools(Vec<bool>),
    Ints(Vec<i64>),
    Floats(Vec<String>),
}

impl Serialize for Tensor {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let data = match self.data() {
            Data::Bool(a) => Elements::Bools(a.iter().copied().collect()),
            Data::I32(a) => Elements::Ints(a.iter().map(|&x| i64::from(x)).collect()),
            Data::I64(a) => Elements::Ints(a.iter().copied().collect()),
            Data::F32(a) => Elements::Floats(a.iter().map(|&x| f32_to_text(x)).collect()),
            Data::F64(a) => Elements::Floats(a.iter().map(|&x| f64_to_text(x)).collect()),
        };
        Repr { dtype: self.dtype(), shape: self.shape().to_vec(), data }.serialize(s)
    }
}

fn floats<T, E: serde::de::Error>(texts: &[String], parse: fn(&str) -> Option<T>) -> Result<Vec<T>, E> {
    texts.iter().map(|t| parse(t).ok_or_else(|| E::custom(format!("not a float: {t:?}")))).collect()
}

impl<'de> Deserialize<'de> for Tensor {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Tensor, D::Error> {
        let Repr { dtype, shape, data } = Repr::deserialize(d)?;
        let empty = matches!(&data, Elements::Bools(v) if v.is_empty());
        let tensor = match (dtype, data) {
            (_, _) if empty => match dtype {
                DType::Bool => Tensor::from_bool(vec![], &shape),
                DType::Int32 => Tensor::from_i32(vec![], &shape),
                DType::Int64 => Tensor::from_i64(vec![], &shape),
                DType::Float32 => Tensor::from_f32(vec![], &shape),
                DType::Float64 => Tensor::from_f64(vec![], &shape),
            },
            (DType::Bool, Elements::Bools(v)) => Tensor::from_bool(v, &shape),
            (DType::Int32, Elements::Ints(v)) => {
                let v: Result<Vec<i32>, _> = v.into_iter().map(i32::try_from).collect();
                Tensor::from_i32(v.map_err(D::Error::custom)?, &shape)
            }
            (DType::Int64, Elements::Ints(v)) => Tensor::from_i64(v, &shape),
            (DType::Float32, Elements::Floats(v)) => Tensor::from_f32(floats(&v, f32_from_text)?, &shape),
            (DType::Float64, Elements::Floats(v)) => Tensor::from_f64(floats(&v, f64_from_text)?, &shape),
            (dtype, _) => return Err(D::Error::custom(format!("tensor data does not fit dtype {dtype}"))),
        };
        tensor.map_err(D::Error::custom)
    }
}
