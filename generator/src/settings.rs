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
//! The default (`Settings::ALL`) changes nothing: every row, fuel on; the
//! programs of a seed are the same as without settings.

use crate::table::TABLE;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Settings {
    /// Table rows (`table::TABLE` names) never generated.
    pub never: &'static [&'static str],
    /// Whether `_tick()` counts down and raises `OutOfFuel`.
    pub fuel: bool,
}

impl Settings {
    /// Every row, fuel on.
    pub const ALL: Settings = Settings { never: &[], fuel: true };

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
        Settings::ALL
    }
}
