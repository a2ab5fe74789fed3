//! stagecheck: differential fuzzing of Python staging compilers.
//!
//! The root crate holds what sits above the executor: reading programs
//! ([`input`]) and, as they land, the oracle, the fuzz loop, the reducer, the
//! corpus and the reports. The CLI (`src/main.rs`) is a thin layer over it.

pub mod check;
pub mod close;
pub mod corpus;
pub mod cpython;
pub mod fuzz;
pub mod html;
pub mod input;
pub mod modes;
pub mod oracle;
pub mod reduce;
pub mod refusals;
pub mod worker;

pub use stagecheck_executor as executor;
