//! Random (mostly ill-formed) libraries: `validate`, printing and JSON never
//! panic, and a library that validates runs without panicking (loops are left
//! out of the run, as a random loop need not terminate).

use proptest::prelude::*;
use proptest::sample::select;
use stagecheck_graph::{eval, run, validate, DType, FnId, Function, Library, Node, Op, Tensor, ValueId};

fn sig() -> impl Strategy<Value = (DType, Vec<usize>)> {
    (select(DType::ALL.to_vec()), prop::collection::vec(0usize..3, 0..3))
}

fn node() -> impl Strategy<Value = Node> {
    let id = || (0u32..6).prop_map(ValueId);
    let ids = || prop::collection::vec((0u32..6).prop_map(ValueId), 0..3);
    let fid = || (0u32..4).prop_map(FnId);
    let ops = select(vec![
        Op::Add,
        Op::Neg,
        Op::Lt,
        Op::Identity,
        Op::Cast { dtype: DType::Bool },
        Op::ReduceSum { axis: None, keepdims: false },
    ]);
    prop_oneof![
        2 => prop_oneof![
            Just(Tensor::scalar_bool(true)),
            Just(Tensor::scalar_i32(1)),
            Just(Tensor::scalar_f32(0.5)),
            Just(Tensor::from_f32(vec![1.0, 2.0], &[2]).unwrap()),
        ].prop_map(Node::Const),
        3 => (ops, ids()).prop_map(|(op, inputs)| Node::Op { op, inputs }),
        1 => (id(), fid(), fid(), ids()).prop_map(|(pred, then_fn, else_fn, inputs)| Node::Cond { pred, then_fn, else_fn, inputs }),
        1 => (fid(), fid(), ids()).prop_map(|(cond_fn, body_fn, inputs)| Node::While { cond_fn, body_fn, inputs }),
        1 => (fid(), ids()).prop_map(|(callee, inputs)| Node::Call { callee, inputs }),
    ]
}

fn function() -> impl Strategy<Value = Function> {
    (
        prop::collection::vec(sig(), 0..3),
        prop::collection::vec(sig(), 0..2),
        prop::collection::vec(node(), 0..5),
        prop::collection::vec((0u32..7).prop_map(ValueId), 0..2),
        select(vec!["f", "g", "h"]),
    )
        .prop_map(|(params, results, nodes, outputs, name)| Function { name: name.into(), params, results, nodes, outputs })
}

fn zeros((d, shape): &(DType, Vec<usize>)) -> Tensor {
    eval(&Op::Fill { shape: shape.clone(), dtype: *d, value: 0.0 }, &[]).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn random_libraries_never_panic(functions in prop::collection::vec(function(), 1..4)) {
        let lib = Library { functions };
        let text = lib.to_string();
        let json = serde_json::to_string(&lib).unwrap();
        let back: Library = serde_json::from_str(&json).unwrap();
        prop_assert_eq!(back.to_string(), text);
        let loops = lib.functions.iter().flat_map(|f| &f.nodes).any(|n| matches!(n, Node::While { .. }));
        if validate(&lib).is_ok() && !loops {
            let args: Vec<Tensor> = lib.functions[0].params.iter().map(zeros).collect();
            let _ = run(&lib, FnId(0), &args);
        }
    }
}
