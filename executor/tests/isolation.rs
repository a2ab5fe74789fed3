//! Runs on a reused interpreter see nothing of earlier runs.

use stagecheck_executor::{Config, Terminal, ThreadWorker, Value};

fn global<'a>(out: &'a stagecheck_executor::Outcome, name: &str) -> Option<&'a Value> {
    out.globals.iter().find(|(k, _)| k == name).map(|(_, v)| v)
}

#[test]
fn globals_and_stdout_do_not_leak_between_runs() {
    let mut w = ThreadWorker::new(Config::default());
    let a = w.run("secret = 41\nprint('first run')", "<a>").unwrap();
    assert_eq!(a.stdout, "first run\n");
    let b = w.run("print(secret)", "<b>").unwrap();
    assert_eq!(b.stdout, "");
    match b.terminal {
        Terminal::Raised { exc_type, message, line, .. } => {
            assert_eq!(exc_type, "NameError");
            assert_eq!(message, "name 'secret' is not defined");
            assert_eq!(line, Some(1));
        }
        other => panic!("{other}"),
    }
    assert!(b.globals.is_empty());
}

#[test]
fn rebound_builtins_are_restored() {
    let mut w = ThreadWorker::new(Config::default());
    w.run("__builtins__.len = lambda x: 42\n__builtins__.print = None\ndel __builtins__.abs", "<a>").unwrap();
    let b = w.run("n = len([1, 2])\nm = abs(-3)\nprint(n, m)", "<b>").unwrap();
    assert_eq!(b.terminal, Terminal::Completed);
    assert_eq!(b.stdout, "2 3\n");
}

#[test]
fn module_state_is_fresh_per_run() {
    let mut w = ThreadWorker::new(Config::default());
    w.run("import math\nmath.pi = 3\nmath.extra = 1", "<a>").unwrap();
    let b = w.run("import math\np = math.pi\nhas = hasattr(math, 'extra')", "<b>").unwrap();
    assert_eq!(global(&b, "p"), Some(&Value::Float(std::f64::consts::PI.to_bits())));
    assert_eq!(global(&b, "has"), Some(&Value::Bool(false)));
}

#[test]
fn a_diverged_run_leaves_nothing_behind() {
    let mut w = ThreadWorker::new(Config { time_limit: std::time::Duration::from_millis(200), ..Config::default() });
    let a = w.run("leak = 1\nprint('x')\nwhile True:\n    pass", "<a>").unwrap();
    assert!(matches!(a.terminal, Terminal::Diverged { .. }));
    assert_eq!(a.stdout, "x\n");
    let b = w.run("print('leak' in globals())", "<b>").unwrap();
    assert_eq!(b.stdout, "False\n");
}

#[test]
fn sys_reached_through_frozen_globals_is_restored() {
    let mut w = ThreadWorker::new(Config::default());
    let walk = "def walk(c, seen):\n    for s in type.__subclasses__(c):\n        if s not in seen:\n            seen.add(s)\n            walk(s, seen)\n    return seen\nbi = [c for c in walk(object, set()) if repr(c) == \"<class '_frozen_importlib.BuiltinImporter'>\"][0]\nsys = bi.find_spec.__func__.__globals__['sys']\n";
    let a = w.run(&format!("{walk}sys.stdout = None\nsys.marker = 1"), "<a>").unwrap();
    assert_eq!(a.terminal, Terminal::Completed);
    let b = w.run(&format!("{walk}print(hasattr(sys, 'marker'))"), "<b>").unwrap();
    assert_eq!(b.terminal, Terminal::Completed);
    assert_eq!(b.stdout, "False\n");
}

/// Runs that rebind, add and delete shared state (a runtime module's global,
/// builtins, a class attribute, a function's defaults and attributes) are
/// undone by the restore, and the leak check after it finds nothing left:
/// no run reports `leaks`, and the next run sees the state as built.
#[test]
fn the_leak_check_passes_every_restored_change() {
    let mut w = ThreadWorker::new(Config::default());
    let changes = "\
import stagecheck as sc
import stagecheck.gradients.check as g
g._GRADCHECK = 1
g.extra = 2
__builtins__.len = None
del __builtins__.abs
sc.Tensor.__add__ = lambda a, b: 0
g._gradcheck_on.__defaults__ = (1,)
g._gradcheck_on.marker = 3
import math
";
    for _ in 0..3 {
        let out = w.run(changes, "<changes>").unwrap();
        assert_eq!(out.terminal, Terminal::Completed, "{out}");
        assert!(out.leaks.is_empty(), "{:?}", out.leaks);
    }
    let after =
        w.run("import stagecheck.gradients.check as g\nprint(g._GRADCHECK, hasattr(g, 'extra'), len('ab'), abs(-1))", "<after>").unwrap();
    assert_eq!(after.stdout, "0 False 2 1\n", "{after}");
    assert!(after.leaks.is_empty(), "{:?}", after.leaks);
}

/// What shared objects hold beyond their bindings comes back too: a
/// runtime function's closure cell (`sc.reduce_sum` made a max), the
/// import machinery's containers (`_frozen_importlib._module_locks`,
/// `_blocking_on`) and the attributes of a module-level object
/// (`_frozen_importlib.__spec__`); the leak check finds nothing left and
/// the next run sees the state as built.
#[test]
fn closure_cells_import_machinery_and_module_objects_are_restored() {
    let mut w = ThreadWorker::new(Config::default());
    let walk = "def walk(c, seen):\n    for s in type.__subclasses__(c):\n        if s not in seen:\n            seen.add(s)\n            walk(s, seen)\n    return seen\nbi = [c for c in walk(object, set()) if repr(c) == \"<class '_frozen_importlib.BuiltinImporter'>\"][0]\nfi = bi.find_spec.__func__.__globals__\n";
    let changes = format!(
        "{walk}import stagecheck as sc\n\
sc.reduce_sum.__closure__[0].cell_contents = 'ReduceMax'\n\
fi['_module_locks']['planted'] = 1\n\
fi['_blocking_on'].data['planted'] = 2\n\
fi['__spec__'].planted = 3\n"
    );
    for _ in 0..2 {
        let out = w.run(&changes, "<changes>").unwrap();
        assert_eq!(out.terminal, Terminal::Completed, "{out}");
        assert!(out.leaks.is_empty(), "{:?}", out.leaks);
    }
    let probe = format!(
        "{walk}import stagecheck as sc\n\
print(int(sc.reduce_sum(sc.constant([1, 2, 3]))), 'planted' in fi['_module_locks'], 'planted' in fi['_blocking_on'].data, hasattr(fi['__spec__'], 'planted'))\n"
    );
    let after = w.run(&probe, "<after>").unwrap();
    assert_eq!(after.stdout, "6 False False False\n", "{after}");
    assert!(after.leaks.is_empty(), "{:?}", after.leaks);
}
