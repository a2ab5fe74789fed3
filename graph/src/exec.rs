//! The CPU graph executor. Every `Op` node goes through `eval`, the kernel
//! eager execution uses. Conds and whiles run natively (a loop in Rust);
//! function invocations (calls, branches, loop conditions and bodies) live on
//! an explicit frame stack, so deep recursion is an error
//! ("maximum recursion depth exceeded"), never a native stack overflow.
//! Values are dropped right after their last reader (see `plan.rs`).

use crate::error::OpError;
use crate::eval::eval;
use crate::ir::{FnId, Function, Library, Node, ValueId};
use crate::plan::Plan;
use crate::scalar::Scalar;
use crate::tensor::Tensor;
use crate::validate::{fmt_sig, validate};

/// The default limit on nested function invocations.
pub const MAX_DEPTH: usize = 1000;

/// Runs function `f` of `lib` on `args` (validating `lib` first).
pub fn run(lib: &Library, f: FnId, args: &[Tensor]) -> Result<Vec<Tensor>, OpError> {
    Executor::new(lib)?.run(f, args)
}

/// A validated library with its plans, ready to run any of its functions many times.
pub struct Executor<'l> {
    lib: &'l Library,
    plans: Vec<Plan>,
    max_depth: usize,
    /// Asked before every invocation (each loop iteration invokes twice):
    /// true stops the run with `Interrupted`. Graphs never end on their own
    /// when a loop never does; this is how a caller's time limit reaches them.
    interrupt: Option<&'l dyn Fn() -> bool>,
}

/// What a suspended frame waits for from the frame above it.
enum Wait {
    Nothing,
    /// The results of a call or a cond branch, defining node `node`'s values.
    Results { node: usize },
    /// A loop condition's verdict on `vars`.
    LoopCond { node: usize, vars: Vec<Tensor> },
    /// A loop body's new variables.
    LoopBody { node: usize },
}

struct Frame<'l> {
    func: &'l Function,
    plan: &'l Plan,
    values: Vec<Option<Tensor>>,
    pc: usize,
    wait: Wait,
}

/// What running a frame's nodes ended with.
enum Step {
    /// Invoke `callee` on `args` (the frame waits).
    Invoke { callee: FnId, args: Vec<Tensor> },
    /// The frame's function returned.
    Return(Vec<Tensor>),
}

fn internal(what: impl std::fmt::Display) -> OpError {
    OpError::invalid(format!("internal error in the graph executor: {what}"))
}

impl<'l> Executor<'l> {
    /// Validates `lib` (an invalid graph is an `InvalidArgument` error) and plans its functions.
    pub fn new(lib: &'l Library) -> Result<Executor<'l>, OpError> {
        validate(lib).map_err(|e| OpError::invalid(format!("invalid graph: {e}")))?;
        Ok(Executor::trusted(lib))
    }

    /// Plans `lib`, which the caller has validated (with [`validate`]).
    pub fn trusted(lib: &'l Library) -> Executor<'l> {
        let plans = lib.functions.iter().map(|f| Plan::new(lib, f)).collect();
        Executor { lib, plans, max_depth: MAX_DEPTH, interrupt: None }
    }

    /// Sets the interrupt check (see the field).
    pub fn with_interrupt(mut self, interrupt: &'l dyn Fn() -> bool) -> Executor<'l> {
        self.interrupt = Some(interrupt);
        self
    }

    /// Sets the limit on nested invocations (at least 1).
    pub fn with_max_depth(mut self, depth: usize) -> Executor<'l> {
        self.max_depth = depth.max(1);
        self
    }

    fn frame(&self, id: FnId, args: Vec<Tensor>) -> Result<Frame<'_>, OpError> {
        let lib = self.lib;
        let func = lib.get(id).ok_or_else(|| internal(format!("no function #{}", id.0)))?;
        let plan = self.plans.get(id.0 as usize).ok_or_else(|| internal("missing plan"))?;
        if args.len() != func.params.len() {
            return Err(internal(format!("{} given {} arguments", func.name, args.len())));
        }
        let mut values: Vec<Option<Tensor>> = Vec::with_capacity(plan.num_values);
        values.extend(args.into_iter().map(Some));
        values.resize(plan.num_values, None);
        for &v in &plan.unused_params {
            values[v] = None;
        }
        Ok(Frame { func, plan, values, pc: 0, wait: Wait::Nothing })
    }

    /// Runs function `f` on `args`, which must match its parameters' dtypes and shapes.
    pub fn run(&self, f: FnId, args: &[Tensor]) -> Result<Vec<Tensor>, OpError> {
        let func = self
            .lib
            .get(f)
            .ok_or_else(|| OpError::invalid(format!("no function #{} in the library", f.0)))?;
        if args.len() != func.params.len() {
            return Err(OpError::invalid(format!(
                "{} expects {} arguments, got {}",
                func.name,
                func.params.len(),
                args.len()
            )));
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
        let mut stack = vec![self.frame(f, args.to_vec())?];
        let mut returned: Option<Vec<Tensor>> = None;
        loop {
            let frame = stack.last_mut().ok_or_else(|| internal("empty stack"))?;
            if let Some(results) = returned.take() {
                if let Some(invoke) = resume(frame, results)? {
                    self.push(&mut stack, invoke)?;
                    continue;
                }
            }
            match step(frame)? {
                Step::Invoke { callee, args } => self.push(&mut stack, (callee, args))?,
                Step::Return(results) => {
                    stack.pop();
                    if stack.is_empty() {
                        return Ok(results);
                    }
                    returned = Some(results);
                }
            }
        }
    }

    fn push<'e>(&'e self, stack: &mut Vec<Frame<'e>>, (callee, args): (FnId, Vec<Tensor>)) -> Result<(), OpError> {
        if stack.len() >= self.max_depth {
            return Err(OpError::recursion_limit());
        }
        if self.interrupt.is_some_and(|stop| stop()) {
            return Err(OpError::new(crate::ErrorKind::Interrupted, "interrupted"));
        }
        stack.push(self.frame(callee, args)?);
        Ok(())
    }
}

fn read(values: &[Option<Tensor>], v: ValueId) -> Result<&Tensor, OpError> {
    values
        .get(v.0 as usize)
        .and_then(Option::as_ref)
        .ok_or_else(|| internal(format!("x{} is not available", v.0)))
}

fn read_all(values: &[Option<Tensor>], vs: &[ValueId]) -> Result<Vec<Tensor>, OpError> {
    vs.iter().map(|&v| read(values, v).cloned()).collect()
}

/// `define` for a node of one output, without a vector.
fn define_one(frame: &mut Frame<'_>, node: usize, result: Tensor) -> Result<(), OpError> {
    let first = frame.plan.first_output.get(node).copied().ok_or_else(|| internal("bad node"))?;
    if !frame.plan.dead[first] {
        *frame.values.get_mut(first).ok_or_else(|| internal("too many results"))? = Some(result);
    }
    frame.pc = node + 1;
    Ok(())
}

/// Stores `results` as node `node`'s outputs (skipping dead ones) and moves on.
fn define(frame: &mut Frame<'_>, node: usize, results: Vec<Tensor>) -> Result<(), OpError> {
    let first = frame.plan.first_output.get(node).copied().ok_or_else(|| internal("bad node"))?;
    let slots = frame.values.get_mut(first..first + results.len()).ok_or_else(|| internal("too many results"))?;
    for (k, (slot, t)) in slots.iter_mut().zip(results).enumerate() {
        if !frame.plan.dead[first + k] {
            *slot = Some(t);
        }
    }
    frame.pc = node + 1;
    Ok(())
}

fn free(frame: &mut Frame<'_>, node: usize) {
    for &v in &frame.plan.free_after[node] {
        frame.values[v] = None;
    }
}

fn truth(results: &[Tensor]) -> Result<bool, OpError> {
    match results.first().and_then(Tensor::to_scalar) {
        Some(Scalar::Bool(b)) => Ok(b),
        _ => Err(internal("a predicate is not a bool scalar")),
    }
}

/// Hands `results` to the waiting frame; a loop may invoke again.
fn resume(frame: &mut Frame<'_>, results: Vec<Tensor>) -> Result<Option<(FnId, Vec<Tensor>)>, OpError> {
    let func = frame.func;
    let node_of = |node: usize| func.nodes.get(node).ok_or_else(|| internal("bad node"));
    match std::mem::replace(&mut frame.wait, Wait::Nothing) {
        Wait::Nothing => Err(internal("results with nothing waiting")),
        Wait::Results { node } => {
            define(frame, node, results)?;
            Ok(None)
        }
        Wait::LoopCond { node, vars } => {
            if truth(&results)? {
                let Node::While { body_fn, .. } = node_of(node)? else {
                    return Err(internal("loop state on a non-loop node"));
                };
                let body = *body_fn;
                frame.wait = Wait::LoopBody { node };
                Ok(Some((body, vars)))
            } else {
                define(frame, node, vars)?;
                Ok(None)
            }
        }
        Wait::LoopBody { node } => {
            let Node::While { cond_fn, .. } = node_of(node)? else {
                return Err(internal("loop state on a non-loop node"));
            };
            let cond = *cond_fn;
            frame.wait = Wait::LoopCond { node, vars: results.clone() };
            Ok(Some((cond, results)))
        }
    }
}

/// Runs the frame's nodes from its `pc` until it invokes a function or returns.
fn step(frame: &mut Frame<'_>) -> Result<Step, OpError> {
    let func = frame.func;
    while let Some(node) = func.nodes.get(frame.pc) {
        let i = frame.pc;
        match node {
            Node::Const(t) => define_one(frame, i, t.clone())?,
            Node::Op { op, inputs } => {
                let out = {
                    let mut args: smallvec::SmallVec<[&Tensor; 4]> = smallvec::SmallVec::new();
                    for &v in inputs.iter() {
                        args.push(read(&frame.values, v)?);
                    }
                    match frame.plan.op_sigs.get(i).and_then(Option::as_ref) {
                        Some((_, shape)) => crate::eval::eval_planned(op, &args, shape)?,
                        None => eval(op, &args)?,
                    }
                };
                free(frame, i);
                define_one(frame, i, out)?;
            }
            Node::Cond { pred, then_fn, else_fn, inputs } => {
                let p = match read(&frame.values, *pred)?.to_scalar() {
                    Some(Scalar::Bool(b)) => b,
                    _ => return Err(internal("cond predicate is not a bool scalar")),
                };
                let args = read_all(&frame.values, inputs)?;
                free(frame, i);
                frame.wait = Wait::Results { node: i };
                return Ok(Step::Invoke { callee: if p { *then_fn } else { *else_fn }, args });
            }
            Node::While { cond_fn, inputs, .. } => {
                let vars = read_all(&frame.values, inputs)?;
                free(frame, i);
                frame.wait = Wait::LoopCond { node: i, vars: vars.clone() };
                return Ok(Step::Invoke { callee: *cond_fn, args: vars });
            }
            Node::Call { callee, inputs } => {
                let args = read_all(&frame.values, inputs)?;
                free(frame, i);
                frame.wait = Wait::Results { node: i };
                return Ok(Step::Invoke { callee: *callee, args });
            }
        }
    }
    Ok(Step::Return(read_all(&frame.values, &func.outputs)?))
}
