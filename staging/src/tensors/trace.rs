//! The tracer: graph functions under construction, one per traced Python
//! function, branch or loop part, on a stack (the innermost on top).
//!
//! A symbolic tensor names a value of one builder. An op whose inputs belong
//! to an enclosing builder *captures* them (TensorFlow's FuncGraph captures):
//! each builder between gets a parameter for the value, and the cond / while
//! node that uses the inner function passes the outer value in. A traced
//! Python function (`@sc.function`) is isolated: its inputs are its explicit
//! parameters only. Eager tensors used in a trace become constants.
//!
//! Builders number values locally ([`Local`]); [`Builder::finish`] renumbers
//! them in the IR's order (parameters first, then node outputs), which lets
//! parameters be added after nodes (captures found late, the unused
//! parameters that give both branches of a cond the same signature).
//!
//! Every trace reserves its library slot when it begins, so recursive calls
//! can name it; an aborted trace leaves its slot empty (functions finished
//! during it may sit in trace caches, so nothing is renumbered). The
//! library's execution plans are kept until a trace adds a function.

use stagecheck_graph::{DType, Executor, FnId, Function, Library, Node, Op, Plans, Tensor, ValueId};
use std::collections::HashMap;

/// A value of a builder, before renumbering.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Local {
    Param(u32),
    Out { node: u32, index: u32 },
}

/// A symbolic tensor: a value of the builder `builder`.
#[derive(Clone, Debug)]
pub struct Sym {
    pub builder: u64,
    pub local: Local,
    pub dtype: DType,
    pub shape: Vec<usize>,
}

/// A node whose inputs are builder-local.
enum LocalNode {
    Const(Tensor),
    Op { op: Op, inputs: Vec<Local> },
    Cond { pred: Local, then_fn: FnId, else_fn: FnId, inputs: Vec<Local> },
    While { cond_fn: FnId, body_fn: FnId, inputs: Vec<Local> },
    Call { callee: FnId, inputs: Vec<Local> },
    Raise(RaiseInfo, Vec<(DType, Vec<usize>)>),
    Host { site: u32, label: String, inputs: Vec<Local>, results: Vec<(DType, Vec<usize>)> },
}

/// A Python exception raised while tracing a path: the site the runtime
/// recorded it under (`tensors::RAISES`), and its text for printing.
#[derive(Clone, Debug)]
pub struct RaiseInfo {
    pub site: u32,
    pub exc_type: String,
    pub message: String,
    pub line: Option<u32>,
}

pub struct Builder {
    pub id: u64,
    /// The library slot reserved for the finished function (a recursive
    /// call can name it before it is finished).
    fid: FnId,
    name: String,
    /// Whether values of enclosing builders may be captured.
    captures_allowed: bool,
    /// Parameter signatures, by `Local::Param` index.
    params: Vec<(DType, Vec<usize>)>,
    /// The order parameters take in the finished function.
    param_order: Vec<u32>,
    nodes: Vec<LocalNode>,
    /// Outer value captured → the parameter standing for it.
    captured: Vec<(Sym, u32)>,
    /// Output counts of the cond, while and call nodes, by node.
    outputs_of: HashMap<u32, usize>,
    /// The dtype and shape of every value.
    sigs: HashMap<Local, (DType, Vec<usize>)>,
}

impl Builder {
    fn add_param(&mut self, dtype: DType, shape: Vec<usize>) -> u32 {
        let k = self.params.len() as u32;
        self.sigs.insert(Local::Param(k), (dtype, shape.clone()));
        self.params.push((dtype, shape));
        self.param_order.push(k);
        k
    }

    /// A parameter outside the order (placed by the caller).
    fn loose_param(&mut self, dtype: DType, shape: Vec<usize>) -> u32 {
        let k = self.params.len() as u32;
        self.sigs.insert(Local::Param(k), (dtype, shape.clone()));
        self.params.push((dtype, shape));
        k
    }

    fn push(&mut self, node: LocalNode) -> u32 {
        self.nodes.push(node);
        (self.nodes.len() - 1) as u32
    }

    /// Whether running the finished function may execute a raise node: its
    /// own, or one of a function it runs (those in `raising`).
    fn may_raise(&self, raising: &std::collections::HashSet<FnId>) -> bool {
        self.nodes.iter().any(|n| match n {
            // A Variable's read or assignment (staging/host.py) cannot raise:
            // a staged call reading one may sit in a `with sc.GradientTape()`.
            LocalNode::Host { label, .. } if label == "read_variable" || label == "assign_variable" => false,
            // A host call runs Python, which may raise.
            LocalNode::Raise(..) | LocalNode::Host { .. } => true,
            LocalNode::Cond { then_fn, else_fn, .. } => raising.contains(then_fn) || raising.contains(else_fn),
            LocalNode::While { cond_fn, body_fn, .. } => raising.contains(cond_fn) || raising.contains(body_fn),
            LocalNode::Call { callee, .. } => raising.contains(callee),
            _ => false,
        })
    }

    /// Ends the builder with a raise node defining values of `sigs`: its outputs.
    fn push_raise(&mut self, info: RaiseInfo, sigs: Vec<(DType, Vec<usize>)>) -> Vec<Local> {
        let n = sigs.len();
        let node = self.push(LocalNode::Raise(info, sigs.clone()));
        self.outputs_of.insert(node, n);
        (0..n)
            .map(|k| {
                let l = Local::Out { node, index: k as u32 };
                self.sigs.insert(l, sigs[k].clone());
                l
            })
            .collect()
    }

    /// The finished function: values renumbered, `outputs` its results.
    fn finish(self, outputs: &[Local]) -> Function {
        let mut number: HashMap<Local, ValueId> = HashMap::new();
        for (i, k) in self.param_order.iter().enumerate() {
            number.insert(Local::Param(*k), ValueId(i as u32));
        }
        let mut next = self.param_order.len() as u32;
        let mut nodes = Vec::with_capacity(self.nodes.len());
        let params = self.param_order.iter().map(|k| self.params[*k as usize].clone()).collect();
        for (i, node) in self.nodes.into_iter().enumerate() {
            let map = |l: &Local| number[l];
            let maps = |ls: &[Local]| ls.iter().map(map).collect::<Vec<_>>();
            let outs = self.outputs_of.get(&(i as u32)).copied().unwrap_or(1);
            let node = match node {
                LocalNode::Const(t) => Node::Const(t),
                LocalNode::Op { op, inputs } => Node::Op { op, inputs: maps(&inputs) },
                LocalNode::Cond { pred, then_fn, else_fn, inputs } => {
                    Node::Cond { pred: map(&pred), then_fn, else_fn, inputs: maps(&inputs) }
                }
                LocalNode::While { cond_fn, body_fn, inputs } => Node::While { cond_fn, body_fn, inputs: maps(&inputs) },
                LocalNode::Call { callee, inputs } => Node::Call { callee, inputs: maps(&inputs) },
                LocalNode::Raise(r, results) => {
                    Node::Raise { site: r.site, exc_type: r.exc_type, message: r.message, line: r.line, results }
                }
                LocalNode::Host { site, label, inputs, results } => Node::Host { site, label, inputs: maps(&inputs), results },
            };
            for index in 0..outs {
                number.insert(Local::Out { node: i as u32, index: index as u32 }, ValueId(next));
                next += 1;
            }
            nodes.push(node);
        }
        let results = outputs.iter().map(|l| self.sigs[l].clone()).collect();
        let outputs = outputs.iter().map(|l| number[l]).collect();
        Function { name: self.name, params, results, nodes, outputs }
    }
}

/// A finished function whose captures its user must pass in.
struct Finished {
    /// The outer values captured, in parameter order after the explicit ones.
    captured: Vec<Sym>,
}

#[derive(Default)]
pub struct Tracer {
    pub library: Library,
    stack: Vec<Builder>,
    next_id: u64,
    finished: HashMap<FnId, Finished>,
    /// Builders finished but still open to padding (branches, loop parts).
    pending: HashMap<FnId, Builder>,
    pending_outputs: HashMap<FnId, Vec<Local>>,
    /// Output signatures of every function ended so far.
    output_sigs: HashMap<FnId, Vec<(DType, Vec<usize>)>>,
    /// The library as last validated, with its plans: kept while no
    /// function is added (traces add functions; running never changes them).
    /// Shared, so a graph runs with no borrow of the tracer held: its host
    /// nodes run Python, which may trace and run graphs itself.
    snapshot: Option<std::rc::Rc<Snapshot>>,
    /// Pending branches and loop parts whose trace raised: their raise node
    /// is added when the cond or while node gives the signatures it stands for.
    pending_raise: HashMap<FnId, RaiseInfo>,
    /// Functions whose execution may run a raise node (theirs or a callee's).
    raising: std::collections::HashSet<FnId>,
    /// A function the snapshot holds was written since it was taken: the
    /// next snapshot validates and plans the whole library again.
    stale: bool,
}

/// A validated library and its plans, as run (see `Tracer::snapshot`).
pub struct Snapshot {
    pub library: Library,
    pub plans: Plans,
}

impl Snapshot {
    pub fn executor(&self) -> Executor<'_> {
        Executor::with_plans(&self.library, &self.plans)
    }
}

/// Why tracing cannot go on (a StagingError in Python).
#[derive(Debug)]
pub struct TraceError(pub String);

impl Tracer {
    pub fn reset(&mut self) {
        *self = Tracer::default();
    }

    /// The library to run, validated and planned once per change (run it
    /// with [`Snapshot::executor`] after the tracer's borrow ends). Traces
    /// only append functions: the last snapshot, when nothing else holds it
    /// (no graph of it running) and none of its functions was written since
    /// (`stale`), is extended by the new ones, validated and planned alone,
    /// instead of copying, validating and planning the whole library again
    /// at every call that follows a trace (quadratic in the functions).
    pub fn snapshot(&mut self) -> Result<std::rc::Rc<Snapshot>, String> {
        if let Some(s) = &self.snapshot {
            if s.plans.len() == self.library.functions.len() && !self.stale {
                return Ok(s.clone());
            }
        }
        let last = self.snapshot.take().filter(|_| !self.stale).and_then(|s| std::rc::Rc::try_unwrap(s).ok());
        self.stale = false;
        let s = match last {
            Some(mut s) => {
                let start = s.library.functions.len();
                stagecheck_graph::validate_from(&self.library, start)?;
                s.library.functions.extend_from_slice(&self.library.functions[start..]);
                s.plans.extend(&s.library);
                s
            }
            None => {
                stagecheck_graph::validate(&self.library)?;
                Snapshot { plans: Plans::new(&self.library), library: self.library.clone() }
            }
        };
        let s = std::rc::Rc::new(s);
        self.snapshot = Some(s.clone());
        Ok(s)
    }

    /// Fills the library slot `id` (reserved by `begin`).
    fn set_function(&mut self, id: FnId, f: Function) {
        if self.snapshot.as_ref().is_some_and(|s| (id.0 as usize) < s.library.functions.len()) {
            self.stale = true;
        }
        self.library.functions[id.0 as usize] = f;
    }

    /// Records a host call of `site` (a Python function the runtime
    /// registered, `tensors::HOSTS`) on `inputs`, defining `results`.
    pub fn host(&mut self, site: u32, label: String, inputs: &[Input], results: Vec<(DType, Vec<usize>)>) -> Result<Vec<Sym>, TraceError> {
        let inputs = inputs.iter().map(|i| self.local(i)).collect::<Result<Vec<_>, _>>()?;
        self.node_with_outputs(LocalNode::Host { site, label, inputs, results: results.clone() }, results)
    }

    pub fn tracing(&self) -> bool {
        !self.stack.is_empty()
    }

    /// Starts a function; its parameters' symbolic tensors.
    pub fn begin(&mut self, name: &str, params: Vec<(DType, Vec<usize>)>, captures_allowed: bool) -> Vec<Sym> {
        self.next_id += 1;
        let fid = FnId(self.library.functions.len() as u32);
        // An empty function keeps the slot until the builder is finished.
        self.library.functions.push(Function {
            name: name.to_string(),
            params: Vec::new(),
            results: Vec::new(),
            nodes: Vec::new(),
            outputs: Vec::new(),
        });
        let mut b = Builder {
            id: self.next_id,
            fid,
            name: name.to_string(),
            captures_allowed,
            params: Vec::new(),
            param_order: Vec::new(),
            nodes: Vec::new(),
            captured: Vec::new(),
            outputs_of: HashMap::new(),
            sigs: HashMap::new(),
        };
        let syms = params
            .into_iter()
            .map(|(dtype, shape)| {
                let k = b.add_param(dtype, shape.clone());
                Sym { builder: b.id, local: Local::Param(k), dtype, shape }
            })
            .collect();
        self.stack.push(b);
        syms
    }

    /// Drops the innermost trace. Its library slot stays, empty: functions
    /// finished during it (a nested `sc.function`'s trace) are in trace
    /// caches, so nothing after it may be renumbered.
    pub fn abort(&mut self) {
        self.stack.pop();
    }

    /// The id of the innermost builder (its symbolic tensors' `builder`).
    pub fn top_builder(&self) -> Option<u64> {
        self.stack.last().map(|b| b.id)
    }

    /// The slot of the innermost function being traced.
    pub fn current(&self) -> Option<FnId> {
        self.stack.last().map(|b| b.fid)
    }

    /// The local of `input` in the top builder: itself, a capture, or a constant.
    pub fn local(&mut self, input: &Input) -> Result<Local, TraceError> {
        let top = self.stack.len() - 1;
        match input {
            Input::Eager(t) => {
                let b = &mut self.stack[top];
                let node = b.push(LocalNode::Const(t.clone()));
                let l = Local::Out { node, index: 0 };
                b.sigs.insert(l, (t.dtype(), t.shape().to_vec()));
                Ok(l)
            }
            Input::Symbolic(s) => self.capture(s, top),
        }
    }

    fn capture(&mut self, s: &Sym, level: usize) -> Result<Local, TraceError> {
        if self.stack[level].id == s.builder {
            return Ok(s.local);
        }
        if let Some((_, k)) = self.stack[level].captured.iter().find(|(c, _)| c.builder == s.builder && c.local == s.local) {
            return Ok(Local::Param(*k));
        }
        if level == 0 || !self.stack[level].captures_allowed {
            return Err(TraceError(format!(
                "a symbolic tensor of another trace is used in '{}' (a staged function reads a tensor of its caller's trace; pass it as an argument)",
                self.stack[level].name
            )));
        }
        let outer = self.capture(s, level - 1)?;
        let b = &mut self.stack[level];
        let k = b.add_param(s.dtype, s.shape.clone());
        let outer_sym = Sym { builder: self.stack[level - 1].id, local: outer, dtype: s.dtype, shape: s.shape.clone() };
        self.stack[level].captured.push((outer_sym, k));
        Ok(Local::Param(k))
    }

    /// `t` as a constant node of the top builder.
    pub fn constant(&mut self, t: Tensor) -> Result<Sym, TraceError> {
        let (dtype, shape) = (t.dtype(), t.shape().to_vec());
        let local = self.local(&Input::Eager(t))?;
        Ok(self.sym(local, dtype, shape))
    }

    fn sym(&self, local: Local, dtype: DType, shape: Vec<usize>) -> Sym {
        Sym { builder: self.stack.last().expect("tracing").id, local, dtype, shape }
    }

    /// Records `op` on `inputs` (already checked by `infer`).
    pub fn op(&mut self, op: Op, inputs: &[Input], dtype: DType, shape: Vec<usize>) -> Result<Sym, TraceError> {
        let locals = inputs.iter().map(|i| self.local(i)).collect::<Result<Vec<_>, _>>()?;
        let b = self.stack.last_mut().expect("tracing");
        let node = b.push(LocalNode::Op { op, inputs: locals });
        b.sigs.insert(Local::Out { node, index: 0 }, (dtype, shape.clone()));
        Ok(self.sym(Local::Out { node, index: 0 }, dtype, shape))
    }

    /// Ends the top function with `outputs`; branches and loop parts stay
    /// pending until their cond or while node pads their signatures.
    pub fn end(&mut self, outputs: &[Input], pending: bool) -> Result<FnId, TraceError> {
        let locals = outputs.iter().map(|i| self.local(i)).collect::<Result<Vec<_>, _>>()?;
        let b = self.stack.pop().expect("tracing");
        let id = b.fid;
        let sigs: Vec<_> = outputs.iter().map(Input::signature).collect();
        self.finished.insert(id, Finished { captured: b.captured.iter().map(|(s, _)| s.clone()).collect() });
        self.output_sigs.insert(id, sigs);
        if pending {
            self.pending.insert(id, b);
            self.pending_outputs.insert(id, locals);
        } else {
            if b.may_raise(&self.raising) {
                self.raising.insert(id);
            }
            let f = b.finish(&locals);
            self.set_function(id, f);
        }
        Ok(id)
    }

    /// Ends the top function at a Python exception raised while tracing it
    /// (`info`): the path always raises there. A branch or loop part stays
    /// pending (its raise node gets the signatures of the values it stands
    /// for from the cond or while node); a staged function's raise node
    /// defines `results` (none, or a recursive call's guessed result).
    pub fn end_raise(&mut self, info: RaiseInfo, pending: bool, results: Vec<(DType, Vec<usize>)>) -> FnId {
        let mut b = self.stack.pop().expect("tracing");
        let id = b.fid;
        self.finished.insert(id, Finished { captured: b.captured.iter().map(|(s, _)| s.clone()).collect() });
        if pending {
            self.output_sigs.insert(id, Vec::new());
            self.pending_raise.insert(id, info);
            self.pending.insert(id, b);
            self.pending_outputs.insert(id, Vec::new());
        } else {
            self.output_sigs.insert(id, results.clone());
            let outs = b.push_raise(info, results);
            self.raising.insert(id);
            let f = b.finish(&outs);
            self.set_function(id, f);
        }
        id
    }

    /// Drops the outputs at `positions` (ascending) of a pending function
    /// (a branch whose output the other branch never binds): what tracing
    /// it again without them would give, the nodes that computed them left
    /// unused.
    pub fn drop_pending_outputs(&mut self, id: FnId, positions: &[usize]) -> Result<(), TraceError> {
        let (Some(outs), Some(sigs)) = (self.pending_outputs.get_mut(&id), self.output_sigs.get_mut(&id)) else {
            return Err(TraceError(format!("function {} is not pending", id.0)));
        };
        for &p in positions.iter().rev() {
            if p >= outs.len() || p >= sigs.len() {
                return Err(TraceError(format!("function {} has no output {p}", id.0)));
            }
            outs.remove(p);
            sigs.remove(p);
        }
        Ok(())
    }

    /// Whether `id` raised while traced (a pending branch or loop part).
    fn raised(&self, id: FnId) -> bool {
        self.pending_raise.contains_key(&id)
    }

    /// Gives a pending function that raised its raise node, defining `sigs`.
    fn settle_raise(&mut self, id: FnId, sigs: &[(DType, Vec<usize>)]) {
        let (Some(info), Some(b)) = (self.pending_raise.remove(&id), self.pending.get_mut(&id)) else { return };
        let outs = b.push_raise(info, sigs.to_vec());
        self.pending_outputs.insert(id, outs);
        self.output_sigs.insert(id, sigs.to_vec());
    }

    /// Whether running `id` may execute a raise node (a call of it inside a
    /// Python `try` of a trace would be caught by nothing at execution).
    pub fn may_raise(&self, id: FnId) -> bool {
        self.raising.contains(&id)
    }

    pub fn output_signatures(&self, id: FnId) -> Vec<(DType, Vec<usize>)> {
        self.output_sigs.get(&id).cloned().unwrap_or_default()
    }

    fn close_pending(&mut self, id: FnId) {
        if let (Some(b), Some(outs)) = (self.pending.remove(&id), self.pending_outputs.remove(&id)) {
            if b.may_raise(&self.raising) {
                self.raising.insert(id);
            }
            let f = b.finish(&outs);
            self.set_function(id, f);
        }
    }

    /// `cond(pred, then, else)` in the top builder: both branches take the
    /// captures of both (then's first) and give their outputs.
    ///
    /// A branch that raised while traced returns what the other returns
    /// (its raise node defines them); when both raised, the cond has no
    /// outputs and always raises.
    pub fn cond(&mut self, pred: &Input, then_fn: FnId, else_fn: FnId) -> Result<Vec<Sym>, TraceError> {
        let sigs = if self.raised(then_fn) { self.output_signatures(else_fn) } else { self.output_signatures(then_fn) };
        self.settle_raise(then_fn, &sigs);
        self.settle_raise(else_fn, &sigs);
        let then_caps = self.finished[&then_fn].captured.clone();
        let else_caps = self.finished[&else_fn].captured.clone();
        if let Some(b) = self.pending.get_mut(&then_fn) {
            for s in &else_caps {
                b.add_param(s.dtype, s.shape.clone());
            }
        }
        if let Some(b) = self.pending.get_mut(&else_fn) {
            let mut front = Vec::new();
            for s in &then_caps {
                front.push(b.loose_param(s.dtype, s.shape.clone()));
            }
            front.append(&mut b.param_order);
            b.param_order = front;
        }
        self.close_pending(then_fn);
        self.close_pending(else_fn);
        let pred = self.local(pred)?;
        let mut inputs = Vec::new();
        for s in then_caps.iter().chain(&else_caps) {
            inputs.push(self.local(&Input::Symbolic(s.clone()))?);
        }
        self.node_with_outputs(LocalNode::Cond { pred, then_fn, else_fn, inputs }, sigs)
    }

    /// `while(cond, body, inits)`: loop variables, then the captures of cond
    /// and of body, passed through the body unchanged.
    pub fn while_loop(&mut self, cond_fn: FnId, body_fn: FnId, inits: &[Input]) -> Result<Vec<Sym>, TraceError> {
        let n = inits.len();
        // A condition that raised always raises (it runs before any body); a
        // body that raised raises at the first iteration it runs.
        self.settle_raise(cond_fn, &[(DType::Bool, Vec::new())]);
        self.settle_raise(body_fn, &inits.iter().map(Input::signature).collect::<Vec<_>>());
        let cond_caps = self.finished[&cond_fn].captured.clone();
        let body_caps = self.finished[&body_fn].captured.clone();
        if let Some(b) = self.pending.get_mut(&cond_fn) {
            for s in &body_caps {
                b.add_param(s.dtype, s.shape.clone());
            }
        }
        if let (Some(b), Some(outs)) = (self.pending.get_mut(&body_fn), self.pending_outputs.get_mut(&body_fn)) {
            // Parameters: n loop variables, cond's captures (new), body's own.
            let mut order: Vec<u32> = b.param_order[..n].to_vec();
            let own: Vec<u32> = b.param_order[n..].to_vec();
            let mut passed = Vec::new();
            for s in &cond_caps {
                let k = b.loose_param(s.dtype, s.shape.clone());
                order.push(k);
                passed.push(Local::Param(k));
            }
            order.extend(&own);
            b.param_order = order;
            outs.extend(passed);
            outs.extend(own.iter().map(|k| Local::Param(*k)));
        }
        self.close_pending(cond_fn);
        self.close_pending(body_fn);
        let mut inputs = Vec::new();
        for i in inits {
            inputs.push(self.local(i)?);
        }
        for s in cond_caps.iter().chain(&body_caps) {
            inputs.push(self.local(&Input::Symbolic(s.clone()))?);
        }
        let mut sigs: Vec<_> = inits.iter().map(Input::signature).collect();
        sigs.extend(cond_caps.iter().chain(&body_caps).map(|s| (s.dtype, s.shape.clone())));
        let mut outs = self.node_with_outputs(LocalNode::While { cond_fn, body_fn, inputs }, sigs)?;
        outs.truncate(n);
        Ok(outs)
    }

    /// A call of `callee` in the top builder: a finished function, or one
    /// still being traced (recursion) whose results are `expected`.
    pub fn call(&mut self, callee: FnId, args: &[Input], expected: Option<Vec<(DType, Vec<usize>)>>) -> Result<Vec<Sym>, TraceError> {
        let inputs = args.iter().map(|i| self.local(i)).collect::<Result<Vec<_>, _>>()?;
        let sigs = expected.unwrap_or_else(|| self.output_signatures(callee));
        self.node_with_outputs(LocalNode::Call { callee, inputs }, sigs)
    }

    fn node_with_outputs(&mut self, node: LocalNode, sigs: Vec<(DType, Vec<usize>)>) -> Result<Vec<Sym>, TraceError> {
        let b = self.stack.last_mut().expect("tracing");
        let id = b.id;
        let index = b.push(node);
        b.outputs_of.insert(index, sigs.len());
        for (k, sig) in sigs.iter().enumerate() {
            b.sigs.insert(Local::Out { node: index, index: k as u32 }, sig.clone());
        }
        Ok(sigs
            .into_iter()
            .enumerate()
            .map(|(k, (dtype, shape))| Sym { builder: id, local: Local::Out { node: index, index: k as u32 }, dtype, shape })
            .collect())
    }
}

/// An input of a traced op: a value now, or a symbolic one.
#[derive(Clone, Debug)]
pub enum Input {
    Eager(Tensor),
    Symbolic(Sym),
}

impl Input {
    pub fn signature(&self) -> (DType, Vec<usize>) {
        match self {
            Input::Eager(t) => (t.dtype(), t.shape().to_vec()),
            Input::Symbolic(s) => (s.dtype, s.shape.clone()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A traced function `x -> -x` (and, with `callee`, a call of it first).
    fn trace_one(t: &mut Tracer, name: &str, callee: Option<FnId>) -> FnId {
        let sig = (DType::Float32, vec![2]);
        let x = t.begin(name, vec![sig.clone()], false).remove(0);
        let mut v = Input::Symbolic(x);
        if let Some(c) = callee {
            v = Input::Symbolic(t.call(c, &[v], None).unwrap().remove(0));
        }
        let y = t.op(Op::Neg, &[v], sig.0, sig.1).unwrap();
        t.end(&[Input::Symbolic(y)], false).unwrap()
    }

    /// A snapshot extended by the functions traced since the last one is the
    /// snapshot of the whole library; one still held (a graph of it running)
    /// is left as it is, and a write into one of its slots is seen.
    #[test]
    fn snapshots_grow_with_the_library() {
        let mut t = Tracer::default();
        let f = trace_one(&mut t, "f", None);
        let first = t.snapshot().unwrap();
        assert_eq!(first.plans.len(), 1);
        let held = first.clone();
        let g = trace_one(&mut t, "g", Some(f));
        drop(first);
        let second = t.snapshot().unwrap();
        assert_eq!(held.library.functions.len(), 1, "a held snapshot is not changed");
        drop(held);
        let h = trace_one(&mut t, "h", Some(g));
        let third = t.snapshot().unwrap();
        assert!(!std::rc::Rc::ptr_eq(&second, &third));
        drop(second);
        let again = t.snapshot().unwrap();
        assert!(std::rc::Rc::ptr_eq(&third, &again), "unchanged: the same snapshot");
        assert_eq!(third.library, t.library);
        assert_eq!(third.plans.len(), 3);
        let x = Tensor::from_f32(vec![1.0, -2.0], &[2]).unwrap();
        assert_eq!(third.executor().run(h, std::slice::from_ref(&x)).unwrap(), vec![Tensor::from_f32(vec![-1.0, 2.0], &[2]).unwrap()]);
        drop((third, again));
        // A slot the snapshot holds written again: planned anew, from scratch.
        let sig = (DType::Float32, vec![2]);
        let p = t.begin("p", vec![sig.clone()], false).remove(0);
        t.set_function(
            f,
            Function { name: "f".into(), params: vec![sig.clone()], results: vec![sig], nodes: vec![], outputs: vec![ValueId(0)] },
        );
        t.end(&[Input::Symbolic(p)], false).unwrap();
        let fresh = t.snapshot().unwrap();
        assert_eq!(fresh.library, t.library);
        assert_eq!(fresh.executor().run(h, std::slice::from_ref(&x)).unwrap(), vec![x]);
    }
}
