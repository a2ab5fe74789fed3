//! The staging workloads on the graph executor: the graphs the tracer
//! makes of `benches/staging/{rnn,sgd,decode}.py` (node for node, as
//! `stagecheck run --mode staged --show-graph` prints them), built here with
//! the IR, validated, checked bit for bit against the same ops run eagerly
//! through `eval`, then timed. Prints microseconds per call, the fastest of
//! several windows (the machine is shared), under mimalloc (the tool's
//! allocator). Arguments that do not start with `-` pick workloads by name;
//! `WORKLOADS_GRAPH_ONLY=1` skips timing the eager runs (for profiling);
//! `WORKLOADS_CALLS=n` instead runs each picked graph exactly `n` times,
//! untimed: `perf stat -e cycles:u` over it counts the cycles per call, a
//! figure a busy machine disturbs far less than the wall clock.
//!
//!     cargo bench -p stagecheck-graph --bench workloads [rnn|sgd|decode]

use stagecheck_graph::{eval, validate, DType, Executor, FnId, Function, Library, Node, Op, Sig, Tensor, ValueId};
use std::hint::black_box;
use std::time::{Duration, Instant};

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn op(op: Op, inputs: &[u32]) -> Node {
    Node::Op { op, inputs: inputs.iter().map(|&i| ValueId(i)).collect() }
}

fn ids(vs: &[u32]) -> Vec<ValueId> {
    vs.iter().map(|&i| ValueId(i)).collect()
}

fn f32s(shape: &[usize], f: impl Fn(usize) -> f32) -> Tensor {
    let n = shape.iter().product();
    Tensor::from_f32((0..n).map(f).collect(), shape).unwrap()
}

fn sig(d: DType, s: &[usize]) -> Sig {
    (d, s.to_vec())
}

fn func(name: &str, params: &[Sig], results: Vec<Sig>, nodes: Vec<Node>, outputs: &[u32]) -> Function {
    Function { name: name.into(), params: params.to_vec(), results, nodes, outputs: ids(outputs) }
}

fn ev(o: Op, xs: &[&Tensor]) -> Tensor {
    eval(&o, xs).unwrap()
}

fn truth(t: &Tensor) -> bool {
    t.to_scalar().is_some_and(|s| s.bit_eq(stagecheck_graph::Scalar::Bool(true)))
}

struct Workload {
    name: &'static str,
    lib: Library,
    args: Vec<Tensor>,
    eager: fn(&[Tensor]) -> Vec<Tensor>,
}

/// rnn.py: 64 steps of `h = tanh(xs[t] @ W + h @ U + b)`, a `for` over `range`.
fn rnn() -> Workload {
    let (i32s, h) = (sig(DType::Int32, &[]), sig(DType::Float32, &[8, 16]));
    let (xs, w, b) = (sig(DType::Float32, &[64, 8, 16]), sig(DType::Float32, &[16, 16]), sig(DType::Float32, &[16]));
    let vars = [i32s.clone(), h.clone(), i32s.clone(), xs.clone(), w.clone(), w.clone(), b.clone(), i32s.clone()];
    let mut lib = Library::new();
    lib.add(func(
        "rnn",
        &[xs, h.clone(), w.clone(), w, b],
        vec![h],
        vec![
            Node::Const(Tensor::scalar_i32(64)),
            Node::Const(Tensor::scalar_i32(0)),
            Node::Const(Tensor::scalar_i32(1)),
            op(Op::RangeCheck, &[6, 5, 7]),
            Node::While { cond_fn: FnId(1), body_fn: FnId(2), inputs: ids(&[8, 1, 5, 0, 2, 3, 4, 7]) },
        ],
        &[10],
    ));
    lib.add(func("for_cond", &vars, vec![sig(DType::Bool, &[])], vec![op(Op::Lt, &[0, 2])], &[8]));
    lib.add(func(
        "for_body",
        &vars,
        vars.to_vec(),
        vec![
            op(Op::Gather, &[3, 0]),
            op(Op::MatMul, &[8, 4]),
            op(Op::MatMul, &[1, 5]),
            op(Op::Add, &[9, 10]),
            op(Op::Add, &[11, 6]),
            op(Op::Tanh, &[12]),
            op(Op::Add, &[0, 7]),
        ],
        &[14, 13, 2, 3, 4, 5, 6, 7],
    ));
    let weights = |k: usize| f32s(&[16, 16], move |i| (i % k) as f32 * 0.0625 - 0.1875);
    let args =
        vec![f32s(&[64, 8, 16], |i| (i % 9) as f32 * 0.25 - 1.0), f32s(&[8, 16], |_| 0.0), weights(7), weights(5), f32s(&[16], |_| 0.0)];
    Workload { name: "rnn", lib, args, eager: rnn_eager }
}

fn rnn_eager(a: &[Tensor]) -> Vec<Tensor> {
    let (n, zero, one) = (Tensor::scalar_i32(64), Tensor::scalar_i32(0), Tensor::scalar_i32(1));
    let mut t = ev(Op::RangeCheck, &[&zero, &n, &one]);
    let mut h = a[1].clone();
    while truth(&ev(Op::Lt, &[&t, &n])) {
        let x = ev(Op::Gather, &[&a[0], &t]);
        let s = ev(Op::Add, &[&ev(Op::MatMul, &[&x, &a[2]]), &ev(Op::MatMul, &[&h, &a[3]])]);
        h = ev(Op::Tanh, &[&ev(Op::Add, &[&s, &a[4]])]);
        t = ev(Op::Add, &[&t, &one]);
    }
    vec![h]
}

/// sgd.py: 100 gradient steps of a linear layer, `X` and `Y` captured.
fn sgd() -> Workload {
    let vars = [
        sig(DType::Float32, &[]),
        sig(DType::Int32, &[]),
        sig(DType::Float32, &[8, 1]),
        sig(DType::Float32, &[64, 8]),
        sig(DType::Float32, &[64, 1]),
    ];
    let mut lib = Library::new();
    lib.add(func(
        "train",
        &[vars[2].clone(), vars[0].clone(), vars[3].clone(), vars[4].clone()],
        vec![vars[2].clone(), vars[0].clone()],
        vec![
            Node::Const(Tensor::scalar_i32(0)),
            Node::Const(Tensor::scalar_i32(100)),
            op(Op::Lt, &[4, 5]),
            Node::While { cond_fn: FnId(1), body_fn: FnId(2), inputs: ids(&[1, 4, 0, 2, 3]) },
        ],
        &[9, 7],
    ));
    lib.add(func("while_cond", &vars, vec![sig(DType::Bool, &[])], vec![Node::Const(Tensor::scalar_i32(100)), op(Op::Lt, &[1, 5])], &[6]));
    lib.add(func(
        "while_body",
        &vars,
        vars.to_vec(),
        vec![
            op(Op::MatMul, &[3, 2]),
            op(Op::Add, &[5, 0]),
            op(Op::Sub, &[6, 4]),
            op(Op::Transpose { perm: None }, &[3]),
            op(Op::MatMul, &[8, 7]),
            Node::Const(Tensor::scalar_f32(0.03125)),
            op(Op::Mul, &[9, 10]),
            Node::Const(Tensor::scalar_f32(0.05)),
            op(Op::Mul, &[12, 11]),
            op(Op::Sub, &[2, 13]),
            op(Op::ReduceMean { axis: None, keepdims: false }, &[7]),
            Node::Const(Tensor::scalar_f32(2.0)),
            op(Op::Mul, &[15, 16]),
            Node::Const(Tensor::scalar_f32(0.05)),
            op(Op::Mul, &[18, 17]),
            op(Op::Sub, &[0, 19]),
            Node::Const(Tensor::scalar_i32(1)),
            op(Op::Add, &[1, 21]),
        ],
        &[20, 22, 14, 3, 4],
    ));
    let x = f32s(&[64, 8], |i| (i % 13) as f32 * 0.125 - 0.75);
    let true_w = f32s(&[8, 1], |i| i as f32 * 0.5 - 1.0);
    let y = ev(Op::Add, &[&ev(Op::MatMul, &[&x, &true_w]), &Tensor::scalar_f32(0.25)]);
    let args = vec![f32s(&[8, 1], |_| 0.0), Tensor::scalar_f32(0.0), x, y];
    Workload { name: "sgd", lib, args, eager: sgd_eager }
}

fn sgd_eager(a: &[Tensor]) -> Vec<Tensor> {
    let (mut w, mut b, x, y) = (a[0].clone(), a[1].clone(), &a[2], &a[3]);
    let (steps, one) = (Tensor::scalar_i32(100), Tensor::scalar_i32(1));
    let c = |v: f32| Tensor::scalar_f32(v);
    let mut i = Tensor::scalar_i32(0);
    ev(Op::Lt, &[&i, &steps]);
    while truth(&ev(Op::Lt, &[&i, &steps])) {
        let err = ev(Op::Sub, &[&ev(Op::Add, &[&ev(Op::MatMul, &[x, &w]), &b]), y]);
        let grad = ev(Op::MatMul, &[&ev(Op::Transpose { perm: None }, &[x]), &err]);
        let grad = ev(Op::Mul, &[&grad, &c(0.03125)]);
        w = ev(Op::Sub, &[&w, &ev(Op::Mul, &[&c(0.05), &grad])]);
        let mean = ev(Op::ReduceMean { axis: None, keepdims: false }, &[&err]);
        let step = ev(Op::Mul, &[&c(0.05), &ev(Op::Mul, &[&mean, &c(2.0)])]);
        b = ev(Op::Sub, &[&b, &step]);
        i = ev(Op::Add, &[&i, &one]);
    }
    vec![w, b]
}

/// decode.py: 200 steps of gather, argmax and a running total, `TABLE` captured.
fn decode() -> Workload {
    let (i32s, f32s_) = (sig(DType::Int32, &[]), sig(DType::Float32, &[]));
    let table = sig(DType::Float32, &[64, 64]);
    let vars = [i32s.clone(), i32s.clone(), f32s_.clone(), table.clone()];
    let mut lib = Library::new();
    lib.add(func(
        "decode",
        &[i32s.clone(), table],
        vec![i32s, f32s_],
        vec![
            Node::Const(Tensor::scalar_f32(0.0)),
            Node::Const(Tensor::scalar_i32(0)),
            Node::Const(Tensor::scalar_i32(200)),
            op(Op::Lt, &[3, 4]),
            Node::While { cond_fn: FnId(1), body_fn: FnId(2), inputs: ids(&[3, 0, 2, 1]) },
        ],
        &[7, 8],
    ));
    lib.add(func("while_cond", &vars, vec![sig(DType::Bool, &[])], vec![Node::Const(Tensor::scalar_i32(200)), op(Op::Lt, &[0, 4])], &[5]));
    lib.add(func(
        "while_body",
        &vars,
        vars.to_vec(),
        vec![
            op(Op::Gather, &[3, 1]),
            op(Op::ArgMax { axis: 0 }, &[4]),
            op(Op::Cast { dtype: DType::Int32 }, &[5]),
            op(Op::ReduceMax { axis: None, keepdims: false }, &[4]),
            op(Op::Add, &[2, 7]),
            Node::Const(Tensor::scalar_i32(1)),
            op(Op::Add, &[0, 9]),
        ],
        &[10, 6, 8, 3],
    ));
    let args = vec![Tensor::scalar_i32(3), f32s(&[64, 64], |i| ((i * 37) % 101) as f32 * 0.01)];
    Workload { name: "decode", lib, args, eager: decode_eager }
}

fn decode_eager(a: &[Tensor]) -> Vec<Tensor> {
    let (mut tok, table) = (a[0].clone(), &a[1]);
    let (steps_max, one) = (Tensor::scalar_i32(200), Tensor::scalar_i32(1));
    let (mut total, mut steps) = (Tensor::scalar_f32(0.0), Tensor::scalar_i32(0));
    ev(Op::Lt, &[&steps, &steps_max]);
    while truth(&ev(Op::Lt, &[&steps, &steps_max])) {
        let row = ev(Op::Gather, &[table, &tok]);
        tok = ev(Op::Cast { dtype: DType::Int32 }, &[&ev(Op::ArgMax { axis: 0 }, &[&row])]);
        total = ev(Op::Add, &[&total, &ev(Op::ReduceMax { axis: None, keepdims: false }, &[&row])]);
        steps = ev(Op::Add, &[&steps, &one]);
    }
    vec![tok, total]
}

/// Seconds per call of `f`: the fastest of `windows` windows of `window` each.
fn best_of(windows: u32, window: Duration, mut f: impl FnMut()) -> f64 {
    let mut best = f64::INFINITY;
    for _ in 0..windows {
        let (mut runs, start) = (0u32, Instant::now());
        while start.elapsed() < window {
            f();
            runs += 1;
        }
        best = best.min(start.elapsed().as_secs_f64() / f64::from(runs));
    }
    best
}

fn main() {
    let picked: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    for w in [rnn(), sgd(), decode()] {
        if !picked.is_empty() && !picked.iter().any(|p| p == w.name) {
            continue;
        }
        validate(&w.lib).unwrap_or_else(|e| panic!("{}: invalid graph: {e}", w.name));
        let exec = Executor::new(&w.lib).unwrap();
        let staged = exec.run(FnId(0), &w.args).unwrap();
        let eager = (w.eager)(&w.args);
        assert!(
            staged.len() == eager.len() && staged.iter().zip(&eager).all(|(s, e)| s.bit_eq(e)),
            "{}: the graph must compute the eager bits: {staged:?} vs {eager:?}",
            w.name
        );
        if let Some(n) = std::env::var("WORKLOADS_CALLS").ok().and_then(|n| n.parse::<u32>().ok()) {
            for _ in 0..n {
                black_box(exec.run(FnId(0), black_box(&w.args)).unwrap());
            }
            println!("{}: {n} calls", w.name);
            continue;
        }
        let graph = best_of(8, Duration::from_millis(400), || {
            black_box(exec.run(FnId(0), black_box(&w.args)).unwrap());
        });
        let eager = if std::env::var_os("WORKLOADS_GRAPH_ONLY").is_some() {
            f64::NAN
        } else {
            best_of(3, Duration::from_millis(400), || {
                black_box((w.eager)(black_box(&w.args)));
            })
        };
        println!("{}: graph {:.1} us/call (eager through eval: {:.1} us/call)", w.name, graph * 1e6, eager * 1e6);
    }
}
