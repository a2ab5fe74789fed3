//! Fill (zeros/ones), Range (TF's rules, accumulated) and Eye.

use super::*;
use stagecheck_graph::{DType, ErrorKind::InvalidArgument};

fn range(start: f64, limit: f64, delta: f64, dtype: DType) -> Op {
    Op::Range { start, limit, delta, dtype }
}

#[test]
fn fill_converts_its_value_like_cast() {
    same(&ev(Op::Fill { shape: vec![2, 2], dtype: DType::Float32, value: 0.0 }, &[]), &f32s(&[0.0; 4], &[2, 2]));
    same(&ev(Op::Fill { shape: vec![3], dtype: DType::Int64, value: 1.0 }, &[]), &i64s(&[1, 1, 1], &[3]));
    same(&ev(Op::Fill { shape: vec![], dtype: DType::Int32, value: 2.7 }, &[]), &i32s(&[2], &[]));
    same(&ev(Op::Fill { shape: vec![1], dtype: DType::Bool, value: 0.0 }, &[]), &bools(&[false], &[1]));
    same(&ev(Op::Fill { shape: vec![0, 5], dtype: DType::Bool, value: 1.0 }, &[]), &bools(&[], &[0, 5]));
    fails(Op::Fill { shape: vec![1 << 20, 1 << 20], dtype: DType::Float64, value: 0.0 }, &[], InvalidArgument);
}

#[test]
fn ranges() {
    same(&ev(range(0.0, 5.0, 1.0, DType::Int32), &[]), &i32s(&[0, 1, 2, 3, 4], &[5]));
    same(&ev(range(5.0, 0.0, -2.0, DType::Int64), &[]), &i64s(&[5, 3, 1], &[3]));
    same(&ev(range(0.0, 1.0, 0.25, DType::Float32), &[]), &f32s(&[0.0, 0.25, 0.5, 0.75], &[4]));
    same(&ev(range(3.0, 3.0, 1.0, DType::Int32), &[]), &i32s(&[], &[0]));
    // Accumulated, as TF: the fourth element is 0.1 + 0.1 + 0.1.
    let r = ev(range(0.0, 1.0, 0.1, DType::Float64), &[]);
    assert_eq!(r.shape(), &[10]);
    assert!(r.get(&[3]).unwrap().bit_eq(stagecheck_graph::Scalar::F64(0.1 + 0.1 + 0.1)));
    assert!(r.get(&[3]).unwrap().bit_eq(stagecheck_graph::Scalar::F64(0.30000000000000004)));
    let msg = fails(range(0.0, 5.0, 0.0, DType::Int32), &[], InvalidArgument);
    assert_eq!(msg, "Requires delta != 0: 0");
    fails(range(5.0, 0.0, 1.0, DType::Int32), &[], InvalidArgument);
    fails(range(0.0, 5.0, -1.0, DType::Int32), &[], InvalidArgument);
    fails(range(0.5, 3.0, 1.0, DType::Int32), &[], InvalidArgument);
    fails(range(0.0, 3e9, 1.0, DType::Int32), &[], InvalidArgument);
    fails(range(0.0, f64::INFINITY, 1.0, DType::Float64), &[], InvalidArgument);
    fails(range(0.0, 1e300, 1.0, DType::Float64), &[], InvalidArgument);
    fails(range(0.0, 3.0, 1.0, DType::Bool), &[], InvalidArgument);
}

#[test]
fn eye() {
    same(&ev(Op::Eye { n: 2, dtype: DType::Float32 }, &[]), &f32s(&[1.0, 0.0, 0.0, 1.0], &[2, 2]));
    same(&ev(Op::Eye { n: 3, dtype: DType::Bool }, &[]), &bools(&[true, false, false, false, true, false, false, false, true], &[3, 3]));
    same(&ev(Op::Eye { n: 0, dtype: DType::Int32 }, &[]), &i32s(&[], &[0, 0]));
}
