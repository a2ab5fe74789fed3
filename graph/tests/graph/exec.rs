//! Running graphs: loops, conds, calls, recursion limits, argument checks.

use super::*;
use stagecheck_graph::{run, ErrorKind, Executor, MAX_DEPTH};

#[test]
fn while_loop_sums_one_to_ten() {
    let out = run(&sum_loop(), FnId(0), &[]).unwrap();
    assert_eq!(out, vec![Tensor::scalar_i32(55), Tensor::scalar_i32(11)]);
}

#[test]
fn cond_takes_the_branch_its_predicate_picks() {
    let lib = cond_lib();
    let x = Tensor::from_f32(vec![1.0, -2.0, 0.5], &[3]).unwrap();
    let then = run(&lib, FnId(0), &[x.clone(), Tensor::scalar_bool(true)]).unwrap();
    assert_eq!(then, vec![Tensor::from_f32(vec![2.0, -4.0, 1.0], &[3]).unwrap()]);
    let other = run(&lib, FnId(0), &[x, Tensor::scalar_bool(false)]).unwrap();
    assert_eq!(other, vec![Tensor::from_f32(vec![-1.0, 2.0, -0.5], &[3]).unwrap()]);
}

#[test]
fn calls_compose() {
    let x = sig(DType::Int64, &[2]);
    let mut lib = Library::new();
    lib.add(func(
        "main",
        vec![x.clone()],
        vec![x.clone()],
        vec![Node::Call { callee: FnId(1), inputs: vec![v(0)] }, Node::Call { callee: FnId(1), inputs: vec![v(1)] }],
        &[2],
    ));
    lib.add(func("double", vec![x.clone()], vec![x], vec![op(Op::Add, &[0, 0])], &[1]));
    let out = run(&lib, FnId(0), &[Tensor::from_i64(vec![3, -5], &[2]).unwrap()]).unwrap();
    assert_eq!(out, vec![Tensor::from_i64(vec![12, -20], &[2]).unwrap()]);
}

#[test]
fn recursion_runs_until_the_depth_limit() {
    let lib = countdown();
    assert_eq!(run(&lib, FnId(0), &[Tensor::scalar_i32(100)]).unwrap(), vec![Tensor::scalar_i32(0)]);
    // Each level is two frames (down, step): 1000 levels exceed MAX_DEPTH.
    let err = run(&lib, FnId(0), &[Tensor::scalar_i32(MAX_DEPTH as i32)]).unwrap_err();
    assert_eq!(err.kind, ErrorKind::RecursionLimit);
    assert_eq!(err.to_string(), "maximum recursion depth exceeded");
}

#[test]
fn unbounded_recursion_is_an_error_not_a_crash() {
    let n = scalar(DType::Int32);
    let mut lib = Library::new();
    lib.add(func("f", vec![n.clone()], vec![n], vec![Node::Call { callee: FnId(0), inputs: vec![v(0)] }], &[1]));
    let err = run(&lib, FnId(0), &[Tensor::scalar_i32(1)]).unwrap_err();
    assert_eq!(err.kind, ErrorKind::RecursionLimit);
}

#[test]
fn deep_recursion_uses_no_native_stack() {
    // 100k frames on a thread with a 256 KiB stack: frames live on the heap.
    let handle = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(|| {
            let lib = countdown();
            let exec = Executor::new(&lib).unwrap().with_max_depth(200_000);
            exec.run(FnId(0), &[Tensor::scalar_i32(50_000)]).unwrap()
        })
        .unwrap();
    assert_eq!(handle.join().unwrap(), vec![Tensor::scalar_i32(0)]);
}

#[test]
fn op_errors_propagate_out_of_nested_frames() {
    let n = scalar(DType::Int32);
    let mut lib = Library::new();
    lib.add(func("main", vec![n.clone()], vec![n.clone()], vec![Node::Call { callee: FnId(1), inputs: vec![v(0)] }], &[1]));
    lib.add(func("div0", vec![n.clone()], vec![n], vec![konst(Tensor::scalar_i32(0)), op(Op::FloorDiv, &[0, 1])], &[2]));
    let err = run(&lib, FnId(0), &[Tensor::scalar_i32(1)]).unwrap_err();
    assert_eq!(err.kind, ErrorKind::ZeroDivision);
}

#[test]
fn arguments_are_checked_against_parameters() {
    let lib = cond_lib();
    let x = Tensor::from_f32(vec![1.0, 2.0, 3.0], &[3]).unwrap();
    let err = run(&lib, FnId(0), std::slice::from_ref(&x)).unwrap_err();
    assert_eq!(err.to_string(), "f expects 2 arguments, got 1");
    let err = run(&lib, FnId(0), &[x.clone(), Tensor::scalar_i32(1)]).unwrap_err();
    assert_eq!(err.to_string(), "argument 1 of f: expected bool [], got int32 []");
    let short = Tensor::from_f32(vec![1.0, 2.0], &[2]).unwrap();
    let err = run(&lib, FnId(0), &[short, Tensor::scalar_bool(true)]).unwrap_err();
    assert_eq!(err.to_string(), "argument 0 of f: expected float32 [3], got float32 [2]");
    assert!(run(&lib, FnId(7), &[]).is_err());
}

#[test]
fn invalid_graphs_are_refused_before_running() {
    let mut lib = sum_loop();
    lib.functions[1].outputs = vec![v(0)];
    let err = run(&lib, FnId(0), &[]).unwrap_err();
    assert_eq!(err.kind, ErrorKind::InvalidArgument);
    assert!(err.message.starts_with("invalid graph: function cond (#1)"), "{err}");
}

#[test]
fn one_executor_runs_many_times() {
    let lib = cond_lib();
    let exec = Executor::new(&lib).unwrap();
    let x = Tensor::from_f32(vec![1.0, 2.0, 3.0], &[3]).unwrap();
    for p in [true, false, true] {
        let out = exec.run(FnId(0), &[x.clone(), Tensor::scalar_bool(p)]).unwrap();
        assert_eq!(out.len(), 1);
    }
}

#[test]
fn unused_values_and_outputs_returned_twice() {
    // Unused params, an unused node output, a value returned twice and a zero-trip loop.
    let n = scalar(DType::Int32);
    let mut lib = Library::new();
    lib.add(func(
        "main",
        vec![n.clone(), n.clone()],
        vec![n.clone(), n.clone(), n.clone()],
        vec![op(Op::Neg, &[0]), konst(Tensor::scalar_i32(7)), Node::While { cond_fn: FnId(1), body_fn: FnId(2), inputs: vec![v(3)] }],
        &[4, 4, 0],
    ));
    lib.add(func("never", vec![n.clone()], vec![scalar(DType::Bool)], vec![konst(Tensor::scalar_bool(false))], &[1]));
    lib.add(func("body", vec![n.clone()], vec![n], vec![], &[0]));
    let out = run(&lib, FnId(0), &[Tensor::scalar_i32(3), Tensor::scalar_i32(4)]).unwrap();
    assert_eq!(out, vec![Tensor::scalar_i32(7), Tensor::scalar_i32(7), Tensor::scalar_i32(3)]);
}

/// Values read for the last time are handed to the op (written in place
/// when elementwise): a chain of such ops, each operand order and
/// broadcast, gives the eager bits, and a value still read later is not
/// overwritten.
#[test]
fn ops_writing_into_dying_inputs_give_the_eager_bits() {
    let m = sig(DType::Float32, &[2, 3]);
    let row = sig(DType::Float32, &[3]);
    let mut lib = Library::new();
    lib.add(func(
        "chain",
        vec![m.clone(), row],
        vec![m.clone(), m],
        vec![
            op(Op::Neg, &[0]),    // x2: a fresh value
            op(Op::Add, &[2, 1]), // x3 = x2 + row (x2 dies: left donor)
            konst(Tensor::scalar_f32(0.5)),
            op(Op::Sub, &[4, 3]),     // x5 = 0.5 - x3 (x3 dies: right donor)
            op(Op::Tanh, &[5]),       // x6
            op(Op::Mul, &[1, 6]),     // x7 = row * x6 (right donor, row repeated)
            op(Op::Maximum, &[7, 4]), // x8 = max(x7, 0.5) (left donor, a scalar)
            op(Op::Sub, &[8, 8]),     // x9: x8 read twice, not donated
            op(Op::Abs, &[0]),        // x10: x0 is an argument (shared): not written
        ],
        &[9, 10],
    ));
    let x = Tensor::from_f32(vec![1.0, -2.5, 0.0, 3.0, -0.0, 7.0], &[2, 3]).unwrap();
    let r = Tensor::from_f32(vec![0.25, -1.0, 2.0], &[3]).unwrap();
    let got = run(&lib, FnId(0), &[x.clone(), r.clone()]).unwrap();
    let ev = |o: Op, xs: &[&Tensor]| stagecheck_graph::eval(&o, xs).unwrap();
    let x3 = ev(Op::Add, &[&ev(Op::Neg, &[&x]), &r]);
    let x6 = ev(Op::Tanh, &[&ev(Op::Sub, &[&Tensor::scalar_f32(0.5), &x3])]);
    let x8 = ev(Op::Maximum, &[&ev(Op::Mul, &[&r, &x6]), &Tensor::scalar_f32(0.5)]);
    assert_eq!(got, vec![ev(Op::Sub, &[&x8, &x8]), ev(Op::Abs, &[&x])]);
    assert_eq!(x, Tensor::from_f32(vec![1.0, -2.5, 0.0, 3.0, -0.0, 7.0], &[2, 3]).unwrap());
}

/// A matrix product whose left or right operand dies there, of the output's
/// shape, is computed into that operand's storage: the eager bits, batched
/// too, for float32 (vector paths) and int64; an argument is never written.
#[test]
fn matmuls_into_dying_operands_give_the_eager_bits() {
    for batch in [&[][..], &[3usize][..]] {
        let shape = |m: usize, n: usize| [batch, &[m, n][..]].concat();
        for dtype in [DType::Float32, DType::Int64] {
            let (sq, wide) = (sig(dtype, &shape(5, 5)), sig(dtype, &shape(5, 19)));
            let mut lib = Library::new();
            lib.add(func(
                "products",
                vec![sq.clone(), wide.clone(), sq.clone()],
                vec![wide, sq.clone()],
                vec![
                    op(Op::Neg, &[1]),       // x3: fresh [.., 5, 19]
                    op(Op::MatMul, &[0, 3]), // x4 = x0 @ x3 (x3 dies: right donor)
                    op(Op::Abs, &[2]),       // x5: fresh [.., 5, 5]
                    op(Op::MatMul, &[5, 4]), // x6 = x5 @ x4 (x4 dies: right donor;
                    // x5 dies too, not of the output's shape)
                    op(Op::Neg, &[0]), // x7: fresh [.., 5, 5]
                    op(Op::MatMul, &[7, 2]), // x8 = x7 @ x2 (x7 dies: left donor;
                                       // x2, an argument, is shared)
                ],
                &[6, 8],
            ));
            let n = |shape: &[usize], k: i64| {
                let len: usize = shape.iter().product();
                let v: Vec<f64> = (0..len as i64).map(|i| ((i * 7 + k) % 11 - 5) as f64 * 0.375).collect();
                match dtype {
                    DType::Float32 => Tensor::from_f32(v.iter().map(|&x| x as f32).collect(), shape).unwrap(),
                    _ => Tensor::from_i64(v.iter().map(|&x| (x * 8.0) as i64).collect(), shape).unwrap(),
                }
            };
            let (a, b, c) = (n(&shape(5, 5), 1), n(&shape(5, 19), 2), n(&shape(5, 5), 3));
            let got = run(&lib, FnId(0), &[a.clone(), b.clone(), c.clone()]).unwrap();
            let ev = |o: Op, xs: &[&Tensor]| stagecheck_graph::eval(&o, xs).unwrap();
            let x4 = ev(Op::MatMul, &[&a, &ev(Op::Neg, &[&b])]);
            let x6 = ev(Op::MatMul, &[&ev(Op::Abs, &[&c]), &x4]);
            let x8 = ev(Op::MatMul, &[&ev(Op::Neg, &[&a]), &c]);
            assert_eq!(got, vec![x6, x8], "{dtype} batch {batch:?}");
            assert_eq!((b, c), (n(&shape(5, 19), 2), n(&shape(5, 5), 3)));
        }
    }
}

/// A loop of flat functions (only constants and ops) runs without frames on
/// the stack, yet invokes as if it pushed them: the interrupt check before
/// each of sum_loop's 21 invocations (11 conditions, 10 bodies), the depth
/// limit counting the loop's caller.
#[test]
fn flat_loops_check_before_every_invocation() {
    let lib = sum_loop();
    let calls = std::cell::Cell::new(0);
    let count = || {
        calls.set(calls.get() + 1);
        calls.get() > 21
    };
    let out = Executor::new(&lib).unwrap().with_interrupt(&count).run(FnId(0), &[]).unwrap();
    assert_eq!(out, vec![Tensor::scalar_i32(55), Tensor::scalar_i32(11)]);
    assert_eq!(calls.get(), 21);
    let stop = || {
        calls.set(calls.get() + 1);
        calls.get() > 4
    };
    calls.set(0);
    let err = Executor::new(&lib).unwrap().with_interrupt(&stop).run(FnId(0), &[]).unwrap_err();
    assert_eq!((err.kind, calls.get()), (ErrorKind::Interrupted, 5));
    let err = Executor::new(&lib).unwrap().with_max_depth(1).run(FnId(0), &[]).unwrap_err();
    assert_eq!(err.to_string(), "maximum recursion depth exceeded");
    assert!(Executor::new(&lib).unwrap().with_max_depth(2).run(FnId(0), &[]).is_ok());
}

/// The CPU, with a lookahead: flat loops run iterations before reading their
/// predicates, several at a time (as on a GPU), counting the reads.
struct Ahead {
    reads: std::cell::Cell<usize>,
}

impl stagecheck_graph::Device for Ahead {
    type Value = Tensor;
    fn op(&self, op: &Op, inputs: &[&Tensor], sig: Option<&Sig>) -> Result<Tensor, stagecheck_graph::OpError> {
        stagecheck_graph::Cpu.op(op, inputs, sig)
    }
    fn upload(&self, t: &Tensor) -> Result<Tensor, stagecheck_graph::OpError> {
        Ok(t.clone())
    }
    fn download(&self, t: &Tensor) -> Result<Tensor, stagecheck_graph::OpError> {
        self.reads.set(self.reads.get() + 1);
        Ok(t.clone())
    }
    fn scalars(&self, vs: &[&Tensor]) -> Result<Vec<Option<stagecheck_graph::Scalar>>, stagecheck_graph::OpError> {
        self.reads.set(self.reads.get() + 1);
        Ok(vs.iter().map(|t| t.to_scalar()).collect())
    }
    fn lookahead(&self) -> usize {
        8
    }
}

/// `main(n)`: `i = s = 0; while i < n: s += 10 // (c - i); i += 1`, `c`
/// being `n` (the division fails only in the iteration after the last) or
/// 3 (it fails in iteration 3 when the loop gets there).
fn dividing_loop(c_is_n: bool) -> Library {
    let i32s = scalar(DType::Int32);
    let vars = vec![i32s.clone(), i32s.clone(), i32s.clone()];
    let mut lib = Library::new();
    lib.add(func(
        "main",
        vec![i32s.clone()],
        vec![i32s.clone(), i32s.clone()],
        vec![
            konst(Tensor::scalar_i32(0)),
            konst(Tensor::scalar_i32(0)),
            Node::While { cond_fn: FnId(1), body_fn: FnId(2), inputs: vec![v(1), v(2), v(0)] },
        ],
        &[4, 3],
    ));
    lib.add(func("cond", vars.clone(), vec![scalar(DType::Bool)], vec![op(Op::Lt, &[0, 2])], &[3]));
    let c = if c_is_n { op(Op::Identity, &[2]) } else { konst(Tensor::scalar_i32(3)) };
    lib.add(func(
        "body",
        vars.clone(),
        vars,
        vec![
            konst(Tensor::scalar_i32(10)),
            c,
            op(Op::Sub, &[4, 0]),
            op(Op::FloorDiv, &[3, 5]),
            op(Op::Add, &[1, 6]),
            konst(Tensor::scalar_i32(1)),
            op(Op::Add, &[0, 8]),
        ],
        &[9, 7, 2],
    ));
    lib
}

#[test]
fn a_lookahead_gives_each_loop_its_result_and_errors_with_fewer_reads() {
    for c_is_n in [true, false] {
        let lib = dividing_loop(c_is_n);
        for n in 0..40 {
            let args = [Tensor::scalar_i32(n)];
            let cpu = run(&lib, FnId(0), &args);
            let exec = Executor::new(&lib).unwrap().on(Ahead { reads: Default::default() });
            let ahead = exec.run(FnId(0), &args);
            assert_eq!(ahead, cpu, "n = {n}, c = {}", if c_is_n { "n" } else { "3" });
            assert_eq!(cpu.is_err(), !c_is_n && n > 3, "n = {n}: the division fails only where the loop reaches it");
            // Predicates read 2, 4, 8, 8, ... at a time (where one by one
            // is n + 1 reads), then the two results one by one.
            let rounds = exec.device().reads.get().saturating_sub(if cpu.is_ok() { 2 } else { 0 });
            assert!(rounds <= 1 + (n as usize).div_ceil(4), "n = {n}: {rounds} rounds of reads");
        }
    }
}

/// A loop whose body has a host node is never run ahead: the host sees
/// each iteration once, and none past the end.
#[test]
fn a_lookahead_never_runs_a_host_node_ahead() {
    let i32s = scalar(DType::Int32);
    let mut lib = Library::new();
    lib.add(func(
        "main",
        vec![],
        vec![i32s.clone()],
        vec![konst(Tensor::scalar_i32(0)), Node::While { cond_fn: FnId(1), body_fn: FnId(2), inputs: vec![v(0)] }],
        &[1],
    ));
    lib.add(func("cond", vec![i32s.clone()], vec![scalar(DType::Bool)], vec![konst(Tensor::scalar_i32(5)), op(Op::Lt, &[0, 1])], &[2]));
    let host = Node::Host { site: 1, label: "seen".into(), inputs: vec![v(0)], results: vec![i32s.clone()] };
    lib.add(func("body", vec![i32s.clone()], vec![i32s], vec![host, konst(Tensor::scalar_i32(1)), op(Op::Add, &[1, 2])], &[3]));
    let seen = std::cell::RefCell::new(Vec::new());
    let callback = |_: u32, args: Vec<Tensor>| -> Result<Vec<Tensor>, stagecheck_graph::OpError> {
        seen.borrow_mut().push(args[0].clone());
        Ok(args)
    };
    let exec = Executor::new(&lib).unwrap().on(Ahead { reads: Default::default() }).with_host(&callback);
    assert_eq!(exec.run(FnId(0), &[]).unwrap(), vec![Tensor::scalar_i32(5)]);
    assert_eq!(*seen.borrow(), (0..5).map(Tensor::scalar_i32).collect::<Vec<_>>());
}
