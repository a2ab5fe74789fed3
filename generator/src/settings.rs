//! A compiler under test's generator settings (`Settings`): the table rows
//! it never supports, which no program for it contains whatever its swarm
//! `Config` drew (AutoGraph always declines generators and loops' `else`: a
//! program with one is a refusal, not a test), and whether the fuel counter
//! counts. The fuel's `_tick()` reads and writes a global int at every loop
//! header and function entry; a JIT that guards the values a trace read
//! (TorchDynamo) recompiles every function at every call for it, until its
//! recompile limit. Without fuel `_tick()` does nothing: loops and recursion
//! are bounded by construction (`plain.rs`), and the time limit is the net.
//!
//! The default (`Settings::DEFAULT`, what `generate` uses): fuel on, every
//! row but those printing what only one interpreter's own implementation
//! decides (`set_order`: a set's iteration order), which RustPython's runs and
//! the CPython oracle would see differ; a target running both sides on one
//! CPython takes them (its own `never`). `rebind`: every function is called
//! twice with the same arguments (compiled, then through a JIT's guard
//! cache), every int global is rebound, and every function called a third
//! time (a JIT reusing a compiled function on a stale guard shows there); off
//! by default.

use crate::table::TABLE;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Settings {
    /// Table rows (`table::TABLE` names) never generated.
    pub never: &'static [&'static str],
    /// Whether `_tick()` counts down and raises `OutOfFuel`.
    pub fuel: bool,
    /// Whether the top level rebinds the int globals and calls every function again.
    pub rebind: bool,
}

impl Settings {
    /// Every row but `set_order`, fuel on, no second round of calls.
    pub const DEFAULT: Settings = Settings { never: &["set_order"], fuel: true, rebind: false };

    /// Whether the row `name` may be generated.
    pub fn allows(&self, name: &str) -> bool {
        debug_assert!(TABLE.iter().any(|c| c.name == name), "{name} is a row of the table");
        !self.never.contains(&name)
    }

    /// The rows of `never` that are not rows of the table (a target's
    /// declaration checked by its tests).
    pub fn unknown(&self) -> Vec<&'static str> {
        self.never.iter().copied().filter(|n| !TABLE.iter().any(|c| c.name == *n)).collect()
    }
}

impl Default for Settings {
    fn default() -> Self {
        Settings::DEFAULT
    }
}
