//! `stagecheck report --kinds DIR`: a fuzz run's findings as a page for the
//! compiler's maintainers (`DIR/kinds.md`): the compiler and its version,
//! then one section per distinct finding, most programs first, each with
//! how many programs hit it, what differs (the original's side and the
//! compiler's), its reduced reproducer (`reduced.py`, else the program) and
//! the one command that replays it; then the compiler's refusals by reason.
//! Read from `summary.json` and each finding's directory (`verdict.json`,
//! `reduced.py`), so it can be written again at any time.

use super::report::{by_count, replay_command, Summary};
use crate::oracle::{Difference, Verdict};
use std::fmt::Write as _;
use std::path::Path;

/// Writes `DIR/kinds.md`; its path.
pub fn write(dir: &Path) -> Result<std::path::PathBuf, String> {
    let summary = Summary::read(dir)?;
    let page = render(&summary);
    let path = dir.join("kinds.md");
    super::report::atomic_write(&path, page.as_bytes()).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(path)
}

/// The page.
pub fn render(summary: &Summary) -> String {
    let s = &summary.stats;
    let mut m = String::new();
    let compiler = match (&s.target, &s.target_version) {
        (Some(t), Some(v)) => format!("the `{t}` target ({v})"),
        (Some(t), None) => format!("the `{t}` target"),
        _ => "stagecheck's converter and stager".to_string(),
    };
    let _ = writeln!(m, "# Divergences found in {compiler}\n");
    let modes = summary.runs.first().map(|r| r.parameters.modes_text()).unwrap_or_default();
    let _ = writeln!(
        m,
        "{} generated programs, each run as written and converted (modes: {modes}), outcomes compared: \
         how it ended (exception type and message), everything printed, and the globals left (ints exactly, \
         floats bit for bit). {} programs diverged, in {} distinct findings; in {} the compiler declined the program \
         or a function of it (run as written, the rest agreeing).\n",
        s.programs, s.finding_hits, s.findings.len(), s.refused
    );
    let mut findings: Vec<_> = s.findings.iter().collect();
    findings.sort_by_key(|f| std::cmp::Reverse(s.hits.get(&f.id).copied().unwrap_or(1)));
    for (n, f) in findings.iter().enumerate() {
        let hits = s.hits.get(&f.id).copied().unwrap_or(1);
        let _ = writeln!(m, "## {}. `{}` ({hits} program{})\n", n + 1, f.id, if hits == 1 { "" } else { "s" });
        let verdict = std::fs::read_to_string(f.path.join("verdict.json")).ok().and_then(|t| serde_json::from_str::<Verdict>(&t).ok());
        if let Some(Verdict::Diverged { mode, differences }) = &verdict {
            for d in differences.iter().take(4) {
                let (what, original, other) = d.describe();
                match (d, original) {
                    (Difference::Stdout { .. } | Difference::Global { .. } | Difference::Terminal { .. }, Some(original)) => {
                        let _ = writeln!(m, "- {what}: as written `{}`; {mode} `{}`", clip(&original), clip(&other));
                    }
                    _ => {
                        let _ = writeln!(m, "- {what} ({mode}): `{}`", clip(&other));
                    }
                }
            }
            if differences.len() > 4 {
                let _ = writeln!(m, "- and {} more differences", differences.len() - 4);
            }
        }
        let reduced = f.path.join("reduced.py");
        let (which, text) = match std::fs::read_to_string(&reduced) {
            Ok(t) => ("reduced", t),
            Err(_) => ("as generated (not reduced)", std::fs::read_to_string(f.path.join("program.py")).unwrap_or_default()),
        };
        let body = crate::reduce::finding::split_header(&text).1.trim();
        let _ = writeln!(m, "\nThe program, {which}:\n\n```python\n{body}\n```\n");
        let _ = writeln!(m, "Replay: `{}`\n", replay_command(f));
    }
    if !s.refusals.is_empty() {
        let _ = writeln!(m, "## Declined by the compiler\n");
        for (reason, n) in by_count(&s.refusals) {
            let _ = writeln!(m, "- {n} × {reason}");
        }
    }
    m
}

/// One line of at most 160 characters.
fn clip(s: &str) -> String {
    let line = s.replace('\n', "⏎").replace('`', "'");
    match line.char_indices().nth(160) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None => line,
    }
}
