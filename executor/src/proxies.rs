//! What a program reaches of `sys`, `_imp`, `_thread` and `_warnings`: an
//! allow-list, not a list of refusals.
//!
//! A program cannot import these modules, but RustPython's frozen bootstrap
//! (`_frozen_importlib`) and other Python modules loaded at start (`codecs`)
//! hold them in their globals, and a `__subclasses__()` walk reaches those
//! globals (`BuiltinImporter.find_spec.__func__.__globals__['sys']`). The real
//! `sys` had `excepthook` (RustPython's traceback printer opens the file a code
//! object names: `compile(s, '/etc/hostname', 'exec')` printed the host's
//! file), `_baserepl` (reads the host's stdin), `settrace`, `monitoring`,
//! `modules` (every native module, `marshal` included) and more.
//!
//! So [`install`] replaces, in the dict of every module in `sys.modules`, each
//! binding to one of these modules with a stand-in module of the same name
//! holding only the harmless attributes listed here ([`SYS`], [`IMP`],
//! [`THREAD`], [`WARNINGS`]), copied from the real one. The VM keeps the real
//! modules for itself (`vm.sys_module`); the stand-ins' dicts are restored
//! after every run like the other shared dicts (`crate::sandbox::Snapshot`).
//! Codec registration (`codecs.register`) is removed ([`REMOVED`]): the
//! registry is the VM's, not the run's, so a search function of one run
//! would run in the next.
//!
//! The interpreter is also marked finalizing: an exception in a finalizer
//! (`__del__`) or a weakref callback is then written as one line to the
//! program's stderr instead of through `sys.unraisablehook`, which imports
//! `sys` (refused: RustPython unwrapped the error and the run crashed, and
//! during a limit's unwinding a panic within a panic aborted the process) and
//! prints a traceback with source lines read from files. It also refuses new
//! threads (`PythonFinalizationError`).

use rustpython_vm::{
    builtins::{PyDictRef, PyModule},
    AsObject, PyObjectRef, PyResult, VirtualMachine,
};
use std::sync::atomic::Ordering;

/// `sys`: constants, structs of read-only facts, and functions that read.
pub const SYS: &[&str] = &[
    "maxsize",
    "maxunicode",
    "byteorder",
    "version",
    "version_info",
    "hexversion",
    "api_version",
    "float_info",
    "int_info",
    "hash_info",
    "float_repr_style",
    "flags",
    "getrecursionlimit",
    "getdefaultencoding",
    "getfilesystemencoding",
    "getsizeof",
    "getrefcount",
    "intern",
    "exc_info",
    "exception",
    "get_int_max_str_digits",
    "stdout",
    "stderr",
    "__stdout__",
    "__stderr__",
    "stdin",
];
/// `_imp`: questions only; nothing that creates or executes a module.
pub const IMP: &[&str] = &["is_builtin", "is_frozen"];
/// `_thread`: locks (the frozen bootstrap's own use), no thread creation.
pub const THREAD: &[&str] = &["allocate_lock", "get_ident", "RLock", "LockType", "error", "TIMEOUT_MAX"];
/// `_warnings`: `warn` (every warning is ignored); not the shared `filters` list.
pub const WARNINGS: &[&str] = &["warn"];

/// `sys.excepthook(type, value, traceback)`: `Type: message` to `sys.stderr`,
/// no traceback (whose printer reads files).
fn excepthook(_type: PyObjectRef, value: PyObjectRef, _traceback: PyObjectRef, vm: &VirtualMachine) -> PyResult<()> {
    let name = value.class().name().to_string();
    let message = value.str(vm).map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let line = if message.is_empty() { format!("{name}\n") } else { format!("{name}: {message}\n") };
    let stderr = vm.sys_module.get_attr("stderr", vm)?;
    vm.call_method(&stderr, "write", (line,))?;
    Ok(())
}

/// Names removed from modules a program reaches: codec registration would
/// outlive the run (the VM's codec registry is not per run), so a search
/// function of one run would run in the next.
pub const REMOVED: &[(&str, &[&str])] =
    &[("codecs", &["register", "register_error", "unregister"]), ("_codecs", &["register", "register_error", "unregister"])];

/// Replaces the reachable `sys`, `_imp`, `_thread` and `_warnings` with
/// stand-ins and marks the interpreter finalizing. Returns the stand-ins'
/// dicts (to be restored after every run).
pub fn install(vm: &VirtualMachine) -> Vec<PyDictRef> {
    vm.state.finalizing.store(true, Ordering::Release);
    let hook = vm.new_function("excepthook", excepthook);
    for name in ["excepthook", "__excepthook__"] {
        let _ = vm.sys_module.set_attr(name, hook.clone(), vm);
    }
    let Some(modules) = crate::sandbox::sys_modules(vm) else { return Vec::new() };
    let mut replaced: Vec<(PyObjectRef, PyObjectRef)> = Vec::new();
    let mut dicts = Vec::new();
    for (name, allowed) in [("sys", SYS), ("_imp", IMP), ("_thread", THREAD), ("_warnings", WARNINGS)] {
        let real: PyObjectRef = if name == "sys" {
            vm.sys_module.clone().into()
        } else {
            match modules.get_item(name, vm) {
                Ok(m) => m,
                Err(_) => continue,
            }
        };
        let dict = vm.ctx.new_dict();
        for attribute in ["__name__", "__doc__"].iter().chain(allowed) {
            if let Ok(value) = real.get_attr(*attribute, vm) {
                let _ = dict.set_item(*attribute, value, vm);
            }
        }
        let stand_in = vm.new_module(name, dict.clone(), None);
        dicts.push(dict);
        replaced.push((real, stand_in.into()));
    }
    for (module, names) in REMOVED {
        if let Some(dict) = modules.get_item(*module, vm).ok().and_then(|m| m.dict()) {
            for name in *names {
                let _ = dict.del_item(*name, vm);
            }
        }
    }
    for (_, module) in modules.items_vec() {
        let Some(module) = module.downcast_ref::<PyModule>() else { continue };
        let Some(dict) = module.as_object().dict() else { continue };
        for (key, value) in dict.items_vec() {
            if let Some((_, stand_in)) = replaced.iter().find(|(real, _)| real.is(&value)) {
                let _ = dict.set_item(&*key, stand_in.clone(), vm);
            }
        }
    }
    dicts
}
