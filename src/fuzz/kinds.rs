//! `stagecheck report --kinds DIR`: a fuzz run's findings as a page for the
//! compiler's maintainers (`DIR/kinds.md`): the compiler and its version,
//! then one section per bug kind ([`group`]: findings whose reduced programs
//! bear the same `# kind:` line, `crate::oracles::target_kinds`), most programs first, each with
//! how many programs hit it, what differs (the original's side and the
//! compiler's), its reduced reproducer (`reduced.py`, else the program) and
//! the one command that replays it; then the compiler's refusals by reason.
//! Read from `summary.json` and each finding's directory (`verdict.json`,
//! `reduced.py`), so it can be written again at any time.

use super::report::{by_count, Summary};
use crate::markdown as md;
use crate::oracles::convergence::{Difference, Verdict};
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
        (Some(t), Some(v)) => format!("the {} target ({})", md::code(t), md::text(v)),
        (Some(t), None) => format!("the {} target", md::code(t)),
        _ => "stagecheck's converter and stager".to_string(),
    };
    let _ = writeln!(m, "# Divergences found in {compiler}\n");
    let modes = summary.runs.first().map(|r| r.parameters.modes_text()).unwrap_or_default();
    let _ = writeln!(
        m,
        "{} generated programs, each run as written and converted (modes: {modes}), outcomes compared: \
         how it ended (exception type and message), everything printed, and the globals left (ints exactly, \
         floats bit for bit). {} programs diverged, in {} findings; in {} the compiler declined the program \
         or a function of it (run as written, the rest agreeing).\n",
        s.programs,
        s.finding_hits,
        s.findings.len(),
        s.refused
    );
    let kinds = group(summary);
    let _ = writeln!(
        m,
        "The {} findings (one per signature: what differs, as both sides show it) are {} distinct kinds: findings whose \
         reduced programs keep the same class of difference (its text, numbers and names taken out) and the same \
         constructs (keywords) are one kind (`src/oracles/target_kinds.rs`); a finding not reduced is its own.\n",
        s.findings.len(),
        kinds.len()
    );
    for (n, kind) in kinds.iter().enumerate() {
        let f = kind.shown;
        let hits = kind.hits;
        let more = if kind.findings.len() > 1 { format!(", {} findings", kind.findings.len()) } else { String::new() };
        let _ = writeln!(m, "## {}. {} ({hits} program{}{more})\n", n + 1, md::code(&kind.id), if hits == 1 { "" } else { "s" });
        if let Some((class, constructs)) = &kind.class {
            let _ = writeln!(m, "- class of difference: {}; constructs the reduced program keeps: {}", clip(class), md::code(constructs));
        }
        let verdict = std::fs::read_to_string(f.path.join("verdict.json")).ok().and_then(|t| serde_json::from_str::<Verdict>(&t).ok());
        if let Some(Verdict::Diverged { mode, differences }) = &verdict {
            for d in differences.iter().take(4) {
                let (what, original, other) = d.describe();
                match (d, original) {
                    (Difference::Stdout { .. } | Difference::Global { .. } | Difference::Terminal { .. }, Some(original)) => {
                        let _ = writeln!(m, "- {}: as written {}; {mode} {}", md::text(&what), side(&original), side(&other));
                    }
                    _ => {
                        let _ = writeln!(m, "- {} ({mode}): {}", md::text(&what), side(&other));
                    }
                }
            }
            if differences.len() > 4 {
                let _ = writeln!(m, "- and {} more differences", differences.len() - 4);
            }
        }
        // The replay command is made here, not copied from the file's
        // header: a run directory's files may say anything.
        let reduced = f.path.join("reduced.py");
        let (which, text, shown) = match std::fs::read_to_string(&reduced) {
            Ok(t) => ("reduced", t, reduced),
            Err(_) => (
                "as generated (not reduced)",
                std::fs::read_to_string(f.path.join("program.py")).unwrap_or_default(),
                f.path.join("program.py"),
            ),
        };
        let replay = super::findings::replay_command(&f.mode, f.target.as_deref(), &shown);
        let body = crate::reduce::finding::split_header(&text).1.trim();
        let _ = writeln!(m, "\nThe program, {which}:\n\n{}\n", md::block(body, "python"));
        let _ = writeln!(m, "Replay: {}\n", md::code(&replay));
        if kind.findings.len() > 1 {
            let list: Vec<String> = kind.findings.iter().map(|(f, n)| format!("{} ({n})", md::code(&f.id))).collect();
            let _ = writeln!(m, "Its findings (programs each): {}\n", list.join(", "));
        }
    }
    if !s.refusals.is_empty() {
        let _ = writeln!(m, "## Declined by the compiler\n");
        for (reason, n) in by_count(&s.refusals) {
            let _ = writeln!(m, "- {n} × {}", md::text(reason));
        }
    }
    m
}

/// One bug kind: its findings (with their programs), the one shown.
pub struct Kind<'a> {
    /// The `# kind:` id of the findings' reduced programs (a finding not reduced: its own id).
    pub id: String,
    /// The class of difference and the constructs, where reduced.
    pub class: Option<(String, String)>,
    pub findings: Vec<(&'a super::stats::Finding, u64)>,
    pub hits: u64,
    /// The finding whose reduced program is the shortest.
    pub shown: &'a super::stats::Finding,
}

/// A run's findings grouped by bug kind, most programs first.
pub fn group(summary: &Summary) -> Vec<Kind<'_>> {
    let s = &summary.stats;
    let mut kinds: Vec<Kind> = Vec::new();
    let mut sizes: Vec<usize> = Vec::new();
    for f in &s.findings {
        let hits = s.hits.get(&f.id).copied().unwrap_or(1);
        let reduced = std::fs::read_to_string(f.path.join("reduced.py")).ok();
        let line = reduced.as_deref().and_then(|t| {
            crate::reduce::finding::split_header(t).0.iter().find_map(|l| crate::oracles::target_kinds::parse_header_line(l))
        });
        let size = reduced.as_deref().map_or(usize::MAX, |t| crate::reduce::finding::split_header(t).1.trim().lines().count());
        let (id, class) = match line {
            Some((id, class, constructs)) => (id, Some((class, constructs))),
            None => (f.id.clone(), None),
        };
        match kinds.iter().position(|k| k.id == id) {
            Some(i) => {
                let k = &mut kinds[i];
                k.findings.push((f, hits));
                k.hits += hits;
                if size < sizes[i] {
                    k.shown = f;
                    sizes[i] = size;
                }
            }
            None => {
                kinds.push(Kind { id, class, findings: vec![(f, hits)], hits, shown: f });
                sizes.push(size);
            }
        }
    }
    kinds.sort_by_key(|k| std::cmp::Reverse(k.hits));
    for k in &mut kinds {
        k.findings.sort_by_key(|(_, n)| std::cmp::Reverse(*n));
    }
    kinds
}

/// One line of at most 160 characters.
fn clip(s: &str) -> String {
    let line = s.replace('\n', "⏎");
    md::code(&match line.char_indices().nth(160) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None => line,
    })
}

/// A side of a difference ([`Difference::describe`]: long values already
/// cut around where the sides part), on one line.
fn side(s: &str) -> String {
    md::code(&s.replace('\n', "⏎"))
}
