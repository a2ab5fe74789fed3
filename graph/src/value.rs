//! Nested Python values: what `.numpy().tolist()`-style conversion yields, and
//! what `Tensor::from_value` accepts (`sc.constant([[1, 2], [3, 4]])`).

use crate::dtype::DType;
use crate::error::OpError;
use crate::tensor::Tensor;
use serde::{Deserialize, Serialize};

/// A Python scalar or a (nested) list of them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Value {
    Bool(bool),
    Int(i64),
    Float(f64),
    List(Vec<Value>),
}

impl Tensor {
    /// A tensor from a Python scalar or nested list (`sc.constant(value, dtype)`).
    ///
    /// The nesting must be rectangular. Without `dtype`, TF's choice: all bools →
    /// `bool`; all ints → `int32`, or `int64` when one does not fit; any float
    /// (ints may mix in) → `float32`; `[]` → `float32`. With `dtype`: bools only
    /// into `bool`; ints into any number dtype (range-checked for `int32`); floats
    /// into float dtypes, or into ints when integral and in range. Float values
    /// are rounded to `float32` as Rust's `as` does (nearest).
    pub fn from_value(value: &Value, dtype: Option<DType>) -> Result<Tensor, OpError> {
        let mut shape = Vec::new();
        let mut probe = value;
        while let Value::List(items) = probe {
            shape.push(items.len());
            match items.first() {
                Some(first) => probe = first,
                None => break,
            }
        }
        let mut leaves = Vec::new();
        collect_leaves(value, &shape, &mut leaves)?;
        let dtype = match dtype {
            Some(d) => d,
            None => infer_dtype(&leaves)?,
        };
        let bad = |v: &Value| OpError::invalid(format!("cannot convert {v:?} to a {dtype} tensor"));
        match dtype {
            DType::Bool => {
                let v = leaves.iter().map(|v| match v {
                    Value::Bool(b) => Ok(*b),
                    _ => Err(bad(v)),
                });
                Tensor::from_bool(v.collect::<Result<_, _>>()?, &shape)
            }
            DType::Int32 => {
                let v = leaves.iter().map(|v| as_int(v).and_then(|i| i32::try_from(i).ok()).ok_or_else(|| bad(v)));
                Tensor::from_i32(v.collect::<Result<_, _>>()?, &shape)
            }
            DType::Int64 => {
                let v = leaves.iter().map(|v| as_int(v).ok_or_else(|| bad(v)));
                Tensor::from_i64(v.collect::<Result<_, _>>()?, &shape)
            }
            DType::Float32 => {
                let v = leaves.iter().map(|v| as_float(v).map(|x| x as f32).ok_or_else(|| bad(v)));
                Tensor::from_f32(v.collect::<Result<_, _>>()?, &shape)
            }
            DType::Float64 => {
                let v = leaves.iter().map(|v| as_float(v).ok_or_else(|| bad(v)));
                Tensor::from_f64(v.collect::<Result<_, _>>()?, &shape)
            }
        }
    }
}

fn collect_leaves<'v>(value: &'v Value, shape: &[usize], out: &mut Vec<&'v Value>) -> Result<(), OpError> {
    match (value, shape.split_first()) {
        (Value::List(items), Some((&n, rest))) if items.len() == n => items.iter().try_for_each(|item| collect_leaves(item, rest, out)),
        (Value::List(_), _) | (_, Some(_)) => {
            Err(OpError::invalid("cannot convert a ragged nested list to a tensor (rows of different lengths)"))
        }
        (leaf, None) => {
            out.push(leaf);
            Ok(())
        }
    }
}

fn infer_dtype(leaves: &[&Value]) -> Result<DType, OpError> {
    if leaves.is_empty() {
        return Ok(DType::Float32);
    }
    let all = |f: fn(&Value) -> bool| leaves.iter().all(|v| f(v));
    if all(|v| matches!(v, Value::Bool(_))) {
        Ok(DType::Bool)
    } else if all(|v| matches!(v, Value::Int(_))) {
        let fits = leaves.iter().all(|v| matches!(v, Value::Int(i) if i32::try_from(*i).is_ok()));
        Ok(if fits { DType::Int32 } else { DType::Int64 })
    } else if all(|v| matches!(v, Value::Int(_) | Value::Float(_))) {
        Ok(DType::Float32)
    } else {
        Err(OpError::invalid("cannot convert a list mixing bools and numbers to a tensor"))
    }
}

fn as_int(v: &Value) -> Option<i64> {
    match *v {
        Value::Int(i) => Some(i),
        // Integral and in range: 2^63 is exactly representable and just out of range.
        Value::Float(x) if x.fract() == 0.0 && x >= -(2f64.powi(63)) && x < 2f64.powi(63) => Some(x as i64),
        _ => None,
    }
}

fn as_float(v: &Value) -> Option<f64> {
    match *v {
        Value::Int(i) => Some(i as f64),
        Value::Float(x) => Some(x),
        _ => None,
    }
}
