//! A fuzz run's report directory: `summary.json` (everything counted, the
//! run's parameters and time series), `summary.md` (what a person reads the
//! morning after) and `index.html` (the same with plots, [`crate::html`]).
//! [`merge`] makes one report of several runs (shards over seeds or
//! machines); [`rebuild`] writes the pages again from `summary.json`.

use super::stats::{Sample, Stats};
use super::{Families, Options};
use crate::markdown as md;
use crate::modes::Mode;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// What `summary.json` holds.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Summary {
    /// Wall time: the longest run's (shards run at the same time).
    pub seconds: f64,
    pub programs: u64,
    /// Three-way checks per second: the runs' own rates, summed.
    pub checks_per_second: f64,
    /// The counts, summed over runs; findings once per signature.
    pub stats: Stats,
    /// The runs this report covers: one, or the shards of a merged report.
    pub runs: Vec<Run>,
    /// What [`Summary::read`] left out of the file, each a line saying why
    /// (`super::run_dir`); never written.
    #[serde(skip)]
    pub refused: Vec<String>,
}

/// One fuzz run of a report.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Run {
    /// Its report directory: `.` for the report's own run, else as given to
    /// `stagecheck report`.
    pub dir: String,
    pub parameters: Parameters,
    pub seconds: f64,
    pub programs: u64,
    pub checks_per_second: f64,
    pub new_findings: usize,
    pub timeline: Vec<Sample>,
}

/// How a run was started (`stagecheck fuzz`'s arguments).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Parameters {
    pub seed: u64,
    pub families: Families,
    pub jobs: usize,
    pub time_seconds: f64,
    pub max_programs: Option<u64>,
    pub stop_at_first: bool,
    pub time_limit_seconds: f64,
    pub memory_limit_mib: usize,
    /// Time to reduce each new finding (0: not reduced).
    #[serde(default)]
    pub reduce_seconds: f64,
    /// The CPython compared with (`--oracle cpython`), if any.
    #[serde(default)]
    pub oracle_cpython: Option<String>,
    /// The modes each program ran in (empty in reports older than `--gpu`: the three).
    #[serde(default)]
    pub modes: Vec<Mode>,
    /// The stagecheck version that ran it.
    pub version: String,
}

impl Parameters {
    /// The modes as a list (`original, unstaged, staged`).
    pub fn modes_text(&self) -> String {
        let modes = if self.modes.is_empty() { super::MODES } else { &self.modes[..] };
        modes.iter().map(|m| m.name()).collect::<Vec<_>>().join(", ")
    }

    pub fn of(options: &Options) -> Parameters {
        Parameters {
            seed: options.seed,
            families: options.families,
            jobs: options.jobs,
            time_seconds: options.time.as_secs_f64(),
            max_programs: options.max_programs,
            stop_at_first: options.stop_at_first,
            time_limit_seconds: options.exec.time_limit.as_secs_f64(),
            memory_limit_mib: options.exec.memory_limit >> 20,
            reduce_seconds: options.reduce_time.as_secs_f64(),
            oracle_cpython: options.cpython.as_ref().map(|p| p.version.clone()),
            modes: options.modes.clone(),
            version: env!("CARGO_PKG_VERSION").to_string(),
        }
    }
}

impl Summary {
    /// The report of one run.
    pub fn of_run(options: &Options, stats: &Stats) -> Summary {
        let run = Run {
            dir: ".".into(),
            parameters: Parameters::of(options),
            seconds: stats.elapsed.as_secs_f64(),
            programs: stats.programs,
            checks_per_second: stats.rate(),
            new_findings: stats.findings.len(),
            timeline: stats.timeline.clone(),
        };
        Summary {
            seconds: run.seconds,
            programs: run.programs,
            checks_per_second: run.checks_per_second,
            stats: stats.clone(),
            runs: vec![run],
            refused: Vec::new(),
        }
    }

    /// Reads `DIR/summary.json`, keeping only the findings that name their
    /// own directory under `DIR/findings/` ([`super::run_dir`]; the others
    /// in [`Summary::refused`]). `Err` when it had findings and none is left.
    pub fn read(dir: &Path) -> Result<Summary, String> {
        let path = dir.join("summary.json");
        let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut summary: Summary = serde_json::from_str(&text)
            .map_err(|e| format!("{}: not a stagecheck fuzz summary (or one from an older version): {e}", path.display()))?;
        summary.stats.elapsed = std::time::Duration::from_secs_f64(summary.seconds.max(0.0));
        let had = summary.stats.new_findings();
        super::run_dir::keep_valid(&path, dir, &mut summary.stats.findings, &mut summary.refused);
        if let Some(c) = &mut summary.stats.cpython {
            super::run_dir::keep_valid(&path, dir, &mut c.findings, &mut summary.refused);
        }
        if had > 0 && summary.stats.new_findings() == 0 {
            return Err(format!("no valid finding left, nothing written:\n{}", summary.refused.join("\n")));
        }
        Ok(summary)
    }
}

/// Writes the three files of a report into `dir`.
pub fn write(dir: &Path, summary: &Summary) -> std::io::Result<()> {
    atomic_write(&dir.join("summary.json"), serde_json::to_string_pretty(summary).unwrap_or_default().as_bytes())?;
    write_pages(dir, summary)
}

/// `summary.md` and `index.html` from the summary.
fn write_pages(dir: &Path, summary: &Summary) -> std::io::Result<()> {
    atomic_write(&dir.join("summary.md"), markdown(summary).as_bytes())?;
    atomic_write(&dir.join("index.html"), crate::html::report_page::render(summary, dir).as_bytes())
}

/// Writes `summary.md` and `index.html` of `dir` again from its `summary.json`.
pub fn rebuild(dir: &Path) -> Result<Summary, String> {
    let summary = Summary::read(dir)?;
    write_pages(dir, &summary).map_err(|e| format!("{}: {e}", dir.display()))?;
    Ok(summary)
}

/// Merges the reports in `dirs` into one report in `out`: counts summed,
/// coverage and refusals added up, findings once per signature (their
/// directories copied into `out/findings/`), every run's time series kept.
pub fn merge(dirs: &[PathBuf], out: &Path) -> Result<Summary, String> {
    let io = |e: std::io::Error| format!("{}: {e}", out.display());
    // Every summary is read (and checked) before anything is written.
    let parts = dirs.iter().map(|dir| Ok((dir, Summary::read(dir)?))).collect::<Result<Vec<_>, String>>()?;
    std::fs::create_dir_all(out.join("findings")).map_err(io)?;
    let mut stats = Stats::new();
    let mut runs = Vec::new();
    let mut refused = Vec::new();
    for (dir, mut part) in parts {
        refused.append(&mut part.refused);
        for f in &part.stats.findings {
            if stats.findings.iter().any(|g| g.id == f.id) {
                continue;
            }
            // Read as it was checked (`Summary::read`): a finding's own
            // directory, not a link to one elsewhere.
            let from = dir.join("findings").join(&f.id);
            let to = out.join("findings").join(&f.id);
            if std::fs::symlink_metadata(&from).is_ok_and(|m| m.is_dir()) && !to.exists() {
                copy_dir_atomic(&from, &to).map_err(io)?;
            }
        }
        stats.merge(&part.stats);
        for mut run in part.runs {
            run.dir = if run.dir == "." { dir.display().to_string() } else { dir.join(&run.dir).display().to_string() };
            runs.push(run);
        }
    }
    for f in &mut stats.findings {
        let copied = out.join("findings").join(&f.id);
        if copied.is_dir() {
            f.path = copied;
        }
    }
    let summary = Summary {
        seconds: stats.elapsed.as_secs_f64(),
        programs: stats.programs,
        checks_per_second: runs.iter().map(|r| r.checks_per_second).sum(),
        stats,
        runs,
        refused,
    };
    write(out, &summary).map_err(io)?;
    Ok(summary)
}

/// Copies a finding's directory (plain files only) under a temporary name,
/// then renames it into place, as the fuzz loop writes findings.
fn copy_dir_atomic(from: &Path, to: &Path) -> std::io::Result<()> {
    let name = to.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = to.with_file_name(format!(".tmp-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        if entry.file_type()?.is_file() {
            write_synced(&tmp.join(entry.file_name()), &std::fs::read(entry.path())?)?;
        }
    }
    std::fs::rename(&tmp, to)
}

pub fn markdown(summary: &Summary) -> String {
    let s = &summary.stats;
    let mut m = String::new();
    let title = if summary.runs.len() == 1 {
        "# stagecheck fuzz run\n".to_string()
    } else {
        format!("# stagecheck fuzz runs ({} merged)\n", summary.runs.len())
    };
    let _ = writeln!(m, "{title}");
    for r in &summary.runs {
        let p = &r.parameters;
        let at = if summary.runs.len() == 1 { String::new() } else { format!("{}: ", md::text(&r.dir)) };
        let _ = writeln!(
            m,
            "- {at}seed {}, families {:?}, modes {}, {} jobs, {:.1} s, {} programs ({:.1} checks/s)",
            p.seed,
            p.families,
            p.modes_text(),
            p.jobs,
            r.seconds,
            r.programs,
            r.checks_per_second
        );
    }
    let _ = writeln!(m, "- {} programs ({:.1} three-way checks/s): {} agree, {} refused as intended (src/oracles/refusals.rs), {} unexpected refusals (findings), {} findings ({} new), {} poisoned by non-determinism, {} slow (agree with an {}x time limit{}), {} invalid{}",
        s.programs, summary.checks_per_second, s.agree, s.refused, s.unexpected_refusals, s.finding_hits, s.findings.len(), s.poisoned, s.slow, super::outcome::SLOW_FACTOR,
        if s.slow > 0 { format!("; the slowest {:.1}x its original's time", s.slow_worst_ratio) } else { String::new() }, s.invalid,
        if s.flushed > 0 { format!(", {} parted ways after the GPU flushed float32 subnormals (WGSL allows it: not findings)", s.flushed) } else { String::new() });
    if s.staged_taken > 0 {
        let _ = writeln!(
            m,
            "- {} staged runs taken from their program's unstaged run, not run again: it called no staged function and never read its mode",
            s.staged_taken
        );
    }
    for (family, n) in &s.per_family {
        let _ = writeln!(m, "- {}: {n} programs, refusal rate {:.1}%", md::text(family), 100.0 * s.refusal_rate(family));
    }
    if s.target.is_some() {
        // A target's findings are one per signature: its bug kinds are read off their reduced programs.
        let kinds = super::kinds::group(summary);
        let _ = writeln!(m, "- {} findings in {} bug kinds (findings whose reduced programs keep the same class of difference and the same constructs; `report --kinds`)", s.findings.len(), kinds.len());
    }
    let _ = writeln!(m, "\n## Findings\n");
    if s.findings.is_empty() {
        let _ = writeln!(m, "None new.");
    }
    for f in &s.findings {
        let _ = writeln!(
            m,
            "- {} (seed {} index {}, at {:.1} s): {}",
            md::code(&f.id),
            f.seed,
            f.index,
            f.at_seconds,
            md::code(&replay_command(f))
        );
    }
    if let Some(c) = &s.cpython {
        m.push_str(&c.markdown());
    }
    if !s.poisoned_cases.is_empty() {
        let _ = writeln!(m, "\n## Poisoned (a finding that did not reproduce)\n");
        for p in &s.poisoned_cases {
            let _ = writeln!(m, "- {}", md::text(p));
        }
    }
    let _ = writeln!(m, "\n## Refusals by reason\n");
    for (reason, n) in by_count(&s.refusals) {
        let _ = writeln!(m, "- {n} × {}", md::text(reason));
    }
    let _ = writeln!(m, "\n## Construct coverage (share of programs, and of its family's)\n");
    for (c, n) in by_count(&s.coverage) {
        let all = 100.0 * n as f64 / s.programs.max(1) as f64;
        let share = family_share(s, c, n);
        let c = md::text(c);
        let _ = match share {
            Some((f, share)) => writeln!(m, "- {c}: {n} ({all:.1}%; {share:.1}% of {f})"),
            None => writeln!(m, "- {c}: {n} ({all:.1}%)"),
        };
    }
    m
}

/// The family of construct `c` (the generator's table) and the share, in
/// percent, of that family's programs that the `n` programs using it are:
/// what a construct's coverage is measured against (the 1% bar of generator/tests/coverage.rs).
pub fn family_share(s: &Stats, c: &str, n: u64) -> Option<(String, f64)> {
    let row = stagecheck_generator::TABLE.iter().find(|r| r.name == c)?;
    let family = row.family.name();
    let of = *s.per_family.get(family)?;
    Some((family.to_string(), 100.0 * n as f64 / of.max(1) as f64))
}

/// The command that replays a finding (its words quoted for the shell).
pub fn replay_command(f: &super::stats::Finding) -> String {
    super::findings::replay_command(&f.mode, f.target.as_deref(), &f.path.join("program.py"))
}

/// A count map's entries, largest first (ties by name).
pub fn by_count(map: &std::collections::BTreeMap<String, u64>) -> Vec<(&str, u64)> {
    let mut v: Vec<(&str, u64)> = map.iter().map(|(k, n)| (k.as_str(), *n)).collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    v
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
