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

/// Every output element is the chain of fused multiply-adds
/// `acc = a_p·b_p + acc` in increasing `p` from 0, whatever the shape (the
/// kernel computes tiles of rows and columns side by side, with tails, and
/// splits large products over threads): checked bit for bit against that
/// loop written out, on values whose sums depend on the order and on the
/// rounding (large and small magnitudes, -0.0, infinities), for the shapes
/// of every tile and tail path and of a product split over threads.
#[test]
fn every_shape_sums_each_element_in_order() {
    let vals = [1e8f32, 1.0, -1e8, -0.0, 3.5e-3, -7.25, 1e-30, 0.1, f32::INFINITY, 2.0];
    let mut seed = 7u32;
    let mut next = |len: usize| -> Vec<f32> {
        (0..len)
            .map(|_| {
                seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12345);
                vals[(seed >> 16) as usize % vals.len()] * if seed & 1 == 0 { 1.0 } else { -1.5 }
            })
            .collect()
    };
    let shapes = [
        (1, 1, 1),
        (3, 5, 1),
        (64, 8, 1),
        (8, 64, 1),
        (17, 3, 2),
        (8, 16, 16),
        (5, 7, 24),
        (2, 9, 33),
        (21, 4, 9),
        (0, 3, 4),
        (3, 0, 4),
        (13, 6, 48),
        (7, 3, 71),
        (70, 160, 200),
    ];
    for (m, k, n) in shapes {
        let (a, b) = (next(2 * m * k), next(2 * k * n));
        let mut want = vec![0f32; 2 * m * n];
        for batch in 0..2 {
            for i in 0..m {
                for j in 0..n {
                    let mut acc = 0f32;
                    for p in 0..k {
                        acc = a[batch * m * k + i * k + p].mul_add(b[batch * k * n + p * n + j], acc);
                    }
                    want[batch * m * n + i * n + j] = acc;
                }
            }
        }
        let got = ev(Op::MatMul, &[&f32s(&a, &[2, m, k]), &f32s(&b, &[2, k, n])]);
        same(&got, &f32s(&want, &[2, m, n]));
    }
}
