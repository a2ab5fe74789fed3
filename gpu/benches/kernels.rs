//! GPU (this crate, through wgpu) against CPU (graph::eval) on a long
//! elementwise chain over a large tensor and on float32 matmul. The GPU
//! figures include the final download (the queue is waited for) and
//! exclude the inputs' upload; each figure is the best of a few runs. The
//! results are checked first, op by op, within each op's bound
//! (`check_op`: exact ops bit for bit up to flushed subnormals, matmul
//! within its dot product bound); beyond it, the bench panics.
//! `cargo bench -p stagecheck-gpu --bench kernels`. On lavapipe the "GPU" is
//! the CPU too: the figures are for the record only.

use graph::{Op, Tensor};
use stagecheck_gpu::{check_op, shared, Gpu, GpuTensor};
use std::time::Duration;

mod common;
use common::best;

/// 24 ops: multiply-add, clamp, compare-select, rounding; every node reads the one before.
fn chain() -> Vec<(Op, Option<f32>)> {
    let mut ops = Vec::new();
    for _ in 0..4 {
        ops.extend([
            (Op::Mul, Some(1.0001)),
            (Op::Add, Some(0.5)),
            (Op::Maximum, Some(-3.0)),
            (Op::Minimum, Some(1e6)),
            (Op::Sub, Some(0.25)),
            (Op::Neg, None),
        ]);
    }
    ops
}

fn cpu_chain(x: &Tensor) -> Tensor {
    chain().into_iter().fold(x.clone(), |y, (op, c)| match c {
        Some(c) => graph::eval(&op, &[&y, &Tensor::scalar_f32(c)]).unwrap(),
        None => graph::eval(&op, &[&y]).unwrap(),
    })
}

fn gpu_chain(gpu: &Gpu, x: &GpuTensor) -> Tensor {
    let consts: Vec<_> = chain().iter().map(|(_, c)| c.map(|c| gpu.upload(&Tensor::scalar_f32(c)).unwrap())).collect();
    let y = chain().iter().zip(&consts).fold(x.clone(), |y, ((op, _), c)| match c {
        Some(c) => gpu.eval(op, &[&y, c]).unwrap(),
        None => gpu.eval(op, &[&y]).unwrap(),
    });
    gpu.download(&y).unwrap()
}

/// Runs the chain on the GPU once, checking every op against the CPU
/// kernel on the very inputs it read (the shadow check's way).
fn check_chain(gpu: &Gpu, x: &Tensor) {
    let mut y = x.clone();
    for (i, (op, c)) in chain().into_iter().enumerate() {
        let inputs: Vec<Tensor> = [Some(y.clone()), c.map(Tensor::scalar_f32)].into_iter().flatten().collect();
        let refs: Vec<&Tensor> = inputs.iter().collect();
        let up: Vec<GpuTensor> = inputs.iter().map(|t| gpu.upload(t).unwrap()).collect();
        let up_refs: Vec<&GpuTensor> = up.iter().collect();
        let got = gpu.download(&gpu.eval(&op, &up_refs).unwrap()).unwrap();
        let want = graph::eval(&op, &refs).unwrap();
        check_op(&op, &refs, &got, &want).map(|_| ()).unwrap_or_else(|e| panic!("chain op {i} ({}): beyond its bound: {e}", op.name()));
        y = got;
    }
}

fn main() {
    let Some(gpu) = shared() else {
        eprintln!("SKIPPED: {}", Gpu::new().err().map(|e| e.to_string()).unwrap_or_default());
        return;
    };
    println!("adapter: {}", gpu.adapter_info());
    let n = 1 << 22;
    let x = Tensor::from_f32((0..n).map(|i| (i % 1000) as f32 * 0.01 - 5.0).collect(), &[n]).unwrap();
    let gx = gpu.upload(&x).unwrap();
    check_chain(gpu, &x);
    let (c, g) = (best(3, || drop(cpu_chain(&x))), best(3, || drop(gpu_chain(gpu, &gx))));
    println!(
        "elementwise chain, {} ops over {n} float32: CPU {:.1} ms, GPU {:.1} ms ({:.2}x)",
        chain().len(),
        c.as_secs_f64() * 1e3,
        g.as_secs_f64() * 1e3,
        c.as_secs_f64() / g.as_secs_f64()
    );
    for size in [512usize, 1024] {
        let a = Tensor::from_f32((0..size * size).map(|i| (i % 17) as f32 * 0.1 - 0.8).collect(), &[size, size]).unwrap();
        let b = Tensor::from_f32((0..size * size).map(|i| (i % 13) as f32 * 0.2 - 1.2).collect(), &[size, size]).unwrap();
        let (ga, gb) = (gpu.upload(&a).unwrap(), gpu.upload(&b).unwrap());
        let gpu_mm = || gpu.download(&gpu.eval(&Op::MatMul, &[&ga, &gb]).unwrap()).unwrap();
        check_op(&Op::MatMul, &[&a, &b], &gpu_mm(), &graph::eval(&Op::MatMul, &[&a, &b]).unwrap())
            .unwrap_or_else(|e| panic!("matmul {size}x{size}: beyond its dot product bound: {e}"));
        let c = best(2, || drop(graph::eval(&Op::MatMul, &[&a, &b]).unwrap()));
        let g = best(2, || drop(gpu_mm()));
        let gflops = |d: Duration| 2.0 * (size as f64).powi(3) / d.as_secs_f64() / 1e9;
        println!(
            "matmul {size}x{size} float32: CPU {:.1} ms ({:.2} GFLOP/s), GPU {:.1} ms ({:.2} GFLOP/s) ({:.2}x)",
            c.as_secs_f64() * 1e3,
            gflops(c),
            g.as_secs_f64() * 1e3,
            gflops(g),
            c.as_secs_f64() / g.as_secs_f64()
        );
    }
}
