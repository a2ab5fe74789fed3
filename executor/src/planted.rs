//! The executor's own planted bugs (feature `planted-bugs`, for tests of the
//! fuzzer only): rendering (`render.rs`) and the restore between runs
//! (`snapshot.rs`). The staging runtime's are `stagecheck_staging::planted`,
//! the graph executor's `stagecheck_graph::planted`; the catalogue of all
//! is the root crate's `stagecheck::planted::CATALOGUE`.

#[cfg(feature = "planted-bugs")]
pub use stagecheck_staging::planted::install;
pub use stagecheck_staging::planted::{active, active_once, GRAPH};

/// This crate's planted bugs.
pub const EXECUTOR: &[&str] = &["render_bool_as_int", "render_attrs_unsorted", "restore_compares_keys_only"];

/// The planted bugs of this crate and of the runtime it installs.
pub fn names() -> impl Iterator<Item = &'static str> {
    stagecheck_staging::planted::names().chain(EXECUTOR.iter().copied())
}
