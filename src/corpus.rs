//! The regression corpus: one program per file, with a header of
//! `# key: value` comment lines naming what is expected of it.
//!
//! ```text
//! # id: conv-if-001
//! # construct: if
//! # modes: original,unstaged
//! # expect: agree            (or: refused, diverged)
//! # reason: why a refusal or an accepted divergence is expected
//! # about: what the program checks
//! # origin: where it came from (fuzz findings: seed, index, generator version, date)
//! # status: open | accepted | fixed | refused (entries added from findings)
//! # target: autograph        (entries of a compiler under test: `crate::targets`)
//! # version: TensorFlow 2.21.0   (the target's version the entry was made with)
//! ```
//! `replay` re-checks an entry against its expected verdict; [`add`] makes
//! an entry from a (reduced) finding. An entry with a `# target:` runs on
//! that target's worker (one per target and thread, started at its first
//! entry) in [`Entry::check`], the one way `corpus replay` and `corpus
//! review` both run an entry; where the target cannot run
//! ([`Entry::unavailable`]: no TensorFlow venv) both say so ([`Entry::skip`])
//! and skip it.
//! Every value written into a header line goes through [`header_value`].

pub mod add;

use crate::check::{check, CheckReport};
use crate::modes::Mode;
use crate::oracles::convergence::Verdict;
use crate::worker::Worker;
use std::path::{Path, PathBuf};

/// `value` made fit for one `# key: value` line: line breaks and other
/// control characters written as escapes (`\n`, `\r`, `\u{2028}`), so that
/// what a file name, a message or a flag holds stays one header value and
/// never ends its line to start another (`# accepted: ...`) of its own.
pub fn header_value(value: &str) -> String {
    let breaks = |c: char| c.is_control() || c == '\u{2028}' || c == '\u{2029}';
    if !value.contains(breaks) {
        return value.to_string();
    }
    value.chars().map(|c| if breaks(c) { c.escape_default().to_string() } else { c.to_string() }).collect()
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expect {
    Agree,
    Refused,
    Diverged,
}

#[derive(Clone, Debug)]
pub struct Entry {
    pub path: PathBuf,
    pub id: String,
    pub construct: String,
    pub modes: Vec<Mode>,
    pub expect: Expect,
    pub reason: Option<String>,
    pub origin: Option<String>,
    pub status: Option<String>,
    /// The compiler under test it replays on (`# target:`), if any.
    pub target: Option<String>,
    pub source: String,
}

impl Entry {
    /// Reads one corpus file and its header.
    pub fn load(path: &Path) -> Result<Entry, String> {
        let source = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let field = |key: &str| {
            source
                .lines()
                .take_while(|l| l.starts_with('#'))
                .find_map(|l| l.strip_prefix(&format!("# {key}:")).map(|v| v.trim().to_string()))
        };
        let bad = |what: &str| format!("{}:1: corpus header: {what}", path.display());
        let modes = field("modes")
            .ok_or_else(|| bad("no `# modes:` line"))?
            .split(',')
            .map(|m| m.trim().parse::<Mode>())
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| bad(&e))?;
        let expect = match field("expect").as_deref() {
            Some("agree") => Expect::Agree,
            Some("refused") => Expect::Refused,
            Some("diverged") => Expect::Diverged,
            other => return Err(bad(&format!("`# expect:` must be agree, refused or diverged, not {other:?}"))),
        };
        Ok(Entry {
            id: field("id").ok_or_else(|| bad("no `# id:` line"))?,
            construct: field("construct").unwrap_or_default(),
            modes,
            expect,
            reason: field("reason"),
            origin: field("origin"),
            status: field("status"),
            target: field("target"),
            path: path.to_path_buf(),
            source,
        })
    }

    /// Checks the entry; `Err` says how the verdict differs from the expected one.
    pub fn replay(&self, worker: &mut Worker) -> Result<Verdict, String> {
        let report = self.check(worker)?;
        self.judge(&report.verdict)?;
        Ok(report.verdict)
    }

    /// Runs the entry as its header says: on its target's worker when it
    /// has a `# target:` (`corpus replay` and `corpus review` alike), else on
    /// `worker`. `Err`: bad input, or a target that would not start.
    pub fn check(&self, worker: &mut Worker) -> Result<CheckReport, String> {
        let path = self.path.display().to_string();
        let report = match &self.target {
            Some(name) => with_target_worker(name, |w| check(w, &self.source, &path, &self.modes)).map_err(|e| format!("{path}: {e}"))?,
            None => check(worker, &self.source, &path, &self.modes),
        };
        report.map_err(|e| e.to_string())
    }

    /// Whether `verdict` is the one the header expects; `Err` says how it differs.
    pub fn judge(&self, verdict: &Verdict) -> Result<(), String> {
        let path = self.path.display();
        let got = match verdict {
            Verdict::Agree => Expect::Agree,
            Verdict::Refused { .. } => Expect::Refused,
            Verdict::Diverged { .. } => Expect::Diverged,
        };
        if got != self.expect {
            return Err(format!("{path}: expected {:?}, got {}", self.expect, serde_json::to_string(verdict).unwrap_or_default()));
        }
        // A refusal must also be the expected one: the header's reason
        // (after its `ConversionError: `/`StagingError: ` prefix) is part
        // of the verdict's.
        if let (Verdict::Refused { reason, .. }, Some(want)) = (verdict, &self.reason) {
            let want = want.split_once("Error: ").map_or(want.as_str(), |(_, r)| r);
            if !reason.contains(want) {
                return Err(format!("{path}: refused for another reason: {reason:?} (expected {want:?})"));
            }
        }
        Ok(())
    }
}

impl Entry {
    /// Why the entry's target cannot run here (None: it can, or it has none).
    pub fn unavailable(&self) -> Option<String> {
        let name = self.target.as_ref()?;
        crate::targets::Target::resolve(name).err()
    }

    /// The line saying the entry is skipped, when its target cannot run
    /// here ([`Entry::unavailable`]): replay prints it, review lists it.
    pub fn skip(&self) -> Option<String> {
        let why = self.unavailable()?;
        Some(format!("SKIP {}: target {} cannot run here: {why}", self.path.display(), self.target.as_deref().unwrap_or_default()))
    }
}

/// Runs `f` on this thread's worker of the target `name` (started at the
/// first call; a target that cannot start is an error, said again at each call).
fn with_target_worker<T>(name: &str, f: impl FnOnce(&mut Worker) -> T) -> Result<T, String> {
    use std::cell::RefCell;
    use std::collections::HashMap;
    thread_local! {
        static WORKERS: RefCell<HashMap<String, Worker>> = RefCell::new(HashMap::new());
    }
    WORKERS.with(|workers| {
        let mut workers = workers.borrow_mut();
        if !workers.contains_key(name) {
            // A built-in target without its venv: made by the project's
            // script (`corpus replay` skips such entries before this).
            let target = crate::targets::Target::resolve(name).or_else(|why| match crate::targets::builtin_names().contains(&name) {
                true => crate::targets::install_venv(name).and_then(|()| crate::targets::Target::resolve(name)),
                false => Err(why),
            })?;
            let worker = Worker::for_target(&target, crate::executor::Config::default())?;
            workers.insert(name.to_string(), worker);
        }
        Ok(f(workers.get_mut(name).expect("inserted above")))
    })
}

/// Every `.py` file under `dir`, sorted by path.
pub fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else { continue };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "py") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}
