//! Matrix multiplication, 2-D and batched: `[..., m, k] @ [..., k, n]` with
//! equal batch dims. Each output element starts at zero and adds the products
//! `a[i, p] * b[p, j]` for `p = 0, 1, ..., k-1` in order, in the input dtype,
//! each as one fused multiply-add for floats (matmul_tiles.rs).

use super::elem::Number;
use super::matmul_tiles::matmul_into;
use crate::error::OpError;
use crate::shape::{array_of, check_num_elements, fmt_shape};
use ndarray::ArrayD;

/// The output shape, or TF's errors for ranks below 2, unequal ranks or batch
/// dims, and mismatched inner dims.
pub(crate) fn matmul_shape(a: &[usize], b: &[usize]) -> Result<Vec<usize>, OpError> {
    if a.len() < 2 || b.len() < 2 {
        return Err(OpError::invalid(format!("In[0] and In[1] must be at least rank 2 (matrices): {} vs. {}", fmt_shape(a), fmt_shape(b))));
    }
    if a.len() != b.len() {
        return Err(OpError::invalid(format!("In[0] and In[1] has different ndims: {} vs. {}", fmt_shape(a), fmt_shape(b))));
    }
    let r = a.len();
    if a[..r - 2] != b[..r - 2] {
        return Err(OpError::invalid(format!("In[0] and In[1] must have equal batch dimensions: {} vs. {}", fmt_shape(a), fmt_shape(b))));
    }
    if a[r - 1] != b[r - 2] {
        return Err(OpError::invalid(format!("Matrix size-incompatible: In[0]: {}, In[1]: {}", fmt_shape(a), fmt_shape(b))));
    }
    let mut out = Vec::with_capacity(r);
    out.extend_from_slice(&a[..r - 1]);
    out.push(b[r - 1]);
    check_num_elements(&out)?;
    Ok(out)
}

pub(crate) fn matmul<T: Number>(a: &ArrayD<T>, b: &ArrayD<T>) -> Result<ArrayD<T>, OpError> {
    let out_shape = matmul_shape(a.shape(), b.shape())?;
    let r = out_shape.len();
    let (m, k, n) = (a.shape()[r - 2], a.shape()[r - 1], b.shape()[r - 1]);
    let a = a.as_standard_layout();
    let b = b.as_standard_layout();
    let (Some(av), Some(bv)) = (a.as_slice(), b.as_slice()) else {
        return Err(OpError::invalid("internal error: matmul inputs are not contiguous"));
    };
    let batches: usize = out_shape[..r - 2].iter().product();
    let mut out = vec![T::ZERO; batches * m * n];
    for batch in 0..batches {
        let a_mat = &av[batch * m * k..(batch + 1) * m * k];
        let b_mat = &bv[batch * k * n..(batch + 1) * k * n];
        let o_mat = &mut out[batch * m * n..(batch + 1) * m * n];
        matmul_into(a_mat, b_mat, o_mat, m, k, n);
    }
    array_of(&out_shape, out).map_err(|e| OpError::invalid(format!("internal error: {e}")))
}
