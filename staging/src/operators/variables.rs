//! Mirrors the `variables` converter: `ld` (Python:
//! `runtime/stagecheck/ag/variables.py`, which explains why converted code
//! needs it; `ldu_all` and `Undefined` stay there: only staged code reads
//! state through them).

use super::{global, positional, staged_impl, Global};
use rustpython_vm::builtins::{PyStr, PyType};
use rustpython_vm::function::FuncArgs;
use rustpython_vm::{AsObject, PyResult, VirtualMachine};

/// `ld(thunk, name)`: the local `name` of the enclosing converted function,
/// read through `thunk`; unbound, what the original raised
/// (UnboundLocalError, with the VM's own message, `variables._UNBOUND`),
/// where the nested function's read raised NameError.
pub(super) fn ld(args: FuncArgs, vm: &VirtualMachine) -> PyResult {
    let [thunk, name] = positional::<2>(args, "ld", vm)?;
    let value = match thunk.call((), vm) {
        Ok(value) => value,
        Err(e) if e.fast_isinstance(vm.ctx.exceptions.name_error) && !crate::planted::active_once("ld_keeps_name_error") => {
            let template =
                global(Global::Unbound, vm)?.ok_or_else(|| vm.new_runtime_error("stagecheck.ag.variables._UNBOUND is unbound"))?;
            let template = template.downcast_ref::<PyStr>().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
            let name = name.downcast_ref::<PyStr>().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
            let message = template.replace("stagecheck_probe_", &name);
            let error = vm.new_exception_msg(vm.ctx.exceptions.unbound_local_error.to_owned(), message.into());
            // `raise ... from None`
            error.set___cause__(None);
            return Err(error);
        }
        Err(e) => return Err(e),
    };
    // Only staged control flow leaves an `Undefined` in a variable.
    if let Some(undefined) = global(Global::Undefined, vm)? {
        if let Some(undefined) = undefined.downcast_ref::<PyType>() {
            if value.fast_isinstance(undefined) {
                staged_impl("undefined_read", vec![name, value.clone()], vm)?;
            }
        }
    }
    Ok(value)
}
