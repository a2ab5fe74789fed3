//! A target's worker process, supervised as stagecheck's own workers are
//! ([`crate::worker::process::Live`]: the socket pair, the deadline, the
//! kill, the last lines of stderr). The worker is started on the first run
//! (and answers `hello` within [`STARTUP`]: TensorFlow's import takes
//! seconds), serves runs until it dies or overruns, and is then replaced:
//! the run it was on is `crashed` (with its exit status or signal and its
//! last stderr lines) or `diverged` (time limit). A reply that is not a
//! frame of the protocol, or not one of its replies, ends the worker the same
//! way (`crashed`: "a reply that does not parse").
//!
//! Every target's worker runs in the jail ([`crate::jail`]: its own process
//! group, killed whole when the worker ends; no network, no host
//! environment, no other process's `/proc`), with a private temporary
//! directory (`TMPDIR` and `HOME`, removed with the worker), and dies with
//! this process.

use super::protocol::{outcome_from_python, Limits, Ready, Reply, Request, VERSION};
use super::Target;
use crate::executor::{Config, Limit, Outcome, Terminal};
use crate::modes::{ModeRun, RefusalInfo};
use crate::worker::process::{no_later, Live, Stop};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// How long a target's worker may take to answer `hello`.
pub const STARTUP: Duration = Duration::from_secs(120);
/// Runs after which a worker is replaced between runs (AutoGraph keeps
/// every converted function and its temporary module).
pub const RECYCLE_RUNS: u64 = 2000;
/// Time a target's run may take past the run's limit before it is killed
/// (a reply in flight, the target's own bookkeeping).
pub const GRACE: Duration = Duration::from_millis(500);

pub struct TargetProcess {
    target: Target,
    config: Config,
    live: Option<(Live, Option<TempDir>)>,
    ready: Option<Ready>,
    /// Workers started so far (tests: a dead one is replaced).
    pub started: u64,
    /// No wait outlasts it (`crate::worker::Worker::set_deadline`).
    pub deadline: Option<Instant>,
}

/// A worker's private temporary directory, removed with it.
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

impl TargetProcess {
    /// A supervisor for `target`'s workers; the first starts now, so that a
    /// target that cannot start says why before any run.
    pub fn new(target: &Target, config: Config) -> Result<TargetProcess, String> {
        let mut p = TargetProcess { target: target.clone(), config, live: None, ready: None, started: 0, deadline: None };
        p.start()?;
        Ok(p)
    }

    /// Starts one worker of `target` and returns its `ready` (an
    /// executable's modes are known this way).
    pub fn probe(target: &Target) -> Result<Ready, String> {
        let mut p = TargetProcess::new(target, Config::default())?;
        Ok(p.ready.take().expect("started"))
    }

    pub fn target(&self) -> &Target {
        &self.target
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    /// New limits for the next runs (the time limit is this side's; the
    /// others reach the next worker's hello).
    pub fn set_config(&mut self, config: Config) {
        self.config = config;
    }

    /// What the last worker said it is (name, version, modes).
    pub fn ready(&self) -> Option<&Ready> {
        self.ready.as_ref()
    }

    /// The running worker's process id (tests kill it).
    pub fn pid(&self) -> Option<u32> {
        self.live.as_ref().map(|(l, _)| l.pid())
    }

    fn start(&mut self) -> Result<(), String> {
        // One directory per worker of this process (several supervisors run
        // at once: fuzz threads, the reducer).
        static WORKERS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = WORKERS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("stagecheck-target-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let tmp = TempDir(dir);
        let mut command = self.target.policy(&tmp.0).command(&self.target.program, &self.target.args)?;
        let mut live = Live::spawn(&mut command)
            .map_err(|e| format!("target {}: cannot start {}: {e}", self.target.name, self.target.program.display()))?;
        self.started += 1;
        let hello = Request::Hello { protocol: VERSION, limits: Limits::of(&self.config) };
        let answer = live.send(&hello).and_then(|()| live.receive::<Reply>(no_later(Instant::now() + STARTUP, self.deadline)));
        let ready = match answer {
            Ok(Reply::Ready(ready)) => ready,
            Ok(_) => {
                return Err(format!(
                    "target {}: {}",
                    self.target.name,
                    live.end("it answered hello with something other than ready".into())
                ))
            }
            Err(Stop::Timeout) => {
                return Err(format!("target {}: {}", self.target.name, live.end("it did not answer hello in time".into())))
            }
            Err(Stop::Dead(why)) => return Err(format!("target {}: {}", self.target.name, live.end(why))),
        };
        self.live = Some((live, Some(tmp)));
        self.ready = Some(ready);
        Ok(())
    }

    /// Runs `source` in `mode` on the worker (started again if the last one
    /// was lost): the mode's run as stagecheck's own modes report theirs,
    /// and for a `fell_back` reply the refusal it becomes where it agrees.
    pub fn run(&mut self, source: &str, path: &str, mode: crate::modes::Mode) -> (ModeRun, Option<RefusalInfo>) {
        let mut fell_back = None;
        let run = self.run_reply(source, path, mode, &mut fell_back);
        (run, fell_back)
    }

    fn run_reply(&mut self, source: &str, path: &str, mode: crate::modes::Mode, fell_back: &mut Option<RefusalInfo>) -> ModeRun {
        let clock = Instant::now();
        let lost = |terminal| ModeRun::Ran { outcome: Outcome::lost(terminal, clock.elapsed().as_micros() as u64) };
        if self.live.is_none() {
            if let Err(why) = self.start() {
                return lost(Terminal::Crashed { message: format!("the target's worker could not start: {why}") });
            }
        }
        let (live, _) = self.live.as_mut().expect("started above");
        let request = Request::Run { source, path, mode: mode.name() };
        let deadline = no_later(clock + self.config.time_limit + GRACE, self.deadline);
        match live.send(&request).and_then(|()| live.receive::<Reply>(deadline)) {
            Ok(Reply::Outcome(outcome)) => {
                self.served();
                ModeRun::Ran { outcome: outcome_from_python(outcome) }
            }
            Ok(Reply::FellBack { outcome, reason, line }) => {
                self.served();
                *fell_back = Some(RefusalInfo { line, construct: super::REFUSAL.into(), reason });
                ModeRun::Ran { outcome: outcome_from_python(outcome) }
            }
            Ok(Reply::Refused { reason, line }) => {
                self.served();
                ModeRun::Refused { error: RefusalInfo { line, construct: super::REFUSAL.into(), reason } }
            }
            Ok(Reply::Uncompilable { message, line }) => ModeRun::Uncompilable { message, line },
            Ok(Reply::Crashed { message, line }) => {
                self.served();
                ModeRun::ConverterCrashed { message: if line > 0 { format!("line {line}: {message}") } else { message } }
            }
            Ok(Reply::Skipped(why)) => {
                ModeRun::Refused { error: RefusalInfo { line: 0, construct: super::REFUSAL.into(), reason: format!("skipped: {why}") } }
            }
            Ok(Reply::Ready(_)) => lost(Terminal::Crashed { message: self.retire("it answered a run with ready".into()) }),
            Err(Stop::Timeout) => {
                self.retire(String::new());
                lost(Terminal::Diverged { limit: Limit::Time })
            }
            Err(Stop::Dead(why)) => lost(Terminal::Crashed { message: self.retire(why) }),
        }
    }

    /// Counts a run served; a worker past [`RECYCLE_RUNS`] is replaced.
    fn served(&mut self) {
        if let Some((live, _)) = &mut self.live {
            live.runs += 1;
            if live.runs >= RECYCLE_RUNS {
                self.retire(String::new());
            }
        }
    }

    /// Ends the worker; how it ended, in words.
    fn retire(&mut self, why: String) -> String {
        match self.live.take() {
            Some((live, _tmp)) => live.end(why).replacen("the worker process", "the target's worker", 1),
            None => why,
        }
    }
}

impl Drop for TargetProcess {
    fn drop(&mut self) {
        self.retire(String::new());
    }
}
