//! Tensors for Python programs: the native module `_stagecheck_tensor`
//! ([`module`]) over the graph crate's tensors and kernels, Python values in
//! and out ([`values`]), and the tracer that records staged functions into
//! graph functions ([`trace`]). The Python side is
//! `executor/runtime/stagecheck/{tensor,staging}.py`.
//!
//! The mode a run is in (original, unstaged, staged) is set per run on the
//! worker's thread ([`set_mode`]); `sc.function` asks it. The tracer's state
//! (the library of traced functions) lives as long as one run.

pub mod module;
pub mod trace;
pub mod values;

use std::cell::{Cell, RefCell};

/// What `sc.function` does in a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Mode {
    /// The program as written: `sc.function` is the identity.
    #[default]
    Original,
    /// The converted program, eager: `sc.function` is the identity.
    Unstaged,
    /// The converted program; `sc.function` traces and runs graphs.
    Staged,
}

thread_local! {
    static MODE: Cell<Mode> = const { Cell::new(Mode::Original) };
    pub(crate) static TRACER: RefCell<trace::Tracer> = RefCell::new(trace::Tracer::default());
}

/// Sets this thread's mode and starts a fresh tracer (before each run).
pub fn set_mode(mode: Mode) {
    MODE.with(|m| m.set(mode));
    TRACER.with(|t| t.borrow_mut().reset());
}

pub fn mode() -> Mode {
    MODE.with(Cell::get)
}

/// The S-expressions of every function the last run traced on this thread.
pub fn graph_text() -> String {
    TRACER.with(|t| stagecheck_graph::sexpr(&t.borrow().library))
}
