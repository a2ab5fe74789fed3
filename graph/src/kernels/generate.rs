//! Ops without inputs: `Fill` (zeros, ones, fill), `Range`, `Eye`.

use super::cast::CastTo;
use crate::dtype::DType;
use crate::error::OpError;
use crate::float_text::f64_to_text;
use crate::shape::{check_num_elements, MAX_ELEMENTS};
use crate::tensor::Data;
use ndarray::{ArrayD, IxDyn};

pub(crate) fn fill(shape: &[usize], dtype: DType, value: f64) -> Result<Data, OpError> {
    check_num_elements(shape)?;
    let dim = IxDyn(shape);
    Ok(match dtype {
        DType::Bool => Data::Bool(ArrayD::from_elem(dim, value.to_bool())),
        DType::Int32 => Data::I32(ArrayD::from_elem(dim, value.to_i32())),
        DType::Int64 => Data::I64(ArrayD::from_elem(dim, value.to_i64())),
        DType::Float32 => Data::F32(ArrayD::from_elem(dim, value.to_f32())),
        DType::Float64 => Data::F64(ArrayD::from_elem(dim, value.to_f64())),
    })
}

pub(crate) fn eye(n: usize, dtype: DType) -> Result<Data, OpError> {
    let mut data = fill(&[n, n], dtype, 0.0)?;
    crate::tensor::with_array!(&mut data, a => a.diag_mut().fill(OneOf::one()));
    Ok(data)
}

/// The value one in each element type.
pub(crate) trait OneOf {
    fn one() -> Self;
}

impl OneOf for bool {
    fn one() -> bool {
        true
    }
}

macro_rules! one_of {
    ($($t:ty = $v:expr),*) => { $(impl OneOf for $t { fn one() -> $t { $v } })* };
}
one_of!(i32 = 1, i64 = 1, f32 = 1.0, f64 = 1.0);

/// The bounds of an int range, checked integral and within `dtype`.
fn int_bounds(start: f64, limit: f64, delta: f64, dtype: DType) -> Result<(i128, i128, i128), OpError> {
    let (lo, hi) =
        if dtype == DType::Int32 { (f64::from(i32::MIN), f64::from(i32::MAX)) } else { (-(2f64.powi(63)), 2f64.powi(63) - 1024.0) };
    let check = |x: f64, what: &str| {
        if x.fract() == 0.0 && x >= lo && x <= hi {
            Ok(x as i128)
        } else {
            Err(OpError::invalid(format!("Range: {what} {} is not a valid {dtype}", f64_to_text(x))))
        }
    };
    Ok((check(start, "start")?, check(limit, "limit")?, check(delta, "delta")?))
}

/// The number of elements of TF's `range(start, limit, delta)` in `dtype`.
pub(crate) fn range_len(start: f64, limit: f64, delta: f64, dtype: DType) -> Result<usize, OpError> {
    if dtype == DType::Bool {
        return Err(OpError::invalid("Range: dtype bool is not supported"));
    }
    if !(start.is_finite() && limit.is_finite() && delta.is_finite()) {
        return Err(OpError::invalid("Range: start, limit and delta must be finite"));
    }
    if delta == 0.0 {
        return Err(OpError::invalid("Requires delta != 0: 0"));
    }
    if delta > 0.0 && start > limit {
        return Err(OpError::invalid(format!("Requires start <= limit when delta > 0: {}/{}", f64_to_text(start), f64_to_text(limit))));
    }
    if delta < 0.0 && start < limit {
        return Err(OpError::invalid(format!("Requires start >= limit when delta < 0: {}/{}", f64_to_text(start), f64_to_text(limit))));
    }
    let size: f64 = match dtype {
        DType::Int32 | DType::Int64 => {
            let (s, l, d) = int_bounds(start, limit, delta, dtype)?;
            (((l - s).abs() + d.abs() - 1) / d.abs()) as f64
        }
        DType::Float32 => (((limit as f32) - (start as f32)) / (delta as f32)).abs().ceil() as f64,
        _ => ((limit - start) / delta).abs().ceil(),
    };
    if size.is_nan() || size > MAX_ELEMENTS as f64 {
        return Err(OpError::invalid(format!("Range: {} elements is too large (more than {MAX_ELEMENTS})", f64_to_text(size))));
    }
    Ok(size as usize)
}

/// `start, start + delta, ...` accumulated in `dtype`, `n` elements.
pub(crate) fn range(start: f64, limit: f64, delta: f64, dtype: DType) -> Result<Data, OpError> {
    let n = range_len(start, limit, delta, dtype)?;
    fn accumulate<T: Copy>(start: T, delta: T, n: usize, add: impl Fn(T, T) -> T) -> ArrayD<T> {
        let mut v = Vec::with_capacity(n);
        let mut x = start;
        for _ in 0..n {
            v.push(x);
            x = add(x, delta);
        }
        ArrayD::from_shape_vec(IxDyn(&[n]), v).unwrap_or_else(|_| ArrayD::from_elem(IxDyn(&[0]), start))
    }
    Ok(match dtype {
        DType::Int32 => Data::I32(accumulate(start as i32, delta as i32, n, i32::wrapping_add)),
        DType::Int64 => Data::I64(accumulate(start as i64, delta as i64, n, i64::wrapping_add)),
        DType::Float32 => Data::F32(accumulate(start as f32, delta as f32, n, |a, b| a + b)),
        DType::Float64 => Data::F64(accumulate(start, delta, n, |a, b| a + b)),
        DType::Bool => return Err(OpError::invalid("Range: dtype bool is not supported")),
    })
}
