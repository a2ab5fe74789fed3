//! The `stagecheck` binary: outputs and exit codes.

use std::path::PathBuf;
use std::process::{Command, Output};

fn stagecheck(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_stagecheck")).args(args).output().expect("runs")
}

fn program(name: &str, text: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("stagecheck-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn run_prints_the_outcome_and_exits_0() {
    let p = program("ok.py", b"x = 3\nprint(x * 2)\n");
    let out = stagecheck(&["run", p.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("outcome: completed"), "{stdout}");
    assert!(stdout.contains("  | 6"), "{stdout}");
    assert!(stdout.contains("  x = 3"), "{stdout}");
}

#[test]
fn a_raised_exception_is_an_outcome_exit_0() {
    let p = program("raise.py", b"def f():\n    raise ValueError('bad')\nf()\n");
    let out = stagecheck(&["run", "--json", p.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["outcome"]["terminal"]["state"], "raised");
    assert_eq!(doc["outcome"]["terminal"]["exc_type"], "ValueError");
    assert_eq!(doc["outcome"]["terminal"]["line"], 2);
}

#[test]
fn divergence_exits_1() {
    let p = program("loop.py", b"while True:\n    pass\n");
    let out = stagecheck(&["run", "--time-limit", "0.3", p.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stdout).contains("diverged (time limit)"));
}

#[test]
fn bad_input_exits_2_naming_file_and_place() {
    let missing = stagecheck(&["run", "/nonexistent/prog.py"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(text(&missing.stderr).contains("/nonexistent/prog.py: cannot read file"));

    let p = program("latin1.py", b"x = 1\ny = '\xe9'\n");
    let out = stagecheck(&["run", p.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("latin1.py:2:6: not valid UTF-8"), "{}", text(&out.stderr));

    let p = program("syntax.py", b"x = 1\nif x\n    pass\n");
    let out = stagecheck(&["run", p.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains("syntax.py:2:"), "{err}");
    assert!(err.contains("syntax error"), "{err}");

    let out = stagecheck(&["run", "--no-such-flag", p.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let out = stagecheck(&["run", "--time-limit", "-1", p.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
}
