//! stagecheck's executor: runs Python programs in embedded, sandboxed
//! RustPython and reports what they did as a comparable [`Outcome`].
//!
//! - [`Executor`]: one interpreter, reused; every run in a fresh scope, with
//!   its stdout captured and its globals rendered ([`Value`]).
//! - [`ThreadWorker`]: an executor on its own big-stack thread, robust to runs stuck
//!   in native code.
//! - Limits: wall clock ([`watchdog`]), memory ([`alloc`], [`alloc_guards`]),
//!   recursion (RustPython's own RecursionError).
//! - [`sandbox`]: what a program can import and reach. Each interpreter it
//!   builds has the staging compiler under test installed (`stagecheck-staging`:
//!   the `stagecheck` package converted programs import, its native operators
//!   and tensor module), told each run's mode and deadline ([`ThreadWorker::run_in`]).
//! - [`addresses`]: default-repr addresses named by first appearance.
//!
//! The `stagecheck` commands do not use [`ThreadWorker`]: they run programs in
//! worker processes (`stagecheck::worker`, in the root crate), each serving
//! one [`Executor`]. [`ThreadWorker`] remains for in-process runs (the libFuzzer
//! targets, through `stagecheck::worker::Worker::in_process`) and this
//! crate's own tests.
//!
//! RustPython is `rustpython-vm =0.5.0` without default features (0.6 needs
//! rustc >= 1.96); `rustpython-stdlib` supplies `math` only. Its code
//! generator is the patched copy in `executor/vendor/rustpython-codegen/`
//! (put in place by `[patch.crates-io]`; why and what: its `PATCHES.md`).

pub mod addresses;
pub mod alloc;
pub mod alloc_guards;
pub mod bounds;
pub mod bytecode;
mod capture;
mod code_cache;
pub mod config;
pub mod executor;
mod held;
pub mod nesting;
mod os_probe;
pub mod outcome;
mod panics;
pub mod phases;
pub mod planted;
pub mod proxies;
pub mod render;
pub mod sandbox;
mod sizes;
pub mod snapshot;
mod staged_values;
pub mod value;
pub mod watchdog;
pub mod worker;

pub use config::Config;
pub use executor::{Executor, SyntaxError};
pub use outcome::{Frame, Limit, Outcome, Terminal};
pub use phases::Phases;
pub use value::Value;
pub use worker::ThreadWorker;
