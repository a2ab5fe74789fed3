//! The watchdog: one thread per executor that ends runs past their limits.
//!
//! RustPython has no instruction budget. It does check, between bytecodes, a
//! channel of closures ("user signals"); the watchdog sends one when a run's
//! deadline passes or its memory flag rises. The wake-up flag behind that
//! channel is process-global, so another interpreter's thread may consume it:
//! the watchdog re-sends every tick until the run is over.
//!
//! A deadline ends the run by panicking with [`LimitPanic`] from inside the VM,
//! which unwinds through every Python frame at once: no `except` or `finally`
//! of the program can catch it and go on looping. The executor catches the
//! unwind and replaces the interpreter.
//!
//! A soft memory limit raises a catchable `MemoryError` instead, and only where
//! CPython's own eval breaker would raise an asynchronous exception: before a
//! call, a loop's backward jump or a frame's `RESUME` ([`at_safe_point`]).
//! RustPython runs user signals before *every* instruction, but its exception
//! table (like CPython's) is only right where an exception can really happen:
//! an exception raised inside a handler's own cleanup sequence unwinds to a
//! stack depth the frame does not have, and the cleanup's `COPY 3` then reads
//! below the stack (a use-after-free, seen as a segfault in ~1 run in 8 of a
//! loop that catches MemoryError). Elsewhere the signal is put back and the
//! watchdog sends it again after [`RETRY`], until it meets a safe point.
//! After one, the next waits until the run has grown further
//! ([`crate::alloc::Budget::memory_error_raised`]).

use crate::alloc::{OVER_HARD, OVER_SOFT, UNDER};
use crate::outcome::Limit;
use rustpython_vm::bytecode::Instruction;
use rustpython_vm::signal::UserSignalSender;
use rustpython_vm::VirtualMachine;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

/// The panic payload that ends a run which hit a limit.
#[derive(Debug, Clone, Copy)]
pub struct LimitPanic(pub Limit);

const TICK: Duration = Duration::from_millis(5);
/// How long a `MemoryError` put back at an unsafe point waits to be sent
/// again: long enough for the VM to leave the signal handler it is in (a
/// signal sent while the VM drains its channel is run in the same drain,
/// at the same instruction, forever), short enough to land within a few
/// hundred instructions.
const RETRY: Duration = Duration::from_micros(200);

struct Shared {
    /// Generation of the armed run; 0 when no run is armed.
    armed: AtomicU64,
    /// Deadline of the armed run, in nanoseconds since `epoch`.
    deadline: AtomicU64,
    memory: Arc<AtomicU8>,
    /// A `MemoryError` was put back (not at a safe point): send it again soon.
    retry: AtomicBool,
    shutdown: AtomicBool,
    epoch: Instant,
}

pub struct Watchdog {
    shared: Arc<Shared>,
    next_generation: u64,
    thread: Option<thread::JoinHandle<()>>,
}

impl Watchdog {
    pub fn new(sender: UserSignalSender, memory: Arc<AtomicU8>, memory_limit: usize) -> Watchdog {
        let shared = Arc::new(Shared {
            armed: AtomicU64::new(0),
            deadline: AtomicU64::new(u64::MAX),
            memory,
            retry: AtomicBool::new(false),
            shutdown: AtomicBool::new(false),
            epoch: Instant::now(),
        });
        let s = shared.clone();
        let thread = thread::Builder::new()
            .name("stagecheck-watchdog".into())
            .spawn(move || watch(&s, &sender, memory_limit))
            .expect("spawn watchdog thread");
        Watchdog { shared, next_generation: 1, thread: Some(thread) }
    }

    /// Arms the watchdog for a run that must end within `limit`.
    pub fn arm(&mut self, limit: Duration) {
        let gen = self.next_generation;
        self.next_generation += 1;
        let deadline = self.shared.epoch.elapsed() + limit;
        self.shared.deadline.store(deadline.as_nanos() as u64, Ordering::SeqCst);
        self.shared.armed.store(gen, Ordering::SeqCst);
    }

    /// The run is over: nothing the watchdog sent from now on has any effect.
    pub fn disarm(&mut self) {
        self.shared.armed.store(0, Ordering::SeqCst);
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        self.shared.shutdown.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            t.thread().unpark();
            let _ = t.join();
        }
    }
}

fn watch(shared: &Arc<Shared>, sender: &UserSignalSender, memory_limit: usize) {
    while !shared.shutdown.load(Ordering::SeqCst) {
        thread::park_timeout(TICK);
        if shared.retry.swap(false, Ordering::SeqCst) {
            thread::sleep(RETRY);
        }
        let gen = shared.armed.load(Ordering::SeqCst);
        if gen == 0 {
            continue;
        }
        let now = shared.epoch.elapsed().as_nanos() as u64;
        let action = if now >= shared.deadline.load(Ordering::SeqCst) {
            Some(Action::End(Limit::Time))
        } else {
            match shared.memory.swap(UNDER, Ordering::Relaxed) {
                OVER_HARD => Some(Action::End(Limit::Memory)),
                OVER_SOFT => Some(Action::MemoryError),
                _ => None,
            }
        };
        let Some(action) = action else { continue };
        let s = shared.clone();
        let me = thread::current();
        // The closure runs on the VM's thread between bytecodes; it acts only
        // if the run it was sent for is still the one running.
        let _ = sender.send(Box::new(move |vm| {
            if s.armed.load(Ordering::SeqCst) != gen {
                return Ok(());
            }
            match action {
                // Already unwinding (a finalizer runs as a limit's panic drops
                // a frame): a second panic would abort the process. An
                // exception ends the finalizer instead; the unwinding goes on.
                Action::End(limit) if std::thread::panicking() => {
                    Err(vm.new_runtime_error(format!("stagecheck: {limit} reached during a finalizer")))
                }
                Action::End(limit) => std::panic::panic_any(LimitPanic(limit)),
                Action::MemoryError if !at_safe_point(vm) => {
                    // Not here: put the flag back and have it sent again soon.
                    s.memory.fetch_max(OVER_SOFT, Ordering::Relaxed);
                    s.retry.store(true, Ordering::SeqCst);
                    me.unpark();
                    Ok(())
                }
                Action::MemoryError => {
                    crate::alloc::Budget::memory_error_raised();
                    Err(vm.new_memory_error(format!("stagecheck: run exceeded its memory limit of {} MiB", memory_limit >> 20)))
                }
            }
        }));
    }
}

/// Whether the instruction the VM is about to run is one where CPython checks
/// its eval breaker, so where an asynchronous exception may be raised: a call
/// (which may raise anyway), a backward jump (not the `NO_INTERRUPT` one that
/// handlers use), or `RESUME`. Outside any frame (a finalizer run between
/// runs) there is no exception table to get wrong.
fn at_safe_point(vm: &VirtualMachine) -> bool {
    let Some(frame) = vm.current_frame() else { return true };
    // The run loop advances `lasti` before it checks signals.
    let Some(at) = (frame.lasti() as usize).checked_sub(1) else { return true };
    if at >= frame.code.instructions.len() {
        return false;
    }
    matches!(
        frame.code.instructions.read_op(at).deoptimize(),
        Instruction::Call { .. }
            | Instruction::CallKw { .. }
            | Instruction::CallFunctionEx
            | Instruction::JumpBackward { .. }
            | Instruction::Resume { .. }
    )
}

#[derive(Clone, Copy)]
enum Action {
    End(Limit),
    MemoryError,
}
