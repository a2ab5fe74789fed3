//! Elementwise ops: broadcasting, wraparound, Python's floor division and
//! modulo signs, division by zero, powers, NaN in max/min, unary ops.

use super::*;
use stagecheck_graph::ErrorKind::{InvalidArgument, ZeroDivision};

#[test]
fn broadcasting_follows_numpy() {
    let a = i32s(&[1, 2, 3, 4, 5, 6], &[2, 3]);
    same(&ev(Op::Add, &[&a, &i32s(&[10, 20, 30], &[3])]), &i32s(&[11, 22, 33, 14, 25, 36], &[2, 3]));
    same(&ev(Op::Add, &[&i32s(&[10, 20, 30], &[3]), &a]), &i32s(&[11, 22, 33, 14, 25, 36], &[2, 3]));
    let col = i32s(&[1, 2], &[2, 1]);
    let row = i32s(&[10, 20, 30], &[1, 3]);
    same(&ev(Op::Mul, &[&col, &row]), &i32s(&[10, 20, 30, 20, 40, 60], &[2, 3]));
    same(&ev(Op::Sub, &[&a, &i32s(&[1], &[])]), &i32s(&[0, 1, 2, 3, 4, 5], &[2, 3]));
    // 0-d with 0-d, and empty tensors.
    same(&ev(Op::Add, &[&i32s(&[2], &[]), &i32s(&[3], &[])]), &i32s(&[5], &[]));
    same(&ev(Op::Add, &[&i32s(&[], &[0]), &i32s(&[1], &[])]), &i32s(&[], &[0]));
    same(&ev(Op::Add, &[&i32s(&[], &[0, 3]), &i32s(&[1, 2, 3], &[1, 3])]), &i32s(&[], &[0, 3]));
    same(&ev(Op::Add, &[&i32s(&[], &[0, 1]), &i32s(&[1, 2, 3], &[3])]), &i32s(&[], &[0, 3]));
}

#[test]
fn incompatible_shapes_are_errors() {
    let a = i32s(&[1, 2, 3, 4, 5, 6], &[2, 3]);
    let msg = fails(Op::Add, &[&a, &i32s(&[1, 2], &[2])], InvalidArgument);
    assert_eq!(msg, "Incompatible shapes: [2,3] vs. [2]");
    fails(Op::Add, &[&i32s(&[], &[0]), &i32s(&[1, 2], &[2])], InvalidArgument);
    fails(Op::Eq, &[&a, &i32s(&[1, 2, 3, 4, 5, 6], &[3, 2])], InvalidArgument);
    fails(Op::Where, &[&bools(&[true, false], &[2]), &a, &a], InvalidArgument);
}

#[test]
fn integers_wrap_around() {
    same(&ev(Op::Add, &[&i32s(&[i32::MAX], &[]), &i32s(&[1], &[])]), &i32s(&[i32::MIN], &[]));
    same(&ev(Op::Sub, &[&i64s(&[i64::MIN], &[]), &i64s(&[1], &[])]), &i64s(&[i64::MAX], &[]));
    same(&ev(Op::Mul, &[&i32s(&[i32::MAX], &[]), &i32s(&[2], &[])]), &i32s(&[-2], &[]));
    same(&ev(Op::Neg, &[&i32s(&[i32::MIN, 5], &[2])]), &i32s(&[i32::MIN, -5], &[2]));
    same(&ev(Op::Abs, &[&i64s(&[i64::MIN, -5], &[2])]), &i64s(&[i64::MIN, 5], &[2]));
    same(&ev(Op::Pow, &[&i32s(&[2], &[]), &i32s(&[31], &[])]), &i32s(&[i32::MIN], &[]));
    same(&ev(Op::Pow, &[&i64s(&[3], &[]), &i64s(&[40], &[])]), &i64s(&[-6289078614652622815], &[]));
    same(&ev(Op::FloorDiv, &[&i32s(&[i32::MIN], &[]), &i32s(&[-1], &[])]), &i32s(&[i32::MIN], &[]));
    same(&ev(Op::Mod, &[&i32s(&[i32::MIN], &[]), &i32s(&[-1], &[])]), &i32s(&[0], &[]));
}

#[test]
fn floor_division_and_modulo_follow_python_signs() {
    // Python: 7//2, -7//2, 7//-2, -7//-2, 6//-3, -6//3, 0//-5 and the same with %.
    let a = [7, -7, 7, -7, 6, -6, 0];
    let b = [2, 2, -2, -2, -3, 3, -5];
    let (x, y) = (i32s(&a, &[7]), i32s(&b, &[7]));
    same(&ev(Op::FloorDiv, &[&x, &y]), &i32s(&[3, -4, -4, 3, -2, -2, 0], &[7]));
    same(&ev(Op::Mod, &[&x, &y]), &i32s(&[1, 1, -1, -1, 0, 0, 0], &[7]));
    let (x, y) = (i64s(&[7, -7, 7, -7], &[4]), i64s(&[2, 2, -2, -2], &[4]));
    same(&ev(Op::FloorDiv, &[&x, &y]), &i64s(&[3, -4, -4, 3], &[4]));
    same(&ev(Op::Mod, &[&x, &y]), &i64s(&[1, 1, -1, -1], &[4]));
    // Floats: TF's floor(x / y) and fmod moved to the divisor's sign (as Python).
    let (x, y) = (f64s(&[7.5, -7.5, 7.5, -7.5], &[4]), f64s(&[2.0, 2.0, -2.0, -2.0], &[4]));
    same(&ev(Op::FloorDiv, &[&x, &y]), &f64s(&[3.0, -4.0, -4.0, 3.0], &[4]));
    same(&ev(Op::Mod, &[&x, &y]), &f64s(&[1.5, 0.5, -0.5, -1.5], &[4]));
}

#[test]
fn integer_division_by_zero_is_an_error_float_division_is_ieee() {
    let msg = fails(Op::FloorDiv, &[&i32s(&[1, 2], &[2]), &i32s(&[1, 0], &[2])], ZeroDivision);
    assert_eq!(msg, "integer division by zero");
    fails(Op::Mod, &[&i64s(&[1], &[]), &i64s(&[0], &[])], ZeroDivision);
    // A zero divisor broadcast into an empty result is never used.
    same(&ev(Op::FloorDiv, &[&i32s(&[], &[0]), &i32s(&[0], &[])]), &i32s(&[], &[0]));
    let x = f32s(&[1.0, -1.0, 0.0], &[3]);
    let zero = f32s(&[0.0], &[]);
    for op in [Op::Div, Op::FloorDiv] {
        let v = ev(op, &[&x, &zero]).scalars();
        assert!(v[0].bit_eq(stagecheck_graph::Scalar::F32(f32::INFINITY)));
        assert!(v[1].bit_eq(stagecheck_graph::Scalar::F32(f32::NEG_INFINITY)));
        // The NaN's sign bit is the hardware's (x86 gives -nan): only NaN-ness is portable.
        assert!(matches!(v[2], stagecheck_graph::Scalar::F32(n) if n.is_nan()));
    }
    let m = ev(Op::Mod, &[&x, &zero]);
    assert!(m.scalars().iter().all(|s| matches!(s, stagecheck_graph::Scalar::F32(v) if v.is_nan())));
}

#[test]
fn powers() {
    let got = ev(Op::Pow, &[&i32s(&[2, -3, 0, 5], &[4]), &i32s(&[10, 3, 0, 1], &[4])]);
    same(&got, &i32s(&[1024, -27, 1, 5], &[4]));
    let msg = fails(Op::Pow, &[&i32s(&[2, 2], &[2]), &i32s(&[1, -1], &[2])], InvalidArgument);
    assert_eq!(msg, "Integers to negative integer powers are not allowed");
    same(&ev(Op::Pow, &[&f64s(&[2.0, 4.0], &[2]), &f64s(&[-1.0, 0.5], &[2])]), &f64s(&[0.5, 2.0], &[2]));
}

#[test]
fn maximum_and_minimum_propagate_nan() {
    let a = f64s(&[1.0, f64::NAN, 3.0], &[3]);
    let b = f64s(&[f64::NAN, 2.0, 1.0], &[3]);
    let mx = ev(Op::Maximum, &[&a, &b]).scalars();
    let mn = ev(Op::Minimum, &[&a, &b]).scalars();
    for v in [&mx, &mn] {
        assert!(matches!(v[0], stagecheck_graph::Scalar::F64(x) if x.is_nan()));
        assert!(matches!(v[1], stagecheck_graph::Scalar::F64(x) if x.is_nan()));
    }
    assert!(mx[2].bit_eq(stagecheck_graph::Scalar::F64(3.0)));
    assert!(mn[2].bit_eq(stagecheck_graph::Scalar::F64(1.0)));
    same(&ev(Op::Maximum, &[&i32s(&[1, 5], &[2]), &i32s(&[3], &[])]), &i32s(&[3, 5], &[2]));
}

#[test]
fn comparisons_and_bitwise() {
    let x = i32s(&[1, 2, 3], &[3]);
    let two = i32s(&[2], &[]);
    same(&ev(Op::Lt, &[&x, &two]), &bools(&[true, false, false], &[3]));
    same(&ev(Op::Le, &[&x, &two]), &bools(&[true, true, false], &[3]));
    same(&ev(Op::Gt, &[&x, &two]), &bools(&[false, false, true], &[3]));
    same(&ev(Op::Ge, &[&x, &two]), &bools(&[false, true, true], &[3]));
    same(&ev(Op::Ne, &[&x, &two]), &bools(&[true, false, true], &[3]));
    let nan = f32s(&[f32::NAN], &[]);
    same(&ev(Op::Eq, &[&nan, &nan]), &bools(&[false], &[]));
    same(&ev(Op::Ne, &[&nan, &nan]), &bools(&[true], &[]));
    same(&ev(Op::Lt, &[&nan, &f32s(&[1.0], &[])]), &bools(&[false], &[]));
    let (p, q) = (i32s(&[12], &[]), i32s(&[10], &[]));
    same(&ev(Op::BitAnd, &[&p, &q]), &i32s(&[8], &[]));
    same(&ev(Op::BitOr, &[&p, &q]), &i32s(&[14], &[]));
    same(&ev(Op::BitXor, &[&p, &q]), &i32s(&[6], &[]));
    let (t, f) = (bools(&[true, true, false], &[3]), bools(&[true, false, false], &[3]));
    same(&ev(Op::BitAnd, &[&t, &f]), &bools(&[true, false, false], &[3]));
    same(&ev(Op::BitOr, &[&t, &f]), &bools(&[true, true, false], &[3]));
    same(&ev(Op::BitXor, &[&t, &f]), &bools(&[false, true, false], &[3]));
}

#[test]
fn unary_ops() {
    same(&ev(Op::Neg, &[&f32s(&[1.5, 0.0], &[2])]), &f32s(&[-1.5, -0.0], &[2]));
    same(&ev(Op::Abs, &[&f64s(&[-0.0, -2.0], &[2])]), &f64s(&[0.0, 2.0], &[2]));
    same(&ev(Op::Exp, &[&f64s(&[0.0], &[])]), &f64s(&[1.0], &[]));
    same(&ev(Op::Log, &[&f64s(&[0.0, 1.0], &[2])]), &f64s(&[f64::NEG_INFINITY, 0.0], &[2]));
    assert!(matches!(ev(Op::Sqrt, &[&f32s(&[-1.0], &[])]).to_scalar(), Some(stagecheck_graph::Scalar::F32(x)) if x.is_nan()));
    same(&ev(Op::Sqrt, &[&f32s(&[4.0], &[])]), &f32s(&[2.0], &[]));
    same(&ev(Op::Sigmoid, &[&f64s(&[0.0], &[])]), &f64s(&[0.5], &[]));
    same(&ev(Op::Tanh, &[&f64s(&[0.0], &[])]), &f64s(&[0.0], &[]));
    let relu = ev(Op::Relu, &[&f32s(&[-1.0, -0.0, 2.0, f32::NAN], &[4])]).scalars();
    assert!(relu[0].bit_eq(stagecheck_graph::Scalar::F32(0.0)) && relu[1].bit_eq(stagecheck_graph::Scalar::F32(0.0)));
    assert!(relu[2].bit_eq(stagecheck_graph::Scalar::F32(2.0)));
    assert!(matches!(relu[3], stagecheck_graph::Scalar::F32(x) if x.is_nan()));
    same(&ev(Op::Relu, &[&i32s(&[-3, 4], &[2])]), &i32s(&[0, 4], &[2]));
    same(&ev(Op::LogicalNot, &[&bools(&[true, false], &[2])]), &bools(&[false, true], &[2]));
    same(&ev(Op::Invert, &[&i32s(&[0, -1, 5], &[3])]), &i32s(&[-1, 0, -6], &[3]));
    let x = i64s(&[7], &[]);
    let same_ref = ev(Op::Identity, &[&x]);
    same(&same_ref, &x);
}

#[test]
fn where_selects_with_broadcasting() {
    let got = ev(Op::Where, &[&bools(&[true, false, true], &[3]), &i32s(&[1, 2, 3], &[3]), &i32s(&[0], &[])]);
    same(&got, &i32s(&[1, 0, 3], &[3]));
    let got = ev(Op::Where, &[&bools(&[true, false], &[2, 1]), &i32s(&[1, 2], &[2]), &i32s(&[10, 20], &[2])]);
    same(&got, &i32s(&[1, 2, 10, 20], &[2, 2]));
    let msg = fails(Op::Where, &[&i32s(&[1], &[]), &i32s(&[1], &[]), &i32s(&[1], &[])], InvalidArgument);
    assert_eq!(msg, "Where: condition must be a bool tensor, got int32");
}
