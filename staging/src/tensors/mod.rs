//! Tensors for Python programs: the native module `_stagecheck_tensor`
//! ([`module`]) over the graph crate's tensors and kernels, Python values in
//! and out ([`values`]), and the tracer that records staged functions into
//! graph functions ([`trace`]), the trace cache's key ([`call_key`]) and
//! guards ([`guards`]). The Python side is
//! `staging/runtime/stagecheck/{tensor,staging}.py`.
//!
//! The mode a run is in (original, unstaged, staged) is set per run on the
//! worker's thread ([`set_mode`]); `sc.function` asks it. The tracer's state
//! (the library of traced functions) lives as long as one run. Also per run:
//! the deadline graph execution obeys (an interrupt check at every loop
//! iteration and call ends the run as the watchdog would), where graphs run
//! ([`Placement`]: `staged-gpu`, or `with sc.device("gpu"):` in any staged
//! run; eager ops stay on the CPU, the reference), and the run's float
//! tolerance (the loosest GPU op's times [`CHAIN`]).
//!
//! Staging follows TensorFlow where TensorFlow is sound and refuses
//! (`StagingError`) where it is not: every tensor made inside a trace is
//! symbolic; a trace is reused only while the Python values it could have
//! read are unchanged ([`guards`]; TensorFlow would silently reuse a stale
//! graph); `not t` as a value, prints and
//! Python mutations under staged control flow or in a traced function are
//! refused (`dispatch.call_check`, which `converted_call` consults). Integer
//! `//` and `%` by zero raise `ZeroDivisionError` (TensorFlow's CPU kernels
//! raise `InvalidArgumentError`); dead graph nodes are still computed (a node
//! that would fail must fail as the eager run does).
//!
//! The staged operators (`staging/`, `control_flow.py` and its neighbours): `if_stmt` traces both branches and
//! compares their states (a name bound in one branch only, a Python value
//! that differs, a return in one branch: `StagingError`); `while_stmt` and
//! `for_stmt` share one loop builder (loop variables keep dtype and shape;
//! names first bound in the body are not carried and refuse any use after
//! the loop; break/continue flags become bool tensors; `for` over a tensor
//! gathers row i, over `sc.range` with run-time bounds counts after a
//! `RangeCheck` that raises what eager `range` raises); `if_exp` and lazy
//! `and_`/`or_`/chained comparisons become cond nodes. A recursive call
//! inside its own trace becomes a call node, its result type guessed from
//! the tensor arguments and checked when the trace ends.
//!
//! Known limits: the runtime's own modules are guarded by identity only (a
//! program assigning `sc.reduce_sum` between calls is not seen); `for` over a Python list of tensors unrolls; returns inside staged
//! loops and asserts on symbolic tensors are refused; `sc.print` of symbolic
//! tensors is not staged.

pub mod call_key;
pub mod guards;
pub mod module;
pub mod trace;
pub mod values;

use rustpython_vm::{AsObject, PyObject, PyObjectRef, VirtualMachine};
use std::cell::{Cell, RefCell};

/// A mode a program runs in: the one list the check, its reports and this
/// runtime share (`stagecheck`'s `modes.rs` says how each is run and
/// compared). To this runtime a mode is what `sc.function` does in a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// The program as written: `sc.function` is the identity.
    #[default]
    Original,
    /// The converted program, eager: `sc.function` is the identity.
    Unstaged,
    /// The converted program; `sc.function` traces and runs graphs.
    Staged,
    /// As `Staged`, with graphs run on the GPU (`sc.device("gpu")` by default).
    StagedGpu,
    /// A compiler under test's mode only (`torch-compile`: each top-level
    /// function under `torch.compile`), run in the target's own runtime,
    /// never in this one; asked of this one, it traces as `Staged`.
    Compiled,
}

impl Mode {
    /// The default modes of a check.
    pub const ALL: &'static [Mode] = &[Mode::Original, Mode::Unstaged, Mode::Staged];
    /// Every mode there is.
    pub const KNOWN: &'static [Mode] = &[Mode::Original, Mode::Unstaged, Mode::Staged, Mode::StagedGpu, Mode::Compiled];

    /// The mode's name, as flags, reports and corpus headers spell it.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Original => "original",
            Mode::Unstaged => "unstaged",
            Mode::Staged => "staged",
            Mode::StagedGpu => "staged-gpu",
            Mode::Compiled => "compiled",
        }
    }

    /// Whether `sc.function` traces (the same trace in every staged mode).
    pub fn is_staged(self) -> bool {
        matches!(self, Mode::Staged | Mode::StagedGpu | Mode::Compiled)
    }
}

impl std::fmt::Display for Mode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Mode {
    type Err = String;
    fn from_str(s: &str) -> Result<Mode, String> {
        Mode::KNOWN.iter().copied().find(|m| m.name() == s).ok_or_else(|| {
            let known: Vec<_> = Mode::KNOWN.iter().map(|m| m.name()).collect();
            format!("unknown mode '{s}'; known modes: {}", known.join(", "))
        })
    }
}

/// Where staged graphs run (`sc.device`): eager ops always run on the CPU,
/// the reference every other run is compared with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    Cpu,
    /// On the GPU when there is a Vulkan adapter; else on the CPU (soft
    /// placement, as TensorFlow's: the program's meaning does not change).
    Gpu,
}

thread_local! {
    static MODE: Cell<Mode> = const { Cell::new(Mode::Original) };
    /// Whether this run read its mode or placement ([`mode_read`]).
    static MODE_READ: Cell<bool> = const { Cell::new(false) };
    static DEADLINE: Cell<Option<std::time::Instant>> = const { Cell::new(None) };
    pub(crate) static TRACER: RefCell<trace::Tracer> = RefCell::new(trace::Tracer::default());
    static PLACEMENT: Cell<Placement> = const { Cell::new(Placement::Cpu) };
    /// The loosest float tolerance of the GPU ops this run ran (None: none ran).
    static TOLERANCE: Cell<Option<stagecheck_gpu::Tolerance>> = const { Cell::new(None) };
    /// Whether GPU ops are shadowed by the CPU kernels (`Config::gpu_shadow`).
    static SHADOW: Cell<bool> = const { Cell::new(true) };
    /// The Python exceptions raise nodes stand for, by site, with the
    /// traceback each had when traced (restored at every raise, so a line
    /// is the raise's own however often it runs). Cleared at a run's end.
    pub(crate) static RAISES: RefCell<Vec<(PyObjectRef, PyObjectRef)>> = const { RefCell::new(Vec::new()) };
    /// The Python functions host nodes call, by site (`staging/host.py`).
    /// Cleared at a run's end.
    pub(crate) static HOSTS: RefCell<Vec<PyObjectRef>> = const { RefCell::new(Vec::new()) };
    /// What a host node's function raised, until `op_error` takes it.
    pub(crate) static HOST_ERROR: RefCell<Option<rustpython_vm::builtins::PyBaseExceptionRef>> = const { RefCell::new(None) };
    /// The GPU nodes beyond their ops' tolerances this run (shadowing).
    static MISMATCHES: std::cell::RefCell<Vec<String>> = const { std::cell::RefCell::new(Vec::new()) };
    /// The first GPU node this run accepted only because the GPU flushed subnormals.
    static FLUSHED: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// Sets this thread's mode and starts a fresh tracer (before each run).
pub fn set_mode(mode: Mode) {
    MODE.with(|m| m.set(mode));
    MODE_READ.with(|r| r.set(false));
    TRACER.with(|t| t.borrow_mut().reset());
    guards::reset();
    PLACEMENT.with(|p| p.set(if mode == Mode::StagedGpu { Placement::Gpu } else { Placement::Cpu }));
    TOLERANCE.with(|t| t.set(None));
    MISMATCHES.with(|m| m.borrow_mut().clear());
    FLUSHED.with(|f| f.borrow_mut().take());
}

/// Drops what staging holds of the run's Python objects (the exceptions of
/// raise nodes, the code objects the guards read), inside the run's watched
/// window: their finalizers are the program's.
pub fn end_run() {
    guards::end_run();
    let held = RAISES.with(|r| std::mem::take(&mut *r.borrow_mut()));
    drop(held);
    let hosts = HOSTS.with(|h| std::mem::take(&mut *h.borrow_mut()));
    drop(hosts);
    let error = HOST_ERROR.with(|h| h.borrow_mut().take());
    drop(error);
}

/// Runs host node `site`: its Python function called with `args` as eager
/// `sc.Tensor`s, returning a list of them. What it raises is kept for
/// `op_error` (the graph reports `ErrorKind::Host`).
pub(crate) fn host_call(
    site: u32,
    args: Vec<stagecheck_graph::Tensor>,
    vm: &VirtualMachine,
) -> Result<Vec<stagecheck_graph::Tensor>, stagecheck_graph::OpError> {
    use stagecheck_graph::{ErrorKind, OpError};
    let fail = |e: rustpython_vm::builtins::PyBaseExceptionRef| {
        HOST_ERROR.with(|h| *h.borrow_mut() = Some(e));
        OpError::new(ErrorKind::Host, "a host node raised")
    };
    let f =
        HOSTS.with(|h| h.borrow().get(site as usize).cloned()).ok_or_else(|| OpError::invalid(format!("host site {site} is unknown")))?;
    let tensor = RUNTIME.with(|r| r.borrow().as_ref().map(|r| r.tensor.clone())).ok_or_else(|| OpError::invalid("no runtime"))?;
    let mut objs = Vec::with_capacity(args.len());
    for t in args {
        let h = module::_stagecheck_tensor::new_handle(trace::Input::Eager(t), vm);
        objs.push(tensor.call((h,), vm).map_err(fail)?);
    }
    let out = f.call((vm.ctx.new_list(objs),), vm).map_err(fail)?;
    let items: Vec<PyObjectRef> = out.try_to_value(vm).map_err(fail)?;
    let mut tensors = Vec::with_capacity(items.len());
    for item in items {
        let h = item.get_attr("_h", vm).map_err(fail)?;
        let h = h
            .downcast::<module::_stagecheck_tensor::Handle>()
            .map_err(|_| fail(vm.new_type_error("a host function returned a non-tensor")))?;
        match &h.input {
            trace::Input::Eager(t) => tensors.push(t.clone()),
            trace::Input::Symbolic(_) => return Err(fail(vm.new_type_error("a host function returned a symbolic tensor"))),
        }
    }
    Ok(tensors)
}

/// Whether this thread's GPU graphs are shadowed by the CPU kernels.
pub fn set_shadow(on: bool) {
    SHADOW.with(|s| s.set(on));
}

pub(crate) fn shadow() -> bool {
    SHADOW.with(Cell::get)
}

/// Records GPU nodes beyond their ops' tolerances.
pub(crate) fn note_mismatches(found: Vec<stagecheck_gpu::Mismatch>) {
    MISMATCHES.with(|m| m.borrow_mut().extend(found.into_iter().map(|x| x.to_string())));
}

/// Records the first GPU node accepted only because the GPU flushed subnormals.
pub(crate) fn note_flushed(note: Option<String>) {
    FLUSHED.with(|f| {
        let mut f = f.borrow_mut();
        if f.is_none() {
            *f = note;
        }
    });
}

/// The first GPU node of this run that needed the flush allowance, taken.
pub fn take_flushed() -> Option<String> {
    FLUSHED.with(|f| f.borrow_mut().take())
}

/// The GPU nodes of this run beyond their ops' tolerances, taken.
pub fn take_mismatches() -> Vec<String> {
    MISMATCHES.with(|m| std::mem::take(&mut *m.borrow_mut()))
}

pub fn placement() -> Placement {
    MODE_READ.with(|r| r.set(true));
    PLACEMENT.with(Cell::get)
}

pub(crate) fn set_placement(p: Placement) {
    PLACEMENT.with(|c| c.set(p));
}

/// How many inexact GPU ops a float may have passed through before the
/// oracle calls its distance from the CPU's a finding: per-op bounds add up
/// (to first order) along a chain, and a staged loop repeats its chain.
pub const CHAIN: u32 = 16;

/// Records that a graph ran on the GPU with ops as loose as `t`.
pub(crate) fn note_tolerance(t: stagecheck_gpu::Tolerance) {
    TOLERANCE.with(|c| c.set(Some(c.get().map_or(t, |old| old.loosest(t)))));
}

/// The float tolerance of the run so far: None when no graph ran on the
/// GPU, else the loosest op's times [`CHAIN`] (exact when every op was).
pub fn run_tolerance() -> Option<stagecheck_gpu::Tolerance> {
    TOLERANCE.with(Cell::get).map(|t| t.times(CHAIN))
}

pub fn mode() -> Mode {
    MODE_READ.with(|r| r.set(true));
    MODE.with(Cell::get)
}

/// Whether the run so far read its mode or its placement: everything a
/// staged run does otherwise than an unstaged one goes through [`mode`]
/// (`sc.function`'s calls ask it; the tracer, guards, graphs and the GPU are
/// reached only from there) or [`placement`] (`sc.device`). A run that read
/// neither would have run the same in every mode of the converted program,
/// so its staged outcome is its unstaged one (`Outcome::mode_read`).
pub fn mode_read() -> bool {
    MODE_READ.with(Cell::get)
}

/// The current run's deadline, which graph execution (native, out of the
/// watchdog's reach) checks at every loop iteration and call.
pub fn set_deadline(deadline: std::time::Instant) {
    DEADLINE.with(|d| d.set(Some(deadline)));
}

/// Ends the run from inside graph execution the way the watchdog ends it
/// from inside the VM, when past its deadline or twice its memory budget.
pub(crate) fn limit_reached() -> Option<crate::host::Stop> {
    if crate::host::over_memory() {
        return Some(crate::host::Stop::Memory);
    }
    let deadline = DEADLINE.with(Cell::get)?;
    (std::time::Instant::now() >= deadline).then_some(crate::host::Stop::Time)
}

/// The S-expressions of every function the last run traced on this thread.
pub fn graph_text() -> String {
    let graphs = TRACER.with(|t| t.borrow().library.to_string());
    let mut text = graphs;
    for comment in [guards::traces_text(), guards::retraces_text()] {
        if !comment.is_empty() {
            text = format!("{text}\n{comment}");
        }
    }
    text
}

/// The runtime's own classes, taken when the runtime is installed (before
/// any program runs): rendering and refusal checks compare classes by
/// identity with these, never by a name or `__module__` a program's class
/// can claim, and read their state through these, never through a class
/// attribute a program may have replaced.
struct RuntimeClasses {
    function: PyObjectRef,
    tensor: PyObjectRef,
    /// `Tensor.__dict__['_h']`: the slot's member descriptor.
    handle: PyObjectRef,
    variable: PyObjectRef,
    /// `Variable.__dict__['_value']`: the slot's member descriptor.
    variable_value: PyObjectRef,
    staging_error: PyObjectRef,
    /// `Function._trace.__code__`: the frames of traces in progress start
    /// above the outermost frame running it (`handler_line`).
    trace_code: PyObjectRef,
    /// `staging._fresh_exception`: a raise node's exception, new at each raise.
    fresh_exception: PyObjectRef,
}

thread_local! {
    static RUNTIME: RefCell<Option<RuntimeClasses>> = const { RefCell::new(None) };
}

/// Takes the runtime's classes from the freshly installed runtime modules.
pub(crate) fn remember_runtime(vm: &VirtualMachine) {
    let modules = crate::host::sys_modules(vm).expect("sys.modules is a dict");
    let attr = |module: &str, name: &'static str| -> PyObjectRef {
        let module = modules.get_item_opt(module, vm).ok().flatten().unwrap_or_else(|| panic!("{module} is installed"));
        module.get_attr(name, vm).unwrap_or_else(|_| panic!("{name} is defined"))
    };
    let tensor = attr("stagecheck.tensor", "Tensor");
    let handle = tensor
        .downcast_ref::<rustpython_vm::builtins::PyType>()
        .and_then(|t| t.get_direct_attr(vm.ctx.intern_str("_h")))
        .expect("Tensor has the slot _h");
    let variable = attr("stagecheck.tensor", "Variable");
    let variable_value = variable
        .downcast_ref::<rustpython_vm::builtins::PyType>()
        .and_then(|t| t.get_direct_attr(vm.ctx.intern_str("_value")))
        .expect("Variable has the slot _value");
    let function = attr("stagecheck.staging", "Function");
    let trace_code = function.get_attr("_trace", vm).and_then(|f| f.get_attr("__code__", vm)).expect("Function._trace is a function");
    let classes = RuntimeClasses {
        trace_code,
        function,
        tensor,
        handle,
        variable,
        variable_value,
        staging_error: attr("_stagecheck_tensor", "StagingError"),
        fresh_exception: attr("stagecheck.staging", "_fresh_exception"),
    };
    RUNTIME.with(|r| *r.borrow_mut() = Some(classes));
}

/// One of the runtime's own objects, as a run's values are compared:
/// what [`seen`] finds.
pub enum Seen {
    /// An `sc.function`, as the function it wraps (its trace cache differs
    /// between modes by design): that function's `__qualname__`, or `None`
    /// when it wraps a callable object.
    Function(Option<PyObjectRef>),
    /// An eager `sc.Tensor` (an `sc.Variable` as its value's, read through
    /// its slot: a staged run that assigned it wrongly differs).
    Tensor(stagecheck_graph::Tensor),
    /// A symbolic tensor of a trace in progress, described.
    Symbolic(String),
}

/// `obj` as one of the runtime's own objects, or `None` for any other
/// object (a program's class named `Tensor` in a module it calls
/// `stagecheck.tensor` included). Runs no user code: classes compared by
/// identity, the tensor's slot read through the descriptor taken at
/// install, the wrapped function read from the instance's own dict.
pub fn seen(obj: &PyObject, vm: &VirtualMachine) -> Option<Seen> {
    let class = obj.class().as_object().to_owned();
    let (is_function, is_tensor, handle, variable_value) = RUNTIME.with(|r| {
        let r = r.borrow();
        let r = r.as_ref()?;
        let variable_value = class.is(&r.variable).then(|| r.variable_value.clone());
        Some((class.is(&r.function), class.is(&r.tensor), r.handle.clone(), variable_value))
    })?;
    if let Some(slot) = variable_value {
        let value = vm.call_method(&slot, "__get__", (obj.to_owned(), class)).ok()?;
        return seen(&value, vm);
    }
    if is_function {
        let wrapped = obj.dict()?.get_item_opt("python_function", vm).ok().flatten()?;
        if !wrapped.class().is(vm.ctx.types.function_type) {
            return Some(Seen::Function(None));
        }
        return Some(Seen::Function(Some(wrapped.get_attr("__qualname__", vm).ok()?)));
    }
    if !is_tensor {
        return None;
    }
    let handle = vm.call_method(&handle, "__get__", (obj.to_owned(), class)).ok()?;
    let handle = handle.downcast_ref::<module::_stagecheck_tensor::Handle>()?;
    Some(match &handle.input {
        trace::Input::Eager(t) => Seen::Tensor(t.clone()),
        trace::Input::Symbolic(s) => Seen::Symbolic(format!("symbolic tensor {} {:?}", s.dtype, s.shape)),
    })
}

/// The line of the innermost frame of user code, inside a trace in
/// progress, whose current instruction lies in a `try` or `with` block (an
/// entry of its code's exception table): an exception deferred to a graph's
/// execution would pass that handler by. Frames below the outermost
/// `Function._trace` are the caller's, reached at execution as at trace
/// time; runtime frames (`runtime::FILE_PREFIX`) are the runtime's own.
pub(crate) fn handler_line(vm: &VirtualMachine) -> Option<u32> {
    let trace_code = RUNTIME.with(|r| r.borrow().as_ref().map(|r| r.trace_code.clone()))?;
    let frames = vm.frames.borrow();
    // SAFETY: frames on the VM's stack are alive while they are on it.
    let frames: Vec<&rustpython_vm::Py<rustpython_vm::frame::Frame>> = frames.iter().map(|f| unsafe { f.as_ref() }).collect();
    let outermost = frames.iter().position(|f| f.code.as_object().is(&trace_code))?;
    for f in frames[outermost + 1..].iter().rev() {
        if f.code.source_path().as_str().starts_with(crate::runtime::FILE_PREFIX) {
            continue;
        }
        let lasti = f.lasti();
        if lasti == 0 {
            continue;
        }
        if rustpython_vm::bytecode::find_exception_handler(&f.code.exceptiontable, lasti - 1).is_some() {
            return Some(f.current_location().line.get() as u32);
        }
    }
    None
}

/// `staging._fresh_exception`, as taken when the runtime was installed.
pub(crate) fn fresh_exception() -> Option<PyObjectRef> {
    RUNTIME.with(|r| r.borrow().as_ref().map(|r| r.fresh_exception.clone()))
}

/// Whether `exc` is an instance of the runtime's own `StagingError` class
/// (the class itself: a program's exception of the same name is not).
pub fn is_staging_error(exc: &rustpython_vm::builtins::PyBaseExceptionRef) -> bool {
    RUNTIME.with(|r| r.borrow().as_ref().is_some_and(|r| exc.class().as_object().is(&r.staging_error)))
}
