//! Lists on the GPU device (graph's `list.rs`): a graph that grows a list
//! of rows in a loop, pops one and stacks the rest runs on `GpuDevice` as on
//! the CPU (list ops placed on the CPU, the rows' arithmetic on the GPU),
//! and a pop of an empty list raises the same `IndexError` there.

mod common;
use graph::{DType, ErrorKind, Executor, FnId, Function, Library, Node, Op, Sig, Tensor, ValueId, DYN};
use stagecheck_gpu::GpuDevice;

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
