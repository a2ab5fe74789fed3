//! `check`: one program, several modes, one verdict.

use crate::executor::Outcome;
use crate::worker::Worker;
use crate::input::InputError;
use crate::modes::{run_converted, Mode, ModeRun};
use stagecheck_transformer::convert;
use crate::oracle::{verdict, Verdict};
use serde::Serialize;

#[derive(Clone, Debug, Serialize)]
pub struct CheckReport {
    pub file: String,
    pub runs: Vec<(Mode, ModeRun)>,
    pub verdict: Verdict,
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
        return Ok(runs.map(|runs| CheckReport { file: path.to_string(), verdict: verdict(&runs), runs }));
    }
    let mut runs = Vec::new();
    let original = worker
        .run(source, path)
        .map_err(|e| InputError(format!("{path}:{}:{}: syntax error: {}", e.line, e.column, e.message)))?;
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
            Ok(c) => runs.push((mode, run_converted(worker, c, path, mode))),
            Err(e) => runs.push((mode, ModeRun::not_converted(e))),
        }
    }
    let verdict = verdict(&runs);
    Ok(Some(CheckReport { file: path.to_string(), runs, verdict }))
}
