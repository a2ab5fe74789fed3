//! Static analyses, kept apart from the rewrites (AutoGraph's `static_analysis`):
//!
//! - [`activity`]: which names a piece of code binds and reads, in one scope;
//! - [`scopes`]: a function's locals, globals, nonlocals and cells;
//! - [`free`]: the names a function leaves to its enclosing scopes (its closure's);
//! - [`liveness`]: which names are read later (the state of a staged statement);
//! - [`definitions`]: reaching definitions, reduced to what conversion needs:
//!   the reads of a local that may find it unbound.

pub mod activity;
pub mod definitions;
pub mod free;
pub mod liveness;
pub mod names;
pub mod scopes;

pub use names::Names;
