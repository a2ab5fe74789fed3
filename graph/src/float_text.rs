//! Exact text for floats in JSON and S-expressions: the shortest round-trip
//! repr (`0.1`, `-0.0`, `inf`, `1e+16`), `nan` for the default NaN and
//! `nan:0x...` (the bits) for any other, so parsing gives back the same bits.

use crate::format::{float32_repr, float64_repr};
use serde::{Deserialize, Deserializer, Serializer};

pub fn f64_to_text(x: f64) -> String {
    if x.is_nan() && x.to_bits() != f64::NAN.to_bits() {
        format!("nan:{:#018x}", x.to_bits())
    } else {
        float64_repr(x)
    }
}

pub fn f32_to_text(x: f32) -> String {
    if x.is_nan() && x.to_bits() != f32::NAN.to_bits() {
        format!("nan:{:#010x}", x.to_bits())
    } else {
        float32_repr(x)
    }
}

pub fn f64_from_text(s: &str) -> Option<f64> {
    match s.strip_prefix("nan:0x") {
        Some(hex) => u64::from_str_radix(hex, 16).ok().map(f64::from_bits).filter(|x| x.is_nan()),
        None => s.parse().ok(),
    }
}

pub fn f32_from_text(s: &str) -> Option<f32> {
    match s.strip_prefix("nan:0x") {
        Some(hex) => u32::from_str_radix(hex, 16).ok().map(f32::from_bits).filter(|x| x.is_nan()),
        None => s.parse().ok(),
    }
}

/// `#[serde(with = "crate::float_text::serde_f64")]`: an `f64` field as exact text.
pub mod serde_f64 {
    use super::*;

    pub fn serialize<S: Serializer>(x: &f64, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&f64_to_text(*x))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        let text = String::deserialize(d)?;
        f64_from_text(&text).ok_or_else(|| serde::de::Error::custom(format!("not a float: {text:?}")))
    }
}
