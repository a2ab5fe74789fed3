//! The trace cache of an `sc.function` call, natively: the key and the lookup.
//!
//! The cache (`Function._cache`, staging/functions.py) maps a key made of the call's
//! arguments alone to the list of traces made for it, each with its
//! [`Guards`](super::guards) (the Python state it depended on, captured
//! tensors included). The key: the argument structure (tuples and lists),
//! the dtype and shape of every tensor, the value of every exact `int`,
//! `float` (by bits), `bool`, `str` and `None`, and any other object by
//! identity (its contents are the guards' business: `_Guards` walks every
//! such argument). This is the one implementation of the key; the Python
//! path asks for it (`call_key`) when the fast path misses.
//!
//! Soundness: every part of the key is written with its kind and length, so
//! two calls share a key only when their tensors have the same signatures,
//! their scalars the same values and their other arguments are the same
//! objects; the guards decide the rest. The key may distinguish more (two
//! NaNs of different bits, two equal tuples of objects), which costs a
//! trace, not a wrong graph.
//!
//! The common call runs no Python: the key is looked up, each trace's guards
//! checked in order, and the first trace whose guards hold is run and its
//! result rebuilt in the same native call. A miss returns the key, under
//! which the Python path files the new trace.

use super::guards::Call;
use super::module::_stagecheck_tensor::{call_graph, new_handle, GuardSet, Handle};
use rustpython_vm::builtins::{PyDict, PyFloat, PyInt, PyList, PyStr, PyTuple, PyType};
use rustpython_vm::{AsObject, Py, PyObject, PyObjectRef, PyRef, PyResult, VirtualMachine};
use stagecheck_graph::FnId;
use std::fmt::Write;

/// `Function.__call__`'s fast path in the staged mode. `native` is the
/// function's `_native`, `(cache, Tensor)` (a plain tuple: reading attributes
/// of a `Function` instance from here goes through its class's
/// `__getattribute__`, a few microseconds a call). `cache` maps a key to a
/// list of traces `(guards, fid, template)`. On a trace whose guards hold, runs
/// its graph and rebuilds the result as `_Tensors.rebuild` does: `(true,
/// result)`. Otherwise `(false, key)`.
pub fn staged_call(native: &PyObject, args: &PyTuple, kwargs: &Py<PyDict>, vm: &VirtualMachine) -> PyResult<(bool, PyObjectRef)> {
    let bad = || vm.new_type_error("bad trace cache");
    let native = native.downcast_ref::<PyTuple>().filter(|t| t.len() == 2).ok_or_else(bad)?;
    let (Some(cache), Some(tensor_class)) = (native[0].downcast_ref::<PyDict>(), native[1].downcast_ref::<PyType>()) else {
        return Err(bad());
    };
    let CallKey { key, handles } = call_key(args, kwargs, tensor_class, vm)?;
    let miss = |key: String| Ok((false, vm.ctx.new_str(key).into()));
    let Some(entries) = cache.get_item_opt(key.as_str(), vm)? else { return miss(key) };
    let entries = entries.downcast_ref::<PyList>().ok_or_else(bad)?.borrow_vec().to_vec();
    let call = Call { args, kwargs };
    for entry in &entries {
        let entry = entry.downcast_ref::<PyTuple>().filter(|t| t.len() == 3).ok_or_else(bad)?;
        let guards = entry[0].downcast_ref::<GuardSet>().ok_or_else(bad)?;
        let Ok(captured) = guards.inner.check(&call, vm) else { continue };
        let fid: u32 = entry[1].try_to_value(vm)?;
        let ins = handles.iter().chain(&captured).map(|h| h.input.clone()).collect();
        let outs: Vec<PyObjectRef> = call_graph(FnId(fid), ins, None, vm)?.into_iter().map(|o| new_handle(o, vm)).collect();
        let tensors: Vec<PyObjectRef> = outs.into_iter().map(|h| tensor_class.as_object().call((h,), vm)).collect::<PyResult<_>>()?;
        return Ok((true, rebuild(&entry[2], &tensors, vm)?));
    }
    miss(key)
}

/// `_stagecheck_tensor.call_key(args, kwargs, Tensor)`: the key alone (the
/// Python path, for calls made while the fast path cannot run them).
pub fn key_of(args: &PyTuple, kwargs: &Py<PyDict>, tensor_class: &Py<PyType>, vm: &VirtualMachine) -> PyResult<String> {
    Ok(call_key(args, kwargs, tensor_class, vm)?.key)
}

/// `_Tensors._build`: a template node `('t', i)`, `('tuple', nodes)`,
/// `('list', nodes)`, `('py', value)` or `('raise', thunk)` with the new
/// tensors in place.
fn rebuild(node: &PyObject, tensors: &[PyObjectRef], vm: &VirtualMachine) -> PyResult {
    let bad = || vm.new_type_error("bad output template");
    let node = node.downcast_ref::<PyTuple>().filter(|t| t.len() == 2).ok_or_else(bad)?;
    let kind = node[0].downcast_ref::<PyStr>().and_then(|s| s.to_str()).ok_or_else(bad)?;
    let v = &node[1];
    let items = |v: &PyObject| -> PyResult<Vec<PyObjectRef>> {
        let list = v.downcast_ref::<PyList>().ok_or_else(bad)?;
        let nodes = list.borrow_vec().to_vec();
        nodes.iter().map(|n| rebuild(n, tensors, vm)).collect()
    };
    Ok(match kind {
        "t" => {
            let i: usize = v.try_to_value(vm)?;
            tensors.get(i).cloned().ok_or_else(bad)?
        }
        // A trace that always raises, called inside another trace (its
        // graph raised otherwise): `v` raises that the path raises on.
        "raise" => {
            v.call((), vm)?;
            return Err(bad());
        }
        "tuple" => vm.ctx.new_tuple(items(v)?).into(),
        "list" => vm.ctx.new_list(items(v)?).into(),
        _ => v.clone(),
    })
}

/// The key and the handles of the arguments' tensors, in order.
struct CallKey {
    key: String,
    handles: Vec<PyRef<Handle>>,
}

fn call_key(args: &PyTuple, kwargs: &Py<PyDict>, tensor_class: &Py<PyType>, vm: &VirtualMachine) -> PyResult<CallKey> {
    let mut k = KeyWriter { key: String::with_capacity(64), handles: Vec::new(), tensor_class };
    k.key.push('(');
    for a in args.iter() {
        k.value(a, vm)?;
    }
    k.key.push_str(")k");
    // In the order of `sorted(kwargs.items())` (`_Tensors` in functions.py
    // flattens them so): by code point, which is the order of the names'
    // WTF-8 bytes. The handles' order is the trace's parameters' order.
    let mut kwargs: Vec<(Vec<u8>, PyObjectRef)> = kwargs
        .into_iter()
        .map(|(name, value)| {
            let name = name.downcast_ref::<PyStr>().map(|s| s.as_bytes().to_vec()).unwrap_or_default();
            (name, value)
        })
        .collect();
    kwargs.sort_by(|a, b| a.0.cmp(&b.0));
    for (name, value) in &kwargs {
        let _ = write!(k.key, "{}:{}=", name.len(), name.escape_ascii());
        k.value(value, vm)?;
    }
    Ok(CallKey { key: k.key, handles: k.handles })
}

struct KeyWriter<'a> {
    key: String,
    handles: Vec<PyRef<Handle>>,
    tensor_class: &'a Py<PyType>,
}

impl KeyWriter<'_> {
    /// An argument: a tensor, a tuple or list of arguments, a scalar, or
    /// any other object by identity.
    fn value(&mut self, v: &PyObject, vm: &VirtualMachine) -> PyResult<()> {
        if self.tensor(v, vm)? || self.scalar(v, vm) {
            return Ok(());
        }
        let class = v.class();
        let (open, close, items) = if class.is(vm.ctx.types.tuple_type) {
            ('(', ')', v.downcast_ref::<PyTuple>().map(|t| t.as_slice().to_vec()).unwrap_or_default())
        } else if class.is(vm.ctx.types.list_type) {
            ('[', ']', v.downcast_ref::<PyList>().map(|l| l.borrow_vec().to_vec()).unwrap_or_default())
        } else {
            let _ = write!(self.key, "o{:x}", v.get_id());
            return Ok(());
        };
        self.key.push(open);
        for item in &items {
            self.value(item, vm)?;
            self.key.push(',');
        }
        self.key.push(close);
        Ok(())
    }

    /// Writes a tensor's signature and keeps its handle; false for a non-tensor.
    fn tensor(&mut self, v: &PyObject, vm: &VirtualMachine) -> PyResult<bool> {
        if !v.class().is(self.tensor_class) {
            return Ok(false);
        }
        let h = v.get_attr("_h", vm)?.downcast::<Handle>().map_err(|_| vm.new_type_error("a tensor without a handle"))?;
        let (dtype, shape) = h.input.signature();
        let _ = write!(self.key, "t{}{:?}", dtype.name(), shape);
        if let super::trace::Input::Symbolic(_) = h.input {
            self.key.push('s');
        }
        self.handles.push(h);
        Ok(true)
    }

    /// Writes a scalar of an exact type (`int`, `float`, `bool`, `str`, `None`); false otherwise.
    fn scalar(&mut self, v: &PyObject, vm: &VirtualMachine) -> bool {
        let class = v.class();
        let types = &vm.ctx.types;
        let key = &mut self.key;
        if vm.is_none(v) {
            key.push('N');
        } else if class.is(types.bool_type) {
            key.push(if v.is(&vm.ctx.true_value) { 'T' } else { 'F' });
        } else if class.is(types.int_type) {
            let Some(i) = v.downcast_ref::<PyInt>() else { return false };
            let _ = write!(key, "i{}", i.as_bigint());
        } else if class.is(types.float_type) {
            let Some(f) = v.downcast_ref::<PyFloat>() else { return false };
            let _ = write!(key, "f{:x}", f.to_f64().to_bits());
        } else if class.is(types.str_type) {
            // By its WTF-8 bytes: lone surrogates stay distinct.
            let Some(s) = v.downcast_ref::<PyStr>() else { return false };
            let bytes = s.as_bytes();
            let _ = write!(key, "s{}:{}", bytes.len(), bytes.escape_ascii());
        } else {
            return false;
        }
        true
    }
}
