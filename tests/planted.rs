//! The fuzzer finds every planted bug (issue 5): with the feature
//! `planted-bugs`, `STAGECHECK_PLANT=<bug> stagecheck fuzz` on one core must
//! save a finding within 60 s. Each bug runs in its own process (the bug is
//! chosen when the interpreter is built).
//!
//!     scripts/planted-bugs     # = cargo test --release --features planted-bugs --test planted

#![cfg(feature = "planted-bugs")]

use std::process::Command;

fn finds(bug: &str) {
    let out_dir = std::env::temp_dir().join(format!("stagecheck-planted-{bug}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out_dir);
    let out = Command::new(env!("CARGO_BIN_EXE_stagecheck"))
        .args(["fuzz", "--time", "60s", "--jobs", "1", "--family", "plain", "--seed", "7", "--stop-at-first", "--out"])
        .arg(&out_dir)
        .env("STAGECHECK_PLANT", bug)
        .output()
        .expect("stagecheck runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{bug}: no finding within 60 s\n{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    let findings: Vec<_> = std::fs::read_dir(out_dir.join("findings")).expect("findings dir").flatten().collect();
    assert!(!findings.is_empty(), "{bug}: exit 1 but no finding on disk");
    for f in findings {
        let program = std::fs::read_to_string(f.path().join("program.py")).expect("program.py");
        assert!(program.contains("# replay: stagecheck check"), "{program}");
    }
    println!("{bug}: found\n{stdout}");
}

#[test]
fn and_evaluates_all() {
    finds("and_evaluates_all");
}

#[test]
fn compare_middle_twice() {
    finds("compare_middle_twice");
}

#[test]
fn while_test_once_more() {
    finds("while_test_once_more");
}

#[test]
fn for_else_after_break() {
    finds("for_else_after_break");
}

#[test]
fn nonlocal_write_lost() {
    finds("nonlocal_write_lost");
}
