//! Planted bugs (feature `planted-bugs`, for tests of the fuzzer only):
//! deliberately wrong runtime operators (`stagecheck.ag`), staging runtime
//! (`stagecheck.staging`), chosen by `STAGECHECK_PLANT`, that
//! the fuzz loop must find. Each is described in the
//! catalogue, `stagecheck::planted::CATALOGUE`. The converter's planted bugs
//! are in `stagecheck_transformer::planted`, the graph executor's in
//! `stagecheck_graph::planted`. Never compiled into a normal build: without
//! the feature [`active`] is a constant `false` and nothing is installed.
//!
//! A runtime bug is a [`Slip`]: one function of the runtime's Python source,
//! with one piece of text replaced, defined again in its module and put
//! everywhere the original was (the module, re-exports such as `stagecheck.ag`,
//! the staged implementations `stagecheck.ag.dispatch` holds). The slip is
//! applied to the source as it is now, so it follows the runtime's edits; a
//! slip whose text is gone fails the install loudly.

/// Whether the planted bug `name` is active (the native operators and the executor's rendering ask).
pub use stagecheck_graph::planted::active;
/// The graph executor's planted bugs (for the catalogue: the root crate
/// reaches the graph crate only through this one).
pub use stagecheck_graph::planted::NAMES as GRAPH;

/// One line (or two) of a runtime function, written wrong.
pub struct Slip {
    pub name: &'static str,
    /// The module whose source holds the function (`stagecheck.ag.logical`).
    pub module: &'static str,
    /// The function, or `Class.method`.
    pub function: &'static str,
    /// The text replaced, exactly once in the function.
    pub old: &'static str,
    pub new: &'static str,
}

/// The runtime's planted slips.
pub const SLIPS: &[Slip] = &[
    Slip {
        name: "tanh_grad_one_minus_y",
        module: "stagecheck.gradients.rules",
        function: "_tanh",
        old: "g * (1 - y * y)",
        new: "g * (1 - y)",
    },
    Slip {
        name: "assert_msg_not_called",
        module: "stagecheck.ag.exceptions",
        function: "assert_stmt",
        old: "raise AssertionError(expression2())",
        new: "raise AssertionError(expression2)",
    },
    Slip {
        name: "cond_branch_state_not_reset",
        module: "stagecheck.staging.control_flow",
        function: "if_stmt",
        old: "                set_state(tuple(init))\n                fn()",
        new: "                if fn is body:\n                    set_state(tuple(init))\n                fn()",
    },
    Slip {
        name: "loop_body_returns_initial_state",
        module: "stagecheck.staging.control_flow",
        function: "_loop",
        old: "outs = list(extra) + [state[i] for i in slots]",
        new: "outs = list(extra) + [init[i] for i in slots]",
    },
    Slip {
        // Trace guards on globals and builtins check nothing: a
        // staged function reading a global rebound between calls reuses
        // its stale trace.
        name: "guards_skip_globals",
        module: "stagecheck.staging.guards",
        function: "_Guards._spec",
        old: "        self.specs.append((access, parent, key, check, expected, text))",
        new: "        if access == 'global' and check != 'tensor':\n            check, expected = 'any', None\n        self.specs.append((access, parent, key, check, expected, text))",
    },
    Slip {
        name: "captured_global_baked_in",
        module: "stagecheck.staging.functions",
        function: "Function._trace",
        old: "                    holder[k] = s\n",
        new: "                    pass\n",
    },
];

/// The runtime bugs written as whole replacements of one operator of
/// `stagecheck.ag` (the Python source run with `ag` and `abort` bound).
pub const RUNTIME: &[(&str, &str)] = &[
    (
        // `and_` evaluates every operand, even after a false one.
        "and_evaluates_all",
        "def and_(first, *operands, test=False):\n    values = [first] + [op() for op in operands]\n    for v in values[:-1]:\n        if not v:\n            return False if test else v\n    return values[-1]\nag.and_ = and_\n",
    ),
    (
        // A chained comparison evaluates its middle operand twice.
        "compare_middle_twice",
        "_ops = {'==': lambda a, b: a == b, '!=': lambda a, b: a != b, '<': lambda a, b: a < b, '<=': lambda a, b: a <= b, '>': lambda a, b: a > b, '>=': lambda a, b: a >= b, 'is': lambda a, b: a is b, 'is not': lambda a, b: a is not b, 'in': lambda a, b: a in b, 'not in': lambda a, b: a not in b}\ndef compare(left, *rest):\n    for i in range(0, len(rest), 2):\n        right = rest[i + 1]()\n        if i + 2 < len(rest):\n            rest[i + 1]()\n        result = _ops[rest[i]](left, right)\n        if i == len(rest) - 2 or not result:\n            return result\n        left = right\nag.compare = compare\n",
    ),
    (
        // The loop test runs once more after the loop ends.
        "while_test_once_more",
        "def while_stmt(test, body, get_state, set_state, symbol_names, opts):\n    while test():\n        body()\n    test()\nag.while_stmt = while_stmt\n",
    ),
    (
        // Every converted `if` takes the worker process down (abort): a
        // native crash the fuzz loop must save as a finding and survive.
        "worker_abort",
        "def if_stmt(*args, **kwargs):\n    abort()\nag.if_stmt = if_stmt\n",
    ),
];

/// The native operators' planted bugs (`operators/`, checked with [`active_once`]).
pub const NATIVE: &[&str] = &["or_returns_bool", "ld_keeps_name_error"];

/// [`active`] with the environment read once, for the checks asked on
/// every operator call or every item the restore compares.
#[inline(always)]
pub fn active_once(name: &str) -> bool {
    static PLANT: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    cfg!(feature = "planted-bugs") && PLANT.get_or_init(|| std::env::var("STAGECHECK_PLANT").ok()).as_deref() == Some(name)
}

/// Every planted bug of this crate: the slips, the replacements, the native operators'.
pub fn names() -> impl Iterator<Item = &'static str> {
    SLIPS.iter().map(|s| s.name).chain(RUNTIME.iter().map(|(n, _)| *n)).chain(NATIVE.iter().copied())
}

/// `slip.function`'s definition in `source` with the slip applied, dedented
/// to the top level (a method's too), or why not.
pub fn slipped_definition(slip: &Slip, source: &str) -> Result<String, String> {
    let path: Vec<&str> = slip.function.split('.').collect();
    let indent = "    ".repeat(path.len() - 1);
    let header = format!("{indent}def {}(", path[path.len() - 1]);
    let lines: Vec<&str> = source.lines().collect();
    let start = lines.iter().position(|l| l.starts_with(&header)).ok_or(format!("{}: no `{header}` in {}", slip.name, slip.module))?;
    let body_indent = format!("{indent} ");
    let end =
        lines[start + 1..].iter().position(|l| !l.trim().is_empty() && !l.starts_with(&body_indent)).map_or(lines.len(), |n| start + 1 + n);
    let block: Vec<&str> = lines[start..end].iter().map(|l| l.get(indent.len()..).unwrap_or("")).collect();
    let block = block.join("\n") + "\n";
    let old = dedent(slip.old, indent.len());
    match block.matches(&old).count() {
        1 => Ok(block.replacen(&old, &dedent(slip.new, indent.len()), 1)),
        n => Err(format!("{}: the slipped text is in {} {n} times, not once", slip.name, slip.function)),
    }
}

fn dedent(text: &str, by: usize) -> String {
    text.split('\n').map(|l| l.get(by..).filter(|_| l.starts_with(&" ".repeat(by))).unwrap_or(l)).collect::<Vec<_>>().join("\n")
}

/// Defines the slipped function in its module's globals and puts it in place
/// of the original wherever the runtime holds it: module dicts of the
/// package (re-exports), the owner class, and closures of the staged
/// implementations registered with `stagecheck.ag.dispatch`.
#[cfg(feature = "planted-bugs")]
const REBIND: &str = "\
_mod = modules[module]
_ns = {}
exec(definition, _mod.__dict__, _ns)
_owner = _mod
for _part in function.split('.')[:-1]:
    _owner = getattr(_owner, _part)
_name = function.split('.')[-1]
_old = _owner.__dict__[_name]
_new = _ns[_name]
setattr(_owner, _name, _new)
for _m in list(modules.values()):
    if getattr(_m, '__name__', '').startswith('stagecheck'):
        for _k, _v in list(_m.__dict__.items()):
            if _v is _old:
                setattr(_m, _k, _new)
for _f in modules['stagecheck.ag.dispatch']._impls.values():
    for _c in getattr(_f, '__closure__', None) or ():
        if _c.cell_contents is _old:
            _c.cell_contents = _new
";

/// Installs the runtime bug `STAGECHECK_PLANT` names, if it names one.
#[cfg(feature = "planted-bugs")]
pub fn install(vm: &rustpython_vm::VirtualMachine) {
    use rustpython_vm::{compiler::Mode, scope::Scope, AsObject};
    let Ok(name) = std::env::var("STAGECHECK_PLANT") else { return };
    let scope = Scope::with_builtins(None, vm.ctx.new_dict(), vm);
    let set = |key: &str, value: rustpython_vm::PyObjectRef| scope.globals.set_item(key, value, vm).expect("a dict takes str keys");
    let source = if let Some(slip) = SLIPS.iter().find(|s| s.name == name) {
        let module_source = crate::runtime::MODULES
            .iter()
            .find(|(m, _)| *m == slip.module)
            .unwrap_or_else(|| panic!("{}: no runtime module {}", slip.name, slip.module))
            .1;
        let definition = slipped_definition(slip, module_source).unwrap_or_else(|e| panic!("planted bug {e}"));
        set("module", vm.ctx.new_str(slip.module).into());
        set("function", vm.ctx.new_str(slip.function).into());
        set("definition", vm.ctx.new_str(definition).into());
        set("modules", crate::host::sys_modules(vm).expect("sys.modules is a dict").into());
        REBIND
    } else if let Some((_, source)) = RUNTIME.iter().find(|(n, _)| *n == name) {
        let module =
            |m: &str| crate::host::sys_modules(vm).and_then(|d| d.get_item_opt(m, vm).ok().flatten()).expect("the runtime is installed");
        set("ag", module("stagecheck.ag"));
        set("abort", vm.new_function("abort", || -> () { std::process::abort() }).into());
        source
    } else {
        return;
    };
    let code = vm.compile(source, Mode::Exec, "<planted>".to_owned()).expect("planted bugs compile");
    if let Err(e) = vm.run_code_obj(code, scope) {
        let text = e.as_object().str(vm).map(|s| s.to_string()).unwrap_or_default();
        panic!("planted bug {name} does not install: {}: {text}", e.class().name());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every slip's text is in its function, once, as the runtime is now.
    #[test]
    fn every_slip_applies_to_the_runtime_source() {
        for slip in SLIPS {
            let source = crate::runtime::MODULES.iter().find(|(m, _)| *m == slip.module).expect("module").1;
            let definition = slipped_definition(slip, source).unwrap_or_else(|e| panic!("{e}"));
            assert!(definition.starts_with("def "), "{definition}");
        }
    }
}
