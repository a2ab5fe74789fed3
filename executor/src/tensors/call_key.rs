//! The fast trace-cache key of an `sc.function` call, computed natively.
//!
//! `Function._staged_call` (staging.py), the slow path, keys its trace cache on the call's
//! argument structure, the Python values in it, the dtype and shape of every
//! tensor in it, the tensors the function reads from its globals and closure
//! cells (by name or cell index, with their signatures) and the Python
//! scalars it reads there (a trace bakes them in). Computing that key in
//! Python costs tens of microseconds a call; this computes a key that
//! determines it, in one native call, for calls made only of tensors,
//! tuples, lists and the scalars `int`, `float`, `bool`, `str` and `None`
//! (exact types). Anything else gives no key, and the Python path decides.
//!
//! Soundness: the fast key determines the Python key (every part of it is
//! written here, values by exact type and floats by their bits), so the trace
//! cached under a fast key is the one the Python key selects; it may
//! distinguish more (two NaNs of different bits), which costs a retrace, not
//! a wrong graph.
//!
//! The common call runs no Python: the key is looked up in
//! `Function._fast`, and the graph run and its result rebuilt in the same
//! native call. A call the fast path cannot key takes the Python path, which
//! files its entry under the fast key too.

use super::module::_stagecheck_tensor::{call_graph, new_handle, Handle};
use super::trace::Input;
use rustpython_vm::builtins::{PyDict, PyFloat, PyInt, PyList, PyStr, PyTuple, PyType};
use rustpython_vm::{AsObject, Py, PyObject, PyObjectRef, PyRef, PyResult, VirtualMachine};
use stagecheck_graph::FnId;
use std::fmt::Write;

/// `Function.__call__`'s fast path in the staged mode. `native` is the
/// function's `_native`: None until its first call has read which globals
/// it uses, then `(names, fast, python_function, Tensor)` (plain objects:
/// reading attributes of a `Function` instance from here goes through its
/// class's `__getattribute__`, a few microseconds a call). With the fast key
/// of the call, looks up `fast` (fast key -> `(fid, template)`, an entry of
/// the Python cache) and on a hit runs the graph and rebuilds the result as
/// `_Tensors.rebuild` does: `(true, result)`. Otherwise `(false, key or None)`.
pub fn staged_call(native: &PyObject, args: &PyTuple, kwargs: &Py<PyDict>, vm: &VirtualMachine) -> PyResult<(bool, PyObjectRef)> {
    let miss = |key: Option<String>| Ok((false, key.map_or_else(|| vm.ctx.none(), |k| vm.ctx.new_str(k).into())));
    let Some(native) = native.downcast_ref::<PyTuple>().filter(|t| t.len() == 4) else { return miss(None) };
    let (Some(names), Some(cache), Some(tensor_class)) = (
        native[0].downcast_ref::<PyList>(),
        native[1].downcast_ref::<PyDict>(),
        native[3].downcast_ref::<PyType>(),
    ) else {
        return miss(None);
    };
    let python_function = &native[2];
    let globals = python_function.get_attr("__globals__", vm)?;
    let Some(globals) = globals.downcast_ref::<PyDict>() else { return miss(None) };
    let closure = python_function.get_attr("__closure__", vm)?;
    let reads = Reads {
        args,
        kwargs,
        globals,
        names,
        closure: closure.downcast_ref::<PyTuple>().map(|t| &**t),
        tensor_class,
    };
    let Some(CallKey { key, handles }) = call_key(&reads, vm) else { return miss(None) };
    let Some(entry) = cache.get_item_opt(key.as_str(), vm)? else { return miss(Some(key)) };
    let entry = entry.downcast_ref::<PyTuple>().filter(|t| t.len() == 2).ok_or_else(|| vm.new_type_error("bad fast cache entry"))?;
    let fid: u32 = entry[0].try_to_value(vm)?;
    let ins = handles.iter().map(|h| h.input.clone()).collect();
    let outs: Vec<PyObjectRef> = call_graph(FnId(fid), ins, None, vm)?.into_iter().map(|o| new_handle(o, vm)).collect();
    let tensors: Vec<PyObjectRef> = outs.into_iter().map(|h| tensor_class.as_object().call((h,), vm)).collect::<PyResult<_>>()?;
    Ok((true, rebuild(&entry[1], &tensors, vm)?))
}

/// `_Tensors._build`: a template node `('t', i)`, `('tuple', nodes)`,
/// `('list', nodes)` or `('py', value)` with the new tensors in place.
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
        "tuple" => vm.ctx.new_tuple(items(v)?).into(),
        "list" => vm.ctx.new_list(items(v)?).into(),
        _ => v.clone(),
    })
}

/// The key and the handles of the call's tensors, in the Python path's order
/// (the arguments' tensors, then the captured ones), or `None`.
struct CallKey {
    key: String,
    handles: Vec<PyRef<Handle>>,
}

/// What one function call reads: `(args, kwargs)`, the function's globals,
/// the global names it may read (`Function._names`) and its closure cells.
struct Reads<'a> {
    args: &'a PyTuple,
    kwargs: &'a PyDict,
    globals: &'a Py<PyDict>,
    names: &'a PyList,
    closure: Option<&'a PyTuple>,
    tensor_class: &'a Py<PyType>,
}

fn call_key(reads: &Reads<'_>, vm: &VirtualMachine) -> Option<CallKey> {
    let mut k = KeyWriter { key: String::with_capacity(64), handles: Vec::new(), tensor_class: reads.tensor_class };
    k.key.push('(');
    for a in reads.args.iter() {
        k.value(a, vm)?;
    }
    k.key.push_str(")k");
    let mut kwargs: Vec<(String, PyObjectRef)> = Vec::new();
    for (name, value) in reads.kwargs {
        kwargs.push((name.downcast_ref::<PyStr>()?.to_str()?.to_owned(), value));
    }
    kwargs.sort_by(|a, b| a.0.cmp(&b.0));
    for (name, value) in &kwargs {
        write!(k.key, "{}:{name}=", name.len()).ok()?;
        k.value(value, vm)?;
    }
    k.key.push_str("|g");
    // Captured tensors and scalar guards, in the Python path's order: globals
    // by name, then closure cells by index; other values are not part of it.
    for name in reads.names.borrow_vec().iter() {
        let name_str = name.downcast_ref::<PyStr>()?.to_str()?;
        let value = reads.globals.get_item_opt(name_str, vm).ok()?;
        write!(k.key, "{}:{name_str}=", name_str.len()).ok()?;
        match value {
            Some(v) => k.read(&v, vm)?,
            None => k.key.push('N'),
        }
    }
    k.key.push_str("|c");
    if let Some(cells) = reads.closure {
        for (i, cell) in cells.iter().enumerate() {
            // An empty cell raises ValueError, and the Python path skips it too.
            let v = match cell.get_attr("cell_contents", vm) {
                Ok(v) => v,
                Err(e) if e.fast_isinstance(vm.ctx.exceptions.value_error) => continue,
                Err(_) => return None,
            };
            write!(k.key, "{i}=").ok()?;
            k.read(&v, vm)?;
        }
    }
    Some(CallKey { key: k.key, handles: k.handles })
}

struct KeyWriter<'a> {
    key: String,
    handles: Vec<PyRef<Handle>>,
    tensor_class: &'a Py<PyType>,
}

impl KeyWriter<'_> {
    /// An argument: a tensor, a tuple or list of arguments, or a scalar.
    fn value(&mut self, v: &PyObject, vm: &VirtualMachine) -> Option<()> {
        if self.tensor(v, vm)? || self.scalar(v, vm) {
            return Some(());
        }
        let class = v.class();
        let (open, close, items) = if class.is(vm.ctx.types.tuple_type) {
            ('(', ')', v.downcast_ref::<PyTuple>()?.as_slice().to_vec())
        } else if class.is(vm.ctx.types.list_type) {
            ('[', ']', v.downcast_ref::<PyList>()?.borrow_vec().to_vec())
        } else {
            return None;
        };
        self.key.push(open);
        for item in &items {
            self.value(item, vm)?;
            self.key.push(',');
        }
        self.key.push(close);
        Some(())
    }

    /// A value read from a global or a cell: a tensor (captured), a scalar
    /// (a guard), or anything else (not part of the key, as in Python).
    fn read(&mut self, v: &PyObject, vm: &VirtualMachine) -> Option<()> {
        if !(self.tensor(v, vm)? || self.scalar(v, vm)) {
            if v.fast_isinstance(self.tensor_class) {
                return None; // a Tensor subclass: captured by the Python path
            }
            self.key.push('-');
        }
        Some(())
    }

    /// Writes a tensor's signature and keeps its handle; false for a non-tensor.
    fn tensor(&mut self, v: &PyObject, vm: &VirtualMachine) -> Option<bool> {
        if !v.class().is(self.tensor_class) {
            return Some(false);
        }
        let h = v.get_attr("_h", vm).ok()?.downcast::<Handle>().ok()?;
        let (dtype, shape) = h.input.signature();
        write!(self.key, "t{}{:?}", dtype.name(), shape).ok()?;
        if let Input::Symbolic(_) = h.input {
            self.key.push('s');
        }
        self.handles.push(h);
        Some(true)
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
            let Some(s) = v.downcast_ref::<PyStr>().and_then(|s| s.to_str()) else { return false };
            let _ = write!(key, "s{}:{s}", s.len());
        } else {
            return false;
        }
        true
    }
}
