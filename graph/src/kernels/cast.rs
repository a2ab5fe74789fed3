//! `Cast` between any two dtypes, with Rust's `as` rules written down:
//! float → int truncates toward zero and saturates (NaN → 0); int → int wraps;
//! → float rounds to nearest (f64 → f32 overflows to ±inf); → bool is `x != 0`
//! (NaN → true); bool → number is 0 or 1.

use crate::dtype::DType;
use crate::tensor::Data;
use ndarray::ArrayD;

/// Conversion of one element to each dtype.
pub(crate) trait CastTo: Copy {
    fn to_bool(self) -> bool;
    fn to_i32(self) -> i32;
    fn to_i64(self) -> i64;
    fn to_f32(self) -> f32;
    fn to_f64(self) -> f64;
}

impl CastTo for bool {
    fn to_bool(self) -> bool {
        self
    }
    fn to_i32(self) -> i32 {
        i32::from(self)
    }
    fn to_i64(self) -> i64 {
        i64::from(self)
    }
    fn to_f32(self) -> f32 {
        f32::from(u8::from(self))
    }
    fn to_f64(self) -> f64 {
        f64::from(u8::from(self))
    }
}

macro_rules! cast_impl {
    ($t:ty, $zero:expr) => {
        impl CastTo for $t {
            #[allow(clippy::float_cmp)]
            fn to_bool(self) -> bool {
                self != $zero
            }
            fn to_i32(self) -> i32 {
                self as i32
            }
            fn to_i64(self) -> i64 {
                self as i64
            }
            fn to_f32(self) -> f32 {
                self as f32
            }
            fn to_f64(self) -> f64 {
                self as f64
            }
        }
    };
}

cast_impl!(i32, 0);
cast_impl!(i64, 0);
cast_impl!(f32, 0.0);
cast_impl!(f64, 0.0);

/// `a` converted elementwise to `to`.
pub(crate) fn cast_array<T: CastTo>(a: &ArrayD<T>, to: DType) -> Data {
    if let (0, Some(&x)) = (a.ndim(), a.first()) {
        // A 0-d tensor (a loop's token): `mapv` spends most of its time on
        // the shape.
        use super::scalar::zero_d;
        return match to {
            DType::Bool => Data::Bool(zero_d(x.to_bool())),
            DType::Int32 => Data::I32(zero_d(x.to_i32())),
            DType::Int64 => Data::I64(zero_d(x.to_i64())),
            DType::Float32 => Data::F32(zero_d(x.to_f32())),
            DType::Float64 => Data::F64(zero_d(x.to_f64())),
        };
    }
    match to {
        DType::Bool => Data::Bool(a.mapv(T::to_bool)),
        DType::Int32 => Data::I32(a.mapv(T::to_i32)),
        DType::Int64 => Data::I64(a.mapv(T::to_i64)),
        DType::Float32 => Data::F32(a.mapv(T::to_f32)),
        DType::Float64 => Data::F64(a.mapv(T::to_f64)),
    }
}

/// Any tensor's elements converted to `to`.
pub(crate) fn cast(data: &Data, to: DType) -> Data {
    crate::tensor::with_array!(data, a => cast_array(a, to))
}
