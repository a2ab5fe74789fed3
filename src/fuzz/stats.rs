//! What a fuzz run counted: programs, checks per second, findings, refusals
//! by reason, and construct coverage (how many programs used each construct).

use super::case::Case;
use super::outcome::{Checked, Kind};
use super::Families;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

#[derive(Clone, Debug, Serialize)]
pub struct Finding {
    pub id: String,
    pub path: PathBuf,
    pub seed: u64,
    pub index: u64,
    pub at_seconds: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct Stats {
    pub seed: u64,
    pub families: Families,
    pub programs: u64,
    pub agree: u64,
    pub refused: u64,
    pub poisoned: u64,
    /// A mode needed more than the time limit (agreeing with a longer one).
    pub slow: u64,
    pub invalid: u64,
    /// New findings saved by this run.
    pub findings: Vec<Finding>,
    /// Finding occurrences, new and duplicate.
    pub finding_hits: u64,
    pub refusals: BTreeMap<String, u64>,
    /// Programs per family.
    pub per_family: BTreeMap<String, u64>,
    /// Refused programs per family.
    pub refused_per_family: BTreeMap<String, u64>,
    pub coverage: BTreeMap<String, u64>,
    /// Microseconds spent checking (all modes), summed over programs.
    pub check_micros: u64,
    #[serde(skip)]
    pub elapsed: Duration,
    /// (seconds, programs, findings) samples, one per second of the run.
    pub timeline: Vec<(f64, u64, u64)>,
    /// The CPython oracle's counts and findings (`--oracle cpython`), apart.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpython: Option<super::cpython::Stats>,
}

impl Stats {
    pub fn new(seed: u64, families: Families) -> Stats {
        Stats {
            seed,
            families,
            programs: 0,
            agree: 0,
            refused: 0,
            poisoned: 0,
            slow: 0,
            invalid: 0,
            findings: Vec::new(),
            finding_hits: 0,
            refusals: BTreeMap::new(),
            per_family: BTreeMap::new(),
            refused_per_family: BTreeMap::new(),
            coverage: BTreeMap::new(),
            check_micros: 0,
            elapsed: Duration::ZERO,
            timeline: Vec::new(),
            cpython: None,
        }
    }

    pub fn record(&mut self, case: &Case, checked: &Checked, saved: Option<PathBuf>, now: Duration) {
        self.programs += 1;
        self.check_micros += checked.micros;
        let family = format!("{:?}", case.program.family).to_lowercase();
        *self.per_family.entry(family.clone()).or_default() += 1;
        for c in &case.program.constructs {
            *self.coverage.entry(c.to_string()).or_default() += 1;
        }
        match &checked.kind {
            Kind::Agree => self.agree += 1,
            Kind::Refused { reason } => {
                self.refused += 1;
                *self.refusals.entry(reason.clone()).or_default() += 1;
                *self.refused_per_family.entry(family).or_default() += 1;
            }
            Kind::Poisoned => self.poisoned += 1,
            Kind::Slow => self.slow += 1,
            Kind::Invalid { .. } => self.invalid += 1,
            Kind::Finding { signature, .. } => {
                self.finding_hits += 1;
                if let Some(path) = saved {
                    self.findings.push(Finding {
                        id: signature.id(),
                        path,
                        seed: case.seed,
                        index: case.index,
                        at_seconds: now.as_secs_f64(),
                    });
                }
            }
        }
        let second = now.as_secs_f64().floor();
        if self.timeline.last().is_none_or(|(t, _, _)| *t < second) {
            self.timeline.push((second, self.programs, self.findings.len() as u64));
        }
        self.elapsed = now;
    }

    /// Counts a case's CPython comparison (new findings listed apart).
    pub fn record_cpython(&mut self, case: &Case, checked: &super::cpython::Checked, saved: Option<PathBuf>, now: Duration) {
        let Some(c) = &mut self.cpython else { return };
        c.record(checked);
        if let (Some(path), super::cpython::Checked::Finding { signature, .. }) = (saved, checked) {
            c.findings.push(Finding { id: signature.id(), path, seed: case.seed, index: case.index, at_seconds: now.as_secs_f64() });
        }
    }

    /// New findings of every oracle.
    pub fn new_findings(&self) -> usize {
        self.findings.len() + self.cpython.as_ref().map_or(0, |c| c.findings.len())
    }

    /// Programs checked (all modes) per second of wall time.
    pub fn rate(&self) -> f64 {
        self.programs as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }

    /// The share of a family's programs that were refused.
    pub fn refusal_rate(&self, family: &str) -> f64 {
        let n = self.per_family.get(family).copied().unwrap_or(0);
        let r = self.refused_per_family.get(family).copied().unwrap_or(0);
        if n == 0 { 0.0 } else { r as f64 / n as f64 }
    }
}
