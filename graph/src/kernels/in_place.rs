//! Elementwise ops computed into the storage of an input that is read for
//! the last time (the graph executor hands over a uniquely owned value of
//! the output's dtype and shape): no allocation. Each element is the same
//! function of the same operands, in the same order, as in `elementwise.rs`,
//! so the bits are eager execution's. Only ops without value-dependent
//! errors, and only the broadcasts `zip2` has shortcuts for; for anything
//! else `in_place` returns false and leaves `dst` untouched. `MatMul` too:
//! `matmul.rs`'s loops into a scratch buffer (they read the inputs while
//! writing), then copied into the input's storage, which saves building,
//! counting and later freeing a new tensor. A list's push appends its row
//! in place (`list.rs`).

use super::elem::{maximum, minimum, relu, Float, Number};
use super::elementwise::is_suffix;
use super::matmul_tiles::matmul_into;
use crate::op::Op;
use crate::shape::same_shape;
use crate::tensor::Data;
use ndarray::ArrayD;

/// `op` on `dst` (input `k`) and `other` (the other input of a binary op),
/// written into `dst`; false when not done.
pub(crate) fn in_place(op: &Op, dst: &mut Data, k: usize, other: Option<&Data>) -> bool {
    if op.is_list_op() {
        return crate::list::in_place(op, dst, k, other);
    }
    match (dst, other) {
        (Data::F32(a), None) => unary_float(op, a),
        (Data::F64(a), None) => unary_float(op, a),
        (Data::I32(a), None) => unary(op, a),
        (Data::I64(a), None) => unary(op, a),
        (Data::F32(a), Some(Data::F32(b))) => binary(op, a, k, b),
        (Data::F64(a), Some(Data::F64(b))) => binary(op, a, k, b),
        (Data::I32(a), Some(Data::I32(b))) => binary(op, a, k, b),
        (Data::I64(a), Some(Data::I64(b))) => binary(op, a, k, b),
        _ => false,
    }
}

fn unary<T: Number>(op: &Op, a: &mut ArrayD<T>) -> bool {
    match op {
        Op::Neg => a.mapv_inplace(T::neg),
        Op::Abs => a.mapv_inplace(T::abs),
        Op::Relu => a.mapv_inplace(relu),
        _ => return false,
    }
    true
}

fn unary_float<T: Float>(op: &Op, a: &mut ArrayD<T>) -> bool {
    match op {
        Op::Exp => a.mapv_inplace(T::exp),
        Op::Log => a.mapv_inplace(T::ln),
        Op::Sqrt => a.mapv_inplace(T::sqrt),
        Op::Sigmoid => a.mapv_inplace(T::sigmoid),
        Op::Tanh => match a.as_slice_mut() {
            Some(v) => T::tanh_in_place(v),
            None => a.mapv_inplace(T::tanh),
        },
        _ => return unary(op, a),
    }
    true
}

fn binary<T: Number>(op: &Op, a: &mut ArrayD<T>, k: usize, b: &ArrayD<T>) -> bool {
    match op {
        Op::Add => zip_into(a, k, b, T::add),
        Op::Sub => zip_into(a, k, b, T::sub),
        Op::Mul => zip_into(a, k, b, T::mul),
        Op::Maximum => zip_into(a, k, b, maximum),
        Op::Minimum => zip_into(a, k, b, minimum),
        Op::MatMul => matmul_donor(a, k, b),
        _ => false,
    }
}

/// `dst @ b` (`k == 0`) or `b @ dst`, into `dst` (which has the output's
/// shape: the plan's donor rule). The same per-matrix loops as `matmul`.
fn matmul_donor<T: Number>(dst: &mut ArrayD<T>, k: usize, b: &ArrayD<T>) -> bool {
    let (a_shape, b_shape) = if k == 0 { (dst.shape(), b.shape()) } else { (b.shape(), dst.shape()) };
    let r = a_shape.len();
    if r < 2 || b_shape.len() != r || a_shape[..r - 2] != b_shape[..r - 2] || a_shape[r - 1] != b_shape[r - 2] {
        return false;
    }
    let (m, inner, n) = (a_shape[r - 2], a_shape[r - 1], b_shape[r - 1]);
    // The output, [..., m, n], must have dst's shape.
    if (k == 0 && n != inner) || (k == 1 && m != inner) {
        return false;
    }
    let batches: usize = a_shape[..r - 2].iter().product();
    let b = b.as_standard_layout();
    let (Some(other), Some(x)) = (b.as_slice(), dst.as_slice_mut()) else {
        return false;
    };
    if x.len() != batches * m * n {
        return false;
    }
    let mut scratch: smallvec::SmallVec<[T; 256]> = smallvec::smallvec![T::ZERO; m * n];
    for batch in 0..batches {
        let o = batch * m * n..(batch + 1) * m * n;
        if k == 0 {
            matmul_into(
                &x[batch * m * inner..(batch + 1) * m * inner],
                &other[batch * inner * n..(batch + 1) * inner * n],
                &mut scratch,
                m,
                inner,
                n,
            );
        } else {
            matmul_into(
                &other[batch * m * inner..(batch + 1) * m * inner],
                &x[batch * inner * n..(batch + 1) * inner * n],
                &mut scratch,
                m,
                inner,
                n,
            );
        }
        x[o].copy_from_slice(&scratch);
    }
    true
}

/// `a = f(a, b)` (`k == 0`) or `a = f(b, a)`, `b` broadcast to `a`'s shape.
fn zip_into<T: Copy>(a: &mut ArrayD<T>, k: usize, b: &ArrayD<T>, f: impl Fn(T, T) -> T) -> bool {
    if k == 0 || crate::planted::active("in_place_donor_side") {
        apply(a, b, f)
    } else {
        apply(a, b, |x, y| f(y, x))
    }
}

fn apply<T: Copy>(a: &mut ArrayD<T>, b: &ArrayD<T>, f: impl Fn(T, T) -> T) -> bool {
    let full = same_shape(a.shape(), b.shape());
    let suffix = is_suffix(b.shape(), a.shape());
    let (Some(y), Some(x)) = (b.as_slice(), a.as_slice_mut()) else {
        return false;
    };
    if full {
        x.iter_mut().zip(y).for_each(|(p, &q)| *p = f(*p, q));
    } else if let [q] = y {
        x.iter_mut().for_each(|p| *p = f(*p, *q));
    } else if suffix && !y.is_empty() {
        for row in x.chunks_exact_mut(y.len()) {
            row.iter_mut().zip(y).for_each(|(p, &q)| *p = f(*p, q));
        }
    } else {
        return false;
    }
    true
}
