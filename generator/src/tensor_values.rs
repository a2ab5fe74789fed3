//! Tensor family: the values and ops where dtypes bite: NaN,
//! ±inf, ±0 and float overflow (`special_values`), integer wrap-around
//! (`int_overflow`), division by zero (`division_by_zero`: floats give
//! inf/NaN, integer `//` and `%` raise `ZeroDivisionError`, caught at the top
//! level; sometimes into an empty result, which raises nothing), integer
//! powers with negative exponents (`int_power`: ValueError, caught at the
//! top level), bitwise `&`, `|`, `^`, `~` on ints and bools (`bitwise`), comparisons
//! giving bool tensors (`compare_tensor`), bool tensors as conditions
//! (`bool_condition`) and slicing (`slicing`). Each a row of the table,
//! gated by its `Config` switch.
//!
//! Every value-dependent error is one the original raises too, computed by
//! the same kernel in every mode: the only ones written on purpose are the
//! integer division by zero and the negative integer power; loop bounds and indices never depend on these
//! values (`% 5` bounds, literal indices).

use crate::gen::Gen;
use crate::table::Want;
use crate::tensor_expr::{bool_tensor, constant_of, py_scalar, tensor, value_text_with, want_tensor};
use crate::types::{DType, Shape, TTy};
use arbitrary::{Result, Unstructured};

/// A float element that is special: NaN, ±inf, ±0, huge, tiny, or ordinary.
fn special_float(u: &mut Unstructured, d: DType) -> Result<String> {
    const F32: [&str; 10] = ["float('nan')", "float('inf')", "-float('inf')", "-0.0", "0.0", "3e38", "-3e38", "1e-40", "1.5", "-2.0"];
    const F64: [&str; 10] = ["float('nan')", "float('inf')", "-float('inf')", "-0.0", "0.0", "1.7e308", "-1e308", "5e-324", "1.5", "-2.0"];
    let x = if d == DType::F64 { &F64 } else { &F32 };
    Ok(x[u.choose_index(x.len())?].to_string())
}

/// An integer element at or near its dtype's limits, or an ordinary one.
fn extreme_int(u: &mut Unstructured, d: DType) -> Result<String> {
    const I32: [&str; 6] = ["2147483647", "-2147483648", "2147483646", "-2147483647", "0", "1"];
    const I64: [&str; 6] = ["9223372036854775807", "-9223372036854775808", "4611686018427387904", "-1", "0", "3"];
    let x = if d == DType::I64 { &I64 } else { &I32 };
    Ok(x[u.choose_index(x.len())?].to_string())
}

/// A constant of `t` whose elements may be special (floats) or extreme (ints):
/// also what the top level passes in, sometimes.
pub fn special_constant(u: &mut Unstructured, t: TTy) -> Result<String> {
    let d = t.dtype;
    let text = value_text_with(u, t.shape, &mut |u| match d {
        DType::F32 | DType::F64 => special_float(u, d),
        DType::I32 | DType::I64 => extreme_int(u, d),
        DType::Bool => py_scalar(u, d),
    })?;
    // A float32 constant of float64 text rounds (3e38 stays finite, 1e-40 is subnormal).
    Ok(if d == DType::F32 { format!("sc.constant({text}, sc.float32)") } else { constant_of(text, d) })
}

pub fn can_special(_: &Gen, w: Want) -> bool {
    want_tensor(w).is_some_and(|t| t.dtype.is_float())
}

/// A float tensor holding NaN, ±inf or ±0, or one computing them: `log`
/// and `sqrt` of negatives, `exp` overflowing, a product past the largest
/// float.
pub fn special_values(g: &mut Gen, u: &mut Unstructured, w: Want) -> Result<String> {
    let t = want_tensor(w).expect("a tensor");
    if !g.can_nest_expr() || g.chance(u, 1, 2)? {
        return special_constant(u, t);
    }
    let a = tensor(g, u, t)?;
    Ok(match u.int_in_range(0..=5)? {
        0 => format!("sc.log({a})"),
        1 => format!("sc.sqrt({a})"),
        2 => format!("sc.exp({a} * 100.0)"),
        3 => format!("({a} * {})", if t.dtype == DType::F64 { "1e308" } else { "3e38" }),
        4 => format!("(-{a} * 0.0)"),
        5 if g.chance(u, 1, 2)? => format!("({a} - {a})"),
        // A negative base to a fractional power is NaN.
        _ => format!("({a} ** {})", tensor(g, u, t)?),
    })
}

pub fn can_broadcast(g: &Gen, w: Want) -> bool {
    want_tensor(w).is_some_and(|t| t.dtype.is_num() && t.shape != Shape::Scalar) && g.can_nest_expr()
}

/// A binary op of a tensor and one of a smaller shape that broadcasts to
/// it: a scalar tensor, a row vector, a `1 x c` or an `r x 1` matrix.
pub fn broadcast(g: &mut Gen, u: &mut Unstructured, w: Want) -> Result<String> {
    let t = want_tensor(w).expect("a tensor");
    let small = match t.shape {
        Shape::Mat(r, c) => *g.pick(u, &[Shape::Scalar, Shape::Vec(c), Shape::Mat(1, c), Shape::Mat(r, 1)])?,
        _ => Shape::Scalar,
    };
    let a = tensor(g, u, t)?;
    let b = tensor(g, u, TTy::new(t.dtype, small))?;
    let (a, b) = if g.chance(u, 1, 2)? { (a, b) } else { (b, a) };
    Ok(match u.int_in_range(0..=4)? {
        0 => format!("({a} + {b})"),
        1 => format!("({a} - {b})"),
        2 => format!("({a} * {b})"),
        3 => format!("sc.maximum({a}, {b})"),
        _ => format!("sc.minimum({a}, {b})"),
    })
}

pub fn can_int(g: &Gen, w: Want) -> bool {
    want_tensor(w).is_some_and(|t| t.dtype.is_int()) && g.can_nest_expr()
}

/// Integer arithmetic past the dtype's range: it wraps (TensorFlow's).
pub fn int_overflow(g: &mut Gen, u: &mut Unstructured, w: Want) -> Result<String> {
    let t = want_tensor(w).expect("a tensor");
    let max = if t.dtype == DType::I64 { "9223372036854775807" } else { "2147483647" };
    if g.chance(u, 1, 3)? {
        return special_constant(u, t);
    }
    let a = tensor(g, u, t)?;
    Ok(match u.int_in_range(0..=5)? {
        0 => format!("({a} + {max})"),
        1 => format!("({a} * {max})"),
        2 => format!("(-{max} - {a} - 2)"),
        3 => format!("({a} ** 33)"),
        4 => format!("(-({a} + {max} + 1))"),
        _ => format!("sc.abs({a} - {max} - 1)"),
    })
}

pub fn can_div(g: &Gen, w: Want) -> bool {
    want_tensor(w).is_some_and(|t| t.dtype.is_num()) && g.can_nest_expr()
}

/// A division whose divisor may be zero: floats give ±inf or NaN; integer
/// `//` and `%` raise `ZeroDivisionError` (caught around each top-level call).
pub fn division_by_zero(g: &mut Gen, u: &mut Unstructured, w: Want) -> Result<String> {
    let t = want_tensor(w).expect("a tensor");
    let a = tensor(g, u, t)?;
    let b = if g.chance(u, 1, 3)? { crate::tensor_expr::constant(u, t)? } else { tensor(g, u, t)? };
    if t.dtype.is_int() {
        g.tensor.raises.caught.insert("ZeroDivisionError");
        let op = g.pick(u, &["//", "%"])?;
        if g.chance(u, 1, 4)? {
            return empty_division(g, u, t, a, op);
        }
        return Ok(format!("({a} {op} {b})"));
    }
    Ok(match u.int_in_range(0..=4)? {
        0 => format!("({a} / 0.0)"),
        1 => format!("({a} // {b})"),
        2 => format!("({a} % {b})"),
        _ => format!("({a} / {b})"),
    })
}

/// An integer `//` or `%` whose result is empty, by a divisor holding a 0
/// broadcast into it: TensorFlow returns the empty tensor (no element is
/// divided), so nothing raises. Joined to `a` (`t`) so it shows: a concat
/// along the first axis, or `+` the empty result's sum (0) for a scalar.
fn empty_division(g: &mut Gen, u: &mut Unstructured, t: TTy, a: String, op: &str) -> Result<String> {
    let d = t.dtype;
    let zero = constant_of("0".into(), d);
    let scalar_divisor = |g: &mut Gen, u: &mut Unstructured| -> Result<String> {
        Ok(if g.chance(u, 1, 2)? { zero.clone() } else { tensor(g, u, TTy::new(d, Shape::Scalar))? })
    };
    Ok(match t.shape {
        Shape::Scalar => {
            let b = scalar_divisor(g, u)?;
            format!("({a} + sc.reduce_sum(sc.zeros([0], {}) {op} {b}))", d.sc())
        }
        Shape::Vec(_) => {
            let b = scalar_divisor(g, u)?;
            format!("sc.concat([{a}, (sc.zeros([0], {}) {op} {b})], 0)", d.sc())
        }
        Shape::Mat(_, c) => {
            // A row of divisors, one of them 0, or a scalar one.
            let b = if g.chance(u, 1, 2)? {
                let at = u.int_in_range(0..=c - 1)?;
                let row: Vec<String> = (0..c).map(|i| if i == at { "0".to_string() } else { (i + 1).to_string() }).collect();
                constant_of(format!("[{}]", row.join(", ")), d)
            } else {
                scalar_divisor(g, u)?
            };
            format!("sc.concat([{a}, (sc.zeros([0, {c}], {}) {op} {b})], 0)", d.sc())
        }
    })
}

/// `a ** b` of integer tensors, `b` a constant of small exponents: a
/// negative one (a third of the time) makes TensorFlow raise
/// InvalidArgumentError (ValueError here: caught at the top level).
pub fn int_power(g: &mut Gen, u: &mut Unstructured, w: Want) -> Result<String> {
    let t = want_tensor(w).expect("a tensor");
    let a = tensor(g, u, t)?;
    let negative = g.chance(u, 1, 3)?;
    if negative {
        g.tensor.raises.caught.insert("ValueError");
    }
    let lo = if negative { -2 } else { 0 };
    let text = value_text_with(u, t.shape, &mut |u| Ok(u.int_in_range(lo..=3)?.to_string()))?;
    // At least one negative exponent where one was meant.
    let text = if negative && !text.contains('-') { text.replacen(|c: char| c.is_ascii_digit(), "-1", 1) } else { text };
    Ok(format!("({a} ** {})", constant_of(text, t.dtype)))
}

pub fn can_bitwise(g: &Gen, w: Want) -> bool {
    want_tensor(w).is_some_and(|t| !t.dtype.is_float()) && g.can_nest_expr()
}

/// `&`, `|`, `^` and `~` of int or bool tensors.
pub fn bitwise(g: &mut Gen, u: &mut Unstructured, w: Want) -> Result<String> {
    let t = want_tensor(w).expect("a tensor");
    let a = tensor(g, u, t)?;
    Ok(match u.int_in_range(0..=3)? {
        0 => format!("({a} & {})", tensor(g, u, t)?),
        1 => format!("({a} | {})", tensor(g, u, t)?),
        2 => format!("({a} ^ {})", tensor(g, u, t)?),
        _ => format!("(~{a})"),
    })
}

pub fn can_compare_tensor(g: &Gen, w: Want) -> bool {
    want_tensor(w).is_some_and(|t| t.dtype == DType::Bool) && g.can_nest_expr()
}

/// A bool tensor from an elementwise comparison (bools compared with `==`/`!=`).
pub fn compare_tensor(g: &mut Gen, u: &mut Unstructured, w: Want) -> Result<String> {
    let t = want_tensor(w).expect("a tensor");
    if g.chance(u, 1, 4)? {
        let a = tensor(g, u, t)?;
        let b = tensor(g, u, t)?;
        let op = g.pick(u, &["==", "!="])?;
        return Ok(format!("({a} {op} {b})"));
    }
    bool_tensor(g, u, t.shape)
}

pub fn can_bool_condition(g: &Gen, w: Want) -> bool {
    w == Want::TCond && g.cfg.allow_wide_dtypes && g.can_nest_expr()
}

/// A scalar bool tensor as a staged test (a name, a cast, a reduction's comparison...).
pub fn bool_condition(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    tensor(g, u, TTy::new(DType::Bool, Shape::Scalar))
}

pub fn can_slicing(g: &Gen, w: Want) -> bool {
    want_tensor(w).is_some_and(|t| t.shape != Shape::Scalar) && g.can_nest_expr()
}

/// A slice `start:stop:step` of `n` items giving `len` of them (`len <= n`).
fn slice_for(g: &Gen, u: &mut Unstructured, n: u8, len: u8) -> Result<String> {
    if len == n && g.chance(u, 1, 3)? {
        return Ok(if g.chance(u, 1, 2)? { ":".into() } else { "::-1".into() });
    }
    let start = u.int_in_range(0..=n - len)?;
    Ok(match u.int_in_range(0..=2)? {
        0 => format!("{start}:{}", start + len),
        1 if start + len == n => format!("{start}:"),
        1 => format!("-{}:{}", n - start, (start + len) as i32 - n as i32),
        // Backwards from the slice's last item.
        _ if start == 0 => format!("{}::-1", len - 1),
        _ => format!("{}:{}:-1", start + len - 1, start - 1),
    })
}

/// Slicing: `v[a:b]`, `v[::-1]`, `m[i, :]`, `m[:, j]`, `m[a:b, c:d]`, `m[i, j]`.
pub fn slicing(g: &mut Gen, u: &mut Unstructured, w: Want) -> Result<String> {
    let t = want_tensor(w).expect("a tensor");
    let d = t.dtype;
    let more = |u: &mut Unstructured, k: u8| -> Result<u8> { Ok(k + u.int_in_range(0..=4 - k)?) };
    match t.shape {
        Shape::Vec(n) if g.chance(u, 1, 2)? => {
            let m = more(u, n)?;
            let a = tensor(g, u, TTy::new(d, Shape::Vec(m)))?;
            Ok(format!("{a}[{}]", slice_for(g, u, m, n)?))
        }
        Shape::Vec(n) => {
            // A row or a column of a matrix.
            let other = u.int_in_range(1..=4)?;
            let i = u.int_in_range(0..=other - 1)?;
            if g.chance(u, 1, 2)? {
                let a = tensor(g, u, TTy::new(d, Shape::Mat(other, n)))?;
                Ok(format!("{a}[{i}, :]"))
            } else {
                let a = tensor(g, u, TTy::new(d, Shape::Mat(n, other)))?;
                Ok(format!("{a}[:, {}]", i as i32 - if g.chance(u, 1, 3)? { other as i32 } else { 0 }))
            }
        }
        Shape::Mat(r, c) => {
            let (mr, mc) = (more(u, r)?, more(u, c)?);
            let a = tensor(g, u, TTy::new(d, Shape::Mat(mr, mc)))?;
            let rows = slice_for(g, u, mr, r)?;
            let cols = slice_for(g, u, mc, c)?;
            Ok(format!("{a}[{rows}, {cols}]"))
        }
        Shape::Scalar => unreachable!("can_slicing"),
    }
}
