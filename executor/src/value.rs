//! The structural, deterministic rendering of a Python value.
//!
//! Two runs agree on a value when their `Value`s are equal: ints exactly (any
//! size), floats bit for bit (so `-0.0 != 0.0` and a NaN equals a NaN of the
//! same bits), containers element-wise, sets in a canonical order, functions
//! and classes by qualified name, instances by class and attributes. Nothing
//! that depends on addresses (ids, default reprs) ever enters a `Value`.
//! Long strs, bytes and ints enter abbreviated, by length and hash
//! ([`crate::bounds`]), so that a `Value` is bounded in bytes.

use serde::{Deserialize, Serialize};
use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", content = "v", rename_all = "snake_case")]
pub enum Value {
    None,
    Bool(bool),
    /// Decimal digits, arbitrary precision.
    Int(String),
    /// IEEE-754 bits of the float.
    Float(u64),
    /// Real and imaginary IEEE-754 bits.
    Complex(u64, u64),
    Str(String),
    Bytes(Vec<u8>),
    /// `bytearray`, distinct from `bytes` as in Python.
    ByteArray(Vec<u8>),
    List(Vec<Value>),
    Tuple(Vec<Value>),
    /// Entries in insertion order, as Python iterates them.
    Dict(Vec<(Value, Value)>),
    /// Elements sorted canonically: iteration order of a set is not part of its meaning.
    Set(Vec<Value>),
    FrozenSet(Vec<Value>),
    /// `range(start, stop, step)`.
    Range(Box<(Value, Value, Value)>),
    Function {
        qualname: String,
    },
    Class {
        qualname: String,
    },
    Module {
        name: String,
    },
    /// An instance of a user class: its class's qualified name, its attributes
    /// sorted by name, and, for subclasses of builtin containers and scalars,
    /// the builtin value it carries.
    Instance {
        class: String,
        attrs: Vec<(String, Value)>,
        base: Option<Box<Value>>,
    },
    /// A value already being rendered further up: a reference cycle, given as
    /// the number of levels up where the cycle closes.
    Cycle(usize),
    /// Rendering stopped here (nesting or size budget exhausted).
    Truncated,
    /// Any other object, by type name only (its repr may hold an address).
    Opaque {
        type_name: String,
    },
    /// An `sc.Tensor`: dtype, shape and elements (nested lists of `Bool`,
    /// `Int` or `Float` bits: float32 elements widened exactly).
    Tensor {
        dtype: String,
        shape: Vec<usize>,
        values: Box<Value>,
    },
    /// A str, bytes, bytearray (`of`) or int too long to render whole
    /// ([`crate::bounds`]): its length (characters, bytes; an int's bit
    /// length), its head (first characters, bytes escaped; an int's sign)
    /// and the SHA-256 of all of it, so that long values compare as wholes.
    Long {
        of: String,
        len: u64,
        head: String,
        sha256: String,
    },
}

/// Python's `repr` of a float, which round-trips and is what users read.
pub fn float_repr(x: f64) -> String {
    if x.is_nan() {
        "nan".into()
    } else if x.is_infinite() {
        if x > 0.0 {
            "inf".into()
        } else {
            "-inf".into()
        }
    } else if x == x.trunc() && x.abs() < 1e16 {
        format!("{x:.1}")
    } else {
        let s = format!("{x:?}");
        // Rust writes 1e-7 where Python writes 1e-07.
        match s.split_once('e') {
            Some((m, e)) => {
                let (sign, digits) = match e.strip_prefix('-') {
                    Some(d) => ("-", d),
                    None => ("+", e),
                };
                format!("{m}e{sign}{digits:0>2}")
            }
            None => s,
        }
    }
}

fn write_seq(f: &mut fmt::Formatter<'_>, open: &str, items: &[Value], close: &str) -> fmt::Result {
    f.write_str(open)?;
    for (i, v) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{v}")?;
    }
    f.write_str(close)
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::None => f.write_str("None"),
            Value::Bool(b) => f.write_str(if *b { "True" } else { "False" }),
            Value::Int(s) => f.write_str(s),
            Value::Float(bits) => f.write_str(&float_repr(f64::from_bits(*bits))),
            Value::Complex(re, im) => write!(f, "({}+{}j)", float_repr(f64::from_bits(*re)), float_repr(f64::from_bits(*im))),
            Value::Str(s) => write!(f, "{s:?}"),
            Value::Bytes(b) => write!(f, "b{:?}", String::from_utf8_lossy(b)),
            Value::ByteArray(b) => write!(f, "bytearray(b{:?})", String::from_utf8_lossy(b)),
            Value::List(items) => write_seq(f, "[", items, "]"),
            Value::Tuple(items) if items.len() == 1 => write!(f, "({},)", items[0]),
            Value::Tuple(items) => write_seq(f, "(", items, ")"),
            Value::Dict(entries) => {
                f.write_str("{")?;
                for (i, (k, v)) in entries.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{k}: {v}")?;
                }
                f.write_str("}")
            }
            Value::Set(items) if items.is_empty() => f.write_str("set()"),
            Value::Set(items) => write_seq(f, "{", items, "}"),
            Value::FrozenSet(items) => write_seq(f, "frozenset({", items, "})"),
            Value::Range(r) => write!(f, "range({}, {}, {})", r.0, r.1, r.2),
            Value::Function { qualname } => write!(f, "<function {qualname}>"),
            Value::Class { qualname } => write!(f, "<class {qualname}>"),
            Value::Module { name } => write!(f, "<module {name}>"),
            Value::Instance { class, attrs, base } => {
                write!(f, "<{class}")?;
                if let Some(base) = base {
                    write!(f, " {base}")?;
                }
                for (k, v) in attrs {
                    write!(f, " {k}={v}")?;
                }
                f.write_str(">")
            }
            Value::Cycle(up) => write!(f, "<cycle {up} up>"),
            Value::Truncated => f.write_str("..."),
            Value::Opaque { type_name } => write!(f, "<{type_name} object>"),
            Value::Tensor { dtype, shape, values } => write!(f, "sc.Tensor({values}, dtype={dtype}, shape={shape:?})"),
            Value::Long { of, len, head, sha256 } if of == "int" => write!(f, "<{head}int of {len} bits, sha256 {sha256}>"),
            Value::Long { of, len, head, sha256 } => {
                let unit = if of == "str" { "chars" } else { "bytes" };
                write!(f, "<{of} of {len} {unit}, {head:?}…, sha256 {sha256}>")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_repr_matches_python() {
        assert_eq!(float_repr(1.0), "1.0");
        assert_eq!(float_repr(-0.0), "-0.0");
        assert_eq!(float_repr(0.1), "0.1");
        assert_eq!(float_repr(1e-7), "1e-07");
        assert_eq!(float_repr(1.5e300), "1.5e+300");
        assert_eq!(float_repr(f64::NAN), "nan");
        assert_eq!(float_repr(f64::NEG_INFINITY), "-inf");
    }

    #[test]
    fn floats_compare_by_bits() {
        assert_ne!(Value::Float(0.0f64.to_bits()), Value::Float((-0.0f64).to_bits()));
        assert_eq!(Value::Float(f64::NAN.to_bits()), Value::Float(f64::NAN.to_bits()));
    }
}
