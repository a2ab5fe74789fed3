//! stagecheck: differential fuzzing of Python staging compilers.
//!
//! The root crate holds what sits above the executor: reading programs
//! ([`input`]), the worker processes programs run in ([`worker`]), the modes
//! ([`modes`]) and one program's check ([`check`]), the oracles ([`oracles`]:
//! the modes' convergence, CPython, the gradient check, target kinds), the fuzz
//! loop and its reports ([`fuzz`], [`html`]), the reducer ([`reduce`]) and
//! the regression corpus ([`corpus`]); commands it prints for a shell are
//! quoted by [`shell`], text it writes into Markdown escaped by
//! [`markdown`]; a difference's long values are cut around where the sides
//! part by [`abbreviate`]. The CLI (`src/main.rs`, one file per subcommand under
//! `src/commands/`) is a thin layer over it.

pub mod abbreviate;
pub mod check;
pub mod corpus;
pub mod fuzz;
pub mod html;
pub mod input;
pub mod jail;
pub mod markdown;
pub mod modes;
pub mod oracles;
pub mod planted;
pub mod reduce;
pub mod shell;
pub mod targets;
pub mod worker;

pub use stagecheck_executor as executor;
pub use stagecheck_staging as staging;
