//! Reshape (with -1), transpose, concat and stack.

use super::*;
use stagecheck_graph::ErrorKind::InvalidArgument;

fn reshape(t: &Tensor, shape: &[i64]) -> Tensor {
    ev(Op::Reshape { shape: shape.to_vec() }, &[t])
}

#[test]
fn reshape_infers_one_dimension() {
    let a = i32s(&[1, 2, 3, 4, 5, 6], &[2, 3]);
    same(&reshape(&a, &[-1]), &i32s(&[1, 2, 3, 4, 5, 6], &[6]));
    same(&reshape(&a, &[3, -1]), &i32s(&[1, 2, 3, 4, 5, 6], &[3, 2]));
    same(&reshape(&a, &[-1, 1, 2]), &i32s(&[1, 2, 3, 4, 5, 6], &[3, 1, 2]));
    same(&reshape(&i32s(&[5], &[1, 1]), &[]), &i32s(&[5], &[]));
    same(&reshape(&i32s(&[], &[0, 3]), &[3, 0]), &i32s(&[], &[3, 0]));
    let msg = fails(Op::Reshape { shape: vec![-1, -1] }, &[&a], InvalidArgument);
    assert_eq!(msg, "only one input size may be -1, not both 0 and 1");
    let msg = fails(Op::Reshape { shape: vec![4] }, &[&a], InvalidArgument);
    assert_eq!(msg, "Input to reshape is a tensor with 6 values, but the requested shape has 4: [4]");
    fails(Op::Reshape { shape: vec![4, -1] }, &[&a], InvalidArgument);
    fails(Op::Reshape { shape: vec![0, -1] }, &[&i32s(&[], &[0])], InvalidArgument);
    fails(Op::Reshape { shape: vec![-2, -3] }, &[&a], InvalidArgument);
}

#[test]
fn reshape_reads_row_major_after_transpose() {
    let a = i32s(&[1, 2, 3, 4, 5, 6], &[2, 3]);
    let t = ev(Op::Transpose { perm: None }, &[&a]);
    same(&t, &i32s(&[1, 4, 2, 5, 3, 6], &[3, 2]));
    same(&reshape(&t, &[-1]), &i32s(&[1, 4, 2, 5, 3, 6], &[6]));
}

#[test]
fn transpose_permutes_axes() {
    let cube = i32s(&(0..24).collect::<Vec<_>>(), &[2, 3, 4]);
    let r = ev(Op::Transpose { perm: None }, &[&cube]);
    assert_eq!(r.shape(), &[4, 3, 2]);
    // r[i, j, k] == cube[k, j, i]: r[3, 1, 0] == cube[0, 1, 3] == 7.
    assert!(r.get(&[3, 1, 0]).unwrap().bit_eq(stagecheck_graph::Scalar::I32(7)));
    let p = ev(Op::Transpose { perm: Some(vec![1, 0, 2]) }, &[&cube]);
    assert_eq!(p.shape(), &[3, 2, 4]);
    assert!(p.get(&[2, 1, 3]).unwrap().bit_eq(stagecheck_graph::Scalar::I32(23)));
    same(&ev(Op::Transpose { perm: None }, &[&i32s(&[3], &[])]), &i32s(&[3], &[]));
    fails(Op::Transpose { perm: Some(vec![0, 0, 1]) }, &[&cube], InvalidArgument);
    fails(Op::Transpose { perm: Some(vec![0, 1]) }, &[&cube], InvalidArgument);
    fails(Op::Transpose { perm: Some(vec![0, 1, 3]) }, &[&cube], InvalidArgument);
}

#[test]
fn concat_joins_along_an_axis() {
    let a = i32s(&[1, 2], &[1, 2]);
    let b = i32s(&[3, 4, 5, 6], &[2, 2]);
    same(&ev(Op::Concat { axis: 0 }, &[&a, &b]), &i32s(&[1, 2, 3, 4, 5, 6], &[3, 2]));
    let c = i32s(&[1, 2], &[2, 1]);
    same(&ev(Op::Concat { axis: 1 }, &[&c, &b]), &i32s(&[1, 3, 4, 2, 5, 6], &[2, 3]));
    same(&ev(Op::Concat { axis: -1 }, &[&c, &b]), &i32s(&[1, 3, 4, 2, 5, 6], &[2, 3]));
    same(&ev(Op::Concat { axis: 0 }, &[&a]), &a);
    same(&ev(Op::Concat { axis: 0 }, &[&i32s(&[], &[0, 2]), &a]), &a);
    let msg = fails(Op::Concat { axis: 0 }, &[&c, &b], InvalidArgument);
    assert_eq!(msg, "ConcatOp : Dimensions of inputs should match: shape[0] = [2,1] vs. shape[1] = [2,2]");
    let msg = fails(Op::Concat { axis: 0 }, &[&a, &f32s(&[1.0, 2.0], &[1, 2])], InvalidArgument);
    assert_eq!(msg, "cannot compute Concat: int32 and float32 tensors");
    fails(Op::Concat { axis: 0 }, &[&i32s(&[1], &[]), &i32s(&[2], &[])], InvalidArgument);
    fails(Op::Concat { axis: 2 }, &[&a, &a], InvalidArgument);
    fails(Op::Concat { axis: 0 }, &[&a, &i32s(&[1, 2], &[2])], InvalidArgument);
}

#[test]
fn stack_adds_an_axis() {
    let a = i32s(&[1, 2], &[2]);
    let b = i32s(&[3, 4], &[2]);
    same(&ev(Op::Stack { axis: 0 }, &[&a, &b]), &i32s(&[1, 2, 3, 4], &[2, 2]));
    same(&ev(Op::Stack { axis: 1 }, &[&a, &b]), &i32s(&[1, 3, 2, 4], &[2, 2]));
    same(&ev(Op::Stack { axis: -1 }, &[&a, &b]), &i32s(&[1, 3, 2, 4], &[2, 2]));
    same(&ev(Op::Stack { axis: 0 }, &[&i32s(&[1], &[]), &i32s(&[2], &[])]), &i32s(&[1, 2], &[2]));
    fails(Op::Stack { axis: 2 }, &[&a, &b], InvalidArgument);
    fails(Op::Stack { axis: 0 }, &[&a, &i32s(&[1, 2, 3], &[3])], InvalidArgument);
    fails(Op::Stack { axis: 0 }, &[&a, &i64s(&[1, 2], &[2])], InvalidArgument);
}
