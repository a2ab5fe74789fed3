//! `Cast` edge cases: truncation, saturation, NaN, wrapping, rounding, bool.

use super::*;
use stagecheck_graph::DType;

fn cast(t: &Tensor, dtype: DType) -> Tensor {
    ev(Op::Cast { dtype }, &[t])
}

#[test]
fn float_to_int_truncates_and_saturates_nan_is_zero() {
    let x = f32s(&[1.9, -1.9, f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 3e9, -0.5], &[7]);
    same(&cast(&x, DType::Int32), &i32s(&[1, -1, 0, i32::MAX, i32::MIN, i32::MAX, 0], &[7]));
    let y = f64s(&[1e19, -1e19, 2.5], &[3]);
    same(&cast(&y, DType::Int64), &i64s(&[i64::MAX, i64::MIN, 2], &[3]));
}

#[test]
fn int_to_int_wraps_and_to_float_rounds() {
    same(&cast(&i64s(&[(1 << 32) + 5, -1], &[2]), DType::Int32), &i32s(&[5, -1], &[2]));
    same(&cast(&i64s(&[(1 << 53) + 1], &[]), DType::Float64), &f64s(&[9007199254740992.0], &[]));
    same(&cast(&i32s(&[16777217], &[]), DType::Float32), &f32s(&[16777216.0], &[]));
    same(&cast(&f64s(&[1e300, 0.1], &[2]), DType::Float32), &f32s(&[f32::INFINITY, 0.1], &[2]));
}

#[test]
fn to_and_from_bool() {
    let x = f64s(&[0.0, -0.0, f64::NAN, 2.0], &[4]);
    same(&cast(&x, DType::Bool), &bools(&[false, false, true, true], &[4]));
    same(&cast(&i32s(&[0, -3], &[2]), DType::Bool), &bools(&[false, true], &[2]));
    same(&cast(&bools(&[true, false], &[2]), DType::Float32), &f32s(&[1.0, 0.0], &[2]));
    same(&cast(&bools(&[true, false], &[2]), DType::Int64), &i64s(&[1, 0], &[2]));
}

#[test]
fn cast_to_the_same_dtype_is_the_identity() {
    let x = f32s(&[f32::from_bits(0x7fc0_0001)], &[1]);
    same(&cast(&x, DType::Float32), &x);
}

/// A 0-d tensor takes its own shortcut (`cast_array`): every pair of dtypes
/// gives the element a [1]-shaped tensor gives.
#[test]
fn zero_d_casts_match_one_element_ones() {
    let dtypes = [DType::Bool, DType::Int32, DType::Int64, DType::Float32, DType::Float64];
    let one = |v: f64, d: DType, shape: &[usize]| match d {
        DType::Bool => bools(&[v != 0.0], shape),
        DType::Int32 => i32s(&[v as i32], shape),
        DType::Int64 => i64s(&[v as i64], shape),
        DType::Float32 => f32s(&[v as f32], shape),
        DType::Float64 => f64s(&[v], shape),
    };
    for v in [0.0, -0.0, 1.9, -2.5, 3e9, -1e19, f64::NAN, f64::INFINITY, 0.1] {
        for from in dtypes {
            for to in dtypes {
                let got = cast(&one(v, from, &[]), to);
                let want = cast(&one(v, from, &[1]), to);
                assert!(got.shape().is_empty() && got.scalars()[0].bit_eq(want.scalars()[0]), "{v} {from} -> {to}");
            }
        }
    }
}
