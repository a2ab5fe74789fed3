//! The runtime's Python names graph ops by their `Op` variant (`'ReduceSum'`),
//! and `_stagecheck_tensor.apply` turns the name into the op's serde tag
//! (`graph::tag_of`). Two contracts tie the Python to `Op`, whose kinds
//! `Op::one_of_each` lists:
//! - every op name the runtime spells is the variant of an op;
//! - `gradients/rules.py` has a rule for exactly the ops that are
//!   `Op::differentiable`: a new differentiable op without a rule (or a rule
//!   for an op that has none, or a misspelt one) fails here, not in a
//!   program that takes its gradient.

use stagecheck_graph::{tag_of, Op};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn runtime_sources() -> Vec<(PathBuf, String)> {
    fn walk(dir: &Path, out: &mut Vec<(PathBuf, String)>) {
        for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "py") {
                let text = std::fs::read_to_string(&path).expect("readable");
                out.push((path, text));
            }
        }
    }
    let mut out = Vec::new();
    walk(&Path::new(env!("CARGO_MANIFEST_DIR")).join("runtime/stagecheck"), &mut out);
    assert!(out.len() > 20, "the runtime's Python files: {}", out.len());
    out
}

/// The names in `text` that follow one of `calls` as a string literal first
/// argument: `_binary('Add', ...)` gives `Add`.
fn quoted_after(text: &str, calls: &[&str]) -> Vec<String> {
    let mut names = Vec::new();
    for call in calls {
        let mut rest = text;
        while let Some(at) = rest.find(call) {
            rest = &rest[at + call.len()..];
            // A longer name ending in `call` (`my_apply(`) is not it.
            let before = &text[..text.len() - rest.len() - call.len()];
            if before.ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_') && !call.starts_with('.') {
                continue;
            }
            let Some(quoted) = rest.trim_start().strip_prefix('\'') else { continue };
            if let Some(end) = quoted.find('\'') {
                names.push(quoted[..end].to_string());
            }
        }
    }
    names
}

fn tags() -> BTreeSet<String> {
    Op::one_of_each().iter().map(|op| op.sexpr_name().to_string()).collect()
}

#[test]
fn every_op_the_runtime_names_is_an_op() {
    let tags = tags();
    let mut seen = 0;
    for (path, text) in runtime_sources() {
        let names = quoted_after(&text, &["_binary(", "_unary(", "_apply(", "_reduce(", ".apply(", "op == "]);
        for name in names {
            seen += 1;
            assert!(tags.contains(&tag_of(&name)), "{}: '{name}' names no op (its tag would be {})", path.display(), tag_of(&name));
        }
    }
    // The ops of tensor.py, gradients/ and staging/: a pattern that stopped
    // matching would pass vacuously.
    assert!(seen > 60, "op names found in the runtime: {seen}");
}

#[test]
fn the_gradient_rules_are_those_of_the_differentiable_ops() {
    let rules = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("runtime/stagecheck/gradients/rules.py"))
        .expect("gradients/rules.py");
    let table = &rules[rules.find("\nRULES = {").expect("rules.py has its RULES table")..];
    let table = &table[..table.find("\n}").expect("the table ends")];
    let ruled: BTreeSet<String> = table.lines().filter_map(|line| line.trim().strip_prefix('\'')?.split('\'').next().map(tag_of)).collect();
    let differentiable: BTreeSet<String> =
        Op::one_of_each().iter().filter(|op| op.differentiable()).map(|op| op.sexpr_name().to_string()).collect();
    assert!(!ruled.is_empty());
    let missing: Vec<_> = differentiable.difference(&ruled).collect();
    let extra: Vec<_> = ruled.difference(&differentiable).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "differentiable ops without a rule: {missing:?}; rules for no differentiable op: {extra:?}"
    );
}
