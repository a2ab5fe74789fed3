//! A finding's signature: the kind of divergence, the mode that parted
//! ways, and what differs. Two findings with the same signature are one
//! finding (the first is kept, later ones counted).
//!
//! Findings are grouped by what differs, not by which constructs the
//! program happens to contain (one bug in many programs is one finding):
//! the `detail` names it where the difference itself does — a crash by its
//! message, a converter panic by its message, an unexpected refusal by its
//! reason (names and numbers taken out), a GPU node by its op and dtype, a
//! terminal difference by how each side ended (`completed -> raised
//! NameError`), an uncompilable conversion by its error. Only stdout and
//! globals differences, whose text says nothing of the cause, fall back on
//! the program's constructs; under a target ([`Signature::of_run`]) they
//! are named by both sides' text too, names and numbers taken out (a
//! compiler's message wording, printed in every program that prints its
//! exceptions, is one finding, not one per set of constructs).

use crate::executor::Terminal;
use crate::oracles::convergence::{Difference, Verdict};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Signature {
    /// `terminal`, `stdout`, `global`, `crash`, `uncompilable`, `converter`,
    /// `refusal`, `gpu`, `unplanned`, `leak` (`Difference::kind`).
    pub kind: String,
    pub mode: String,
    pub constructs: Vec<String>,
    /// What differs, where the difference names it (empty: the constructs
    /// stand for it).
    #[serde(default)]
    pub detail: String,
}

impl Signature {
    pub fn of(verdict: &Verdict, constructs: &[&'static str]) -> Signature {
        let (kind, mode) = kind_and_mode(verdict);
        let mut constructs: Vec<String> = constructs.iter().map(|c| c.to_string()).collect();
        constructs.sort();
        constructs.dedup();
        let detail = match verdict {
            Verdict::Diverged { differences, .. } => differences.first().map(detail).unwrap_or_default(),
            _ => String::new(),
        };
        Signature { kind: kind.to_string(), mode, constructs, detail }
    }

    /// [`Signature::of`], or under a target (`under_target`) with stdout and
    /// globals differences named by what each side shows.
    pub fn of_run(verdict: &Verdict, constructs: &[&'static str], under_target: bool) -> Signature {
        let mut signature = Signature::of(verdict, constructs);
        if let (true, Verdict::Diverged { differences, .. }) = (under_target, verdict) {
            let key = text_key;
            match differences.first() {
                Some(Difference::Stdout { original, other, .. }) => {
                    signature.detail = format!("stdout {} -> {}", key(original), key(other))
                }
                Some(Difference::Global { original, other, .. }) => {
                    let show = |v: &Option<crate::executor::Value>| v.as_ref().map_or("<absent>".to_string(), |v| key(&v.to_string()));
                    signature.detail = format!("global {} -> {}", show(original), show(other));
                }
                _ => {}
            }
        }
        signature
    }

    /// A signature of `kind` in `mode` known only by name (a saved finding's
    /// directory): what reduction needs.
    pub fn named(kind: String, mode: String) -> Signature {
        Signature { kind, mode, constructs: Vec::new(), detail: String::new() }
    }

    /// A short, stable, file-name-safe id: `stdout-staged-1a2b3c4d`.
    pub fn id(&self) -> String {
        // FNV-1a over the detail, or the constructs where there is none:
        // stable across runs and platforms.
        let mut h: u32 = 0x811C_9DC5;
        let keys = if self.detail.is_empty() { &self.constructs[..] } else { std::slice::from_ref(&self.detail) };
        for c in keys {
            for b in c.bytes().chain([0u8]) {
                h ^= b as u32;
                h = h.wrapping_mul(0x0100_0193);
            }
        }
        format!("{}-{}-{h:08x}", self.kind, self.mode)
    }
}

/// The kind of a verdict's first difference and the mode that parted ways
/// (`("none", "")` when the modes did not diverge): what a reduced program
/// must keep of its finding (`src/reduce/finding.rs`).
pub fn kind_and_mode(verdict: &Verdict) -> (&'static str, String) {
    match verdict {
        Verdict::Diverged { mode, differences } => (differences.first().map_or("none", Difference::kind), mode.to_string()),
        _ => ("none", String::new()),
    }
}

/// A printed line or a value as a signature's key under a target: quoted
/// text (names, messages' names) becomes `'_'` and numbers inside
/// identifiers (`v12`, `dec7`) `N`; other numbers stay (`[2, 2, 2] ->
/// [0, 1, 2]` and `[1] -> [3]` are kept apart); at most 120 characters.
fn text_key(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars().peekable();
    let mut prev = ' ';
    while let Some(c) = chars.next() {
        match c {
            '\'' | '"' if !prev.is_alphanumeric() => {
                for d in chars.by_ref() {
                    if d == c {
                        break;
                    }
                }
                out.push_str("'_'");
            }
            c if c.is_ascii_digit() && (prev.is_alphabetic() || prev == '_' || prev == 'N') => {
                if !out.ends_with('N') {
                    out.push('N');
                }
                prev = 'N';
                continue;
            }
            c => out.push(c),
        }
        prev = c;
        if out.chars().count() >= 120 {
            break;
        }
    }
    out
}

/// What a difference says of its cause, with what varies from program to
/// program (names, numbers) taken out; empty where it says nothing.
fn detail(d: &Difference) -> String {
    let ended = |t: &Terminal| match t {
        Terminal::Completed => "completed".to_string(),
        Terminal::Raised { exc_type, .. } => format!("raised {exc_type}"),
        Terminal::Diverged { .. } => "diverged".to_string(),
        Terminal::Crashed { .. } => "crashed".to_string(),
    };
    let first: fn(&str) -> String = |s| s.chars().take(200).collect();
    match d {
        Difference::Terminal { original, other } => format!("{} -> {}", ended(original), ended(other)),
        Difference::Crash { message } | Difference::ConverterCrash { message } => first(message),
        Difference::UnexpectedRefusal { construct, reason, .. } => super::outcome::reason_key(construct, reason),
        Difference::Uncompilable { message, .. } => super::outcome::reason_key("compile", message),
        Difference::GpuOp { node } => first(node.split(" on (").next().unwrap_or(node)),
        Difference::Stdout { .. } | Difference::Global { .. } => String::new(),
        Difference::Unplanned { original } => ended(original),
        Difference::Leak { leaks } => first(&leaks.join("; ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::modes::Mode;

    fn diverged(d: Difference) -> Verdict {
        Verdict::Diverged { mode: Mode::Unstaged, differences: vec![d] }
    }

    #[test]
    fn one_cause_in_two_programs_is_one_finding_and_two_causes_are_two() {
        let crash = |m: &str| diverged(Difference::Crash { message: m.into() });
        let abort = "the worker process was killed by SIGABRT";
        assert_eq!(Signature::of(&crash(abort), &["if", "for"]).id(), Signature::of(&crash(abort), &["while"]).id());
        assert_ne!(Signature::of(&crash(abort), &["if"]).id(), Signature::of(&crash("boom at vm.rs:3"), &["if"]).id());
        let raised = |t: &str| Terminal::Raised { exc_type: t.into(), message: "m".into(), line: None, traceback: vec![], refusal: false };
        let terminal = |t: &str| diverged(Difference::Terminal { original: Terminal::Completed, other: raised(t) });
        assert_ne!(Signature::of(&terminal("NameError"), &["if"]).id(), Signature::of(&terminal("KeyError"), &["if"]).id());
        // Stdout says nothing of the cause: the constructs stand for it.
        let stdout = diverged(Difference::Stdout { line: 1, original: "a".into(), other: "b".into() });
        assert_ne!(Signature::of(&stdout, &["if"]).id(), Signature::of(&stdout, &["while"]).id());
        // Under a target, both sides' text names it: one wording in two programs is one finding.
        let wording = |name: &str| {
            let original = format!("UnboundLocalError cannot access local variable '{name}' where it is not associated with a value");
            diverged(Difference::Stdout { line: 2, original, other: format!("UnboundLocalError '{name}' is used before assignment") })
        };
        assert_eq!(Signature::of_run(&wording("v8"), &["if"], true).id(), Signature::of_run(&wording("v12"), &["while"], true).id());
        assert_ne!(Signature::of_run(&wording("v8"), &["if"], true).id(), Signature::of_run(&stdout, &["if"], true).id());
        assert_eq!(Signature::of_run(&stdout, &["if"], false), Signature::of(&stdout, &["if"]));
        assert_eq!(text_key("<function dec7.<locals>.w12> [2, 2]"), "<function decN.<locals>.wN> [2, 2]");
    }
}
