//! Rendering Python objects into [`Value`]s without running any user code:
//! payloads and `__dict__`s are read directly, never through `__repr__`,
//! `__eq__`, properties or other hooks a program could define.

use crate::value::Value;
use rustpython_vm::{
    builtins::{
        PyByteArray, PyBytes, PyComplex, PyDict, PyFloat, PyFrozenSet, PyFunction, PyInt, PyList,
        PyModule, PyRange, PySet, PyStr, PyTuple, PyType,
    },
    types::PyTypeFlags,
    AsObject, PyObject, VirtualMachine,
};

/// Containers deeper than this render as [`Value::Truncated`].
pub const MAX_DEPTH: usize = 48;
/// At most this many nodes are rendered per run; the rest is [`Value::Truncated`].
pub const MAX_NODES: usize = 200_000;

pub struct Renderer<'vm> {
    vm: &'vm VirtualMachine,
    /// Ids of the containers being rendered, outermost first (cycle detection).
    path: Vec<usize>,
    nodes_left: usize,
}

impl<'vm> Renderer<'vm> {
    pub fn new(vm: &'vm VirtualMachine) -> Self {
        Renderer { vm, path: Vec::new(), nodes_left: MAX_NODES }
    }

    pub fn render(&mut self, obj: &PyObject) -> Value {
        if self.nodes_left == 0 || self.path.len() >= MAX_DEPTH {
            return Value::Truncated;
        }
        self.nodes_left -= 1;
        let id = obj.get_id();
        if let Some(pos) = self.path.iter().rposition(|&p| p == id) {
            return Value::Cycle(self.path.len() - pos);
        }
        self.path.push(id);
        let value = self.render_new(obj);
        self.path.pop();
        value
    }

    fn render_new(&mut self, obj: &PyObject) -> Value {
        let vm = self.vm;
        if vm.is_none(obj) {
            return Value::None;
        }
        let class = obj.class();
        if class.is(vm.ctx.types.bool_type) && !crate::planted::active("render_bool_as_int") {
            return Value::Bool(obj.is(&vm.ctx.true_value));
        }
        if let Some(cls) = obj.downcast_ref::<PyType>() {
            return Value::Class { qualname: str_of(&cls.__qualname__(vm)) };
        }
        if obj.downcast_ref::<PyFunction>().is_some() {
            let qualname = obj.get_attr("__qualname__", vm).map(|q| str_of(&q));
            return Value::Function { qualname: qualname.unwrap_or_else(|_| "?".into()) };
        }
        if obj.downcast_ref::<PyModule>().is_some() {
            let name = obj.get_attr("__name__", vm).map(|n| str_of(&n));
            return Value::Module { name: name.unwrap_or_else(|_| "?".into()) };
        }
        if let Some(t) = crate::tensors::render(obj, vm) {
            return t;
        }
        let builtin = self.builtin_payload(obj);
        if !class.slots.flags.has_feature(PyTypeFlags::HEAPTYPE) {
            return builtin.unwrap_or_else(|| Value::Opaque { type_name: class.name().to_string() });
        }
        // An instance of a user-defined class.
        let mut attrs: Vec<(String, Value)> = match obj.dict() {
            Some(dict) => dict
                .items_vec()
                .into_iter()
                .map(|(k, v)| (str_of(&k), self.render(&v)))
                .collect(),
            None => Vec::new(),
        };
        if !crate::planted::active("render_attrs_unsorted") {
            attrs.sort_by(|a, b| a.0.cmp(&b.0));
        }
        Value::Instance {
            class: str_of(&class.__qualname__(vm)),
            attrs,
            base: builtin.map(Box::new),
        }
    }

    /// The builtin value an object carries, for builtin types and their subclasses.
    fn builtin_payload(&mut self, obj: &PyObject) -> Option<Value> {
        if let Some(i) = obj.downcast_ref::<PyInt>() {
            return Some(Value::Int(i.as_bigint().to_string()));
        }
        if let Some(f) = obj.downcast_ref::<PyFloat>() {
            return Some(Value::Float(f.to_f64().to_bits()));
        }
        if let Some(c) = obj.downcast_ref::<PyComplex>() {
            let c = c.to_complex();
            return Some(Value::Complex(c.re.to_bits(), c.im.to_bits()));
        }
        if let Some(s) = obj.downcast_ref::<PyStr>() {
            return Some(Value::Str(s.to_string_lossy().into_owned()));
        }
        if let Some(b) = obj.downcast_ref::<PyBytes>() {
            return Some(Value::Bytes(b.as_bytes().to_vec()));
        }
        if let Some(b) = obj.downcast_ref::<PyByteArray>() {
            return Some(Value::ByteArray(b.borrow_buf().to_vec()));
        }
        if let Some(l) = obj.downcast_ref::<PyList>() {
            let items = l.borrow_vec().to_vec();
            return Some(Value::List(items.iter().map(|x| self.render(x)).collect()));
        }
        if let Some(t) = obj.downcast_ref::<PyTuple>() {
            return Some(Value::Tuple(t.as_slice().iter().map(|x| self.render(x)).collect()));
        }
        if let Some(d) = obj.downcast_ref::<PyDict>() {
            let entries = d.items_vec();
            return Some(Value::Dict(
                entries.iter().map(|(k, v)| (self.render(k), self.render(v))).collect(),
            ));
        }
        if let Some(s) = obj.downcast_ref::<PySet>() {
            return Some(Value::Set(self.render_sorted(s.elements())));
        }
        if let Some(s) = obj.downcast_ref::<PyFrozenSet>() {
            return Some(Value::FrozenSet(self.render_sorted(s.elements())));
        }
        if let Some(r) = obj.downcast_ref::<PyRange>() {
            let int = |i: &PyInt| Value::Int(i.as_bigint().to_string());
            return Some(Value::Range(Box::new((int(&r.start), int(&r.stop), int(&r.step)))));
        }
        None
    }

    fn render_sorted(&mut self, elements: Vec<rustpython_vm::PyObjectRef>) -> Vec<Value> {
        let mut values: Vec<Value> = elements.iter().map(|x| self.render(x)).collect();
        values.sort();
        values
    }
}

/// A Python string's contents (lossy for lone surrogates); other objects by type name.
pub fn str_of(obj: &PyObject) -> String {
    match obj.downcast_ref::<PyStr>() {
        Some(s) => s.to_string_lossy().into_owned(),
        None => format!("<{}>", obj.class().name()),
    }
}
