//! Planted bugs (feature `planted-bugs`, for tests of the fuzzer only):
//! deliberately wrong runtime operators, chosen by `STAGECHECK_PLANT`, that
//! the fuzz loop must find (issue 5). The converter's planted bugs are in
//! `stagecheck_transformer::planted`. Never compiled into a normal build.

use rustpython_vm::{compiler::Mode, scope::Scope, VirtualMachine};

/// The runtime bugs, each replacing one operator of `stagecheck.ag` or
/// switching off part of `stagecheck.staging`.
pub const RUNTIME: &[(&str, &str)] = &[
    (
        // `and_` evaluates every operand, even after a false one.
        "and_evaluates_all",
        "def and_(*operands, test=False):\n    values = [op() for op in operands]\n    for v in values[:-1]:\n        if not v:\n            return False if test else v\n    return values[-1]\nag.and_ = and_\n",
    ),
    (
        // A chained comparison evaluates its middle operand twice.
        "compare_middle_twice",
        "_ops = ag.logical._COMPARISONS\ndef compare(left, *rest):\n    for i in range(0, len(rest), 2):\n        right = rest[i + 1]()\n        if i + 2 < len(rest):\n            rest[i + 1]()\n        result = _ops[rest[i]](left, right)\n        if i == len(rest) - 2 or not result:\n            return result\n        left = right\nag.compare = compare\n",
    ),
    (
        // The loop test runs once more after the loop ends.
        "while_test_once_more",
        "def while_stmt(test, body, get_state, set_state, symbol_names, opts):\n    while test():\n        body()\n    test()\nag.while_stmt = while_stmt\n",
    ),
    (
        // Trace guards on globals and builtins check nothing (issue 23): a
        // staged function reading a global rebound between calls reuses
        // its stale trace.
        "guards_skip_globals",
        "staging._Guards.planted_drop = 'global'\n",
    ),
    (
        // Every converted `if` takes the worker process down (abort): a
        // native crash the fuzz loop must save as a finding and survive.
        "worker_abort",
        "def if_stmt(*args, **kwargs):\n    abort()\nag.if_stmt = if_stmt\n",
    ),
];

/// Installs the runtime bug `STAGECHECK_PLANT` names, if it names one.
pub fn install(vm: &VirtualMachine) {
    let Ok(name) = std::env::var("STAGECHECK_PLANT") else { return };
    let Some((_, source)) = RUNTIME.iter().find(|(n, _)| *n == name) else { return };
    let scope = Scope::with_builtins(None, vm.ctx.new_dict(), vm);
    let ag = crate::sandbox::sys_modules(vm)
        .and_then(|m| m.get_item_opt("stagecheck.ag", vm).ok().flatten())
        .expect("the runtime is installed");
    scope.globals.set_item("ag", ag, vm).expect("a dict takes str keys");
    let staging = crate::sandbox::sys_modules(vm)
        .and_then(|m| m.get_item_opt("stagecheck.staging", vm).ok().flatten())
        .expect("the runtime is installed");
    scope.globals.set_item("staging", staging, vm).expect("a dict takes str keys");
    let abort = vm.new_function("abort", || -> () { std::process::abort() });
    scope.globals.set_item("abort", abort.into(), vm).expect("a dict takes str keys");
    let code = vm.compile(source, Mode::Exec, "<planted>".to_owned()).expect("planted bugs compile");
    vm.run_code_obj(code, scope).expect("planted bugs install");
}
