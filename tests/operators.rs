//! Every operator converted code reads (`ag__.<name>`, the transformer's
//! `context::OPERATORS`, the only names its passes may emit) exists in the
//! runtime converted code binds (`stagecheck.ag`), and each callable one is
//! callable: the two sides of the contract are written in Rust and in
//! Python, and this is where they meet.

use stagecheck::executor::{Config, Terminal};
use stagecheck::worker::Worker;
use stagecheck_transformer::context::OPERATORS;

#[test]
fn every_operator_the_passes_emit_is_in_the_runtime() {
    let names: Vec<String> = OPERATORS.iter().map(|n| format!("{n:?}")).collect();
    let program = format!(
        "from stagecheck import ag\nmissing = [n for n in [{}] if not hasattr(ag, n)]\nprint(missing)\n\
         print([n for n in [{}] if n not in missing and not callable(getattr(ag, n))])\n",
        names.join(", "),
        names.join(", ")
    );
    let out = Worker::new(Config::default()).run(&program, "operators.py").expect("compiles");
    assert_eq!(out.terminal, Terminal::Completed, "{}", out.stdout);
    assert_eq!(out.stdout, "[]\n[]\n", "operators missing from stagecheck.ag, then ones not callable");
}

/// The names under which operators hand a staged value to staging
/// (`dispatch.impl(name)`, the native `staged_impl(name, ...)`), read from
/// their sources: the other side of the registry staging fills.
fn dispatched_names() -> Vec<String> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut names = Vec::new();
    for (dir, call, ext) in [("staging/src/operators", "staged_impl(\"", "rs"), ("staging/runtime/stagecheck/ag", "dispatch.impl('", "py")]
    {
        for entry in std::fs::read_dir(root.join(dir)).expect("the operators' sources") {
            let path = entry.expect("a directory entry").path();
            if path.extension().is_some_and(|e| e == ext) {
                let text = std::fs::read_to_string(&path).expect("readable");
                for piece in text.split(call).skip(1) {
                    let name: String = piece.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
                    names.push(name);
                }
            }
        }
    }
    assert!(names.len() >= 8, "dispatch sites found: {names:?}");
    names.sort();
    names.dedup();
    names
}

/// The staged registry (`stagecheck.ag.dispatch._impls`, filled by staging)
/// and the operators agree: every name an operator dispatches a staged value
/// under is registered, and every registered name is an operator of
/// `stagecheck.ag` or one an operator dispatches under (a registration
/// under a misspelt name would leave its operator unstaged, silently).
#[test]
fn every_staged_implementation_is_one_an_operator_dispatches_to() {
    let dispatched = dispatched_names();
    let listed: Vec<String> = dispatched.iter().map(|n| format!("{n:?}")).collect();
    let program = format!(
        "from stagecheck import ag\nfrom stagecheck.ag import dispatch\nsent = [{}]\n\
         print(sorted(n for n in sent if n not in dispatch._impls))\n\
         print(sorted(n for n in dispatch._impls if not hasattr(ag, n) and n not in sent))\n",
        listed.join(", ")
    );
    let out = Worker::new(Config::default()).run(&program, "registry.py").expect("compiles");
    assert_eq!(out.terminal, Terminal::Completed, "{}", out.stdout);
    assert_eq!(out.stdout, "[]\n[]\n", "dispatched but not registered, then registered but never dispatched to");
}
