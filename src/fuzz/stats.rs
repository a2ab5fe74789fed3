//! What a fuzz run counted: programs, checks per second, findings, refusals
//! by reason, construct coverage (how many programs used each construct),
//! and a time series of the running totals ([`Sample`]). Counts of several
//! runs add up ([`Stats::merge`]: `stagecheck report` over shards).

use super::case::Case;
use super::outcome::{Checked, Kind};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Finding {
    pub id: String,
    /// The signature's mode (`staged`, `staged-gpu`, `cpython`): how it replays.
    #[serde(default)]
    pub mode: String,
    pub path: PathBuf,
    pub seed: u64,
    pub index: u64,
    pub at_seconds: f64,
    /// The target it was found under (`--target`), replayed with it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
}

/// The running totals at one moment of a run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sample {
    pub seconds: f64,
    pub programs: u64,
    /// Programs checked per second since the previous sample.
    pub checks_per_second: f64,
    /// New findings saved so far.
    pub findings: u64,
    /// Finding occurrences so far, new and duplicate.
    pub finding_hits: u64,
    pub refused: u64,
}

/// Poisoned cases kept (programs and signatures) per run.
pub const POISONED_KEPT: usize = 20;

/// Samples kept at most: past it every other one is dropped and the
/// interval doubles (a 10-hour run keeps one sample per minute or so).
pub const MAX_SAMPLES: usize = 600;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Stats {
    pub programs: u64,
    pub agree: u64,
    /// Refused on purpose: each matched a line of `crate::oracles::refusals`.
    pub refused: u64,
    /// Refused, matching no intended refusal: findings of kind `refusal`
    /// (counted among the findings too).
    #[serde(default)]
    pub unexpected_refusals: u64,
    pub poisoned: u64,
    /// The first [`POISONED_KEPT`] poisoned cases: where the program is
    /// kept (`poisoned/NNN.py`) and both signatures.
    #[serde(default)]
    pub poisoned_cases: Vec<String>,
    /// A mode needed more than the time limit (agreeing with a longer one).
    pub slow: u64,
    /// Staged runs taken from the unstaged run of the same program, which
    /// never read its mode (not run again: `modes::taken_from_unstaged`).
    #[serde(default)]
    pub staged_taken: u64,
    /// The largest time of such a mode over its original's.
    #[serde(default)]
    pub slow_worst_ratio: f64,
    /// Cases whose values parted ways after a GPU flushed subnormals (not findings).
    #[serde(default)]
    pub flushed: u64,
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
    /// The running totals, sampled every `interval` seconds from 0 and at
    /// the end ([`Stats::finish`]); saved per run in summary.json's `runs`.
    #[serde(skip)]
    pub timeline: Vec<Sample>,
    /// Seconds between samples (doubles as the series is thinned).
    #[serde(skip, default = "one_second")]
    interval: f64,
    /// The CPython oracle's counts and findings (`--oracle cpython`), apart.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpython: Option<crate::oracles::cpython::fuzz::Stats>,
    /// The target the run's programs ran under (`--target`), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// The target's version, as its worker said (`TensorFlow 2.21.0`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_version: Option<String>,
    /// Programs that hit each finding (by signature id), the first included.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub hits: BTreeMap<String, u64>,
}

impl Default for Stats {
    fn default() -> Self {
        Stats::new()
    }
}

impl Stats {
    pub fn new() -> Stats {
        Stats {
            programs: 0,
            agree: 0,
            refused: 0,
            unexpected_refusals: 0,
            poisoned: 0,
            poisoned_cases: Vec::new(),
            slow: 0,
            slow_worst_ratio: 0.0,
            staged_taken: 0,
            flushed: 0,
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
            interval: one_second(),
            cpython: None,
            target: None,
            target_version: None,
            hits: BTreeMap::new(),
        }
    }

    pub fn record(&mut self, case: &Case, checked: &Checked, saved: Option<PathBuf>, now: Duration) {
        if self.timeline.is_empty() {
            self.sample(0.0);
        }
        self.programs += 1;
        self.check_micros += checked.micros;
        self.staged_taken += checked.taken;
        let family = case.program.family.name().to_string();
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
            Kind::Poisoned { first, again } => {
                self.poisoned += 1;
                if self.poisoned_cases.len() < POISONED_KEPT {
                    let n = self.poisoned_cases.len();
                    self.poisoned_cases
                        .push(format!("poisoned/{n:03}.py (seed {} index {}): first {first}, then {again}", case.seed, case.index));
                }
            }
            Kind::Slow { ratio } => {
                self.slow += 1;
                self.slow_worst_ratio = self.slow_worst_ratio.max(*ratio);
            }
            Kind::Flushed { .. } => self.flushed += 1,
            Kind::Invalid { .. } => self.invalid += 1,
            Kind::Finding { signature, .. } => {
                self.finding_hits += 1;
                *self.hits.entry(signature.id()).or_default() += 1;
                self.unexpected_refusals += u64::from(signature.kind == "refusal");
                if let Some(path) = saved {
                    self.findings.push(Finding {
                        id: signature.id(),
                        mode: signature.mode.clone(),
                        path,
                        seed: case.seed,
                        index: case.index,
                        at_seconds: now.as_secs_f64(),
                        target: self.target.clone(),
                    });
                }
            }
        }
        if self.timeline.last().is_some_and(|last| now.as_secs_f64() - last.seconds >= self.interval) {
            self.sample(now.as_secs_f64());
        }
        self.elapsed = now;
    }

    /// Ends the run: its length, and a last sample at the end. A last
    /// interval shorter than half the others replaces the sample before it
    /// (a rate over a few programs would read as a collapse).
    pub fn finish(&mut self, elapsed: Duration) {
        self.elapsed = elapsed;
        let end = elapsed.as_secs_f64();
        if self.timeline.last().is_none_or(|last| last.seconds < end) {
            if self.timeline.len() >= 2 && self.timeline.last().is_some_and(|last| end - last.seconds < self.interval / 2.0) {
                self.timeline.pop();
            }
            self.sample(end);
        }
    }

    fn sample(&mut self, seconds: f64) {
        let (programs, findings) = (self.programs, self.findings.len() as u64);
        let (finding_hits, refused) = (self.finding_hits, self.refused);
        let checks_per_second = self.timeline.last().map_or(0.0, |last| per_second(last, seconds, programs));
        self.timeline.push(Sample { seconds, programs, checks_per_second, findings, finding_hits, refused });
        if self.timeline.len() > MAX_SAMPLES {
            let kept: Vec<Sample> = self.timeline.iter().step_by(2).cloned().collect();
            self.timeline = kept;
            for i in 1..self.timeline.len() {
                let (seconds, programs) = (self.timeline[i].seconds, self.timeline[i].programs);
                self.timeline[i].checks_per_second = per_second(&self.timeline[i - 1], seconds, programs);
            }
            self.interval *= 2.0;
        }
    }

    /// Adds another run's counts (findings once per signature id).
    pub fn merge(&mut self, other: &Stats) {
        self.programs += other.programs;
        self.agree += other.agree;
        self.refused += other.refused;
        self.unexpected_refusals += other.unexpected_refusals;
        self.poisoned += other.poisoned;
        self.slow += other.slow;
        self.slow_worst_ratio = self.slow_worst_ratio.max(other.slow_worst_ratio);
        self.staged_taken += other.staged_taken;
        self.flushed += other.flushed;
        self.invalid += other.invalid;
        self.finding_hits += other.finding_hits;
        self.check_micros += other.check_micros;
        self.target = self.target.take().or_else(|| other.target.clone());
        self.target_version = self.target_version.take().or_else(|| other.target_version.clone());
        for f in &other.findings {
            if !self.findings.iter().any(|g| g.id == f.id) {
                self.findings.push(f.clone());
            }
        }
        for (mine, theirs) in [
            (&mut self.refusals, &other.refusals),
            (&mut self.per_family, &other.per_family),
            (&mut self.refused_per_family, &other.refused_per_family),
            (&mut self.coverage, &other.coverage),
            (&mut self.hits, &other.hits),
        ] {
            for (k, n) in theirs {
                *mine.entry(k.clone()).or_default() += n;
            }
        }
        match (&mut self.cpython, &other.cpython) {
            (Some(mine), Some(theirs)) => mine.merge(theirs),
            (mine @ None, Some(theirs)) => *mine = Some(theirs.clone()),
            _ => {}
        }
        self.elapsed = self.elapsed.max(other.elapsed);
    }

    /// Counts a case's CPython comparison (new findings listed apart).
    pub fn record_cpython(&mut self, case: &Case, checked: &crate::oracles::cpython::fuzz::Checked, saved: Option<PathBuf>, now: Duration) {
        let Some(c) = &mut self.cpython else { return };
        c.record(checked);
        if let (Some(path), crate::oracles::cpython::fuzz::Checked::Finding { signature, .. }) = (saved, checked) {
            c.findings.push(Finding {
                id: signature.id(),
                mode: signature.mode.clone(),
                path,
                seed: case.seed,
                index: case.index,
                at_seconds: now.as_secs_f64(),
                target: None,
            });
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
        if n == 0 {
            0.0
        } else {
            r as f64 / n as f64
        }
    }
}

fn one_second() -> f64 {
    1.0
}

fn per_second(previous: &Sample, seconds: f64, programs: u64) -> f64 {
    let dt = seconds - previous.seconds;
    if dt > 0.0 {
        (programs - previous.programs) as f64 / dt
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use stagecheck_generator::Family;

    #[test]
    fn the_time_series_is_thinned_to_its_bound_and_keeps_rates_right() {
        let case = Case::from_seed(1, 0, Family::Plain);
        let checked = Checked { kind: Kind::Agree, micros: 10, taken: 0 };
        let mut stats = Stats::new();
        // Two programs a second for 2,000 s.
        for i in 0..4000u64 {
            stats.record(&case, &checked, None, Duration::from_millis(500 * i + 1));
        }
        stats.finish(Duration::from_millis(500 * 3999 + 1));
        let t = &stats.timeline;
        assert!(t.len() <= MAX_SAMPLES && t.len() >= MAX_SAMPLES / 4, "{} samples", t.len());
        assert_eq!((t[0].seconds, t[0].programs), (0.0, 0));
        assert_eq!(t.last().map(|s| (s.seconds, s.programs)), Some((1999.501, 4000)));
        // A short last interval is merged into the one before.
        let mut short = Stats::new();
        for i in 0..=20u64 {
            short.record(&case, &checked, None, Duration::from_millis(100 * i));
        }
        short.finish(Duration::from_millis(2100));
        let s = &short.timeline;
        assert_eq!(s.iter().map(|x| (x.seconds, x.programs)).collect::<Vec<_>>(), [(0.0, 0), (1.0, 11), (2.1, 21)], "{s:?}");
        assert!(t.windows(2).all(|w| w[0].seconds < w[1].seconds && w[0].programs <= w[1].programs));
        for s in &t[1..] {
            // Within one program per interval (the first interval holds the program at its end).
            assert!((s.checks_per_second - 2.0).abs() < 0.3, "{s:?}");
        }
    }
}
