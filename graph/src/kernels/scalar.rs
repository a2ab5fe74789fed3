//! Binary ops on two 0-d tensors of one number dtype (a loop's counter and
//! bound: `t < n`, `t + 1`), without the broadcasting machinery: the same
//! element functions as `elementwise.rs` (`Number::add`, `maximum`, the
//! comparisons' `<`), on the one element. Only ops without value-dependent
//! errors; anything else is `None` and goes the general way.

use super::elem::{maximum, minimum, Number};
use crate::op::Op;
use crate::tensor::Data;
use ndarray::Array0;

/// `op` on the elements of `a` and `b` (both 0-d), or `None`.
pub(crate) fn binary(op: &Op, a: &Data, b: &Data) -> Option<Data> {
    match (a, b) {
        (Data::I32(a), Data::I32(b)) => on(op, *a.first()?, *b.first()?),
        (Data::I64(a), Data::I64(b)) => on(op, *a.first()?, *b.first()?),
        (Data::F32(a), Data::F32(b)) => on(op, *a.first()?, *b.first()?),
        (Data::F64(a), Data::F64(b)) => on(op, *a.first()?, *b.first()?),
        _ => None,
    }
}

fn on<T: Number>(op: &Op, x: T, y: T) -> Option<Data> {
    let number = |v: T| T::wrap(zero_d(v));
    let truth = |v: bool| Data::Bool(zero_d(v));
    Some(match op {
        Op::Add => number(x.add(y)),
        Op::Sub => number(x.sub(y)),
        Op::Mul => number(x.mul(y)),
        Op::Maximum => number(maximum(x, y)),
        Op::Minimum => number(minimum(x, y)),
        Op::Eq => truth(x == y),
        Op::Ne => truth(x != y),
        Op::Lt => truth(x < y),
        Op::Le => truth(x <= y),
        Op::Gt => truth(x > y),
        Op::Ge => truth(x >= y),
        _ => return None,
    })
}

/// A 0-d array holding `v`: built with a fixed rank, then made dynamic, in
/// a third of `ArrayD::from_elem(IxDyn(&[]), v)`'s time (`shape::array_of`).
#[inline]
pub(crate) fn zero_d<T: Clone>(v: T) -> ndarray::ArrayD<T> {
    Array0::from_elem((), v).into_dyn()
}
