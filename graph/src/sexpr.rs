//! S-expression printing of a library, in the style of Snek/Lantern: stable
//! (a function of the library alone) and readable, one binding per line.
//!
//! ```text
//! (def f ((x0 float32 [3]) (x1 bool []))
//!   (let ((x2 (add x0 x0))
//!         ((x3 x4) (cond x1 then else (x2))))
//!     (x3 x4)))
//! ```
//!
//! Ops print as `(name inputs... :attr value ...)` (list ops too: `(list_push
//! x3 x5)`, a list's signature `float32 [? 2]`, `?` its length); constants as
//! `(const dtype [shape] elements)` with exact float text; functions are named
//! by their name, or `name#id` when another function shares it.

use crate::float_text::{f32_to_text, f64_to_text};
use crate::ir::{FnId, Function, Library, Node, ValueId};
use crate::op::{IndexItem, Op};
use crate::tensor::{Data, Tensor};
use std::fmt::{self, Write};

fn list<T>(items: impl IntoIterator<Item = T>, f: impl Fn(T) -> String) -> String {
    let parts: Vec<String> = items.into_iter().map(f).collect();
    format!("({})", parts.join(" "))
}

/// `[2 3]`; a dimension known only at execution (a list's length) is `?`.
fn shape(s: &[usize]) -> String {
    let dims: Vec<String> = s.iter().map(|&d| if d == crate::op::DYN { "?".to_string() } else { d.to_string() }).collect();
    format!("[{}]", dims.join(" "))
}

fn value(v: ValueId) -> String {
    format!("x{}", v.0)
}

fn opt<T>(v: &Option<T>, f: impl Fn(&T) -> String) -> String {
    v.as_ref().map_or_else(|| "none".to_string(), f)
}

fn const_text(t: &Tensor) -> String {
    let elems: Vec<String> = match t.data() {
        Data::Bool(a) => a.iter().map(|b| b.to_string()).collect(),
        Data::I32(a) => a.iter().map(i32::to_string).collect(),
        Data::I64(a) => a.iter().map(i64::to_string).collect(),
        Data::F32(a) => a.iter().map(|&x| f32_to_text(x)).collect(),
        Data::F64(a) => a.iter().map(|&x| f64_to_text(x)).collect(),
    };
    let body = if t.ndim() == 0 { elems.join(" ") } else { format!("({})", elems.join(" ")) };
    format!("(const {} {} {body})", t.dtype(), shape(t.shape()))
}

fn index_item(item: &IndexItem) -> String {
    let bound = |b: &Option<i64>| opt(b, i64::to_string);
    match item {
        IndexItem::At(i) => i.to_string(),
        IndexItem::Slice { start, stop, step } => format!("(slice {} {} {})", bound(start), bound(stop), bound(step)),
        IndexItem::NewAxis => "newaxis".into(),
        IndexItem::Ellipsis => "...".into(),
    }
}

/// The `:attr value` pairs of an op (empty for ops without attributes).
fn attrs(op: &Op) -> Vec<(&'static str, String)> {
    let axes = |a: &Option<Vec<i64>>| opt(a, |v| list(v, i64::to_string));
    match op {
        Op::ReduceSum { axis, keepdims }
        | Op::ReduceMax { axis, keepdims }
        | Op::ReduceMin { axis, keepdims }
        | Op::ReduceMean { axis, keepdims } => vec![("axis", axes(axis)), ("keepdims", keepdims.to_string())],
        Op::ArgMax { axis } | Op::Concat { axis } | Op::Stack { axis } | Op::ListStack { axis } => vec![("axis", axis.to_string())],
        Op::ListNew { shape: s, dtype } => vec![("dtype", dtype.to_string()), ("shape", shape(s))],
        Op::Cast { dtype } => vec![("dtype", dtype.to_string())],
        Op::Reshape { shape } => vec![("shape", list(shape, i64::to_string))],
        Op::Transpose { perm } => vec![("perm", opt(perm, |p| list(p, usize::to_string)))],
        Op::Index { items } => vec![("items", list(items, index_item))],
        Op::Fill { shape, dtype, value } => {
            vec![("shape", list(shape, usize::to_string)), ("dtype", dtype.to_string()), ("value", f64_to_text(*value))]
        }
        Op::Range { start, limit, delta, dtype } => vec![
            ("start", f64_to_text(*start)),
            ("limit", f64_to_text(*limit)),
            ("delta", f64_to_text(*delta)),
            ("dtype", dtype.to_string()),
        ],
        Op::Eye { n, dtype } => vec![("n", n.to_string()), ("dtype", dtype.to_string())],
        _ => Vec::new(),
    }
}

impl Library {
    /// How `id` is referred to: its name, or `name#id` when the name is shared.
    fn fn_ref(&self, id: FnId) -> String {
        match self.get(id) {
            Some(f) if self.functions.iter().filter(|g| g.name == f.name).count() == 1 => f.name.clone(),
            Some(f) => format!("{}#{}", f.name, id.0),
            None => format!("#{}", id.0),
        }
    }

    fn node_expr(&self, node: &Node) -> String {
        let args = |vs: &[ValueId]| list(vs.iter().copied(), value);
        match node {
            Node::Const(t) => const_text(t),
            Node::Op { op, inputs } => {
                let mut s = format!("({}", op.sexpr_name());
                for v in inputs {
                    write!(s, " {}", value(*v)).ok();
                }
                for (k, v) in attrs(op) {
                    write!(s, " :{k} {v}").ok();
                }
                s + ")"
            }
            Node::Cond { pred, then_fn, else_fn, inputs } => {
                format!("(cond {} {} {} {})", value(*pred), self.fn_ref(*then_fn), self.fn_ref(*else_fn), args(inputs))
            }
            Node::While { cond_fn, body_fn, inputs } => {
                format!("(while {} {} {})", self.fn_ref(*cond_fn), self.fn_ref(*body_fn), args(inputs))
            }
            Node::Call { callee, inputs } => format!("(call {} {})", self.fn_ref(*callee), args(inputs)),
            Node::Raise { site, exc_type, message, line, .. } => {
                format!("(raise {exc_type} {message:?} :line {} :site {site})", opt(line, u32::to_string))
            }
            Node::Host { site, label, inputs, .. } => format!("(host {label} :site {site} {})", args(inputs)),
        }
    }

    /// One function as an S-expression (see the module doc).
    pub fn function_sexpr(&self, id: FnId) -> String {
        let Some(f) = self.get(id) else {
            return format!("(undefined #{})", id.0);
        };
        self.write_function(id, f)
    }

    fn write_function(&self, id: FnId, f: &Function) -> String {
        let params = list(f.params.iter().enumerate(), |(i, (d, s))| format!("(x{i} {d} {})", shape(s)));
        let mut out = format!("(def {} {params}\n  (let (", self.fn_ref(id));
        let mut next = f.params.len();
        for (i, node) in f.nodes.iter().enumerate() {
            let k = self.num_outputs(node).unwrap_or(0);
            let names: Vec<String> = (next..next + k).map(|v| format!("x{v}")).collect();
            next += k;
            let binder = if k == 1 { names.join("") } else { format!("({})", names.join(" ")) };
            if i > 0 {
                out.push_str("\n        ");
            }
            write!(out, "({binder} {})", self.node_expr(node)).ok();
        }
        write!(out, ")\n    {}))", list(f.outputs.iter().copied(), value)).ok();
        out
    }
}

/// All functions, in order, separated by blank lines.
impl fmt::Display for Library {
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (id, f)) in self.iter().enumerate() {
            if i > 0 {
                out.write_str("\n\n")?;
            }
            out.write_str(&self.write_function(id, f))?;
        }
        Ok(())
    }
}
