//! Elementwise maps with NumPy broadcasting: unary, binary (arithmetic,
//! comparison, bitwise) and `where`. Shapes were checked by `infer`; a failed
//! broadcast here is an internal error, never a panic.

use super::elem::{maximum, minimum, relu, Bits, Elem, Float, Int, Number};
use crate::error::OpError;
use crate::op::Op;
use crate::shape::{array_of, same_shape};
use crate::tensor::Data;
use ndarray::{ArrayD, IxDyn, Zip};

fn broadcast_failed(shape: &[usize]) -> OpError {
    OpError::invalid(format!("internal error: cannot broadcast to {shape:?}"))
}

/// `f` over `a` and `b` broadcast to `shape`, in row-major order.
pub(crate) fn zip2<T: Copy, U>(a: &ArrayD<T>, b: &ArrayD<T>, shape: &[usize], f: impl Fn(T, T) -> U) -> Result<ArrayD<U>, OpError> {
    let out = |v: Vec<U>| array_of(shape, v).map_err(|_| broadcast_failed(shape));
    // Fast paths on contiguous row-major data: equal shapes, or a one-element
    // operand (a scalar, typically) against a full-shaped one.
    let (full_a, full_b) = (same_shape(a.shape(), shape), same_shape(b.shape(), shape));
    if let (Some(x), Some(y)) = (a.as_slice(), b.as_slice()) {
        if full_a && full_b {
            return out(x.iter().zip(y).map(|(&p, &q)| f(p, q)).collect());
        }
        if let ([q], true) = (y, full_a) {
            return out(x.iter().map(|&p| f(p, *q)).collect());
        }
        if let ([p], true) = (x, full_b) {
            return out(y.iter().map(|&q| f(*p, q)).collect());
        }
        // One operand repeated along leading axes (`[8, 16] + [16]`).
        if full_a && !y.is_empty() && is_suffix(b.shape(), shape) {
            return out(x.chunks_exact(y.len()).flat_map(|row| row.iter().zip(y).map(|(&p, &q)| f(p, q))).collect());
        }
        if full_b && !x.is_empty() && is_suffix(a.shape(), shape) {
            return out(y.chunks_exact(x.len()).flat_map(|row| x.iter().zip(row).map(|(&p, &q)| f(p, q))).collect());
        }
    }
    let av = a.broadcast(IxDyn(shape)).ok_or_else(|| broadcast_failed(shape))?;
    let bv = b.broadcast(IxDyn(shape)).ok_or_else(|| broadcast_failed(shape))?;
    Ok(Zip::from(&av).and(&bv).map_collect(|&x, &y| f(x, y)))
}

/// Whether `part`, without leading 1s, is the trailing dims of `shape`.
pub(crate) fn is_suffix(part: &[usize], shape: &[usize]) -> bool {
    let start = part.iter().position(|&d| d != 1).unwrap_or(part.len());
    let part = &part[start..];
    part.len() <= shape.len() && same_shape(part, &shape[shape.len() - part.len()..])
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

// Each arm below passes a function item (not a `fn` pointer) so the kernel is
// monomorphised per op and the element function inlined: through a pointer,
// a 1000-element binary op was ~20x slower.

pub(crate) fn float_unary<T: Float>(op: &Op, a: &ArrayD<T>) -> Result<Data, OpError> {
    Ok(T::wrap(match op {
        Op::Exp => a.mapv(T::exp),
        Op::Log => a.mapv(T::ln),
        Op::Sqrt => a.mapv(T::sqrt),
        Op::Tanh => match a.as_slice() {
            Some(x) => {
                let mut out = x.to_vec();
                T::tanh_in_place(&mut out);
                array_of(a.shape(), out).map_err(|_| broadcast_failed(a.shape()))?
            }
            None => a.mapv(T::tanh),
        },
        Op::Sigmoid => a.mapv(T::sigmoid),
        _ => return Err(OpError::unimplemented(format!("{} is not a float op", op.name()))),
    }))
}

pub(crate) fn invert<T: Int>(a: &ArrayD<T>) -> Data {
    T::wrap(a.mapv(T::not))
}

/// Add .. Minimum on one number dtype.
pub(crate) fn arithmetic<T: Number>(op: &Op, a: &ArrayD<T>, b: &ArrayD<T>, shape: &[usize]) -> Result<Data, OpError> {
    let int_zero_divisor = || T::IS_INT && any_used(b, shape, T::is_zero);
    Ok(T::wrap(match op {
        Op::Add => zip2(a, b, shape, T::add)?,
        Op::Sub => zip2(a, b, shape, T::sub)?,
        Op::Mul => zip2(a, b, shape, T::mul)?,
        Op::Div => return Ok(<T::Quotient as Elem>::wrap(zip2(a, b, shape, T::true_div)?)),
        Op::FloorDiv | Op::Mod if int_zero_divisor() => return Err(OpError::zero_division()),
        Op::FloorDiv => zip2(a, b, shape, T::floor_div)?,
        Op::Mod => zip2(a, b, shape, T::floor_mod)?,
        Op::Pow if T::IS_INT && any_used(b, shape, |x| x < T::ZERO) => {
            return Err(OpError::invalid("Integers to negative integer powers are not allowed"));
        }
        Op::Pow => zip2(a, b, shape, T::pow)?,
        Op::Maximum => zip2(a, b, shape, maximum)?,
        Op::Minimum => zip2(a, b, shape, minimum)?,
        _ => return Err(OpError::unimplemented(format!("{} is not arithmetic", op.name()))),
    }))
}

/// Eq .. Ge, to bool (ordering ops were refused on bools by `infer`).
pub(crate) fn compare<T: Elem>(op: &Op, a: &ArrayD<T>, b: &ArrayD<T>, shape: &[usize]) -> Result<Data, OpError> {
    Ok(Data::Bool(match op {
        Op::Eq => zip2(a, b, shape, |x, y| x == y)?,
        Op::Ne => zip2(a, b, shape, |x, y| x != y)?,
        Op::Lt => zip2(a, b, shape, |x, y| x < y)?,
        Op::Le => zip2(a, b, shape, |x, y| x <= y)?,
        Op::Gt => zip2(a, b, shape, |x, y| x > y)?,
        Op::Ge => zip2(a, b, shape, |x, y| x >= y)?,
        _ => return Err(OpError::unimplemented(format!("{} is not a comparison", op.name()))),
    }))
}

pub(crate) fn bitwise<T: Bits>(op: &Op, a: &ArrayD<T>, b: &ArrayD<T>, shape: &[usize]) -> Result<Data, OpError> {
    Ok(T::wrap(match op {
        Op::BitAnd => zip2(a, b, shape, T::and)?,
        Op::BitOr => zip2(a, b, shape, T::or)?,
        Op::BitXor => zip2(a, b, shape, T::xor)?,
        _ => return Err(OpError::unimplemented(format!("{} is not bitwise", op.name()))),
    }))
}

/// `cond ? x : y`, all three broadcast to `shape`.
pub(crate) fn select<T: Elem>(cond: &ArrayD<bool>, x: &ArrayD<T>, y: &ArrayD<T>, shape: &[usize]) -> Result<Data, OpError> {
    let c = cond.broadcast(IxDyn(shape)).ok_or_else(|| broadcast_failed(shape))?;
    let xv = x.broadcast(IxDyn(shape)).ok_or_else(|| broadcast_failed(shape))?;
    let yv = y.broadcast(IxDyn(shape)).ok_or_else(|| broadcast_failed(shape))?;
    Ok(T::wrap(Zip::from(&c).and(&xv).and(&yv).map_collect(|&c, &x, &y| if c { x } else { y })))
}
