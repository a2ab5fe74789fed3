//! Escape attempts against the sandbox, on the real VM. Each must end as an
//! ordinary Python exception inside the program, and leave no file behind.

use stagecheck_executor::{Config, Outcome, Terminal, ThreadWorker};
use std::path::PathBuf;

struct Attempt {
    name: &'static str,
    /// `{P}` is replaced by a path the program must not be able to create.
    program: &'static str,
    exc_type: &'static str,
    message: &'static str,
}

#[rustfmt::skip]
const ATTEMPTS: &[Attempt] = &[
    Attempt { name: "open", program: "open('{P}', 'w').write('x')", exc_type: "NameError", message: "name 'open' is not defined" },
    Attempt { name: "import os", program: "import os\nos.system('touch {P}')", exc_type: "ImportError", message: "import of 'os' is not allowed" },
    Attempt { name: "import posix", program: "import posix\nposix.open('{P}', 65)", exc_type: "ImportError", message: "import of 'posix' is not allowed" },
    Attempt { name: "import io", program: "import io\nio.open('{P}', 'w')", exc_type: "ImportError", message: "import of 'io' is not allowed" },
    Attempt { name: "import _io", program: "import _io\n_io.FileIO('{P}', 'w')", exc_type: "ImportError", message: "import of '_io' is not allowed" },
    Attempt { name: "from os import", program: "from os import system\nsystem('touch {P}')", exc_type: "ImportError", message: "import of 'os' is not allowed" },
    Attempt { name: "subprocess", program: "import subprocess\nsubprocess.run(['touch', '{P}'])", exc_type: "ImportError", message: "import of 'subprocess' is not allowed" },
    Attempt { name: "socket", program: "import socket\nsocket.create_connection(('127.0.0.1', 22))", exc_type: "ImportError", message: "import of 'socket' is not allowed" },
    Attempt { name: "ctypes", program: "import ctypes\nctypes.CDLL(None).system(b'touch {P}')", exc_type: "ImportError", message: "import of 'ctypes' is not allowed" },
    Attempt { name: "importlib", program: "import importlib\nimportlib.import_module('os')", exc_type: "ImportError", message: "import of 'importlib' is not allowed" },
    Attempt { name: "_imp", program: "import _imp\n_imp.create_builtin(None)", exc_type: "ImportError", message: "import of '_imp' is not allowed" },
    Attempt { name: "sys.modules", program: "import sys\nsys.modules['os'].system('touch {P}')", exc_type: "ImportError", message: "import of 'sys' is not allowed" },
    Attempt { name: "gc.get_objects", program: "import gc\n[o for o in gc.get_objects() if type(o).__name__ == 'module']", exc_type: "ImportError", message: "import of 'gc' is not allowed" },
    Attempt { name: "__import__", program: "__import__('os').system('touch {P}')", exc_type: "ImportError", message: "import of 'os' is not allowed" },
    Attempt { name: "builtins dict __import__", program: "__builtins__.__dict__['__import__']('posix')", exc_type: "ImportError", message: "import of 'posix' is not allowed" },
    Attempt { name: "relative import", program: "from . import os", exc_type: "ImportError", message: "relative imports are not allowed" },
    Attempt { name: "exec of import", program: "exec('import os')", exc_type: "ImportError", message: "import of 'os' is not allowed" },
    Attempt { name: "eval of __import__", program: "eval(\"__import__('os')\")", exc_type: "ImportError", message: "import of 'os' is not allowed" },
    Attempt { name: "compile of import", program: "exec(compile('import subprocess', '<x>', 'exec'))", exc_type: "ImportError", message: "import of 'subprocess' is not allowed" },
    Attempt { name: "builtins via print.__self__", program: "print.__self__.open('{P}', 'w')", exc_type: "AttributeError", message: "open" },
    Attempt {
        name: "__subclasses__ walk to file and process classes",
        program: r#"
def walk(c, seen):
    for s in type.__subclasses__(c):
        if s not in seen:
            seen.add(s)
            walk(s, seen)
    return seen
found = []
for c in walk(object, set()):
    name = repr(c).split("'")[1].split('.')[-1]
    if name in ('FileIO', 'Popen', '_wrap_close', 'FileLoader', 'SourceFileLoader', 'socket', 'CDLL'):
        found.append(name)
    if name in ('BufferedWriter', 'TextIOWrapper', 'FileIO'):
        try:
            c('{P}', 'w')
        except Exception:
            pass
raise LookupError(sorted(found))
"#,
        exc_type: "LookupError",
        message: "[]",
    },
    // The stand-ins of `sys` and `_imp` hold an allow-list (`proxies.rs`).
    Attempt { name: "sys through frozen globals: recursion limit", program: WALK_TO_SYS_THEN_SETRECURSIONLIMIT, exc_type: "AttributeError", message: "has no attribute 'setrecursionlimit'" },
    Attempt { name: "_imp through frozen globals: create_builtin", program: WALK_TO_IMP_THEN_CREATE_BUILTIN, exc_type: "AttributeError", message: "has no attribute 'create_builtin'" },
    Attempt { name: "breakpoint", program: "breakpoint()", exc_type: "NameError", message: "name 'breakpoint' is not defined" },
    Attempt { name: "input", program: "input('> ')", exc_type: "NameError", message: "name 'input' is not defined" },
    Attempt { name: "help", program: "help(print)", exc_type: "NameError", message: "name 'help' is not defined" },
    Attempt { name: "exit", program: "exit(3)", exc_type: "NameError", message: "name 'exit' is not defined" },
    Attempt { name: "quit", program: "quit()", exc_type: "NameError", message: "name 'quit' is not defined" },
    Attempt { name: "time.sleep", program: "import time\ntime.sleep(100)", exc_type: "ImportError", message: "import of 'time' is not allowed" },
    Attempt { name: "marshal", program: "import marshal\nmarshal.loads(b'')", exc_type: "ImportError", message: "import of 'marshal' is not allowed" },
];

const WALK_TO_SYS_THEN_SETRECURSIONLIMIT: &str = r#"
def walk(c, seen):
    for s in type.__subclasses__(c):
        if s not in seen:
            seen.add(s)
            walk(s, seen)
    return seen
bi = [c for c in walk(object, set()) if repr(c) == "<class '_frozen_importlib.BuiltinImporter'>"][0]
sys = bi.find_spec.__func__.__globals__['sys']
sys.setrecursionlimit(10**7)
def f(n):
    return f(n + 1)
f(0)
"#;

const WALK_TO_IMP_THEN_CREATE_BUILTIN: &str = r#"
def walk(c, seen):
    for s in type.__subclasses__(c):
        if s not in seen:
            seen.add(s)
            walk(s, seen)
    return seen
bi = [c for c in walk(object, set()) if repr(c) == "<class '_frozen_importlib.BuiltinImporter'>"][0]
g = bi.find_spec.__func__.__globals__
class Spec:
    name = 'gc'
g['_imp'].create_builtin(Spec())
"#;

fn forbidden_path(i: usize) -> PathBuf {
    std::env::temp_dir().join(format!("stagecheck-escape-{}-{i}", std::process::id()))
}

#[test]
fn every_escape_attempt_is_refused_inside_the_program() {
    assert!(ATTEMPTS.len() >= 20);
    let mut worker = ThreadWorker::new(Config::default());
    let mut failures = Vec::new();
    for (i, a) in ATTEMPTS.iter().enumerate() {
        let path = forbidden_path(i);
        let _ = std::fs::remove_file(&path);
        let program = a.program.replace("{P}", &path.display().to_string());
        let outcome: Outcome = worker.run(&program, "<escape>").expect("compiles");
        match &outcome.terminal {
            Terminal::Raised { exc_type, message, .. } if exc_type == a.exc_type && message.contains(a.message) => {}
            other => failures.push(format!("{}: expected {} ({}), got {other}", a.name, a.exc_type, a.message)),
        }
        if path.exists() {
            failures.push(format!("{}: created {}", a.name, path.display()));
            let _ = std::fs::remove_file(&path);
        }
    }
    assert!(failures.is_empty(), "escapes not refused:\n{}", failures.join("\n"));
}

#[test]
fn allowed_module_imports_and_works() {
    let mut worker = ThreadWorker::new(Config::default());
    let out = worker.run("import math\nfrom math import sqrt\nx = math.floor(sqrt(17.0))", "<m>").unwrap();
    assert_eq!(out.terminal, Terminal::Completed);
    assert_eq!(out.globals.iter().find(|(k, _)| k == "x").map(|(_, v)| v.to_string()), Some("4".into()));
}
