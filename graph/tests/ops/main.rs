//! Op semantics against hand-computed results (NumPy/TF/Python rules).

mod cast;
mod dtype_rules;
mod elementwise;
mod fast_paths;
mod generate;
mod index;
mod layout;
mod matmul;
mod reduce;

use stagecheck_graph::{eval, ErrorKind, Op, OpError, Tensor};

pub fn i32s(v: &[i32], shape: &[usize]) -> Tensor {
    Tensor::from_i32(v.to_vec(), shape).unwrap()
}

pub fn i64s(v: &[i64], shape: &[usize]) -> Tensor {
    Tensor::from_i64(v.to_vec(), shape).unwrap()
}

pub fn f32s(v: &[f32], shape: &[usize]) -> Tensor {
    Tensor::from_f32(v.to_vec(), shape).unwrap()
}

pub fn f64s(v: &[f64], shape: &[usize]) -> Tensor {
    Tensor::from_f64(v.to_vec(), shape).unwrap()
}

pub fn bools(v: &[bool], shape: &[usize]) -> Tensor {
    Tensor::from_bool(v.to_vec(), shape).unwrap()
}

/// `eval`, which must succeed.
pub fn ev(op: Op, inputs: &[&Tensor]) -> Tensor {
    eval(&op, inputs).unwrap_or_else(|e| panic!("{op:?} failed: {e}"))
}

/// `eval`, which must fail with `kind`; returns the message.
pub fn fails(op: Op, inputs: &[&Tensor], kind: ErrorKind) -> String {
    match eval(&op, inputs) {
        Ok(t) => panic!("{op:?} should fail, gave {t}"),
        Err(OpError { kind: k, message }) => {
            assert_eq!(k, kind, "{op:?}: {message}");
            message
        }
    }
}

/// Asserts bit equality, printing both on failure.
#[track_caller]
pub fn same(got: &Tensor, want: &Tensor) {
    assert!(got.bit_eq(want), "got {got} ({} {:?}), want {want} ({} {:?})", got.dtype(), got.shape(), want.dtype(), want.shape());
}
