//! Exits inside `finally`, converted, against CPython: each
//! program's converted run (`run --mode unstaged`) prints what python3
//! prints for the original. These shapes are the ones RustPython 0.5 itself
//! runs wrong or cannot compile as written (so `check`, which compares with
//! RustPython's run of the original, cannot judge them): an exit in an inner
//! `finally` under an exit in an outer one (StackUnderflow in its code
//! generator), an exit in a handler under an exit in the `finally`
//! (likewise), and a return overriding a nested `try`'s return (the inner
//! `finally` ran twice; corpus `finally_exits/006`).

mod common;

use std::process::Command;

const PROGRAMS: &[(&str, &str)] = &[
    (
        "nested_finally_exits",
        "log = []\n\ndef f(n):\n    for i in range(4):\n        try:\n            try:\n                raise KeyError(i)\n            finally:\n                log.append(('inner', i))\n                if i == n:\n                    return 'inner', i\n                if i > n:\n                    break\n        finally:\n            log.append(('outer', i))\n            if i == 1:\n                continue\n            if i == 3:\n                return 'outer', i\n    return 'end', i\n\nfor n in range(4):\n    log.clear()\n    try:\n        print(n, f(n), log)\n    except KeyError as e:\n        print(n, 'raised', repr(e), log)\n",
    ),
    (
        "exit_in_handler_and_finally",
        "def f(n):\n    for i in range(3):\n        try:\n            raise ValueError(i)\n        except ValueError:\n            if i == n:\n                return 'handler', i\n            continue\n        finally:\n            if i == 1:\n                break\n    return 'after', i\n\nfor n in range(3):\n    print(n, f(n))\n",
    ),
    (
        "return_overrides_nested_return",
        "log = []\n\ndef f(n):\n    try:\n        try:\n            return 'inner', n\n        finally:\n            log.append('inner finally')\n    finally:\n        log.append('outer finally')\n        if n:\n            return 'outer', n\n\nfor n in range(2):\n    log.clear()\n    print(f(n), log)\n",
    ),
];

fn stdout_of_converted(path: &std::path::Path) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_stagecheck"))
        .args(["run", "--json", "--mode", "unstaged"])
        .arg(path)
        .output()
        .expect("stagecheck runs");
    let doc: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    assert_eq!(doc["outcome"]["terminal"]["state"], "completed", "{doc}");
    doc["outcome"]["stdout"].as_str().expect("stdout").to_string()
}

#[test]
fn converted_exits_in_finally_print_what_cpython_prints() {
    for (name, source) in PROGRAMS {
        let path = common::program("finally-exits", &format!("{name}.py"), source);
        let cpython = Command::new("python3").arg(&path).output().expect("python3 runs");
        assert!(cpython.status.success(), "{name}: {}", String::from_utf8_lossy(&cpython.stderr));
        let expected = String::from_utf8(cpython.stdout).unwrap();
        assert!(expected.lines().count() >= 2, "{name}: {expected}");
        assert_eq!(stdout_of_converted(&path), expected, "{name}");
    }
}
