//! Red team through worker processes and the CLI: attacks that
//! aborted the `stagecheck` process, or could if a VM-level check regressed.
//! Each must be contained (an exception in the program, or a `diverged`
//! run), the worker must live on, and the next run must be normal. The
//! in-process attacks are in `executor/tests/redteam.rs`.

mod common;

use stagecheck::executor::{Config, Terminal};
use stagecheck::worker::Worker;
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

fn worker() -> Worker {
    Worker::new(Config { time_limit: Duration::from_millis(500), ..Config::default() })
}

/// The same worker process runs a plain program normally.
fn still_alive(w: &mut Worker, pid: Option<u32>) {
    let out = w.run("x = sum(i * i for i in range(10))\nprint(x)", "<after>").unwrap();
    assert_eq!(out.terminal, Terminal::Completed);
    assert_eq!(out.stdout, "285\n");
    assert_eq!(w.pid(), pid, "the worker was replaced");
}

fn program(name: &str, text: &str) -> PathBuf {
    common::program("redteam", name, text)
}

fn stagecheck_run(path: &PathBuf) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_stagecheck")).arg("run").arg(path).output().expect("runs")
}

/// A finalizer raising while the time limit's panic unwinds its frame was a
/// panic within a panic: the process aborted.
#[test]
fn a_finalizer_raising_during_a_limits_unwinding_does_not_abort() {
    let mut w = worker();
    w.run("print(1)", "<warm>").unwrap();
    let pid = w.pid();
    for attack in [
        "class A:\n    def __del__(self):\n        raise ValueError('x')\ndef f():\n    a = A()\n    while True:\n        pass\nf()\n",
        "class A:\n    def __del__(self):\n        while True:\n            pass\ndef f():\n    a = A()\n    while True:\n        pass\nf()\n",
        "class A:\n    def __del__(self):\n        bytearray(2**50)\ndef f():\n    a = A()\n    while True:\n        pass\nf()\n",
    ] {
        let out = w.run(attack, "<del>").unwrap();
        assert!(matches!(out.terminal, Terminal::Diverged { .. }), "{attack}: {out}");
        still_alive(&mut w, pid);
    }
}

/// The issue's reproducers through the CLI: no signal, no host file's line.
#[test]
fn the_issues_programs_through_the_cli() {
    let crafted = program(
        "crafted.py",
        "def main():\n    def f(a, b):\n        return None\n    f.__code__ = f.__code__.replace(\n        co_code=bytes([128, 0, 84, 0, 84, 1, 78, 1, 82, 0, 35, 0]), co_stacksize=4)\n    objs = [float(i) * 0.0 for i in range(1000)]\n    for v in objs:\n        for j in range(100):\n            f(v, objs)\nmain()\n",
    );
    let out = stagecheck_run(&crafted);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.code().is_some(), "killed by a signal");
    assert!(stdout.contains("raised RuntimeError: code objects cannot be created or replaced in the sandbox"), "{stdout}");

    let hostname = program(
        "hostname.py",
        "def walk(c, seen):\n    for s in type.__subclasses__(c):\n        if s not in seen:\n            seen.add(s); walk(s, seen)\n    return seen\nbi = [c for c in walk(object, set()) if repr(c) == \"<class '_frozen_importlib.BuiltinImporter'>\"][0]\nsys = bi.find_spec.__func__.__globals__['sys']\ntry:\n    exec(compile('1/0\\n', '/etc/hostname', 'exec'))\nexcept Exception as e:\n    sys.excepthook(type(e), e, e.__traceback__)\n",
    );
    let out = stagecheck_run(&hostname);
    assert!(out.status.code().is_some(), "killed by a signal");
    let host = std::fs::read_to_string("/etc/hostname").unwrap_or_default();
    let both = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    for line in host.lines().filter(|l| l.trim().len() >= 4) {
        assert!(!both.contains(line.trim()), "/etc/hostname reached the output:\n{both}");
    }
    assert!(both.contains("has no attribute 'excepthook'"), "{both}");

    let nested = program("nested.py", &format!("x = {}1{}\n", "(".repeat(200_000), ")".repeat(200_000)));
    let out = stagecheck_run(&nested);
    assert!(out.status.code().is_some(), "killed by a signal");
    let both = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(both.contains("too many nested parentheses"), "{both}");

    let bomb = program("bomb.py", "eval('(' * 200000 + ')' * 200000)\n");
    let out = stagecheck_run(&bomb);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("raised SyntaxError: too many nested parentheses"), "{stdout}");
}
