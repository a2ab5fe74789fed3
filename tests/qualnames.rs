//! Qualnames of what a program defines inside converted code (loop and
//! branch bodies, thunks) are the original's: on each corpus program
//! `scoping/*_qualname_*.py`, `stagecheck check` agrees, and the qualnames,
//! reprs and arity messages its converted run prints name no scaffolding
//! (compile.rs `converter_runtime`, transformer `scaffold.rs`). Where
//! RustPython names scopes as CPython 3.11 does (not nested lambdas, not
//! comprehensions, which RustPython inlines), the converted run prints what
//! python3 prints.

use std::path::Path;
use std::process::Command;

/// The programs whose qualnames RustPython makes as CPython 3.11 does.
const AS_CPYTHON: &[&str] = &[
    "lambda_arity_in_loop",
    "class_method_in_loop",
    "def_in_if_in_while",
    "global_def_in_loop",
    "method_defines_in_loop",
    "own_loop_body_names",
];

fn stagecheck(args: &[&str], path: &Path) -> serde_json::Value {
    let out = Command::new(env!("CARGO_BIN_EXE_stagecheck")).args(args).arg(path).output().expect("stagecheck runs");
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)))
}

#[test]
fn qualnames_in_converted_code_are_the_originals() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/conversion/scoping");
    let mut programs: Vec<_> = std::fs::read_dir(&dir)
        .expect("corpus")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.contains("_qualname_")))
        .collect();
    programs.sort();
    assert_eq!(programs.len(), 8, "{programs:?}");
    for path in programs {
        let stem = path.file_stem().and_then(|s| s.to_str()).expect("name").to_string();
        let name = stem.split_once("_qualname_").expect("named").1;
        let doc = stagecheck(&["check", "--json"], &path);
        assert_eq!(doc["verdict"]["verdict"], "agree", "{name}: {doc}");
        let run = stagecheck(&["run", "--json", "--mode", "unstaged"], &path);
        assert_eq!(run["outcome"]["terminal"]["state"], "completed", "{name}: {run}");
        let printed = run["outcome"]["stdout"].as_str().expect("stdout").to_string();
        // own_loop_body_names names functions of its own so.
        if name != "own_loop_body_names" {
            for scaffolding in ["loop_body", "if_body", "else_body", "loop_test", "get_state"] {
                assert!(!printed.contains(scaffolding), "{name}: {printed}");
            }
        }
        if AS_CPYTHON.contains(&name) {
            let cpython = Command::new("python3").arg(&path).output().expect("python3 runs");
            assert!(cpython.status.success(), "{name}: {}", String::from_utf8_lossy(&cpython.stderr));
            assert_eq!(printed, String::from_utf8(cpython.stdout).unwrap(), "{name}");
        }
    }
}
