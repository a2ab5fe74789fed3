//! The kernels' shortcuts for contiguous tensors (a row broadcast along
//! leading axes, a matrix transpose, a gathered row, reductions over
//! trailing axes, two 0-d operands) against the general rule, written out
//! element by element.

use super::*;

#[test]
fn a_row_broadcasts_along_leading_axes_in_operand_order() {
    let a: Vec<f32> = (0..24).map(|i| i as f32 * 1.5 - 7.0).collect();
    let row = [0.25f32, -3.0, 8.0, 1e-3];
    for row_shape in [&[4usize][..], &[1, 4], &[1, 1, 4]] {
        let (full, r) = (f32s(&a, &[2, 3, 4]), f32s(&row, row_shape));
        let left: Vec<f32> = a.iter().enumerate().map(|(i, &x)| x - row[i % 4]).collect();
        let right: Vec<f32> = a.iter().enumerate().map(|(i, &x)| row[i % 4] - x).collect();
        same(&ev(Op::Sub, &[&full, &r]), &f32s(&left, &[2, 3, 4]));
        same(&ev(Op::Sub, &[&r, &full]), &f32s(&right, &[2, 3, 4]));
    }
    // A [3, 1] column is not a trailing row: the general broadcast.
    let col = f32s(&[1.0, 2.0, 3.0], &[3, 1]);
    let want: Vec<f32> = a[..12].iter().enumerate().map(|(i, &x)| x * (1 + i / 4) as f32).collect();
    same(&ev(Op::Mul, &[&f32s(&a[..12], &[3, 4]), &col]), &f32s(&want, &[3, 4]));
}

#[test]
fn matrix_transpose_moves_element_i_j_to_j_i() {
    let a: Vec<i32> = (0..15).collect();
    let want: Vec<i32> = (0..5).flat_map(|j| (0..3).map(move |i| i * 5 + j)).collect();
    same(&ev(Op::Transpose { perm: None }, &[&i32s(&a, &[3, 5])]), &i32s(&want, &[5, 3]));
    same(&ev(Op::Transpose { perm: Some(vec![1, 0]) }, &[&i32s(&[], &[0, 2])]), &i32s(&[], &[2, 0]));
}

#[test]
fn gather_copies_one_row_and_keeps_index_errors() {
    let a = i64s(&(0..12).collect::<Vec<_>>(), &[3, 2, 2]);
    same(&ev(Op::Gather, &[&a, &Tensor::scalar_i32(1)]), &i64s(&[4, 5, 6, 7], &[2, 2]));
    same(&ev(Op::Gather, &[&a, &Tensor::scalar_i64(-3)]), &i64s(&[0, 1, 2, 3], &[2, 2]));
    let msg = fails(Op::Gather, &[&a, &Tensor::scalar_i32(3)], ErrorKind::InvalidArgument);
    assert_eq!(msg, "index 3 is out of bounds for axis 0 with size 3");
    let msg = fails(Op::Gather, &[&i32s(&[], &[0, 2]), &Tensor::scalar_i32(0)], ErrorKind::InvalidArgument);
    assert_eq!(msg, "index 0 is out of bounds for axis 0 with size 0");
}

#[test]
fn trailing_reductions_fold_each_row_in_order() {
    let a: Vec<f32> = [1e8f32, 1.0, -1e8, 1.0, 0.5, -0.0].repeat(2);
    let t = f32s(&a, &[2, 6]);
    let sums: Vec<f32> = a.chunks(6).map(|r| r.iter().fold(0.0, |s, &x| s + x)).collect();
    same(&ev(Op::ReduceSum { axis: Some(vec![1]), keepdims: false }, &[&t]), &f32s(&sums, &[2]));
    let all = a.iter().fold(0.0f32, |s, &x| s + x);
    same(&ev(Op::ReduceSum { axis: None, keepdims: true }, &[&t]), &f32s(&[all], &[1, 1]));
    let firsts: Vec<f32> = (0..6).map(|j| 0.0 + a[j] + a[6 + j]).collect();
    same(&ev(Op::ReduceSum { axis: Some(vec![0]), keepdims: false }, &[&t]), &f32s(&firsts, &[6]));
}

#[test]
fn two_scalars_compute_what_one_element_arrays_do() {
    // 0-d operands take `kernels/scalar.rs`; [1]-shaped ones the broadcasting
    // kernels: the same element functions, so the same bits.
    let ops = [Op::Add, Op::Sub, Op::Mul, Op::Maximum, Op::Minimum, Op::Eq, Op::Ne, Op::Lt, Op::Le, Op::Gt, Op::Ge];
    let floats = [0.0f64, -0.0, 1.5, -2.25, f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 1e300];
    let ints = [0i64, 1, -1, i64::MAX, i64::MIN, 7];
    let scalar_of = |t: &Tensor| t.to_scalar().unwrap();
    for op in &ops {
        let pairs: Vec<(Tensor, Tensor, Tensor, Tensor)> = floats
            .iter()
            .flat_map(|&x| floats.iter().map(move |&y| (x, y)))
            .flat_map(|(x, y)| {
                [
                    (f32s(&[x as f32], &[]), f32s(&[y as f32], &[]), f32s(&[x as f32], &[1]), f32s(&[y as f32], &[1])),
                    (f64s(&[x], &[]), f64s(&[y], &[]), f64s(&[x], &[1]), f64s(&[y], &[1])),
                ]
            })
            .chain(ints.iter().flat_map(|&x| ints.iter().map(move |&y| (x, y))).flat_map(|(x, y)| {
                [
                    (i32s(&[x as i32], &[]), i32s(&[y as i32], &[]), i32s(&[x as i32], &[1]), i32s(&[y as i32], &[1])),
                    (i64s(&[x], &[]), i64s(&[y], &[]), i64s(&[x], &[1]), i64s(&[y], &[1])),
                ]
            }))
            .collect();
        for (a, b, a1, b1) in &pairs {
            let got = ev(op.clone(), &[a, b]);
            let want = ev(op.clone(), &[a1, b1]);
            assert!(got.shape().is_empty(), "{op:?}");
            assert!(scalar_of(&got).bit_eq(want.scalars()[0]), "{op:?} {a:?} {b:?}: {got:?} vs {want:?}");
        }
    }
}
