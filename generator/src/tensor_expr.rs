//! Tensor family expressions: each is built for one `TTy` (dtype and shape),
//! from operands of types that make the op well-typed under TensorFlow's
//! rules: no mixing of tensor dtypes, Python scalars of the tensor's kind,
//! shapes that match (matmul's inner dimension, reshape's element count,
//! concat's axis). Int32 values are kept small where stored (`wrap`: `% 97`),
//! integer `//` and `%` divide by positive literals only, and bounds of staged
//! loops are literals or `% 5` of an int32 scalar.

use crate::gen::Gen;
use crate::scope::CallKind;
use crate::table::Want;
use crate::types::{DType, Shape, TTy, Ty};
use arbitrary::{Result, Unstructured};

/// A random dtype: int32 and float32 mostly; int64, float64 and bool too
/// where the config allows them (`allow_wide_dtypes`).
pub fn random_dtype(g: &Gen, u: &mut Unstructured) -> Result<DType> {
    Ok(match u.int_in_range(0..=9)? {
        0..=3 => DType::I32,
        4..=5 => DType::F32,
        6 if g.cfg.allow_wide_dtypes => DType::I64,
        7 if g.cfg.allow_wide_dtypes => DType::F64,
        8 | 9 if g.cfg.allow_wide_dtypes => DType::Bool,
        6 | 8 => DType::I32,
        _ => DType::F32,
    })
}

/// A random dtype arithmetic accepts (not bool).
pub fn random_num_dtype(g: &Gen, u: &mut Unstructured) -> Result<DType> {
    let d = random_dtype(g, u)?;
    Ok(if d == DType::Bool { DType::I32 } else { d })
}

/// A random shape: scalar, vector or matrix, each dimension 1..=4.
pub fn random_shape(u: &mut Unstructured) -> Result<Shape> {
    Ok(match u.int_in_range(0..=5)? {
        0 | 1 => Shape::Scalar,
        2 | 3 => Shape::Vec(u.int_in_range(1..=4)?),
        _ => Shape::Mat(u.int_in_range(1..=4)?, u.int_in_range(1..=4)?),
    })
}

/// A random tensor type: int32 mostly, shapes up to 4x4.
pub fn random_tty(g: &Gen, u: &mut Unstructured) -> Result<TTy> {
    let dtype = random_dtype(g, u)?;
    let shape = match u.int_in_range(0..=5)? {
        0 | 1 => Shape::Scalar,
        2 | 3 => Shape::Vec(u.int_in_range(1..=4)?),
        _ => Shape::Mat(u.int_in_range(1..=4)?, u.int_in_range(1..=4)?),
    };
    Ok(TTy::new(dtype, shape))
}

/// `e` as stored: integer values reduced `% 97` unless `e` is a name.
pub fn wrap(e: String, t: TTy) -> String {
    let leaf = e.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if t.dtype.is_int() && !leaf {
        format!("{e} % 97")
    } else {
        e
    }
}

pub fn tensor(g: &mut Gen, u: &mut Unstructured, t: TTy) -> Result<String> {
    g.expr(u, Want::Tensor(t))
}

pub fn tcond(g: &mut Gen, u: &mut Unstructured) -> Result<String> {
    g.expr(u, Want::TCond)
}

/// A Python scalar literal of the tensor's kind.
pub fn py_scalar(u: &mut Unstructured, d: DType) -> Result<String> {
    Ok(match d {
        DType::Bool => if u.arbitrary()? { "True" } else { "False" }.to_string(),
        DType::I32 | DType::I64 => u.int_in_range(-3..=9)?.to_string(),
        DType::F32 | DType::F64 => {
            let x = ["0.5", "2.0", "-1.5", "0.25", "3.0", "-0.75", "1.0"];
            x[u.choose_index(x.len())?].to_string()
        }
    })
}

/// Whether `named` (module-level tensors, Variables) holds one of type `t`.
pub(crate) fn has_typed(named: &[(String, TTy)], t: TTy) -> bool {
    named.iter().any(|(_, ty)| *ty == t)
}

/// The name of one of `named` of type `t` (`has_typed` holds).
pub(crate) fn pick_typed(g: &Gen, u: &mut Unstructured, named: &[(String, TTy)], t: TTy) -> Result<String> {
    let fit: Vec<&String> = named.iter().filter(|(_, ty)| *ty == t).map(|(n, _)| n).collect();
    Ok((*g.pick(u, &fit)?).clone())
}

pub(crate) fn want_tensor(w: Want) -> Option<TTy> {
    match w {
        Want::Tensor(t) => Some(t),
        _ => None,
    }
}

/// A nested list literal of `shape`, each element from `elem`.
pub(crate) fn value_text_with(
    u: &mut Unstructured,
    shape: Shape,
    elem: &mut dyn FnMut(&mut Unstructured) -> Result<String>,
) -> Result<String> {
    let mut elems = |u: &mut Unstructured, n: u8| -> Result<String> {
        let mut v = Vec::new();
        for _ in 0..n {
            v.push(elem(u)?);
        }
        Ok(format!("[{}]", v.join(", ")))
    };
    Ok(match shape {
        Shape::Scalar => elem(u)?,
        Shape::Vec(n) => elems(u, n)?,
        Shape::Mat(r, c) => {
            let mut rows = Vec::new();
            for _ in 0..r {
                rows.push(elems(u, c)?);
            }
            format!("[{}]", rows.join(", "))
        }
    })
}

fn value_text(u: &mut Unstructured, d: DType, shape: Shape) -> Result<String> {
    value_text_with(u, shape, &mut |u| py_scalar(u, d))
}

/// `sc.constant(text)` of dtype `d` (the dtype written where the literal's
/// own would be another).
pub(crate) fn constant_of(text: String, d: DType) -> String {
    if d.is_default() {
        format!("sc.constant({text})")
    } else {
        format!("sc.constant({text}, {})", d.sc())
    }
}

/// `sc.constant(value)` of type `t`: also what the top level passes in.
pub fn constant(u: &mut Unstructured, t: TTy) -> Result<String> {
    let v = value_text(u, t.dtype, t.shape)?;
    Ok(constant_of(v, t.dtype))
}

pub fn literal(g: &mut Gen, u: &mut Unstructured, w: Want) -> Result<String> {
    let t = want_tensor(w).expect("a tensor");
    if t.dtype.is_float() && g.chance(u, 1, 4)? {
        // Python ints converted by an explicit dtype.
        let v = value_text(u, DType::I32, t.shape)?;
        return Ok(format!("sc.constant({v}, {})", t.dtype.sc()));
    }
    constant(u, t)
}

pub fn can_name(g: &Gen, w: Want) -> bool {
    want_tensor(w).is_some_and(|t| !g.scope.readable(Ty::Tensor(t)).is_empty())
}

pub fn name(g: &mut Gen, u: &mut Unstructured, w: Want) -> Result<String> {
    let t = want_tensor(w).expect("can_name");
    let vars: Vec<String> = g.scope.readable(Ty::Tensor(t)).iter().map(|v| v.name.clone()).collect();
    Ok(g.pick(u, &vars)?.clone())
}

const CMP: [&str; 6] = ["<", "<=", ">", ">=", "==", "!="];

/// A scalar bool tensor: a comparison of a scalar with a scalar or a literal.
pub fn compare(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let d = random_dtype(g, u)?;
    let a = tensor(g, u, TTy::new(d, Shape::Scalar))?;
    // Bools are equal or not; numbers ordered too.
    let op = if d == DType::Bool { g.pick(u, &CMP[4..])? } else { g.pick(u, &CMP)? };
    let b = if g.chance(u, 1, 2)? { py_scalar(u, d)? } else { tensor(g, u, TTy::new(d, Shape::Scalar))? };
    Ok(format!("({a} {op} {b})"))
}

pub fn can_fill(_: &Gen, w: Want) -> bool {
    want_tensor(w).is_some_and(|t| t.shape != Shape::Scalar)
}

/// `sc.zeros`, `sc.ones`; `sc.eye` of a square matrix, `sc.range` of a
/// vector (counting up or down, any step).
pub fn fill(g: &mut Gen, u: &mut Unstructured, w: Want) -> Result<String> {
    let t = want_tensor(w).expect("a tensor");
    match t.shape {
        Shape::Mat(r, c) if r == c && t.dtype.is_num() && g.chance(u, 1, 3)? => {
            return Ok(format!("sc.eye({r}, {})", t.dtype.sc()));
        }
        Shape::Vec(n) if t.dtype.is_num() && g.chance(u, 1, 3)? => {
            let (start, step) = (u.int_in_range(-3..=3)?, *g.pick(u, &[1, 2, 3, -1, -2])?);
            let limit = start + step * n as i32;
            return Ok(format!("sc.range({start}, {limit}, {step}, dtype={})", t.dtype.sc()));
        }
        _ => {}
    }
    let f = if g.chance(u, 1, 2)? { "zeros" } else { "ones" };
    Ok(format!("sc.{f}({}, {})", t.shape.list(), t.dtype.sc()))
}

pub fn can_nested(g: &Gen, w: Want) -> bool {
    want_tensor(w).is_some() && g.can_nest_expr()
}

/// A number tensor (not bool) is wanted and a compound expression may go here.
pub fn can_num(g: &Gen, w: Want) -> bool {
    want_tensor(w).is_some_and(|t| t.dtype.is_num()) && g.can_nest_expr()
}

pub fn elementwise(g: &mut Gen, u: &mut Unstructured, w: Want) -> Result<String> {
    let t = want_tensor(w).expect("a tensor");
    let a = tensor(g, u, t)?;
    let scalar_operand = g.chance(u, 1, 3)?;
    let b = if scalar_operand { py_scalar(u, t.dtype)? } else { tensor(g, u, t)? };
    let k = u.int_in_range(0..=4)?;
    Ok(match (t.dtype, k) {
        (_, 0) => format!("({a} + {b})"),
        (_, 1) => format!("({a} - {b})"),
        (_, 2) => format!("({a} * {b})"),
        (d, 3) if d.is_int() => format!("({a} // {})", u.int_in_range(1..=7)?),
        (d, _) if d.is_int() => format!("({a} % {})", u.int_in_range(2..=9)?),
        (DType::F64, 3) if g.chance(u, 1, 2)? => {
            // `/` of integers gives float64.
            let d = if g.chance(u, 1, 2)? { DType::I32 } else { DType::I64 };
            let x = tensor(g, u, TTy::new(d, t.shape))?;
            format!("({x} / {})", u.int_in_range(1..=7)?)
        }
        (_, 3) => format!("({a} / {})", g.pick(u, &["2.0", "4.0", "-0.5"])?),
        (_, _) if scalar_operand => format!("({b} - {a})"),
        (_, _) => format!("({a} ** 2.0)"),
    })
}

pub fn unary_math(g: &mut Gen, u: &mut Unstructured, w: Want) -> Result<String> {
    let t = want_tensor(w).expect("a tensor");
    let a = tensor(g, u, t)?;
    let k = u.int_in_range(0..=7)?;
    Ok(match (t.dtype, k) {
        (_, 0) => format!("(-{a})"),
        (_, 1) if g.chance(u, 1, 3)? => format!("abs({a})"),
        (_, 1) => format!("sc.abs({a})"),
        (_, 2) => format!("sc.nn.relu({a})"),
        (d, _) if d.is_int() => format!("({a} ** 2)"),
        (_, 3) => format!("sc.tanh({a})"),
        (_, 4) => format!("sc.sigmoid({a})"),
        (_, 5) => format!("sc.exp(sc.tanh({a}))"),
        (_, 6) => format!("sc.sqrt(sc.abs({a}))"),
        (_, _) => format!("sc.log(sc.abs({a}) + 1.0)"),
    })
}

pub fn maximum_minimum(g: &mut Gen, u: &mut Unstructured, w: Want) -> Result<String> {
    let t = want_tensor(w).expect("a tensor");
    let f = if g.chance(u, 1, 2)? { "maximum" } else { "minimum" };
    let a = tensor(g, u, t)?;
    let b = tensor(g, u, t)?;
    Ok(format!("sc.{f}({a}, {b})"))
}

pub fn can_reduction(g: &Gen, w: Want) -> bool {
    want_tensor(w).is_some_and(|t| t.dtype.is_num() && matches!(t.shape, Shape::Scalar | Shape::Vec(_))) && g.can_nest_expr()
}

fn dim(u: &mut Unstructured) -> Result<u8> {
    u.int_in_range(1..=4)
}

pub fn reduction(g: &mut Gen, u: &mut Unstructured, w: Want) -> Result<String> {
    let t = want_tensor(w).expect("a tensor");
    // reduce_mean of integers truncates (TensorFlow's), bools are refused.
    let ops: &[&str] = &["reduce_sum", "reduce_max", "reduce_min", "reduce_mean"];
    let op = *g.pick(u, ops)?;
    match t.shape {
        Shape::Vec(n) => {
            let other = dim(u)?;
            if g.chance(u, 1, 2)? {
                let m = tensor(g, u, TTy::new(t.dtype, Shape::Mat(n, other)))?;
                Ok(format!("sc.{op}({m}, axis=1)"))
            } else {
                let m = tensor(g, u, TTy::new(t.dtype, Shape::Mat(other, n)))?;
                Ok(format!("sc.{op}({m}, axis=0)"))
            }
        }
        _ => {
            let src = if g.chance(u, 1, 2)? { Shape::Vec(dim(u)?) } else { Shape::Mat(dim(u)?, dim(u)?) };
            let x = tensor(g, u, TTy::new(t.dtype, src))?;
            Ok(format!("sc.{op}({x})"))
        }
    }
}

pub fn can_matmul(g: &Gen, w: Want) -> bool {
    want_tensor(w).is_some_and(|t| t.dtype.is_num() && matches!(t.shape, Shape::Mat(..))) && g.can_nest_expr()
}

pub fn can_transpose(g: &Gen, w: Want) -> bool {
    want_tensor(w).is_some_and(|t| matches!(t.shape, Shape::Mat(..))) && g.can_nest_expr()
}

pub fn matmul(g: &mut Gen, u: &mut Unstructured, w: Want) -> Result<String> {
    let t = want_tensor(w).expect("a tensor");
    let Shape::Mat(r, c) = t.shape else { unreachable!("can_matmul") };
    let k = dim(u)?;
    let a = tensor(g, u, TTy::new(t.dtype, Shape::Mat(r, k)))?;
    let b = tensor(g, u, TTy::new(t.dtype, Shape::Mat(k, c)))?;
    if g.chance(u, 1, 3)? {
        Ok(format!("({a} @ {b})"))
    } else {
        Ok(format!("sc.matmul({a}, {b})"))
    }
}

pub fn transpose(g: &mut Gen, u: &mut Unstructured, w: Want) -> Result<String> {
    let t = want_tensor(w).expect("a tensor");
    let Shape::Mat(r, c) = t.shape else { unreachable!("can_transpose") };
    let a = tensor(g, u, TTy::new(t.dtype, Shape::Mat(c, r)))?;
    if g.chance(u, 1, 3)? {
        return Ok(format!("sc.transpose({a}, [1, 0])"));
    }
    Ok(format!("sc.transpose({a})"))
}

/// Shapes (not scalar) with `n` elements, other than `not`.
fn shapes_with(n: u8, not: Shape) -> Vec<Shape> {
    let mut v = Vec::new();
    if n <= 4 {
        v.push(Shape::Vec(n));
    }
    for r in 1..=4u8 {
        if n.is_multiple_of(r) && n / r <= 4 {
            v.push(Shape::Mat(r, n / r));
        }
    }
    v.retain(|s| *s != not);
    v
}

pub fn can_reshape(g: &Gen, w: Want) -> bool {
    want_tensor(w).is_some_and(|t| t.shape != Shape::Scalar && !shapes_with(t.shape.count(), t.shape).is_empty()) && g.can_nest_expr()
}

pub fn reshape(g: &mut Gen, u: &mut Unstructured, w: Want) -> Result<String> {
    let t = want_tensor(w).expect("a tensor");
    let from = *g.pick(u, &shapes_with(t.shape.count(), t.shape))?;
    let a = tensor(g, u, TTy::new(t.dtype, from))?;
    Ok(format!("sc.reshape({a}, {})", t.shape.list()))
}

/// `sc.cast` from another dtype: float to int truncates and saturates (NaN
/// gives 0), int to int wraps, to bool is `!= 0`.
pub fn cast(g: &mut Gen, u: &mut Unstructured, w: Want) -> Result<String> {
    let t = want_tensor(w).expect("a tensor");
    let mut from = random_dtype(g, u)?;
    if from == t.dtype {
        from = if t.dtype == DType::I32 { DType::F32 } else { DType::I32 };
    }
    let a = tensor(g, u, TTy::new(from, t.shape))?;
    Ok(if t.dtype.is_int() { format!("(sc.cast({a}, {}) % 97)", t.dtype.sc()) } else { format!("sc.cast({a}, {})", t.dtype.sc()) })
}

/// A bool tensor of `shape`: a comparison of number tensors (or of one
/// with a Python scalar), sometimes a bool tensor itself.
pub(crate) fn bool_tensor(g: &mut Gen, u: &mut Unstructured, shape: Shape) -> Result<String> {
    if g.cfg.allow_wide_dtypes && g.chance(u, 1, 4)? {
        return tensor(g, u, TTy::new(DType::Bool, shape));
    }
    let cd = random_num_dtype(g, u)?;
    let p = tensor(g, u, TTy::new(cd, shape))?;
    let op = g.pick(u, &CMP)?;
    let q = if g.chance(u, 1, 2)? { py_scalar(u, cd)? } else { tensor(g, u, TTy::new(cd, shape))? };
    Ok(format!("({p} {op} {q})"))
}

pub fn where_(g: &mut Gen, u: &mut Unstructured, w: Want) -> Result<String> {
    let t = want_tensor(w).expect("a tensor");
    let c = bool_tensor(g, u, t.shape)?;
    let a = tensor(g, u, t)?;
    let b = tensor(g, u, t)?;
    Ok(format!("sc.where({c}, {a}, {b})"))
}

pub fn can_indexing(g: &Gen, w: Want) -> bool {
    want_tensor(w).is_some_and(|t| matches!(t.shape, Shape::Scalar | Shape::Vec(_))) && g.can_nest_expr()
}

pub fn indexing(g: &mut Gen, u: &mut Unstructured, w: Want) -> Result<String> {
    let t = want_tensor(w).expect("a tensor");
    let n = dim(u)?;
    let src = match t.shape {
        Shape::Scalar => Shape::Vec(n),
        Shape::Vec(c) => Shape::Mat(n, c),
        Shape::Mat(..) => unreachable!("can_indexing"),
    };
    let a = tensor(g, u, TTy::new(t.dtype, src))?;
    let i = if g.chance(u, 1, 4)? { -1 } else { u.int_in_range(0..=n as i32 - 1)? };
    Ok(format!("{a}[{i}]"))
}

pub fn can_concat_stack(g: &Gen, w: Want) -> bool {
    want_tensor(w).is_some_and(|t| match t.shape {
        Shape::Scalar => false,
        Shape::Vec(n) => n >= 2,
        Shape::Mat(..) => true,
    }) && g.can_nest_expr()
}

pub fn concat_stack(g: &mut Gen, u: &mut Unstructured, w: Want) -> Result<String> {
    let t = want_tensor(w).expect("a tensor");
    let d = t.dtype;
    let parts = |g: &mut Gen, u: &mut Unstructured, shapes: Vec<Shape>| -> Result<String> {
        let mut v = Vec::new();
        for s in shapes {
            v.push(tensor(g, u, TTy::new(d, s))?);
        }
        Ok(v.join(", "))
    };
    match t.shape {
        Shape::Vec(n) => {
            if g.chance(u, 1, 2)? {
                let a = u.int_in_range(1..=n - 1)?;
                Ok(format!("sc.concat([{}], 0)", parts(g, u, vec![Shape::Vec(a), Shape::Vec(n - a)])?))
            } else {
                Ok(format!("sc.stack([{}])", parts(g, u, vec![Shape::Scalar; n as usize])?))
            }
        }
        Shape::Mat(r, c) => match u.int_in_range(0..=2)? {
            0 => Ok(format!("sc.stack([{}])", parts(g, u, vec![Shape::Vec(c); r as usize])?)),
            1 => Ok(format!("sc.stack([{}], axis=1)", parts(g, u, vec![Shape::Vec(r); c as usize])?)),
            _ if r >= 2 => {
                let a = u.int_in_range(1..=r - 1)?;
                Ok(format!("sc.concat([{}], 0)", parts(g, u, vec![Shape::Mat(a, c), Shape::Mat(r - a, c)])?))
            }
            _ => Ok(format!("sc.concat([{}], 1)", parts(g, u, vec![Shape::Mat(r, 1); c as usize])?)),
        },
        Shape::Scalar => unreachable!("can_concat_stack"),
    }
}

pub fn can_argmax(g: &Gen, w: Want) -> bool {
    want_tensor(w).is_some_and(|t| t.dtype.is_int() && matches!(t.shape, Shape::Scalar | Shape::Vec(_))) && g.can_nest_expr()
}

pub fn argmax(g: &mut Gen, u: &mut Unstructured, w: Want) -> Result<String> {
    let t = want_tensor(w).expect("a tensor");
    let d = random_num_dtype(g, u)?;
    let src = match t.shape {
        Shape::Scalar => Shape::Vec(dim(u)?),
        Shape::Vec(n) => Shape::Mat(dim(u)?, n),
        Shape::Mat(..) => unreachable!("can_argmax"),
    };
    let a = tensor(g, u, TTy::new(d, src))?;
    // argmax gives int64.
    Ok(match t.dtype {
        DType::I64 => format!("sc.argmax({a}, 0)"),
        _ => format!("sc.cast(sc.argmax({a}, 0), sc.int32)"),
    })
}

/// Staged functions returning `t`: the recursive ones (`counter`) or the others.
pub(crate) fn staged_callables(g: &Gen, t: TTy, recursive: bool) -> Vec<crate::scope::Callable> {
    g.scope
        .callables()
        .into_iter()
        .filter(|c| matches!(&c.kind, CallKind::Staged { result, counter, .. } if *result == t && *counter == recursive))
        .cloned()
        .collect()
}

pub fn can_call(g: &Gen, w: Want) -> bool {
    g.ctx.in_staged_fn && g.can_nest_expr() && want_tensor(w).is_some_and(|t| !staged_callables(g, t, false).is_empty())
}

/// The arguments of a call of a staged function (a polymorphic first
/// parameter gets one of its types: another trace of the callee).
pub fn call_args(g: &mut Gen, u: &mut Unstructured, params: &[TTy], poly: Option<&[TTy]>, hyper: bool) -> Result<String> {
    let mut a = Vec::new();
    for (i, p) in params.iter().enumerate() {
        let p = match poly {
            Some(v) if i == 0 => *g.pick(u, v)?,
            _ => *p,
        };
        a.push(tensor(g, u, p)?);
    }
    if hyper {
        let mine: Vec<String> = g.scope.readable(Ty::Hyper).iter().map(|v| v.name.clone()).collect();
        if !mine.is_empty() && g.chance(u, 1, 2)? {
            a.push(g.pick(u, &mine)?.clone());
        } else {
            a.push(u.int_in_range(1..=3)?.to_string());
        }
    }
    Ok(a.join(", "))
}

pub fn call(g: &mut Gen, u: &mut Unstructured, w: Want) -> Result<String> {
    let t = want_tensor(w).expect("a tensor");
    let fit = staged_callables(g, t, false);
    let c = g.pick(u, &fit)?.clone();
    let CallKind::Staged { params, hyper, poly, .. } = &c.kind else { unreachable!("staged") };
    let a = call_args(g, u, params, poly.as_deref(), *hyper)?;
    crate::tensor_python::calls(g, &c.name);
    Ok(format!("{}({a})", c.name))
}

pub fn ternary(g: &mut Gen, u: &mut Unstructured, w: Want) -> Result<String> {
    let t = want_tensor(w).expect("a tensor");
    let a = tensor(g, u, t)?;
    let c = tcond(g, u)?;
    let b = tensor(g, u, t)?;
    Ok(format!("({a} if {c} else {b})"))
}

pub fn can_hyper_operand(g: &Gen, w: Want) -> bool {
    can_num(g, w) && !g.scope.readable(Ty::Hyper).is_empty()
}

pub fn hyper_operand(g: &mut Gen, u: &mut Unstructured, w: Want) -> Result<String> {
    let t = want_tensor(w).expect("a tensor");
    let ks: Vec<String> = g.scope.readable(Ty::Hyper).iter().map(|v| v.name.clone()).collect();
    let k = g.pick(u, &ks)?.clone();
    let a = tensor(g, u, t)?;
    let op = g.pick(u, &["+", "*", "-"])?;
    Ok(format!("({a} {op} {k})"))
}

pub fn can_cond_nested(g: &Gen, w: Want) -> bool {
    w == Want::TCond && g.can_nest_expr()
}

pub fn and_or(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let a = tcond(g, u)?;
    let op = if g.chance(u, 1, 2)? { "and" } else { "or" };
    let b = tcond(g, u)?;
    Ok(format!("({a} {op} {b})"))
}

pub fn chained_compare(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let d = random_num_dtype(g, u)?;
    let lo = py_scalar(u, d)?;
    let x = tensor(g, u, TTy::new(d, Shape::Scalar))?;
    let op = g.pick(u, &["<", "<="])?;
    let hi = tensor(g, u, TTy::new(d, Shape::Scalar))?;
    Ok(format!("({lo} {op} {x} < {hi})"))
}

pub fn bool_ops(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let a = tcond(g, u)?;
    Ok(match u.int_in_range(0..=2)? {
        0 => format!("({a} & {})", tcond(g, u)?),
        1 => format!("({a} | {})", tcond(g, u)?),
        _ => format!("(~{a})"),
    })
}

pub fn can_not(g: &Gen, w: Want) -> bool {
    w == Want::TCond && g.ctx.test_top && g.ctx.expr_depth == 1 && g.can_nest_expr()
}

pub fn not(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    Ok(format!("(not {})", tcond(g, u)?))
}
