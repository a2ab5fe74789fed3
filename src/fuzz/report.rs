//! A fuzz run's report directory: `summary.json` (everything counted) and
//! `summary.md` (what a person reads the morning after).

use super::stats::Stats;
use std::fmt::Write as _;
use std::path::Path;

pub fn write(dir: &Path, stats: &Stats) -> std::io::Result<()> {
    let json = serde_json::json!({
        "seed": stats.seed,
        "families": stats.families,
        "seconds": stats.elapsed.as_secs_f64(),
        "programs": stats.programs,
        "checks_per_second": stats.rate(),
        "stats": stats,
    });
    atomic_write(&dir.join("summary.json"), serde_json::to_string_pretty(&json).unwrap_or_default().as_bytes())?;
    atomic_write(&dir.join("summary.md"), markdown(stats).as_bytes())
}

pub fn markdown(s: &Stats) -> String {
    let mut m = String::new();
    let _ = writeln!(m, "# stagecheck fuzz run\n");
    let _ = writeln!(m, "- seed {}, families {:?}, {:.1} s", s.seed, s.families, s.elapsed.as_secs_f64());
    let _ = writeln!(m, "- {} programs ({:.1} three-way checks/s): {} agree, {} refused, {} findings ({} new), {} poisoned by non-determinism, {} slow (agree with an {}x time limit), {} invalid",
        s.programs, s.rate(), s.agree, s.refused, s.finding_hits, s.findings.len(), s.poisoned, s.slow, super::outcome::SLOW_FACTOR, s.invalid);
    for (family, n) in &s.per_family {
        let _ = writeln!(m, "- {family}: {n} programs, refusal rate {:.1}%", 100.0 * s.refusal_rate(family));
    }
    let _ = writeln!(m, "\n## Findings\n");
    if s.findings.is_empty() {
        let _ = writeln!(m, "None new.");
    }
    for f in &s.findings {
        let _ = writeln!(m, "- `{}` (seed {} index {}, at {:.1} s): `stagecheck check {}`", f.id, f.seed, f.index, f.at_seconds, f.path.join("program.py").display());
    }
    if let Some(c) = &s.cpython {
        m.push_str(&c.markdown());
    }
    let _ = writeln!(m, "\n## Refusals by reason\n");
    let mut refusals: Vec<_> = s.refusals.iter().collect();
    refusals.sort_by(|a, b| b.1.cmp(a.1));
    for (reason, n) in refusals {
        let _ = writeln!(m, "- {n} × {reason}");
    }
    let _ = writeln!(m, "\n## Construct coverage (share of programs)\n");
    let mut cov: Vec<_> = s.coverage.iter().collect();
    cov.sort_by(|a, b| b.1.cmp(a.1));
    for (c, n) in cov {
        let _ = writeln!(m, "- {c}: {n} ({:.1}%)", 100.0 * *n as f64 / s.programs.max(1) as f64);
    }
    m
}

/// Writes `path` whole or not at all: a synced temporary file renamed over it.
pub fn atomic_write(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let tmp = path.with_extension("tmp");
    write_synced(&tmp, bytes)?;
    std::fs::rename(tmp, path)
}

/// Writes `path` and waits until its bytes are on disk.
pub fn write_synced(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let mut f = std::fs::File::create(path)?;
    f.write_all(bytes)?;
    f.sync_all()
}
