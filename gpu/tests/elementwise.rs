//! Elementwise ops, GPU against graph::eval on random shapes (broadcasting
//! both ways, rank differences, size-1 dims, scalars, empty tensors, and
//! shapes that do not broadcast) and random values including the edge
//! values (NaN, ±inf, ±0, subnormals, i32::MIN/MAX).

mod common;
use common::{assert_same, broadcast_partner, config, pair, same, shape, tensor, SMALL};
use graph::{DType, Op, Tensor};
use proptest::prelude::*;

const UNARY: [Op; 10] = [Op::Neg, Op::Abs, Op::Exp, Op::Log, Op::Sqrt, Op::Tanh, Op::Sigmoid, Op::Relu, Op::LogicalNot, Op::Invert];
const BINARY: [Op; 18] = [
    Op::Add,
    Op::Sub,
    Op::Mul,
    Op::Div,
    Op::FloorDiv,
    Op::Mod,
    Op::Pow,
    Op::Maximum,
    Op::Minimum,
    Op::Eq,
    Op::Ne,
    Op::Lt,
    Op::Le,
    Op::Gt,
    Op::Ge,
    Op::BitAnd,
    Op::BitOr,
    Op::BitXor,
];

proptest! {
    #![proptest_config(config(40))]

    #[test]
    fn unary(x in prop::sample::select(SMALL.to_vec()).prop_flat_map(|d| shape().prop_flat_map(move |s| tensor(d, s)))) {
        let Some(gpu) = common::gpu() else { return Ok(()) };
        for op in &UNARY {
            same(gpu, op, std::slice::from_ref(&x)).map_err(TestCaseError::fail)?;
        }
    }

    #[test]
    fn binary((a, b) in prop::sample::select(SMALL.to_vec()).prop_flat_map(pair)) {
        let Some(gpu) = common::gpu() else { return Ok(()) };
        for op in &BINARY {
            same(gpu, op, &[a.clone(), b.clone()]).map_err(TestCaseError::fail)?;
        }
    }

    #[test]
    fn where_(
        d in prop::sample::select(SMALL.to_vec()),
        (c, x, y) in shape()
            .prop_flat_map(|s| (broadcast_partner(s.clone()), broadcast_partner(s.clone()), Just(s), 0..3usize))
            .prop_flat_map(|(p, q, s, turn)| {
                // The full shape in any of the three places, partners elsewhere.
                let mut shapes = [s, p, q];
                shapes.rotate_left(turn);
                let [a, b, c] = shapes;
                (tensor(DType::Bool, a), tensor(DType::Int32, b), tensor(DType::Int32, c))
            }),
    ) {
        let Some(gpu) = common::gpu() else { return Ok(()) };
        let cast = |t: &Tensor| graph::eval(&Op::Cast { dtype: d }, &[t]).unwrap();
        same(gpu, &Op::Where, &[c.clone(), cast(&x), cast(&y)]).map_err(TestCaseError::fail)?;
    }

    #[test]
    fn cast(to in prop::sample::select(graph::DType::ALL.to_vec()), x in prop::sample::select(SMALL.to_vec()).prop_flat_map(|d| shape().prop_flat_map(move |s| tensor(d, s)))) {
        let Some(gpu) = common::gpu() else { return Ok(()) };
        same(gpu, &Op::Cast { dtype: to }, &[x]).map_err(TestCaseError::fail)?;
    }
}

/// Broadcasts that share rank-broadcast and size-1 dims, explicitly.
#[test]
fn broadcasting_edges() {
    let Some(gpu) = common::gpu() else { return };
    let t = |s: &[usize]| Tensor::from_f32((0..s.iter().product::<usize>()).map(|i| i as f32 - 3.5).collect(), s).unwrap();
    for (a, b) in [
        (vec![], vec![2, 3]),
        (vec![3, 1], vec![1, 4]),
        (vec![2, 1, 3], vec![4, 1]),
        (vec![1], vec![0, 3]),
        (vec![0], vec![]),
        (vec![2, 3], vec![3, 2]),
    ] {
        for op in [Op::Add, Op::Sub, Op::Lt, Op::Maximum] {
            assert_same(gpu, &op, &[t(&a), t(&b)]);
            assert_same(gpu, &op, &[t(&b), t(&a)]);
        }
    }
}

/// Value-dependent errors: int division and modulo by zero, negative int powers.
#[test]
fn value_errors() {
    let Some(gpu) = common::gpu() else { return };
    let x = Tensor::from_i32(vec![7, -7, i32::MIN, 3], &[2, 2]).unwrap();
    for divisor in [vec![2, 0], vec![-1, 3], vec![0, 0]] {
        let y = Tensor::from_i32(divisor, &[2]).unwrap();
        for op in [Op::FloorDiv, Op::Mod, Op::Pow] {
            assert_same(gpu, &op, &[x.clone(), y.clone()]);
        }
    }
    let negative = Tensor::from_i32(vec![2, -1], &[2]).unwrap();
    assert_same(gpu, &Op::Pow, &[x.clone(), negative]);
    // A zero divisor broadcast away from an empty result is no error.
    let empty = Tensor::from_i32(vec![], &[0, 2]).unwrap();
    assert_same(gpu, &Op::FloorDiv, &[empty, Tensor::from_i32(vec![0, 1], &[2]).unwrap()]);
}

/// int64/float64 arithmetic is placed on the CPU and still computes through `eval`.
#[test]
fn wide_dtypes_on_the_cpu() {
    let Some(gpu) = common::gpu() else { return };
    assert!(!gpu.placed_on_gpu(&Op::Add, &[DType::Int64, DType::Int64]));
    assert!(!gpu.placed_on_gpu(&Op::Div, &[DType::Int32, DType::Int32]));
    assert!(gpu.placed_on_gpu(&Op::Add, &[DType::Float32, DType::Float32]));
    let a = Tensor::from_i64(vec![i64::MAX, 3], &[2]).unwrap();
    assert_same(gpu, &Op::Add, &[a.clone(), a.clone()]);
    let i = Tensor::from_i32(vec![7, -7], &[2]).unwrap();
    assert_same(gpu, &Op::Div, &[i.clone(), Tensor::from_i32(vec![2, 0], &[2]).unwrap()]);
}

/// Dispatches are recorded and submitted in batches (at a read, or every
/// few hundred): a chain of dependent ops longer than a batch, with reads
/// of an error flag in between, still runs in order, and an op that fails
/// mid-chain fails there, leaving what was recorded before it intact.
#[test]
fn long_chains_run_in_order_across_submissions() {
    let Some(gpu) = common::gpu() else { return };
    let one = gpu.upload(&Tensor::from_i32(vec![1; 100], &[100]).unwrap()).unwrap();
    let mut x = gpu.upload(&Tensor::from_i32(vec![0; 100], &[100]).unwrap()).unwrap();
    for step in 1..=700 {
        x = gpu.eval(&Op::Add, &[&x, &one]).unwrap();
        if step % 97 == 0 {
            // Int floor division reads its error flag back: a submission.
            let same = gpu.eval(&Op::FloorDiv, &[&x, &one]).unwrap();
            assert_eq!(gpu.download(&same).unwrap(), Tensor::from_i32(vec![step; 100], &[100]).unwrap());
        }
    }
    let zero = gpu.upload(&Tensor::from_i32(vec![0; 100], &[100]).unwrap()).unwrap();
    let failed = gpu.eval(&Op::Mod, &[&x, &zero]).unwrap_err();
    assert_eq!(failed, graph::OpError::zero_division());
    assert_eq!(gpu.download(&x).unwrap(), Tensor::from_i32(vec![700; 100], &[100]).unwrap());
}
