//! Reductions (sum, max, min, mean) and `ArgMax`. Each output element folds
//! its reduced elements sequentially in row-major order, in the input dtype,
//! so the result is the same wherever it is computed.

use super::elem::{Elem, Number};
use super::first_extreme::first_extreme;
use super::scalar::zero_d;
use crate::error::OpError;
use crate::shape::{array_of, fmt_shape, normalize_axis};
use ndarray::{ArrayD, IxDyn};

/// Which axes a reduction folds: `None` means all; negative axes count from
/// the end; an axis out of range or named twice is an error.
pub(crate) fn reduced_axes(axis: &Option<Vec<i64>>, rank: usize, what: &str) -> Result<Vec<bool>, OpError> {
    let Some(axes) = axis else {
        return Ok(vec![true; rank]);
    };
    let mut mask = vec![false; rank];
    for &a in axes {
        let r = rank as i64;
        if a < -r || a >= r {
            return Err(OpError::invalid(format!("Invalid reduction dimension {a} for input with {rank} dimensions")));
        }
        let i = if a < 0 { a + r } else { a } as usize;
        if mask[i] {
            return Err(OpError::invalid(format!("{what}: duplicate axis {a} in reduction")));
        }
        mask[i] = true;
    }
    Ok(mask)
}

/// The output shape of a reduction over `mask`, and how many elements each
/// output element folds.
pub(crate) fn reduced_shape(shape: &[usize], mask: &[bool], keepdims: bool) -> (Vec<usize>, usize) {
    let mut out = Vec::with_capacity(shape.len());
    let mut count = 1usize;
    for (&d, &reduced) in shape.iter().zip(mask) {
        if reduced {
            count = count.saturating_mul(d);
            if keepdims {
                out.push(1);
            }
        } else {
            out.push(d);
        }
    }
    (out, count)
}

/// `f` folds each group of reduced elements (a slice, in row-major order) to
/// one output element; the outputs in row-major order, collected.
fn fold_groups<T: Copy, U, C: FromIterator<U>>(
    a: &ArrayD<T>,
    mask: &[bool],
    out_shape: &[usize],
    f: impl FnMut(&[T]) -> U,
) -> Result<C, OpError> {
    let count: usize = a.shape().iter().zip(mask).filter(|(_, &m)| m).map(|(&d, _)| d).product();
    let groups: usize = out_shape.iter().product();
    // Kept axes first, reduced axes last: in row-major order each output's
    // elements are then consecutive. Already so in contiguous storage when
    // the reduced axes are the last ones: read as it is; else a copy.
    let (view, standard);
    let flat = match a.as_slice() {
        Some(flat) if mask.windows(2).all(|w| !w[0] || w[1]) => flat,
        _ => {
            let kept = (0..mask.len()).filter(|&i| !mask[i]);
            let perm: Vec<usize> = kept.chain((0..mask.len()).filter(|&i| mask[i])).collect();
            view = a.view().permuted_axes(IxDyn(&perm));
            standard = view.as_standard_layout();
            standard.as_slice().ok_or_else(|| internal(&"not contiguous"))?
        }
    };
    Ok(if count == 0 {
        let mut f = f;
        (0..groups).map(|_| f(&[])).collect()
    } else {
        flat.chunks_exact(count).map(f).collect()
    })
}

fn internal(e: &dyn std::fmt::Display) -> OpError {
    OpError::invalid(format!("internal error: {e}"))
}

fn shaped<U>(out_shape: &[usize], values: Vec<U>) -> Result<ArrayD<U>, OpError> {
    array_of(out_shape, values).map_err(|e| internal(&e))
}

pub(crate) fn sum<T: Number>(a: &ArrayD<T>, mask: &[bool], out_shape: &[usize]) -> Result<ArrayD<T>, OpError> {
    shaped(out_shape, fold_groups(a, mask, out_shape, |g| g.iter().fold(T::ZERO, |acc, &x| acc.add(x)))?)
}

pub(crate) fn mean<T: Number>(a: &ArrayD<T>, mask: &[bool], out_shape: &[usize]) -> Result<ArrayD<T>, OpError> {
    shaped(out_shape, fold_groups(a, mask, out_shape, |g| g.iter().fold(T::ZERO, |acc, &x| acc.add(x)).div_count(g.len()))?)
}

/// Max (`is_max`) or min; an empty group is an error (`infer` refuses it first).
pub(crate) fn extreme<T: Elem>(a: &ArrayD<T>, mask: &[bool], out_shape: &[usize], is_max: bool) -> Result<ArrayD<T>, OpError> {
    if let Some((_, x)) = whole(a, out_shape, is_max) {
        return Ok(zero_d(x));
    }
    let values: Option<Vec<T>> = fold_groups(a, mask, out_shape, |g| first_extreme(g, is_max).map(|(_, x)| x))?;
    shaped(out_shape, values.ok_or_else(|| OpError::invalid("cannot reduce an empty axis with max or min"))?)
}

/// The position of the first maximum along `axis` (NaN counts as the maximum).
pub(crate) fn argmax<T: Elem>(a: &ArrayD<T>, axis: usize, out_shape: &[usize]) -> Result<ArrayD<i64>, OpError> {
    if let Some((i, _)) = whole(a, out_shape, true) {
        return Ok(zero_d(i as i64));
    }
    let mask: smallvec::SmallVec<[bool; 8]> = (0..a.ndim()).map(|i| i == axis).collect();
    shaped(out_shape, fold_groups(a, &mask, out_shape, |g| first_extreme(g, true).map_or(0, |(i, _)| i as i64))?)
}

/// `first_extreme` of all of `a` when it folds to one 0-d output from
/// contiguous storage (a vector's argmax, a whole-tensor max): the one group
/// `fold_groups` would make, without collecting and shaping a vector.
fn whole<T: Elem>(a: &ArrayD<T>, out_shape: &[usize], is_max: bool) -> Option<(usize, T)> {
    if !out_shape.is_empty() {
        return None;
    }
    first_extreme(a.as_slice()?, is_max)
}

/// The shape `ArgMax` returns, or an error for a scalar or an empty axis.
pub(crate) fn argmax_shape(shape: &[usize], axis: i64) -> Result<(usize, Vec<usize>), OpError> {
    let ax = normalize_axis(axis, shape.len(), "ArgMax")?;
    if shape[ax] == 0 {
        return Err(OpError::invalid(format!("Reduction axis {ax} is empty in shape {}", fmt_shape(shape))));
    }
    let out = shape.iter().enumerate().filter(|&(i, _)| i != ax).map(|(_, &d)| d).collect();
    Ok((ax, out))
}
