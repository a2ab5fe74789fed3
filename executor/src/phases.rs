//! Where one run's time went, for benchmarks (`benches/fuzz.rs`): measured by
//! [`crate::Executor::run`], handed back by [`crate::ThreadWorker::last_phases`].
//! Not part of the [`crate::Outcome`]: two runs' outcomes compare without it.

use std::ops::AddAssign;
use std::time::Duration;

#[derive(Clone, Copy, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Phases {
    /// RustPython's parse and codegen of the source.
    pub compile: Duration,
    /// Guards, capture, budget, watchdog, the fresh scope.
    pub setup: Duration,
    /// The module body itself.
    pub execute: Duration,
    /// The final globals rendered as `Value`s, the exception as a `Terminal`.
    pub render: Duration,
    /// The shared dicts restored ([`crate::sandbox::Snapshot`]), the scope
    /// cleared and dropped, the tracer reset.
    pub restore: Duration,
    /// Handing the job to the worker's thread and the outcome back (waking
    /// each thread: the longer, the busier the machine).
    pub hop: Duration,
}

impl Phases {
    pub const NAMES: [&'static str; 6] = ["compile", "setup", "execute", "render", "restore", "hop"];

    pub fn values(&self) -> [Duration; 6] {
        [self.compile, self.setup, self.execute, self.render, self.restore, self.hop]
    }

    pub fn total(&self) -> Duration {
        self.values().iter().sum()
    }
}

impl AddAssign for Phases {
    fn add_assign(&mut self, o: Phases) {
        self.compile += o.compile;
        self.setup += o.setup;
        self.execute += o.execute;
        self.render += o.render;
        self.restore += o.restore;
        self.hop += o.hop;
    }
}
