//! Python values in and out of tensors: `sc.constant([[1, 2], [3, 4]])`,
//! `t.numpy()`, and op attributes as JSON for the graph crate's `Op`.
//!
//! `constant`'s rules are TensorFlow's: bools give `bool`; ints `int32`
//! (`int64` when one does not fit); any float makes `float32`. A requested
//! dtype takes bools only as `bool` and floats only as a float dtype; an int
//! out of the dtype's range is an error, never a wrap; nested lists must be
//! rectangular.

use rustpython_vm::builtins::{PyDict, PyFloat, PyInt, PyList, PyStr, PyTuple};
use rustpython_vm::{AsObject, PyObjectRef, PyResult, VirtualMachine};
use stagecheck_graph::{DType, Tensor, Value};

enum Leaf {
    Bool(bool),
    Int(i128),
    Float(f64),
}

fn flatten(obj: &PyObjectRef, depth: usize, shape: &mut Vec<usize>, leaves: &mut Vec<Leaf>, vm: &VirtualMachine) -> PyResult<()> {
    let items: Option<Vec<PyObjectRef>> = if let Some(l) = obj.downcast_ref::<PyList>() {
        Some(l.borrow_vec().to_vec())
    } else {
        obj.downcast_ref::<PyTuple>().map(|t| t.as_slice().to_vec())
    };
    match items {
        Some(items) => {
            if shape.len() == depth {
                if leaves.is_empty() || depth == 0 {
                    shape.push(items.len());
                } else {
                    return Err(ragged(vm));
                }
            } else if shape[depth] != items.len() {
                return Err(ragged(vm));
            }
            for item in &items {
                flatten(item, depth + 1, shape, leaves, vm)?;
            }
            if items.is_empty() && shape.len() != depth + 1 {
                return Err(ragged(vm));
            }
            Ok(())
        }
        None => {
            if shape.len() != depth {
                return Err(ragged(vm));
            }
            let cls = obj.class();
            if cls.is(vm.ctx.types.bool_type) {
                leaves.push(Leaf::Bool(obj.clone().try_to_bool(vm)?));
            } else if let Some(i) = obj.downcast_ref::<PyInt>() {
                let v: i128 =
                    i.as_bigint().try_into().map_err(|_| vm.new_value_error("Can't convert Python int to a tensor: out of range"))?;
                leaves.push(Leaf::Int(v));
            } else if let Some(f) = obj.downcast_ref::<PyFloat>() {
                leaves.push(Leaf::Float(f.to_f64()));
            } else {
                return Err(vm.new_type_error(format!(
                    "Can't convert a {} to a tensor (bools, ints, floats and nested lists of them convert)",
                    cls.name()
                )));
            }
            Ok(())
        }
    }
}

fn ragged(vm: &VirtualMachine) -> rustpython_vm::builtins::PyBaseExceptionRef {
    vm.new_value_error("Can't convert non-rectangular Python sequence to Tensor.")
}

/// A Python value (scalar or nested lists/tuples) as a tensor of `dtype`
/// (inferred when `None`).
pub fn from_python(obj: &PyObjectRef, dtype: Option<DType>, vm: &VirtualMachine) -> PyResult<Tensor> {
    let mut shape = Vec::new();
    let mut leaves = Vec::new();
    flatten(obj, 0, &mut shape, &mut leaves, vm)?;
    let dtype = match dtype {
        Some(d) => d,
        None => infer(&leaves),
    };
    let wrong = |what: &str| vm.new_type_error(format!("Can't convert {what} to a tensor of dtype {dtype}"));
    let built = match dtype {
        DType::Bool => {
            let v = leaves
                .iter()
                .map(|l| match l {
                    Leaf::Bool(b) => Ok(*b),
                    Leaf::Int(_) => Err(wrong("an int")),
                    Leaf::Float(_) => Err(wrong("a float")),
                })
                .collect::<PyResult<Vec<_>>>()?;
            Tensor::from_bool(v, &shape)
        }
        DType::Int32 | DType::Int64 => {
            let (lo, hi) = if dtype == DType::Int32 { (i32::MIN as i128, i32::MAX as i128) } else { (i64::MIN as i128, i64::MAX as i128) };
            let v = leaves
                .iter()
                .map(|l| match l {
                    Leaf::Int(i) if (lo..=hi).contains(i) => Ok(*i as i64),
                    Leaf::Int(i) => Err(vm.new_value_error(format!("Can't convert Python int {i} to {dtype}: out of range"))),
                    Leaf::Bool(_) => Err(wrong("a bool")),
                    Leaf::Float(_) => Err(wrong("a float")),
                })
                .collect::<PyResult<Vec<_>>>()?;
            if dtype == DType::Int32 {
                Tensor::from_i32(v.into_iter().map(|x| x as i32).collect(), &shape)
            } else {
                Tensor::from_i64(v, &shape)
            }
        }
        DType::Float32 | DType::Float64 => {
            let v = leaves
                .iter()
                .map(|l| match l {
                    Leaf::Int(i) => Ok(*i as f64),
                    Leaf::Float(f) => Ok(*f),
                    Leaf::Bool(_) => Err(wrong("a bool")),
                })
                .collect::<PyResult<Vec<_>>>()?;
            if dtype == DType::Float32 {
                Tensor::from_f32(v.into_iter().map(|x| x as f32).collect(), &shape)
            } else {
                Tensor::from_f64(v, &shape)
            }
        }
    };
    built.map_err(|e| super::module::op_error(e, vm))
}

fn infer(leaves: &[Leaf]) -> DType {
    if leaves.iter().any(|l| matches!(l, Leaf::Float(_))) {
        DType::Float32
    } else if leaves.iter().any(|l| matches!(l, Leaf::Int(_))) {
        let fits = leaves.iter().all(|l| match l {
            Leaf::Int(i) => i32::try_from(*i).is_ok(),
            _ => true,
        });
        if fits {
            DType::Int32
        } else {
            DType::Int64
        }
    } else if leaves.is_empty() {
        DType::Float32
    } else {
        DType::Bool
    }
}

/// A tensor's value as Python scalars and nested lists.
pub fn to_python(v: &Value, vm: &VirtualMachine) -> PyObjectRef {
    match v {
        Value::Bool(b) => vm.ctx.new_bool(*b).into(),
        Value::Int(i) => vm.ctx.new_int(*i).into(),
        Value::Float(f) => vm.ctx.new_float(*f).into(),
        Value::List(items) => vm.ctx.new_list(items.iter().map(|x| to_python(x, vm)).collect()).into(),
    }
}

/// An op's attributes (None, bools, ints, floats, strings, lists, dicts) as JSON.
pub fn to_json(obj: &PyObjectRef, vm: &VirtualMachine) -> PyResult<serde_json::Value> {
    use serde_json::Value as J;
    if vm.is_none(obj) {
        return Ok(J::Null);
    }
    if obj.class().is(vm.ctx.types.bool_type) {
        return Ok(J::Bool(obj.clone().try_to_bool(vm)?));
    }
    if let Some(i) = obj.downcast_ref::<PyInt>() {
        let v: i64 = i.as_bigint().try_into().map_err(|_| vm.new_value_error("attribute out of range"))?;
        return Ok(J::from(v));
    }
    if let Some(f) = obj.downcast_ref::<PyFloat>() {
        // The graph crate reads float attributes as exact text.
        return Ok(J::String(stagecheck_graph::f64_to_text(f.to_f64())));
    }
    if let Some(s) = obj.downcast_ref::<PyStr>() {
        return Ok(J::String(s.to_string_lossy().into_owned()));
    }
    if let Some(l) = obj.downcast_ref::<PyList>() {
        return l.borrow_vec().iter().map(|x| to_json(x, vm)).collect::<PyResult<Vec<_>>>().map(J::Array);
    }
    if let Some(t) = obj.downcast_ref::<PyTuple>() {
        return t.as_slice().iter().map(|x| to_json(x, vm)).collect::<PyResult<Vec<_>>>().map(J::Array);
    }
    if let Some(d) = obj.downcast_ref::<PyDict>() {
        let mut m = serde_json::Map::new();
        for (k, v) in d {
            let k = k.downcast_ref::<PyStr>().ok_or_else(|| vm.new_type_error("attribute keys are strings"))?;
            m.insert(k.to_string_lossy().into_owned(), to_json(&v, vm)?);
        }
        return Ok(J::Object(m));
    }
    Err(vm.new_type_error(format!("unsupported attribute {}", obj.class().name())))
}
