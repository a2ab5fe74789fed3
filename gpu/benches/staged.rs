//! Staged graphs on the GPU device against the CPU executor: the
//! same `graph::Library` run by `graph::Executor` on `Cpu` and on
//! `GpuDevice` (values kept on the device across nodes and loop iterations;
//! the loop's predicate read back each iteration). Workloads: a while loop of
//! 20 iterations, each a 6-op elementwise chain over 1M float32; a while loop
//! of 8 float32 512x512 matmuls. Results are checked first, each GPU op
//! against the CPU kernel on the inputs it read, within the op's bound (the
//! device's shadow check: its first executions per signature), and the
//! final values bit for bit where every op was exact (no subnormal arises
//! here for a GPU to flush); beyond, the bench
//! panics. The timed GPU runs skip the shadow check. Each figure is the best of three. On lavapipe the "GPU" is the CPU: for the
//! record only. `cargo bench -p stagecheck-gpu --bench staged`.

use graph::{DType, Executor, FnId, Function, Library, Node, Op, Tensor, ValueId};
use stagecheck_gpu::{shared, Gpu, GpuDevice};

fn op(op: Op, inputs: &[u32]) -> Node {
    Node::Op { op, inputs: inputs.iter().map(|&i| ValueId(i)).collect() }
}

/// `main(x, w)`: `i = 0; while i < steps: x = body(x, w); i += 1; return x`.
/// `body` gets (i, x, w) as values 0..3 and its nodes from `body_nodes`, the
/// new x being the last node's output.
fn looped(x: (DType, Vec<usize>), w: (DType, Vec<usize>), steps: i32, body_nodes: Vec<Node>) -> Library {
    let i = (DType::Int32, vec![]);
    let mut lib = Library::new();
    lib.add(Function {
        name: "main".into(),
        params: vec![x.clone(), w.clone()],
        results: vec![x.clone()],
        nodes: vec![
            Node::Const(Tensor::scalar_i32(0)),
            Node::While { cond_fn: FnId(1), body_fn: FnId(2), inputs: vec![ValueId(2), ValueId(0), ValueId(1)] },
        ],
        outputs: vec![ValueId(4)],
    });
    lib.add(Function {
        name: "cond".into(),
        params: vec![i.clone(), x.clone(), w.clone()],
        results: vec![(DType::Bool, vec![])],
        nodes: vec![Node::Const(Tensor::scalar_i32(steps)), op(Op::Lt, &[0, 3])],
        outputs: vec![ValueId(4)],
    });
    let n = body_nodes.len() as u32;
    let mut nodes = body_nodes;
    nodes.push(Node::Const(Tensor::scalar_i32(1)));
    nodes.push(op(Op::Add, &[0, 3 + n]));
    lib.add(Function {
        name: "body".into(),
        params: vec![i.clone(), x.clone(), w.clone()],
        results: vec![i, x, w],
        nodes,
        outputs: vec![ValueId(4 + n), ValueId(2 + n), ValueId(2)],
    });
    lib
}

mod common;
use common::best;

fn compare(gpu: &Gpu, what: &str, lib: &Library, args: &[Tensor]) {
    let cpu_run = || Executor::new(lib).unwrap().run(FnId(0), args).unwrap();
    // Timed without the shadow check (the checked run below has it): the
    // figure is the GPU's, not the CPU kernels' and downloads' it adds.
    let gpu_run = || Executor::new(lib).unwrap().on(GpuDevice::new(gpu).shadowed(false)).run(FnId(0), args).unwrap();
    let checked = Executor::new(lib).unwrap().on(GpuDevice::new(gpu));
    let got = checked.run(FnId(0), args).unwrap();
    let beyond = checked.device().mismatches();
    assert!(
        beyond.is_empty(),
        "{what}: GPU ops beyond their bounds:\n{}",
        beyond.iter().map(|m| m.to_string()).collect::<Vec<_>>().join("\n")
    );
    if checked.device().tolerance().is_exact() {
        assert!(cpu_run()[0].bit_eq(&got[0]), "{what}: every op was exact, the GPU must agree bit for bit");
    }
    let (c, g) = (best(3, || drop(cpu_run())), best(3, || drop(gpu_run())));
    println!(
        "{what}: CPU {:.1} ms, GPU {:.1} ms ({:.2}x)",
        c.as_secs_f64() * 1e3,
        g.as_secs_f64() * 1e3,
        c.as_secs_f64() / g.as_secs_f64()
    );
}

fn main() {
    let Some(gpu) = shared() else {
        eprintln!("SKIPPED: {}", Gpu::new().err().map(|e| e.to_string()).unwrap_or_default());
        return;
    };
    println!("adapter: {}", gpu.adapter_info());
    let scalar = |v: f32| Node::Const(Tensor::scalar_f32(v));
    // x = -(max(x * 1.0001 + 0.5, -3.0) - 0.25): values 0..2 are (i, x, w).
    let chain = vec![
        scalar(1.0001),
        op(Op::Mul, &[1, 3]),
        scalar(0.5),
        op(Op::Add, &[4, 5]),
        scalar(-3.0),
        op(Op::Maximum, &[6, 7]),
        scalar(0.25),
        op(Op::Sub, &[8, 9]),
        op(Op::Neg, &[10]),
    ];
    let n = 1 << 20;
    let x = Tensor::from_f32((0..n).map(|i| (i % 1000) as f32 * 0.01 - 5.0).collect(), &[n]).unwrap();
    let lib = looped((DType::Float32, vec![n]), (DType::Float32, vec![]), 20, chain);
    compare(gpu, &format!("while loop, 20 x 6 elementwise ops over {n} float32"), &lib, &[x, Tensor::scalar_f32(0.0)]);
    let size = 512;
    let sig = (DType::Float32, vec![size, size]);
    let lib = looped(sig.clone(), sig, 8, vec![op(Op::MatMul, &[1, 2])]);
    let a = Tensor::from_f32((0..size * size).map(|i| (i % 17) as f32 * 0.01 - 0.08).collect(), &[size, size]).unwrap();
    let w = Tensor::from_f32((0..size * size).map(|i| (i % 13) as f32 * 0.002 - 0.012).collect(), &[size, size]).unwrap();
    compare(gpu, &format!("while loop, 8 matmuls {size}x{size} float32"), &lib, &[a, w]);
}
