//! Reductions with axes, negative axes, keepdims; sequential order; mean of
//! ints; empty max/min; ArgMax ties.

use super::*;
use stagecheck_graph::ErrorKind::{InvalidArgument, ZeroDivision};

fn sum(axis: Option<Vec<i64>>, keepdims: bool) -> Op {
    Op::ReduceSum { axis, keepdims }
}

#[test]
fn sum_over_axes() {
    let a = i32s(&[1, 2, 3, 4, 5, 6], &[2, 3]);
    same(&ev(sum(None, false), &[&a]), &i32s(&[21], &[]));
    same(&ev(sum(None, true), &[&a]), &i32s(&[21], &[1, 1]));
    same(&ev(sum(Some(vec![0]), false), &[&a]), &i32s(&[5, 7, 9], &[3]));
    same(&ev(sum(Some(vec![1]), false), &[&a]), &i32s(&[6, 15], &[2]));
    same(&ev(sum(Some(vec![-1]), true), &[&a]), &i32s(&[6, 15], &[2, 1]));
    same(&ev(sum(Some(vec![-2]), true), &[&a]), &i32s(&[5, 7, 9], &[1, 3]));
    same(&ev(sum(Some(vec![1, 0]), false), &[&a]), &i32s(&[21], &[]));
    same(&ev(sum(Some(vec![]), false), &[&a]), &a);
    let cube = i32s(&(0..24).collect::<Vec<_>>(), &[2, 3, 4]);
    // Axis 1 of arange(24).reshape(2,3,4): [[12,15,18,21],[48,51,54,57]].
    same(&ev(sum(Some(vec![1]), false), &[&cube]), &i32s(&[12, 15, 18, 21, 48, 51, 54, 57], &[2, 4]));
    // Axes (0, 2): [0+1+2+3+12+13+14+15, ...] = [60, 92, 124].
    same(&ev(sum(Some(vec![0, 2]), false), &[&cube]), &i32s(&[60, 92, 124], &[3]));
}

#[test]
fn bad_axes_are_errors() {
    let a = i32s(&[1, 2, 3, 4, 5, 6], &[2, 3]);
    let msg = fails(sum(Some(vec![2]), false), &[&a], InvalidArgument);
    assert_eq!(msg, "Invalid reduction dimension 2 for input with 2 dimensions");
    fails(sum(Some(vec![-3]), false), &[&a], InvalidArgument);
    fails(sum(Some(vec![0, -2]), false), &[&a], InvalidArgument);
    fails(sum(Some(vec![0]), false), &[&i32s(&[1], &[])], InvalidArgument);
}

#[test]
fn sums_are_sequential_in_row_major_order_and_wrap() {
    // Sequentially in f32: ((1e8 + 1) - 1e8) + 1 = 1 (1e8 + 1 rounds to 1e8).
    let x = f32s(&[1e8, 1.0, -1e8, 1.0], &[4]);
    same(&ev(sum(None, false), &[&x]), &f32s(&[1.0], &[]));
    let col = f32s(&[1e8, 1.0, -1e8, 1.0], &[4, 1]);
    same(&ev(sum(Some(vec![0]), false), &[&col]), &f32s(&[1.0], &[1]));
    same(&ev(sum(None, false), &[&i32s(&[i32::MAX, 1], &[2])]), &i32s(&[i32::MIN], &[]));
    same(&ev(sum(None, false), &[&f64s(&[], &[0])]), &f64s(&[0.0], &[]));
    same(&ev(sum(Some(vec![1]), false), &[&i64s(&[], &[2, 0])]), &i64s(&[0, 0], &[2]));
}

#[test]
fn mean_truncates_for_ints() {
    let mean = |axis| Op::ReduceMean { axis, keepdims: false };
    same(&ev(mean(Some(vec![1])), &[&i32s(&[1, 2, 3, 5], &[2, 2])]), &i32s(&[1, 4], &[2]));
    same(&ev(mean(None), &[&i64s(&[-1, -2], &[2])]), &i64s(&[-1], &[]));
    same(&ev(mean(None), &[&f64s(&[1.0, 2.0], &[2])]), &f64s(&[1.5], &[]));
    let empty = ev(mean(None), &[&f32s(&[], &[0])]);
    assert!(matches!(empty.to_scalar(), Some(stagecheck_graph::Scalar::F32(x)) if x.is_nan()));
    fails(mean(None), &[&i32s(&[], &[0])], ZeroDivision);
}

#[test]
fn max_and_min() {
    let a = i32s(&[1, 5, 7, 2], &[2, 2]);
    same(&ev(Op::ReduceMax { axis: Some(vec![0]), keepdims: false }, &[&a]), &i32s(&[7, 5], &[2]));
    same(&ev(Op::ReduceMin { axis: Some(vec![1]), keepdims: true }, &[&a]), &i32s(&[1, 2], &[2, 1]));
    same(&ev(Op::ReduceMax { axis: None, keepdims: false }, &[&a]), &i32s(&[7], &[]));
    let nan = ev(Op::ReduceMax { axis: None, keepdims: false }, &[&f64s(&[1.0, f64::NAN, 3.0], &[3])]);
    assert!(matches!(nan.to_scalar(), Some(stagecheck_graph::Scalar::F64(x)) if x.is_nan()));
    let msg = fails(Op::ReduceMax { axis: None, keepdims: false }, &[&f32s(&[], &[0])], InvalidArgument);
    assert!(msg.contains("empty"), "{msg}");
    fails(Op::ReduceMin { axis: Some(vec![1]), keepdims: false }, &[&f32s(&[], &[3, 0])], InvalidArgument);
    // Reducing a non-empty axis of an empty tensor gives an empty result.
    same(&ev(Op::ReduceMax { axis: Some(vec![1]), keepdims: false }, &[&f32s(&[], &[0, 3])]), &f32s(&[], &[0]));
}

#[test]
fn argmax_takes_the_first_maximum() {
    same(&ev(Op::ArgMax { axis: 0 }, &[&i32s(&[1, 3, 3, 2], &[4])]), &i64s(&[1], &[]));
    let m = i32s(&[1, 9, 9, 1], &[2, 2]);
    same(&ev(Op::ArgMax { axis: 0 }, &[&m]), &i64s(&[1, 0], &[2]));
    same(&ev(Op::ArgMax { axis: -1 }, &[&m]), &i64s(&[1, 0], &[2]));
    let nan = f64s(&[1.0, f64::NAN, 5.0, f64::NAN], &[4]);
    same(&ev(Op::ArgMax { axis: 0 }, &[&nan]), &i64s(&[1], &[]));
    same(&ev(Op::ArgMax { axis: 0 }, &[&bools(&[false, true, true], &[3])]), &i64s(&[1], &[]));
    same(&ev(Op::ArgMax { axis: 0 }, &[&f32s(&[-0.0, 0.0], &[2])]), &i64s(&[0], &[]));
    fails(Op::ArgMax { axis: 0 }, &[&f32s(&[], &[0])], InvalidArgument);
    fails(Op::ArgMax { axis: 0 }, &[&f32s(&[1.0], &[])], InvalidArgument);
    fails(Op::ArgMax { axis: 2 }, &[&m], InvalidArgument);
}

/// Max, min and argmax pick the element the sequential fold picks (the
/// first NaN, with its bits; else the first element equal to the extreme,
/// so the first zero's sign when it is zero), checked against that fold
/// written out, on rows of every length up to 40 drawn from NaNs of two
/// payloads, signed zeros, infinities and repeats.
#[test]
fn extremes_pick_the_element_the_sequential_fold_picks() {
    let nan2 = f32::from_bits(0x7fc0_1234);
    let pool = [0.0f32, -0.0, 1.5, -1.5, 3.0, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, nan2, 3.0, 0.0, -0.0];
    let mut seed = 11u32;
    for len in 1..=40usize {
        for round in 0..30 {
            let row: Vec<f32> = (0..len)
                .map(|_| {
                    seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12345);
                    // Most rows without NaN, so the ordered case is covered too.
                    let k = (seed >> 16) as usize % pool.len();
                    if round % 3 != 0 && pool[k].is_nan() {
                        1.0
                    } else {
                        pool[k]
                    }
                })
                .collect();
            let fold = |is_max: bool| {
                let mut best = (0usize, row[0]);
                for (i, &x) in row.iter().enumerate().skip(1) {
                    let m = best.1;
                    let keep = m.is_nan() || (!x.is_nan() && if is_max { m >= x } else { m <= x });
                    if !keep {
                        best = (i, x);
                    }
                }
                best
            };
            let t = f32s(&row, &[len]);
            same(&ev(Op::ReduceMax { axis: None, keepdims: false }, &[&t]), &f32s(&[fold(true).1], &[]));
            same(&ev(Op::ReduceMin { axis: None, keepdims: false }, &[&t]), &f32s(&[fold(false).1], &[]));
            same(&ev(Op::ArgMax { axis: 0 }, &[&t]), &i64s(&[fold(true).0 as i64], &[]));
        }
    }
}
