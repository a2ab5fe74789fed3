//! The graph IR: a library of functions addressed by index. Values are
//! numbered per function: parameters first, then each node's outputs in order.
//! Every value has a static dtype and shape (traces are shape-specialised).

use crate::dtype::DType;
use crate::op::Op;
use crate::tensor::Tensor;
use serde::{Deserialize, Serialize};

/// A function's index in its [`Library`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct FnId(pub u32);

/// A value's number within its function (`x0`, `x1`, ... when printed).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ValueId(pub u32);

/// The static type of a value: dtype and shape.
pub type Sig = (DType, Vec<usize>);

/// All functions of a staged program; they may call each other, recursively too.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Library {
    pub functions: Vec<Function>,
}

/// A function: parameters, nodes in evaluation order, and the values it returns.
///
/// `results` declares the returned dtypes and shapes, so calls (recursive ones
/// included) can be typed without looking into the callee.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Function {
    pub name: String,
    pub params: Vec<Sig>,
    pub results: Vec<Sig>,
    pub nodes: Vec<Node>,
    pub outputs: Vec<ValueId>,
}

/// A node defines one value (`Const`, `Op`) or one value per output of the
/// function it runs (`Cond`, `Call`) or per loop variable (`While`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Node {
    Const(Tensor),
    /// In JSON the op's tag and attributes sit beside `inputs`:
    /// `{"op": {"op": "reduce_sum", "axis": [0], "keepdims": false, "inputs": [2]}}`.
    Op {
        #[serde(flatten)]
        op: Op,
        inputs: Vec<ValueId>,
    },
    /// `pred` (a bool scalar) picks `then_fn` or `else_fn`; both take `inputs`
    /// and return the same dtypes and shapes.
    Cond {
        pred: ValueId,
        then_fn: FnId,
        else_fn: FnId,
        inputs: Vec<ValueId>,
    },
    /// Loop variables start as `inputs`; while `cond_fn(vars)` (one bool scalar)
    /// is true, `vars = body_fn(vars)` (same dtypes and shapes).
    While {
        cond_fn: FnId,
        body_fn: FnId,
        inputs: Vec<ValueId>,
    },
    Call {
        callee: FnId,
        inputs: Vec<ValueId>,
    },
    /// Raises, when executed, the Python exception the tracer recorded as
    /// `site` (one raised while tracing this path of a staged branch, lazy
    /// operand or loop body): the path ends here. It defines one value per
    /// `results` signature that nothing ever computes, so a raising branch
    /// returns what the other branch of its cond returns. `exc_type`,
    /// `message` and `line` (the traced source's) are for printing; the
    /// executor reports `ErrorKind::Raised(site)` with `message`.
    Raise {
        site: u32,
        exc_type: String,
        message: String,
        line: Option<u32>,
        results: Vec<Sig>,
    },
    /// Calls the host at every execution, in node order: the Python function
    /// the tracer recorded as `site` (a print, an `sc.py_function`, a read
    /// or an assignment of an `sc.Variable`), given the values of `inputs`
    /// and returning one value per `results` signature. `label` is for
    /// printing. The executor calls its host callback (`Executor::with_host`).
    Host {
        site: u32,
        label: String,
        inputs: Vec<ValueId>,
        results: Vec<Sig>,
    },
}

impl Library {
    pub fn new() -> Library {
        Library::default()
    }

    /// Appends `f`, returning its id.
    pub fn add(&mut self, f: Function) -> FnId {
        self.functions.push(f);
        FnId(self.functions.len() as u32 - 1)
    }

    pub fn get(&self, id: FnId) -> Option<&Function> {
        self.functions.get(id.0 as usize)
    }

    /// Function ids with their functions, in order.
    pub fn iter(&self) -> impl Iterator<Item = (FnId, &Function)> {
        self.functions.iter().enumerate().map(|(i, f)| (FnId(i as u32), f))
    }

    /// How many values `node` defines, or `None` when it names a missing function.
    pub fn num_outputs(&self, node: &Node) -> Option<usize> {
        match node {
            Node::Const(_) | Node::Op { .. } => Some(1),
            Node::Cond { then_fn, .. } => self.get(*then_fn).map(|f| f.results.len()),
            Node::While { inputs, .. } => Some(inputs.len()),
            Node::Call { callee, .. } => self.get(*callee).map(|f| f.results.len()),
            Node::Raise { results, .. } | Node::Host { results, .. } => Some(results.len()),
        }
    }
}

impl Node {
    /// The values the node reads, in order (a `Cond`'s predicate first).
    pub fn uses(&self) -> Vec<ValueId> {
        match self {
            Node::Const(_) | Node::Raise { .. } => Vec::new(),
            Node::Op { inputs, .. } | Node::While { inputs, .. } | Node::Call { inputs, .. } | Node::Host { inputs, .. } => inputs.clone(),
            Node::Cond { pred, inputs, .. } => std::iter::once(*pred).chain(inputs.iter().copied()).collect(),
        }
    }
}
