//! `fuzz --oracle cpython`: each plain program's original also runs under
//! CPython ([`crate::oracles::cpython`]); a difference that reproduces is a finding of
//! its own kind (signature mode `cpython`), counted apart from the modes',
//! and reduced ([`reduce_saved`]) while CPython still differs the same way:
//! the predicate is this oracle itself, as `check` is the modes' findings'.

use crate::fuzz::case::Case;
use crate::fuzz::signature::Signature;
use crate::oracles::cpython::{self, CpythonVerdict, Python};
use crate::reduce::finding::{reduce_side_finding, SideOracle};
use crate::worker::Worker;
use serde::Serialize;
use stagecheck_generator::Family;
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

/// What the CPython oracle did with one case.
pub enum Checked {
    /// Compared (agree, known, skipped), or not a finding after all.
    Counted(CpythonVerdict),
    /// A difference seen twice with the same signature.
    Finding { signature: Signature, verdict: CpythonVerdict },
    /// A difference that did not reproduce.
    Poisoned,
}

/// Runs the case's original in RustPython and in CPython and compares.
/// Tensor programs are skipped without starting CPython.
pub fn check_case(worker: &mut Worker, python: &Python, case: &Case) -> Checked {
    if case.program.family == Family::Tensor {
        return Checked::Counted(CpythonVerdict::Skipped { reason: TENSOR.into() });
    }
    let path = format!("fuzz-{}-{}.py", case.seed, case.index);
    let once = |worker: &mut Worker| match worker.run(&case.program.source, &path) {
        Ok(original) => cpython::check(python, &original, &case.program.source, &path, worker.config()).1,
        Err(e) => CpythonVerdict::Skipped { reason: format!("RustPython does not compile it: {}", e.message) },
    };
    let verdict = once(worker);
    let Some(kind) = verdict.difference_kind() else { return Checked::Counted(verdict) };
    let signature = Signature { kind: kind.into(), mode: "cpython".into(), constructs: constructs(case), detail: String::new() };
    match once(worker).difference_kind() {
        Some(again) if again == kind => Checked::Finding { signature, verdict },
        _ => Checked::Poisoned,
    }
}

/// How many times `--reduce-time` a CPython finding's reduction gets: each
/// candidate check starts a CPython (~80 ms here, against a few ms for the
/// worker's run), so the same budget checks ~10x fewer candidates. Measured
/// on `render_bool_as_int` seed 3 (394 lines): 35 lines left after 10 s,
/// 9 lines, complete, after 18 s.
pub const REDUCE_FACTOR: u32 = 3;

/// Reduces the CPython oracle's finding in `dir` (its `program.py`) into
/// `reduced.py`, keeping candidates whose original run still differs from
/// CPython's with the finding's kind of difference (its `signature.json`);
/// headed like the modes' reductions, replayed by `check --oracle cpython`.
/// Best effort, as theirs: a failed reduction is reported, the finding stays.
pub fn reduce_saved(dir: &Path, python: &Python, exec: &crate::executor::Config, budget: Duration) {
    let oracle = SideOracle { name: "cpython", replay: &["--oracle", "cpython"], default_kind: None };
    let still = |worker: &mut Worker, candidate: &str, path: &str, kind: &str| match worker.run(candidate, path) {
        Ok(original) => cpython::check(python, &original, candidate, path, exec).1.difference_kind() == Some(kind),
        Err(_) => false,
    };
    if let Err(e) = reduce_side_finding(dir, exec, budget, &oracle, still) {
        eprintln!("stagecheck fuzz: {}: not reduced: {e}", dir.display());
    }
}

/// Why tensor programs are not compared.
pub const TENSOR: &str = "tensor program (CPython has no native _stagecheck_tensor)";

fn constructs(case: &Case) -> Vec<String> {
    let mut c: Vec<String> = case.program.constructs.iter().map(|c| c.to_string()).collect();
    c.sort();
    c.dedup();
    c
}

/// The CPython oracle's counts, reported apart from the modes' findings.
#[derive(Clone, Debug, Default, Serialize, serde::Deserialize)]
pub struct Stats {
    /// The CPython compared with (`sys.version`'s first word).
    pub version: String,
    pub agree: u64,
    /// Agreements that needed a message normalisation, by rule.
    pub normalised: BTreeMap<String, u64>,
    /// Accepted differences (resource bounds), by reason.
    pub known: BTreeMap<String, u64>,
    /// Runs not compared, by reason.
    pub skipped: BTreeMap<String, u64>,
    pub poisoned: u64,
    /// Finding occurrences, new and duplicate.
    pub finding_hits: u64,
    /// New findings saved by this run.
    pub findings: Vec<crate::fuzz::stats::Finding>,
}

impl Stats {
    /// Adds another run's counts (`stagecheck report` over shards; findings
    /// once per signature id).
    pub fn merge(&mut self, other: &Stats) {
        self.agree += other.agree;
        self.poisoned += other.poisoned;
        self.finding_hits += other.finding_hits;
        for (mine, theirs) in
            [(&mut self.normalised, &other.normalised), (&mut self.known, &other.known), (&mut self.skipped, &other.skipped)]
        {
            for (k, n) in theirs {
                *mine.entry(k.clone()).or_default() += n;
            }
        }
        for f in &other.findings {
            if !self.findings.iter().any(|g| g.id == f.id) {
                self.findings.push(f.clone());
            }
        }
    }

    pub fn record(&mut self, checked: &Checked) {
        let verdict = match checked {
            Checked::Poisoned => {
                self.poisoned += 1;
                return;
            }
            Checked::Finding { .. } => {
                self.finding_hits += 1;
                return;
            }
            Checked::Counted(v) => v,
        };
        match verdict {
            CpythonVerdict::Agree { normalised } => {
                self.agree += 1;
                for rule in normalised {
                    *self.normalised.entry(rule.to_string()).or_default() += 1;
                }
            }
            CpythonVerdict::Known { reason } => *self.known.entry(reason.to_string()).or_default() += 1,
            CpythonVerdict::Skipped { reason } => *self.skipped.entry(skip_key(reason)).or_default() += 1,
            CpythonVerdict::Differs { .. } => self.finding_hits += 1,
        }
    }

    /// The summary's section.
    pub fn markdown(&self) -> String {
        use crate::markdown as md;
        use std::fmt::Write as _;
        let mut m = String::new();
        let _ = writeln!(m, "\n## CPython oracle (CPython {} against RustPython's original run)\n", md::text(&self.version));
        let _ = writeln!(
            m,
            "- {} agree, {} findings ({} new), {} poisoned by non-determinism",
            self.agree,
            self.finding_hits,
            self.findings.len(),
            self.poisoned
        );
        for (what, map) in
            [("normalised (agree after the rule)", &self.normalised), ("known differences", &self.known), ("skipped", &self.skipped)]
        {
            for (reason, n) in map {
                let _ = writeln!(m, "- {what}: {n} × {}", md::text(reason));
            }
        }
        for f in &self.findings {
            let _ = writeln!(
                m,
                "- finding {} (seed {} index {}, at {:.1} s): {}",
                md::code(&f.id),
                f.seed,
                f.index,
                f.at_seconds,
                md::code(&crate::fuzz::report::replay_command(f))
            );
        }
        m
    }
}

/// Skip reasons are counted by their first clause (the CPython run's last
/// stderr line can name anything).
fn skip_key(reason: &str) -> String {
    reason.split(['(', ':']).next().unwrap_or(reason).trim().chars().take(80).collect()
}
