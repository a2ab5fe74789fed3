//! Limits and options of the executor.

use std::time::Duration;

/// Serializable: a worker process receives its configuration as JSON.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Config {
    /// Wall-clock limit of one run (default 2 s).
    pub time_limit: Duration,
    /// Bytes a run may allocate beyond what the interpreter held before it
    /// (default 512 MiB): past it, MemoryError; past twice it, diverged.
    pub memory_limit: usize,
    /// Python frames before RecursionError (default 1000, as CPython).
    pub recursion_limit: usize,
    /// Bytes of stdout kept per run (default 1 MiB); the rest is cut and flagged.
    pub stdout_limit: usize,
    /// Native modules a program may import (the `stagecheck` runtime is always
    /// importable, see [`crate::runtime`]).
    pub allowed_modules: Vec<String>,
    /// Exposes `__stagecheck_panic__()` and `__stagecheck_overflow__()` to
    /// programs (tests of crash handling only; the command line sets it when
    /// `STAGECHECK_DEBUG_HOOKS=1`).
    pub debug_panic: bool,
    /// Exposes `__stagecheck_os_probe__(what, arg)` to programs: native code
    /// that tries to run a command, read or create a file, connect... (tests
    /// of the worker processes' OS confinement only; `os_probe.rs`).
    #[serde(default)]
    pub debug_os_probe: bool,
    /// Prints the traced graphs into each outcome (`Outcome::graph`; default
    /// true). The fuzz loop, which never reads them, turns it off.
    pub keep_graph: bool,
    /// Shadows every GPU op with the CPU kernel on the same inputs
    /// (`stagecheck_gpu::GpuDevice`; default true): off only for speed.
    #[serde(default = "yes")]
    pub gpu_shadow: bool,
    /// Checks after every run that the restore of the shared state left it
    /// as built (`Snapshot::leaks`; default true): what leaked is the run's
    /// `Outcome::leaks`, a finding. Off only for speed.
    #[serde(default = "yes")]
    pub leak_check: bool,
}

fn yes() -> bool {
    true
}

impl Default for Config {
    fn default() -> Self {
        Config {
            time_limit: Duration::from_secs(2),
            memory_limit: 512 << 20,
            recursion_limit: 1000,
            stdout_limit: 1 << 20,
            allowed_modules: crate::sandbox::DEFAULT_ALLOWED.iter().map(|s| s.to_string()).collect(),
            debug_panic: false,
            debug_os_probe: false,
            keep_graph: true,
            gpu_shadow: true,
            leak_check: true,
        }
    }
}
