//! Shape arithmetic shared by `infer` and the kernels: element counts with a
//! size cap, NumPy broadcasting, axis normalisation.

use crate::error::OpError;
use ndarray::{Array0, Array1, Array2, ArrayD, IxDyn, ShapeError};

/// The most elements one tensor may hold. Larger results are refused with
/// `InvalidArgument` before anything is allocated: Rust aborts the process on a
/// failed allocation, so a huge `fill` or broadcast must never reach the allocator.
pub const MAX_ELEMENTS: usize = 1 << 27;

/// The number of elements of `shape`, or an error when it exceeds [`MAX_ELEMENTS`].
pub fn check_num_elements(shape: &[usize]) -> Result<usize, OpError> {
    let mut n: usize = 1;
    let mut zero = false;
    for &d in shape {
        if d == 0 {
            zero = true;
        }
        n = n.saturating_mul(d.max(1));
    }
    if n > MAX_ELEMENTS {
        return Err(OpError::invalid(format!("tensor of shape {} is too large (more than {MAX_ELEMENTS} elements)", fmt_shape(shape))));
    }
    Ok(if zero { 0 } else { n })
}

/// TF's way of writing a shape in messages: `[2,3]`.
pub fn fmt_shape(shape: &[usize]) -> String {
    let dims: Vec<String> = shape.iter().map(usize::to_string).collect();
    format!("[{}]", dims.join(","))
}

/// NumPy broadcasting of two shapes (right-aligned; each pair of dims equal or one is 1).
pub fn broadcast_shapes(a: &[usize], b: &[usize]) -> Result<Vec<usize>, OpError> {
    let n = a.len().max(b.len());
    let mut out = vec![0; n];
    for (i, o) in out.iter_mut().enumerate() {
        let da = if i + a.len() >= n { a[i + a.len() - n] } else { 1 };
        let db = if i + b.len() >= n { b[i + b.len() - n] } else { 1 };
        *o = if da == db || db == 1 {
            da
        } else if da == 1 {
            db
        } else {
            return Err(OpError::invalid(format!("Incompatible shapes: {} vs. {}", fmt_shape(a), fmt_shape(b))));
        };
    }
    check_num_elements(&out)?;
    Ok(out)
}

/// `axis` (negative counts from the end) as an index into `rank` axes.
pub fn normalize_axis(axis: i64, rank: usize, what: &str) -> Result<usize, OpError> {
    let r = rank as i64;
    if axis < -r || axis >= r {
        return Err(OpError::invalid(format!("{what}: axis {axis} is out of range for a tensor of rank {rank} (expected [{}, {r}))", -r)));
    }
    Ok(if axis < 0 { (axis + r) as usize } else { axis as usize })
}

/// Shape equality without a `memcmp` call: shapes are a few dims long, and the
/// library call dominated small ops' time.
#[inline]
pub fn same_shape(a: &[usize], b: &[usize]) -> bool {
    a.len() == b.len() && (0..a.len()).all(|i| a[i] == b[i])
}

/// `values` (row-major) as an array of `shape`. Ranks 0 to 2 are built with
/// a fixed rank and then made dynamic: that skips most of ndarray's
/// dynamic-shape work, which was a fifth of a small op's time.
pub(crate) fn array_of<T>(shape: &[usize], values: Vec<T>) -> Result<ArrayD<T>, ShapeError> {
    match *shape {
        [] => Array0::from_shape_vec((), values).map(|a| a.into_dyn()),
        [n] => Array1::from_shape_vec(n, values).map(|a| a.into_dyn()),
        [m, n] => Array2::from_shape_vec((m, n), values).map(|a| a.into_dyn()),
        _ => ArrayD::from_shape_vec(IxDyn(shape), values),
    }
}
