//! Graph executor throughput: a while loop of 1000 iterations, each an
//! elementwise update `x = x * 0.5 + 1.0` of a 1000-element float32 tensor
//! and a counter `i = i + 1` (cond: 2 nodes, body: 6 nodes). Reports loop
//! iterations per second and microseconds per executed node; the figure is
//! the fastest of six one-second windows (the machine is shared). It runs
//! under mimalloc, the allocator the tool runs under.
//!
//!     cargo bench -p stagecheck-graph --bench exec

use stagecheck_graph::{eval, DType, Executor, FnId, Function, Library, Node, Op, Tensor, ValueId};
use std::hint::black_box;
use std::time::{Duration, Instant};

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

const ITERATIONS: i32 = 1000;
const LEN: usize = 1000;
const NODES_PER_ITERATION: usize = 8;

fn op(op: Op, inputs: &[u32]) -> Node {
    Node::Op { op, inputs: inputs.iter().map(|&i| ValueId(i)).collect() }
}

fn library() -> Library {
    let i = (DType::Int32, vec![]);
    let x = (DType::Float32, vec![LEN]);
    let mut lib = Library::new();
    lib.add(Function {
        name: "main".into(),
        params: vec![x.clone()],
        results: vec![x.clone()],
        nodes: vec![
            Node::Const(Tensor::scalar_i32(0)),
            Node::While { cond_fn: FnId(1), body_fn: FnId(2), inputs: vec![ValueId(1), ValueId(0)] },
        ],
        outputs: vec![ValueId(3)],
    });
    lib.add(Function {
        name: "cond".into(),
        params: vec![i.clone(), x.clone()],
        results: vec![(DType::Bool, vec![])],
        nodes: vec![Node::Const(Tensor::scalar_i32(ITERATIONS)), op(Op::Lt, &[0, 2])],
        outputs: vec![ValueId(3)],
    });
    lib.add(Function {
        name: "body".into(),
        params: vec![i.clone(), x.clone()],
        results: vec![i, x],
        nodes: vec![
            Node::Const(Tensor::scalar_i32(1)),
            op(Op::Add, &[0, 2]),
            Node::Const(Tensor::scalar_f32(0.5)),
            op(Op::Mul, &[1, 4]),
            Node::Const(Tensor::scalar_f32(1.0)),
            op(Op::Add, &[5, 6]),
        ],
        outputs: vec![ValueId(3), ValueId(7)],
    });
    lib
}

/// The same loop eagerly, op by op through `eval` (what the graph must equal).
fn eager(x: &Tensor) -> Tensor {
    let (half, one) = (Tensor::scalar_f32(0.5), Tensor::scalar_f32(1.0));
    let mut x = x.clone();
    for _ in 0..ITERATIONS {
        x = eval(&Op::Add, &[&eval(&Op::Mul, &[&x, &half]).unwrap(), &one]).unwrap();
    }
    x
}

fn main() {
    let lib = library();
    let exec = Executor::new(&lib).unwrap();
    let x = Tensor::from_f32((0..LEN).map(|k| k as f32 / 7.0).collect(), &[LEN]).unwrap();
    let out = exec.run(FnId(0), std::slice::from_ref(&x)).unwrap();
    assert!(out[0].bit_eq(&eager(&x)), "the graph must compute the eager bits");

    let mut best = f64::INFINITY;
    for _ in 0..6 {
        let (mut runs, start) = (0u32, Instant::now());
        while start.elapsed() < Duration::from_secs(1) {
            black_box(exec.run(FnId(0), std::slice::from_ref(&x)).unwrap());
            runs += 1;
        }
        best = best.min(start.elapsed().as_secs_f64() / f64::from(runs));
    }
    let mut eager_best = f64::INFINITY;
    for _ in 0..3 {
        let (mut runs, start) = (0u32, Instant::now());
        while start.elapsed() < Duration::from_secs(1) {
            black_box(eager(&x));
            runs += 1;
        }
        eager_best = eager_best.min(start.elapsed().as_secs_f64() / f64::from(runs));
    }
    let per_iteration = best / f64::from(ITERATIONS);
    println!(
        "graph/while{ITERATIONS}x{LEN}f32: {:.0} loop iterations/s ({:.2} us/iteration, {:.3} us/node, {:.2} ms/run, one thread)",
        1.0 / per_iteration,
        per_iteration * 1e6,
        per_iteration * 1e6 / NODES_PER_ITERATION as f64,
        best * 1e3
    );
    println!(
        "eager/loop{ITERATIONS}x{LEN}f32 (the two float ops alone, through eval): {:.2} us/iteration",
        eager_best * 1e6 / f64::from(ITERATIONS)
    );
}
