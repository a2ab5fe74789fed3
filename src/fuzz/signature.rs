//! A finding's signature: the kind of divergence, the mode that parted
//! ways, and the constructs of the program. Two findings with the same
//! signature are one finding (the first is kept, later ones counted).

use crate::oracle::{Difference, Verdict};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Signature {
    /// `terminal`, `stdout`, `global`, `crash`, `uncompilable`.
    pub kind: String,
    pub mode: String,
    pub constructs: Vec<String>,
}

impl Signature {
    pub fn of(verdict: &Verdict, constructs: &[&'static str]) -> Signature {
        let (kind, mode) = kind_and_mode(verdict);
        let mut constructs: Vec<String> = constructs.iter().map(|c| c.to_string()).collect();
        constructs.sort();
        constructs.dedup();
        Signature { kind: kind.to_string(), mode, constructs }
    }

    /// A short, stable, file-name-safe id: `stdout-staged-1a2b3c4d`.
    pub fn id(&self) -> String {
        // FNV-1a over the constructs: stable across runs and platforms.
        let mut h: u32 = 0x811C_9DC5;
        for c in &self.constructs {
            for b in c.bytes().chain([0u8]) {
                h ^= b as u32;
                h = h.wrapping_mul(0x0100_0193);
            }
        }
        format!("{}-{}-{h:08x}", self.kind, self.mode)
    }
}

/// The kind of a verdict's first difference and the mode that parted ways
/// (`("none", "")` when the modes did not diverge): what a reduced program
/// must keep of its finding (`src/reduce/finding.rs`).
pub fn kind_and_mode(verdict: &Verdict) -> (&'static str, String) {
    match verdict {
        Verdict::Diverged { mode, differences } => {
            (differences.first().map_or("none", Difference::kind), mode.to_string())
        }
        _ => ("none", String::new()),
    }
}
