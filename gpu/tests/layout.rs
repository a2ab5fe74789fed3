//! Layout ops on every dtype (int64/float64 included: they move words),
//! GPU against graph::eval: reshape, transpose, basic indexing, gather,
//! concat, stack, identity; their errors too.

mod common;
use common::{assert_same, config, same, shape, tensor};
use graph::{DType, IndexItem, Op, Tensor};
use proptest::prelude::*;

fn any_tensor() -> impl Strategy<Value = Tensor> {
    prop::sample::select(DType::ALL.to_vec()).prop_flat_map(|d| shape().prop_flat_map(move |s| tensor(d, s)))
}

fn item() -> impl Strategy<Value = IndexItem> {
    let bound = || prop::option::of(-6i64..6);
    prop_oneof![
        3 => (-5i64..5).prop_map(IndexItem::At),
        4 => (bound(), bound(), prop::option::of(prop_oneof![-3i64..0, 1i64..4, Just(0)])).prop_map(|(start, stop, step)| IndexItem::Slice { start, stop, step }),
        1 => Just(IndexItem::NewAxis),
        1 => Just(IndexItem::Ellipsis),
    ]
}

proptest! {
    #![proptest_config(config(48))]

    #[test]
    fn index(x in any_tensor(), items in prop::collection::vec(item(), 0..5)) {
        let Some(gpu) = common::gpu() else { return Ok(()) };
        same(gpu, &Op::Index { items }, &[x]).map_err(TestCaseError::fail)?;
    }

    #[test]
    fn transpose_reshape(x in any_tensor(), seed in any::<u64>(), reverse in any::<bool>(), target in prop::collection::vec(-1i64..7, 0..4)) {
        let Some(gpu) = common::gpu() else { return Ok(()) };
        let rank = x.shape().len();
        let mut perm: Vec<usize> = (0..rank).collect();
        for i in (1..rank).rev() {
            perm.swap(i, (seed as usize >> (i * 3)) % (i + 1));
        }
        let perm = if reverse { None } else { Some(perm) };
        same(gpu, &Op::Transpose { perm }, std::slice::from_ref(&x)).map_err(TestCaseError::fail)?;
        same(gpu, &Op::Reshape { shape: target }, std::slice::from_ref(&x)).map_err(TestCaseError::fail)?;
        same(gpu, &Op::Reshape { shape: vec![-1] }, std::slice::from_ref(&x)).map_err(TestCaseError::fail)?;
        same(gpu, &Op::Identity, &[x]).map_err(TestCaseError::fail)?;
    }

    #[test]
    fn gather(x in any_tensor(), at in -6i64..6, wide in any::<bool>()) {
        let Some(gpu) = common::gpu() else { return Ok(()) };
        let index = if wide { Tensor::scalar_i64(at) } else { Tensor::scalar_i32(at as i32) };
        same(gpu, &Op::Gather, &[x, index]).map_err(TestCaseError::fail)?;
    }

    #[test]
    fn concat_stack(
        (parts, axis) in (prop::sample::select(DType::ALL.to_vec()), shape(), 1usize..4, -4i64..4)
            .prop_flat_map(|(d, s, k, axis)| {
                // Same shape but for `axis` (sometimes a mismatch, to compare errors).
                let parts: Vec<_> = (0..k).map(|j| {
                    let mut s = s.clone();
                    if !s.is_empty() && j > 0 {
                        let ax = axis.rem_euclid(s.len() as i64) as usize;
                        s[ax] = (s[ax] + j) % 4;
                    }
                    tensor(d, s)
                }).collect();
                (parts, Just(axis))
            }),
    ) {
        let Some(gpu) = common::gpu() else { return Ok(()) };
        same(gpu, &Op::Concat { axis }, &parts).map_err(TestCaseError::fail)?;
        same(gpu, &Op::Stack { axis }, &parts).map_err(TestCaseError::fail)?;
        same(gpu, &Op::Stack { axis }, &vec![parts[0].clone(); parts.len()]).map_err(TestCaseError::fail)?;
    }
}

#[test]
fn gather_errors_and_concat_of_scalars() {
    let Some(gpu) = common::gpu() else { return };
    let x = Tensor::from_f32(vec![1.0, 2.0, 3.0], &[3]).unwrap();
    for at in [3, -4, 2, -1] {
        assert_same(gpu, &Op::Gather, &[x.clone(), Tensor::scalar_i32(at)]);
    }
    assert_same(gpu, &Op::Gather, &[Tensor::scalar_f32(1.0), Tensor::scalar_i32(0)]);
    assert_same(gpu, &Op::Concat { axis: 0 }, &[Tensor::scalar_f32(1.0), Tensor::scalar_f32(2.0)]);
}
