//! TensorFlow's dtype rules: one dtype per binary op, no arithmetic on bool,
//! float-only transcendental ops, int division to float64.

use super::*;
use stagecheck_graph::{infer, DType, ErrorKind::InvalidArgument};

#[test]
fn binary_ops_need_one_dtype_and_name_both() {
    let msg = fails(Op::Add, &[&i32s(&[1], &[1]), &f32s(&[1.0], &[1])], InvalidArgument);
    assert_eq!(msg, "cannot compute Add: int32 and float32 tensors");
    let msg = fails(Op::Lt, &[&i64s(&[1], &[]), &i32s(&[1], &[])], InvalidArgument);
    assert_eq!(msg, "cannot compute Less: int64 and int32 tensors");
    fails(Op::Where, &[&bools(&[true], &[]), &i32s(&[1], &[]), &f64s(&[1.0], &[])], InvalidArgument);
    fails(Op::MatMul, &[&f32s(&[1.0], &[1, 1]), &f64s(&[1.0], &[1, 1])], InvalidArgument);
}

#[test]
fn arithmetic_and_ordering_refuse_bool() {
    let b = bools(&[true, false], &[2]);
    for op in [Op::Add, Op::Sub, Op::Mul, Op::Div, Op::FloorDiv, Op::Mod, Op::Pow, Op::Maximum, Op::Lt, Op::Ge, Op::MatMul] {
        let msg = fails(op.clone(), &[&b, &b], InvalidArgument);
        assert!(msg.contains("bool"), "{op:?}: {msg}");
    }
    for op in [Op::Neg, Op::Abs, Op::Relu, Op::ReduceSum { axis: None, keepdims: false }] {
        fails(op, &[&b], InvalidArgument);
    }
    let msg = fails(Op::Neg, &[&b], InvalidArgument);
    assert_eq!(msg, "cannot compute Neg on bool tensors (expected int32, int64, float32 or float64)");
    same(&ev(Op::Eq, &[&b, &b]), &bools(&[true, true], &[2]));
}

#[test]
fn float_only_ops_refuse_ints() {
    for op in [Op::Exp, Op::Log, Op::Sqrt, Op::Tanh, Op::Sigmoid] {
        let msg = fails(op, &[&i32s(&[1], &[1])], InvalidArgument);
        assert!(msg.ends_with("on int32 tensors (expected float32 or float64)"), "{msg}");
    }
}

#[test]
fn logical_not_is_for_bool_and_invert_for_ints() {
    fails(Op::LogicalNot, &[&i32s(&[1], &[])], InvalidArgument);
    fails(Op::Invert, &[&bools(&[true], &[])], InvalidArgument);
    fails(Op::Invert, &[&f32s(&[1.0], &[])], InvalidArgument);
    fails(Op::BitAnd, &[&f32s(&[1.0], &[]), &f32s(&[1.0], &[])], InvalidArgument);
}

#[test]
fn int_true_division_gives_float64() {
    let got = ev(Op::Div, &[&i32s(&[1, 2, -3, 0], &[4]), &i32s(&[2, 0, 2, 0], &[4])]);
    assert_eq!(got.dtype(), DType::Float64);
    assert_eq!(got.get(&[0]).unwrap().to_value(), stagecheck_graph::Value::Float(0.5));
    same(&got.clone(), &got);
    let v = got.scalars();
    assert!(v[1].bit_eq(stagecheck_graph::Scalar::F64(f64::INFINITY)));
    assert!(v[2].bit_eq(stagecheck_graph::Scalar::F64(-1.5)));
    assert!(matches!(v[3], stagecheck_graph::Scalar::F64(x) if x.is_nan()));
    assert_eq!(ev(Op::Div, &[&i64s(&[1], &[]), &i64s(&[3], &[])]).dtype(), DType::Float64);
    assert_eq!(ev(Op::Div, &[&f32s(&[1.0], &[]), &f32s(&[3.0], &[])]).dtype(), DType::Float32);
}

#[test]
fn output_dtypes_from_infer() {
    let sig = |d: DType| (d, vec![2usize]);
    assert_eq!(infer(&Op::Eq, &[sig(DType::Float32), sig(DType::Float32)]).unwrap().0, DType::Bool);
    assert_eq!(infer(&Op::ArgMax { axis: 0 }, &[sig(DType::Float32)]).unwrap(), (DType::Int64, vec![]));
    assert_eq!(infer(&Op::Cast { dtype: DType::Bool }, &[sig(DType::Int32)]).unwrap().0, DType::Bool);
    assert_eq!(infer(&Op::BitXor, &[sig(DType::Bool), sig(DType::Bool)]).unwrap().0, DType::Bool);
}

#[test]
fn arity_is_checked() {
    let x = i32s(&[1], &[]);
    let msg = fails(Op::Add, &[&x], InvalidArgument);
    assert_eq!(msg, "Add expects 2 inputs, got 1");
    fails(Op::Neg, &[&x, &x], InvalidArgument);
    fails(Op::Concat { axis: 0 }, &[], InvalidArgument);
    fails(Op::Eye { n: 2, dtype: DType::Int32 }, &[&x], InvalidArgument);
    fails(Op::Where, &[&x, &x], InvalidArgument);
}
