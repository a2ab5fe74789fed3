//! Properties over random ops and inputs: `infer` agrees with `eval` (and
//! they fail together), nothing panics, and an op run inside a one-node graph
//! gives the eager result bit for bit.

use proptest::prelude::*;
use proptest::sample::select;
use stagecheck_graph::{eval, infer, run, DType, ErrorKind, FnId, Function, IndexItem, Library, Node, Op, OpError, Tensor, ValueId};

fn dtype() -> impl Strategy<Value = DType> {
    select(DType::ALL.to_vec())
}

fn dim() -> impl Strategy<Value = usize> {
    prop_oneof![6 => 1usize..4, 1 => Just(0usize)]
}

fn shape() -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(dim(), 0..4)
}

/// `s` with leading dims dropped and some dims set to 1 (broadcasts with `s`).
fn broadcast_variant(s: Vec<usize>) -> impl Strategy<Value = Vec<usize>> {
    let n = s.len();
    (0..=n, prop::collection::vec(any::<bool>(), n))
        .prop_map(move |(drop, ones)| s.iter().zip(ones).skip(drop).map(|(&d, one)| if one { 1 } else { d }).collect())
}

fn related_shape(s: Vec<usize>) -> impl Strategy<Value = Vec<usize>> {
    prop_oneof![3 => Just(s.clone()), 3 => broadcast_variant(s), 1 => shape()]
}

fn int64() -> impl Strategy<Value = i64> {
    prop_oneof![6 => -6i64..7, 1 => Just(i64::MIN), 1 => Just(i64::MAX), 1 => any::<i64>()]
}

fn int32() -> impl Strategy<Value = i32> {
    prop_oneof![6 => -6i32..7, 1 => Just(i32::MIN), 1 => Just(i32::MAX), 1 => any::<i32>()]
}

fn float64() -> impl Strategy<Value = f64> {
    prop_oneof![
        8 => (-24i32..25).prop_map(|x| f64::from(x) / 4.0),
        1 => Just(f64::NAN),
        1 => Just(f64::INFINITY),
        1 => Just(f64::NEG_INFINITY),
        1 => Just(-0.0),
        2 => any::<f64>(),
    ]
}

fn tensor(d: DType, shape: Vec<usize>) -> BoxedStrategy<Tensor> {
    let n: usize = shape.iter().product();
    use prop::collection::vec;
    match d {
        DType::Bool => vec(any::<bool>(), n).prop_map(move |v| Tensor::from_bool(v, &shape).unwrap()).boxed(),
        DType::Int32 => vec(int32(), n).prop_map(move |v| Tensor::from_i32(v, &shape).unwrap()).boxed(),
        DType::Int64 => vec(int64(), n).prop_map(move |v| Tensor::from_i64(v, &shape).unwrap()).boxed(),
        DType::Float32 => {
            vec(float64(), n).prop_map(move |v| Tensor::from_f32(v.into_iter().map(|x| x as f32).collect(), &shape).unwrap()).boxed()
        }
        DType::Float64 => vec(float64(), n).prop_map(move |v| Tensor::from_f64(v, &shape).unwrap()).boxed(),
    }
}

fn axes() -> impl Strategy<Value = Option<Vec<i64>>> {
    prop::option::weighted(0.8, prop::collection::vec(-4i64..4, 0..3))
}

fn index_item() -> impl Strategy<Value = IndexItem> {
    let bound = || prop::option::of(-5i64..6);
    prop_oneof![
        3 => (-4i64..4).prop_map(IndexItem::At),
        4 => (bound(), bound(), prop::option::of(prop_oneof![-3i64..4, Just(i64::MIN), Just(i64::MAX)]))
            .prop_map(|(start, stop, step)| IndexItem::Slice { start, stop, step }),
        1 => Just(IndexItem::NewAxis),
        1 => Just(IndexItem::Ellipsis),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    use Op::*;
    let plain = select(vec![
        Neg, Abs, Exp, Log, Sqrt, Tanh, Sigmoid, Relu, LogicalNot, Invert, Add, Sub, Mul, Div, FloorDiv, Mod, Pow, Maximum, Minimum, Eq,
        Ne, Lt, Le, Gt, Ge, BitAnd, BitOr, BitXor, MatMul, Where, Identity,
    ]);
    let reduce = (0..4, axes(), any::<bool>()).prop_map(|(k, axis, keepdims)| match k {
        0 => ReduceSum { axis, keepdims },
        1 => ReduceMax { axis, keepdims },
        2 => ReduceMin { axis, keepdims },
        _ => ReduceMean { axis, keepdims },
    });
    let small = || prop_oneof![(-8i32..9).prop_map(f64::from), float64()];
    prop_oneof![
        12 => plain,
        4 => reduce,
        1 => (-4i64..4).prop_map(|axis| ArgMax { axis }),
        2 => dtype().prop_map(|dtype| Cast { dtype }),
        2 => prop::collection::vec(prop_oneof![Just(-1i64), 0i64..7], 0..4).prop_map(|shape| Reshape { shape }),
        2 => prop::option::of(prop::collection::vec(0usize..4, 0..4)).prop_map(|perm| Transpose { perm }),
        2 => (-4i64..4).prop_map(|axis| Concat { axis }),
        2 => (-4i64..4).prop_map(|axis| Stack { axis }),
        3 => prop::collection::vec(index_item(), 0..4).prop_map(|items| Index { items }),
        1 => (prop::collection::vec(0usize..4, 0..3), dtype(), small()).prop_map(|(shape, dtype, value)| Fill { shape, dtype, value }),
        1 => (small(), small(), small(), dtype()).prop_map(|(start, limit, delta, dtype)| Range { start, limit, delta, dtype }),
        1 => (0usize..4, dtype()).prop_map(|(n, dtype)| Eye { n, dtype }),
    ]
}

/// Input signatures for `op`: the right count, mostly one dtype, shapes that
/// mostly broadcast (a bool condition for `Where`, matching inner dims for `MatMul`).
fn sigs(op: &Op) -> BoxedStrategy<Vec<(DType, Vec<usize>)>> {
    let count = match op.arity() {
        Some(k) => Just(k).boxed(),
        None => (1usize..4).boxed(),
    };
    if matches!(op, Op::MatMul) {
        let dims = (prop::collection::vec(dim(), 0..2), dim(), dim(), dim(), dtype(), any::<bool>());
        return dims
            .prop_map(|(batch, m, k, n, d, skew)| {
                let a = [batch.clone(), vec![m, k]].concat();
                let b = [batch, vec![if skew { k + 1 } else { k }, n]].concat();
                vec![(d, a), (d, b)]
            })
            .boxed();
    }
    let is_where = matches!(op, Op::Where);
    (count, dtype(), shape())
        .prop_flat_map(move |(k, d, s)| {
            let others = prop::collection::vec((prop::bool::weighted(0.85), dtype(), related_shape(s.clone())), k);
            (Just((d, s)), others, prop::bool::weighted(0.9))
        })
        .prop_map(move |((d, s), others, bool_cond)| {
            let mut out: Vec<(DType, Vec<usize>)> = others
                .into_iter()
                .enumerate()
                .map(|(i, (same, other, shape))| (if same { d } else { other }, if i == 0 { s.clone() } else { shape }))
                .collect();
            if is_where && bool_cond {
                out[0].0 = DType::Bool;
            }
            out
        })
        .boxed()
}

fn case() -> impl Strategy<Value = (Op, Vec<Tensor>)> {
    op().prop_flat_map(|op| {
        let inputs = sigs(&op).prop_flat_map(|sigs| sigs.into_iter().map(|(d, s)| tensor(d, s)).collect::<Vec<_>>());
        (Just(op), inputs)
    })
}

/// The errors `infer` cannot foresee, because they depend on values.
fn value_dependent(e: &OpError) -> bool {
    e.kind == ErrorKind::ZeroDivision || e.message == "Integers to negative integer powers are not allowed"
}

/// A library whose function 0 applies `op` to its parameters (or to constants).
fn one_node(op: &Op, inputs: &[Tensor], out: &Tensor, as_consts: bool) -> Library {
    let sig = |t: &Tensor| (t.dtype(), t.shape().to_vec());
    let n = inputs.len() as u32;
    let (params, mut nodes) = if as_consts {
        (vec![], inputs.iter().map(|t| Node::Const(t.clone())).collect())
    } else {
        (inputs.iter().map(sig).collect(), vec![])
    };
    nodes.push(Node::Op { op: op.clone(), inputs: (0..n).map(ValueId).collect() });
    let mut lib = Library::new();
    lib.add(Function { name: "f".into(), params, results: vec![sig(out)], nodes, outputs: vec![ValueId(n)] });
    lib
}

fn eager_placeholder() -> Tensor {
    Tensor::scalar_bool(false)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn infer_agrees_with_eval((op, inputs) in case()) {
        let sigs: Vec<(DType, Vec<usize>)> = inputs.iter().map(|t| (t.dtype(), t.shape().to_vec())).collect();
        let refs: Vec<&Tensor> = inputs.iter().collect();
        match (infer(&op, &sigs), eval(&op, &refs)) {
            (Ok(sig), Ok(t)) => prop_assert_eq!(sig, (t.dtype(), t.shape().to_vec())),
            (Err(a), Err(b)) => prop_assert_eq!(a, b),
            (Ok(_), Err(e)) => prop_assert!(value_dependent(&e), "eval alone failed: {}", e),
            (Err(e), Ok(t)) => prop_assert!(false, "infer failed ({}) but eval gave {}", e, t),
        }
    }

    #[test]
    fn a_one_node_graph_computes_the_eager_bits((op, inputs) in case()) {
        let refs: Vec<&Tensor> = inputs.iter().collect();
        match eval(&op, &refs) {
            Ok(eager) => {
                for as_consts in [false, true] {
                    let lib = one_node(&op, &inputs, &eager, as_consts);
                    let args: &[Tensor] = if as_consts { &[] } else { &inputs };
                    let staged = run(&lib, FnId(0), args).map_err(|e| TestCaseError::fail(e.to_string()))?;
                    prop_assert_eq!(staged.len(), 1);
                    prop_assert!(staged[0].bit_eq(&eager), "{:?}: staged {} vs eager {}", op, staged[0], eager);
                }
            }
            Err(e) if value_dependent(&e) => {
                // A value-dependent error: the graph (typed by infer) fails alike.
                let sigs: Vec<_> = inputs.iter().map(|t| (t.dtype(), t.shape().to_vec())).collect();
                if let Ok(sig) = infer(&op, &sigs) {
                    let mut lib = one_node(&op, &inputs, &eager_placeholder(), false);
                    lib.functions[0].results = vec![sig];
                    prop_assert_eq!(run(&lib, FnId(0), &inputs).unwrap_err(), e);
                }
            }
            Err(_) => {}
        }
    }

    #[test]
    fn one_node_libraries_round_trip_through_json((op, inputs) in case()) {
        let refs: Vec<&Tensor> = inputs.iter().collect();
        if let Ok(out) = eval(&op, &refs) {
            let lib = one_node(&op, &inputs, &out, true);
            let json = serde_json::to_string(&lib).unwrap();
            let back: Library = serde_json::from_str(&json).unwrap();
            prop_assert_eq!(serde_json::to_string(&back).unwrap(), json);
            prop_assert_eq!(back.to_string(), lib.to_string());
        }
    }
}
