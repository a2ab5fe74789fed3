//! A worker: a thread with a stack large enough for RustPython, owning one
//! [`Executor`], fed programs over a channel. It is `Send`, so a fuzz loop can
//! hold one per job. If a run outlives its time limit by [`GRACE`] the VM is
//! stuck in native code (`sum(range(10**12))` never reaches a bytecode
//! boundary): the worker abandons that thread and starts a fresh one, and
//! the run is `diverged (time limit, stuck in native code)`.
//!
//! A thread cannot outlive an abort or a stack overflow of its own process:
//! the `stagecheck` commands run programs in worker processes instead
//! (`src/worker/` of the root crate, which reuses [`STACK_SIZE`] and
//! [`GRACE`]). This thread worker serves in-process runs
//! (`stagecheck::worker::Worker::in_process`: the libFuzzer targets) and
//! this crate's tests.

use crate::config::Config;
use crate::executor::{Executor, SyntaxError};
use crate::outcome::{Limit, Outcome, Terminal};
use crate::phases::Phases;
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

/// Stack of a worker thread: RustPython uses several KiB of native stack per
/// Python frame, and a recursion limit of 1000 must end as RecursionError.
pub const STACK_SIZE: usize = 256 << 20;
/// How long past its time limit a run may take before its thread is abandoned.
pub const GRACE: Duration = Duration::from_secs(2);

type Reply = Result<Outcome, SyntaxError>;
struct Job {
    source: String,
    path: String,
    mode: stagecheck_staging::Mode,
    reply: mpsc::Sender<(Reply, Phases)>,
}

pub struct ThreadWorker {
    config: Config,
    jobs: mpsc::Sender<Job>,
    phases: Phases,
}

impl ThreadWorker {
    pub fn new(config: Config) -> ThreadWorker {
        let jobs = spawn(config.clone());
        ThreadWorker { config, jobs, phases: Phases::default() }
    }

    /// Where the last run's time went, the thread hop included.
    pub fn last_phases(&self) -> Phases {
        self.phases
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Runs one program; see [`Executor::run`].
    pub fn run(&mut self, source: &str, path: &str) -> Result<Outcome, SyntaxError> {
        self.run_in(source, path, stagecheck_staging::Mode::Original)
    }

    /// Runs one program with `sc.function` in `mode` (identity, or staging).
    pub fn run_in(&mut self, source: &str, path: &str, mode: stagecheck_staging::Mode) -> Result<Outcome, SyntaxError> {
        let clock = Instant::now();
        let (reply, answer) = mpsc::channel();
        let job = Job { source: source.to_owned(), path: path.to_owned(), mode, reply };
        if self.jobs.send(job).is_err() {
            self.jobs = spawn(self.config.clone());
            return self.run_in(source, path, mode);
        }
        match answer.recv_timeout(self.config.time_limit + GRACE) {
            Ok((reply, mut phases)) => {
                phases.hop = clock.elapsed().saturating_sub(phases.total());
                self.phases = phases;
                reply
            }
            Err(_) => {
                self.phases = Phases::default();
                // Stuck in native code, or the thread died: start over.
                self.jobs = spawn(self.config.clone());
                let micros = (self.config.time_limit + GRACE).as_micros() as u64;
                Ok(Outcome::lost(Terminal::Diverged { limit: Limit::TimeInNative }, micros))
            }
        }
    }
}

/// Starts a worker thread and waits until its interpreter is built: an
/// interpreter that cannot be built (a broken runtime module) panics here, in
/// the caller, rather than reading as a diverged run.
fn spawn(config: Config) -> mpsc::Sender<Job> {
    let (tx, rx) = mpsc::channel::<Job>();
    let (ready, built) = mpsc::channel::<()>();
    thread::Builder::new()
        .name("stagecheck-worker".into())
        .stack_size(STACK_SIZE)
        .spawn(move || {
            let mut executor = Executor::new(config);
            let _ = ready.send(());
            for job in rx {
                let clock = Instant::now();
                stagecheck_staging::tensors::set_mode(job.mode);
                let reply = executor.run(&job.source, &job.path);
                // What the executor did not time (the tracer's reset, the run's
                // scope dropped) restores state for the next run too.
                let mut phases = executor.last_phases();
                phases.restore += clock.elapsed().saturating_sub(phases.total());
                let _ = job.reply.send((reply, phases));
            }
        })
        .expect("spawn worker thread");
    built.recv().expect("the worker's interpreter could not be built (its panic is printed above)");
    tx
}
