//! Tensors of more than 65535 × 64 elements, past one dispatch dimension's
//! workgroups: the kernels index from a 2-D grid.

mod common;
use common::assert_same;
use graph::{DType, IndexItem, Op, Tensor};

const N: usize = 65535 * 64 + 1000;

#[test]
fn beyond_one_dispatch_dimension() {
    let Some(gpu) = common::gpu() else { return };
    let x = Tensor::from_f32((0..2 * N).map(|i| (i % 1013) as f32 * 0.25 - 100.0).collect(), &[2, N]).unwrap();
    let row = Tensor::from_f32((0..N).map(|i| (i % 7) as f32).collect(), &[N]).unwrap();
    let ints = Tensor::from_i32((0..2 * N).map(|i| (i as i32).wrapping_mul(2654435761u32 as i32)).collect(), &[2, N]).unwrap();
    assert_same(gpu, &Op::Add, &[x.clone(), row.clone()]);
    assert_same(gpu, &Op::Mod, &[x.clone(), Tensor::scalar_f32(3.5)]);
    assert_same(gpu, &Op::Lt, &[row.clone(), x.clone()]);
    assert_same(gpu, &Op::Cast { dtype: DType::Int32 }, std::slice::from_ref(&x));
    assert_same(gpu, &Op::FloorDiv, &[ints.clone(), Tensor::scalar_i32(-7)]);
    assert_same(gpu, &Op::Transpose { perm: None }, std::slice::from_ref(&x));
    assert_same(gpu, &Op::ReduceSum { axis: Some(vec![0]), keepdims: false }, std::slice::from_ref(&x));
    assert_same(gpu, &Op::ReduceMax { axis: Some(vec![-2]), keepdims: true }, std::slice::from_ref(&ints));
    assert_same(gpu, &Op::Concat { axis: 1 }, &[x.clone(), x.clone()]);
    assert_same(gpu, &Op::Index { items: vec![IndexItem::Ellipsis, IndexItem::Slice { start: None, stop: None, step: Some(-1) }] }, &[x]);
    assert_same(gpu, &Op::Fill { shape: vec![N], dtype: DType::Bool, value: 1.0 }, &[]);
    assert_same(gpu, &Op::Range { start: 0.0, limit: N as f64, delta: 1.0, dtype: DType::Int32 }, &[]);
    // 70000 batches of 1 × 1 matrices: 70000 workgroups of the matmul kernel.
    let batch = Tensor::from_i32((0..70000).collect(), &[70000, 1, 1]).unwrap();
    assert_same(gpu, &Op::MatMul, &[batch.clone(), batch]);
}

/// Folds longer than one invocation may loop on llvmpipe (32767 iterations,
/// then it silently stops): they run as chains of dispatches, same order.
#[test]
fn long_folds() {
    let Some(gpu) = common::gpu() else { return };
    let n = 100_003;
    let x = Tensor::from_f32((0..n).map(|i| ((i * 7919) % 1000) as f32 * 0.001 + 0.1).collect(), &[n]).unwrap();
    let ints = Tensor::from_i32((0..n as i32).collect(), &[1, n]).unwrap();
    for op in [
        Op::ReduceSum { axis: None, keepdims: false },
        Op::ReduceMean { axis: Some(vec![0]), keepdims: true },
        Op::ReduceMin { axis: None, keepdims: false },
        Op::ArgMax { axis: 0 },
    ] {
        assert_same(gpu, &op, std::slice::from_ref(&x));
    }
    assert_same(gpu, &Op::ReduceSum { axis: Some(vec![1]), keepdims: false }, std::slice::from_ref(&ints));
    let column = Tensor::from_f32((0..n).map(|i| (i % 5) as f32 - 2.0).collect(), &[n, 1]).unwrap();
    assert_same(gpu, &Op::MatMul, &[Tensor::from_f32((0..n).map(|i| (i % 3) as f32 * 0.1).collect(), &[1, n]).unwrap(), column]);
    assert_same(gpu, &Op::Range { start: 0.0, limit: n as f64 * 0.1, delta: 0.1, dtype: DType::Float32 }, &[]);
}
