//! Limits on the real VM: time, recursion, memory, VM panics. After each, the
//! same worker must go on running programs correctly.

use stagecheck_executor::{Config, Limit, Terminal, ThreadWorker};
use std::time::{Duration, Instant};

fn config(time_limit_ms: u64) -> Config {
    Config { time_limit: Duration::from_millis(time_limit_ms), ..Config::default() }
}

fn raised(t: &Terminal) -> (&str, &str) {
    match t {
        Terminal::Raised { exc_type, message, .. } => (exc_type, message),
        other => panic!("expected an exception, got {other}"),
    }
}

/// The worker still runs a plain program correctly.
fn still_alive(worker: &mut ThreadWorker) {
    let out = worker.run("x = sum(i * i for i in range(10))\nprint(x)", "<after>").unwrap();
    assert_eq!(out.terminal, Terminal::Completed);
    assert_eq!(out.stdout, "285\n");
}

#[test]
fn infinite_loop_diverges_within_the_limit_plus_one_second() {
    let mut worker = ThreadWorker::new(config(1000));
    let start = Instant::now();
    let out = worker.run("while True:\n    pass", "<loop>").unwrap();
    let elapsed = start.elapsed();
    assert_eq!(out.terminal, Terminal::Diverged { limit: Limit::Time });
    assert!(elapsed < Duration::from_millis(2000), "took {elapsed:?}");
    assert!(elapsed >= Duration::from_millis(1000), "ended early: {elapsed:?}");
    still_alive(&mut worker);
}

#[test]
fn a_loop_that_catches_everything_still_diverges() {
    let mut worker = ThreadWorker::new(config(300));
    let src =
        "while True:\n    try:\n        while True:\n            pass\n    except BaseException:\n        pass\n    finally:\n        pass";
    let out = worker.run(src, "<stubborn>").unwrap();
    assert_eq!(out.terminal, Terminal::Diverged { limit: Limit::Time });
    still_alive(&mut worker);
}

#[test]
fn unbounded_recursion_is_a_recursion_error() {
    let mut worker = ThreadWorker::new(Config::default());
    let out = worker.run("def f(n):\n    return f(n + 1)\nf(0)", "<rec>").unwrap();
    let (t, m) = raised(&out.terminal);
    assert_eq!(t, "RecursionError");
    assert!(m.contains("recursion"), "{m}");
    // And the recursion limit is back for the next run.
    let out = worker.run("def g(n):\n    return 0 if n == 0 else 1 + g(n - 1)\nx = g(900)", "<deep>").unwrap();
    assert_eq!(out.terminal, Terminal::Completed);
    still_alive(&mut worker);
}

#[test]
fn huge_repetitions_are_memory_errors() {
    let mut worker = ThreadWorker::new(Config::default());
    for src in [
        "[0] * 10**10",
        "'x' * 10**11",
        "10**10 * [1, 2]",
        "b'ab' * 10**11",
        "(1,) * 10**10",
        "bytearray(b'a') * 10**11",
        "x = [0]\nx *= 10**10",
        "s = 'ab'\ns *= 10**11",
    ] {
        let out = worker.run(src, "<mem>").unwrap();
        let (t, _) = raised(&out.terminal);
        assert_eq!(t, "MemoryError", "{src}");
    }
    // The error is an ordinary exception: a program can catch it.
    let out = worker.run("try:\n    [0] * 10**10\nexcept MemoryError:\n    ok = True", "<mem>").unwrap();
    assert_eq!(out.terminal, Terminal::Completed);
    still_alive(&mut worker);
}

#[test]
fn gradual_growth_ends_at_the_memory_limit() {
    let mut worker = ThreadWorker::new(Config { memory_limit: 64 << 20, ..config(10_000) });
    let out = worker.run("l = []\nwhile True:\n    l.append([0] * 1000)", "<grow>").unwrap();
    let (t, _) = raised(&out.terminal);
    assert_eq!(t, "MemoryError");
    // A program that swallows MemoryError and keeps growing is stopped all the
    // same, long before its time limit: by a MemoryError raised where it does not
    // catch it (the watchdog strikes between any two bytecodes), or at twice the budget.
    let src = "l = []\nwhile True:\n    try:\n        l.append([0] * 1000)\n    except MemoryError:\n        pass";
    let start = Instant::now();
    let out = worker.run(src, "<grow>").unwrap();
    match &out.terminal {
        Terminal::Diverged { limit: Limit::Memory } => {}
        Terminal::Raised { exc_type, .. } if exc_type == "MemoryError" => {}
        other => panic!("expected the memory limit, got {other}"),
    }
    assert!(start.elapsed() < Duration::from_secs(5));
    still_alive(&mut worker);
}

#[test]
fn a_vm_panic_is_a_crash_and_the_worker_lives_on() {
    let mut worker = ThreadWorker::new(Config { debug_panic: true, ..Config::default() });
    let out = worker.run("print('before')\n__stagecheck_panic__('boom')", "<panic>").unwrap();
    match &out.terminal {
        Terminal::Crashed { message } => assert!(message.contains("boom"), "{message}"),
        other => panic!("expected a crash, got {other}"),
    }
    assert_eq!(out.stdout, "before\n");
    still_alive(&mut worker);
}

/// A real RustPython 0.5.0 bug: reading `__name__` of every builtin class
/// panics ("static type name must be already interned") on one of them.
#[test]
fn a_real_vm_panic_reachable_from_python_is_a_crash() {
    let mut worker = ThreadWorker::new(Config::default());
    let src = "def walk(c, seen):\n    for s in type.__subclasses__(c):\n        if s not in seen:\n            seen.add(s)\n            walk(s, seen)\n    return seen\nnames = [c.__name__ for c in walk(object, set())]";
    match worker.run(src, "<names>").unwrap().terminal {
        Terminal::Crashed { message } => assert!(message.contains("interned"), "{message}"),
        other => panic!("expected a crash, got {other}"),
    }
    still_alive(&mut worker);
}

#[test]
fn debug_panic_is_not_exposed_by_default() {
    let mut worker = ThreadWorker::new(Config::default());
    let out = worker.run("__stagecheck_panic__()", "<panic>").unwrap();
    assert_eq!(raised(&out.terminal).0, "NameError");
}

#[test]
fn a_run_stuck_in_native_code_is_abandoned() {
    let mut worker = ThreadWorker::new(config(300));
    let start = Instant::now();
    let out = worker.run("x = sum(range(10**15))", "<native>").unwrap();
    assert!(matches!(out.terminal, Terminal::Diverged { .. }), "{}", out.terminal);
    assert!(start.elapsed() < Duration::from_secs(4));
    still_alive(&mut worker);
}
