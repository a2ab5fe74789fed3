//! The `stagecheck` runtime as programs see it: imports, a few operators,
//! errors reported at the program's line, and isolation between runs.

use stagecheck_executor::{Config, Outcome, Terminal, ThreadWorker};
use stagecheck_staging::runtime;

fn run(src: &str) -> Outcome {
    ThreadWorker::new(Config::default()).run(src, "prog.py").expect("compiles")
}

/// Runs `src` on a fresh worker; it must complete. Its stdout.
fn stdout(src: &str) -> String {
    stdout_of(&mut ThreadWorker::new(Config::default()), src)
}

/// Runs `src`, which must complete, and returns its stdout.
fn stdout_of(w: &mut ThreadWorker, src: &str) -> String {
    let out = w.run(src, "prog.py").expect("compiles");
    assert_eq!(out.terminal, Terminal::Completed, "{src}\nprinted: {}", out.stdout);
    out.stdout
}

/// (type, message, line) of a run that must raise.
fn raised(out: &Outcome) -> (&str, &str, Option<u32>) {
    match &out.terminal {
        Terminal::Raised { exc_type, message, line, .. } => (exc_type, message, *line),
        other => panic!("expected an exception, got {other}"),
    }
}

#[test]
fn every_import_form_resolves_to_the_runtime_modules() {
    let out = stdout(
        "import stagecheck as sc
import stagecheck
import stagecheck.ag
import stagecheck.ag as x
import stagecheck.ag.control_flow as cf
from stagecheck import ag
from stagecheck import ag as ag__
from stagecheck.ag import if_stmt
from stagecheck.ag.dispatch import register
print(sc is stagecheck, x is ag is ag__ is sc.ag, cf is sc.ag.control_flow)
print(if_stmt is ag__.if_stmt is cf.if_stmt, register is ag__.dispatch.register)
print(sc.__name__, ag__.__name__, cf.__name__)
print(__import__('stagecheck.ag').__name__, __import__('stagecheck.ag', None, None, ['x']).__name__)
",
    );
    assert_eq!(out, "True True True\nTrue True\nstagecheck stagecheck.ag stagecheck.ag.control_flow\nstagecheck stagecheck.ag\n");
}

#[test]
fn unknown_runtime_modules_raise_module_not_found() {
    for (src, message) in [
        ("import stagecheck.nope", "No module named 'stagecheck.nope'"),
        ("import stagecheck.ag.nope as n", "No module named 'stagecheck.ag.nope'"),
        ("from stagecheck.nope import x", "No module named 'stagecheck.nope'"),
    ] {
        let out = run(src);
        assert_eq!(raised(&out), ("ModuleNotFoundError", message, Some(1)), "{src}");
    }
    let out = run("from stagecheck import nope");
    let (exc_type, message, _) = raised(&out);
    assert_eq!(exc_type, "ImportError");
    assert!(message.starts_with("cannot import name 'nope' from 'stagecheck'"), "{message}");
    // `stagecheck` is matched by its dotted name, not as a prefix.
    assert_eq!(raised(&run("import stagecheckx")).0, "ImportError");
    let out = run("try:\n    import stagecheck.nope\nexcept ImportError as e:\n    print(e.name)");
    assert_eq!(out.stdout, "stagecheck.nope\n");
}

#[test]
fn function_calls_the_python_function_outside_the_staged_mode() {
    // Runs here are in the original mode: `sc.function` wraps, never traces.
    let out = stdout(
        "import stagecheck as sc
def f(x):
    return x + 1
g = sc.function(f)
@sc.function(jit=True)
def h():
    return 2
print(g(1), g.python_function is f, g.__name__, h(), h.options, g._cache)
",
    );
    assert_eq!(out, "2 True f 2 {'jit': True} {}\n");
}

#[test]
fn operators_run_plain_values_as_python_does() {
    let out = stdout(
        "from stagecheck import ag as ag__
def body():
    print('body')
def orelse():
    print('orelse')
ag__.if_stmt(True, body, orelse, None, None, (), 0)
ag__.if_stmt([], body, orelse, None, None, (), 0)
print(ag__.and_(0, lambda: 1 / 0), ag__.or_('', lambda: 'b'))
print(ag__.compare(1, '<', lambda: 2, '<', lambda: 3), ag__.get_item([4, 5], 1))
",
    );
    assert_eq!(out, "body\norelse\n0 b\nTrue 5\n");
}

#[test]
fn ld_of_an_unbound_local_raises_what_python_raises() {
    let plain = run("def f():\n    y = x\n    x = 1\nf()\n");
    let converted = run("from stagecheck import ag as ag__\ndef f():\n    y = ag__.ld(lambda: x, 'x')\n    x = 1\nf()\n");
    let (plain_type, plain_message, _) = raised(&plain);
    assert_eq!(plain_type, "UnboundLocalError");
    let (exc_type, message, line) = raised(&converted);
    assert_eq!((exc_type, message), (plain_type, plain_message));
    assert_eq!(line, Some(3));
}

#[test]
fn an_error_inside_an_operator_is_reported_at_the_program_line() {
    let out = run("from stagecheck import ag as ag__\nx = 1\n\ny = []\nag__.get_item(y, 3)\n");
    let (exc_type, message, line) = raised(&out);
    assert_eq!((exc_type, message, line), ("IndexError", "list index out of range", Some(5)));
    // A native operator adds no frame: the innermost is the program's.
    let Terminal::Raised { traceback, .. } = &out.terminal else { unreachable!() };
    assert_eq!(traceback.last().map(|f| (f.file.as_str(), f.line)), Some(("prog.py", 5)));
    // One written in Python (`assert_stmt`) has a frame under the runtime's prefix.
    let out = run("from stagecheck import ag as ag__

ag__.assert_stmt(0 > 1, lambda: 'no')
");
    let (exc_type, message, line) = raised(&out);
    assert_eq!((exc_type, message, line), ("AssertionError", "no", Some(3)));
    let Terminal::Raised { traceback, .. } = &out.terminal else { unreachable!() };
    let innermost = traceback.last().expect("frames");
    assert_eq!(innermost.file, runtime::file_name("stagecheck.ag.exceptions"));
    assert_eq!(innermost.file, "<runtime>/stagecheck/ag/exceptions.py");
    assert_eq!(innermost.function, "assert_stmt");
}

#[test]
fn changes_to_runtime_modules_do_not_leak_into_the_next_run() {
    let mut w = ThreadWorker::new(Config::default());
    stdout_of(
        &mut w,
        "import stagecheck as sc
sc.x = 1
del sc.function
sc.ag.if_stmt = None
del sc.ag.control_flow.if_stmt
sc.ag.dispatch.staged_types = (int,)
",
    );
    let out = stdout_of(
        &mut w,
        "import stagecheck as sc
from stagecheck.ag import if_stmt
print(hasattr(sc, 'x'), hasattr(sc, 'function'), if_stmt is sc.ag.control_flow.if_stmt)
print(isinstance(1, sc.ag.dispatch.staged_types))
",
    );
    assert_eq!(out, "False True True\nFalse\n");
}

#[test]
fn changes_to_runtime_classes_do_not_leak_into_the_next_run() {
    let mut w = ThreadWorker::new(Config::default());
    stdout_of(
        &mut w,
        "import stagecheck as sc
from stagecheck import staging
sc.Tensor.__add__ = lambda a, b: 42
sc.Tensor.extra = 1
del staging.Function.__get__
",
    );
    let out = stdout_of(
        &mut w,
        "import stagecheck as sc
from stagecheck import staging
print(sc.constant(1) + sc.constant(2), hasattr(sc.Tensor, 'extra'), hasattr(staging.Function, '__get__'))
",
    );
    assert_eq!(out, "sc.Tensor(3, shape=(), dtype=int32) False True\n");
}

#[test]
fn runtime_modules_stay_registered_across_runs() {
    let mut w = ThreadWorker::new(Config::default());
    let walk_to_sys = "def walk(c, seen):\n    for s in type.__subclasses__(c):\n        if s not in seen:\n            seen.add(s)\n            walk(s, seen)\n    return seen\nbi = [c for c in walk(object, set()) if repr(c) == \"<class '_frozen_importlib.BuiltinImporter'>\"][0]\nsys = bi.find_spec.__func__.__globals__['sys']\n";
    // `sys.modules` is not on the stand-in's allow-list (`proxies.rs`); were
    // it reached, the snapshot would restore it.
    let out = w.run(&format!("{walk_to_sys}sys.modules['stagecheck'] = 1\ndel sys.modules['stagecheck.ag']"), "<p>").unwrap();
    assert!(out.terminal.to_string().contains("has no attribute 'modules'"), "{}", out.terminal);
    for _ in 0..2 {
        let out = stdout_of(&mut w, "import stagecheck as sc\nimport stagecheck.ag as ag\nprint(sc.__name__, ag.__name__)");
        assert_eq!(out, "stagecheck stagecheck.ag\n");
    }
}

/// `ldu_all` (a staged statement's `get_state`) reads each name as its own
/// `lambda: name` would: a local's cell, else a global, else a builtin; an
/// unbound one as `Undefined(name)`; every name bound: the thunk's tuple.
#[test]
fn ldu_all_reads_each_name_as_a_thunk_of_its_own_would() {
    let out = stdout(
        "from stagecheck import ag as ag__
g = 'global'
def f(flag):
    a = 1
    if flag:
        b = 2
    return ag__.ldu_all(lambda: (a, b, g, len, nowhere), ('a', 'b', 'g', 'len', 'nowhere'))
def bound():
    a = 1
    return ag__.ldu_all(lambda: (a, g), ('a', 'g'))
print(f(True))
print(f(False))
print(bound())
nowhere = 'bound later'
print(f(False)[4])
",
    );
    assert_eq!(
        out,
        "(1, 2, 'global', <built-in function len>, <undefined nowhere>)\n\
         (1, <undefined b>, 'global', <built-in function len>, <undefined nowhere>)\n\
         (1, 'global')\n\
         bound later\n"
    );
}
