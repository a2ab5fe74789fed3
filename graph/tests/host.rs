//! `Host` nodes: the executor calls its host callback at every execution of
//! one, in node order (flat loops included), with the inputs' values, and
//! checks what comes back against the node's signatures.

use stagecheck_graph::{DType, ErrorKind, Executor, FnId, Function, Library, Node, Op, OpError, Sig, Tensor, ValueId};
use std::cell::RefCell;

fn v(i: u32) -> ValueId {
    ValueId(i)
}

fn i32s() -> Sig {
    (DType::Int32, vec![])
}

/// `main` loops i from 1 to 10 with s += host(i); the body is flat.
fn looped(results: Vec<Sig>) -> Library {
    let mut lib = Library::new();
    let f = |name: &str, params: Vec<Sig>, results: Vec<Sig>, nodes: Vec<Node>, outputs: &[u32]| Function {
        name: name.into(),
        params,
        results,
        nodes,
        outputs: outputs.iter().map(|&i| v(i)).collect(),
    };
    lib.add(f(
        "main",
        vec![],
        vec![i32s()],
        vec![
            Node::Const(Tensor::scalar_i32(1)),
            Node::Const(Tensor::scalar_i32(0)),
            Node::While { cond_fn: FnId(1), body_fn: FnId(2), inputs: vec![v(0), v(1)] },
        ],
        &[3],
    ));
    lib.add(f(
        "cond",
        vec![i32s(), i32s()],
        vec![(DType::Bool, vec![])],
        vec![Node::Const(Tensor::scalar_i32(10)), Node::Op { op: Op::Le, inputs: vec![v(0), v(2)] }],
        &[3],
    ));
    lib.add(f(
        "body",
        vec![i32s(), i32s()],
        vec![i32s(), i32s()],
        vec![
            Node::Const(Tensor::scalar_i32(1)),
            Node::Host { site: 7, label: "twice".into(), inputs: vec![v(0)], results },
            Node::Op { op: Op::Add, inputs: vec![v(0), v(2)] },
            Node::Op { op: Op::Add, inputs: vec![v(1), v(3)] },
        ],
        &[4, 5],
    ));
    lib
}

#[test]
fn a_host_node_runs_at_every_iteration_in_order() {
    let lib = looped(vec![i32s()]);
    let seen = RefCell::new(Vec::new());
    let host = |site: u32, args: Vec<Tensor>| -> Result<Vec<Tensor>, OpError> {
        assert_eq!(site, 7);
        let Some(stagecheck_graph::Scalar::I32(i)) = args[0].to_scalar() else { panic!("an i32 scalar") };
        seen.borrow_mut().push(i);
        Ok(vec![Tensor::scalar_i32(2 * i)])
    };
    let exec = Executor::new(&lib).unwrap().with_host(&host);
    assert_eq!(exec.run(FnId(0), &[]).unwrap(), vec![Tensor::scalar_i32(110)]);
    assert_eq!(*seen.borrow(), (1..=10).collect::<Vec<_>>());
    assert!(lib.to_string().contains("(host twice :site 7 (x0))"), "{lib}");
}

#[test]
fn a_host_error_ends_the_run_and_a_wrong_result_is_an_error() {
    let lib = looped(vec![i32s()]);
    let calls = RefCell::new(0);
    let failing = |_: u32, _: Vec<Tensor>| -> Result<Vec<Tensor>, OpError> {
        *calls.borrow_mut() += 1;
        if *calls.borrow() == 3 {
            return Err(OpError::new(ErrorKind::Host, "raised"));
        }
        Ok(vec![Tensor::scalar_i32(0)])
    };
    let e = Executor::new(&lib).unwrap().with_host(&failing).run(FnId(0), &[]).unwrap_err();
    assert_eq!((e.kind, *calls.borrow()), (ErrorKind::Host, 3));
    let wrong = |_: u32, _: Vec<Tensor>| -> Result<Vec<Tensor>, OpError> { Ok(vec![Tensor::scalar_bool(true)]) };
    let e = Executor::new(&lib).unwrap().with_host(&wrong).run(FnId(0), &[]).unwrap_err();
    assert!(e.message.contains("host node 7 returned"), "{e:?}");
    // Without a host to call, a host node is an error, never skipped.
    let e = Executor::new(&lib).unwrap().run(FnId(0), &[]).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Unimplemented);
}
