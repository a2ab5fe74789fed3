//! The sandbox: what a program can reach.
//!
//! The interpreter is built without RustPython's `host_env` feature, so the
//! `os`, `posix`, `_signal`, `_ctypes` modules and the file-backed `_io.FileIO`
//! do not exist in the binary at all. On top of that:
//! - `__import__` is replaced by [`_stagecheck_sandbox::__import__`], which
//!   imports only the allow-listed native modules (`math`) and the
//!   `stagecheck` runtime ([`crate::runtime`], executed once per interpreter)
//!   and refuses everything else with an ImportError; there is no import from
//!   disk and no other importer to fall back on;
//! - `open`, `input`, `breakpoint`, `help`, `exit`, `quit` and the licence
//!   helpers are removed from builtins (NameError);
//! - `sys.stdout`/`sys.stderr` are the per-run capture ([`crate::capture`]);
//! - string hashing is seeded with 0, so set iteration order is deterministic.
//!
//! `sys` and `_imp` cannot be imported, but RustPython's frozen bootstrap
//! modules hold them in their globals, and a `__subclasses__()` walk reaches
//! those (`BuiltinImporter.find_spec.__func__.__globals__['sys']`): there a
//! program finds stand-ins holding an allow-list of harmless attributes
//! ([`crate::proxies`]). Code objects cannot be made or swapped
//! ([`crate::bytecode`]). The tests in `executor/tests/sandbox.rs` and
//! `executor/tests/redteam.rs` try these walks. What a run may leave
//! behind for the next is [`crate::snapshot`]'s to restore and check.

use crate::capture;
use rustpython_vm::{
    builtins::{PyDict, PyDictRef},
    signal::UserSignalSender,
    Interpreter, PyResult, Settings, VirtualMachine,
};
use std::cell::RefCell;

/// Native modules a program may import.
pub const DEFAULT_ALLOWED: &[&str] = &["math"];

/// Builtins a program does not get.
const REMOVED_BUILTINS: &[&str] = &["open", "input", "breakpoint", "help", "exit", "quit", "copyright", "credits", "license"];

thread_local! {
    static ALLOWED: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
}

/// Builds a sandboxed interpreter and the sender its watchdog interrupts it through.
pub fn build(
    allowed: &[String],
    recursion_limit: usize,
    debug_panic: bool,
    debug_os_probe: bool,
) -> (Interpreter, UserSignalSender, crate::snapshot::Snapshot) {
    ALLOWED.with(|a| *a.borrow_mut() = allowed.to_vec());
    let mut settings = Settings::default();
    settings.hash_seed = Some(0);
    settings.install_signal_handlers = false;
    settings.import_site = false;
    settings.isolated = true;
    let (tx, rx) = rustpython_vm::signal::user_signal_channel();
    stagecheck_staging::host::set_host(stagecheck_staging::host::Host { over_memory: crate::alloc::Budget::over_hard, stop: stop_staged });
    let builder = Interpreter::builder(settings);
    let mut defs: Vec<_> =
        rustpython_stdlib::stdlib_module_defs(&builder.ctx).into_iter().filter(|d| allowed.iter().any(|a| a == d.name.as_str())).collect();
    defs.push(capture::_stagecheck_io::module_def(&builder.ctx));
    defs.push(_stagecheck_sandbox::module_def(&builder.ctx));
    defs.extend(stagecheck_staging::native_modules(&builder.ctx));
    let interp = builder.add_native_modules(&defs).init_hook(move |vm| vm.set_user_signal_channel(rx)).build();
    let snapshot = interp.enter(|vm| {
        confine(vm, recursion_limit, debug_panic).expect("sandbox setup cannot fail");
        stagecheck_staging::runtime::install(vm);
        let stand_ins = crate::proxies::install(vm);
        if debug_os_probe {
            crate::os_probe::install(vm);
        }
        #[cfg(feature = "planted-bugs")]
        crate::planted::install(vm);
        crate::snapshot::Snapshot::take(vm, stand_ins)
    });
    (interp, tx, snapshot)
}

/// Ends a run from inside graph execution as the watchdog ends one from
/// inside the VM: a panic no `except` or `finally` of the program catches.
fn stop_staged(why: stagecheck_staging::host::Stop) -> ! {
    let limit = match why {
        stagecheck_staging::host::Stop::Time => crate::Limit::Time,
        stagecheck_staging::host::Stop::Memory => crate::Limit::Memory,
    };
    std::panic::panic_any(crate::watchdog::LimitPanic(limit))
}

fn confine(vm: &VirtualMachine, recursion_limit: usize, debug_panic: bool) -> PyResult<()> {
    crate::alloc_guards::install(vm);
    crate::bytecode::install(vm);
    // Warnings are ignored: their text names a line, which differs between a
    // program and its conversion, and shows once per line (found by the
    // fuzzer: a DeprecationWarning in one mode's output only). Programs
    // cannot import `warnings` to change this.
    let filters = &vm.state.warnings.filters;
    let ignore = vm.ctx.new_tuple(vec![
        vm.ctx.new_str("ignore").into(),
        vm.ctx.none(),
        vm.ctx.exceptions.warning.to_owned().into(),
        vm.ctx.none(),
        vm.ctx.new_int(0).into(),
    ]);
    filters.borrow_vec_mut().clear();
    filters.borrow_vec_mut().push(ignore.into());
    vm.state.warnings.filters_mutated();
    let io = rustpython_vm::import::import_builtin(vm, "_stagecheck_io")?;
    for name in ["stdout", "stderr", "__stdout__", "__stderr__"] {
        vm.sys_module.set_attr(name, io.clone(), vm)?;
    }
    vm.sys_module.set_attr("stdin", vm.ctx.none(), vm)?;
    let sandbox = rustpython_vm::import::import_builtin(vm, "_stagecheck_sandbox")?;
    let builtins = vm.builtins.dict();
    for name in REMOVED_BUILTINS {
        let _ = builtins.del_item(*name, vm);
    }
    builtins.set_item("__import__", sandbox.get_attr("__import__", vm)?, vm)?;
    crate::nesting::install(vm);
    if debug_panic {
        builtins.set_item("__stagecheck_panic__", sandbox.get_attr("panic", vm)?, vm)?;
        builtins.set_item("__stagecheck_overflow__", sandbox.get_attr("overflow", vm)?, vm)?;
    }
    let modules = vm.sys_module.get_attr("modules", vm)?;
    for name in ["_stagecheck_io", "_stagecheck_sandbox"] {
        let _ = modules.del_item(name, vm);
    }
    vm.recursion_limit.set(recursion_limit);
    Ok(())
}

/// `sys.modules`, as the VM's importer sees it.
pub(crate) fn sys_modules(vm: &VirtualMachine) -> Option<PyDictRef> {
    vm.sys_module.get_attr("modules", vm).ok()?.downcast::<PyDict>().ok()
}

#[rustpython_vm::pymodule]
pub(crate) mod _stagecheck_sandbox {
    use rustpython_vm::{builtins::PyStrRef, function::OptionalArg, PyObjectRef, PyResult, VirtualMachine};

    /// The only importer: the runtime and allow-listed native modules, nothing else.
    #[pyfunction]
    fn __import__(
        name: PyStrRef,
        _globals: OptionalArg<PyObjectRef>,
        _locals: OptionalArg<PyObjectRef>,
        fromlist: OptionalArg<PyObjectRef>,
        level: OptionalArg<i64>,
        vm: &VirtualMachine,
    ) -> PyResult {
        let name_str = name.to_string_lossy();
        let allowed = super::ALLOWED.with(|a| a.borrow().iter().any(|m| *m == *name_str));
        if level.unwrap_or(0) != 0 {
            return Err(vm.new_import_error("stagecheck sandbox: relative imports are not allowed", name));
        }
        if stagecheck_staging::runtime::owns(&name_str) {
            return stagecheck_staging::runtime::import(vm, &name_str, fromlist.into_option());
        }
        if !allowed && *name_str != *stagecheck_staging::tensors::module::NAME && *name_str != *stagecheck_staging::operators::NAME {
            let list = super::ALLOWED.with(|a| a.borrow().join(", "));
            return Err(vm.new_import_error(format!("stagecheck sandbox: import of '{name_str}' is not allowed (allowed: {list})"), name));
        }
        rustpython_vm::import::import_builtin(vm, &name_str)
    }

    /// Panics inside the VM; exposed to programs only with `debug_panic`, to
    /// test that the harness survives and reports a crash.
    #[pyfunction]
    fn panic(message: OptionalArg<PyStrRef>) {
        let m = message.map(|m| m.to_string_lossy().into_owned());
        panic!("{}", m.unwrap_or_else(|| "provoked VM panic".into()));
    }

    /// Recurses natively until the thread's stack overflows and the process
    /// aborts; exposed only with `debug_panic`, to test that a worker killed
    /// by a signal is survived and reported (the VM's own recursions end in
    /// RecursionError or MemoryError, as CPython's do).
    #[pyfunction]
    fn overflow() {
        #[allow(unconditional_recursion)]
        fn down(depth: u64) -> u64 {
            let frame = std::hint::black_box([depth as u8; 4096]);
            down(depth + 1) + u64::from(frame[0])
        }
        std::hint::black_box(down(0));
    }
}
