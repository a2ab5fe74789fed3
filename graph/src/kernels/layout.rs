//! Ops that move elements without computing: reshape, transpose, concat,
//! stack. Each has a shape function (used by `infer`) and a kernel; results are
//! in standard (row-major) layout.

use crate::dtype::DType;
use crate::error::OpError;
use crate::shape::{array_of, check_num_elements, fmt_shape, normalize_axis};
use ndarray::{ArrayD, ArrayViewD, Axis, IxDyn};

fn internal(e: impl std::fmt::Display) -> OpError {
    OpError::invalid(format!("internal error: {e}"))
}

/// The target shape of a reshape of `n` elements (one -1 is inferred).
pub(crate) fn reshape_shape(target: &[i64], n: usize) -> Result<Vec<usize>, OpError> {
    let mut unknown = None;
    let mut known: usize = 1;
    let mut out = Vec::with_capacity(target.len());
    for (i, &d) in target.iter().enumerate() {
        if d == -1 {
            if let Some(j) = unknown {
                return Err(OpError::invalid(format!("only one input size may be -1, not both {j} and {i}")));
            }
            unknown = Some(i);
            out.push(0);
        } else if d < 0 {
            return Err(OpError::invalid(format!("Size {i} must be non-negative, not {d}")));
        } else {
            let d = usize::try_from(d).map_err(|_| OpError::invalid(format!("size {d} is too large")))?;
            known = known.saturating_mul(d);
            out.push(d);
        }
    }
    let requested = || {
        let dims: Vec<String> = target.iter().map(i64::to_string).collect();
        format!("[{}]", dims.join(","))
    };
    match unknown {
        Some(i) => {
            if known == 0 || !n.is_multiple_of(known) {
                return Err(OpError::invalid(format!(
                    "Input to reshape is a tensor with {n} values, but the requested shape requires a multiple of {known}: {}",
                    requested()
                )));
            }
            out[i] = n / known;
        }
        None if known != n => {
            return Err(OpError::invalid(format!(
                "Input to reshape is a tensor with {n} values, but the requested shape has {known}: {}",
                requested()
            )));
        }
        None => {}
    }
    check_num_elements(&out)?;
    Ok(out)
}

pub(crate) fn reshape<T: Clone>(a: &ArrayD<T>, shape: &[usize]) -> Result<ArrayD<T>, OpError> {
    let flat: Vec<T> = a.iter().cloned().collect();
    ArrayD::from_shape_vec(IxDyn(shape), flat).map_err(internal)
}

/// The permutation of a transpose (`None` reverses), checked to be one.
pub(crate) fn transpose_perm(perm: &Option<Vec<usize>>, rank: usize) -> Result<Vec<usize>, OpError> {
    let Some(perm) = perm else {
        return Ok((0..rank).rev().collect());
    };
    let mut seen = vec![false; rank];
    let ok = perm.len() == rank && perm.iter().all(|&p| p < rank && !std::mem::replace(&mut seen[p], true));
    if !ok {
        return Err(OpError::invalid(format!("transpose expects a permutation of 0..{rank}, got {perm:?}")));
    }
    Ok(perm.clone())
}

pub(crate) fn transpose<T: Clone>(a: &ArrayD<T>, perm: &[usize]) -> ArrayD<T> {
    // A contiguous matrix: element (i, j) to (j, i), without ndarray's n-d walk.
    if let (&[1, 0], &[m, n], Some(src)) = (perm, a.shape(), a.as_slice()) {
        let mut out: Vec<T> = src.first().map_or_else(Vec::new, |x| vec![x.clone(); n * m]);
        transpose_into(src, m, n, &mut out);
        if let Ok(out) = array_of(&[n, m], out) {
            return out;
        }
    }
    a.view().permuted_axes(IxDyn(perm)).as_standard_layout().into_owned()
}

/// `src`, an m×n row-major matrix, transposed into `out` (n×m): each row
/// of `src` read once and scattered into `out`'s columns (gathering each
/// column instead, with `extend`, was several times slower).
pub(crate) fn transpose_into<T: Clone>(src: &[T], m: usize, n: usize, out: &mut [T]) {
    if m == 0 || n == 0 {
        return;
    }
    for (i, row) in src.chunks_exact(n).take(m).enumerate() {
        for (col, x) in out.chunks_exact_mut(m).zip(row) {
            col[i] = x.clone();
        }
    }
}

/// The output shape of concatenating `shapes` (one dtype, checked by the caller).
pub(crate) fn concat_shape(shapes: &[&[usize]], axis: i64) -> Result<(usize, Vec<usize>), OpError> {
    let first = shapes.first().ok_or_else(|| OpError::invalid("Concat needs at least one tensor"))?;
    if first.is_empty() {
        return Err(OpError::invalid("Can't concatenate scalars (use stack instead)"));
    }
    let ax = normalize_axis(axis, first.len(), "Concat")?;
    let mut out = first.to_vec();
    for (i, s) in shapes.iter().enumerate().skip(1) {
        let same = s.len() == first.len() && s.iter().zip(first.iter()).enumerate().all(|(d, (x, y))| d == ax || x == y);
        if !same {
            return Err(OpError::invalid(format!(
                "ConcatOp : Dimensions of inputs should match: shape[0] = {} vs. shape[{i}] = {}",
                fmt_shape(first),
                fmt_shape(s)
            )));
        }
        out[ax] = out[ax].saturating_add(s[ax]);
    }
    check_num_elements(&out)?;
    Ok((ax, out))
}

/// The output shape of stacking `shapes` along a new axis.
pub(crate) fn stack_shape(shapes: &[&[usize]], axis: i64) -> Result<(usize, Vec<usize>), OpError> {
    let first = shapes.first().ok_or_else(|| OpError::invalid("Stack needs at least one tensor"))?;
    let ax = normalize_axis(axis, first.len() + 1, "Stack")?;
    for (i, s) in shapes.iter().enumerate().skip(1) {
        if s != first {
            return Err(OpError::invalid(format!(
                "Shapes of all inputs must match: values[0].shape = {} != values[{i}].shape = {}",
                fmt_shape(first),
                fmt_shape(s)
            )));
        }
    }
    let mut out = first.to_vec();
    out.insert(ax, shapes.len());
    check_num_elements(&out)?;
    Ok((ax, out))
}

/// Checks that all `dtypes` agree, naming the first two that differ.
pub(crate) fn same_dtype(what: &str, dtypes: &[DType]) -> Result<DType, OpError> {
    let first = *dtypes.first().ok_or_else(|| OpError::invalid(format!("{what} needs at least one tensor")))?;
    match dtypes.iter().find(|&&d| d != first) {
        Some(other) => Err(OpError::invalid(format!("cannot compute {what}: {first} and {other} tensors"))),
        None => Ok(first),
    }
}

pub(crate) fn concat<T: Clone>(arrays: &[&ArrayD<T>], axis: usize) -> Result<ArrayD<T>, OpError> {
    let views: Vec<ArrayViewD<'_, T>> = arrays.iter().map(|a| a.view()).collect();
    ndarray::concatenate(Axis(axis), &views).map(|a| a.as_standard_layout().into_owned()).map_err(internal)
}

pub(crate) fn stack<T: Clone>(arrays: &[&ArrayD<T>], axis: usize) -> Result<ArrayD<T>, OpError> {
    let views: Vec<ArrayViewD<'_, T>> = arrays.iter().map(|a| a.view()).collect();
    ndarray::stack(Axis(axis), &views).map(|a| a.as_standard_layout().into_owned()).map_err(internal)
}
