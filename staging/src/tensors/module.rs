//! `_stagecheck_tensor`: the native module under `stagecheck.tensor` and
//! `stagecheck.staging`. A `Handle` is an eager tensor or a symbolic one;
//! `apply` runs an op now (the graph crate's `eval`, the same kernels the
//! graph executor uses) or records it in the trace when an input is
//! symbolic (checked by the graph crate's `infer`). One kernel for both, so
//! eager and staged floats compare bit for bit. While a trace is under
//! construction every tensor made is symbolic (TensorFlow's rule: a `while`
//! on a counter made inside the function is staged).

use super::trace::{Input, Sym, TraceError};
use super::{mode, values, Mode, TRACER};
use rustpython_vm::{PyObjectRef, PyRef, PyResult, VirtualMachine};
use stagecheck_graph::{ErrorKind, OpError};

/// The module's name: the runtime imports it, and so may programs.
pub const NAME: &str = "_stagecheck_tensor";

/// An `OpError` as the Python exception programs see.
pub fn op_error(e: OpError, vm: &VirtualMachine) -> rustpython_vm::builtins::PyBaseExceptionRef {
    match e.kind {
        ErrorKind::Raised(site) => {
            raised(site, vm).unwrap_or_else(|| vm.new_value_error(format!("raise site {site} is unknown: {}", e.message)))
        }
        // What the host node's Python function raised, as it raised it.
        ErrorKind::Host => super::HOST_ERROR.with(|h| h.borrow_mut().take()).unwrap_or_else(|| vm.new_value_error(e.message)),
        ErrorKind::ZeroDivision => vm.new_zero_division_error(e.message),
        ErrorKind::RecursionLimit => vm.new_recursion_error(e.message),
        ErrorKind::Unimplemented => vm.new_not_implemented_error(e.message),
        // A list's pop at execution: what Python's list raises.
        ErrorKind::Index => vm.new_index_error(e.message),
        // An op whose type would depend on a list's length: a limit of staging.
        ErrorKind::Dynamic => _stagecheck_tensor::staging_error(e.message, vm),
        _ => vm.new_value_error(e.message),
    }
}

/// The exception of raise node `site`: a new one like the one traced
/// (`staging._fresh_exception`, as the original makes one at each raise),
/// its traceback the one the traced one had.
fn raised(site: u32, vm: &VirtualMachine) -> Option<rustpython_vm::builtins::PyBaseExceptionRef> {
    use rustpython_vm::builtins::PyBaseException;
    let (exc, tb) = super::RAISES.with(|r| r.borrow().get(site as usize).cloned())?;
    let exc = match super::fresh_exception().map(|f| f.call((exc,), vm)) {
        Some(Ok(fresh)) => fresh,
        Some(Err(e)) => return Some(e),
        None => return None,
    };
    let exc = exc.downcast::<PyBaseException>().ok()?;
    exc.set___traceback__(tb, vm).ok()?;
    Some(exc)
}

#[rustpython_vm::pymodule]
pub mod _stagecheck_tensor {
    use super::*;
    use rustpython_vm::builtins::{PyBaseExceptionRef, PyListRef, PyStrRef, PyTypeRef};
    use rustpython_vm::builtins::{PyDict, PyTuple};
    use rustpython_vm::function::OptionalArg;
    use rustpython_vm::{pyclass, PyPayload, TryFromObject};
    use stagecheck_graph::{DType, FnId, Op, Tensor};

    #[pyattr]
    #[pyclass(name = "Handle")]
    #[derive(Debug, PyPayload)]
    pub struct Handle {
        pub(crate) input: Input,
    }

    #[pyclass(flags(DISALLOW_INSTANTIATION))]
    impl Handle {}

    #[pyattr(name = "StagingError", once)]
    fn staging_error_type(vm: &VirtualMachine) -> PyTypeRef {
        vm.ctx.new_exception_type("stagecheck", "StagingError", Some(vec![vm.ctx.exceptions.exception_type.to_owned()]))
    }

    pub(crate) fn staging_error(message: String, vm: &VirtualMachine) -> PyBaseExceptionRef {
        let module = vm.import("_stagecheck_tensor", 0).expect("the module imports itself");
        let cls = module.get_attr("StagingError", vm).expect("StagingError is defined");
        let cls = PyTypeRef::try_from_object(vm, cls).expect("StagingError is a type");
        vm.new_exception_msg(cls, message.into())
    }

    fn trace_error(e: TraceError, vm: &VirtualMachine) -> PyBaseExceptionRef {
        staging_error(e.0, vm)
    }

    fn handle(input: Input) -> Handle {
        Handle { input }
    }

    fn sym_handles(syms: Vec<Sym>, vm: &VirtualMachine) -> PyObjectRef {
        vm.ctx.new_list(syms.into_iter().map(|s| handle(Input::Symbolic(s)).into_pyobject(vm)).collect()).into()
    }

    fn inputs(list: &PyListRef, vm: &VirtualMachine) -> PyResult<Vec<Input>> {
        list.borrow_vec()
            .iter()
            .map(|o| o.downcast_ref::<Handle>().map(|h| h.input.clone()).ok_or_else(|| vm.new_type_error("expected tensor handles")))
            .collect()
    }

    fn dtype_arg(name: Option<PyStrRef>, vm: &VirtualMachine) -> PyResult<Option<DType>> {
        name.map(|n| {
            DType::from_name(&n.to_string_lossy()).ok_or_else(|| vm.new_type_error(format!("unknown dtype '{}'", n.to_string_lossy())))
        })
        .transpose()
    }

    fn eager(h: &Handle, what: &str, vm: &VirtualMachine) -> PyResult<Tensor> {
        match &h.input {
            Input::Eager(t) => Ok(t.clone()),
            Input::Symbolic(_) => Err(staging_error(format!("{what} of a symbolic tensor: its value is not known while tracing"), vm)),
        }
    }

    #[pyfunction]
    fn mode() -> &'static str {
        match super::mode() {
            Mode::Original => "original",
            Mode::Unstaged => "unstaged",
            Mode::Staged | Mode::StagedGpu | Mode::Compiled => "staged",
        }
    }

    /// `sc.device(name)`'s placement of staged graphs: `cpu` or `gpu` (also
    /// written `/gpu:0`, `/device:GPU:0`); gives the previous one's name.
    #[pyfunction]
    fn set_device(name: PyStrRef, vm: &VirtualMachine) -> PyResult<&'static str> {
        use super::super::Placement;
        let text = name.to_string_lossy().to_ascii_lowercase();
        let bare = text.trim_start_matches('/').trim_start_matches("device:");
        let bare = bare.strip_suffix(":0").unwrap_or(bare);
        let new = match bare {
            "cpu" => Placement::Cpu,
            "gpu" => Placement::Gpu,
            _ => return Err(vm.new_value_error(format!("unknown device '{text}': expected 'cpu' or 'gpu'"))),
        };
        let old = super::super::placement();
        super::super::set_placement(new);
        Ok(match old {
            Placement::Cpu => "cpu",
            Placement::Gpu => "gpu",
        })
    }

    /// A tensor of a Python value: eager, or while tracing a constant node
    /// of the trace (as in TensorFlow's graphs, every tensor made inside a
    /// staged function is symbolic, so loops on them are staged).
    #[pyfunction]
    fn constant(value: PyObjectRef, dtype: Option<PyStrRef>, vm: &VirtualMachine) -> PyResult<Handle> {
        let dtype = dtype_arg(dtype, vm)?;
        let t = values::from_python(&value, dtype, vm)?;
        TRACER.with(|tr| {
            let mut tr = tr.borrow_mut();
            if !tr.tracing() {
                return Ok(handle(Input::Eager(t)));
            }
            tr.constant(t).map(|s| handle(Input::Symbolic(s))).map_err(|e| trace_error(e, vm))
        })
    }

    /// An op named by its variant (`ReduceSum`, `graph::tag_of`) with its attributes, on handles.
    #[pyfunction]
    fn apply(op: PyStrRef, attrs: Option<PyObjectRef>, args: PyListRef, vm: &VirtualMachine) -> PyResult<Handle> {
        // The graph crate's `Op` in JSON: `{"op": "reduce_sum", "axis": ..., ...}`.
        let mut spec = match attrs {
            Some(a) if !vm.is_none(&a) => match values::to_json(&a, vm)? {
                serde_json::Value::Object(m) => m,
                _ => return Err(vm.new_type_error("op attributes are a dict")),
            },
            _ => serde_json::Map::new(),
        };
        spec.insert("op".into(), serde_json::Value::String(stagecheck_graph::tag_of(&op.to_string_lossy())));
        let spec = serde_json::Value::Object(spec);
        let op: Op =
            serde_json::from_value(spec).map_err(|e| vm.new_value_error(format!("bad operation {}: {e}", op.to_string_lossy())))?;
        let ins = inputs(&args, vm)?;
        let tracing = TRACER.with(|t| t.borrow().tracing());
        if !tracing && ins.iter().all(|i| matches!(i, Input::Eager(_))) {
            let tensors: Vec<&Tensor> = ins
                .iter()
                .map(|i| match i {
                    Input::Eager(t) => t,
                    _ => unreachable!(),
                })
                .collect();
            let out = stagecheck_graph::eval(&op, &tensors).map_err(|e| op_error(e, vm))?;
            return Ok(handle(Input::Eager(out)));
        }
        let sigs: Vec<_> = ins.iter().map(Input::signature).collect();
        let (dtype, shape) = stagecheck_graph::infer(&op, &sigs).map_err(|e| op_error(e, vm))?;
        TRACER.with(|t| {
            let mut t = t.borrow_mut();
            if !t.tracing() {
                return Err(staging_error("a symbolic tensor used after its trace ended".into(), vm));
            }
            t.op(op, &ins, dtype, shape).map(|s| handle(Input::Symbolic(s))).map_err(|e| trace_error(e, vm))
        })
    }

    /// The fast path of a staged call (`call_key.rs`): `(True, result)` when
    /// a trace of the call's key has guards that hold; else `(False, key)`,
    /// the key to file the new trace under.
    #[pyfunction]
    fn staged_call(native: PyObjectRef, args: PyRef<PyTuple>, kwargs: PyRef<PyDict>, vm: &VirtualMachine) -> PyResult {
        let (hit, value) = super::super::call_key::staged_call(&native, &args, &kwargs, vm)?;
        Ok(vm.ctx.new_tuple(vec![vm.ctx.new_bool(hit).into(), value]).into())
    }

    /// The trace-cache key of a call (`call_key.rs`), for the Python path.
    #[pyfunction]
    fn call_key(args: PyRef<PyTuple>, kwargs: PyRef<PyDict>, tensor_class: PyTypeRef, vm: &VirtualMachine) -> PyResult<String> {
        super::super::call_key::key_of(&args, &kwargs, &tensor_class, vm)
    }

    /// A trace's guards (`guards.rs`), from the walk's specs.
    #[pyattr]
    #[pyclass(name = "Guards")]
    #[derive(Debug, PyPayload)]
    pub struct GuardSet {
        pub(crate) inner: super::super::guards::Guards,
    }

    #[pyclass(flags(DISALLOW_INSTANTIATION))]
    impl GuardSet {}

    /// The names a code object (nested code included) may read (`guards.rs`).
    #[pyfunction]
    fn code_names(code: PyRef<rustpython_vm::builtins::PyCode>, vm: &VirtualMachine) -> PyResult<PyObjectRef> {
        super::super::guards::code_names(code, vm)
    }

    #[pyfunction]
    fn guards(specs: PyListRef, tensor_class: PyObjectRef, vm: &VirtualMachine) -> PyResult<GuardSet> {
        Ok(GuardSet { inner: super::super::guards::build(&specs, tensor_class, vm)? })
    }

    /// The handles of the captured tensors when every guard holds for the
    /// call `(args, kwargs)`, else the text of the first that fails.
    #[pyfunction]
    fn guards_check(guards: PyRef<GuardSet>, args: PyRef<PyTuple>, kwargs: PyRef<PyDict>, vm: &VirtualMachine) -> PyObjectRef {
        let call = super::super::guards::Call { args: &args, kwargs: &kwargs };
        match guards.inner.check(&call, vm) {
            Ok(handles) => vm.ctx.new_list(handles.into_iter().map(Into::into).collect()).into(),
            Err(i) => vm.ctx.new_str(guards.inner.guards[i].text.as_str()).into(),
        }
    }

    /// An object's own `__dict__` (instance, module, function), read
    /// without running any code of its class; None when it has none.
    #[pyfunction]
    fn instance_dict(obj: PyObjectRef, vm: &VirtualMachine) -> PyObjectRef {
        obj.dict().map_or_else(|| vm.ctx.none(), Into::into)
    }

    /// Whether `cls` is a class made by a `class` statement (a heap type),
    /// not one of the interpreter's own.
    #[pyfunction]
    fn is_heap_type(cls: PyObjectRef) -> bool {
        cls.downcast_ref::<rustpython_vm::builtins::PyType>().is_some_and(|t| t.heaptype_ext.is_some())
    }

    /// How many guards a trace has (tests, `--show-graph`).
    #[pyfunction]
    fn guards_len(guards: PyRef<GuardSet>) -> usize {
        guards.inner.guards.len()
    }

    /// Records a retrace of `function` because the guard on `why` failed.
    #[pyfunction]
    fn note_retrace(function: PyStrRef, why: PyStrRef) {
        super::super::guards::note_retrace(function.to_string_lossy().into_owned(), why.to_string_lossy().into_owned());
    }

    pub(crate) fn new_handle(input: Input, vm: &VirtualMachine) -> PyObjectRef {
        handle(input).into_pyobject(vm)
    }

    #[pyfunction]
    fn dtype(h: PyRef<Handle>) -> &'static str {
        h.input.signature().0.name()
    }

    /// `(dtype name, shape)`: what `staging/structures.py`'s `_signature`
    /// compares, in one call (the tracer asks at every branch, loop and
    /// list op).
    #[pyfunction]
    fn signature(h: PyRef<Handle>, vm: &VirtualMachine) -> PyResult {
        let d = vm.ctx.new_str(dtype(h.clone()));
        Ok(vm.ctx.new_tuple(vec![d.into(), shape(h, vm)?]).into())
    }

    /// A tensor's shape. A symbolic tensor with a list's length among its
    /// dimensions (`graph::DYN`, a stacked list) has no shape Python could
    /// use now: a StagingError rather than a number that is not its length.
    #[pyfunction]
    fn shape(h: PyRef<Handle>, vm: &VirtualMachine) -> PyResult {
        let dims = h.input.signature().1;
        if stagecheck_graph::has_dyn(&dims) {
            return Err(staging_error(
                "the shape of a stacked list built in a staged loop: its length is known only at execution".into(),
                vm,
            ));
        }
        Ok(vm.ctx.new_tuple(dims.into_iter().map(|d| vm.ctx.new_int(d).into()).collect()).into())
    }

    /// How many references `obj` has (besides this call's own): whether a
    /// list in a staged loop is held by one variable only (`staging/lists.py`).
    #[pyfunction]
    fn refcount(obj: PyObjectRef) -> usize {
        obj.strong_count()
    }

    #[pyfunction]
    fn is_symbolic(h: PyRef<Handle>) -> bool {
        matches!(h.input, Input::Symbolic(_))
    }

    /// The trace (builder) a symbolic tensor belongs to; None for an eager
    /// one. Gradients (stagecheck/gradients) tell a branch's own values,
    /// kept for the backward pass, from the ones it captured.
    #[pyfunction]
    fn builder(h: PyRef<Handle>) -> Option<u64> {
        match &h.input {
            Input::Symbolic(s) => Some(s.builder),
            Input::Eager(_) => None,
        }
    }

    /// The builder of the innermost trace in progress.
    #[pyfunction]
    fn trace_builder() -> Option<u64> {
        TRACER.with(|t| t.borrow().top_builder())
    }

    #[pyfunction]
    fn to_python(h: PyRef<Handle>, vm: &VirtualMachine) -> PyResult {
        let t = eager(&h, "numpy()", vm)?;
        Ok(values::to_python(&t.to_value(), vm))
    }

    #[pyfunction]
    fn format(h: PyRef<Handle>) -> String {
        match &h.input {
            Input::Eager(t) => t.to_string(),
            Input::Symbolic(s) if stagecheck_graph::has_dyn(&s.shape) => {
                let dims: Vec<String> =
                    s.shape.iter().map(|&d| if d == stagecheck_graph::DYN { "?".into() } else { d.to_string() }).collect();
                format!("<symbolic {} [{}]>", s.dtype, dims.join(", "))
            }
            Input::Symbolic(s) => format!("<symbolic {} {:?}>", s.dtype, s.shape),
        }
    }

    // -- tracing ------------------------------------------------------------

    fn signatures(params: PyListRef, vm: &VirtualMachine) -> PyResult<Vec<(DType, Vec<usize>)>> {
        params
            .borrow_vec()
            .iter()
            .map(|p| {
                let pair = p
                    .downcast_ref::<PyTuple>()
                    .filter(|t| t.len() == 2)
                    .ok_or_else(|| vm.new_type_error("a signature is (dtype, shape)"))?;
                let d = PyStrRef::try_from_object(vm, pair.as_slice()[0].clone())?;
                let s = pair.as_slice()[1].clone();
                let dtype = DType::from_name(&d.to_string_lossy()).ok_or_else(|| vm.new_type_error("unknown dtype"))?;
                // None: a list's length (`graph::DYN`), for list loop variables.
                let dims: Vec<usize> =
                    vm.extract_elements_with(
                        &s,
                        |o| if vm.is_none(&o) { Ok(stagecheck_graph::DYN) } else { usize::try_from_object(vm, o) },
                    )?;
                Ok((dtype, dims))
            })
            .collect()
    }

    /// Starts tracing a function (`isolated`: a `@sc.function`, which may
    /// not capture its caller's symbolic tensors) or a branch or loop part.
    #[pyfunction]
    fn trace_begin(name: PyStrRef, params: PyListRef, isolated: OptionalArg<bool>, vm: &VirtualMachine) -> PyResult {
        let sigs = signatures(params, vm)?;
        let isolated = isolated.unwrap_or(false);
        if isolated {
            super::super::guards::note_trace(name.to_string_lossy().into_owned());
        }
        let syms = TRACER.with(|t| t.borrow_mut().begin(&name.to_string_lossy(), sigs, !isolated));
        Ok(sym_handles(syms, vm))
    }

    /// Ends the innermost trace; the function's id. Branches and loop parts
    /// (`pending`) are completed by the cond or while node that uses them.
    #[pyfunction]
    fn trace_end(outputs: PyListRef, pending: OptionalArg<bool>, vm: &VirtualMachine) -> PyResult<u32> {
        let outs = inputs(&outputs, vm)?;
        TRACER.with(|t| t.borrow_mut().end(&outs, pending.unwrap_or(false))).map(|f| f.0).map_err(|e| trace_error(e, vm))
    }

    /// The library slot of the innermost function being traced.
    #[pyfunction]
    fn trace_current() -> Option<u32> {
        TRACER.with(|t| t.borrow().current().map(|f| f.0))
    }

    /// Records `exc` (raised while tracing a path) as a raise site, with its
    /// traceback now; the site's number.
    #[pyfunction]
    fn raise_site(exc: PyBaseExceptionRef, vm: &VirtualMachine) -> u32 {
        let tb: PyObjectRef = exc.__traceback__().map_or_else(|| vm.ctx.none(), Into::into);
        super::super::RAISES.with(|r| {
            let mut r = r.borrow_mut();
            r.push((exc.into(), tb));
            (r.len() - 1) as u32
        })
    }

    /// Puts the innermost frame of the program on the stack, at its current
    /// line, in front of `exc`'s traceback: an exception the runtime raised
    /// for the program (a staged assert's) is then the program's, at its line.
    #[pyfunction]
    fn program_traceback(exc: PyBaseExceptionRef, vm: &VirtualMachine) -> PyResult<()> {
        let frame = {
            let frames = vm.frames.borrow();
            // SAFETY: frames on the VM's stack are alive while they are on it.
            frames
                .iter()
                .rev()
                .map(|f| unsafe { f.as_ref() })
                .find(|f| !f.code.source_path().as_str().starts_with(crate::runtime::FILE_PREFIX))
                .map(|f| f.to_owned())
        };
        let Some(frame) = frame else { return Ok(()) };
        let (lasti, line) = (frame.lasti(), frame.current_location().line);
        let tb = rustpython_vm::builtins::PyTraceback::new(exc.__traceback__(), frame, lasti, line);
        exc.set___traceback__(tb.into_ref(&vm.ctx).into(), vm)
    }

    /// Ends the innermost trace at raise site `site` (`trace.rs: end_raise`).
    #[pyfunction]
    fn trace_end_raise(
        site: u32,
        exc_type: PyStrRef,
        message: PyStrRef,
        line: Option<u32>,
        pending: bool,
        results: PyListRef,
        vm: &VirtualMachine,
    ) -> PyResult<u32> {
        let results = signatures(results, vm)?;
        let info = super::super::trace::RaiseInfo {
            site,
            exc_type: exc_type.to_string_lossy().into_owned(),
            message: message.to_string_lossy().into_owned(),
            line,
        };
        Ok(TRACER.with(|t| t.borrow_mut().end_raise(info, pending, results)).0)
    }

    /// The line of a `try` or `with` of user code inside the traces in
    /// progress that an exception raised here would pass (`handler_line`).
    #[pyfunction]
    fn handler_line(vm: &VirtualMachine) -> Option<u32> {
        super::super::handler_line(vm)
    }

    /// Records a host node in the innermost trace: `f(list of eager
    /// tensors)` is called at every execution with the values of `args`
    /// and returns a list of tensors of the signatures `results`
    /// (`staging/host.py`). The node's outputs.
    #[pyfunction]
    fn host(f: PyObjectRef, args: PyListRef, results: PyListRef, label: PyStrRef, vm: &VirtualMachine) -> PyResult {
        let ins = inputs(&args, vm)?;
        let results = signatures(results, vm)?;
        let site = super::super::HOSTS.with(|h| {
            let mut h = h.borrow_mut();
            h.push(f);
            (h.len() - 1) as u32
        });
        let label = label.to_string_lossy().into_owned();
        let syms = TRACER.with(|t| t.borrow_mut().host(site, label, &ins, results)).map_err(|e| trace_error(e, vm))?;
        Ok(sym_handles(syms, vm))
    }

    #[pyfunction]
    fn trace_abort() {
        TRACER.with(|t| t.borrow_mut().abort());
    }

    /// Drops outputs of a pending branch (`Tracer::drop_pending_outputs`).
    #[pyfunction]
    fn drop_outputs(fid: u32, positions: Vec<usize>, vm: &VirtualMachine) -> PyResult<()> {
        TRACER.with(|t| t.borrow_mut().drop_pending_outputs(FnId(fid), &positions)).map_err(|e| trace_error(e, vm))
    }

    #[pyfunction]
    fn cond(pred: PyRef<Handle>, then_fn: u32, else_fn: u32, vm: &VirtualMachine) -> PyResult {
        let syms = TRACER.with(|t| t.borrow_mut().cond(&pred.input, FnId(then_fn), FnId(else_fn))).map_err(|e| trace_error(e, vm))?;
        Ok(sym_handles(syms, vm))
    }

    #[pyfunction]
    fn while_loop(cond_fn: u32, body_fn: u32, inits: PyListRef, vm: &VirtualMachine) -> PyResult {
        let ins = inputs(&inits, vm)?;
        let syms = TRACER.with(|t| t.borrow_mut().while_loop(FnId(cond_fn), FnId(body_fn), &ins)).map_err(|e| trace_error(e, vm))?;
        Ok(sym_handles(syms, vm))
    }

    /// Calls a traced function: a call node while tracing, else the graph
    /// run now by the executor.
    #[pyfunction]
    fn call(callee: u32, args: PyListRef, expected: OptionalArg<PyListRef>, vm: &VirtualMachine) -> PyResult {
        let ins = inputs(&args, vm)?;
        let expected = match expected.into_option() {
            Some(l) => Some(signatures(l, vm)?),
            None => None,
        };
        let outs = call_graph(FnId(callee), ins, expected, vm)?;
        Ok(vm.ctx.new_list(outs.into_iter().map(|o| handle(o).into_pyobject(vm)).collect()).into())
    }

    /// `call` without Python lists in between (and the fast path's).
    pub(crate) fn call_graph(
        callee: FnId,
        ins: Vec<Input>,
        expected: Option<Vec<(DType, Vec<usize>)>>,
        vm: &VirtualMachine,
    ) -> PyResult<Vec<Input>> {
        TRACER.with(|t| {
            let mut t = t.borrow_mut();
            if t.tracing() {
                if t.may_raise(callee) && super::super::handler_line(vm).is_some() {
                    return Err(staging_error(
                        "a staged function that may raise at execution is called inside a try or with statement of a staged function: the handler cannot run at execution".into(),
                        vm,
                    ));
                }
                let syms = t.call(callee, &ins, expected).map_err(|e| trace_error(e, vm))?;
                return Ok(syms.into_iter().map(Input::Symbolic).collect());
            }
            let tensors: Vec<Tensor> = ins
                .into_iter()
                .map(|i| match i {
                    Input::Eager(t) => Ok(t),
                    Input::Symbolic(_) => Err(staging_error("a symbolic tensor used after its trace ended".into(), vm)),
                })
                .collect::<PyResult<_>>()?;
            let snapshot = t.snapshot().map_err(|e| staging_error(format!("invalid graph: {e}"), vm))?;
            // Host nodes run Python, which may use the tracer: no borrow held.
            drop(t);
            let stop = || super::super::limit_reached().is_some();
            let host = |site: u32, args: Vec<Tensor>| super::super::host_call(site, args, vm);
            let executor = snapshot.executor().with_interrupt(&stop).with_host(&host);
            let gpu = match super::super::placement() {
                super::super::Placement::Gpu => stagecheck_gpu::shared(),
                super::super::Placement::Cpu => None,
            };
            let result = match gpu {
                Some(gpu) => {
                    let device = stagecheck_gpu::GpuDevice::new(gpu).shadowed(super::super::shadow());
                    let executor = executor.on(device);
                    let result = executor.run(callee, &tensors);
                    super::super::note_tolerance(executor.device().tolerance());
                    super::super::note_mismatches(executor.device().mismatches());
                    super::super::note_flushed(executor.device().flushed());
                    result
                }
                None => executor.run(callee, &tensors),
            };
            match result {
                Ok(outs) => Ok(outs.into_iter().map(Input::Eager).collect()),
                Err(e) if e.kind == ErrorKind::Interrupted => {
                    // As the watchdog does: no `except` or `finally` may catch it.
                    crate::host::stop(super::super::limit_reached().unwrap_or(crate::host::Stop::Time))
                }
                Err(e) => Err(op_error(e, vm)),
            }
        })
    }
}
