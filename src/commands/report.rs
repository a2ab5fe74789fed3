//! `stagecheck report`: rebuilds a fuzz report from its summary.json, or merges several runs' reports
//! (findings whose ids or paths are not their own directories are left out, said on stderr).

use stagecheck::input::InputError;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

pub(crate) fn report_cmd(dirs: &[PathBuf], out: Option<&Path>, kinds: bool) -> Result<ExitCode, InputError> {
    use stagecheck::fuzz::report;
    let summary = match (dirs, out) {
        ([dir], None) => report::rebuild(dir).map_err(InputError)?,
        (_, None) => return Err(InputError("--out is required to merge several reports".into())),
        (dirs, Some(out)) => report::merge(dirs, out).map_err(InputError)?,
    };
    for why in &summary.refused {
        eprintln!("stagecheck report: {why}");
    }
    let at = out.unwrap_or(&dirs[0]);
    let runs = summary.runs.len();
    println!(
        "report: {} ({runs} run{}, {} programs, {} findings)",
        at.join("index.html").display(),
        if runs == 1 { "" } else { "s" },
        summary.programs,
        summary.stats.findings.len()
    );
    if kinds {
        let page = stagecheck::fuzz::kinds::write(at).map_err(InputError)?;
        println!("kinds: {}", page.display());
    }
    Ok(ExitCode::SUCCESS)
}
