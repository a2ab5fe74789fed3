//! Where programs run: a worker *process* (the same binary, `stagecheck
//! __worker`, speaking [`protocol`]) that keeps one interpreter alive across
//! runs, so that no program can take the `stagecheck` process down. A worker
//! that aborts, overflows its stack, is killed, or sits in native code past
//! its limit is replaced; that run is `crashed` or `diverged`
//! ([`process`]). Every command that runs programs (`run`, `check`, `fuzz`,
//! `reduce`, `corpus`) goes through [`Worker`].
//!
//! [`Worker::in_process`] runs on a thread of this process instead
//! (`executor::ThreadWorker`): for the libFuzzer targets, where the fuzzer's own
//! process is what a crash is meant to end.
//!
//! A lost run brings back nothing the program printed or bound: a worker
//! that died makes it `crashed`, with the worker's exit status or signal and
//! the last lines of its stderr (thread ids dropped, so the same crash reads
//! the same); one silent past the limit plus `executor::worker::GRACE` makes
//! it `diverged (time limit, stuck in native code)`. Between runs a worker
//! whose resident set has grown past a bound over what it held when ready
//! (`process::RECYCLE_GROWTH`) is replaced: RustPython never frees reference
//! cycles, and a fresh worker gives the same results (`scripts/rss` follows
//! the resident sets over a fuzz run). A worker dies with its parent
//! (`PR_SET_PDEATHSIG`) and leaves no core file. `tests/workers.rs`.
//!
//! Before its first run a worker confines itself ([`confine`]: rlimits,
//! Landlock, seccomp), so that a program that got out of the VM still runs
//! no command and reads no host file; [`Worker::confinement`] says how.
//! `STAGECHECK_NO_CONFINE=1` turns that off. `tests/confine.rs`.
//!
//! [`Worker::for_target`] serves a target's runs instead (`crate::targets`:
//! a compiler under test in its own runtime, its worker supervised by
//! [`process::Live`] too); [`Worker::like`] makes another worker of the same
//! kind, so the fuzz loop and the reducer run against whichever they were given.

pub mod confine;
pub mod process;
pub mod protocol;
pub mod serve;

use crate::executor::{self, Config, Outcome, Phases, SyntaxError};
use std::path::PathBuf;

/// Set by the `stagecheck` binary's `main`: this process can serve as a
/// worker, whatever its file is called (a copy or an install under another
/// name used to look for a `stagecheck` beside it, and panicked).
static THIS_BINARY_SERVES: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Called by the `stagecheck` binary before any worker starts: workers run
/// this very executable (`/proc/self/exe`).
pub fn this_binary_serves() {
    THIS_BINARY_SERVES.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// The hidden subcommand a worker process runs.
pub const SUBCOMMAND: &str = "__worker";
/// Names the binary to start workers from, where it is not this one.
pub const EXE_VAR: &str = "STAGECHECK_WORKER_EXE";

pub struct Worker {
    backend: Backend,
    phases: Phases,
}

enum Backend {
    Process(process::Process),
    Thread(executor::ThreadWorker),
    Target(crate::targets::process::TargetProcess),
}

impl Worker {
    /// A worker process (see [`worker_exe`] for which binary it runs).
    pub fn new(config: Config) -> Worker {
        let exe = worker_exe().unwrap_or_else(|why| panic!("{why}"));
        Worker { backend: Backend::Process(process::Process::new(config, exe)), phases: Phases::default() }
    }

    /// A worker thread in this process: a program that aborts ends the process.
    pub fn in_process(config: Config) -> Worker {
        Worker { backend: Backend::Thread(executor::ThreadWorker::new(config)), phases: Phases::default() }
    }

    /// A worker of `target` (its process started now: `Err` says why it cannot).
    pub fn for_target(target: &crate::targets::Target, config: Config) -> Result<Worker, String> {
        let p = crate::targets::process::TargetProcess::new(target, config)?;
        Ok(Worker { backend: Backend::Target(p), phases: Phases::default() })
    }

    /// A worker of `target`'s, or stagecheck's own where there is none.
    pub fn spawn(target: Option<&crate::targets::Target>, config: Config) -> Worker {
        match target {
            Some(t) => Worker::for_target(t, config).unwrap_or_else(|why| panic!("{why}")),
            None => Worker::new(config),
        }
    }

    /// Another worker of the same kind (stagecheck's, or the same target's)
    /// with `config` (and this one's deadline).
    pub fn like(&self, config: Config) -> Worker {
        let mut worker = Worker::spawn(self.target(), config);
        worker.set_deadline(self.deadline());
        worker
    }

    /// Ends every later run at `deadline` at the latest, for a caller with a
    /// budget of its own (the reducer's `--time`): a run still going then
    /// is lost as one past its limit (its worker killed, the next run
    /// starts another), and so is a worker's start. A worker on a thread
    /// ([`Worker::in_process`]) takes none.
    pub fn set_deadline(&mut self, deadline: Option<std::time::Instant>) {
        match &mut self.backend {
            Backend::Process(p) => p.deadline = deadline,
            Backend::Target(t) => t.deadline = deadline,
            Backend::Thread(_) => {}
        }
    }

    /// The deadline set by [`Worker::set_deadline`], if any.
    pub fn deadline(&self) -> Option<std::time::Instant> {
        match &self.backend {
            Backend::Process(p) => p.deadline,
            Backend::Target(t) => t.deadline,
            Backend::Thread(_) => None,
        }
    }

    /// Takes `config`'s limits in place where it can: a target's worker
    /// keeps its process (the supervisor enforces its time limit; starting
    /// TensorFlow again costs seconds); stagecheck's own cannot (its limits
    /// are built into its interpreter): `false`, make another.
    pub fn set_limits(&mut self, config: &Config) -> bool {
        match &mut self.backend {
            Backend::Target(t) => {
                t.set_config(config.clone());
                true
            }
            _ => false,
        }
    }

    /// `f` on a worker like this one whose runs have `time_limit`: this one,
    /// its limits set and put back, where it can take them in place
    /// ([`Worker::set_limits`]), else a new one ([`Worker::like`]).
    pub fn with_time_limit<T>(&mut self, time_limit: std::time::Duration, f: impl FnOnce(&mut Worker) -> T) -> T {
        let normal = self.config().clone();
        let longer = Config { time_limit, ..normal.clone() };
        if self.set_limits(&longer) {
            let result = f(self);
            self.set_limits(&normal);
            result
        } else {
            f(&mut self.like(longer))
        }
    }

    /// The target this worker runs programs under, if any.
    pub fn target(&self) -> Option<&crate::targets::Target> {
        match &self.backend {
            Backend::Target(t) => Some(t.target()),
            _ => None,
        }
    }

    /// What the target's worker said it is (name, version, modes).
    pub fn target_ready(&self) -> Option<&crate::targets::protocol::Ready> {
        match &self.backend {
            Backend::Target(t) => t.ready(),
            _ => None,
        }
    }

    /// Runs `source` in `mode` on the target's worker; with the refusal a
    /// part of it fell back on (run as written), if any.
    ///
    /// # Panics
    /// On a worker that is not a target's.
    pub fn run_target(
        &mut self,
        source: &str,
        path: &str,
        mode: crate::modes::Mode,
    ) -> (crate::modes::ModeRun, Option<crate::modes::RefusalInfo>) {
        match &mut self.backend {
            Backend::Target(t) => t.run(source, path, mode),
            _ => panic!("run_target on stagecheck's own worker"),
        }
    }

    pub fn config(&self) -> &Config {
        match &self.backend {
            Backend::Process(p) => p.config(),
            Backend::Thread(t) => t.config(),
            Backend::Target(t) => t.config(),
        }
    }

    /// Where the last run's time went, the hop to the worker included.
    pub fn last_phases(&self) -> Phases {
        self.phases
    }

    /// The worker process's id (None in process, or between workers).
    pub fn pid(&self) -> Option<u32> {
        match &self.backend {
            Backend::Process(p) => p.pid(),
            Backend::Thread(_) => None,
            Backend::Target(t) => t.pid(),
        }
    }

    /// What confines the worker process (None in process, or between workers).
    pub fn confinement(&self) -> Option<&confine::Confinement> {
        match &self.backend {
            Backend::Process(p) => p.confinement(),
            Backend::Thread(_) => None,
            Backend::Target(_) => None,
        }
    }

    /// Runs one program as written.
    pub fn run(&mut self, source: &str, path: &str) -> Result<Outcome, SyntaxError> {
        self.run_in(source, path, crate::staging::Mode::Original)
    }

    /// Runs one program with `sc.function` in `mode` (identity, or staging).
    pub fn run_in(&mut self, source: &str, path: &str, mode: crate::staging::Mode) -> Result<Outcome, SyntaxError> {
        match &mut self.backend {
            Backend::Process(p) => {
                let (reply, phases) = p.run_in(source, path, mode);
                self.phases = phases;
                reply
            }
            Backend::Thread(t) => {
                let reply = t.run_in(source, path, mode);
                self.phases = t.last_phases();
                reply
            }
            Backend::Target(_) => panic!("a target's worker runs programs through run_target"),
        }
    }
}

/// The `stagecheck` binary workers run: `$STAGECHECK_WORKER_EXE`, else this
/// very executable when it is `stagecheck` (through `/proc/self/exe`, which
/// still runs it after a rebuild replaced the file: workers always speak
/// their parent's protocol), else the `stagecheck` that cargo builds beside
/// a test or bench binary (`target/<profile>/deps/..`).
pub fn worker_exe() -> Result<PathBuf, String> {
    if let Some(exe) = std::env::var_os(EXE_VAR) {
        return Ok(exe.into());
    }
    let me = std::env::current_exe().map_err(|e| format!("cannot find this executable: {e}"))?;
    let named_stagecheck = me.file_name().is_some_and(|s| s.to_string_lossy().trim_end_matches(" (deleted)") == "stagecheck");
    if THIS_BINARY_SERVES.load(std::sync::atomic::Ordering::Relaxed) || named_stagecheck {
        let this = PathBuf::from("/proc/self/exe");
        return Ok(if this.exists() { this } else { me });
    }
    let beside = me.parent().and_then(|deps| deps.parent()).map(|profile| profile.join("stagecheck"));
    match beside {
        Some(exe) if exe.is_file() => Ok(exe),
        _ => Err(format!("no stagecheck binary to run workers from (looked beside {}); build it or set {EXE_VAR}", me.display())),
    }
}
