//! The graph IR: execution, validation, printing and JSON.

mod exec;
mod json;
mod sexpr;
mod validate;

use stagecheck_graph::{DType, FnId, Function, Library, Node, Op, Sig, Tensor, ValueId};

pub fn sig(d: DType, shape: &[usize]) -> Sig {
    (d, shape.to_vec())
}

pub fn scalar(d: DType) -> Sig {
    (d, vec![])
}

pub fn v(i: u32) -> ValueId {
    ValueId(i)
}

pub fn op(op: Op, inputs: &[u32]) -> Node {
    Node::Op { op, inputs: inputs.iter().map(|&i| ValueId(i)).collect() }
}

pub fn konst(t: Tensor) -> Node {
    Node::Const(t)
}

pub fn func(name: &str, params: Vec<Sig>, results: Vec<Sig>, nodes: Vec<Node>, outputs: &[u32]) -> Function {
    Function { name: name.into(), params, results, nodes, outputs: outputs.iter().map(|&i| ValueId(i)).collect() }
}

/// `main` sums 1..=10 in a while loop: loop variables (i, s) start at (1, 0);
/// `cond`: i <= 10; `body`: (i + 1, s + i). Returns (s, i).
pub fn sum_loop() -> Library {
    let i32s = scalar(DType::Int32);
    let mut lib = Library::new();
    lib.add(func(
        "main",
        vec![],
        vec![i32s.clone(), i32s.clone()],
        vec![
            konst(Tensor::scalar_i32(1)),
            konst(Tensor::scalar_i32(0)),
            Node::While { cond_fn: FnId(1), body_fn: FnId(2), inputs: vec![v(0), v(1)] },
        ],
        &[3, 2],
    ));
    lib.add(func(
        "cond",
        vec![i32s.clone(), i32s.clone()],
        vec![scalar(DType::Bool)],
        vec![konst(Tensor::scalar_i32(10)), op(Op::Le, &[0, 2])],
        &[3],
    ));
    lib.add(func(
        "body",
        vec![i32s.clone(), i32s.clone()],
        vec![i32s.clone(), i32s],
        vec![konst(Tensor::scalar_i32(1)), op(Op::Add, &[0, 2]), op(Op::Add, &[1, 0])],
        &[3, 4],
    ));
    lib
}

/// `f(x: float32[3], p: bool)`: `p ? x * 2 : -x`, via a cond.
pub fn cond_lib() -> Library {
    let x = sig(DType::Float32, &[3]);
    let mut lib = Library::new();
    lib.add(func(
        "f",
        vec![x.clone(), scalar(DType::Bool)],
        vec![x.clone()],
        vec![Node::Cond { pred: v(1), then_fn: FnId(1), else_fn: FnId(2), inputs: vec![v(0)] }],
        &[2],
    ));
    lib.add(func("then", vec![x.clone()], vec![x.clone()], vec![konst(Tensor::scalar_f32(2.0)), op(Op::Mul, &[0, 1])], &[2]));
    lib.add(func("else", vec![x.clone()], vec![x], vec![op(Op::Neg, &[0])], &[1]));
    lib
}

/// `down(n: int32)`: `n <= 0 ? n : down(n - 1)`, recursion through a cond and a call.
pub fn countdown() -> Library {
    let n = scalar(DType::Int32);
    let mut lib = Library::new();
    lib.add(func(
        "down",
        vec![n.clone()],
        vec![n.clone()],
        vec![
            konst(Tensor::scalar_i32(0)),
            op(Op::Le, &[0, 1]),
            Node::Cond { pred: v(2), then_fn: FnId(1), else_fn: FnId(2), inputs: vec![v(0)] },
        ],
        &[3],
    ));
    lib.add(func("base", vec![n.clone()], vec![n.clone()], vec![], &[0]));
    lib.add(func(
        "step",
        vec![n.clone()],
        vec![n.clone()],
        vec![konst(Tensor::scalar_i32(1)), op(Op::Sub, &[0, 1]), Node::Call { callee: FnId(0), inputs: vec![v(2)] }],
        &[3],
    ));
    lib
}
