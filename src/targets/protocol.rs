//! The targets protocol's messages (targets/README.md is the reference a
//! third party implements): frames as the worker protocol's
//! ([`crate::worker::protocol::encode`], `read_frame`: a 4-byte little-endian
//! length and that many bytes of JSON), over the target worker's stdin and
//! stdout.
//!
//! stagecheck sends `{"hello": {"protocol": 1, "limits": {...}}}` once, then
//! `{"run": {"source", "path", "mode"}}` per run. The worker answers hello with
//! `{"ready": {"name", "version", "modes"}}` and each run with one [`Reply`]:
//! `{"outcome": Outcome}`, `{"refused": {"reason", "line"}}`,
//! `{"fell_back": {"outcome", "reason", "line"}}` (part declined and run as
//! written, the rest converted), `{"uncompilable": {"message", "line"}}`,
//! `{"crashed": {"message", "line"}}` (the compiler's own internal error) or
//! `{"skipped": "why"}`. The
//! outcome is the executor's `Outcome` JSON; [`outcome_from_python`] puts a
//! Python renderer's outcome in the order RustPython's runs have. The CPython
//! oracle's wrapper prints the same replies (one run per process).

use crate::executor::{Outcome, Value};
use serde::{Deserialize, Serialize};

/// The protocol's version, sent in `hello`.
pub const VERSION: u32 = 1;

#[derive(Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Request<'a> {
    Hello { protocol: u32, limits: Limits },
    Run { source: &'a str, path: &'a str, mode: &'a str },
}

/// What a target's runs may use; the time limit is enforced by stagecheck
/// (a run past it is killed with its worker), the others are the target's to honour.
#[derive(Serialize)]
pub struct Limits {
    pub time_limit_ms: u64,
    pub stdout_limit: usize,
    pub memory_limit: usize,
    pub recursion_limit: usize,
}

impl Limits {
    pub fn of(config: &crate::executor::Config) -> Limits {
        Limits {
            time_limit_ms: config.time_limit.as_millis() as u64,
            stdout_limit: config.stdout_limit,
            memory_limit: config.memory_limit,
            recursion_limit: config.recursion_limit,
        }
    }
}

/// A worker's answer to `hello`.
#[derive(Clone, Debug, Deserialize, Serialize)]
pub struct Ready {
    pub name: String,
    /// The compiler's version, as the target says it (`TensorFlow 2.21.0`).
    pub version: String,
    /// The modes it runs: `original` and at least one of `unstaged`, `staged`.
    pub modes: Vec<String>,
}

/// A worker's answer to anything: `ready` to hello, the others to a run.
#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reply {
    Ready(Ready),
    Outcome(Outcome),
    /// The compiler under test declined the program, and why.
    Refused {
        reason: String,
        #[serde(default)]
        line: u32,
    },
    /// The compiler declined part of the program (a function) and ran that
    /// part as written, the rest converted: compared like an outcome, and a
    /// refusal for this reason where it agrees.
    FellBack {
        outcome: Outcome,
        reason: String,
        #[serde(default)]
        line: u32,
    },
    /// The program (or, in a converted mode, the converted program) does not compile.
    Uncompilable {
        message: String,
        #[serde(default)]
        line: u32,
    },
    /// The compiler under test failed inside itself (an assertion, an
    /// internal error it raised), whatever the program did: a finding
    /// (`ModeRun::ConverterCrashed`).
    Crashed {
        message: String,
        #[serde(default)]
        line: u32,
    },
    /// Not run, and why (a program a target cannot take, such as one
    /// importing stagecheck's native tensor module).
    Skipped(String),
}

/// An outcome rendered by a Python renderer (the kit, `targets/python/`) as
/// RustPython's runs are: set elements and instance attributes sorted,
/// default-repr addresses named by first appearance.
pub fn outcome_from_python(mut outcome: Outcome) -> Outcome {
    for (_, v) in &mut outcome.globals {
        canonical(v);
    }
    crate::executor::addresses::normalize(&mut outcome);
    outcome
}

/// Sorts what render.rs sorts (set elements, instance attributes): the
/// Python renderer leaves that to this side, so both use `Value`'s order.
pub fn canonical(v: &mut Value) {
    match v {
        Value::Set(items) | Value::FrozenSet(items) => {
            items.iter_mut().for_each(canonical);
            items.sort();
        }
        Value::List(items) | Value::Tuple(items) => items.iter_mut().for_each(canonical),
        Value::Dict(entries) => entries.iter_mut().for_each(|(k, v)| {
            canonical(k);
            canonical(v)
        }),
        Value::Instance { attrs, base, .. } => {
            attrs.iter_mut().for_each(|(_, v)| canonical(v));
            attrs.sort_by(|a, b| a.0.cmp(&b.0));
            if let Some(b) = base {
                canonical(b);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies_parse_in_the_readme_shapes() {
        let parse = |s: &str| serde_json::from_str::<Reply>(s).unwrap();
        assert!(matches!(parse(r#"{"refused": {"reason": "for/else", "line": 3}}"#), Reply::Refused { line: 3, .. }));
        assert!(matches!(parse(r#"{"uncompilable": {"message": "SyntaxError"}}"#), Reply::Uncompilable { line: 0, .. }));
        assert!(matches!(parse(r#"{"skipped": "why"}"#), Reply::Skipped(_)));
        assert!(matches!(parse(r#"{"crashed": {"message": "InternalTorchDynamoError", "line": 2}}"#), Reply::Crashed { line: 2, .. }));
        let fell_back = r#"{"fell_back": {"outcome": {"terminal": {"state": "completed"}, "stdout": "", "stdout_truncated": false, "globals": [], "micros": 1}, "reason": "generators"}}"#;
        assert!(matches!(parse(fell_back), Reply::FellBack { line: 0, .. }));
        let ready = parse(r#"{"ready": {"name": "t", "version": "1", "modes": ["original", "unstaged"]}}"#);
        assert!(matches!(ready, Reply::Ready(r) if r.modes.len() == 2));
        let outcome = r#"{"outcome": {"terminal": {"state": "raised", "exc_type": "KeyError", "message": "'a'", "line": 2, "traceback": []},
            "stdout": "", "stdout_truncated": false, "globals": [["s", {"kind": "set", "v": [{"kind": "int", "v": "2"}, {"kind": "int", "v": "1"}]}]], "micros": 5}}"#;
        let Reply::Outcome(o) = parse(outcome) else { panic!("not an outcome") };
        let o = outcome_from_python(o);
        assert_eq!(o.globals[0].1.to_string(), "{1, 2}");
        let hello = crate::worker::protocol::encode(&Request::Run { source: "x = 1\n", path: "p.py", mode: "unstaged" }).unwrap();
        assert_eq!(&hello[4..], br#"{"run":{"source":"x = 1\n","path":"p.py","mode":"unstaged"}}"#);
    }
}
