//! Reductions and ArgMax, GPU against graph::eval: random shapes (empty
//! ones too), axis lists (negative, duplicate, out of range), keepdims.

mod common;
use common::{config, same, shape, tensor, SMALL};

use graph::Op;
use proptest::prelude::*;

/// A tensor and axes for it: mostly valid (within its rank, negative ones
/// too), sometimes out of range or repeated.
fn input_and_axes() -> impl Strategy<Value = (graph::Tensor, Option<Vec<i64>>)> {
    (prop::sample::select(SMALL.to_vec()), shape()).prop_flat_map(|(d, s)| {
        let r = s.len() as i64;
        let valid = prop::sample::subsequence((0..r).collect::<Vec<_>>(), 0..=s.len()).prop_flat_map(move |axes| {
            prop::collection::vec(any::<bool>(), axes.len())
                .prop_map(move |neg| axes.iter().zip(&neg).map(|(&a, &n)| if n { a - r } else { a }).collect::<Vec<i64>>())
        });
        let axes = prop_oneof![2 => Just(None), 6 => valid.prop_map(Some), 1 => prop::collection::vec(-5i64..5, 1..3).prop_map(Some)];
        (tensor(d, s), axes)
    })
}

proptest! {
    #![proptest_config(config(48))]

    #[test]
    fn reductions(
        (x, axis) in input_and_axes(),
        keepdims in any::<bool>(),
    ) {
        let Some(gpu) = common::gpu() else { return Ok(()) };
        let arg = Op::ArgMax { axis: axis.as_ref().and_then(|a| a.first().copied()).unwrap_or(-1) };
        for op in [
            Op::ReduceSum { axis: axis.clone(), keepdims },
            Op::ReduceMax { axis: axis.clone(), keepdims },
            Op::ReduceMin { axis: axis.clone(), keepdims },
            Op::ReduceMean { axis: axis.clone(), keepdims },
            arg,
        ] {
            same(gpu, &op, std::slice::from_ref(&x)).map_err(TestCaseError::fail)?;
        }
    }
}
