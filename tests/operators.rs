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
