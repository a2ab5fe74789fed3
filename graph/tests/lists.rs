//! Lists in graphs (`list.rs`): a list is a tensor whose leading dimension,
//! its length, is `DYN` in signatures. A list grown in a loop and stacked,
//! pops and their empty-list error, `validate` holding a list to one
//! element type, `infer` typing other ops on a length known only at
//! execution by probing (and refusing what depends on it), the printed IR.

use stagecheck_graph::{infer, validate, DType, ErrorKind, Executor, FnId, Function, Library, Node, Op, Sig, Tensor, ValueId, DYN};

fn v(i: u32) -> ValueId {
    ValueId(i)
}

fn op(op: Op, ins: &[u32]) -> Node {
    Node::Op { op, inputs: ins.iter().map(|&i| v(i)).collect() }
}

fn func(name: &str, params: Vec<Sig>, results: Vec<Sig>, nodes: Vec<Node>, outputs: &[u32]) -> Function {
    Function { name: name.into(), params, results, nodes, outputs: outputs.iter().map(|&i| v(i)).collect() }
}

fn i32s() -> Sig {
    (DType::Int32, vec![])
}

fn rows() -> Sig {
    (DType::Float32, vec![DYN, 2])
}

/// `main(n)`: `l = []; i = 0; while i < n: l.append([i, i]); i += 1`,
/// then `(sc.stack(l), len(l))`. `row` makes the appended element.
fn grown(row: Node) -> Library {
    let mut lib = Library::new();
    lib.add(func(
        "main",
        vec![i32s()],
        vec![(DType::Float32, vec![DYN, 2]), i32s()],
        vec![
            Node::Op { op: Op::ListNew { shape: vec![2], dtype: DType::Float32 }, inputs: vec![] },
            Node::Const(Tensor::scalar_i32(0)),
            Node::While { cond_fn: FnId(1), body_fn: FnId(2), inputs: vec![v(2), v(1), v(0)] },
            op(Op::ListStack { axis: 0 }, &[4]),
            op(Op::ListLen, &[4]),
        ],
        &[6, 7],
    ));
    lib.add(func("cond", vec![i32s(), rows(), i32s()], vec![(DType::Bool, vec![])], vec![op(Op::Lt, &[0, 2])], &[3]));
    lib.add(func(
        "body",
        vec![i32s(), rows(), i32s()],
        vec![i32s(), rows(), i32s()],
        vec![
            op(Op::Cast { dtype: DType::Float32 }, &[0]),
            row,
            op(Op::ListPush, &[1, 4]),
            Node::Const(Tensor::scalar_i32(1)),
            op(Op::Add, &[0, 6]),
        ],
        &[7, 5, 2],
    ));
    lib
}

fn pair() -> Node {
    op(Op::Stack { axis: 0 }, &[3, 3])
}

#[test]
fn a_list_grown_in_a_loop_stacks_to_its_length_at_execution() {
    let lib = grown(pair());
    validate(&lib).expect("valid");
    let exec = Executor::new(&lib).expect("valid");
    for n in [1, 3, 5] {
        let out = exec.run(FnId(0), &[Tensor::scalar_i32(n)]).expect("runs");
        let want: Vec<f32> = (0..n).flat_map(|i| [i as f32, i as f32]).collect();
        assert_eq!(out[0].shape(), &[n as usize, 2]);
        assert!(out[0].bit_eq(&Tensor::from_f32(want, &[n as usize, 2]).unwrap()), "n = {n}: {}", out[0]);
        assert!(out[1].bit_eq(&Tensor::scalar_i32(n)));
    }
}

#[test]
fn stacking_an_empty_list_fails_as_stacking_no_tensors() {
    let lib = grown(pair());
    let err = Executor::new(&lib).unwrap().run(FnId(0), &[Tensor::scalar_i32(0)]).unwrap_err();
    let stack_none = stagecheck_graph::eval(&Op::Stack { axis: 0 }, &[]).unwrap_err();
    assert_eq!(err, stack_none);
}

/// `main()`: push 1 and 2 to a list of int32 scalars, pop one (its value
/// and the rest), then pop `k` more from the rest.
fn pops(k: usize) -> Library {
    let mut nodes = vec![
        Node::Op { op: Op::ListNew { shape: vec![], dtype: DType::Int32 }, inputs: vec![] },
        Node::Const(Tensor::scalar_i32(1)),
        Node::Const(Tensor::scalar_i32(2)),
        op(Op::ListPush, &[0, 1]),
        op(Op::ListPush, &[3, 2]),
        op(Op::ListLast, &[4]),
        op(Op::ListDrop, &[4]),
    ];
    let mut list = 6;
    for _ in 0..k {
        nodes.push(op(Op::ListDrop, &[list]));
        list = nodes.len() as u32 - 1;
    }
    nodes.push(op(Op::ListLen, &[list]));
    let len = nodes.len() as u32 - 1;
    let mut lib = Library::new();
    lib.add(func("main", vec![], vec![i32s(), i32s()], nodes, &[5, len]));
    lib
}

#[test]
fn pop_gives_the_last_element_and_an_empty_list_raises_index_error() {
    let out = Executor::new(&pops(0)).unwrap().run(FnId(0), &[]).expect("runs");
    assert!(out[0].bit_eq(&Tensor::scalar_i32(2)));
    assert!(out[1].bit_eq(&Tensor::scalar_i32(1)));
    let out = Executor::new(&pops(1)).unwrap().run(FnId(0), &[]).expect("runs");
    assert!(out[1].bit_eq(&Tensor::scalar_i32(0)));
    let err = Executor::new(&pops(2)).unwrap().run(FnId(0), &[]).unwrap_err();
    assert_eq!((err.kind, err.message.as_str()), (ErrorKind::Index, "pop from empty list"));
}

#[test]
fn a_list_holds_one_element_type() {
    // The body appends a float64 [2] row to the float32 list.
    let lib = grown(op(Op::Cast { dtype: DType::Float64 }, &[3]));
    let err = validate(&lib).unwrap_err();
    assert!(err.contains("TensorListPushBack: the list holds float32 [2] elements, not float64 []"), "{err}");
    let err = infer(&Op::ListPush, &[rows(), (DType::Float32, vec![3])]).unwrap_err();
    assert_eq!(err.kind, ErrorKind::InvalidArgument);
    assert!(infer(&Op::ListLen, &[(DType::Int32, vec![])]).is_err(), "a scalar is no list");
}

#[test]
fn ops_on_a_stacked_list_are_typed_by_probing_the_length() {
    let f = |s: Vec<usize>| (DType::Float32, s);
    let ok = |o: Op, ins: Vec<Sig>| infer(&o, &ins).unwrap_or_else(|e| panic!("{o:?}: {e}")).1;
    assert_eq!(ok(Op::Transpose { perm: Some(vec![1, 0]) }, vec![rows()]), vec![2, DYN]);
    assert_eq!(ok(Op::Add, vec![rows(), f(vec![2])]), vec![DYN, 2]);
    assert_eq!(ok(Op::Add, vec![rows(), f(vec![1, 1])]), vec![DYN, 2]);
    assert_eq!(ok(Op::ReduceSum { axis: Some(vec![0]), keepdims: false }, vec![rows()]), vec![2]);
    assert_eq!(ok(Op::MatMul, vec![rows(), f(vec![2, 4])]), vec![DYN, 4]);
    assert_eq!(ok(Op::Reshape { shape: vec![-1, 1, 2] }, vec![rows()]), vec![DYN, 1, 2]);
    let dynamic = |o: Op, ins: Vec<Sig>| {
        let e = infer(&o, &ins).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Dynamic, "{o:?}: {e}");
        assert!(e.message.contains("[?,2]") && e.message.contains("known only at execution"), "{}", e.message);
    };
    // A size that depends on the length, or a length some sizes only allow.
    dynamic(Op::Reshape { shape: vec![-1] }, vec![rows()]);
    dynamic(Op::Add, vec![rows(), f(vec![5, 2])]);
    dynamic(Op::Concat { axis: 0 }, vec![rows(), rows()]);
    // Slices clamp to the length: never typed statically.
    dynamic(Op::Index { items: vec![stagecheck_graph::IndexItem::Slice { start: None, stop: Some(4), step: None }] }, vec![rows()]);
    // An error at every length is the op's own.
    let e = infer(&Op::Add, &[rows(), (DType::Int32, vec![DYN, 2])]).unwrap_err();
    assert_eq!(e.kind, ErrorKind::InvalidArgument);
    assert!(e.message.contains("float32 and int32"), "{}", e.message);
}

#[test]
fn ops_after_a_stacked_list_run_on_the_real_length() {
    // main(n): the grown list stacked, transposed and summed over rows.
    let mut lib = grown(pair());
    let main = &mut lib.functions[0];
    main.nodes.push(op(Op::Transpose { perm: None }, &[6]));
    main.nodes.push(op(Op::ReduceSum { axis: Some(vec![1]), keepdims: false }, &[8]));
    main.results = vec![(DType::Float32, vec![2, DYN]), (DType::Float32, vec![2])];
    main.outputs = vec![v(8), v(9)];
    let out = Executor::new(&lib).expect("valid").run(FnId(0), &[Tensor::scalar_i32(4)]).expect("runs");
    assert_eq!(out[0].shape(), &[2, 4]);
    assert!(out[1].bit_eq(&Tensor::from_f32(vec![6.0, 6.0], &[2]).unwrap()), "{}", out[1]);
}

#[test]
fn list_ops_print_with_their_unknown_length() {
    let text = grown(pair()).to_string();
    for part in
        ["(list_new :dtype float32 :shape [2])", "(list_push x1 x4)", "(x1 float32 [? 2])", "(list_stack x4 :axis 0)", "(list_len x4)"]
    {
        assert!(text.contains(part), "{part} not in\n{text}");
    }
}
