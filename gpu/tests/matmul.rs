//! MatMul, GPU against graph::eval: random m, k, n (0 included, tile
//! edges), batches, int32 wrapping bit for bit and float32 within the dot
//! product bound (a driver may fuse multiply-adds), and the shape errors.

mod common;
use common::{assert_same, config, same, tensor};
use graph::{DType, Op, Tensor};
use proptest::prelude::*;

proptest! {
    #![proptest_config(config(32))]

    #[test]
    fn batched(
        (a, b) in (prop::sample::select(vec![DType::Int32, DType::Float32]), prop::collection::vec(0usize..3, 0..3), 0usize..40, 0usize..40, 0usize..40)
            .prop_flat_map(|(d, batch, m, k, n)| {
                let sa = [batch.clone(), vec![m, k]].concat();
                let sb = [batch, vec![k, n]].concat();
                (tensor(d, sa), tensor(d, sb))
            }),
    ) {
        let Some(gpu) = common::gpu() else { return Ok(()) };
        same(gpu, &Op::MatMul, &[a, b]).map_err(TestCaseError::fail)?;
    }
}

#[test]
fn shape_errors() {
    let Some(gpu) = common::gpu() else { return };
    let t = |s: &[usize]| Tensor::from_f32(vec![1.0; s.iter().product()], s).unwrap();
    for (a, b) in [(vec![2, 3], vec![2, 3]), (vec![3], vec![3, 1]), (vec![2, 2, 2], vec![2, 2]), (vec![2, 2, 2], vec![3, 2, 2])] {
        assert_same(gpu, &Op::MatMul, &[t(&a), t(&b)]);
    }
    assert_same(gpu, &Op::MatMul, &[t(&[2, 2]), Tensor::from_i32(vec![1; 4], &[2, 2]).unwrap()]);
}
