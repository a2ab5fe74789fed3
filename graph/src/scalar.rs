//! One element of a tensor, exactly, in its own dtype.

use crate::dtype::DType;
use crate::format::{float32_repr, float64_repr};
use crate::value::Value;
use std::fmt;

/// A single element, kept in its own dtype (no widening), so it can be compared
/// and printed exactly.
#[derive(Clone, Copy, Debug)]
pub enum Scalar {
    Bool(bool),
    I32(i32),
    I64(i64),
    F32(f32),
    F64(f64),
}

impl Scalar {
    pub fn dtype(self) -> DType {
        match self {
            Scalar::Bool(_) => DType::Bool,
            Scalar::I32(_) => DType::Int32,
            Scalar::I64(_) => DType::Int64,
            Scalar::F32(_) => DType::Float32,
            Scalar::F64(_) => DType::Float64,
        }
    }

    /// As a Python value: ints widen to `i64`, `f32` widens exactly to `f64`.
    pub fn to_value(self) -> Value {
        match self {
            Scalar::Bool(b) => Value::Bool(b),
            Scalar::I32(i) => Value::Int(i64::from(i)),
            Scalar::I64(i) => Value::Int(i),
            Scalar::F32(x) => Value::Float(f64::from(x)),
            Scalar::F64(x) => Value::Float(x),
        }
    }

    /// Same dtype and same bits (so `NaN` equals itself, `0.0` differs from `-0.0`).
    pub fn bit_eq(self, other: Scalar) -> bool {
        match (self, other) {
            (Scalar::Bool(a), Scalar::Bool(b)) => a == b,
            (Scalar::I32(a), Scalar::I32(b)) => a == b,
            (Scalar::I64(a), Scalar::I64(b)) => a == b,
            (Scalar::F32(a), Scalar::F32(b)) => a.to_bits() == b.to_bits(),
            (Scalar::F64(a), Scalar::F64(b)) => a.to_bits() == b.to_bits(),
            _ => false,
        }
    }
}

/// Python/NumPy scalar style: `True`, `3`, `2.5`, `1.0`, `nan`, `-inf`, `1e+16`.
impl fmt::Display for Scalar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Scalar::Bool(b) => f.write_str(if b { "True" } else { "False" }),
            Scalar::I32(i) => write!(f, "{i}"),
            Scalar::I64(i) => write!(f, "{i}"),
            Scalar::F32(x) => f.write_str(&float32_repr(x)),
            Scalar::F64(x) => f.write_str(&float64_repr(x)),
        }
    }
}
