//! `eval`: THE kernel entry point. Eager execution calls it op by op and the
//! graph executor calls it for every `Op` node, so both compute with the same
//! code, element for element. It checks with `infer` first, then dispatches on
//! the inputs' dtypes to the generic kernels in `kernels/`.

use crate::dtype::DType;
use crate::error::OpError;
use crate::infer::infer_sig;
use crate::kernels::cast::cast;
use crate::kernels::elem::Elem;
use crate::kernels::elementwise::{abs, arithmetic, bitwise, compare, float_unary, invert, neg, relu_map, select};
use crate::kernels::generate::{eye, fill, range};
use crate::kernels::index::{gather_row, IndexPlan};
use crate::kernels::layout::{concat, reshape, stack, transpose, transpose_perm};
use crate::kernels::matmul::matmul;
use crate::kernels::reduce::{argmax, argmax_shape, extreme, mean, reduced_axes, sum};
use crate::op::Op;
use crate::shape::same_shape;
use crate::tensor::{with_array, Data, Tensor};

/// Computes `op` on `inputs`. Errors are `InvalidArgument` for what `infer`
/// refuses, `ZeroDivision` for integer `FloorDiv`/`Mod` by zero, and
/// `InvalidArgument` for an integer `Pow` with a negative exponent.
pub fn eval(op: &Op, inputs: &[&Tensor]) -> Result<Tensor, OpError> {
    let sigs: Vec<(DType, &[usize])> = inputs.iter().map(|t| (t.dtype(), t.shape())).collect();
    let (dtype, mut shape) = infer_sig(op, &sigs)?;
    if let Op::ListNew { .. } = op {
        // A new list's length, DYN in its signature, is 0.
        shape[0] = 0;
    }
    if let Some(same) = unchanged(op, inputs) {
        return Ok(same);
    }
    let data = compute(op, inputs, &shape)?;
    if data.dtype() != dtype || !same_shape(data.shape(), &shape) {
        return Err(OpError::unimplemented(format!(
            "internal error: {} computed {} {:?}, inferred {dtype} {shape:?}",
            op.name(),
            data.dtype(),
            data.shape()
        )));
    }
    Ok(Tensor::new(data))
}

/// `eval` for an op whose output dtype and shape are already known (the
/// graph executor's plan, from a validated graph): the same kernels, without
/// checking the inputs again.
pub(crate) fn eval_planned(op: &Op, inputs: &[&Tensor], shape: &[usize]) -> Result<Tensor, OpError> {
    if let Some(same) = unchanged(op, inputs) {
        return Ok(same);
    }
    Ok(Tensor::new(compute(op, inputs, shape)?))
}

/// The input itself, for the ops that return it unchanged (no copy).
fn unchanged(op: &Op, inputs: &[&Tensor]) -> Option<Tensor> {
    match op {
        Op::Identity => Some(inputs[0].clone()),
        Op::Cast { dtype } if *dtype == inputs[0].dtype() => Some(inputs[0].clone()),
        _ => None,
    }
}

fn mismatch(op: &Op) -> OpError {
    OpError::invalid(format!("internal error: {} got inputs of unexpected dtypes", op.name()))
}

/// One number tensor: `$body` with `$a` bound to its array.
macro_rules! numeric1 {
    ($op:expr, $d:expr, $a:ident => $body:expr) => {
        match $d {
            Data::I32($a) => $body,
            Data::I64($a) => $body,
            Data::F32($a) => $body,
            Data::F64($a) => $body,
            Data::Bool(_) => return Err(mismatch($op)),
        }
    };
}

/// Two number tensors of one dtype.
macro_rules! numeric2 {
    ($op:expr, $x:expr, $y:expr, ($a:ident, $b:ident) => $body:expr) => {
        match ($x, $y) {
            (Data::I32($a), Data::I32($b)) => $body,
            (Data::I64($a), Data::I64($b)) => $body,
            (Data::F32($a), Data::F32($b)) => $body,
            (Data::F64($a), Data::F64($b)) => $body,
            _ => return Err(mismatch($op)),
        }
    };
}

/// Two tensors of one (any) dtype.
macro_rules! any2 {
    ($op:expr, $x:expr, $y:expr, ($a:ident, $b:ident) => $body:expr) => {
        match ($x, $y) {
            (Data::Bool($a), Data::Bool($b)) => $body,
            (Data::I32($a), Data::I32($b)) => $body,
            (Data::I64($a), Data::I64($b)) => $body,
            (Data::F32($a), Data::F32($b)) => $body,
            (Data::F64($a), Data::F64($b)) => $body,
            _ => return Err(mismatch($op)),
        }
    };
}

/// The arrays of all inputs, which must share the variant `$v`.
macro_rules! arrays_of {
    ($op:expr, $inputs:expr, $v:ident) => {{
        let arrays: Vec<_> = $inputs
            .iter()
            .filter_map(|t| match t.data() {
                Data::$v(a) => Some(a),
                _ => None,
            })
            .collect();
        if arrays.len() != $inputs.len() {
            return Err(mismatch($op));
        }
        arrays
    }};
}

/// Concat or stack, on the arrays of any one dtype.
macro_rules! join {
    ($op:expr, $inputs:expr, $f:ident, $axis:expr) => {
        match $inputs[0].data() {
            Data::Bool(_) => Data::Bool($f(&arrays_of!($op, $inputs, Bool), $axis)?),
            Data::I32(_) => Data::I32($f(&arrays_of!($op, $inputs, I32), $axis)?),
            Data::I64(_) => Data::I64($f(&arrays_of!($op, $inputs, I64), $axis)?),
            Data::F32(_) => Data::F32($f(&arrays_of!($op, $inputs, F32), $axis)?),
            Data::F64(_) => Data::F64($f(&arrays_of!($op, $inputs, F64), $axis)?),
        }
    };
}

fn compute(op: &Op, inputs: &[&Tensor], shape: &[usize]) -> Result<Data, OpError> {
    use Op::*;
    let x = |i: usize| inputs[i].data();
    if let ([], [a, b]) = (shape, inputs) {
        if let Some(data) = crate::kernels::scalar::binary(op, a.data(), b.data()) {
            return Ok(data);
        }
    }
    Ok(match op {
        Neg => numeric1!(op, x(0), a => neg(a)),
        Abs => numeric1!(op, x(0), a => abs(a)),
        Relu => numeric1!(op, x(0), a => relu_map(a)),
        Exp | Log | Sqrt | Tanh | Sigmoid => match x(0) {
            Data::F32(a) => float_unary(op, a)?,
            Data::F64(a) => float_unary(op, a)?,
            _ => return Err(mismatch(op)),
        },
        LogicalNot => match x(0) {
            Data::Bool(a) => Data::Bool(a.mapv(|b| !b)),
            _ => return Err(mismatch(op)),
        },
        Invert => match x(0) {
            Data::I32(a) => invert(a),
            Data::I64(a) => invert(a),
            _ => return Err(mismatch(op)),
        },
        Add | Sub | Mul | Div | FloorDiv | Mod | Pow | Maximum | Minimum => {
            numeric2!(op, x(0), x(1), (a, b) => arithmetic(op, a, b, shape)?)
        }
        Eq | Ne | Lt | Le | Gt | Ge => any2!(op, x(0), x(1), (a, b) => compare(op, a, b, shape)?),
        BitAnd | BitOr | BitXor => match (x(0), x(1)) {
            (Data::Bool(a), Data::Bool(b)) => bitwise(op, a, b, shape)?,
            (Data::I32(a), Data::I32(b)) => bitwise(op, a, b, shape)?,
            (Data::I64(a), Data::I64(b)) => bitwise(op, a, b, shape)?,
            _ => return Err(mismatch(op)),
        },
        MatMul => numeric2!(op, x(0), x(1), (a, b) => Elem::wrap(matmul(a, b)?)),
        ReduceSum { axis, .. } | ReduceMean { axis, .. } | ReduceMax { axis, .. } | ReduceMin { axis, .. } => {
            let mask = reduced_axes(axis, inputs[0].ndim(), op.name())?;
            match op {
                ReduceSum { .. } => numeric1!(op, x(0), a => Elem::wrap(sum(a, &mask, shape)?)),
                ReduceMean { .. } => numeric1!(op, x(0), a => Elem::wrap(mean(a, &mask, shape)?)),
                _ => {
                    let is_max = matches!(op, ReduceMax { .. });
                    numeric1!(op, x(0), a => Elem::wrap(extreme(a, &mask, shape, is_max)?))
                }
            }
        }
        ArgMax { axis } => {
            let (ax, _) = argmax_shape(inputs[0].shape(), *axis)?;
            Data::I64(with_array!(x(0), a => argmax(a, ax, shape)?))
        }
        Where => match x(0) {
            Data::Bool(c) => any2!(op, x(1), x(2), (a, b) => select(c, a, b, shape)?),
            _ => return Err(mismatch(op)),
        },
        Cast { dtype } => cast(x(0), *dtype),
        Reshape { .. } => with_array!(x(0), a => Elem::wrap(reshape(a, shape)?)),
        Transpose { perm } => {
            let perm = transpose_perm(perm, inputs[0].ndim())?;
            with_array!(x(0), a => Elem::wrap(transpose(a, &perm)))
        }
        Concat { axis } => {
            let ax = crate::shape::normalize_axis(*axis, inputs[0].ndim(), "Concat")?;
            join!(op, inputs, concat, ax)
        }
        Stack { axis } => {
            let ax = crate::shape::normalize_axis(*axis, inputs[0].ndim() + 1, "Stack")?;
            join!(op, inputs, stack, ax)
        }
        Index { items } => {
            let plan = IndexPlan::new(items, inputs[0].shape())?;
            with_array!(x(0), a => Elem::wrap(plan.gather(a)?))
        }
        Gather => {
            let at = match inputs[1].to_scalar() {
                Some(crate::Scalar::I32(i)) => i as i64,
                Some(crate::Scalar::I64(i)) => i,
                _ => return Err(mismatch(op)),
            };
            with_array!(x(0), a => Elem::wrap(gather_row(a, at)?))
        }
        RangeCheck => {
            let f = |i: usize| -> Result<f64, OpError> {
                Ok(match inputs[i].to_scalar() {
                    Some(crate::Scalar::I32(v)) => v as f64,
                    Some(crate::Scalar::I64(v)) => v as f64,
                    Some(crate::Scalar::F32(v)) => v as f64,
                    Some(crate::Scalar::F64(v)) => v,
                    _ => return Err(mismatch(op)),
                })
            };
            crate::kernels::generate::range_len(f(0)?, f(1)?, f(2)?, inputs[0].dtype())?;
            x(0).clone()
        }
        Fill { shape, dtype, value } => fill(shape, *dtype, *value)?,
        Range { start, limit, delta, dtype } => range(*start, *limit, *delta, *dtype)?,
        Eye { n, dtype } => eye(*n, *dtype)?,
        Identity => inputs[0].data().clone(),
        ListNew { .. } | ListPush | ListLast | ListDrop | ListLen | ListStack { .. } => crate::list::eval_list(op, inputs)?,
    })
}
