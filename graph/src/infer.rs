//! Output dtype and shape of an op from its inputs' dtypes and shapes, without
//! computing: used when tracing symbolic tensors, by `validate`, and by `eval`
//! itself before it computes, so the two cannot disagree on what is an error
//! (only value-dependent errors, integer division by zero and negative integer
//! powers, are left to `eval`).
//!
//! Dtype rules (TensorFlow's): binary ops and `Where`'s branches need one
//! dtype ("cannot compute Add: int32 and float32 tensors"); arithmetic,
//! ordering comparisons and reductions refuse bool; `Exp`/`Log`/`Sqrt`/`Tanh`/
//! `Sigmoid` need floats; bitwise ops need bools or ints; `Div` of ints gives
//! `float64`; comparisons give `bool`; `ArgMax` gives `int64`.

use crate::dtype::DType;
use crate::error::OpError;
use crate::kernels::generate::range_len;
use crate::kernels::index::IndexPlan;
use crate::kernels::layout::{concat_shape, reshape_shape, same_dtype, stack_shape, transpose_perm};
use crate::kernels::matmul::matmul_shape;
use crate::kernels::reduce::{argmax_shape, reduced_axes, reduced_shape};
use crate::op::Op;
use crate::shape::{broadcast_shapes, check_num_elements, fmt_shape};

/// The dtype and shape `eval(op, inputs)` returns for inputs of these dtypes
/// and shapes, or the error it raises (value-dependent errors aside).
///
/// A list op types its list input's [`crate::op::DYN`] length itself; any
/// other op with a `DYN` dimension among its inputs is typed by probing
/// (`list.rs`).
pub fn infer(op: &Op, inputs: &[(DType, Vec<usize>)]) -> Result<(DType, Vec<usize>), OpError> {
    if !op.is_list_op() && inputs.iter().any(|(_, s)| crate::list::has_dyn(s)) {
        return crate::list::infer_probed(op, inputs);
    }
    let sigs: Vec<(DType, &[usize])> = inputs.iter().map(|(d, s)| (*d, s.as_slice())).collect();
    infer_sig(op, &sigs)
}

/// Which dtypes an op accepts, for messages and checks.
#[derive(Clone, Copy)]
enum Accepts {
    Numbers,
    Floats,
    Bools,
    Ints,
    BitTypes,
    Any,
}

fn require(op: &Op, d: DType, accepts: Accepts) -> Result<(), OpError> {
    let (ok, expected) = match accepts {
        Accepts::Numbers => (d.is_numeric(), "int32, int64, float32 or float64"),
        Accepts::Floats => (d.is_float(), "float32 or float64"),
        Accepts::Bools => (d.is_bool(), "bool"),
        Accepts::Ints => (d.is_int(), "int32 or int64"),
        Accepts::BitTypes => (!d.is_float(), "bool, int32 or int64"),
        Accepts::Any => (true, ""),
    };
    if ok {
        Ok(())
    } else {
        Err(OpError::invalid(format!("cannot compute {} on {d} tensors (expected {expected})", op.name())))
    }
}

fn check_arity(op: &Op, n: usize) -> Result<(), OpError> {
    match op.arity() {
        Some(k) if k != n => Err(OpError::invalid(format!("{} expects {k} input{}, got {n}", op.name(), if k == 1 { "" } else { "s" }))),
        None if n == 0 => Err(OpError::invalid(format!("{} expects at least one input, got 0", op.name()))),
        _ => Ok(()),
    }
}

/// `infer` on borrowed shapes (what `eval` has at hand).
pub(crate) fn infer_sig(op: &Op, inputs: &[(DType, &[usize])]) -> Result<(DType, Vec<usize>), OpError> {
    use Op::*;
    check_arity(op, inputs.len())?;
    let unary = |accepts: Accepts| -> Result<(DType, Vec<usize>), OpError> {
        let (d, s) = inputs[0];
        require(op, d, accepts)?;
        Ok((d, s.to_vec()))
    };
    let binary = |accepts: Accepts| -> Result<(DType, Vec<usize>), OpError> {
        let ((da, sa), (db, sb)) = (inputs[0], inputs[1]);
        let d = same_dtype(op.name(), &[da, db])?;
        require(op, d, accepts)?;
        Ok((d, broadcast_shapes(sa, sb)?))
    };
    match op {
        ListNew { .. } | ListPush | ListLast | ListDrop | ListLen | ListStack { .. } => crate::list::infer_list(op, inputs),
        Neg | Abs | Relu => unary(Accepts::Numbers),
        Exp | Log | Sqrt | Tanh | Sigmoid => unary(Accepts::Floats),
        LogicalNot => unary(Accepts::Bools),
        Invert => unary(Accepts::Ints),
        Identity => unary(Accepts::Any),
        Add | Sub | Mul | FloorDiv | Mod | Pow | Maximum | Minimum => binary(Accepts::Numbers),
        Div => binary(Accepts::Numbers).map(|(d, s)| (if d.is_int() { DType::Float64 } else { d }, s)),
        Eq | Ne => binary(Accepts::Any).map(|(_, s)| (DType::Bool, s)),
        Lt | Le | Gt | Ge => binary(Accepts::Numbers).map(|(_, s)| (DType::Bool, s)),
        BitAnd | BitOr | BitXor => binary(Accepts::BitTypes),
        MatMul => {
            let ((da, sa), (db, sb)) = (inputs[0], inputs[1]);
            let d = same_dtype(op.name(), &[da, db])?;
            require(op, d, Accepts::Numbers)?;
            Ok((d, matmul_shape(sa, sb)?))
        }
        ReduceSum { axis, keepdims } | ReduceMax { axis, keepdims } | ReduceMin { axis, keepdims } | ReduceMean { axis, keepdims } => {
            let (d, s) = inputs[0];
            require(op, d, Accepts::Numbers)?;
            let mask = reduced_axes(axis, s.len(), op.name())?;
            let (out, count) = reduced_shape(s, &mask, *keepdims);
            if count == 0 {
                match op {
                    ReduceMax { .. } | ReduceMin { .. } => {
                        return Err(OpError::invalid(format!("cannot compute {} of an empty axis: shape {}", op.name(), fmt_shape(s))));
                    }
                    ReduceMean { .. } if d.is_int() => return Err(OpError::zero_division()),
                    _ => {}
                }
            }
            Ok((d, out))
        }
        ArgMax { axis } => {
            let (_, s) = inputs[0];
            let (_, out) = argmax_shape(s, *axis)?;
            Ok((DType::Int64, out))
        }
        Where => {
            let ((dc, sc), (dx, sx), (dy, sy)) = (inputs[0], inputs[1], inputs[2]);
            if dc != DType::Bool {
                return Err(OpError::invalid(format!("Where: condition must be a bool tensor, got {dc}")));
            }
            let d = same_dtype(op.name(), &[dx, dy])?;
            Ok((d, broadcast_shapes(&broadcast_shapes(sc, sx)?, sy)?))
        }
        Gather => {
            let ((dp, sp), (di, si)) = (inputs[0], inputs[1]);
            require(op, di, Accepts::Ints)?;
            if !si.is_empty() {
                return Err(OpError::invalid(format!("GatherV2: the index must be a scalar, got shape {}", fmt_shape(si))));
            }
            match sp.split_first() {
                Some((_, rest)) => Ok((dp, rest.to_vec())),
                None => Err(OpError::invalid("GatherV2: cannot index a scalar")),
            }
        }
        RangeCheck => {
            let dtypes: Vec<DType> = inputs.iter().map(|(d, _)| *d).collect();
            let d = same_dtype(op.name(), &dtypes)?;
            require(op, d, Accepts::Numbers)?;
            if inputs.iter().any(|(_, s)| !s.is_empty()) {
                return Err(OpError::invalid("Range: start, limit and delta must be scalars"));
            }
            Ok((d, vec![]))
        }
        Cast { dtype } => Ok((*dtype, inputs[0].1.to_vec())),
        Reshape { shape } => {
            let (d, s) = inputs[0];
            Ok((d, reshape_shape(shape, s.iter().product())?))
        }
        Transpose { perm } => {
            let (d, s) = inputs[0];
            let perm = transpose_perm(perm, s.len())?;
            Ok((d, perm.iter().map(|&p| s[p]).collect()))
        }
        Concat { axis } | Stack { axis } => {
            let dtypes: Vec<DType> = inputs.iter().map(|(d, _)| *d).collect();
            let d = same_dtype(op.name(), &dtypes)?;
            let shapes: Vec<&[usize]> = inputs.iter().map(|(_, s)| *s).collect();
            let (_, out) = if matches!(op, Concat { .. }) { concat_shape(&shapes, *axis)? } else { stack_shape(&shapes, *axis)? };
            Ok((d, out))
        }
        Index { items } => Ok((inputs[0].0, IndexPlan::new(items, inputs[0].1)?.out_shape)),
        Fill { shape, dtype, .. } => {
            check_num_elements(shape)?;
            Ok((*dtype, shape.clone()))
        }
        Range { start, limit, delta, dtype } => Ok((*dtype, vec![range_len(*start, *limit, *delta, *dtype)?])),
        Eye { n, dtype } => {
            check_num_elements(&[*n, *n])?;
            Ok((*dtype, vec![*n, *n]))
        }
    }
}
