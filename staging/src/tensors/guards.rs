//! Trace guards: the Python state a trace of an `sc.function` depended on,
//! checked natively before the trace is reused (TorchDynamo's guards).
//!
//! A trace runs the function's Python code once and bakes every Python value
//! it read into the graph: a global scalar becomes a constant, a list's
//! length a loop's trip count, a class attribute a branch taken. Reusing the
//! trace after the program changed such a value would silently compute with
//! the old one (TensorFlow's `tf.function` documents that it does). So each
//! trace carries [`Guards`]: checks on every value it could have read, and
//! a call reuses a trace only when all of them hold; otherwise it traces
//! again (a *retrace*, counted in the run's graph text, [`retraces_text`]).
//!
//! Which values: `staging/guards.py`'s `_Guards` walks, when the trace begins and
//! whenever converted code calls a function during it, everything the trace
//! can reach by name. Its roots are the staged function, the call's
//! non-tensor arguments and every function called while tracing (staged
//! ones included, so an outer trace guards what its inner calls read); from a
//! function, the globals and builtins named anywhere in its code (nested
//! code included), its closure cells, defaults and attributes; from a
//! module or instance, the attributes its code may name; from a class,
//! all its attributes (its methods run implicitly: `__init__`, operators,
//! properties); from a list, tuple or dict, every item. Names are
//! collected over every function walked, so the set is a superset of what
//! the trace read (a guard too many costs a retrace, never a wrong result).
//! Values are snapshotted as they are when the walk reaches them: at the
//! start of the trace for the function's own reads, so a trace that mutates
//! what it reads (a `global n; n += 1`) fails its own guard and the next
//! call traces (and mutates) again, as the original would.
//!
//! A guard is an access (where the value is: a global or builtin by name, a
//! closure cell, an argument, an attribute in an object's `__dict__`, a
//! class attribute through the MRO, a list or tuple item, a dict item, a
//! field of a built-in object such as `__defaults__`, the class of a value)
//! and a check (see [`Check`]). Accesses and checks run no user code: dicts
//! are exact with exact scalar keys, classes are looked up without
//! descriptors, equality is taken only between exact built-in scalars. A
//! value the walk cannot check that way (a set of objects, a subclass of
//! list, an iterator) ends the trace with a `StagingError`.
//!
//! The trace cache is keyed natively by the call's arguments alone
//! (`call_key.rs`); each key holds a list of traces with their guards, tried
//! in order. The tensors a function reads directly from its globals and
//! cells are trace inputs, read again at every call: their guards check the
//! signature and pass the handle on ([`Check::Tensor`]).

use super::module::_stagecheck_tensor::Handle;
use rustpython_vm::builtins::{PyCode, PyDict, PyFloat, PyFrozenSet, PyList, PyStr, PyStrRef, PyTuple, PyType};
use rustpython_vm::convert::ToPyObject;
use rustpython_vm::{AsObject, Py, PyObject, PyObjectRef, PyRef, PyResult, VirtualMachine};
use stagecheck_graph::DType;
use std::cell::RefCell;
use std::collections::HashMap;

/// Where a guarded value is found. `parent` is the index of an earlier guard
/// whose value is the container.
#[derive(Debug)]
pub enum Access {
    /// `dict[name]` of a namespace (a module's globals, builtins).
    Global { dict: PyRef<PyDict>, name: PyStrRef },
    /// A closure cell's contents (missing when empty).
    Cell(PyObjectRef),
    /// The call's positional argument `i`.
    Arg(usize),
    /// The call's keyword argument `name`.
    Kwarg(PyStrRef),
    /// A fixed object (a function reached only by being called).
    Const(PyObjectRef),
    /// `parent.__dict__[name]` (a module, an instance, a function).
    Attr { parent: usize, name: PyStrRef },
    /// `name` looked up on the class `parent` through its MRO, no descriptor run.
    ClassAttr { parent: usize, name: PyStrRef },
    /// Item `index` of the list or tuple `parent`.
    Item { parent: usize, index: usize },
    /// `parent[key]` of an exact dict, `key` an exact scalar.
    Key { parent: usize, key: PyObjectRef },
    /// A field of a built-in object (`__defaults__`, `__func__`, `fget`).
    Field { parent: usize, name: PyStrRef },
    /// The class of `parent`.
    Class { parent: usize },
}

/// What a guarded value must be.
#[derive(Debug)]
pub enum Check {
    /// Absent (an unbound global, an empty cell, no such instance attribute).
    Missing,
    /// This very object (functions, modules, classes, eager tensors).
    Is(PyObjectRef),
    /// Of exactly this class and equal to this value (exact built-in scalars,
    /// floats by their bits; frozen copies of sets of scalars).
    Eq { class: PyObjectRef, value: PyObjectRef },
    /// An exact list or tuple of this length.
    Seq { class: PyObjectRef, len: usize },
    /// An exact dict with exactly these keys, in this order.
    Dict { keys: Vec<PyObjectRef> },
    /// An instance of exactly this class.
    Type(PyObjectRef),
    /// An `sc.Tensor` of this signature: a trace input, its handle passed on.
    Tensor { dtype: DType, shape: Vec<usize> },
    /// Present, no check (a value holder for its children: arguments).
    Any,
}

#[derive(Debug)]
pub struct Guard {
    pub access: Access,
    pub check: Check,
    /// The value's path as the program would write it (`cfg['k']`, `len(w)`).
    pub text: String,
}

/// The arguments of the call being checked.
pub struct Call<'a> {
    pub args: &'a PyTuple,
    pub kwargs: &'a Py<PyDict>,
}

/// The guards of one trace, in the order they are checked (a parent before
/// its children, the captured tensors first, in the trace's parameter order).
#[derive(Debug)]
pub struct Guards {
    pub guards: Vec<Guard>,
    pub tensor_class: PyObjectRef,
}

impl Guards {
    /// The handles of the captured tensors when every guard holds, else the
    /// index of the first that fails.
    pub fn check(&self, call: &Call<'_>, vm: &VirtualMachine) -> Result<Vec<PyRef<Handle>>, usize> {
        let mut values: Vec<Option<PyObjectRef>> = Vec::with_capacity(self.guards.len());
        let mut captured = Vec::new();
        for (i, g) in self.guards.iter().enumerate() {
            let value = self.access(&g.access, &values, call, vm);
            if !self.holds(&g.check, value.as_deref(), &mut captured, vm) {
                return Err(i);
            }
            values.push(value);
        }
        Ok(captured)
    }

    fn access(&self, access: &Access, values: &[Option<PyObjectRef>], call: &Call<'_>, vm: &VirtualMachine) -> Option<PyObjectRef> {
        let parent = |i: &usize| values.get(*i).and_then(|v| v.as_ref());
        match access {
            Access::Global { dict, name } => dict.get_item_opt(name.as_object(), vm).ok().flatten(),
            Access::Cell(cell) => cell.get_attr("cell_contents", vm).ok(),
            Access::Arg(i) => call.args.as_slice().get(*i).cloned(),
            Access::Kwarg(name) => call.kwargs.get_item_opt(name.as_object(), vm).ok().flatten(),
            Access::Const(obj) => Some(obj.clone()),
            Access::Attr { parent: p, name } => parent(p)?.dict()?.get_item_opt(name.as_object(), vm).ok().flatten(),
            Access::ClassAttr { parent: p, name } => parent(p)?.downcast_ref::<PyType>()?.lookup_ref(name, vm),
            Access::Item { parent: p, index } => {
                let p = parent(p)?;
                if let Some(t) = p.downcast_ref::<PyTuple>() {
                    t.as_slice().get(*index).cloned()
                } else {
                    p.downcast_ref::<PyList>()?.borrow_vec().get(*index).cloned()
                }
            }
            Access::Key { parent: p, key } => parent(p)?.downcast_ref::<PyDict>()?.get_item_opt(&**key, vm).ok().flatten(),
            Access::Field { parent: p, name } => parent(p)?.get_attr(&**name, vm).ok(),
            Access::Class { parent: p } => Some(parent(p)?.class().to_owned().into()),
        }
    }

    fn holds(&self, check: &Check, value: Option<&PyObject>, captured: &mut Vec<PyRef<Handle>>, vm: &VirtualMachine) -> bool {
        let Some(v) = value else { return matches!(check, Check::Missing | Check::Any) };
        match check {
            Check::Missing => false,
            Check::Is(o) => v.is(o),
            Check::Any => true,
            Check::Type(c) => v.class().is(c),
            Check::Eq { class, value } => v.class().is(class) && same_scalar(v, value, vm),
            Check::Seq { class, len } => {
                v.class().is(class)
                    && match (v.downcast_ref::<PyTuple>(), v.downcast_ref::<PyList>()) {
                        (Some(t), _) => t.len() == *len,
                        (_, Some(l)) => l.borrow_vec().len() == *len,
                        _ => false,
                    }
            }
            Check::Dict { keys } => {
                if !v.class().is(vm.ctx.types.dict_type) {
                    return false;
                }
                let Some(d) = v.downcast_ref::<PyDict>() else { return false };
                let now = d.keys_vec();
                now.len() == keys.len() && now.iter().zip(keys).all(|(a, b)| a.class().is(b.class()) && same_scalar(a, b, vm))
            }
            Check::Tensor { dtype, shape } => {
                if !v.class().is(&self.tensor_class) {
                    return false;
                }
                let Some(h) = v.get_attr("_h", vm).ok().and_then(|h| h.downcast::<Handle>().ok()) else { return false };
                let (d, s) = h.input.signature();
                if d != *dtype || s != *shape {
                    return false;
                }
                captured.push(h);
                true
            }
        }
    }
}

/// Equality of two values of the same exact built-in class, floats by their
/// bits (so a NaN equals itself and -0.0 differs from 0.0, as a baked-in
/// constant would).
fn same_scalar(a: &PyObject, b: &PyObject, vm: &VirtualMachine) -> bool {
    if a.is(b) {
        return true;
    }
    if let (Some(x), Some(y)) = (a.downcast_ref::<PyFloat>(), b.downcast_ref::<PyFloat>()) {
        return x.to_f64().to_bits() == y.to_f64().to_bits();
    }
    vm.bool_eq(a, b).unwrap_or(false)
}

thread_local! {
    /// This run's retraces: `(function, the guard that failed)`.
    static RETRACES: RefCell<Vec<(String, String)>> = const { RefCell::new(Vec::new()) };
    /// This run's traces of staged functions, by function, in order of first trace.
    static TRACES: RefCell<Vec<(String, usize)>> = const { RefCell::new(Vec::new()) };
    /// The names each code object walked this run may read ([`code_names`]),
    /// by address; the code is held, so no other takes its address.
    static CODE_NAMES: RefCell<HashMap<usize, (PyRef<PyCode>, PyObjectRef)>> = RefCell::new(HashMap::default());
}

pub(crate) fn reset() {
    RETRACES.with(|r| r.borrow_mut().clear());
    TRACES.with(|t| t.borrow_mut().clear());
    end_run();
}

/// Drops the run's code objects ([`code_names`]) at its end (`tensors::end_run`).
pub(crate) fn end_run() {
    let held = CODE_NAMES.with(|c| std::mem::take(&mut *c.borrow_mut()));
    drop(held);
}

/// The names `code` (its nested code included) may read: globals, builtins
/// and attributes (`co_names`), as a frozenset. The walk of the guards
/// (`staging/guards.py`) asks for it at every trace and every function
/// called while tracing, a program's few code objects again and again: each
/// is walked once a run.
pub(crate) fn code_names(code: PyRef<PyCode>, vm: &VirtualMachine) -> PyResult<PyObjectRef> {
    let key = &*code as *const Py<PyCode> as usize;
    if let Some(names) = CODE_NAMES.with(|c| c.borrow().get(&key).map(|(_, n)| n.clone())) {
        return Ok(names);
    }
    fn collect(code: &Py<PyCode>, out: &mut Vec<PyObjectRef>, vm: &VirtualMachine) {
        out.extend(code.code.names.iter().map(|n| n.to_pyobject(vm)));
        for c in code.code.constants.iter() {
            let c: &PyObject = std::borrow::Borrow::borrow(c);
            if let Some(nested) = c.downcast_ref::<PyCode>() {
                collect(nested, out, vm);
            }
        }
    }
    let mut names = Vec::new();
    collect(&code, &mut names, vm);
    let set: PyObjectRef = rustpython_vm::PyPayload::into_pyobject(PyFrozenSet::from_iter(vm, names)?, vm);
    CODE_NAMES.with(|c| c.borrow_mut().insert(key, (code, set.clone())));
    Ok(set)
}

/// A staged function's trace began (first traces, retraces, and traces
/// with new call keys alike).
pub(crate) fn note_trace(function: String) {
    TRACES.with(|t| {
        let mut t = t.borrow_mut();
        match t.iter_mut().find(|(f, _)| *f == function) {
            Some((_, n)) => *n += 1,
            None => t.push((function, 1)),
        }
    });
}

/// The run's traces as an S-expression comment, for `--show-graph`:
/// `; traces: 2 (f: 1, g: 1)`; empty when nothing was traced. A value
/// change that needs no retrace (an `sc.Variable`'s) leaves it unchanged.
pub fn traces_text() -> String {
    TRACES.with(|t| {
        let t = t.borrow();
        if t.is_empty() {
            return String::new();
        }
        let total: usize = t.iter().map(|(_, n)| n).sum();
        let each: Vec<String> = t.iter().map(|(f, n)| format!("{f}: {n}")).collect();
        format!("; traces: {total} ({})", each.join(", "))
    })
}

pub(crate) fn note_retrace(function: String, reason: String) {
    RETRACES.with(|r| r.borrow_mut().push((function, reason)));
}

/// How many retraces this run made.
pub fn retraces() -> usize {
    RETRACES.with(|r| r.borrow().len())
}

/// The run's retraces as S-expression comments, for `--show-graph`.
pub fn retraces_text() -> String {
    RETRACES.with(|r| {
        let r = r.borrow();
        if r.is_empty() {
            return String::new();
        }
        let mut s = format!("; retraces: {}", r.len());
        for (f, why) in r.iter() {
            s.push_str(&format!("\n;   {f}: guard on {why} failed"));
        }
        s
    })
}

/// `_stagecheck_tensor.guards(specs, tensor_class)`: builds [`Guards`] from the
/// walk's specs `(access, parent, key, check, expected, text)`.
pub fn build(specs: &PyList, tensor_class: PyObjectRef, vm: &VirtualMachine) -> PyResult<Guards> {
    let bad = |what: &str| vm.new_type_error(format!("bad guard spec: {what}"));
    let mut guards = Vec::new();
    for spec in specs.borrow_vec().iter() {
        let spec = spec.downcast_ref::<PyTuple>().filter(|t| t.len() == 6).ok_or_else(|| bad("not a 6-tuple"))?;
        let s = spec.as_slice();
        let word = |o: &PyObject| o.downcast_ref::<PyStr>().and_then(|s| s.to_str()).map(str::to_owned).ok_or_else(|| bad("a word"));
        let index = |o: &PyObject| -> PyResult<usize> { o.try_to_value::<usize>(vm) };
        let name = |o: &PyObjectRef| o.clone().downcast::<PyStr>().map_err(|_| bad("a name"));
        let parent = index(&s[1]).ok();
        let p = || parent.filter(|p| *p < guards.len()).ok_or_else(|| bad("a parent"));
        let access = match word(&s[0])?.as_str() {
            "global" => {
                let pair = s[2].downcast_ref::<PyTuple>().filter(|t| t.len() == 2).ok_or_else(|| bad("global"))?;
                let dict = pair[0].clone().downcast::<PyDict>().map_err(|_| bad("a namespace"))?;
                Access::Global { dict, name: name(&pair[1])? }
            }
            "cell" => Access::Cell(s[2].clone()),
            "arg" => Access::Arg(index(&s[2])?),
            "kwarg" => Access::Kwarg(name(&s[2])?),
            "const" => Access::Const(s[2].clone()),
            "attr" => Access::Attr { parent: p()?, name: name(&s[2])? },
            "cattr" => Access::ClassAttr { parent: p()?, name: name(&s[2])? },
            "item" => Access::Item { parent: p()?, index: index(&s[2])? },
            "key" => Access::Key { parent: p()?, key: s[2].clone() },
            "field" => Access::Field { parent: p()?, name: name(&s[2])? },
            "class" => Access::Class { parent: p()? },
            other => return Err(bad(other)),
        };
        let e = &s[4];
        let check = match word(&s[3])?.as_str() {
            "missing" => Check::Missing,
            "is" => Check::Is(e.clone()),
            "any" => Check::Any,
            "type" => Check::Type(e.clone()),
            "eq" => {
                let pair = e.downcast_ref::<PyTuple>().filter(|t| t.len() == 2).ok_or_else(|| bad("eq"))?;
                Check::Eq { class: pair[0].clone(), value: pair[1].clone() }
            }
            "seq" => {
                let pair = e.downcast_ref::<PyTuple>().filter(|t| t.len() == 2).ok_or_else(|| bad("seq"))?;
                Check::Seq { class: pair[0].clone(), len: index(&pair[1])? }
            }
            "dict" => Check::Dict { keys: e.downcast_ref::<PyList>().ok_or_else(|| bad("dict"))?.borrow_vec().to_vec() },
            "tensor" => {
                let pair = e.downcast_ref::<PyTuple>().filter(|t| t.len() == 2).ok_or_else(|| bad("tensor"))?;
                let dtype = DType::from_name(&word(&pair[0])?).ok_or_else(|| bad("a dtype"))?;
                let shape: Vec<usize> = vm.extract_elements_with(&pair[1], |o| o.try_to_value::<usize>(vm))?;
                Check::Tensor { dtype, shape }
            }
            other => return Err(bad(other)),
        };
        let text = s[5].downcast_ref::<PyStr>().map(|t| t.to_string_lossy().into_owned()).unwrap_or_default();
        guards.push(Guard { access, check, text });
    }
    Ok(Guards { guards, tensor_class })
}
