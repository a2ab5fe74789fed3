//! The oracles: what says a run is wrong. Each file holds one oracle's
//! comparison and, where the fuzz loop runs it, its glue (`fuzz.rs`), as
//! wasmtime's `crates/fuzzing/src/oracles/` does; the fuzz loop (`crate::fuzz`)
//! knows them only through these.
//!
//! - [`convergence`]: Snek's convergence property between the modes of one
//!   program (original, unstaged, staged, staged-gpu); [`close`] is its
//!   comparison within a GPU run's per-op float tolerance (the GPU shadow),
//!   [`refusals`] the refusals it accepts as intended.
//! - [`cpython`]: the original under the host's CPython (`--oracle cpython`).
//! - [`gradcheck`]: gradients against float64 central differences
//!   (`check --gradcheck`, and the fuzz loop's gradient programs).
//! - [`target_kinds`]: a compiler under test's finding named by its bug kind
//!   (`--target`, `report --kinds`).

pub mod close;
pub mod convergence;
pub mod cpython;
pub mod gradcheck;
pub mod refusals;
pub mod target_kinds;
