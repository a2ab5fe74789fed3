//! Lists on the GPU device (graph's `list.rs`): each list op of every
//! dtype against `graph::eval` (values and errors: an empty pop, an element
//! of another type, a stack of nothing), and a graph that grows a list of
//! rows in a loop, pops one and stacks the rest runs on `GpuDevice` as on
//! the CPU, and a pop of an empty list raises the same `IndexError` there.

mod common;
use common::{same, tensor};
use graph::{DType, ErrorKind, Executor, FnId, Function, Library, Node, Op, Sig, Tensor, ValueId, DYN};
use proptest::prelude::*;
use stagecheck_gpu::GpuDevice;

const DTYPES: [DType; 5] = [DType::Bool, DType::Int32, DType::Float32, DType::Int64, DType::Float64];

/// A list of 0..4 elements of one dtype and shape (rank 0..2), and an
/// element: of the list's type, or now and then of another shape.
fn list_and_element() -> impl Strategy<Value = (Tensor, Tensor)> {
    (prop::sample::select(DTYPES.to_vec()), 0usize..4, prop::collection::vec(1usize..4, 0..=2), 0..6u8).prop_flat_map(|(d, n, s, wrong)| {
        let list: Vec<usize> = std::iter::once(n).chain(s.iter().copied()).collect();
        let element = if wrong == 0 { vec![s.len() + 2] } else { s };
        (tensor(d, list), tensor(d, element))
    })
}

proptest! {
    #![proptest_config(common::config(60))]

    #[test]
    fn every_list_op_as_on_the_cpu((list, x) in list_and_element()) {
        let Some(gpu) = common::gpu() else { return Ok(()) };
        let rank = list.shape().len() as i64;
        let mut ops = vec![Op::ListLast, Op::ListDrop, Op::ListLen];
        ops.extend((-rank..rank).map(|axis| Op::ListStack { axis }));
        for op in &ops {
            same(gpu, op, std::slice::from_ref(&list)).map_err(TestCaseError::fail)?;
        }
        same(gpu, &Op::ListPush, &[list.clone(), x]).map_err(TestCaseError::fail)?;
        let new = Op::ListNew { shape: list.shape()[1..].to_vec(), dtype: list.dtype() };
        same(gpu, &new, &[]).map_err(TestCaseError::fail)?;
    }
}

fn v(i: u32) -> ValueId {
    ValueId(i)
}

fn op(op: Op, ins: &[u32]) -> Node {
    Node::Op { op, inputs: ins.iter().map(|&i| v(i)).collect() }
}

/// `main(x, n)`: `l = []; i = 0; while i < n: l.append(x * i); i += 1`,
/// then `last = l.pop()` and `(sc.stack(l) + last, len(l))`.
fn library() -> Library {
    let row: Sig = (DType::Float32, vec![3]);
    let list: Sig = (DType::Float32, vec![DYN, 3]);
    let int: Sig = (DType::Int32, vec![]);
    let f = |name: &str, sigs: (Vec<Sig>, Vec<Sig>), nodes: Vec<Node>, outputs: &[u32]| {
        let outputs = outputs.iter().map(|&i| v(i)).collect();
        Function { name: name.into(), params: sigs.0, results: sigs.1, nodes, outputs }
    };
    let mut lib = Library::new();
    lib.add(f(
        "main",
        (vec![row.clone(), int.clone()], vec![list.clone(), int.clone()]),
        vec![
            Node::Op { op: Op::ListNew { shape: vec![3], dtype: DType::Float32 }, inputs: vec![] },
            Node::Const(Tensor::scalar_i32(0)),
            Node::While { cond_fn: FnId(1), body_fn: FnId(2), inputs: vec![v(3), v(2), v(0), v(1)] },
            op(Op::ListLast, &[5]),
            op(Op::ListDrop, &[5]),
            op(Op::ListStack { axis: 0 }, &[9]),
            op(Op::Add, &[10, 8]),
            op(Op::ListLen, &[9]),
        ],
        &[11, 12],
    ));
    let vars = vec![int.clone(), list.clone(), row.clone(), int.clone()];
    lib.add(f("cond", (vars.clone(), vec![(DType::Bool, vec![])]), vec![op(Op::Lt, &[0, 3])], &[4]));
    lib.add(f(
        "body",
        (vars.clone(), vars),
        vec![
            op(Op::Cast { dtype: DType::Float32 }, &[0]),
            op(Op::Mul, &[2, 4]),
            op(Op::ListPush, &[1, 5]),
            Node::Const(Tensor::scalar_i32(1)),
            op(Op::Add, &[0, 7]),
        ],
        &[8, 6, 2, 3],
    ));
    lib
}

#[test]
fn a_list_grown_in_a_loop_runs_on_the_gpu_as_on_the_cpu() {
    let Some(gpu) = common::gpu() else { return };
    let lib = library();
    let x = Tensor::from_f32(vec![1.0, -2.0, 0.5], &[3]).unwrap();
    for n in [2, 3, 5] {
        let args = [x.clone(), Tensor::scalar_i32(n)];
        let cpu = Executor::new(&lib).expect("valid").run(FnId(0), &args).expect("runs on the CPU");
        let exec = Executor::new(&lib).expect("valid").on(GpuDevice::new(gpu));
        let out = exec.run(FnId(0), &args).expect("runs on the GPU");
        assert!(exec.device().mismatches().is_empty(), "{:?}", exec.device().mismatches());
        assert_eq!(out[0].shape(), &[n as usize - 1, 3]);
        assert!(out[0].bit_eq(&cpu[0]) && out[1].bit_eq(&cpu[1]), "n = {n}: GPU {} {}, CPU {} {}", out[0], out[1], cpu[0], cpu[1]);
        assert!(out[1].bit_eq(&Tensor::scalar_i32(n - 1)));
    }
    let exec = Executor::new(&lib).expect("valid").on(GpuDevice::new(gpu));
    let err = exec.run(FnId(0), &[x, Tensor::scalar_i32(0)]).unwrap_err();
    assert_eq!((err.kind, err.message.as_str()), (ErrorKind::Index, "pop from empty list"));
}
