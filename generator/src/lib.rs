//! stagecheck-generator: bytes → valid, terminating Python programs, in the
//! style of wasm-smith. `generate(u, config, family)` reads its choices from an
//! `arbitrary::Unstructured` and never fails for lack of bytes: when they run
//! out every choice is the first (simplest), which still makes a small valid
//! program. A `Config` (itself `Arbitrary`) says which constructs a program
//! may use and how often (swarm testing).
//!
//! Two families:
//! - `Family::Plain`: module state, functions (nested, closures,
//!   generators, recursion), loops with break/continue/return, try/finally,
//!   raise, global/nonlocal, unbound locals read on purpose, side effects in
//!   conditions; for AutoGraph-style conversion. Bounded by construction and
//!   by a fuel counter (`OutOfFuel`).
//! - `Family::Tensor`: `@sc.function` entry points over small tensors with
//!   staged if/while/for that follow the staging rules by construction.
//!
//! Every construct is a row of one table (`table::TABLE`); a program reports
//! the rows it used (`Program::constructs`).
//!
//! Files: `config.rs` (Config), `settings.rs` (a target's rows never
//! generated, fuel on or off), `table.rs` (the table), `gen.rs` (the state
//! and the recursion through the table), `plain.rs`/`plain_expr.rs` and
//! `tensor.rs`/`tensor_expr.rs` (the builders; `tensor_python.rs` the Python
//! values staged functions read, `tensor_raise.rs` their raises,
//! `tensor_values.rs` dtypes and special values, `tensor_calls.rs` retraces,
//! captures, closures, recursion and the top level, `tensor_host.rs` print,
//! assert, Variables and `sc.py_function` in staged code, `tensor_lists.rs`
//! lists grown in staged loops, `tensor_matmul.rs` products past the small
//! shapes; `plain_bind.rs` names bound in converted blocks and read after
//! them, namespace readers and docstrings; `plain_builtins.rs` what a tracing JIT
//! emulates: builtins' argument forms and errors, set order, function
//! attributes, globals deleted and made again), `scope.rs` (what is bound
//! where), `types.rs`, `names.rs`, `emit.rs` (indentation).

mod config;
mod emit;
mod gen;
mod names;
mod plain;
mod plain_bind;
mod plain_builtins;
mod plain_data;
mod plain_expr;
mod plain_objects;
mod scope;
mod settings;
mod table;
mod tensor;
mod tensor_calls;
mod tensor_expr;
mod tensor_grad;
mod tensor_host;
mod tensor_lists;
mod tensor_matmul;
mod tensor_python;
mod tensor_raise;
mod tensor_values;
mod types;

pub use config::{Config, MAX_WEIGHT};
pub use settings::Settings;

/// The generator's version: findings record it (program i of seed s is the
/// same program only under the same version). Its own, not the crate's:
/// bumped whenever a seed's programs change (0.2.0: the builtin, identity,
/// function-attribute, global and set-order rows; three calls of every
/// function around the rebinding).
pub const VERSION: &str = "0.2.0";
pub use plain::FUEL;
pub use table::{names as construct_names, Construct, TABLE};

use serde::{Deserialize, Serialize};

/// Which kind of program to generate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, arbitrary::Arbitrary)]
pub enum Family {
    /// Plain Python for AutoGraph-style conversion.
    Plain,
    /// Tensor code under `import stagecheck as sc`, staged by `@sc.function`.
    Tensor,
}

impl Family {
    /// Its name in reports and on the command line (`plain`, `tensor`).
    pub fn name(self) -> &'static str {
        match self {
            Family::Plain => "plain",
            Family::Tensor => "tensor",
        }
    }
}

/// A generated program.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Program {
    /// The Python source (3.11 syntax), ending in a newline.
    pub source: String,
    /// The names of the table rows it used: distinct, sorted.
    pub constructs: Vec<&'static str>,
    pub family: Family,
}

/// Generates a program of `family` under `config` (clamped first) from `u`.
/// Deterministic in the bytes and the config; never fails for lack of bytes.
pub fn generate(u: &mut arbitrary::Unstructured, config: &Config, family: Family) -> arbitrary::Result<Program> {
    generate_for(u, config, family, &Settings::DEFAULT)
}

/// [`generate`] for a compiler under test: the rows `settings` rules out
/// never appear, and the fuel is off where it says ([`Settings`]).
pub fn generate_for(u: &mut arbitrary::Unstructured, config: &Config, family: Family, settings: &Settings) -> arbitrary::Result<Program> {
    let cfg = config.clamped();
    let mut g = gen::Gen::new(&cfg, family);
    g.settings = *settings;
    match family {
        Family::Plain => plain::program(&mut g, u)?,
        Family::Tensor => tensor::program(&mut g, u)?,
    }
    Ok(Program { source: g.w.finish(), constructs: g.used.iter().copied().collect(), family })
}
