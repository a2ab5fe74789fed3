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

/// A random tensor type: int32 mostly, shapes up to 4x4.
pub fn random_tty(u: &mut Unstructured) -> Result<TTy> {
    let dtype = if u.int_in_range(0..=4)? < 3 { DType::I32 } else { DType::F32 };
    let shape = match u.int_in_range(0..=5)? {
        0 | 1 => Shape::Scalar,
        2 | 3 => Shape::Vec(u.int_in_range(1..=4)?),
        _ => Shape::Mat(u.int_in_range(1..=4)?, u.int_in_range(1..=4)?),
    };
    Ok(TTy::new(dtype, shape))
}

/// `e` as stored: int32 values reduced `% 97` unless `e` is a name.
pub fn wrap(e: String, t: TTy) -> String {
    let leaf = e.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if t.dtype == DType::I32 && !leaf {
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
        DType::I32 => u.int_in_range(-3..=9)?.to_string(),
        DType::F32 => {
            let x = ["0.5", "2.0", "-1.5", "0.25", "3.0", "-0.75", "1.0"];
            x[u.choose_index(x.len())?].to_string()
        }
    })
}

fn want_tensor(w: Want) -> Option<TTy> {
    match w {
        Want::Tensor(t) => Some(t),
        _ => None,
    }
}

fn value_text(u: &mut Unstructured, d: DType, shape: Shape) -> Result<String> {
    let elems = |u: &mut Unstructured, n: u8| -> Result<String> {
        let mut v = Vec::new();
        for _ in 0..n {
            v.push(py_scalar(u, d)?);
        }
        Ok(format!("[{}]", v.join(", ")))
    };
    Ok(match shape {
        Shape::Scalar => py_scalar(u, d)?,
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

/// `sc.constant(value)` of type `t`: also what the top level passes in.
pub fn constant(u: &mut Unstructured, t: TTy) -> Result<String> {
    let v = value_text(u, t.dtype, t.shape)?;
    Ok(format!("sc.constant({v})"))
}

pub fn literal(g: &mut Gen, u: &mut Unstructured, w: Want) -> Result<String> {
    let t = want_tensor(w).expect("a tensor");
    if t.dtype == DType::F32 && g.chance(u, 1, 4)? {
        // Python ints converted by an explicit dtype.
        let v = value_text(u, DType::I32, t.shape)?;
        return Ok(format!("sc.constant({v}, sc.float32)"));
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
    let d = if g.chance(u, 1, 3)? { DType::F32 } else { DType::I32 };
    let a = tensor(g, u, TTy::new(d, Shape::Scalar))?;
    let op = g.pick(u, &CMP)?;
    let b = if g.chance(u, 1, 2)? { py_scalar(u, d)? } else { tensor(g, u, TTy::new(d, Shape::Scalar))? };
    Ok(format!("({a} {op} {b})"))
}

pub fn can_fill(_: &Gen, w: Want) -> bool {
    want_tensor(w).is_some_and(|t| t.shape != Shape::Scalar)
}

pub fn fill(g: &mut Gen, u: &mut Unstructured, w: Want) -> Result<String> {
    let t = want_tensor(w).expect("a tensor");
    let f = if g.chance(u, 1, 2)? { "zeros" } else { "ones" };
    Ok(format!("sc.{f}({}, {})", t.shape.list(), t.dtype.sc()))
}

pub fn can_nested(g: &Gen, w: Want) -> bool {
    want_tensor(w).is_some() && g.can_nest_expr()
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
        (DType::I32, 3) => format!("({a} // {})", u.int_in_range(1..=7)?),
        (DType::I32, _) => format!("({a} % {})", u.int_in_range(2..=9)?),
        (DType::F32, 3) => format!("({a} / {})", g.pick(u, &["2.0", "4.0", "-0.5"])?),
        (DType::F32, _) if scalar_operand => format!("({b} - {a})"),
        (DType::F32, _) => format!("({a} ** 2.0)"),
    })
}

pub fn unary_math(g: &mut Gen, u: &mut Unstructured, w: Want) -> Result<String> {
    let t = want_tensor(w).expect("a tensor");
    let a = tensor(g, u, t)?;
    let k = u.int_in_range(0..=7)?;
    Ok(match (t.dtype, k) {
        (_, 0) => format!("(-{a})"),
        (_, 1) => format!("sc.abs({a})"),
        (_, 2) => format!("sc.nn.relu({a})"),
        (DType::I32, _) => format!("({a} ** 2)"),
        (DType::F32, 3) => format!("sc.tanh({a})"),
        (DType::F32, 4) => format!("sc.sigmoid({a})"),
        (DType::F32, 5) => format!("sc.exp(sc.tanh({a}))"),
        (DType::F32, 6) => format!("sc.sqrt(sc.abs({a}))"),
        (DType::F32, _) => format!("sc.log(sc.abs({a}) + 1.0)"),
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
    want_tensor(w).is_some_and(|t| matches!(t.shape, Shape::Scalar | Shape::Vec(_))) && g.can_nest_expr()
}

fn dim(u: &mut Unstructured) -> Result<u8> {
    u.int_in_range(1..=4)
}

pub fn reduction(g: &mut Gen, u: &mut Unstructured, w: Want) -> Result<String> {
    let t = want_tensor(w).expect("a tensor");
    let ops: &[&str] = if t.dtype == DType::F32 {
        &["reduce_sum", "reduce_max", "reduce_min", "reduce_mean"]
    } else {
        &["reduce_sum", "reduce_max", "reduce_min"]
    };
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
    let Shape::Mat(r, c) = t.shape else { unreachable!("can_matmul") };
    let a = tensor(g, u, TTy::new(t.dtype, Shape::Mat(c, r)))?;
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
    want_tensor(w).is_some_and(|t| t.shape != Shape::Scalar && !shapes_with(t.shape.count(), t.shape).is_empty())
        && g.can_nest_expr()
}

pub fn reshape(g: &mut Gen, u: &mut Unstructured, w: Want) -> Result<String> {
    let t = want_tensor(w).expect("a tensor");
    let from = *g.pick(u, &shapes_with(t.shape.count(), t.shape))?;
    let a = tensor(g, u, TTy::new(t.dtype, from))?;
    Ok(format!("sc.reshape({a}, {})", t.shape.list()))
}

pub fn cast(g: &mut Gen, u: &mut Unstructured, w: Want) -> Result<String> {
    let t = want_tensor(w).expect("a tensor");
    let a = tensor(g, u, TTy::new(t.dtype.other(), t.shape))?;
    Ok(match t.dtype {
        DType::I32 => format!("(sc.cast({a}, sc.int32) % 97)"),
        DType::F32 => format!("sc.cast({a}, sc.float32)"),
    })
}

pub fn where_(g: &mut Gen, u: &mut Unstructured, w: Want) -> Result<String> {
    let t = want_tensor(w).expect("a tensor");
    let cd = if g.chance(u, 1, 2)? { t.dtype } else { t.dtype.other() };
    let p = tensor(g, u, TTy::new(cd, t.shape))?;
    let op = g.pick(u, &CMP)?;
    let q = if g.chance(u, 1, 2)? { py_scalar(u, cd)? } else { tensor(g, u, TTy::new(cd, t.shape))? };
    let a = tensor(g, u, t)?;
    let b = tensor(g, u, t)?;
    Ok(format!("sc.where(({p} {op} {q}), {a}, {b})"))
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
    want_tensor(w).is_some_and(|t| t.dtype == DType::I32 && matches!(t.shape, Shape::Scalar | Shape::Vec(_)))
        && g.can_nest_expr()
}

pub fn argmax(g: &mut Gen, u: &mut Unstructured, w: Want) -> Result<String> {
    let t = want_tensor(w).expect("a tensor");
    let d = if g.chance(u, 1, 2)? { DType::I32 } else { DType::F32 };
    let src = match t.shape {
        Shape::Scalar => Shape::Vec(dim(u)?),
        Shape::Vec(n) => Shape::Mat(dim(u)?, n),
        Shape::Mat(..) => unreachable!("can_argmax"),
    };
    let a = tensor(g, u, TTy::new(d, src))?;
    Ok(format!("sc.cast(sc.argmax({a}, 0), sc.int32)"))
}

fn staged_callables(g: &Gen, t: TTy) -> Vec<crate::scope::Callable> {
    g.scope
        .callables()
        .into_iter()
        .filter(|c| matches!(&c.kind, CallKind::Staged { result, .. } if *result == t))
        .cloned()
        .collect()
}

pub fn can_call(g: &Gen, w: Want) -> bool {
    g.ctx.in_staged_fn && g.can_nest_expr() && want_tensor(w).is_some_and(|t| !staged_callables(g, t).is_empty())
}

/// The arguments of a call of a staged function.
pub fn call_args(g: &mut Gen, u: &mut Unstructured, params: &[TTy], hyper: bool) -> Result<String> {
    let mut a = Vec::new();
    for p in params {
        a.push(tensor(g, u, *p)?);
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
    let fit = staged_callables(g, t);
    let c = g.pick(u, &fit)?.clone();
    let CallKind::Staged { params, hyper, .. } = &c.kind else { unreachable!("staged") };
    let a = call_args(g, u, params, *hyper)?;
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
    can_nested(g, w) && !g.scope.readable(Ty::Hyper).is_empty()
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
    let d = if g.chance(u, 1, 3)? { DType::F32 } else { DType::I32 };
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
