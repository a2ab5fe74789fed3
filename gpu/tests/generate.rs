//! Fill, Range, Eye on the GPU against graph::eval, errors included.

mod common;
use common::{config, same};
use graph::{DType, Op};
use proptest::prelude::*;

proptest! {
    #![proptest_config(config(48))]

    #[test]
    fn generators(
        d in prop::sample::select(DType::ALL.to_vec()),
        shape in prop::collection::vec(0usize..5, 0..4),
        value in common::f32_value().prop_map(f64::from),
        (start, limit, delta) in (-50i32..50, -50i32..50, -7i32..7).prop_map(|(a, b, c)| (a as f64 * 0.75, b as f64, c as f64 * 0.3)),
        n in 0usize..9,
    ) {
        let Some(gpu) = common::gpu() else { return Ok(()) };
        same(gpu, &Op::Fill { shape, dtype: d, value }, &[]).map_err(TestCaseError::fail)?;
        same(gpu, &Op::Eye { n, dtype: d }, &[]).map_err(TestCaseError::fail)?;
        same(gpu, &Op::Range { start, limit, delta, dtype: d }, &[]).map_err(TestCaseError::fail)?;
        same(gpu, &Op::Range { start: start.round(), limit, delta: delta.round(), dtype: d }, &[]).map_err(TestCaseError::fail)?;
    }
}
