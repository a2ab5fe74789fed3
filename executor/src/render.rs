//! Rendering Python objects into [`Value`]s without running any user code:
//! payloads and `__dict__`s are read directly, never through `__repr__`,
//! `__eq__`, properties or other hooks a program could define.
//!
//! Bounded in bytes ([`crate::bounds`]): long strs, bytes and ints render
//! abbreviated, each object once (a long value shared by many references is
//! hashed once), and a run's rendered globals together are charged against
//! [`MAX_UNITS`] (after [`MAX_NODES`] and [`MAX_DEPTH`]): what is beyond
//! renders as [`Value::Truncated`]. targets/python/stagecheck_target.py
//! renders the CPython side by the same rules.

use crate::bounds::{self, INT_BITS, INT_DIGITS, LONG};
use crate::value::Value;
use num_traits::Signed;
use rustpython_vm::{
    builtins::{
        PyByteArray, PyBytes, PyComplex, PyDict, PyFloat, PyFrozenSet, PyFunction, PyInt, PyList, PyModule, PyRange, PySet, PyStr, PyTuple,
        PyType,
    },
    types::PyTypeFlags,
    AsObject, PyObject, PyObjectRef, VirtualMachine,
};
use std::collections::HashMap;

/// Containers deeper than this render as [`Value::Truncated`].
pub const MAX_DEPTH: usize = 48;
/// At most this many nodes are rendered per run; the rest is [`Value::Truncated`].
pub const MAX_NODES: usize = 200_000;
/// The units ([`bounds::cost`]: one per node and per byte of its own text)
/// a run's rendered globals may take: ~2 MB of JSON at most, pretty-printed.
pub const MAX_UNITS: usize = 256 << 10;

pub struct Renderer<'vm> {
    vm: &'vm VirtualMachine,
    /// Ids of the containers being rendered, outermost first (cycle detection).
    path: Vec<usize>,
    nodes_left: usize,
    units_left: usize,
    /// Long values already rendered, by id (the object kept alive, so that
    /// its id is not reused while rendering).
    long: HashMap<usize, (PyObjectRef, Value)>,
}

impl<'vm> Renderer<'vm> {
    pub fn new(vm: &'vm VirtualMachine) -> Self {
        Renderer { vm, path: Vec::new(), nodes_left: MAX_NODES, units_left: MAX_UNITS, long: HashMap::new() }
    }

    pub fn render(&mut self, obj: &PyObject) -> Value {
        if self.nodes_left == 0 || self.units_left == 0 || self.path.len() >= MAX_DEPTH {
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
        self.units_left = self.units_left.saturating_sub(bounds::cost(&value, self.path.len()));
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
        if let Some(t) = crate::staged_values::render(obj, vm) {
            return t;
        }
        let builtin = self.builtin_payload(obj);
        if !class.slots.flags.has_feature(PyTypeFlags::HEAPTYPE) {
            return builtin.unwrap_or_else(|| Value::Opaque { type_name: class.name().to_string() });
        }
        // An instance of a user-defined class.
        let mut attrs: Vec<(String, Value)> = match obj.dict() {
            Some(dict) => self
                .render_pairs(dict.items_vec(), |_, k| Value::Str(str_of(k)))
                .into_iter()
                .map(|(k, v)| (if let Value::Str(k) = k { k } else { "...".into() }, v))
                .collect(),
            None => Vec::new(),
        };
        if !crate::planted::active("render_attrs_unsorted") {
            attrs.sort_by(|a, b| a.0.cmp(&b.0));
        }
        Value::Instance { class: str_of(&class.__qualname__(vm)), attrs, base: builtin.map(Box::new) }
    }

    /// The builtin value an object carries, for builtin types and their subclasses.
    fn builtin_payload(&mut self, obj: &PyObject) -> Option<Value> {
        if let Some(i) = obj.downcast_ref::<PyInt>() {
            return Some(self.once(obj, |_| int_value(i)));
        }
        if let Some(f) = obj.downcast_ref::<PyFloat>() {
            return Some(Value::Float(f.to_f64().to_bits()));
        }
        if let Some(c) = obj.downcast_ref::<PyComplex>() {
            let c = c.to_complex();
            return Some(Value::Complex(c.re.to_bits(), c.im.to_bits()));
        }
        if let Some(s) = obj.downcast_ref::<PyStr>() {
            return Some(self.once(obj, |_| match s.char_len() {
                len if len > LONG => bounds::long_str(&s.to_string_lossy()),
                _ => Value::Str(s.to_string_lossy().into_owned()),
            }));
        }
        if let Some(b) = obj.downcast_ref::<PyBytes>() {
            return Some(self.once(obj, |_| match b.as_bytes() {
                b if b.len() > LONG => bounds::long_bytes("bytes", b),
                b => Value::Bytes(b.to_vec()),
            }));
        }
        if let Some(b) = obj.downcast_ref::<PyByteArray>() {
            return Some(self.once(obj, |_| match &*b.borrow_buf() {
                b if b.len() > LONG => bounds::long_bytes("bytearray", b),
                b => Value::ByteArray(b.to_vec()),
            }));
        }
        if let Some(l) = obj.downcast_ref::<PyList>() {
            let items = l.borrow_vec().to_vec();
            return Some(Value::List(self.render_all(&items)));
        }
        if let Some(t) = obj.downcast_ref::<PyTuple>() {
            return Some(Value::Tuple(self.render_all(t.as_slice())));
        }
        if let Some(d) = obj.downcast_ref::<PyDict>() {
            return Some(Value::Dict(self.render_pairs(d.items_vec(), |r, k| r.render(k))));
        }
        if let Some(s) = obj.downcast_ref::<PySet>() {
            return Some(Value::Set(self.render_sorted(s.elements())));
        }
        if let Some(s) = obj.downcast_ref::<PyFrozenSet>() {
            return Some(Value::FrozenSet(self.render_sorted(s.elements())));
        }
        if let Some(r) = obj.downcast_ref::<PyRange>() {
            return Some(Value::Range(Box::new((int_value(&r.start), int_value(&r.stop), int_value(&r.step)))));
        }
        None
    }

    /// The budget is spent: what follows in a container is one `Truncated`.
    fn spent(&self) -> bool {
        self.nodes_left == 0 || self.units_left == 0
    }

    fn render_all(&mut self, objs: &[PyObjectRef]) -> Vec<Value> {
        let mut values = Vec::with_capacity(objs.len().min(1024));
        for x in objs {
            if self.spent() {
                values.push(Value::Truncated);
                break;
            }
            values.push(self.render(x));
        }
        values
    }

    /// Entries of a dict (keys by `key`), or of a `__dict__`.
    fn render_pairs(
        &mut self,
        entries: Vec<(PyObjectRef, PyObjectRef)>,
        key: impl Fn(&mut Self, &PyObject) -> Value,
    ) -> Vec<(Value, Value)> {
        let mut pairs = Vec::with_capacity(entries.len().min(1024));
        for (k, v) in &entries {
            if self.spent() {
                pairs.push((Value::Truncated, Value::Truncated));
                break;
            }
            let k = key(self, k);
            pairs.push((k, self.render(v)));
        }
        pairs
    }

    /// `render(obj)`, computed once per object when it is long (a long
    /// value's hash reads all of it).
    fn once(&mut self, obj: &PyObject, render: impl FnOnce(&PyObject) -> Value) -> Value {
        if let Some((_, v)) = self.long.get(&obj.get_id()) {
            return v.clone();
        }
        let value = render(obj);
        if matches!(value, Value::Long { .. }) {
            self.long.insert(obj.get_id(), (obj.to_owned(), value.clone()));
        }
        value
    }

    fn render_sorted(&mut self, elements: Vec<rustpython_vm::PyObjectRef>) -> Vec<Value> {
        let mut values = self.render_all(&elements);
        values.sort();
        values
    }
}

/// An int in decimal, or by bit length and hash when it has more than
/// [`INT_DIGITS`] digits (the conversion is quadratic: `1 << 10**8` never ended).
fn int_value(i: &PyInt) -> Value {
    let i = i.as_bigint();
    if i.bits() <= INT_BITS {
        let s = i.to_string();
        if s.trim_start_matches('-').len() <= INT_DIGITS {
            return Value::Int(s);
        }
    }
    bounds::long_int(i.is_negative(), i.bits(), &i.magnitude().to_bytes_le())
}

/// A Python string's contents (lossy for lone surrogates; abbreviated past
/// [`LONG`] characters, [`bounds::text`]); other objects by type name.
pub fn str_of(obj: &PyObject) -> String {
    match obj.downcast_ref::<PyStr>() {
        Some(s) => bounds::text(&s.to_string_lossy()).into_owned(),
        None => bounds::text(&format!("<{}>", obj.class().name())).into_owned(),
    }
}
