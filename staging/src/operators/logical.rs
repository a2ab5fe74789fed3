//! Mirrors the `logical_expressions` converter: `and_`, `or_`, `not_`,
//! chained comparisons (Python: `runtime/stagecheck/ag/logical.py`).
//!
//! The first operand arrives as a value (Python always evaluates it), the
//! others as functions, evaluated lazily, left to right, each at most once,
//! each truth test done once, as Python does. With `test=True`
//! (the result is itself only tested for truth: an `if` or `while` test) a
//! short-circuiting operand, already tested, is returned as a bool, so that
//! the statement's own test does not call its `__bool__` a second time.

use super::{staged, staged_impl, truth, with_test};
use rustpython_vm::builtins::PyStr;
use rustpython_vm::function::FuncArgs;
use rustpython_vm::types::PyComparisonOp;
use rustpython_vm::{AsObject, PyObjectRef, PyResult, VirtualMachine};

/// `and_(first, *thunks, test=False)`.
pub(super) fn and_(args: FuncArgs, vm: &VirtualMachine) -> PyResult {
    and_or(args, true, vm)
}

/// `or_(first, *thunks, test=False)`.
pub(super) fn or_(args: FuncArgs, vm: &VirtualMachine) -> PyResult {
    and_or(args, false, vm)
}

fn and_or(args: FuncArgs, is_and: bool, vm: &VirtualMachine) -> PyResult {
    let name = if is_and { "and_" } else { "or_" };
    let (operands, test) = with_test(args, name, vm)?;
    let Some((last, firsts)) = operands.split_last() else {
        return Err(vm.new_index_error("tuple index out of range"));
    };
    let as_test = truth(&test, vm)?;
    for (i, operand) in firsts.iter().enumerate() {
        let value = if i == 0 { operand.clone() } else { operand.call((), vm)? };
        if staged(&value, vm)? {
            let rest = vm.ctx.new_tuple(operands[i + 1..].to_vec());
            return staged_impl(name, vec![value, rest.into(), test], vm);
        }
        // `and` stops at a false operand, `or` at a true one.
        if truth(&value, vm)? != is_and {
            if crate::planted::active_once("or_returns_bool") && !is_and {
                return Ok(vm.ctx.new_bool(true).into());
            }
            return Ok(if as_test { vm.ctx.new_bool(!is_and).into() } else { value });
        }
    }
    if firsts.is_empty() {
        Ok(last.clone())
    } else {
        last.call((), vm)
    }
}

/// `not_(value, test=False)`.
pub(super) fn not_(args: FuncArgs, vm: &VirtualMachine) -> PyResult {
    let (values, test) = with_test(args, "not_", vm)?;
    let [value] = <[PyObjectRef; 1]>::try_from(values).map_err(|_| vm.new_type_error("not_() takes 1 positional argument"))?;
    if staged(&value, vm)? {
        return staged_impl("not_", vec![value, test], vm);
    }
    Ok(vm.ctx.new_bool(!truth(&value, vm)?).into())
}

/// `compare(a, '<', lambda: b, '<', lambda: c)` for `a < b < c`: every
/// operand evaluated once, the chain stopping at its first false link.
pub(super) fn compare(args: FuncArgs, vm: &VirtualMachine) -> PyResult {
    if !args.kwargs.is_empty() {
        return Err(vm.new_type_error("compare() takes no keyword arguments"));
    }
    let mut all = args.args.into_iter();
    let mut left = all.next().ok_or_else(|| vm.new_type_error("compare() needs a left operand"))?;
    let rest: Vec<PyObjectRef> = all.collect();
    if rest.len() < 2 || !rest.len().is_multiple_of(2) {
        return Err(vm.new_type_error("compare() takes operator and operand pairs"));
    }
    let mut i = 0;
    loop {
        let right = rest[i + 1].call((), vm)?;
        let op = rest[i].downcast_ref::<PyStr>().ok_or_else(|| vm.new_type_error("compare(): an operator is a str"))?;
        let result = apply(&op.to_string_lossy(), &left, &right, vm)?;
        if i == rest.len() - 2 {
            return Ok(result);
        }
        if staged(&result, vm)? {
            let tail = vm.ctx.new_tuple(rest[i + 2..].to_vec());
            return staged_impl("compare", vec![result, right, tail.into()], vm);
        }
        if !truth(&result, vm)? {
            return Ok(result);
        }
        left = right;
        i += 2;
    }
}

/// `left <op> right`, as the comparison's bytecode computes it.
fn apply(op: &str, left: &PyObjectRef, right: &PyObjectRef, vm: &VirtualMachine) -> PyResult {
    let rich = |op| left.clone().rich_compare(right.clone(), op, vm);
    let bool_ = |b: bool| -> PyResult { Ok(vm.ctx.new_bool(b).into()) };
    match op {
        "==" => rich(PyComparisonOp::Eq),
        "!=" => rich(PyComparisonOp::Ne),
        "<" => rich(PyComparisonOp::Lt),
        "<=" => rich(PyComparisonOp::Le),
        ">" => rich(PyComparisonOp::Gt),
        ">=" => rich(PyComparisonOp::Ge),
        "is" => bool_(left.is(right)),
        "is not" => bool_(!left.is(right)),
        "in" => bool_(vm._contains(right, left)?),
        "not in" => bool_(!vm._contains(right, left)?),
        other => Err(vm.new_key_error(vm.ctx.new_str(other).into())),
    }
}
