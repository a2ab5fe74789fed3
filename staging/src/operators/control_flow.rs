//! Mirrors the `control_flow` converter: `if_stmt`, `while_stmt`, `for_stmt`
//! (Python: `runtime/stagecheck/ag/control_flow.py`, which documents them).
//!
//! The bodies are functions nested in the converted function, reaching its
//! variables through `nonlocal`/`global`: calling them is running the
//! original statements. `get_state`/`set_state`/`symbol_names` are passed
//! on to a staged implementation, the only one that uses them.

use super::{positional, staged, staged_impl, truth};
use rustpython_vm::function::FuncArgs;
use rustpython_vm::protocol::PyIterReturn;
use rustpython_vm::{PyResult, VirtualMachine};

/// `if_stmt(cond, body, orelse, get_state, set_state, symbol_names, nouts)`;
/// `orelse` is None for an `if` without `else`.
pub(super) fn if_stmt(args: FuncArgs, vm: &VirtualMachine) -> PyResult {
    let all = positional::<7>(args, "if_stmt", vm)?;
    let [cond, body, orelse, ..] = &all;
    if staged(cond, vm)? {
        return staged_impl("if_stmt", all.to_vec(), vm);
    }
    if truth(cond, vm)? {
        body.call((), vm)?;
    } else if !vm.is_none(orelse) {
        orelse.call((), vm)?;
    }
    Ok(vm.ctx.none())
}

/// `while_stmt(test, body, get_state, set_state, symbol_names, opts)`:
/// `test` is called before every iteration, as Python evaluates the test.
/// A staged test hands the loop to the staged implementation, called as
/// `(cond, test, body, get_state, set_state, symbol_names, opts)`.
pub(super) fn while_stmt(args: FuncArgs, vm: &VirtualMachine) -> PyResult {
    let all = positional::<6>(args, "while_stmt", vm)?;
    let [test, body, ..] = &all;
    loop {
        let cond = test.call((), vm)?;
        if staged(&cond, vm)? {
            let mut rest = vec![cond];
            rest.extend(all.iter().cloned());
            return staged_impl("while_stmt", rest, vm);
        }
        if !truth(&cond, vm)? {
            return Ok(vm.ctx.none());
        }
        body.call((), vm)?;
    }
}

/// `for_stmt(iter_, extra_test, body, get_state, set_state, symbol_names, opts)`:
/// `extra_test` (or None) stops the loop after a lowered break or return,
/// before the next item is taken from the iterator, as Python's `break` does.
pub(super) fn for_stmt(args: FuncArgs, vm: &VirtualMachine) -> PyResult {
    let all = positional::<7>(args, "for_stmt", vm)?;
    let [iterable, extra_test, body, ..] = &all;
    if staged(iterable, vm)? {
        return staged_impl("for_stmt", all.to_vec(), vm);
    }
    let extra_test = (!vm.is_none(extra_test)).then_some(extra_test);
    let iterator = iterable.get_iter(vm)?;
    loop {
        let item = match iterator.next(vm)? {
            PyIterReturn::Return(item) => item,
            PyIterReturn::StopIteration(_) => return Ok(vm.ctx.none()),
        };
        body.call((item,), vm)?;
        if let Some(test) = extra_test {
            if !truth(&*test.call((), vm)?, vm)? {
                return Ok(vm.ctx.none());
            }
        }
    }
}
