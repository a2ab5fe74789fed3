//! The host side of each kernel family: shapes and strides into `info`,
//! buffers, dispatch. One file per family, as graph/src/kernels.

pub(crate) mod elementwise;
pub(crate) mod generate;
pub(crate) mod layout;
pub(crate) mod lists;
pub(crate) mod matmul;
pub(crate) mod reduce;

/// Row-major strides (in elements) of `shape`.
pub(crate) fn contiguous(shape: &[usize]) -> Vec<i64> {
    let mut strides = vec![1i64; shape.len()];
    for ax in (0..shape.len().saturating_sub(1)).rev() {
        strides[ax] = strides[ax + 1] * shape[ax + 1] as i64;
    }
    strides
}

/// `info` words: sizes as u32, strides and offsets as i32 bits. Tensors hold
/// at most `graph::MAX_ELEMENTS` (2^27) elements, so both fit.
pub(crate) fn words(values: impl IntoIterator<Item = i64>) -> Vec<u32> {
    values.into_iter().map(|v| v as i32 as u32).collect()
}

/// Number of elements of `shape`.
pub(crate) fn count(shape: &[usize]) -> usize {
    shape.iter().product()
}
