//! MatMul against hand results: 2-D, batched, empty inner dim, wraparound,
//! sequential accumulation, and TF's shape errors.

use super::*;
use stagecheck_graph::ErrorKind::InvalidArgument;

#[test]
fn small_products() {
    let a = i32s(&[1, 2, 3, 4], &[2, 2]);
    let b = i32s(&[5, 6, 7, 8], &[2, 2]);
    same(&ev(Op::MatMul, &[&a, &b]), &i32s(&[19, 22, 43, 50], &[2, 2]));
    let a = f64s(&[1., 2., 3., 4., 5., 6.], &[2, 3]);
    let b = f64s(&[1., 0., -1.], &[3, 1]);
    same(&ev(Op::MatMul, &[&a, &b]), &f64s(&[-2., -2.], &[2, 1]));
    let a = i64s(&[1, 2, 3, 4], &[2, 1, 2]);
    let b = i64s(&[1, 1, 2, 0], &[2, 2, 1]);
    same(&ev(Op::MatMul, &[&a, &b]), &i64s(&[3, 6], &[2, 1, 1]));
    let z = ev(Op::MatMul, &[&f32s(&[], &[2, 0]), &f32s(&[], &[0, 3])]);
    same(&z, &f32s(&[0.0; 6], &[2, 3]));
}

#[test]
fn accumulation_is_sequential_and_wraps() {
    let a = f32s(&[1e8, 1.0, -1e8, 1.0], &[1, 4]);
    same(&ev(Op::MatMul, &[&a, &f32s(&[1.0; 4], &[4, 1])]), &f32s(&[1.0], &[1, 1]));
    let a = i32s(&[i32::MAX, 1], &[1, 2]);
    same(&ev(Op::MatMul, &[&a, &i32s(&[1, 1], &[2, 1])]), &i32s(&[i32::MIN], &[1, 1]));
}

#[test]
fn shape_errors() {
    let msg = fails(Op::MatMul, &[&i32s(&[0; 6], &[2, 3]), &i32s(&[0; 4], &[2, 2])], InvalidArgument);
    assert_eq!(msg, "Matrix size-incompatible: In[0]: [2,3], In[1]: [2,2]");
    fails(Op::MatMul, &[&i32s(&[1, 2], &[2]), &i32s(&[1, 2], &[2])], InvalidArgument);
    fails(Op::MatMul, &[&i32s(&[0; 8], &[2, 2, 2]), &i32s(&[0; 12], &[3, 2, 2])], InvalidArgument);
    fails(Op::MatMul, &[&i32s(&[0; 8], &[2, 2, 2]), &i32s(&[0; 4], &[2, 2])], InvalidArgument);
}
