//! The graph executor. Every `Op` node goes to the executor's [`Device`]:
//! [`Cpu`] runs `eval`, the kernel eager execution uses; a GPU device (the
//! `stagecheck-gpu` crate) runs its own kernels on values it keeps on the
//! device. Conds and whiles run natively (a loop in Rust), decided on the
//! host (a predicate comes back as one bool); loop state stays on the device.
//! function invocations (calls, branches, loop conditions and bodies) live on
//! an explicit frame stack, so deep recursion is an error
//! ("maximum recursion depth exceeded"), never a native stack overflow.
//! Values are dropped right after their last reader (see `plan.rs`).
//!
//! Speed without changing a bit: argument lists, frame values, results and
//! loop variables are one buffer type (`Slots`) reused from a per-run pool;
//! a loop condition gets copies of only the variables it reads; a returning
//! frame moves its outputs. The plan names, per op node, an input read for
//! the last time with the output's dtype and shape (`donor`): the device
//! gets it by value ([`Device::op_into`]), and the CPU writes elementwise
//! results (and matrix products) into it when no one else holds it
//! (`Tensor::data_mut`: a strong count of 1; no `Weak` exists). A loop whose
//! condition and body are flat (`Plan::flat`: only `Const`, `Op`, `Raise` and `Host` nodes)
//! runs in `flat_loop`, on two value buffers kept for the loop instead of a
//! frame per invocation, with the same checks before each invocation
//! (depth, interrupt). On the CPU ([`Device::constant`]) `Const` nodes store
//! nothing: reads fall back to the library's tensor (`Plan::const_node`;
//! constants are never donors), so no reference count moves. Predicates are
//! read with [`Device::scalar`]; a device whose reads are round trips (a
//! GPU) gets a flat loop without host nodes run ahead of its predicates,
//! several read at once ([`Device::lookahead`], `flat_loop_ahead`). Throughput: `graph/benches/exec.rs`, and
//! the staging workloads in `graph/benches/workloads.rs`.

use crate::device::{Cpu, Device};
use crate::error::OpError;
use crate::ir::{FnId, Function, Library, Node, Sig, ValueId};
use crate::plan::Plan;
use crate::scalar::Scalar;
use crate::tensor::Tensor;
use crate::validate::{fmt_sig, validate};
use std::borrow::Cow;

/// The default limit on nested function invocations.
pub const MAX_DEPTH: usize = 1000;

/// Runs function `f` of `lib` on `args` (validating `lib` first).
pub fn run(lib: &Library, f: FnId, args: &[Tensor]) -> Result<Vec<Tensor>, OpError> {
    Executor::new(lib)?.run(f, args)
}

/// A validated library with its plans, ready to run any of its functions
/// many times, on the CPU or another [`Device`].
pub struct Executor<'l, D: Device = Cpu> {
    lib: &'l Library,
    device: D,
    plans: Cow<'l, [Plan]>,
    max_depth: usize,
    /// Asked before every invocation (each loop iteration invokes twice):
    /// true stops the run with `Interrupted`. Graphs never end on their own
    /// when a loop never does; this is how a caller's time limit reaches them.
    interrupt: Option<&'l dyn Fn() -> bool>,
    /// Runs a `Host` node: `(site, inputs on the host)` to its results.
    /// Without one, a `Host` node is an error.
    host: Option<&'l HostFn<'l>>,
}

/// The host callback of `Host` nodes (see [`Executor::with_host`]).
pub type HostFn<'l> = dyn Fn(u32, Vec<Tensor>) -> Result<Vec<Tensor>, OpError> + 'l;

/// The plans of a validated library's functions (see [`Executor::with_plans`]).
pub struct Plans(Vec<Plan>);

impl Plans {
    /// Plans every function of `lib`, which the caller has validated.
    pub fn new(lib: &Library) -> Plans {
        Plans(lib.functions.iter().map(|f| Plan::new(lib, f)).collect())
    }

    /// Plans the functions of `lib` past those planned already (`lib` grew
    /// by them, the others unchanged, and has been validated).
    pub fn extend(&mut self, lib: &Library) {
        let start = self.0.len();
        self.0.extend(lib.functions[start..].iter().map(|f| Plan::new(lib, f)));
    }

    /// How many functions were planned.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// Values by position: a frame's values, the arguments of an invocation
/// (they become the callee frame's values), results, loop variables.
/// `None` is a value no one reads (an unused parameter, a freed value).
type Slots<V> = Vec<Option<V>>;

/// Emptied `Slots` buffers, reused instead of allocating one per frame,
/// argument list and result list (a loop iteration used six).
struct Pool<V>(Vec<Slots<V>>);

impl<V> Pool<V> {
    fn take(&mut self) -> Slots<V> {
        self.0.pop().unwrap_or_default()
    }

    fn give(&mut self, mut slots: Slots<V>) {
        slots.clear();
        if self.0.len() < 64 {
            self.0.push(slots);
        }
    }
}

/// What a suspended frame waits for from the frame above it.
enum Wait<V> {
    Nothing,
    /// The results of a call or a cond branch, defining node `node`'s values.
    Results {
        node: usize,
    },
    /// A loop condition's verdict on `vars`.
    LoopCond {
        node: usize,
        vars: Slots<V>,
    },
    /// A loop body's new variables.
    LoopBody {
        node: usize,
    },
}

struct Frame<'l, V> {
    func: &'l Function,
    plan: &'l Plan,
    values: Slots<V>,
    pc: usize,
    wait: Wait<V>,
}

/// What running a frame's nodes ended with.
enum Step<V> {
    /// Invoke `callee` on `args` (the frame waits).
    Invoke { callee: FnId, args: Slots<V> },
    /// The frame's function returned.
    Return(Slots<V>),
}

fn internal(what: impl std::fmt::Display) -> OpError {
    OpError::invalid(format!("internal error in the graph executor: {what}"))
}

impl<'l> Executor<'l, Cpu> {
    /// Validates `lib` (an invalid graph is an `InvalidArgument` error) and plans its functions.
    pub fn new(lib: &'l Library) -> Result<Executor<'l, Cpu>, OpError> {
        validate(lib).map_err(|e| OpError::invalid(format!("invalid graph: {e}")))?;
        Ok(Executor::trusted(lib))
    }

    /// Plans `lib`, which the caller has validated (with [`validate`]).
    pub fn trusted(lib: &'l Library) -> Executor<'l, Cpu> {
        Executor { lib, device: Cpu, plans: Cow::Owned(Plans::new(lib).0), max_depth: MAX_DEPTH, interrupt: None, host: None }
    }

    /// Runs `lib` with plans made earlier by [`Plans::new`] for this very
    /// library (validated, unchanged since): a caller running many calls of
    /// one library (the tracer) plans once.
    pub fn with_plans(lib: &'l Library, plans: &'l Plans) -> Executor<'l, Cpu> {
        Executor { lib, device: Cpu, plans: Cow::Borrowed(&plans.0), max_depth: MAX_DEPTH, interrupt: None, host: None }
    }
}

impl<'l, D: Device> Executor<'l, D> {
    /// The same executor, running its ops on `device`.
    pub fn on<E: Device>(self, device: E) -> Executor<'l, E> {
        let Executor { lib, plans, max_depth, interrupt, host, .. } = self;
        Executor { lib, device, plans, max_depth, interrupt, host }
    }

    pub fn device(&self) -> &D {
        &self.device
    }

    /// Sets the interrupt check (see the field).
    pub fn with_interrupt(mut self, interrupt: &'l dyn Fn() -> bool) -> Executor<'l, D> {
        self.interrupt = Some(interrupt);
        self
    }

    /// Sets the callback of `Host` nodes: called at each execution of one,
    /// in node order, with its inputs downloaded to the host; its results,
    /// which must have the node's signatures, are uploaded.
    pub fn with_host(mut self, host: &'l HostFn<'l>) -> Executor<'l, D> {
        self.host = Some(host);
        self
    }

    /// Sets the limit on nested invocations (at least 1).
    pub fn with_max_depth(mut self, depth: usize) -> Executor<'l, D> {
        self.max_depth = depth.max(1);
        self
    }

    fn plan(&self, id: FnId) -> Result<&Plan, OpError> {
        self.plans.get(id.0 as usize).ok_or_else(|| internal("missing plan"))
    }

    fn function(&self, id: FnId) -> Result<&'l Function, OpError> {
        self.lib.get(id).ok_or_else(|| internal(format!("no function #{}", id.0)))
    }

    /// A frame of function `id` whose values start as `args`.
    fn frame(&self, id: FnId, mut values: Slots<D::Value>) -> Result<Frame<'_, D::Value>, OpError> {
        let func = self.function(id)?;
        let plan = self.plan(id)?;
        arity(func, values.len())?;
        values.resize(plan.num_values, None);
        for &v in &plan.unused_params {
            values[v] = None;
        }
        Ok(Frame { func, plan, values, pc: 0, wait: Wait::Nothing })
    }

    /// Runs function `f` on `args`, which must match its parameters' dtypes and shapes.
    pub fn run(&self, f: FnId, args: &[Tensor]) -> Result<Vec<Tensor>, OpError> {
        let func = self.lib.get(f).ok_or_else(|| OpError::invalid(format!("no function #{} in the library", f.0)))?;
        if args.len() != func.params.len() {
            return Err(OpError::invalid(format!("{} expects {} arguments, got {}", func.name, func.params.len(), args.len())));
        }
        for (i, (arg, param)) in args.iter().zip(&func.params).enumerate() {
            if arg.dtype() != param.0 || arg.shape() != param.1.as_slice() {
                return Err(OpError::invalid(format!(
                    "argument {i} of {}: expected {}, got {}",
                    func.name,
                    fmt_sig(param),
                    fmt_sig(&(arg.dtype(), arg.shape().to_vec()))
                )));
            }
        }
        let args = args.iter().map(|t| self.device.upload(t).map(Some)).collect::<Result<Vec<_>, _>>()?;
        let mut stack = vec![self.frame(f, args)?];
        let mut pool = Pool(Vec::new());
        let mut returned: Option<Slots<D::Value>> = None;
        loop {
            let depth = stack.len();
            let frame = stack.last_mut().ok_or_else(|| internal("empty stack"))?;
            if let Some(results) = returned.take() {
                if let Some(invoke) = self.resume(frame, results, &mut pool)? {
                    self.push(&mut stack, invoke)?;
                    continue;
                }
            }
            match self.step(frame, &mut pool, depth)? {
                Step::Invoke { callee, args } => self.push(&mut stack, (callee, args))?,
                Step::Return(results) => {
                    if let Some(done) = stack.pop() {
                        pool.give(done.values);
                    }
                    if stack.is_empty() {
                        return results
                            .iter()
                            .map(|v| self.device.download(v.as_ref().ok_or_else(|| internal("a result is missing"))?))
                            .collect();
                    }
                    returned = Some(results);
                }
            }
        }
    }

    fn push<'e>(&'e self, stack: &mut Vec<Frame<'e, D::Value>>, (callee, args): (FnId, Slots<D::Value>)) -> Result<(), OpError> {
        self.enter(stack.len())?;
        stack.push(self.frame(callee, args)?);
        Ok(())
    }

    /// The checks before an invocation on top of `depth` frames.
    fn enter(&self, depth: usize) -> Result<(), OpError> {
        if depth >= self.max_depth {
            return Err(OpError::recursion_limit());
        }
        if self.interrupt.is_some_and(|stop| stop()) {
            return Err(OpError::new(crate::ErrorKind::Interrupted, "interrupted"));
        }
        Ok(())
    }

    /// A loop whose condition and body are flat (only `Const`, `Op`, `Raise`
    /// and `Host` nodes), run in place of the frame on top of `depth` frames: each
    /// invocation is what `push` and `step` would do (the same checks before
    /// it, the same arguments, nodes and errors), on two value buffers kept
    /// for the whole loop instead of a frame per invocation.
    fn flat_loop(
        &self,
        depth: usize,
        cond: FnId,
        body: FnId,
        mut vars: Slots<D::Value>,
        pool: &mut Pool<D::Value>,
    ) -> Result<Slots<D::Value>, OpError> {
        if self.device.lookahead() > 1 && self.plan(cond)?.pure && self.plan(body)?.pure {
            return self.flat_loop_ahead(depth, (cond, body), vars, pool);
        }
        let (mut cv, mut bv) = (pool.take(), pool.take());
        loop {
            let verdict = self.cond_once(depth, cond, &vars, &mut cv)?;
            if !self.truth(&verdict)? {
                pool.give(cv);
                pool.give(bv);
                return Ok(vars);
            }
            self.body_once(depth, body, &mut vars, &mut bv)?;
        }
    }

    /// A flat loop without host nodes on a device with a
    /// [`Device::lookahead`]: rounds of
    /// iterations run before their predicates are read, all in one read
    /// (2 the first round, then twice as many up to the lookahead, so that
    /// a short loop wastes little). The first predicate that is false ends
    /// the loop with the variables it was computed on; an error ends it
    /// only where every predicate before it held, as it would one by one.
    fn flat_loop_ahead(
        &self,
        depth: usize,
        (cond, body): (FnId, FnId),
        vars: Slots<D::Value>,
        pool: &mut Pool<D::Value>,
    ) -> Result<Slots<D::Value>, OpError> {
        let (mut cv, mut bv) = (pool.take(), pool.take());
        let mut states = vec![vars];
        let mut ahead = 2;
        loop {
            // states[j]: the variables iteration j of this round starts from.
            let mut verdicts: Vec<D::Value> = Vec::with_capacity(ahead);
            let mut failed = None;
            while verdicts.len() < ahead {
                let state = states.last().expect("a round starts from a state");
                match self.cond_once(depth, cond, state, &mut cv) {
                    Ok(v) => verdicts.push(v),
                    Err(e) => {
                        failed = Some(e);
                        break;
                    }
                }
                let mut next = pool.take();
                next.extend(state.iter().cloned());
                match self.body_once(depth, body, &mut next, &mut bv) {
                    Ok(()) => states.push(next),
                    Err(e) => {
                        failed = Some(e);
                        break;
                    }
                }
            }
            let refs: Vec<&D::Value> = verdicts.iter().collect();
            let held = self.device.scalars(&refs)?;
            for (j, held) in held.into_iter().enumerate() {
                match held {
                    Some(Scalar::Bool(true)) => {}
                    Some(Scalar::Bool(false)) => {
                        pool.give(cv);
                        pool.give(bv);
                        return Ok(states.swap_remove(j));
                    }
                    _ => return Err(internal("a predicate is not a bool scalar")),
                }
            }
            if let Some(e) = failed {
                return Err(e);
            }
            let last = states.pop().expect("a state per iteration run");
            states.clear();
            states.push(last);
            ahead = (ahead * 2).min(self.device.lookahead());
        }
    }

    /// The loop condition `cond` on `vars` (only those it reads are copied),
    /// in `cv`, left empty: the predicate, still on the device.
    fn cond_once(&self, depth: usize, cond: FnId, vars: &Slots<D::Value>, cv: &mut Slots<D::Value>) -> Result<D::Value, OpError> {
        let (cond_f, cond_p) = (self.function(cond)?, self.plan(cond)?);
        self.enter(depth)?;
        arity(cond_f, vars.len())?;
        cv.extend(vars.iter().zip(&cond_p.param_used).map(|(v, &u)| if u { v.clone() } else { None }));
        cv.resize(cond_p.num_values, None);
        self.simple_nodes(cond_f, cond_p, cv)?;
        let verdict = cond_f.outputs.first().ok_or_else(|| internal("a loop condition returned nothing"))?;
        let verdict = self.read(cond_f, cond_p, cv, *verdict)?.clone();
        if !crate::planted::active("flat_loop_buffer_not_cleared") {
            cv.clear();
        }
        Ok(verdict)
    }

    /// The loop body `body` on `vars`, in `bv`, left empty: `vars` become
    /// its results.
    fn body_once(&self, depth: usize, body: FnId, vars: &mut Slots<D::Value>, bv: &mut Slots<D::Value>) -> Result<(), OpError> {
        let (body_f, body_p) = (self.function(body)?, self.plan(body)?);
        self.enter(depth)?;
        arity(body_f, vars.len())?;
        bv.append(vars);
        bv.resize(body_p.num_values, None);
        for &v in &body_p.unused_params {
            bv[v] = None;
        }
        self.simple_nodes(body_f, body_p, bv)?;
        self.outputs(body_f, body_p, bv, vars)?;
        bv.clear();
        Ok(())
    }

    /// Runs all nodes of `func`, a flat function, on `values`.
    fn simple_nodes(&self, func: &Function, plan: &Plan, values: &mut Slots<D::Value>) -> Result<(), OpError> {
        for (i, node) in func.nodes.iter().enumerate() {
            self.simple_node(func, plan, values, i, node)?;
        }
        Ok(())
    }

    /// Moves `func`'s outputs from `values` to `out` (copied only when
    /// returned twice).
    fn outputs(&self, func: &Function, plan: &Plan, values: &mut Slots<D::Value>, out: &mut Slots<D::Value>) -> Result<(), OpError> {
        for (k, v) in func.outputs.iter().enumerate() {
            let repeated = if crate::planted::active("outputs_repeated_taken") {
                func.outputs[..k].contains(v)
            } else {
                func.outputs[k + 1..].contains(v)
            };
            let slot = values.get_mut(v.0 as usize).ok_or_else(|| internal(format!("x{} is not available", v.0)))?;
            let value = match if repeated { slot.clone() } else { slot.take() } {
                Some(value) => value,
                None => self.read(func, plan, values, *v)?.clone(),
            };
            out.push(Some(value));
        }
        Ok(())
    }

    /// A predicate's verdict, on the host.
    fn truth(&self, v: &D::Value) -> Result<bool, OpError> {
        match self.device.scalar(v)? {
            Some(Scalar::Bool(b)) => Ok(b),
            _ => Err(internal("a predicate is not a bool scalar")),
        }
    }

    /// Hands `results` to the waiting frame; a loop may invoke again.
    #[allow(clippy::type_complexity)]
    fn resume(
        &self,
        frame: &mut Frame<'_, D::Value>,
        results: Slots<D::Value>,
        pool: &mut Pool<D::Value>,
    ) -> Result<Option<(FnId, Slots<D::Value>)>, OpError> {
        let func = frame.func;
        let node_of = |node: usize| func.nodes.get(node).ok_or_else(|| internal("bad node"));
        match std::mem::replace(&mut frame.wait, Wait::Nothing) {
            Wait::Nothing => Err(internal("results with nothing waiting")),
            Wait::Results { node } => {
                define(frame, node, results, pool)?;
                Ok(None)
            }
            Wait::LoopCond { node, vars } => {
                let verdict = results.first().and_then(Option::as_ref);
                let verdict = self.truth(verdict.ok_or_else(|| internal("a loop condition returned nothing"))?)?;
                pool.give(results);
                if verdict {
                    let Node::While { body_fn, .. } = node_of(node)? else {
                        return Err(internal("loop state on a non-loop node"));
                    };
                    let body = *body_fn;
                    frame.wait = Wait::LoopBody { node };
                    Ok(Some((body, vars)))
                } else {
                    define(frame, node, vars, pool)?;
                    Ok(None)
                }
            }
            Wait::LoopBody { node } => {
                let Node::While { cond_fn, .. } = node_of(node)? else {
                    return Err(internal("loop state on a non-loop node"));
                };
                let cond = *cond_fn;
                let args = self.cond_args(cond, &results, pool)?;
                frame.wait = Wait::LoopCond { node, vars: results };
                Ok(Some((cond, args)))
            }
        }
    }

    /// A loop condition's arguments: the loop variables it reads (the
    /// others, often most, are not copied).
    fn cond_args(&self, cond: FnId, vars: &Slots<D::Value>, pool: &mut Pool<D::Value>) -> Result<Slots<D::Value>, OpError> {
        let used = &self.plan(cond)?.param_used;
        let mut args = pool.take();
        args.extend(vars.iter().zip(used).map(|(v, &u)| if u { v.clone() } else { None }));
        Ok(args)
    }

    /// Value `v` of the frame: stored, or a `Const` node's tensor read from
    /// the library (`Device::constant`).
    fn read<'a>(&self, func: &'a Function, plan: &Plan, values: &'a [Option<D::Value>], v: ValueId) -> Result<&'a D::Value, OpError> {
        match values.get(v.0 as usize) {
            Some(Some(value)) => Ok(value),
            _ => plan
                .const_node
                .get(v.0 as usize)
                .copied()
                .flatten()
                .and_then(|node| match func.nodes.get(node) {
                    Some(Node::Const(t)) => self.device.constant(t),
                    _ => None,
                })
                .ok_or_else(|| internal(format!("x{} is not available", v.0))),
        }
    }

    fn read_all(&self, frame: &Frame<'_, D::Value>, vs: &[ValueId], pool: &mut Pool<D::Value>) -> Result<Slots<D::Value>, OpError> {
        let mut out = pool.take();
        for &v in vs {
            out.push(Some(self.read(frame.func, frame.plan, &frame.values, v)?.clone()));
        }
        Ok(out)
    }

    /// Runs the frame's nodes from its `pc` until it invokes a function or returns.
    /// `depth`: the frames on the stack, this one included.
    fn step(&self, frame: &mut Frame<'_, D::Value>, pool: &mut Pool<D::Value>, depth: usize) -> Result<Step<D::Value>, OpError> {
        let func = frame.func;
        while let Some(node) = func.nodes.get(frame.pc) {
            let i = frame.pc;
            match node {
                Node::Const(_) | Node::Op { .. } | Node::Raise { .. } | Node::Host { .. } => {
                    self.simple_node(func, frame.plan, &mut frame.values, i, node)?;
                    frame.pc = i + 1;
                }
                Node::Cond { pred, then_fn, else_fn, inputs } => {
                    let p = self.truth(self.read(func, frame.plan, &frame.values, *pred)?)?;
                    let args = self.read_all(frame, inputs, pool)?;
                    free(frame, i);
                    frame.wait = Wait::Results { node: i };
                    return Ok(Step::Invoke { callee: if p { *then_fn } else { *else_fn }, args });
                }
                Node::While { cond_fn, body_fn, inputs } => {
                    let vars = self.read_all(frame, inputs, pool)?;
                    free(frame, i);
                    if self.plan(*cond_fn)?.flat && self.plan(*body_fn)?.flat {
                        let vars = self.flat_loop(depth, *cond_fn, *body_fn, vars, pool)?;
                        define(frame, i, vars, pool)?;
                        continue;
                    }
                    let args = self.cond_args(*cond_fn, &vars, pool)?;
                    frame.wait = Wait::LoopCond { node: i, vars };
                    return Ok(Step::Invoke { callee: *cond_fn, args });
                }
                Node::Call { callee, inputs } => {
                    let args = self.read_all(frame, inputs, pool)?;
                    free(frame, i);
                    frame.wait = Wait::Results { node: i };
                    return Ok(Step::Invoke { callee: *callee, args });
                }
            }
        }
        // The frame ends: its values move out.
        let mut results = pool.take();
        self.outputs(func, frame.plan, &mut frame.values, &mut results)?;
        Ok(Step::Return(results))
    }

    /// Runs node `i` of `func`, a `Const`, an `Op` or a `Raise` (which
    /// fails with `ErrorKind::Raised`), on `values`: its
    /// output stored (unless dead), the values it read for the last time freed.
    #[inline]
    fn simple_node(&self, func: &Function, plan: &Plan, values: &mut Slots<D::Value>, i: usize, node: &Node) -> Result<(), OpError> {
        let out = match node {
            Node::Const(t) => match self.device.constant(t) {
                // Read from the library (`read`): nothing to store.
                Some(_) => return Ok(()),
                None => self.device.upload(t)?,
            },
            Node::Op { op, inputs } => {
                let sig = plan.op_sigs.get(i).and_then(Option::as_ref);
                let donor = plan.donor.get(i).copied().flatten();
                let out = if let Some(k) = donor {
                    let slot = inputs.get(k).and_then(|v| values.get_mut(v.0 as usize));
                    let given = slot.and_then(Option::take).ok_or_else(|| internal("a donated input is not available"))?;
                    let mut others: smallvec::SmallVec<[&D::Value; 4]> = smallvec::SmallVec::new();
                    for (pos, &v) in inputs.iter().enumerate() {
                        if pos != k {
                            others.push(self.read(func, plan, values, v)?);
                        }
                    }
                    self.device.op_into(op, given, k, &others, sig)?
                } else {
                    let mut args: smallvec::SmallVec<[&D::Value; 4]> = smallvec::SmallVec::new();
                    for &v in inputs.iter() {
                        args.push(self.read(func, plan, values, v)?);
                    }
                    self.device.op(op, &args, sig)?
                };
                for &v in &plan.free_after[i] {
                    values[v] = None;
                }
                out
            }
            Node::Raise { site, message, .. } => return Err(OpError::new(crate::ErrorKind::Raised(*site), message.clone())),
            Node::Host { site, inputs, results, .. } => return self.host_node(func, plan, values, i, *site, inputs, results),
            _ => return Err(internal("an invocation in a flat function")),
        };
        let first = plan.first_output.get(i).copied().ok_or_else(|| internal("bad node"))?;
        if !plan.dead[first] {
            *values.get_mut(first).ok_or_else(|| internal("too many results"))? = Some(out);
        }
        Ok(())
    }
}

impl<D: Device> Executor<'_, D> {
    /// Runs `Host` node `i`: its inputs downloaded, the host callback called,
    /// its results checked against the node's signatures and uploaded.
    #[allow(clippy::too_many_arguments)]
    fn host_node(
        &self,
        func: &Function,
        plan: &Plan,
        values: &mut Slots<D::Value>,
        i: usize,
        site: u32,
        inputs: &[ValueId],
        results: &[Sig],
    ) -> Result<(), OpError> {
        let host = self.host.ok_or_else(|| OpError::unimplemented("a host node without a host to call"))?;
        let mut args = Vec::with_capacity(inputs.len());
        for &v in inputs {
            args.push(self.device.download(self.read(func, plan, values, v)?)?);
        }
        for &v in &plan.free_after[i] {
            values[v] = None;
        }
        let outs = host(site, args)?;
        if outs.len() != results.len() {
            return Err(OpError::invalid(format!("host node {site} returned {} values, not {}", outs.len(), results.len())));
        }
        let first = plan.first_output.get(i).copied().ok_or_else(|| internal("bad node"))?;
        for (k, (t, sig)) in outs.iter().zip(results).enumerate() {
            if t.dtype() != sig.0 || t.shape() != sig.1.as_slice() {
                return Err(OpError::invalid(format!(
                    "host node {site} returned a {} value where {} was traced",
                    fmt_sig(&(t.dtype(), t.shape().to_vec())),
                    fmt_sig(sig)
                )));
            }
            if !plan.dead[first + k] {
                *values.get_mut(first + k).ok_or_else(|| internal("too many results"))? = Some(self.device.upload(t)?);
            }
        }
        Ok(())
    }
}

/// The argument count check of an invocation of `func`.
fn arity(func: &Function, given: usize) -> Result<(), OpError> {
    if given != func.params.len() {
        return Err(internal(format!("{} given {} arguments", func.name, given)));
    }
    Ok(())
}

/// Stores `results` as node `node`'s outputs (skipping dead ones) and moves on.
fn define<V>(frame: &mut Frame<'_, V>, node: usize, mut results: Slots<V>, pool: &mut Pool<V>) -> Result<(), OpError> {
    let first = frame.plan.first_output.get(node).copied().ok_or_else(|| internal("bad node"))?;
    let slots = frame.values.get_mut(first..first + results.len()).ok_or_else(|| internal("too many results"))?;
    for (k, (slot, t)) in slots.iter_mut().zip(results.iter_mut()).enumerate() {
        if !frame.plan.dead[first + k] {
            *slot = t.take();
        }
    }
    pool.give(results);
    frame.pc = node + 1;
    Ok(())
}

fn free<V>(frame: &mut Frame<'_, V>, node: usize) {
    for &v in &frame.plan.free_after[node] {
        frame.values[v] = None;
    }
}
