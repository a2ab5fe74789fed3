//! Worker processes (src/worker/): whatever a program does to the process
//! that runs it, the `stagecheck` process lives on, says what happened, and
//! the next run gets a fresh worker.

mod common;

use stagecheck::executor::{Config, Limit, Terminal};
use stagecheck::worker::Worker;
use std::path::PathBuf;
use std::process::{Command, Output};
use std::time::Duration;

/// A native recursion that overflows the worker's stack, the process killed
/// by SIGABRT. Every recursion a program can reach ends in RecursionError or
/// MemoryError as in CPython (vm_patches.rs
/// `recursion_through_any_kind_of_frame_is_a_recursion_error`, nesting.rs),
/// so these tests provoke one through the crash hook (`debug_panic`;
/// `STAGECHECK_DEBUG_HOOKS=1` for the command line).
const STACK_OVERFLOW: &str = "print('before')\n__stagecheck_overflow__()\n";

/// A generator whose `finally` raises when it is collected, at teardown.
const FINALLY_AT_TEARDOWN: &str =
    "def gen():\n    try:\n        yield\n    finally:\n        raise ValueError(\"in close\")\ng = gen()\nnext(g)\nprint(\"done\")\n";

fn worker() -> Worker {
    Worker::new(Config { time_limit: Duration::from_secs(2), debug_panic: true, ..Config::default() })
}

fn stagecheck(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_stagecheck")).args(args).env("STAGECHECK_DEBUG_HOOKS", "1").output().expect("runs")
}

fn program(name: &str, text: &str) -> PathBuf {
    common::program("workers", name, text)
}

fn alive(pid: u32) -> bool {
    // A reaped process has no /proc entry (a zombie would still have one).
    std::path::Path::new(&format!("/proc/{pid}")).exists()
}

#[test]
fn a_stack_overflow_is_a_crash_of_its_run_and_the_next_run_gets_a_fresh_worker() {
    let mut w = worker();
    let first = w.pid().expect("a worker process");
    let outcome = w.run(STACK_OVERFLOW, "overflow.py").expect("compiles");
    match &outcome.terminal {
        Terminal::Crashed { message } => {
            assert!(message.contains("SIGABRT") || message.contains("SIGSEGV"), "{message}");
            assert!(message.contains("overflow"), "the worker's own message is kept: {message}");
        }
        other => panic!("not a crash: {other}"),
    }
    assert!(!alive(first), "the dead worker was reaped");
    let next = w.run("x = 6 * 7\nprint(x)\n", "next.py").expect("compiles");
    assert_eq!(next.terminal, Terminal::Completed);
    assert_eq!(next.stdout, "42\n");
    assert_ne!(w.pid(), Some(first), "a new worker process");
}

#[test]
fn a_run_stuck_in_native_code_is_killed_not_left_burning_a_core() {
    let mut w = Worker::new(Config { time_limit: Duration::from_millis(300), ..Config::default() });
    let first = w.pid().expect("a worker process");
    let started = std::time::Instant::now();
    let outcome = w.run("print(sum(range(10**15)))\n", "native.py").expect("compiles");
    assert_eq!(outcome.terminal, Terminal::Diverged { limit: Limit::TimeInNative }, "{outcome}");
    assert!(!alive(first), "the stuck worker was killed and reaped");
    let took = started.elapsed();
    assert!(outcome.micros as u128 >= 300_000 && outcome.micros as u128 <= took.as_micros(), "the real time: {} us", outcome.micros);
    assert_eq!(w.run("print(1)\n", "after.py").expect("compiles").stdout, "1\n");
}

#[test]
fn a_panic_at_teardown_is_a_crash_with_the_stdout_so_far() {
    let mut w = worker();
    let outcome = w.run(FINALLY_AT_TEARDOWN, "teardown.py").expect("compiles");
    // Either the VM handles the finalizer (as CPython does: completed, the
    // error reported as unraisable) or its panic is this run's crash; never
    // a time limit, and never without what the program printed.
    assert!(matches!(outcome.terminal, Terminal::Completed | Terminal::Crashed { .. }), "{outcome}");
    // Completed, the finalizer's exception is reported after it on the
    // program's stderr (captured with stdout), as CPython reports it.
    assert!(outcome.stdout.starts_with("done\n"), "{outcome}");
    assert!(outcome.micros < 1_000_000, "the real time, not the limit: {} us", outcome.micros);
}

#[test]
fn check_reports_a_worker_crash_as_a_finding_and_exits_normally() {
    let p = program("overflow.py", STACK_OVERFLOW);
    let out = stagecheck(&["check", p.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "a finding, exit 1 (not a signal):\n{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("crashed") && stdout.contains("overflow"), "{stdout}");
}

#[test]
fn run_reports_a_worker_crash_with_exit_1() {
    let p = program("overflow-run.py", STACK_OVERFLOW);
    let out = stagecheck(&["run", p.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("outcome: crashed: the worker process"), "{stdout}");
}

#[test]
fn outcomes_through_a_worker_process_equal_those_in_process() {
    let programs = [
        "x = [i * i for i in range(10)]\nprint(sum(x))\n",
        "def f(n):\n    return f(n + 1)\nf(0)\n",
        "import stagecheck as sc\n@sc.function\ndef g(a):\n    return a * 2\nr = g(sc.constant([1.5, 2.0]))\nprint(r.numpy())\n",
        "d = {'a': 1, 2: (3.5, None)}\nclass C:\n    pass\nc = C()\nc.v = {1, 2}\nraise KeyError('k')\n",
    ];
    let mut process = worker();
    let mut thread = Worker::in_process(Config::default());
    for p in programs {
        for mode in [stagecheck::modes::Mode::Original, stagecheck::modes::Mode::Staged] {
            let mut a = process.run_in(p, "same.py", mode).expect("compiles");
            let mut b = thread.run_in(p, "same.py", mode).expect("compiles");
            (a.micros, b.micros) = (0, 0);
            assert_eq!(a, b, "{p}");
        }
    }
    assert_eq!(process.run("def f(:\n", "bad.py").unwrap_err(), thread.run("def f(:\n", "bad.py").unwrap_err());
}

/// A caller's deadline ends a run before its own limit (a reducer's
/// budget): the worker is killed there, and once the deadline is lifted the
/// next run gets a fresh one.
#[test]
fn a_deadline_ends_a_run_before_its_limit() {
    let mut w = Worker::new(Config { time_limit: Duration::from_secs(20), ..Config::default() });
    let started = std::time::Instant::now();
    w.set_deadline(Some(started + Duration::from_millis(500)));
    let looped = w.run("while True:\n    pass\n", "loop-deadline.py").unwrap();
    assert!(matches!(looped.terminal, Terminal::Diverged { .. }), "{:?}", looped.terminal);
    assert!(started.elapsed() < Duration::from_millis(1500), "{:?}", started.elapsed());
    w.set_deadline(None);
    let next = w.run("x = 1\n", "after-deadline.py").unwrap();
    assert_eq!(next.terminal, Terminal::Completed);
}

/// A value nested deeper than serde_json's default limit (128 levels) left in
/// a global: a linked list of 60 objects renders 48 levels deep (the
/// renderer's bound), each 4 levels of JSON. Its reply parsed as "recursion
/// limit exceeded" and the run read as a crash of its worker; it
/// completes, as in CPython.
#[test]
fn a_deeply_nested_global_is_rendered_not_a_crash() {
    let p = program("deep-global.py", "class Node:\n    def __init__(self, next):\n        self.next = next\nhead = None\nfor i in range(60):\n    head = Node(head)\nd = {}\nfor i in range(60):\n    d = {1: d}\nprint('built')\n");
    let out = stagecheck(&["run", p.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("outcome: completed") && stdout.contains("head = "), "{stdout}");
}
