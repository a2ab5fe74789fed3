//! The fourth oracle, opt-in (`--oracle cpython`): the original program also
//! runs under the host's CPython (`python3`, or `$STAGECHECK_PYTHON`), and
//! its outcome is compared with RustPython's original run by the oracle's
//! own comparison ([`crate::oracles::convergence::compare`]: terminal state, stdout, final
//! user globals). A difference is a RustPython bug (or a CPython one), not
//! the converter's: its own kind of finding, mode `cpython`.
//!
//! CPython runs `wrapper.py` after the targets' Python kit
//! (`targets/python/stagecheck_target.py`, which runs the program and renders
//! its outcome for the targets too: one renderer, [`crate::targets`]), passed
//! with `-c`, nothing written to disk, as a subprocess: the program on stdin, under an address-space limit
//! (`RLIMIT_AS`: twice the executor's memory budget plus 256 MiB), a CPU-time
//! limit and a wall-clock timeout (the executor's limit plus 1 s), with
//! `PYTHONHASHSEED=0` like the sandbox. The wrapper mirrors the sandbox
//! (removed builtins, the allow-listed importer and its messages, one capped
//! buffer for stdout and stderr) and renders the globals as
//! `executor/src/render.rs` does, printing the executor's `Outcome` JSON.
//!
//! Differences that are not RustPython bugs are handled by rule, never
//! silently: [`NORMALISATIONS`] and [`WORDINGS`] rewrite known message
//! wordings before the comparison and each use is counted; [`compare`] records resource-bound
//! differences (time, memory, recursion depth) as `known`, and runs that
//! cannot be compared (tensor programs: CPython has no `_stagecheck_tensor`)
//! as `skipped`, each with its reason.
//!
//! A `differs` verdict is saved in `findings/` like the modes' findings
//! (e.g. `stdout-cpython-1a2b3c4d`, replayed by `stagecheck check --oracle
//! cpython program.py`), counted in its own section of the summary
//! (`stats.cpython`), and reduced with this comparison as the predicate
//! (`fuzz::cpython::reduce_saved`). Identical on both sides, so no rule: dict order, set contents,
//! int/float/tuple hashes, free-variable NameError messages. The wrapper
//! keeps CPython's int-to-str digit limit (4300, as the patched VM has it:
//! its PATCHES.md; before, the wrapper lifted it, the VM having none) and
//! counts its recursion limit of 1000 frames from the module's.
//!
//! Differences found this way and fixed in the vendored VM (its
//! PATCHES.md): float `%`/`//`/`divmod`, `0 / -4`, `round`, a bool's format
//! spec, a `with` re-raise leaving its exception current. One left, a
//! wording: RustPython says "too many values to unpack (expected 2, got 3)"
//! as CPython 3.14 does, where 3.11 says "(expected 2)" (`tests/cpython.rs`,
//! three corpus entries). Cost: CPython's
//! start-up per program (~20 ms idle, ~150 ms on a loaded 2-core machine),
//! so `fuzz --oracle cpython` checks plain programs several times slower.

/// Its glue in the fuzz loop (`fuzz --oracle cpython`).
pub mod fuzz;

use crate::executor::{Config as ExecConfig, Outcome, Terminal, Value};
use crate::jail::pipes::{Drain, Keep};
use crate::oracles::convergence::{compare as compare_outcomes, Difference};
use crate::targets::protocol::canonical;
use serde::Serialize;
use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The kit and the wrapper's `main`, one script.
fn wrapper() -> &'static str {
    static WRAPPER: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    WRAPPER.get_or_init(|| format!("{}\n{}", crate::targets::PYTHON_KIT, include_str!("wrapper.py")))
}

/// A Python interpreter to compare with.
#[derive(Clone, Debug)]
pub struct Python {
    pub program: String,
    /// `sys.version`'s first word, e.g. `3.11.7`.
    pub version: String,
    /// The interpreter itself (`sys.executable`: `program` may be a
    /// launcher script, such as pyenv's shims), run directly.
    pub executable: std::path::PathBuf,
    /// `sys.prefix` and `sys.base_prefix`: where its library is read from.
    pub prefixes: Vec<std::path::PathBuf>,
}

impl Python {
    /// `$STAGECHECK_PYTHON`, else `python3`; an error when it does not run.
    pub fn find() -> Result<Python, String> {
        let program = std::env::var("STAGECHECK_PYTHON").unwrap_or_else(|_| "python3".into());
        let out = Command::new(&program)
            .args([
                "-S",
                "-c",
                "import sys; print(sys.version.split()[0]); print(sys.executable); print(sys.prefix); print(sys.base_prefix)",
            ])
            .output()
            .map_err(|e| format!("--oracle cpython: cannot run {program}: {e}"))?;
        if !out.status.success() {
            return Err(format!("--oracle cpython: {program} failed: {}", String::from_utf8_lossy(&out.stderr)));
        }
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let mut lines = text.lines().map(str::trim);
        let version = lines.next().unwrap_or_default().to_string();
        let executable = lines.next().filter(|e| !e.is_empty()).map(|e| std::fs::canonicalize(e).unwrap_or_else(|_| e.into()));
        let executable = executable.ok_or_else(|| format!("--oracle cpython: {program} does not say where its interpreter is"))?;
        let prefixes = lines.map(std::path::PathBuf::from).filter(|p| p.is_absolute()).collect();
        Ok(Python { program, version, executable, prefixes })
    }

    /// Runs `source` (named `path`) under CPython within `limits`' time and memory.
    pub fn run(&self, source: &str, path: &str, limits: &ExecConfig) -> CpythonRun {
        let memory = 2 * limits.memory_limit as u64 + (256 << 20);
        let cpu = limits.time_limit.as_secs() + 2;
        let policy = crate::jail::Policy {
            read: self.prefixes.clone(),
            exec: vec![self.executable.clone()],
            env: crate::jail::base_env(None),
            memory: Some(memory),
            cpu: Some(cpu + 1),
            file_size: 0,
            ..Default::default()
        };
        let args: Vec<std::ffi::OsString> = ["-s", "-S", "-B", "-c", wrapper(), path].iter().map(Into::into).collect();
        let child = policy.command(&self.executable, &args).and_then(|mut command| {
            command
                .args([limits.stdout_limit.to_string(), memory.to_string(), cpu.to_string()])
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .map_err(|e| e.to_string())
        });
        let mut child = match child {
            Ok(c) => c,
            Err(e) => return CpythonRun::Skipped { reason: format!("cannot start {}: {e}", self.program) },
        };
        let mut stdin = child.stdin.take().expect("piped stdin");
        let source = source.to_string();
        let writer = std::thread::spawn(move || {
            crate::jail::pipes::no_sigpipe_here();
            let _ = stdin.write_all(source.as_bytes());
        });
        // The wrapper prints one outcome, its stdout capped at the limit (a
        // bound on everything it can print, with room for the globals).
        let cap = 4 * limits.stdout_limit + (16 << 20);
        let out = Drain::spawn(child.stdout.take().expect("piped stdout"), cap, Keep::First);
        let err = Drain::spawn(child.stderr.take().expect("piped stderr"), 64 << 10, Keep::Last);
        let deadline = Instant::now() + limits.time_limit + Duration::from_secs(1);
        let status = loop {
            match child.try_wait() {
                Ok(Some(status)) => break Some(status),
                Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(2)),
                _ => break None,
            }
        };
        // Whatever the program started goes with it, and its pipes end.
        crate::jail::kill_group(child.id());
        let _ = child.kill();
        let _ = child.wait();
        let _ = writer.join();
        let out = out.finish(Duration::from_secs(1));
        let err = err.finish(Duration::from_millis(100)).bytes;
        if status.is_none() {
            return CpythonRun::Skipped { reason: "time limit in CPython".into() };
        }
        if out.dropped > 0 {
            return CpythonRun::Skipped { reason: format!("the CPython run printed more than {cap} bytes around its outcome") };
        }
        let out = out.bytes;
        parse(&out).unwrap_or_else(|why| {
            let err = String::from_utf8_lossy(&err);
            let last = err.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("").trim();
            let last: String = last.chars().take(120).collect();
            CpythonRun::Skipped { reason: format!("the CPython run gave no outcome ({why}): {last}") }
        })
    }
}

/// The wrapper's JSON: an outcome, a compile error or a reason to skip
/// (the targets protocol's run replies, [`crate::targets::protocol::Reply`]).
fn parse(out: &[u8]) -> Result<CpythonRun, String> {
    use crate::targets::protocol::{outcome_from_python, Reply};
    let reply: Reply =
        crate::worker::protocol::from_slice_deep(out).map_err(|e| if out.is_empty() { "no output".into() } else { e.to_string() })?;
    Ok(match reply {
        // Addresses named as RustPython's runs name theirs.
        Reply::Outcome(outcome) => CpythonRun::Ran { outcome: outcome_from_python(outcome) },
        Reply::Uncompilable { message, line } => CpythonRun::Uncompilable { message, line },
        Reply::Skipped(reason) => CpythonRun::Skipped { reason },
        Reply::Ready(_) | Reply::Refused { .. } | Reply::FellBack { .. } | Reply::Crashed { .. } => {
            return Err("a reply the wrapper does not give".into())
        }
    })
}

/// What the CPython run gave.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "status", rename_all = "kebab-case")]
pub enum CpythonRun {
    Ran {
        outcome: Outcome,
    },
    /// CPython does not compile the program RustPython ran.
    Uncompilable {
        message: String,
        line: u32,
    },
    /// Not compared, and why.
    Skipped {
        reason: String,
    },
}

/// RustPython's original run against CPython's.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "verdict", rename_all = "kebab-case")]
pub enum CpythonVerdict {
    /// Same outcome (after the named [`NORMALISATIONS`], if any).
    Agree { normalised: Vec<&'static str> },
    /// Not compared.
    Skipped { reason: String },
    /// A difference of a documented, accepted kind (resource bounds).
    Known { reason: &'static str },
    /// A RustPython-vs-CPython difference: a finding.
    Differs { differences: Vec<Difference>, normalised: Vec<&'static str> },
}

impl CpythonVerdict {
    pub fn is_finding(&self) -> bool {
        matches!(self, CpythonVerdict::Differs { .. })
    }

    /// The kind of the first difference (`terminal`, `stdout`, `global`,
    /// `uncompilable`), as the signatures of the modes' findings name theirs.
    pub fn difference_kind(&self) -> Option<&'static str> {
        match self {
            CpythonVerdict::Differs { differences, .. } => Some(differences.first().map_or("none", Difference::kind)),
            _ => None,
        }
    }
}

impl std::fmt::Display for CpythonVerdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let normalised = |n: &[&str]| if n.is_empty() { String::new() } else { format!(" (normalised: {})", n.join(", ")) };
        match self {
            CpythonVerdict::Agree { normalised: n } => write!(f, "agree{}", normalised(n)),
            CpythonVerdict::Skipped { reason } => write!(f, "skipped: {reason}"),
            CpythonVerdict::Known { reason } => write!(f, "known difference: {reason}"),
            CpythonVerdict::Differs { normalised: n, .. } => write!(f, "DIFFERS{}", normalised(n)),
        }
    }
}

/// A known wording difference between RustPython 0.5 and CPython 3.11, as
/// `prefix NAME suffix` on each side (NAME an identifier). The RustPython
/// text is rewritten into CPython's in exception messages, stdout and string
/// globals before the comparison; each rule that changed something is named
/// in the verdict and counted in the fuzz summary.
pub struct Normalisation {
    pub name: &'static str,
    pub rustpython: (&'static str, &'static str),
    pub cpython: (&'static str, &'static str),
}

pub const NORMALISATIONS: &[Normalisation] = &[
    // CPython 3.11 reworded it (bpo-46240); RustPython 0.5 keeps 3.10's (its
    // free-variable message already has 3.11's wording).
    Normalisation {
        name: "unbound-local message",
        rustpython: ("local variable '", "' referenced before assignment"),
        cpython: ("cannot access local variable '", "' where it is not associated with a value"),
    },
];

/// CPython's wordings of one error where RustPython 0.5 has a single one: a
/// CPython text (exception message, or the same words printed) is rewritten
/// into RustPython's before the comparison, counted like a [`Normalisation`].
/// The wordings differ between CPython versions too (3.12 says "float
/// modulo by zero" where 3.11 says "float modulo"), so the CPython side is the
/// one rewritten: longest first, so no text is left half rewritten.
pub struct Wording {
    pub name: &'static str,
    pub cpython: &'static [&'static str],
    pub rustpython: &'static str,
}

pub const WORDINGS: &[Wording] = &[Wording {
    // RustPython says "division by zero" for every operator and type.
    name: "ZeroDivisionError wording",
    cpython: &[
        "integer division or modulo by zero",
        "float floor division by zero",
        "integer modulo by zero",
        "float division by zero",
        "float modulo by zero",
        "float divmod()",
        "float modulo",
    ],
    rustpython: "division by zero",
}];

/// CPython's outcome with the [`WORDINGS`] applied; pushes each rule used.
fn reword(cpython: &mut Outcome, used: &mut Vec<&'static str>) {
    for rule in WORDINGS {
        let apply = |text: &mut String| -> bool {
            let mut changed = false;
            for w in rule.cpython {
                if text.contains(w) {
                    *text = text.replace(w, rule.rustpython);
                    changed = true;
                }
            }
            changed
        };
        let mut changed = apply(&mut cpython.stdout);
        if let Terminal::Raised { message, .. } = &mut cpython.terminal {
            changed |= apply(message);
        }
        for (_, v) in &mut cpython.globals {
            if map_strings(v, &apply) {
                canonical(v);
                changed = true;
            }
        }
        if changed {
            used.push(rule.name);
        }
    }
}

/// Rewrites every `prefix NAME suffix` of `rule`'s RustPython side into CPython's.
fn rewrite(text: &str, rule: &Normalisation) -> Option<String> {
    let ((p, s), (cp, cs)) = (rule.rustpython, rule.cpython);
    let mut out = String::new();
    let mut rest = text;
    let mut changed = false;
    while let Some(i) = rest.find(p) {
        let after = &rest[i + p.len()..];
        let name_len = after.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(after.len());
        // Not preceded by "access " (already CPython's wording).
        if name_len > 0 && after[name_len..].starts_with(s) && !rest[..i].ends_with("access ") {
            out.push_str(&rest[..i]);
            out.push_str(cp);
            out.push_str(&after[..name_len]);
            out.push_str(cs);
            rest = &after[name_len + s.len()..];
            changed = true;
        } else {
            out.push_str(&rest[..i + p.len()]);
            rest = after;
        }
    }
    out.push_str(rest);
    changed.then_some(out)
}

/// Applies `f` to every string inside `v`; whether any changed.
fn map_strings(v: &mut Value, f: &dyn Fn(&mut String) -> bool) -> bool {
    match v {
        Value::Str(s) => f(s),
        Value::List(items) | Value::Tuple(items) | Value::Set(items) | Value::FrozenSet(items) => {
            items.iter_mut().fold(false, |c, x| map_strings(x, f) | c)
        }
        Value::Dict(entries) => entries.iter_mut().fold(false, |c, (k, x)| map_strings(k, f) | map_strings(x, f) | c),
        Value::Instance { attrs, base, .. } => {
            let mut c = attrs.iter_mut().fold(false, |c, (_, x)| map_strings(x, f) | c);
            if let Some(b) = base {
                c |= map_strings(b, f);
            }
            c
        }
        _ => false,
    }
}

fn normalise_value(v: &mut Value, rule: &Normalisation) -> bool {
    map_strings(v, &|s: &mut String| rewrite(s, rule).map(|n| *s = n).is_some())
}

/// RustPython's outcome with the [`NORMALISATIONS`] applied, and the rules used.
pub fn normalise(outcome: &Outcome) -> (Outcome, Vec<&'static str>) {
    let mut out = outcome.clone();
    let mut used = Vec::new();
    for rule in NORMALISATIONS {
        let mut changed = false;
        if let Terminal::Raised { message, .. } = &mut out.terminal {
            if let Some(n) = rewrite(message, rule) {
                *message = n;
                changed = true;
            }
        }
        if let Some(n) = rewrite(&out.stdout, rule) {
            out.stdout = n;
            changed = true;
        }
        for (_, v) in &mut out.globals {
            // Rewritten strings may sit in sets: sort those again. Only
            // those: RustPython's renderer sorts sets and attributes itself,
            // and sorting every global here hid a renderer that does not
            // (planted render_attrs_unsorted was never found).
            if normalise_value(v, rule) {
                canonical(v);
                changed = true;
            }
        }
        if changed {
            used.push(rule.name);
        }
    }
    (out, used)
}

fn raised(t: &Terminal, exc: &str) -> bool {
    matches!(t, Terminal::Raised { exc_type, .. } if exc_type == exc)
}

/// Compares RustPython's original outcome with CPython's run.
pub fn compare(rustpython: &Outcome, cpython: &CpythonRun) -> CpythonVerdict {
    match &rustpython.terminal {
        Terminal::Diverged { limit } => return CpythonVerdict::Skipped { reason: format!("RustPython {limit}") },
        Terminal::Crashed { .. } => {
            return CpythonVerdict::Skipped { reason: "RustPython crashed (a finding of the modes' oracle)".into() }
        }
        _ => {}
    }
    let cp = match cpython {
        CpythonRun::Skipped { reason } => return CpythonVerdict::Skipped { reason: reason.clone() },
        CpythonRun::Uncompilable { message, line } => {
            let differences = vec![Difference::Uncompilable { message: message.clone(), line: *line }];
            return CpythonVerdict::Differs { differences, normalised: vec![] };
        }
        CpythonRun::Ran { outcome } => outcome,
    };
    let (a, b) = (&rustpython.terminal, &cp.terminal);
    if raised(a, "MemoryError") || raised(b, "MemoryError") {
        return CpythonVerdict::Known { reason: "memory limits differ (MemoryError on one side)" };
    }
    // The VM sandbox refuses what CPython allows: creating or replacing code
    // objects, whose bytecode RustPython trusts.
    if matches!(a, Terminal::Raised { exc_type, message, .. } if exc_type == "RuntimeError" && message == crate::executor::bytecode::REFUSED)
        && !raised(b, "RuntimeError")
    {
        return CpythonVerdict::Known { reason: "refused by the sandbox (code objects)" };
    }
    if raised(a, "RecursionError") != raised(b, "RecursionError") {
        return CpythonVerdict::Known { reason: "recursion depth differs (frames counted differently)" };
    }
    let mut cp = cp.clone();
    let (mut rp, mut normalised) = normalise(rustpython);
    reword(&mut cp, &mut normalised);
    // CPython words a recursion overflow by where it happened ("... while
    // calling a Python object"); RustPython adds a space: the first clause
    // is compared.
    for t in [&mut cp.terminal, &mut rp.terminal] {
        if let Terminal::Raised { exc_type, message, .. } = t {
            if exc_type == "RecursionError" && message.starts_with(RECURSION) {
                *message = RECURSION.into();
            }
        }
    }
    let differences = compare_outcomes(&rp, &cp);
    if differences.is_empty() {
        return CpythonVerdict::Agree { normalised };
    }
    // str and bytes hashes differ (other SipHash keys under PYTHONHASHSEED=0;
    // numbers and tuples of numbers hash alike), so a printed set of strings
    // may list its elements in another order. Globals render sets sorted;
    // printed set displays of string literals compare with their elements
    // sorted (nothing else is reordered: no rule that could hide a real
    // difference, such as comparing the output's characters in any order).
    let only_stdout = differences.iter().all(|d| matches!(d, Difference::Stdout { .. }));
    if only_stdout && sets_sorted(&rp.stdout) == sets_sorted(&cp.stdout) {
        return CpythonVerdict::Known { reason: "printed in another order (str hashes differ: set iteration order)" };
    }
    CpythonVerdict::Differs { differences, normalised }
}

const RECURSION: &str = "maximum recursion depth exceeded";

/// `text` with the elements of every printed set of string or bytes
/// literals (`{'b', 'a'}`) sorted; everything else as it is.
fn sets_sorted(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        match string_set(&rest[open..]) {
            Some((mut elements, len)) => {
                elements.sort_unstable();
                out.push('{');
                out.push_str(&elements.join(", "));
                out.push('}');
                rest = &rest[open + len..];
            }
            None => {
                out.push('{');
                rest = &rest[open + 1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// A set display of string (or bytes) reprs at the start of `s`: its
/// elements as written and the display's length; `None` for anything else.
fn string_set(s: &str) -> Option<(Vec<&str>, usize)> {
    let b = s.as_bytes();
    let mut i = 1;
    let mut elements = Vec::new();
    loop {
        let start = i;
        if b.get(i) == Some(&b'b') {
            i += 1;
        }
        let quote = *b.get(i).filter(|q| matches!(q, b'\'' | b'"'))?;
        i += 1;
        loop {
            match *b.get(i)? {
                b'\\' => i += 2,
                c if c == quote => break,
                _ => i += 1,
            }
        }
        i += 1;
        elements.push(&s[start..i]);
        match (b.get(i), b.get(i + 1)) {
            (Some(b'}'), _) => return Some((elements, i + 1)),
            (Some(b','), Some(b' ')) => i += 2,
            _ => return None,
        }
    }
}

/// Runs CPython on `source` and compares with RustPython's original `outcome`.
pub fn check(python: &Python, rustpython: &Outcome, source: &str, path: &str, limits: &ExecConfig) -> (CpythonRun, CpythonVerdict) {
    let run = python.run(source, path, limits);
    let verdict = compare(rustpython, &run);
    (run, verdict)
}
