//! Helper threads for the kernels of large ops, started once per process.
//!
//! A staged RNN step makes two matmuls of a few million multiply-adds each:
//! a fresh thread per op (its stack mapped, its TLS set up, a seccomp-filtered
//! `clone` in a worker) cost a quarter of such a step. The helpers wait on
//! their own channel; [`run_parts`] hands part `i` to helper `i`, runs the
//! last part itself and returns only when every part is done, so a part may
//! borrow from the caller's stack. The parts split an op's outputs, never a
//! reduction: which thread computes an element never changes its bits.

use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::mpsc::{channel, Sender};
use std::sync::{Arc, Condvar, Mutex, OnceLock};

/// How long a helper waiting for work, or a caller waiting for its
/// helpers, spins before it sleeps.
const SPIN: std::time::Duration = std::time::Duration::from_micros(100);

/// One part of a call of [`run_parts`]: the caller's closure with its
/// lifetime erased (sound because the caller waits for `done`).
struct Job {
    work: *const (dyn Fn(usize) + Sync),
    part: usize,
    done: Arc<Done>,
}

// SAFETY: `work` points to a `Sync` closure that outlives the job (the
// caller of `run_parts` blocks until every job has reported to `done`).
unsafe impl Send for Job {}

/// Parts still running, and whether one panicked.
#[derive(Default)]
struct Done {
    state: Mutex<(usize, bool)>,
    changed: Condvar,
}

impl Done {
    fn finish(&self, panicked: bool) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state.0 -= 1;
        state.1 |= panicked;
        self.changed.notify_all();
    }
}

/// The helpers' channels (one fewer than the cores: the caller is the last).
fn helpers() -> &'static Mutex<Vec<Sender<Job>>> {
    static HELPERS: OnceLock<Mutex<Vec<Sender<Job>>>> = OnceLock::new();
    HELPERS.get_or_init(|| {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let mut senders = Vec::new();
        for index in 1..cores {
            let (send, receive) = channel::<Job>();
            let started = std::thread::Builder::new().name(format!("stagecheck-kernel-{index}")).spawn(move || {
                loop {
                    // The next part of a staged loop's next op often comes
                    // within microseconds: spin that long before sleeping.
                    let spun = std::time::Instant::now();
                    let job = loop {
                        match receive.try_recv() {
                            Ok(job) => break Some(job),
                            Err(std::sync::mpsc::TryRecvError::Disconnected) => break None,
                            Err(std::sync::mpsc::TryRecvError::Empty) if spun.elapsed() < SPIN => std::hint::spin_loop(),
                            Err(std::sync::mpsc::TryRecvError::Empty) => break receive.recv().ok(),
                        }
                    };
                    let Some(job) = job else { break };
                    // SAFETY: see `Job`.
                    let work = unsafe { &*job.work };
                    let panicked = catch_unwind(AssertUnwindSafe(|| work(job.part))).is_err();
                    job.done.finish(panicked);
                }
            });
            // A process that may not start threads runs every part itself.
            if started.is_err() {
                break;
            }
            senders.push(send);
        }
        Mutex::new(senders)
    })
}

/// How many parts [`run_parts`] runs at once: the cores this process may use.
pub(crate) fn width() -> usize {
    helpers().lock().map_or(1, |h| h.len() + 1)
}

/// Runs `work(0)`, …, `work(parts - 1)`, each once, on the helpers and this
/// thread; returns when all are done (a part's panic is resumed here).
pub(crate) fn run_parts(parts: usize, work: &(dyn Fn(usize) + Sync)) {
    let done = Arc::new(Done::default());
    let mut handed = 0;
    if parts > 1 {
        let helpers = helpers().lock().unwrap_or_else(|e| e.into_inner());
        for (part, helper) in (0..parts - 1).zip(helpers.iter()) {
            done.state.lock().unwrap_or_else(|e| e.into_inner()).0 += 1;
            // SAFETY (lifetime erased): this function waits for the job below.
            let work: *const (dyn Fn(usize) + Sync + 'static) = unsafe { std::mem::transmute(work) };
            if helper.send(Job { work, part, done: done.clone() }).is_err() {
                done.finish(false);
                break;
            }
            handed += 1;
        }
    }
    let mine = catch_unwind(AssertUnwindSafe(|| (handed..parts).for_each(work)));
    let spun = std::time::Instant::now();
    while done.state.lock().is_ok_and(|s| s.0 > 0) && spun.elapsed() < SPIN {
        std::hint::spin_loop();
    }
    let mut state = done.state.lock().unwrap_or_else(|e| e.into_inner());
    while state.0 > 0 {
        state = done.changed.wait(state).unwrap_or_else(|e| e.into_inner());
    }
    let helper_panicked = state.1;
    drop(state);
    if let Err(panic) = mine {
        resume_unwind(panic);
    }
    assert!(!helper_panicked, "a kernel's helper thread panicked");
}
