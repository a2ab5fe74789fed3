//! Reducing a finding: the predicate is `check` itself. A candidate holds
//! when `check` in the same modes gives a divergence of the same kind
//! (the first difference's, [`crate::oracles::convergence::Difference::kind`], as in
//! [`crate::fuzz::signature`]) in the same mode. The
//! constructs may change (they shrink with the program); the kind and mode
//! may not; under a target (`--target`) neither may the difference's class
//! (its text, numbers and names taken out: [`crate::oracles::target_kinds`]), and
//! `reduced.py` is headed by the bug kind (`# kind:`) that `report --kinds`
//! groups findings by. A candidate that does not compile, is refused, or whose
//! original runs out of time does not hold. Modes after the finding's are
//! not run: the verdict is the first mode that parts ways.
//!
//! Candidates run under a short time limit (20x the slowest run of the
//! current program, at least 50 ms): most candidates a reduction makes end
//! at once, and the ones that loop forever must cost little. A candidate whose only
//! difference is that a mode ran out of time is checked again with 8x that
//! limit (the fuzz loop's rule for slow, not different) before it holds.
//!
//! One worker serves every candidate, replaced when the limit halves (a
//! worker's limit is fixed when it is built).
//!
//! The time budget (`--time`) bounds the whole reduction, the first check
//! included: every worker's runs end at its deadline at the latest
//! (`Worker::set_deadline`), so a candidate that runs to its limit cannot
//! carry the reduction past it. A run cut there is killed (milliseconds)
//! and its candidate does not hold; only writing `reduced.py` follows, and
//! at most the start of a worker begun just before (an interpreter's
//! build, about a tenth of a second; a target's worker keeps its process).
//! A first check cut short is an error (the budget is too small to say
//! what the finding is). `stagecheck fuzz` reduces each
//! new finding into `reduced.py` once its directory is whole
//! (`--reduce-time`). Measured when there were five planted bugs: each
//! reduced to 5-12 lines in 0.1-1.0 s (`tests/planted.rs`).

use super::{reduce, Progress, Reduction};
use crate::check::{check, check_if, CheckReport};
use crate::corpus::header_value;
use crate::executor::{Config, Outcome, Terminal};
use crate::fuzz::outcome::{only_timed_out, SLOW_FACTOR};
use crate::fuzz::signature::kind_and_mode;
use crate::modes::{Mode, ModeRun};
use crate::oracles::convergence::Verdict;
use crate::worker::Worker;
use std::fmt;
use std::path::Path;
use std::time::{Duration, Instant};

/// What a reduction keeps of a finding: its kind and mode (`terminal-staged`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    pub kind: String,
    pub mode: Mode,
}

impl Target {
    /// The finding `verdict` is, if it is one.
    pub fn of(verdict: &Verdict) -> Option<Target> {
        let (kind, mode) = kind_and_mode(verdict);
        Some(Target { kind: kind.to_string(), mode: mode.parse().ok()? })
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.kind, self.mode)
    }
}

impl std::str::FromStr for Target {
    type Err = String;
    fn from_str(s: &str) -> Result<Target, String> {
        const KINDS: &[&str] = crate::oracles::convergence::Difference::KINDS;
        let (kind, mode) = s.split_once('-').ok_or_else(|| format!("{s:?}: a signature is KIND-MODE, e.g. terminal-staged"))?;
        if !KINDS.contains(&kind) {
            return Err(format!("{s:?}: unknown kind {kind:?} (one of {})", KINDS.join(", ")));
        }
        Ok(Target { kind: kind.to_string(), mode: mode.parse()? })
    }
}

pub struct Options {
    pub modes: Vec<Mode>,
    /// The target the finding is under (`--target`), if any: candidates run on its workers.
    pub under_test: Option<crate::targets::Target>,
    /// The limits of a normal check; candidates get a shorter time limit.
    pub exec: Config,
    /// When the reduction ends, whatever it is running (the budget's end).
    pub deadline: Instant,
    /// The finding to keep; `None`: the one the program shows.
    pub target: Option<Target>,
}

pub struct Reduced {
    pub target: Target,
    /// Under a target: the class of difference kept (`crate::oracles::target_kinds::class`).
    pub class: Option<String>,
    pub reduction: Reduction,
}

/// The shortest time limit a candidate runs under.
const MIN_LIMIT: Duration = Duration::from_millis(50);

/// Reduces `source` (a program without header, named `path` in its runs)
/// while its finding holds. `Err` when it shows no finding, or not `target`.
pub fn reduce_source(source: &str, path: &str, options: &Options, progress: &mut dyn FnMut(&Progress)) -> Result<Reduced, String> {
    let modes = &options.modes;
    // Under a target the first check gets the slow limit: a fresh worker's
    // first conversion (the compiler's lazy imports) on a loaded machine
    // would otherwise run out of time, show another finding (a time limit)
    // and leave the finding unreduced. Candidates get the short limit.
    let first_limit = if options.under_test.is_some() { options.exec.time_limit * SLOW_FACTOR } else { options.exec.time_limit };
    let deadline = options.deadline;
    let mut first = Worker::spawn(options.under_test.as_ref(), Config { time_limit: first_limit, ..options.exec.clone() });
    first.set_deadline(Some(deadline));
    let report = check(&mut first, source, path, modes).map_err(|e| e.to_string())?;
    if Instant::now() >= deadline {
        return Err(format!("{path}: the time budget ran out before the first check ended"));
    }
    let target = Target::of(&report.verdict)
        .ok_or_else(|| format!("{path}: no finding to reduce: {}", serde_json::to_string(&report.verdict).unwrap_or_default()))?;
    if let Some(want) = options.target.as_ref().filter(|want| **want != target) {
        return Err(format!("{path}: the program shows {target}, not {want}"));
    }
    // A finding whose original itself runs out of time keeps that.
    let original_diverged = matches!(report.runs.first(), Some((_, ModeRun::Ran { outcome })) if diverged(&outcome.terminal));
    let go_on = |o: &Outcome| original_diverged || !diverged(&o.terminal);
    // Under a target the difference's class is kept too (its text, numbers
    // and names taken out: `crate::oracles::target_kinds`): a compiler's bugs show
    // as the same kind of difference, and a reduction must not drift from
    // one to another the program happens to show later.
    let class = options.under_test.as_ref().map(|_| crate::oracles::target_kinds::class(&report.verdict));
    let shows = |r: Result<Option<CheckReport>, _>| match r {
        Ok(Some(report))
            if Target::of(&report.verdict).as_ref() == Some(&target)
                && class.as_ref().is_none_or(|c| *c == crate::oracles::target_kinds::class(&report.verdict)) =>
        {
            Some(report)
        }
        _ => None,
    };
    // The verdict is the first mode that parts ways: the modes after the
    // finding's cannot change whether a candidate holds, and are not run.
    let upto = modes.iter().position(|m| *m == target.mode).map_or(modes.len(), |i| i + 1);
    let modes = &modes[..upto];
    let mut runner = Runner::new(&options.exec, &report, first);
    let mut holds = |candidate: &str| -> bool {
        // A check the deadline cut short says nothing of the candidate.
        let shows = |r| if Instant::now() < deadline { shows(r) } else { None };
        let Some(mut report) = shows(check_if(runner.worker(), candidate, path, modes, go_on)) else { return false };
        if only_timed_out(&report.verdict) && runner.slow_limit() > runner.limit {
            let Some(again) = shows(check_if(runner.slow(), candidate, path, modes, go_on)) else { return false };
            report = again;
        }
        // The driver keeps every candidate that holds.
        runner.follow(&report);
        true
    };
    let reduction = reduce(source, deadline.saturating_duration_since(Instant::now()), &mut holds, progress)?;
    Ok(Reduced { target, class, reduction })
}

fn diverged(t: &Terminal) -> bool {
    matches!(t, Terminal::Diverged { .. })
}

/// The workers candidates run on, under a time limit that follows the
/// program as it shrinks: 20x its slowest run that ended, at least
/// [`MIN_LIMIT`], at most the normal limit.
struct Runner {
    exec: Config,
    limit: Duration,
    worker: Worker,
    /// For a candidate that only ran out of time: [`SLOW_FACTOR`] x the limit.
    slow: Option<Worker>,
    /// `worker` holds the slow limit (a target's, set in place).
    slow_in_place: bool,
}

impl Runner {
    /// `first`: the worker of the first check, kept where it can take the
    /// candidates' limit in place (a target's).
    fn new(exec: &Config, report: &CheckReport, mut first: Worker) -> Runner {
        let limit = Runner::limit_for(exec, report);
        let config = Config { time_limit: limit, ..exec.clone() };
        let worker = if first.set_limits(&config) { first } else { first.like(config) };
        Runner { exec: exec.clone(), limit, worker, slow: None, slow_in_place: false }
    }

    fn limit_for(exec: &Config, report: &CheckReport) -> Duration {
        let ended = report.runs.iter().filter_map(|(_, r)| match r {
            ModeRun::Ran { outcome } if !diverged(&outcome.terminal) => Some(outcome.micros),
            _ => None,
        });
        (Duration::from_micros(ended.max().unwrap_or(0)) * 20).max(MIN_LIMIT).min(exec.time_limit)
    }

    fn slow_limit(&self) -> Duration {
        (self.limit * SLOW_FACTOR).min(self.exec.time_limit)
    }

    fn slow(&mut self) -> &mut Worker {
        let config = Config { time_limit: self.slow_limit(), ..self.exec.clone() };
        // A target's worker takes the slow limit in place (the next
        // candidate puts the short one back): no second worker to start (a
        // TensorFlow import, seconds, each time the limit halves).
        if self.worker.set_limits(&config) {
            self.slow_in_place = true;
            return &mut self.worker;
        }
        let worker = &self.worker;
        self.slow.get_or_insert_with(|| worker.like(config))
    }

    /// The candidates' worker, at the short limit.
    fn worker(&mut self) -> &mut Worker {
        if std::mem::take(&mut self.slow_in_place) {
            let config = Config { time_limit: self.limit, ..self.exec.clone() };
            self.worker.set_limits(&config);
        }
        &mut self.worker
    }

    /// After a kept candidate: a limit at least halved gets a fresh worker
    /// (a worker's limit is fixed when its interpreter is built).
    fn follow(&mut self, kept: &CheckReport) {
        let limit = Runner::limit_for(&self.exec, kept);
        if limit * 2 <= self.limit {
            self.limit = limit;
            self.slow_in_place = false;
            let config = Config { time_limit: limit, ..self.exec.clone() };
            if !self.worker.set_limits(&config) {
                self.worker = self.worker.like(config);
            }
            self.slow = None;
        }
    }
}

/// A finding file's leading comment lines (its header) and the program after them.
pub fn split_header(text: &str) -> (Vec<&str>, &str) {
    let mut header = Vec::new();
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let l = line.trim_end();
        if l.starts_with('#') {
            header.push(l);
        } else if header.is_empty() || !l.is_empty() {
            break;
        }
        offset += line.len();
    }
    (header, &text[offset..])
}

/// Reduces the finding in `input` (its comment header kept out of the
/// reduction) and writes `out` atomically, headed by what it was reduced
/// from, its signature, the origin lines of `input`'s header (`# seed ...`)
/// and the one command that replays it.
pub fn reduce_file(input: &Path, out: &Path, options: &Options, progress: &mut dyn FnMut(&Progress)) -> Result<Reduced, String> {
    let text = std::fs::read_to_string(input).map_err(|e| format!("{}: {e}", input.display()))?;
    let (header, body) = split_header(&text);
    let reduced = reduce_source(body, &input.display().to_string(), options, progress)?;
    let r = &reduced.reduction;
    let mut head = reduced_head(&reduced.target.to_string(), r, input, &header);
    // Under a target: the bug kind (`report --kinds` groups findings by it).
    head.extend(reduced.class.as_ref().map(|c| crate::oracles::target_kinds::header_line(c, &r.source)));
    head.push(format!("# replay: {}", header_value(&replay_command(&options.modes, options.under_test.as_ref(), out))));
    let file = format!("{}\n\n{}", head.join("\n"), r.source);
    crate::fuzz::report::atomic_write(out, file.as_bytes()).map_err(|e| format!("{}: {e}", out.display()))?;
    Ok(reduced)
}

/// A reduced program's first header lines: what it keeps (`signature`),
/// how far it shrank, what it was reduced from, and the origin lines of
/// `input`'s header (`# seed ...`).
pub fn reduced_head(signature: &str, r: &crate::reduce::Reduction, input: &Path, header: &[&str]) -> Vec<String> {
    let mut head = vec![
        format!(
            "# stagecheck reduced {signature}: {} lines from {} ({} checks in {:.1} s{})",
            r.lines_after,
            r.lines_before,
            r.tests,
            r.elapsed.as_secs_f64(),
            if r.complete { "" } else { ", time budget reached" }
        ),
        format!("# reduced from: {}", header_value(&input.display().to_string())),
    ];
    head.extend(header.iter().filter(|l| l.starts_with("# seed ")).map(|l| l.to_string()));
    head
}

/// An oracle beside the modes' (the gradient check, CPython) whose saved
/// findings are reduced with the oracle itself as the predicate.
pub struct SideOracle<'a> {
    /// The signature's mode (`gradcheck`, `cpython`): the reduced header's
    /// `<kind>-<name>`, and said when the finding no longer reproduces.
    pub name: &'a str,
    /// `check`'s flags that replay it (`--gradcheck`; `--oracle`, `cpython`).
    pub replay: &'a [&'a str],
    /// The kind when the finding has no readable `signature.json` (None:
    /// not reduced).
    pub default_kind: Option<&'a str>,
}

/// Reduces the finding of `oracle` saved in `dir` (its `program.py`) into
/// `reduced.py`, keeping candidates for which `still(worker, candidate,
/// path, kind)` says the oracle fails the same way (the kind of its
/// `signature.json`); headed like the modes' reductions, replayed by
/// `check` with the oracle's flag.
pub fn reduce_side_finding(
    dir: &Path,
    exec: &Config,
    budget: Duration,
    oracle: &SideOracle,
    mut still: impl FnMut(&mut Worker, &str, &str, &str) -> bool,
) -> Result<(), String> {
    let (input, out) = (dir.join("program.py"), dir.join("reduced.py"));
    let text = std::fs::read_to_string(&input).map_err(|e| format!("{}: {e}", input.display()))?;
    let (header, body) = split_header(&text);
    let kind = std::fs::read_to_string(dir.join("signature.json"))
        .ok()
        .and_then(|t| serde_json::from_str::<crate::fuzz::signature::Signature>(&t).ok())
        .map(|s| s.kind)
        .or_else(|| oracle.default_kind.map(str::to_string))
        .ok_or("no signature.json")?;
    let mut worker = Worker::spawn(None, exec.clone());
    let path = input.display().to_string();
    let mut fails = |candidate: &str| still(&mut worker, candidate, &path, &kind);
    if !fails(body) {
        return Err(format!("the {} oracle no longer fails ({kind})", oracle.name));
    }
    let r = reduce(body, budget, &mut fails, &mut |_| {})?;
    let mut head = reduced_head(&format!("{kind}-{}", oracle.name), &r, &input, &header);
    let words = ["stagecheck", "check"].iter().chain(oracle.replay).map(|w| w.to_string()).chain([out.display().to_string()]);
    head.push(format!("# replay: {}", header_value(&format!("{}{}", plant_prefix(), crate::shell::command(words)))));
    let file = format!("{}\n\n{}", head.join("\n"), r.source);
    crate::fuzz::report::atomic_write(&out, file.as_bytes()).map_err(|e| format!("{}: {e}", out.display()))
}

/// The one command that replays a reduced program (in a build with planted
/// bugs, with the `STAGECHECK_PLANT` that chose the bug), each word quoted
/// for the shell ([`crate::shell`]).
pub fn replay_command(modes: &[Mode], under_test: Option<&crate::targets::Target>, file: &Path) -> String {
    let modes: Vec<&str> = modes.iter().map(|m| m.name()).collect();
    let mut words = vec!["stagecheck".to_string(), "check".into()];
    if let Some(t) = under_test {
        words.extend(["--target".into(), t.name.clone()]);
    }
    words.extend(["--modes".into(), modes.join(","), file.display().to_string()]);
    format!("{}{}", plant_prefix(), crate::shell::command(words))
}

/// `STAGECHECK_PLANT=<bug> ` in a build with planted bugs where one is chosen; else nothing.
pub fn plant_prefix() -> String {
    let plant = std::env::var("STAGECHECK_PLANT").ok().filter(|_| cfg!(feature = "planted-bugs"));
    plant.map(|p| format!("STAGECHECK_PLANT={} ", crate::shell::quote(&p))).unwrap_or_default()
}

/// The target a header names: a corpus `# target:` line, or a replay command's `--target`.
pub fn header_target(header: &[&str]) -> Option<String> {
    header.iter().find_map(|l| {
        let name = l.strip_prefix("# target:").or_else(|| l.split_once("--target ").map(|(_, rest)| rest))?;
        crate::shell::first_word(name)
    })
}

/// The modes a header names: a corpus `# modes:` line, or a replay command's `--modes`.
pub fn header_modes(header: &[&str]) -> Option<Vec<Mode>> {
    header.iter().find_map(|l| {
        let list = l.strip_prefix("# modes:").or_else(|| l.split_once("--modes ").map(|(_, rest)| rest))?;
        crate::shell::first_word(list)?.split(',').map(|m| m.trim().parse().ok()).collect()
    })
}

/// `reduced.py` next to a finding's `program.py`; else `STEM.reduced.py` next to `file`.
pub fn default_out(file: &Path) -> std::path::PathBuf {
    if file.file_name().is_some_and(|n| n == "program.py") {
        return file.with_file_name("reduced.py");
    }
    let stem = file.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    file.with_file_name(format!("{stem}.reduced.py"))
}
