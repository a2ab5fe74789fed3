//! `check`: one program, several modes, one verdict.

use crate::executor::Outcome;
use crate::input::InputError;
use crate::modes::{run_converted_after, Mode, ModeRun};
use crate::oracles::convergence::{verdict, Verdict};
use crate::worker::Worker;
use serde::Serialize;
use stagecheck_transformer::convert;

#[derive(Clone, Debug, Serialize)]
pub struct CheckReport {
    pub file: String,
    pub runs: Vec<(Mode, ModeRun)>,
    pub verdict: Verdict,
    /// Set when a converted mode ran out of time while the original ended,
    /// and agreed when run again with a limit proportional to the
    /// original's time ([`recheck_slow`]): slower, not divergent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slow: Option<Slow>,
}

/// A converted mode that took longer than the time limit but ends as the
/// original does, given [`SLOW_RATIO`] times the original's time.
#[derive(Clone, Debug, Serialize)]
pub struct Slow {
    pub mode: Mode,
    /// Its run's time over the original's (`Outcome::micros`).
    pub ratio: f64,
    /// The limit of the run that ended, in seconds.
    pub limit: f64,
}

/// Snek's divergence is non-termination, which a time limit can only
/// approximate: a converted run that overruns the limit while the original
/// ended is run again with this many times the original's own time (when
/// that is longer than the limit; at most the fuzz loop's 8x the limit, so
/// a converted loop that never ends costs the user no more than that)
/// before its time limit counts as a divergence. Converted code may be
/// slower than the original; 64x is beyond any real program measured
/// (`scripts/bench-real`), and a loop that does not end still overruns it.
pub const SLOW_RATIO: u32 = 64;

/// [`check`], then [`recheck_slow`].
pub fn check_or_slow(worker: &mut Worker, source: &str, path: &str, modes: &[Mode]) -> Result<CheckReport, InputError> {
    let report = check(worker, source, path, modes)?;
    recheck_slow(worker, report, source, path, modes)
}

/// When `report` differs only in a converted mode running out of time
/// while the original ended, checks again with a time limit of
/// [`SLOW_RATIO`] times the original's time (if that is longer than the
/// worker's): the second report, marked [`Slow`] when it then agrees; else
/// `report` as it was.
pub fn recheck_slow(worker: &mut Worker, report: CheckReport, source: &str, path: &str, modes: &[Mode]) -> Result<CheckReport, InputError> {
    let Verdict::Diverged { mode, .. } = &report.verdict else { return Ok(report) };
    let mode = *mode;
    // The converted side ran out of time, not the original.
    let original_ended = matches!(report.runs.first(), Some((_, ModeRun::Ran { outcome })) if !matches!(outcome.terminal, crate::executor::Terminal::Diverged { .. }));
    let (Some(original), true) = (report.micros(Mode::Original), original_ended) else { return Ok(report) };
    let normal = worker.config().time_limit;
    let limit = (std::time::Duration::from_micros(original.max(1)) * SLOW_RATIO).min(normal * crate::fuzz::outcome::SLOW_FACTOR);
    if !crate::fuzz::outcome::only_timed_out(&report.verdict) || mode == Mode::Original || limit <= normal {
        return Ok(report);
    }
    let mut again = worker.with_time_limit(limit, |w| check(w, source, path, modes))?;
    if !matches!(again.verdict, Verdict::Agree | Verdict::Refused { .. }) {
        return Ok(again);
    }
    if let Some(ratio) = again.ratio(mode) {
        again.slow = Some(Slow { mode, ratio, limit: limit.as_secs_f64() });
    }
    Ok(again)
}

impl CheckReport {
    /// The time (`Outcome::micros`) of `mode`'s run, if it ran.
    pub fn micros(&self, mode: Mode) -> Option<u64> {
        self.runs.iter().find_map(|(m, run)| match run {
            ModeRun::Ran { outcome } if *m == mode => Some(outcome.micros),
            _ => None,
        })
    }

    /// `mode`'s run's time over the original's.
    pub fn ratio(&self, mode: Mode) -> Option<f64> {
        Some(self.micros(mode)? as f64 / self.micros(Mode::Original)?.max(1) as f64)
    }

    /// The largest ratio of a converted mode that ran (not one whose
    /// outcome was taken from another run) to the original's time.
    pub fn slowest_ratio(&self) -> f64 {
        let ran = self
            .runs
            .iter()
            .filter(|(m, run)| *m != Mode::Original && matches!(run, ModeRun::Ran { outcome } if outcome.taken_from.is_none()));
        ran.filter_map(|(m, _)| self.ratio(*m)).fold(0.0, f64::max)
    }
}

/// Runs `source` in `modes` (the original always first) and compares.
/// A program the VM cannot compile is bad input.
pub fn check(worker: &mut Worker, source: &str, path: &str, modes: &[Mode]) -> Result<CheckReport, InputError> {
    Ok(check_if(worker, source, path, modes, |_| true)?.expect("every original goes on"))
}

/// [`check`], but `None` (the other modes not run) when the original's
/// outcome fails `go_on`: the reducer skips a candidate whose original ran
/// out of time without running it twice more.
pub fn check_if(
    worker: &mut Worker,
    source: &str,
    path: &str,
    modes: &[Mode],
    go_on: impl Fn(&Outcome) -> bool,
) -> Result<Option<CheckReport>, InputError> {
    if worker.target().is_some() {
        let runs = crate::targets::runs(worker, (source, path), modes, &go_on)?;
        return Ok(runs.map(|runs| CheckReport { file: path.to_string(), verdict: verdict(&runs), runs, slow: None }));
    }
    let mut runs = Vec::new();
    let original =
        worker.run(source, path).map_err(|e| InputError(format!("{path}:{}:{}: syntax error: {}", e.line, e.column, e.message)))?;
    if !go_on(&original) {
        return Ok(None);
    }
    runs.push((Mode::Original, ModeRun::Ran { outcome: original }));
    // One conversion serves the unstaged and staged modes.
    let mut conversion = None;
    for &mode in modes {
        if mode == Mode::Original {
            continue;
        }
        let c = conversion.get_or_insert_with(|| convert(source, path));
        match c {
            Ok(c) => {
                let run = run_converted_after(worker, c, path, mode, &runs);
                runs.push((mode, run));
            }
            Err(e) => runs.push((mode, ModeRun::not_converted(e))),
        }
    }
    let verdict = verdict(&runs);
    Ok(Some(CheckReport { file: path.to_string(), runs, verdict, slow: None }))
}
