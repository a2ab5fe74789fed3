//! `stagecheck corpus add`: a (reduced) finding becomes a corpus entry, one
//! file with the corpus header (id, construct, modes, expect, reason,
//! about) plus its origin and status. The expected verdict is what `check`
//! gives now: a divergence is `open` (a live bug: replay fails once it is
//! fixed, and the entry is updated), or `accepted` with a reason
//! (`--accepted`); an agreement is `fixed`; a refusal is `refused`, with
//! the refusal's reason. The written entry is replayed before `add`
//! returns; an entry that would not replay is not kept. A finding under a
//! target (its replay command's `--target`) is checked on that target and
//! its entry headed by `# target:` and the target's `# version:`. Each
//! header value is one line whatever the file's name or the program's
//! output hold ([`header_value`]).

use super::{files, header_value, Entry};
use crate::check::check;
use crate::modes::Mode;
use crate::oracles::convergence::{Difference, Verdict};
use crate::reduce::finding::{header_modes, header_target, split_header, Target};
use crate::worker::Worker;
use std::path::{Path, PathBuf};

pub struct Options {
    /// The corpus directory the entry goes to.
    pub dir: PathBuf,
    pub construct: Option<String>,
    pub id: Option<String>,
    pub modes: Option<Vec<Mode>>,
    /// Why the divergence is accepted (the entry is then `accepted`).
    pub accepted: Option<String>,
    pub about: Option<String>,
}

/// Adds `file` to the corpus; the new entry's path. Never overwrites.
pub fn add(file: &Path, options: &Options, worker: &mut Worker) -> Result<PathBuf, String> {
    let text = std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
    let (header, body) = split_header(&text);
    let modes = options.modes.clone().or_else(|| header_modes(&header));
    let under_test = header_target(&header).map(|t| crate::targets::Target::resolve(&t)).transpose()?;
    let mut target_worker = match &under_test {
        Some(t) => Some(Worker::for_target(t, crate::executor::Config::default())?),
        None => None,
    };
    let modes = match &under_test {
        Some(t) => t.modes_of(&modes.unwrap_or_else(|| t.modes.clone()))?,
        None => modes.unwrap_or_else(|| Mode::ALL.to_vec()),
    };
    let version = target_worker.as_ref().and_then(|w| w.target_ready()).map(|r| r.version.clone());
    let report = check(target_worker.as_mut().unwrap_or(worker), body, &file.display().to_string(), &modes).map_err(|e| e.to_string())?;
    let target = Target::of(&report.verdict);
    let (expect, reason, status) = match (&report.verdict, &options.accepted) {
        (Verdict::Diverged { .. }, Some(why)) => ("diverged", Some(format!("accepted: {why}")), "accepted"),
        (other, Some(_)) => {
            return Err(format!(
                "{}: --accepted, but the modes do not diverge now: {}",
                file.display(),
                serde_json::to_string(other).unwrap_or_default()
            ))
        }
        (Verdict::Diverged { mode, differences }, None) => ("diverged", Some(format!("open: {}", describe(*mode, differences))), "open"),
        (Verdict::Refused { construct, reason, .. }, None) => {
            let kind = if construct == "staging" { "StagingError" } else { "ConversionError" };
            ("refused", Some(format!("{kind}: {reason}")), "refused")
        }
        (Verdict::Agree, None) => ("agree", None, "fixed"),
    };
    let dir_name = options.dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "fuzz".into());
    let n = next_number(&options.dir);
    let id = header_value(&options.id.clone().unwrap_or_else(|| default_id(&options.dir, &dir_name, n)));
    if let Some(other) = files(&options.dir).iter().find(|p| Entry::load(p).is_ok_and(|e| e.id == id)) {
        return Err(format!("id {id} is taken by {}", other.display()));
    }
    let slug = target.as_ref().map_or("finding".to_string(), |t| t.to_string().replace('-', "_"));
    let path = options.dir.join(format!("{n:03}_{slug}.py"));
    let origin = origin(file, &header);
    let about = options.about.clone().unwrap_or_else(|| match &target {
        Some(t) => format!("reduced finding {t}, added with stagecheck corpus add"),
        None => "a former finding, added with stagecheck corpus add".to_string(),
    });
    let mut head = vec![
        ("id", id),
        ("construct", options.construct.clone().unwrap_or(dir_name)),
        ("modes", modes.iter().map(|m| m.name()).collect::<Vec<_>>().join(",")),
        ("expect", expect.to_string()),
    ];
    head.extend(reason.map(|r| ("reason", r)));
    if let Some(t) = &under_test {
        head.push(("target", t.name.clone()));
        head.extend(version.map(|v| ("version", v)));
    }
    head.extend([("about", about), ("origin", origin), ("status", status.to_string())]);
    let head: Vec<String> = head.iter().map(|(key, value)| format!("# {key}: {}", header_value(value))).collect();
    let entry = format!("{}\n\n{}", head.join("\n"), body.trim_start_matches('\n'));
    std::fs::create_dir_all(&options.dir).map_err(|e| format!("{}: {e}", options.dir.display()))?;
    // `create_new`: an existing file is never overwritten, even by a race.
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)
        .and_then(|mut f| std::io::Write::write_all(&mut f, entry.as_bytes()));
    written.map_err(|e| format!("{}: {e}", path.display()))?;
    if let Err(e) = Entry::load(&path).and_then(|e| e.replay(worker)) {
        let _ = std::fs::remove_file(&path);
        return Err(format!("the new entry does not replay, not kept: {e}"));
    }
    Ok(path)
}

/// The first difference, in a line (long values cut around where the
/// sides part: [`Difference::line`]).
fn describe(mode: Mode, differences: &[Difference]) -> String {
    differences.first().map_or(String::new(), |d| d.line(mode.name(), false)).replace('\n', " ")
}

/// One more than the largest `NNN_` prefix in `dir`.
fn next_number(dir: &Path) -> usize {
    let numbers = std::fs::read_dir(dir).into_iter().flatten().flatten().filter_map(|e| {
        let name = e.file_name().to_string_lossy().into_owned();
        name.split('_').next()?.parse::<usize>().ok()
    });
    numbers.max().unwrap_or(0) + 1
}

/// `conv-if-004` under `conversion/if`, `staged-while-011` under `staged/while`, else `fuzz-003`.
fn default_id(dir: &Path, name: &str, n: usize) -> String {
    let parent = dir.parent().and_then(|p| p.file_name()).map(|p| p.to_string_lossy().into_owned());
    match parent.as_deref() {
        Some("conversion") => format!("conv-{name}-{n:03}"),
        Some("staged") => format!("staged-{name}-{n:03}"),
        _ => format!("{name}-{n:03}"),
    }
}

/// Seed, index, family and generator version from the file's header (or
/// its finding's `program.py`), the date of the fuzz run (its report
/// directory's name) or today, and the file.
fn origin(file: &Path, header: &[&str]) -> String {
    let seed_line = |lines: &[&str]| {
        lines.iter().find_map(|l| l.strip_prefix("# seed ")).map(|l| format!("seed {}", l.split(" constructs:").next().unwrap_or(l)))
    };
    let program = file.with_file_name("program.py");
    let from_program = || {
        let text = std::fs::read_to_string(&program).ok()?;
        seed_line(&split_header(&text).0)
    };
    let generated = seed_line(header).or_else(from_program);
    let run_date = file.ancestors().find_map(|a| {
        let name = a.file_name()?.to_str()?;
        let date = name.get(..10)?;
        (name.len() == "2026-11-21T08-30-00Z".len() && name.ends_with('Z') && date.chars().filter(|c| *c == '-').count() == 2)
            .then(|| date.to_string())
    });
    let date = run_date.unwrap_or_else(|| crate::fuzz::timestamp()[..10].to_string());
    match generated {
        Some(g) => format!("{g}, {date}, {}", file.display()),
        None => format!("{}, {date}", file.display()),
    }
}
