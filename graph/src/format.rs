//! NumPy-style printing of tensors, deterministic in both execution paths.
//!
//! Scalars print as Python does (`3`, `2.5`, `1.0`, `True`, `nan`, `-inf`,
//! `1e+16`). Arrays print like NumPy's `str`: `[1 2 3]`, `[[1. 2.]\n [3. 4.]]`,
//! elements padded to a common width (ints and bools right-aligned, floats
//! aligned on the point), integral floats as `1.`. Departures from NumPy, so
//! the text is exact and simple: float digits are the shortest round-trip repr
//! (NumPy stops at 8 significant digits), each float picks positional or
//! exponent form alone (NumPy switches a whole array), long arrays are never
//! summarised with `...` and lines are never wrapped.

use crate::tensor::{Data, Tensor};
use std::fmt;

/// Python's `repr` of a float: shortest round-trip digits, positional when the
/// decimal exponent is in `-4..16`, else `1e+16` / `1.5e-05` form.
pub fn float64_repr(x: f64) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf".into() } else { "-inf".into() };
    }
    python_style(&format!("{x:e}"))
}

/// `float64_repr` for `f32`, with the shortest digits that round-trip as `f32`
/// (NumPy prints `np.float32(0.1)` as `0.1`).
pub fn float32_repr(x: f32) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf".into() } else { "-inf".into() };
    }
    python_style(&format!("{x:e}"))
}

/// Rewrites Rust's shortest `{:e}` text (`-1.25e-5`) in Python's repr style.
fn python_style(lower_exp: &str) -> String {
    let (negative, body) = match lower_exp.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, lower_exp),
    };
    let (mantissa, exp) = body.split_once('e').unwrap_or((body, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(|c| c.is_ascii_digit()).collect();
    let mut out = String::with_capacity(digits.len() + 8);
    if negative {
        out.push('-');
    }
    if (-4..16).contains(&exp) {
        if exp >= 0 {
            let point = exp as usize + 1;
            if digits.len() <= point {
                out.push_str(&digits);
                out.extend(std::iter::repeat_n('0', point - digits.len()));
                out.push_str(".0");
            } else {
                out.push_str(&digits[..point]);
                out.push('.');
                out.push_str(&digits[point..]);
            }
        } else {
            out.push_str("0.");
            out.extend(std::iter::repeat_n('0', (-exp - 1) as usize));
            out.push_str(&digits);
        }
    } else {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        out.push('e');
        out.push(if exp < 0 { '-' } else { '+' });
        out.push_str(&format!("{:02}", exp.unsigned_abs()));
    }
    out
}

/// The texts of all elements (row-major), padded to a common width.
fn element_texts(data: &Data) -> Vec<String> {
    match data {
        Data::Bool(a) => right_align(a.iter().map(|&b| if b { "True" } else { "False" }.to_string()).collect()),
        Data::I32(a) => right_align(a.iter().map(i32::to_string).collect()),
        Data::I64(a) => right_align(a.iter().map(i64::to_string).collect()),
        Data::F32(a) => align_floats(a.iter().map(|&x| array_float(float32_repr(x))).collect()),
        Data::F64(a) => align_floats(a.iter().map(|&x| array_float(float64_repr(x))).collect()),
    }
}

/// NumPy writes integral floats in arrays as `1.`, not `1.0`.
fn array_float(repr: String) -> String {
    match repr.strip_suffix(".0") {
        Some(stem) if !repr.contains('e') => format!("{stem}."),
        _ => repr,
    }
}

fn right_align(texts: Vec<String>) -> Vec<String> {
    let width = texts.iter().map(String::len).max().unwrap_or(0);
    texts.into_iter().map(|t| format!("{t:>width$}")).collect()
}

/// Positional floats line up on the point; `nan`, `inf` and exponent forms are
/// right-aligned to the full width.
fn align_floats(texts: Vec<String>) -> Vec<String> {
    let positional = |t: &str| t.contains('.') && !t.contains('e');
    let split = |t: &str| t.split_once('.').map(|(l, r)| (l.len(), r.len())).unwrap_or((t.len(), 0));
    let left = texts.iter().filter(|t| positional(t)).map(|t| split(t).0).max().unwrap_or(0);
    let right = texts.iter().filter(|t| positional(t)).map(|t| split(t).1).max().unwrap_or(0);
    let others = texts.iter().filter(|t| !positional(t)).map(String::len).max().unwrap_or(0);
    let width = (left + 1 + right).max(others);
    texts
        .into_iter()
        .map(|t| {
            if positional(&t) {
                let (l, r) = split(&t);
                let padded = format!("{}{}{}", " ".repeat(left - l), t, " ".repeat(right - r));
                format!("{padded:>width$}")
            } else {
                format!("{t:>width$}")
            }
        })
        .collect()
}

/// Writes `texts` (row-major) nested as `shape`, NumPy's separators: a space
/// within a row, newlines (one per remaining axis beyond the last) between blocks.
fn write_nested(out: &mut String, texts: &mut std::slice::Iter<'_, String>, shape: &[usize], depth: usize) {
    out.push('[');
    let n = shape[0];
    for i in 0..n {
        if i > 0 {
            if shape.len() == 1 {
                out.push(' ');
            } else {
                out.extend(std::iter::repeat_n('\n', shape.len() - 1));
                out.extend(std::iter::repeat_n(' ', depth + 1));
            }
        }
        if shape.len() == 1 {
            if let Some(t) = texts.next() {
                out.push_str(t);
            }
        } else {
            write_nested(out, texts, &shape[1..], depth + 1);
        }
    }
    out.push(']');
}

/// The tensor as NumPy's `str` would print it (see the module doc).
pub fn format_tensor(t: &Tensor) -> String {
    if t.ndim() == 0 {
        return t.to_scalar().map(|s| s.to_string()).unwrap_or_default();
    }
    if t.is_empty() {
        return "[]".into();
    }
    let texts = element_texts(t.data());
    let mut out = String::new();
    write_nested(&mut out, &mut texts.iter(), t.shape(), 0);
    out
}

impl fmt::Display for Tensor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&format_tensor(self))
    }
}
