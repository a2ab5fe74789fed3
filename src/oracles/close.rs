//! Equality within a float tolerance: how the oracle compares a run whose
//! graphs ran on the GPU (`staged-gpu`) with the original. Everything but
//! floats compares exactly, as `Value`'s `==` does: ints, bools, strings,
//! structure, dtypes and shapes; floats (Python floats and tensor elements)
//! are accepted within the run's tolerance (`Outcome::tolerance`: the
//! loosest op's bound from stagecheck-gpu's table, times
//! `tensors::CHAIN`), NaN equal to NaN. Printed output compares line by
//! line, numbers in it within the tolerance (float32 text in float32 ULPs;
//! integers exactly, whatever the tolerance) and the text between them
//! exactly but for the spaces around numbers (`text_close`).

use crate::executor::Value;
use stagecheck_gpu::Tolerance;

/// `a` (the reference) and `b` are equal but for floats within `t`.
pub fn values_close(a: &Value, b: &Value, t: &Tolerance) -> bool {
    let all = |x: &[Value], y: &[Value]| x.len() == y.len() && x.iter().zip(y).all(|(p, q)| values_close(p, q, t));
    match (a, b) {
        (Value::Float(x), Value::Float(y)) => t.accepts_widened(f64::from_bits(*y), f64::from_bits(*x)),
        (Value::List(x), Value::List(y))
        | (Value::Tuple(x), Value::Tuple(y))
        | (Value::Set(x), Value::Set(y))
        | (Value::FrozenSet(x), Value::FrozenSet(y)) => all(x, y),
        (Value::Dict(x), Value::Dict(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|((ka, va), (kb, vb))| ka == kb && values_close(va, vb, t))
        }
        (Value::Instance { class: ca, attrs: xa, base: ba }, Value::Instance { class: cb, attrs: xb, base: bb }) => {
            ca == cb
                && xa.len() == xb.len()
                && xa.iter().zip(xb).all(|((na, va), (nb, vb))| na == nb && values_close(va, vb, t))
                && match (ba, bb) {
                    (Some(p), Some(q)) => values_close(p, q, t),
                    (p, q) => p == q,
                }
        }
        (Value::Tensor { dtype: da, shape: sa, values: va }, Value::Tensor { dtype: db, shape: sb, values: vb }) => {
            da == db && sa == sb && values_close(va, vb, t)
        }
        _ => a == b,
    }
}

/// Printed text `a` (the reference) and `b`, equal but for numbers within
/// `t` and the width of the spaces between tokens (a printed tensor pads its
/// columns to its longest number, which a last digit changes).
pub fn text_close(a: &str, b: &str, t: &Tolerance) -> bool {
    let (x, y) = (tokens(a), tokens(b));
    x.len() == y.len()
        && x.iter().zip(&y).all(|(p, q)| match (p, q) {
            (Token::Number(m), Token::Number(n)) => m == n || numbers_close(m, n, t),
            _ => p == q,
        })
}

/// Two printed numbers: as float64 values, or as the float32 values they
/// denote (a float32 tensor prints its shortest float32 text, which is not
/// a float64 of the same value: `0.7310586`), ULPs counted in float32.
/// Integers (no `.`, no exponent: how Python and `sc` print an int or an
/// integer tensor) compare exactly: no float tolerance excuses an integer
/// off by one.
fn numbers_close(want: &str, got: &str, t: &Tolerance) -> bool {
    let integer = |s: &str| !s.contains(['.', 'e', 'E']);
    if integer(want) && integer(got) {
        return want == got;
    }
    let as64 = matches!((want.parse::<f64>(), got.parse::<f64>()), (Ok(w), Ok(g)) if t.accepts_widened(g, w));
    as64 || matches!((want.parse::<f32>(), got.parse::<f32>()), (Ok(w), Ok(g)) if t.accepts_widened(g.into(), w.into()))
}

#[derive(Debug, PartialEq)]
enum Token<'a> {
    Text(&'a str),
    Number(&'a str),
}

/// Decimal numbers (`-1.5e-07`, `3`, `.5`) and the text between them.
fn tokens(s: &str) -> Vec<Token<'_>> {
    let b = s.as_bytes();
    let digit = |i: usize| b.get(i).is_some_and(u8::is_ascii_digit);
    let mut out = Vec::new();
    let (mut i, mut text) = (0, 0);
    let word = |k: usize| b.get(k).is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_');
    // Where the number starting at `i` ends, if one does: decimal digits, or
    // `inf`/`nan` (signed too), since a printed tensor pads its columns
    // before them as before digits (`[      -inf -3.0000002]`).
    let number_end = |i: usize| -> Option<usize> {
        let sign = matches!(b[i], b'-' | b'+') as usize;
        let name = &b[i + sign..b.len().min(i + sign + 3)];
        if (name == b"inf" || name == b"nan") && !word(i + sign + 3) {
            return Some(i + sign + 3);
        }
        let starts = digit(i)
            || (matches!(b[i], b'-' | b'+' | b'.') && (digit(i + 1) || (b[i] != b'.' && b.get(i + 1) == Some(&b'.') && digit(i + 2))));
        if !starts {
            return None;
        }
        let mut j = i + 1;
        while j < b.len()
            && (b[j].is_ascii_digit()
                || b[j] == b'.'
                || ((b[j] == b'e' || b[j] == b'E') && (digit(j + 1) || (matches!(b.get(j + 1), Some(b'-' | b'+')) && digit(j + 2)))))
        {
            j += if b[j] == b'e' || b[j] == b'E' { 2 } else { 1 };
        }
        Some(j)
    };
    while i < b.len() {
        let Some(j) = number_end(i) else {
            i += 1;
            continue;
        };
        // A number glued to a word (`x1`, `a-1`, `a-inf`) stays text.
        if i > 0 && word(i - 1) {
            i = j;
            continue;
        }
        if text < i {
            out.push(Token::Text(&s[text..i]));
        }
        out.push(Token::Number(&s[i..j]));
        (i, text) = (j, j);
    }
    if text < b.len() {
        out.push(Token::Text(&s[text..]));
    }
    out.into_iter()
        .filter_map(|t| match t {
            Token::Text(x) => {
                let x = x.trim();
                (!x.is_empty()).then_some(Token::Text(x))
            }
            n => Some(n),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(x: f64) -> Value {
        Value::Float(x.to_bits())
    }

    const T: Tolerance = Tolerance { ulps: 4, abs: 0.0, rel: 0.0 };

    #[test]
    fn floats_within_ulps_are_close_and_beyond_are_not() {
        let x = 0.1f32;
        let next = f32::from_bits(x.to_bits() + 3);
        let far = f32::from_bits(x.to_bits() + 5);
        assert!(values_close(&f(x.into()), &f(next.into()), &T));
        assert!(!values_close(&f(x.into()), &f(far.into()), &T));
        assert!(values_close(&f(f64::NAN), &f(-f64::NAN), &T));
        assert!(!values_close(&Value::Int("1".into()), &Value::Int("2".into()), &T));
        let tensor = |v: Vec<Value>| Value::Tensor { dtype: "float32".into(), shape: vec![v.len()], values: Box::new(Value::List(v)) };
        assert!(values_close(&tensor(vec![f(1.0), f(x.into())]), &tensor(vec![f(1.0), f(next.into())]), &T));
        assert!(!values_close(&tensor(vec![f(1.0)]), &tensor(vec![f(1.0), f(1.0)]), &T));
    }

    #[test]
    fn printed_numbers_compare_within_the_tolerance_and_text_exactly() {
        let x = 0.1f32;
        let next = f32::from_bits(x.to_bits() + 2);
        let (a, b) = (format!("loss: {} at step 3", f64::from(x)), format!("loss: {} at step 3", f64::from(next)));
        assert!(text_close(&a, &b, &T));
        assert!(!text_close(&a, &b.replace("step", "stop"), &T));
        assert!(!text_close("x1 = 2", "x2 = 2", &T));
        assert!(!text_close("[1.0, 2.0]", "[1.0, 2.5]", &T));
        let loose = Tolerance { ulps: 0, abs: 16.0, rel: 0.0 };
        assert!(!text_close("q = 7", "q = 8", &loose), "printed ints are exact whatever the tolerance");
        assert!(text_close("q = 7.0", "q = 8.0", &loose));
        let (c, d) = (format!("[[ {}   0.5 ]]", f64::from(x)), format!("[[ {}  0.5 ]]", f64::from(next)));
        assert!(text_close(&c, &d, &T), "column padding is not compared");
        assert!(!text_close("a b", "ab", &T));
        // float32 text: shortest digits, ULPs in float32 (0.7310586 and 0.73105854 are 1 apart).
        assert!(text_close("sc.Tensor(0.7310586, shape=())", "sc.Tensor(0.73105854, shape=())", &T));
        assert!(!text_close("sc.Tensor(0.7310586, shape=())", "sc.Tensor(0.7310596, shape=())", &T));
        assert_eq!(tokens("a-1 -1.5e-07,x"), vec![Token::Text("a-1"), Token::Number("-1.5e-07"), Token::Text(",x")]);
        // inf and nan are numbers too, so the padding before them is not compared (a fuzz finding: a
        // Variable printed after a GPU graph updated it); inside a word they stay text.
        assert!(text_close("numpy=[-inf -3.  -2.5]>", "numpy=[      -inf -3.0000002 -2.5000002]>", &T));
        assert!(!text_close("[-inf 1.]", "[inf 1.]", &T));
        assert!(!text_close("[nan 1.]", "[inf 1.]", &T));
        assert_eq!(tokens("info nan,-inf"), vec![Token::Text("info"), Token::Number("nan"), Token::Text(","), Token::Number("-inf")]);
    }
}
