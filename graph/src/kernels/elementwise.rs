//! Elementwise maps with NumPy broadcasting: unary, binary (arithmetic,
//! comparison, bitwise) and `where`. Shapes were checked by `infer`; a failed
//! broadcast here is an internal error, never a panic.

use super::elem::{maximum, minimum, relu, Bits, Elem, Float, Int, Number};
use crate::error::OpError;
use crate::op::Op;
use crate::tensor::Data;
use ndarray::{ArrayD, IxDyn, Zip};

fn broadcast_failed(shape: &[usize]) -> OpError {
    OpError::invalid(format!("internal error: cannot broadcast to {shape:?}"))
}

/// `f` over `a` and `b` broadcast to `shape`, in row-major order.
pub(crate) fn zip2<T: Copy, U>(
    a: &ArrayD<T>,
    b: &ArrayD<T>,
    shape: &[usize],
    f: impl Fn(T, T) -> U,
) -> Result<ArrayD<U>, OpError> {
    if a.shape() == shape && b.shape() == shape {
        return Ok(Zip::from(a).and(b).map_collect(|&x, &y| f(x, y)));
    }
    let av = a.broadcast(IxDyn(shape)).ok_or_else(|| broadcast_failed(shape))?;
    let bv = b.broadcast(IxDyn(shape)).ok_or_else(|| broadcast_failed(shape))?;
    Ok(Zip::from(&av).and(&bv).map_collect(|&x, &y| f(x, y)))
}

/// Whether any element of `b`, as broadcast to `shape`, satisfies `p` (an
/// element broadcast away is never read, so only a non-empty result counts).
fn any_used<T: Copy>(b: &ArrayD<T>, shape: &[usize], p: impl Fn(T) -> bool) -> bool {
    shape.iter().all(|&d| d > 0) && b.iter().any(|&x| p(x))
}

pub(crate) fn neg<T: Number>(a: &ArrayD<T>) -> Data {
    T::wrap(a.mapv(T::neg))
}

pub(crate) fn abs<T: Number>(a: &ArrayD<T>) -> Data {
    T::wrap(a.mapv(T::abs))
}

pub(crate) fn relu_map<T: Number>(a: &ArrayD<T>) -> Data {
    T::wrap(a.mapv(relu))
}

pub(crate) fn float_unary<T: Float>(op: &Op, a: &ArrayD<T>) -> Result<Data, OpError> {
    let f: fn(T) -> T = match op {
        Op::Exp => T::exp,
        Op::Log => T::ln,
        Op::Sqrt => T::sqrt,
        Op::Tanh => T::tanh,
        Op::Sigmoid => T::sigmoid,
        _ => return Err(OpError::unimplemented(format!("{} is not a float op", op.name()))),
    };
    Ok(T::wrap(a.mapv(f)))
}

pub(crate) fn invert<T: Int>(a: &ArrayD<T>) -> Data {
    T::wrap(a.mapv(T::not))
}

/// Add .. Minimum on one number dtype.
pub(crate) fn arithmetic<T: Number>(op: &Op, a: &ArrayD<T>, b: &ArrayD<T>, shape: &[usize]) -> Result<Data, OpError> {
    let f: fn(T, T) -> T = match op {
        Op::Add => T::add,
        Op::Sub => T::sub,
        Op::Mul => T::mul,
        Op::Div => return Ok(<T::Quotient as Elem>::wrap(zip2(a, b, shape, T::true_div)?)),
        Op::FloorDiv | Op::Mod if T::IS_INT && any_used(b, shape, T::is_zero) => {
            return Err(OpError::zero_division());
        }
        Op::FloorDiv => T::floor_div,
        Op::Mod => T::floor_mod,
        Op::Pow if T::IS_INT && any_used(b, shape, |x| x < T::ZERO) => {
            return Err(OpError::invalid("Integers to negative integer powers are not allowed"));
        }
        Op::Pow => T::pow,
        Op::Maximum => maximum,
        Op::Minimum => minimum,
        _ => return Err(OpError::unimplemented(format!("{} is not arithmetic", op.name()))),
    };
    Ok(T::wrap(zip2(a, b, shape, f)?))
}

/// Eq .. Ge, to bool (ordering ops were refused on bools by `infer`).
pub(crate) fn compare<T: Elem>(op: &Op, a: &ArrayD<T>, b: &ArrayD<T>, shape: &[usize]) -> Result<Data, OpError> {
    let f: fn(T, T) -> bool = match op {
        Op::Eq => |x, y| x == y,
        Op::Ne => |x, y| x != y,
        Op::Lt => |x, y| x < y,
        Op::Le => |x, y| x <= y,
        Op::Gt => |x, y| x > y,
        Op::Ge => |x, y| x >= y,
        _ => return Err(OpError::unimplemented(format!("{} is not a comparison", op.name()))),
    };
    Ok(Data::Bool(zip2(a, b, shape, f)?))
}

pub(crate) fn bitwise<T: Bits>(op: &Op, a: &ArrayD<T>, b: &ArrayD<T>, shape: &[usize]) -> Result<Data, OpError> {
    let f: fn(T, T) -> T = match op {
        Op::BitAnd => T::and,
        Op::BitOr => T::or,
        Op::BitXor => T::xor,
        _ => return Err(OpError::unimplemented(format!("{} is not bitwise", op.name()))),
    };
    Ok(T::wrap(zip2(a, b, shape, f)?))
}

/// `cond ? x : y`, all three broadcast to `shape`.
pub(crate) fn select<T: Elem>(
    cond: &ArrayD<bool>,
    x: &ArrayD<T>,
    y: &ArrayD<T>,
    shape: &[usize],
) -> Result<Data, OpError> {
    let c = cond.broadcast(IxDyn(shape)).ok_or_else(|| broadcast_failed(shape))?;
    let xv = x.broadcast(IxDyn(shape)).ok_or_else(|| broadcast_failed(shape))?;
    let yv = y.broadcast(IxDyn(shape)).ok_or_else(|| broadcast_failed(shape))?;
    Ok(T::wrap(Zip::from(&c).and(&xv).and(&yv).map_collect(|&c, &x, &y| if c { x } else { y })))
}
