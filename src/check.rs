//! `check`: one program, several modes, one verdict.

use crate::executor::Worker;
use crate::input::InputError;
use crate::modes::{run_unstaged, Mode, ModeRun};
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
    let mut runs = Vec::new();
    let original = worker
        .run(source, path)
        .map_err(|e| InputError(format!("{path}:{}:{}: syntax error: {}", e.line, e.column, e.message)))?;
    runs.push((Mode::Original, ModeRun::Ran { outcome: original }));
    for &mode in modes {
        match mode {
            Mode::Original => {}
            Mode::Unstaged => runs.push((mode, run_unstaged(worker, source, path))),
        }
    }
    let verdict = verdict(&runs);
    Ok(CheckReport { file: path.to_string(), runs, verdict })
}
