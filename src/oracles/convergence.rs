//! The oracle: Snek's convergence property (seed 000 §4), checked between
//! the modes of one program. Two runs agree when both diverged having
//! printed the same as far as both got (one output begins the other:
//! [`prefix_difference`]), or both raised the same exception type with the
//! same message, or both completed — and then printed the same and left the
//! same user globals (the names the conversion introduces excluded). Lines are
//! reported, not compared: the original line of an exception is a
//! statement's first line after conversion.
//!
//! [`verdict`] stops at the first mode that parts ways: `Agree`, `Refused`
//! (each refusal on a line of [`crate::oracles::refusals`]), or `Diverged` with that
//! mode's differences (a finding). A VM crash in any mode is a finding
//! whatever the original did; so are converted code that does not compile,
//! the converter's own panic, a refusal on no line of the intended list, and
//! a GPU op beyond its own tolerance (`staged-gpu`'s shadow check), and
//! shared state a run leaked past the sandbox's restore (`leak`).
//! [`planned`] adds one rule for generated tensor programs only, which end
//! `Completed` by construction: an original run ending with an exception is
//! a finding even where every mode agrees (shared code, below).
//! [`Difference::kind`] names each kind for signatures and the reducer's
//! predicate. A run whose graphs ran on the GPU compares floats within its
//! tolerance ([`crate::oracles::close`]); integers, printed ones too, exactly.
//! `tests/oracle.rs` covers every kind in every compared mode, and
//! `scripts/oracle-mutants` shows that removing any comparison fails it.

use crate::executor::{Outcome, Terminal, Value};
use crate::modes::{Mode, ModeRun};
use serde::{Deserialize, Serialize};

/// How one mode differs from the original (saved in a finding's
/// `verdict.json`, read back by the report pages).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Difference {
    /// Completed / raised (which) / diverged / crashed differ.
    Terminal { original: Terminal, other: Terminal },
    /// Printed output differs; the first differing line, 1-based.
    Stdout { line: usize, original: String, other: String },
    /// A global differs (missing on one side: `None`).
    Global { name: String, original: Option<Value>, other: Option<Value> },
    /// The VM crashed (a RustPython panic): a finding whatever the original did.
    Crash { message: String },
    /// The converted program does not compile.
    Uncompilable { message: String, line: u32 },
    /// A refusal on no line of the intended list (`crate::oracles::refusals`).
    #[serde(rename = "refusal")]
    UnexpectedRefusal { construct: String, reason: String, line: u32 },
    /// A GPU node beyond its op's tolerance from the CPU kernel on the same
    /// inputs (staged-gpu's shadow check): the op, dtypes, shapes and what differs.
    #[serde(rename = "gpu")]
    GpuOp { node: String },
    /// The converter panicked (`crashed in conversion`).
    #[serde(rename = "converter")]
    ConverterCrash { message: String },
    /// A generated tensor program's original run ended with an exception
    /// the program did not plan ([`planned`]): every mode may agree.
    #[serde(rename = "unplanned")]
    Unplanned { original: Terminal },
    /// The sandbox's restore after this mode's run left shared state other
    /// than built (`Outcome::leaks`: what leaked, named): every later run on
    /// that worker would see it. An executor bug, whatever the modes printed.
    Leak { leaks: Vec<String> },
}

impl Difference {
    /// Every kind [`Difference::kind`] returns.
    pub const KINDS: &'static [&'static str] =
        &["terminal", "stdout", "global", "crash", "uncompilable", "converter", "refusal", "gpu", "unplanned", "leak"];

    /// `terminal`, `stdout`, `global`, `crash`, `uncompilable` or
    /// `converter` (it crashed), `refusal` (unexpected) or `gpu` (a node
    /// beyond its op's tolerance): what
    /// signatures and the reducer's predicate name a difference by.
    pub fn kind(&self) -> &'static str {
        match self {
            Difference::Terminal { .. } => "terminal",
            Difference::Stdout { .. } => "stdout",
            Difference::Global { .. } => "global",
            Difference::Crash { .. } => "crash",
            Difference::Uncompilable { .. } => "uncompilable",
            Difference::ConverterCrash { .. } => "converter",
            Difference::UnexpectedRefusal { .. } => "refusal",
            Difference::GpuOp { .. } => "gpu",
            Difference::Unplanned { .. } => "unplanned",
            Difference::Leak { .. } => "leak",
        }
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "verdict", rename_all = "kebab-case")]
pub enum Verdict {
    /// Every mode that ran agrees with the original.
    Agree,
    /// A mode was refused explicitly (no mode disagreed).
    Refused { mode: Mode, construct: String, reason: String, line: u32 },
    /// At least one mode disagrees: a finding.
    Diverged { mode: Mode, differences: Vec<Difference> },
}

impl Difference {
    /// What differs, in words, and the original's and the other mode's side
    /// of it (`None` where the original has no side: a crash, a compile
    /// error), long values and messages cut around their first difference
    /// ([`crate::abbreviate`]): what lines people read show.
    pub fn describe(&self) -> (String, Option<String>, String) {
        self.described(false)
    }

    /// [`Difference::describe`] with every value and message whole (`check --full`).
    pub fn describe_whole(&self) -> (String, Option<String>, String) {
        self.described(true)
    }

    /// The difference in one line as `check` prints it (`mode`: the other
    /// run's name, or `cpython`); `whole`: values and messages uncut.
    pub fn line(&self, mode: &str, whole: bool) -> String {
        let (what, original, other) = self.described(whole);
        match (self, original) {
            (Difference::Terminal { .. }, Some(original)) => format!("terminal: original {original}; {mode} {other}"),
            (Difference::Stdout { .. } | Difference::Global { .. }, Some(original)) => {
                format!("{what}: original {original}; {mode} {other}")
            }
            (Difference::Crash { .. }, _) => format!("the VM crashed in {mode}: {other}"),
            (Difference::Uncompilable { line, .. }, _) if mode == "cpython" => {
                format!("CPython does not compile the program (line {line}): {other}")
            }
            (Difference::Uncompilable { .. }, _) => format!("{what}: {other}"),
            _ => format!("{what} in {mode}: {other}"),
        }
    }

    fn described(&self, whole: bool) -> (String, Option<String>, String) {
        use crate::abbreviate;
        let text = |s: String| if whole { s } else { abbreviate::text(&s) };
        let pair = |(a, b): (String, String)| (Some(a), b);
        let texts = |a: String, b: String| pair(if whole { (a, b) } else { abbreviate::texts(&a, &b) });
        let values = |a: Option<&Value>, b: Option<&Value>| {
            let show = |v: Option<&Value>| v.map_or_else(|| "<absent>".to_string(), Value::to_string);
            pair(if whole { (show(a), show(b)) } else { abbreviate::values(a, b) })
        };
        let (what, (original, other)) = match self {
            Difference::Terminal { original, other } => ("how it ended".into(), texts(original.to_string(), other.to_string())),
            Difference::Stdout { line, original, other } => {
                let (a, b) = (Value::Str(original.clone()), Value::Str(other.clone()));
                (format!("stdout line {line}"), values(Some(&a), Some(&b)))
            }
            Difference::Global { name, original, other } => (format!("global {name}"), values(original.as_ref(), other.as_ref())),
            Difference::Crash { message } => ("the VM crashed".into(), (None, text(message.clone()))),
            Difference::Uncompilable { message, line } => {
                (format!("the converted program does not compile (converted line {line})"), (None, text(message.clone())))
            }
            Difference::ConverterCrash { message } => ("crashed in conversion".into(), (None, text(message.clone()))),
            Difference::GpuOp { node } => ("a GPU op beyond its tolerance".into(), (None, text(node.clone()))),
            Difference::Unplanned { original } => (
                "an exception the generated program did not plan (its top level catches every class it raises on purpose)".into(),
                texts(original.to_string(), original.to_string()),
            ),
            Difference::Leak { leaks } => (
                "shared state leaked past the restore after the run (later runs on the worker would see it)".into(),
                (None, text(leaks.join("; "))),
            ),
            Difference::UnexpectedRefusal { construct, reason, line } => (
                "an unexpected refusal (not in src/oracles/refusals.rs)".into(),
                (None, text(format!("line {line}: {construct}: {reason}"))),
            ),
        };
        (what, original, other)
    }
}

impl Verdict {
    pub fn is_finding(&self) -> bool {
        matches!(self, Verdict::Diverged { .. })
    }
}

/// Compares every run with the original's (the first).
pub fn verdict(runs: &[(Mode, ModeRun)]) -> Verdict {
    let Some((_, ModeRun::Ran { outcome: original })) = runs.first() else {
        return Verdict::Agree;
    };
    if let Terminal::Crashed { message } = &original.terminal {
        return Verdict::Diverged { mode: Mode::Original, differences: vec![Difference::Crash { message: message.clone() }] };
    }
    if !original.leaks.is_empty() {
        return Verdict::Diverged { mode: Mode::Original, differences: vec![Difference::Leak { leaks: original.leaks.clone() }] };
    }
    let mut refused = None;
    for (mode, run) in &runs[1..] {
        match run {
            ModeRun::Ran { outcome } => {
                let differences = compare(original, outcome);
                if !differences.is_empty() {
                    return Verdict::Diverged { mode: *mode, differences };
                }
            }
            ModeRun::Refused { error } if crate::oracles::refusals::intended(&error.construct, &error.reason).is_none() => {
                let (construct, reason, line) = (error.construct.clone(), error.reason.clone(), error.line);
                return Verdict::Diverged { mode: *mode, differences: vec![Difference::UnexpectedRefusal { construct, reason, line }] };
            }
            ModeRun::Refused { error } => {
                refused.get_or_insert(Verdict::Refused {
                    mode: *mode,
                    construct: error.construct.clone(),
                    reason: error.reason.clone(),
                    line: error.line,
                });
            }
            ModeRun::Uncompilable { message, line } => {
                return Verdict::Diverged {
                    mode: *mode,
                    differences: vec![Difference::Uncompilable { message: message.clone(), line: *line }],
                };
            }
            ModeRun::ConverterCrashed { message } => {
                return Verdict::Diverged { mode: *mode, differences: vec![Difference::ConverterCrash { message: message.clone() }] };
            }
        }
    }
    refused.unwrap_or(Verdict::Agree)
}

/// The verdict on a *generated tensor program* (the fuzz loop's cases of
/// that family, never a user's file nor a compiler under test's run): its
/// top level wraps each call in `try`/`except` of exactly the classes it
/// raises on purpose (generator/src/tensor_raise.rs), and every value that
/// could fail an op is chosen valid, so its original run ends `Completed`
/// (tests/generated.rs holds the generator to that). An original run that
/// raised is then a finding of kind `unplanned`, even where every mode
/// agrees: that is the one place a slip in code all modes share shows — a
/// shape or validity check that `infer` (the trace) and eager evaluation
/// both call (`range_len`, `reshape_shape`), which raises the same error in
/// every mode. A finding `verdict` already made is kept.
pub fn planned(verdict: Verdict, runs: &[(Mode, ModeRun)]) -> Verdict {
    if verdict.is_finding() {
        return verdict;
    }
    match runs.first() {
        Some((Mode::Original, ModeRun::Ran { outcome })) if matches!(outcome.terminal, Terminal::Raised { .. }) => {
            Verdict::Diverged { mode: Mode::Original, differences: vec![Difference::Unplanned { original: outcome.terminal.clone() }] }
        }
        _ => verdict,
    }
}

/// Two runs that both diverged printed what they printed before they were
/// stopped, at different points: their outputs need not be equal, but the
/// shorter must begin the longer. One that printed something else first
/// parted ways before either was stopped, and Snek's "both diverge" does
/// not cover that (a loop that prints `1 2 3 ...` against one that prints
/// `1 3 5 ...`). The last line of the shorter may have been cut mid-way.
fn prefix_difference(a: &str, b: &str) -> Option<Difference> {
    if a.starts_with(b) || b.starts_with(a) {
        return None;
    }
    let (la, lb): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
    let i = (0..la.len().min(lb.len())).find(|&i| la[i] != lb[i]).unwrap_or(0);
    Some(Difference::Stdout { line: i + 1, original: la[i].to_string(), other: lb[i].to_string() })
}

/// The differences between two outcomes of the same program.
pub fn compare(a: &Outcome, b: &Outcome) -> Vec<Difference> {
    if let Terminal::Crashed { message } = &b.terminal {
        return vec![Difference::Crash { message: message.clone() }];
    }
    if !b.leaks.is_empty() {
        return vec![Difference::Leak { leaks: b.leaks.clone() }];
    }
    if let Some(node) = b.gpu_mismatches.first() {
        return vec![Difference::GpuOp { node: node.clone() }];
    }
    let diverged = |t: &Terminal| matches!(t, Terminal::Diverged { .. });
    if diverged(&a.terminal) && diverged(&b.terminal) {
        return prefix_difference(&a.stdout, &b.stdout).into_iter().collect();
    }
    // A run on the GPU: floats within its tolerance (close.rs); an exact
    // one too, where NaN equals NaN whatever its sign and payload (the
    // H200 gives 0x7fffffff for the CPU's 0x7fc00000).
    let tolerance = b.tolerance;
    let mut out = Vec::new();
    if !a.terminal.same_as(&b.terminal) {
        out.push(Difference::Terminal { original: a.terminal.clone(), other: b.terminal.clone() });
    }
    let lines_differ = |p: Option<&&str>, q: Option<&&str>| match (p, q, &tolerance) {
        (Some(p), Some(q), Some(t)) => !crate::oracles::close::text_close(p, q, t),
        _ => p != q,
    };
    let (mut la, mut lb): (Vec<&str>, Vec<&str>) = (a.stdout.lines().collect(), b.stdout.lines().collect());
    // Both cut at the byte limit: where a normalised message (or a float
    // within tolerance) has another length, the cut falls elsewhere in the
    // same text. The whole lines both kept are compared.
    // The line where the side that kept fewer lines was cut must begin the
    // other's line there (or be begun by it, both cut in one line): a long
    // line printed on one side only is a difference, cut or not.
    let both_cut = a.stdout_truncated && b.stdout_truncated;
    let mut cut_line_differs = false;
    if both_cut {
        let (ca, cb) = (la.pop().unwrap_or(""), lb.pop().unwrap_or(""));
        let (cut, facing) = match la.len().cmp(&lb.len()) {
            std::cmp::Ordering::Less => (ca, lb[la.len()]),
            std::cmp::Ordering::Greater => (cb, la[lb.len()]),
            std::cmp::Ordering::Equal => (ca, cb),
        };
        cut_line_differs = tolerance.is_none() && !facing.starts_with(cut) && !cut.starts_with(facing);
        let kept = la.len().min(lb.len());
        la.truncate(kept);
        lb.truncate(kept);
    }
    let stdout_differs = match &tolerance {
        _ if both_cut => cut_line_differs || la.iter().zip(&lb).any(|(p, q)| lines_differ(Some(p), Some(q))),
        None => a.stdout != b.stdout,
        Some(_) => {
            a.stdout.ends_with('\n') != b.stdout.ends_with('\n') || (0..la.len().max(lb.len())).any(|i| lines_differ(la.get(i), lb.get(i)))
        }
    };
    if stdout_differs || a.stdout_truncated != b.stdout_truncated {
        let i = (0..la.len().max(lb.len())).find(|&i| lines_differ(la.get(i), lb.get(i))).unwrap_or(la.len());
        out.push(Difference::Stdout {
            line: i + 1,
            original: la.get(i).copied().unwrap_or("<end of output>").to_string(),
            other: lb.get(i).copied().unwrap_or("<end of output>").to_string(),
        });
    }
    for (name, va) in &a.globals {
        let vb = b.globals.iter().find(|(n, _)| n == name).map(|(_, v)| v);
        let same = match (vb, &tolerance) {
            (Some(vb), Some(t)) => crate::oracles::close::values_close(va, vb, t),
            (vb, _) => vb == Some(va),
        };
        if !same {
            out.push(Difference::Global { name: name.clone(), original: Some(va.clone()), other: vb.cloned() });
        }
    }
    for (name, vb) in &b.globals {
        if !a.globals.iter().any(|(n, _)| n == name) {
            out.push(Difference::Global { name: name.clone(), original: None, other: Some(vb.clone()) });
        }
    }
    out
}
