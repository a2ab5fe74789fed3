//! Red team (issue 24): attacks on the VM sandbox, tried as an attacker
//! would. Each must be contained inside the program (an exception it sees,
//! or a `diverged` run), reach no host file or command, and leave the same
//! worker running the next program normally. Attacks that could abort the
//! process go through worker processes instead (`tests/redteam.rs` of the
//! root crate).

use stagecheck_executor::{Config, Outcome, Terminal, Worker};

/// The worker still runs ordinary programs correctly, converted `if` included.
fn still_alive(worker: &mut Worker) {
    let out = worker.run("x = sum(i * i for i in range(10))\nprint(x)", "<after>").unwrap();
    assert_eq!(out.terminal, Terminal::Completed, "{}", out.stdout);
    assert_eq!(out.stdout, "285\n");
}

fn run(worker: &mut Worker, source: &str) -> Outcome {
    worker.run(source, "<attack>").expect("the attack compiles")
}

/// The attack ended as `exc_type` with `message` in its message.
#[track_caller]
fn assert_raised(out: &Outcome, exc_type: &str, message: &str) {
    match &out.terminal {
        Terminal::Raised { exc_type: t, message: m, .. } if t == exc_type && m.contains(message) => {}
        other => panic!("expected {exc_type} ({message}), got {other}\nstdout: {}", out.stdout),
    }
}

/// The walk to `_frozen_importlib`'s globals through `__subclasses__()`.
const FROZEN_GLOBALS: &str = r#"
def walk(c, seen):
    for s in type.__subclasses__(c):
        if s not in seen:
            seen.add(s)
            walk(s, seen)
    return seen
ALL = walk(object, set())
bi = [c for c in ALL if repr(c) == "<class '_frozen_importlib.BuiltinImporter'>"][0]
G = bi.find_spec.__func__.__globals__
"#;

const CODE_REFUSED: &str = "code objects cannot be created or replaced in the sandbox";

// ---- 1. crafted bytecode -------------------------------------------------

/// The issue's reproducer: `LIST_APPEND` on a float through a replaced
/// `co_code` (segfaulted; the same primitive ran a shell command).
#[test]
fn crafted_bytecode_through_code_replace_is_refused() {
    let mut w = Worker::new(Config::default());
    let out = run(
        &mut w,
        r#"
def main():
    def f(a, b):
        return None
    f.__code__ = f.__code__.replace(
        co_code=bytes([128, 0, 84, 0, 84, 1, 78, 1, 82, 0, 35, 0]), co_stacksize=4)
    objs = [float(i) * 0.0 for i in range(1000)]
    for v in objs:
        for j in range(100):
            f(v, objs)
main()
"#,
    );
    assert_raised(&out, "RuntimeError", CODE_REFUSED);
    still_alive(&mut w);
}

#[test]
fn every_way_to_make_or_swap_a_code_object_is_refused() {
    let mut w = Worker::new(Config::default());
    let attempts = [
        "c.replace(co_code=b'')",
        "c.__replace__(co_code=b'')",
        "type(c).replace(c, co_consts=(1,))",
        "type(c)(0, 0, 0, 0, 0, 0, b'', (), (), (), 'x', 'x', 'x', 0, b'', b'', (), ())",
        "type(c).__new__(type(c))",
        "f.__code__ = g.__code__",
        "object.__setattr__(f, '__code__', g.__code__)",
        "type(f).__dict__['__code__'].__set__(f, g.__code__)",
        "del f.__code__",
        // A compiler-made code object with free variables f's closure lacks.
        "f.__code__ = compile('def o():\\n x = 1\\n def i(): return x\\n', '<c>', 'exec').co_consts[0].co_consts[2]",
    ];
    for attempt in attempts {
        let program = format!("def f(a, b):\n    return a\ndef g():\n    return 1\nc = f.__code__\n{attempt}\n");
        let out = run(&mut w, &program);
        assert_raised(&out, "RuntimeError", CODE_REFUSED);
    }
    for (attempt, exc_type) in [
        ("object.__new__(type(c))", "TypeError"),
        ("type(f).__code__ = 1", "TypeError"),
        ("type(c).replace = lambda *a, **k: None", "TypeError"),
        ("type.__setattr__(type(c), '__new__', 1)", "TypeError"),
        ("import marshal", "ImportError"),
        ("import types", "ImportError"),
        ("G['_imp'].get_frozen_object('x')", "RuntimeError"),
    ] {
        let program = format!("{FROZEN_GLOBALS}def f(a, b):\n    return a\nc = f.__code__\n{attempt}\n");
        let out = run(&mut w, &program);
        match &out.terminal {
            Terminal::Raised { exc_type: t, .. } if t == exc_type => {}
            other => panic!("{attempt}: expected {exc_type}, got {other}"),
        }
    }
    // Reading code objects, compile(), exec and building functions from
    // compiler-made code still work.
    let out = run(
        &mut w,
        "def f(a, b):\n    return a + b\nn = f.__code__.co_argcount\nnames = f.__code__.co_varnames\n\
         exec(compile('y = 2 + 3', '<s>', 'exec'))\nh = type(f)(f.__code__, globals())\nz = h(1, 2)\n",
    );
    assert_eq!(out.terminal, Terminal::Completed);
    let z = out.globals.iter().find(|(k, _)| k == "z").map(|(_, v)| v.to_string());
    assert_eq!(z.as_deref(), Some("3"));
    still_alive(&mut w);
}
