//! NumPy basic indexing on `x = np.arange(12).reshape(3, 4)`, results worked
//! out by hand from NumPy's rules.

use super::*;
use stagecheck_graph::{ErrorKind::InvalidArgument, IndexItem};
use IndexItem::{At, Ellipsis, NewAxis};

fn x() -> Tensor {
    i32s(&(0..12).collect::<Vec<_>>(), &[3, 4])
}

fn sl(start: Option<i64>, stop: Option<i64>, step: Option<i64>) -> IndexItem {
    IndexItem::Slice { start, stop, step }
}

fn all() -> IndexItem {
    sl(None, None, None)
}

fn idx(t: &Tensor, items: Vec<IndexItem>) -> Tensor {
    ev(Op::Index { items }, &[t])
}

#[test]
fn integers_remove_axes() {
    same(&idx(&x(), vec![At(1)]), &i32s(&[4, 5, 6, 7], &[4]));
    same(&idx(&x(), vec![At(-1)]), &i32s(&[8, 9, 10, 11], &[4]));
    same(&idx(&x(), vec![At(1), At(2)]), &i32s(&[6], &[]));
    same(&idx(&x(), vec![all(), At(-4)]), &i32s(&[0, 4, 8], &[3]));
}

#[test]
fn out_of_range_integers_are_errors() {
    let msg = fails(Op::Index { items: vec![At(3)] }, &[&x()], InvalidArgument);
    assert_eq!(msg, "index 3 is out of bounds for axis 0 with size 3");
    let msg = fails(Op::Index { items: vec![all(), At(-5)] }, &[&x()], InvalidArgument);
    assert_eq!(msg, "index -5 is out of bounds for axis 1 with size 4");
    let msg = fails(Op::Index { items: vec![At(0), At(0), At(0)] }, &[&x()], InvalidArgument);
    assert_eq!(msg, "too many indices for array: array is 2-dimensional, but 3 were indexed");
    fails(Op::Index { items: vec![Ellipsis, Ellipsis] }, &[&x()], InvalidArgument);
    fails(Op::Index { items: vec![At(i64::MIN)] }, &[&x()], InvalidArgument);
    fails(Op::Index { items: vec![At(0)] }, &[&i32s(&[1], &[])], InvalidArgument);
}

#[test]
fn slices_clamp_and_step() {
    same(&idx(&x(), vec![sl(None, None, Some(-1))]), &i32s(&[8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3], &[3, 4]));
    same(&idx(&x(), vec![all(), sl(Some(1), Some(3), None)]), &i32s(&[1, 2, 5, 6, 9, 10], &[3, 2]));
    same(&idx(&x(), vec![sl(None, None, Some(-2)), sl(None, None, Some(-3))]), &i32s(&[11, 8, 3, 0], &[2, 2]));
    same(&idx(&x(), vec![sl(Some(5), None, None)]), &i32s(&[], &[0, 4]));
    same(&idx(&x(), vec![sl(Some(-100), Some(2), None)]), &i32s(&[0, 1, 2, 3, 4, 5, 6, 7], &[2, 4]));
    same(&idx(&x(), vec![sl(Some(1), Some(-1), None)]), &i32s(&[4, 5, 6, 7], &[1, 4]));
    same(&idx(&x(), vec![sl(Some(2), Some(0), Some(-1)), At(3)]), &i32s(&[11, 7], &[2]));
    same(&idx(&x(), vec![all(), sl(Some(10), None, None)]), &i32s(&[], &[3, 0]));
    same(&idx(&x(), vec![At(0), sl(Some(-1), None, Some(-1))]), &i32s(&[3, 2, 1, 0], &[4]));
    same(&idx(&x(), vec![At(0), sl(Some(3), Some(-5), Some(-1))]), &i32s(&[3, 2, 1, 0], &[4]));
    same(&idx(&x(), vec![At(0), sl(None, None, Some(i64::MIN))]), &i32s(&[3], &[1]));
    same(&idx(&x(), vec![At(0), sl(Some(i64::MIN), Some(i64::MAX), None)]), &i32s(&[0, 1, 2, 3], &[4]));
    same(&idx(&x(), vec![At(0), sl(Some(1), Some(1), None)]), &i32s(&[], &[0]));
    let msg = fails(Op::Index { items: vec![sl(None, None, Some(0))] }, &[&x()], InvalidArgument);
    assert_eq!(msg, "slice step cannot be zero");
}

#[test]
fn new_axes_and_ellipsis() {
    same(&idx(&x(), vec![NewAxis, At(1)]), &i32s(&[4, 5, 6, 7], &[1, 4]));
    same(&idx(&x(), vec![At(1), NewAxis]), &i32s(&[4, 5, 6, 7], &[1, 4]));
    same(&idx(&x(), vec![all(), NewAxis, At(0)]), &i32s(&[0, 4, 8], &[3, 1]));
    same(&idx(&x(), vec![Ellipsis, sl(None, None, Some(2))]), &i32s(&[0, 2, 4, 6, 8, 10], &[3, 2]));
    same(&idx(&x(), vec![Ellipsis]), &x());
    same(&idx(&x(), vec![]), &x());
    same(&idx(&x(), vec![At(2), Ellipsis, At(1)]), &i32s(&[9], &[]));
    same(&idx(&x(), vec![Ellipsis, NewAxis]), &i32s(&(0..12).collect::<Vec<_>>(), &[3, 4, 1]));
    let s = i32s(&[7], &[]);
    same(&idx(&s, vec![NewAxis]), &i32s(&[7], &[1]));
    same(&idx(&s, vec![Ellipsis]), &s);
}

#[test]
fn indexing_a_transposed_tensor_uses_logical_order() {
    let t = ev(Op::Transpose { perm: None }, &[&x()]);
    same(&idx(&t, vec![At(1)]), &i32s(&[1, 5, 9], &[3]));
}
