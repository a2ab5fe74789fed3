//! Bounds, in bytes, on what an outcome carries about a run: a
//! program controls the size of its values, names and exception messages, and
//! every byte of them used to reach `run --json`, `check`'s lines and the
//! reports, in full and once per reference (a 32 MiB string in a list six
//! times was 235 MB of JSON).
//!
//! - A str, bytes or bytearray longer than [`LONG`] renders as
//!   [`Value::Long`]: its length, its first [`HEAD`] characters (bytes
//!   escaped) and the SHA-256 of the whole (a str's with its addresses
//!   named, as the outcome's are), so two long values that differ
//!   anywhere still compare unequal and equal ones equal, in every mode; so
//!   does an int of more than [`INT_DIGITS`] decimal digits (by bit length and
//!   the hash of its magnitude: its decimal form is never computed).
//! - A name (attribute, class, function, file) or an exception message
//!   longer than [`LONG`] characters is [`text`]'s abbreviation of it.
//! - All of a run's rendered globals together are charged by [`cost`]
//!   against [`crate::render::MAX_UNITS`]; past it, `Value::Truncated`.
//!
//! The CPython side (targets/python/stagecheck_target.py) abbreviates alike,
//! character for character, so the oracle compares the same forms.

use crate::value::Value;
use sha2::{Digest, Sha256};
use std::borrow::Cow;

/// Characters (of a str, name or message) or bytes (of bytes) kept whole.
pub const LONG: usize = 4096;
/// Characters (bytes) of a long value's head.
pub const HEAD: usize = 64;
/// Hex digits of the SHA-256 kept (128 bits: no collision can be searched for).
const HASH_HEX: usize = 32;
/// The most decimal digits an int may have to be converted to a string:
/// CPython 3.11's default `sys.get_int_max_str_digits()`. The VM raises
/// CPython's ValueError beyond it (vendored rustpython-vm, PATCHES.md).
pub const INT_DIGITS: usize = 4300;
/// Bit length beyond which an int surely has more than [`INT_DIGITS`]
/// digits (2**14400 has 4335): no conversion is tried.
pub const INT_BITS: u64 = 14_400;

/// The SHA-256 of `bytes`, in hex, cut to [`HASH_HEX`] digits.
pub fn sha256(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    hex.truncate(HASH_HEX);
    hex
}

/// `s` itself, or when longer than [`LONG`] characters its head, its length
/// and its hash: `abc…<5000 chars, sha256 0123…>`. All three are of `s`
/// with its addresses named ([`crate::addresses::named`]): default reprs in
/// a long text would otherwise make two runs' hashes differ.
pub fn text(s: &str) -> Cow<'_, str> {
    match s.char_indices().nth(LONG) {
        None => Cow::Borrowed(s),
        Some(_) => {
            let s = crate::addresses::named(s);
            let head: String = s.chars().take(HEAD).collect();
            let len = s.chars().count();
            Cow::Owned(format!("{head}…<{len} chars, sha256 {}>", sha256(s.as_bytes())))
        }
    }
}

/// Bytes as text: printable ASCII but `\` as is, the rest `\xNN`.
pub fn escaped(bytes: &[u8]) -> String {
    bytes.iter().map(|&b| if (32..127).contains(&b) && b != b'\\' { (b as char).to_string() } else { format!("\\x{b:02x}") }).collect()
}

/// A long str (lossy) as a [`Value::Long`], its addresses named as in [`text`].
pub fn long_str(s: &str) -> Value {
    let s = crate::addresses::named(s);
    let head = s.chars().take(HEAD).collect();
    let len = s.chars().count() as u64;
    Value::Long { of: "str".into(), len, head, sha256: sha256(s.as_bytes()) }
}

/// Bytes or a bytearray (`of`) as a [`Value::Long`].
pub fn long_bytes(of: &str, b: &[u8]) -> Value {
    let head = escaped(&b[..b.len().min(HEAD)]);
    Value::Long { of: of.into(), len: b.len() as u64, head, sha256: sha256(b) }
}

/// An int too long to convert, by sign, bit length and the hash of its
/// magnitude's bytes, least significant first.
pub fn long_int(negative: bool, bits: u64, magnitude_le: &[u8]) -> Value {
    let head = if negative { "-" } else { "" }.into();
    Value::Long { of: "int".into(), len: bits, head, sha256: sha256(magnitude_le) }
}

/// What a rendered value at `depth` costs of a run's budget: 16 units a
/// node, 2 a level of depth (the indentation of pretty-printed JSON), 1 a
/// byte of its own text (a container's elements are charged as they are
/// rendered). A unit is at most ~7 bytes of JSON (`\u0000`, indentation).
pub fn cost(value: &Value, depth: usize) -> usize {
    let own = match value {
        Value::Int(s) | Value::Str(s) => s.len(),
        Value::Bytes(b) | Value::ByteArray(b) => b.len(),
        Value::Long { of, head, sha256, .. } => of.len() + head.len() + sha256.len() + 20,
        Value::Function { qualname } | Value::Class { qualname } => qualname.len(),
        Value::Module { name } => name.len(),
        Value::Opaque { type_name } => type_name.len(),
        Value::Instance { class, attrs, .. } => class.len() + attrs.iter().map(|(k, _)| k.len()).sum::<usize>(),
        Value::Tensor { dtype, values, .. } => dtype.len() + 8 * elements(values),
        _ => 0,
    };
    16 + 2 * depth + own
}

/// The elements of a rendered tensor's values (nested lists).
fn elements(values: &Value) -> usize {
    match values {
        Value::List(items) => items.iter().map(elements).sum(),
        _ => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_text_is_abbreviated_with_its_length_and_hash() {
        assert_eq!(text("short"), "short");
        let a = "x".repeat(LONG + 1);
        let b = format!("{}y", "x".repeat(LONG));
        let (ta, tb) = (text(&a), text(&b));
        assert!(ta.starts_with(&"x".repeat(HEAD)) && ta.contains("<4097 chars, sha256 "), "{ta}");
        assert!(ta.len() < 200);
        assert_ne!(ta, tb);
    }

    #[test]
    fn addresses_in_a_long_text_are_named_before_hashing() {
        let at = |a: &str, b: &str| format!("{}<f at 0x{a}> <g at 0x{b}>", "x".repeat(LONG));
        assert_eq!(text(&at("7f0000001111", "7f0000002222")), text(&at("5500000033", "5500000044")));
        assert_ne!(text(&at("7f0000001111", "7f0000001111")), text(&at("5500000033", "5500000044")));
        assert_eq!(long_str(&at("7f0000001111", "7f0000002222")), long_str(&at("5500000033", "5500000044")));
    }

    #[test]
    fn bytes_are_escaped() {
        assert_eq!(escaped(b"a\\\x00\xff "), "a\\x5c\\x00\\xff ");
    }
}
