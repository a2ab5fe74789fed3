//! Shared by the GPU tests: the device (or a printed skip when there is no
//! Vulkan adapter at all), the GPU-vs-CPU comparison, and value strategies.
#![allow(dead_code)]

use graph::{DType, Op, Tensor};
use proptest::prelude::*;
use stagecheck_gpu::{check_op, shared, Gpu};

/// The shared GPU; `None` (after saying so) only when no adapter exists.
pub fn gpu() -> Option<&'static Gpu> {
    let gpu = shared();
    if gpu.is_none() {
        let why = Gpu::new().err().map(|e| e.to_string()).unwrap_or_default();
        eprintln!("SKIPPED: {why}");
    }
    gpu
}

/// `op` on the GPU against `graph::eval`: the same error (kind and
/// message), or results within the op's bound (`check_op`: its tolerance,
/// subnormals possibly flushed, a float32 matmul's dot product bound).
pub fn same(gpu: &Gpu, op: &Op, inputs: &[Tensor]) -> Result<(), String> {
    let refs: Vec<&Tensor> = inputs.iter().collect();
    let cpu = graph::eval(op, &refs);
    let up: Vec<_> = inputs.iter().map(|t| gpu.upload(t).expect("upload")).collect();
    let up_refs: Vec<_> = up.iter().collect();
    let out = gpu.eval(op, &up_refs).and_then(|t| gpu.download(&t));
    if std::env::var_os("GPU_TEST_STATS").is_some() {
        eprintln!(
            "STAT {} {:?} {}",
            op.name(),
            inputs.iter().map(|t| t.dtype()).collect::<Vec<_>>(),
            if cpu.is_ok() { "ok" } else { "err" }
        );
    }
    match (out, cpu) {
        (Ok(g), Ok(c)) => check_op(op, &refs, &g, &c).map(|_| ()).map_err(|e| format!("{op:?} on {inputs:?}: {e}")),
        (Err(g), Err(c)) if g == c => Ok(()),
        (g, c) => Err(format!("{op:?} on {inputs:?}: GPU {g:?}, CPU {c:?}")),
    }
}

/// Asserts `same`, for plain tests.
pub fn assert_same(gpu: &Gpu, op: &Op, inputs: &[Tensor]) {
    if let Err(e) = same(gpu, op, inputs) {
        panic!("{e}");
    }
}

pub fn f32_value() -> impl Strategy<Value = f32> {
    prop_oneof![
        3 => (-8i32..8).prop_map(|i| i as f32 * 0.5),
        3 => -100f32..100f32,
        1 => prop::sample::select(vec![0.0f32, -0.0, 1.0, -1.0, f32::NAN, f32::INFINITY, f32::NEG_INFINITY, f32::MAX, f32::MIN_POSITIVE, 1e-40, 16777217.0, 3e9, -3e9]),
        1 => any::<f32>(),
    ]
}

pub fn i32_value() -> impl Strategy<Value = i32> {
    prop_oneof![
        4 => -10i32..10,
        1 => prop::sample::select(vec![i32::MIN, i32::MAX, -1, 0, 1, 65536, -65537]),
        2 => any::<i32>(),
    ]
}

/// A tensor of `dtype` and `shape` with random elements.
pub fn tensor(dtype: DType, shape: Vec<usize>) -> BoxedStrategy<Tensor> {
    let n: usize = shape.iter().product();
    match dtype {
        DType::Bool => prop::collection::vec(any::<bool>(), n).prop_map(move |v| Tensor::from_bool(v, &shape).unwrap()).boxed(),
        DType::Int32 => prop::collection::vec(i32_value(), n).prop_map(move |v| Tensor::from_i32(v, &shape).unwrap()).boxed(),
        DType::Float32 => prop::collection::vec(f32_value(), n).prop_map(move |v| Tensor::from_f32(v, &shape).unwrap()).boxed(),
        DType::Int64 => prop::collection::vec(any::<i64>(), n).prop_map(move |v| Tensor::from_i64(v, &shape).unwrap()).boxed(),
        DType::Float64 => prop::collection::vec(any::<f64>(), n).prop_map(move |v| Tensor::from_f64(v, &shape).unwrap()).boxed(),
    }
}

/// A shape of rank 0..=4 with dims 0..=4 (empty tensors included).
pub fn shape() -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(prop_oneof![1 => Just(0usize), 8 => 1usize..5], 0..=4)
}

/// A shape that broadcasts with `s`: a suffix of it, some dims set to 1.
pub fn broadcast_partner(s: Vec<usize>) -> impl Strategy<Value = Vec<usize>> {
    let r = s.len();
    (0..=r, prop::collection::vec(any::<bool>(), r))
        .prop_map(move |(drop, ones)| s[drop..].iter().zip(&ones[drop..]).map(|(&d, &one)| if one { 1 } else { d }).collect())
}

/// Two tensors of `dtype` whose shapes broadcast (either way round), and
/// sometimes do not (the error is compared then).
pub fn pair(dtype: DType) -> impl Strategy<Value = (Tensor, Tensor)> {
    (shape(), any::<bool>(), 0..10u8)
        .prop_flat_map(|(s, swap, wrong)| {
            let other = if wrong == 0 { shape().boxed() } else { broadcast_partner(s.clone()).boxed() };
            (Just(s), other, Just(swap))
        })
        .prop_flat_map(move |(a, b, swap)| {
            let (a, b) = if swap { (b, a) } else { (a, b) };
            (tensor(dtype, a), tensor(dtype, b))
        })
}

pub const SMALL: [DType; 3] = [DType::Bool, DType::Int32, DType::Float32];

pub fn config(cases: u32) -> ProptestConfig {
    ProptestConfig { cases, failure_persistence: None, ..ProptestConfig::default() }
}
