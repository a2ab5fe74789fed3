//! Mirrors the `conditional_expressions`, `slices` and `call_trees`
//! converters: `if_exp`, `get_item`, `set_item`, `converted_call` (Python:
//! `runtime/stagecheck/ag/{conditional_expressions,slices,call_trees}.py`).

use super::{global, positional, staged, staged_impl, truth, Global};
use rustpython_vm::builtins::PyDict;
use rustpython_vm::function::FuncArgs;
use rustpython_vm::{AsObject, PyResult, VirtualMachine};

/// `if_exp(cond, if_true, if_false, expr_repr)`: one branch's thunk called.
pub(super) fn if_exp(args: FuncArgs, vm: &VirtualMachine) -> PyResult {
    let all = positional::<4>(args, "if_exp", vm)?;
    let [cond, if_true, if_false, _] = &all;
    if staged(cond, vm)? {
        return staged_impl("if_exp", all.to_vec(), vm);
    }
    if truth(cond, vm)? {
        if_true.call((), vm)
    } else {
        if_false.call((), vm)
    }
}

/// `get_item(target, i)`: `target[i]`.
pub(super) fn get_item(args: FuncArgs, vm: &VirtualMachine) -> PyResult {
    let all = positional::<2>(args, "get_item", vm)?;
    let [target, i] = &all;
    if staged(target, vm)? {
        return staged_impl("get_item", all.to_vec(), vm);
    }
    target.get_item(&**i, vm)
}

/// `set_item(target, key, value)`: `target[key] = value`. Converted code
/// passes them by keyword, in Python's evaluation order (value, target, key).
pub(super) fn set_item(mut args: FuncArgs, vm: &VirtualMachine) -> PyResult {
    let mut take = |name: &str, position: usize| {
        args.kwargs
            .swap_remove(name)
            .or_else(|| args.args.get(position).cloned())
            .ok_or_else(|| vm.new_type_error(format!("set_item() missing required argument '{name}'")))
    };
    let (target, key, value) = (take("target", 0)?, take("key", 1)?, take("value", 2)?);
    if staged(&target, vm)? {
        return staged_impl("set_item", vec![target, key, value], vm);
    }
    target.set_item(&*key, value, vm)?;
    Ok(vm.ctx.none())
}

/// `converted_call(f)`: `f`, or the overload of a builtin (`print`, `len`,
/// `range`...) the staging runtime registered (`call_trees._overloads`).
/// `dispatch.call_check`, when set (while staged control flow is traced),
/// sees every callee first. Only builtin functions and classes are looked
/// up: their hashes are identities, so no user code runs here.
pub(super) fn converted_call(args: FuncArgs, vm: &VirtualMachine) -> PyResult {
    let [f] = positional::<1>(args, "converted_call", vm)?;
    if let Some(check) = global(Global::CallCheck, vm)? {
        if !vm.is_none(&check) {
            check.call((f.clone(),), vm)?;
        }
    }
    let class = f.class();
    if class.is(vm.ctx.types.builtin_function_or_method_type) || class.is(vm.ctx.types.type_type) {
        if let Some(overloads) = global(Global::Overloads, vm)? {
            if let Some(overloads) = overloads.downcast_ref::<PyDict>() {
                if overloads.__len__() > 0 {
                    return Ok(overloads.get_item_opt(&*f, vm)?.unwrap_or(f));
                }
            }
        }
    }
    Ok(f)
}
