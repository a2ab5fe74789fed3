//! The staging compiler under test, as the converted program meets it at
//! run time: the converter's runtime operators (`ag`, native: [`operators`]),
//! the tracer and its native tensor module ([`tensors`]), and the pure-Python
//! runtime the program imports as `stagecheck` ([`runtime`]: `ag`, `staging`,
//! `gradients`, `tensor`), graphs executed by `stagecheck-graph` on the CPU
//! and `stagecheck-gpu` on a GPU.
//!
//! It knows nothing of the sandbox that runs it: the executor installs its
//! native modules and its runtime into each interpreter it builds, gives it
//! the run's mode and deadline, and reads back what a run left (graphs,
//! tolerances, GPU mismatches). What it needs from the sandbox in return is
//! [`host::Host`].

pub mod host;
pub mod operators;
pub mod planted;
pub mod runtime;
pub mod tensors;

pub use tensors::Mode;

/// The native modules the runtime imports (`_stagecheck_tensor`,
/// `_stagecheck_ag`), for the builder of an interpreter that installs it.
pub fn native_modules(ctx: &rustpython_vm::Context) -> [&'static rustpython_vm::builtins::PyModuleDef; 2] {
    [tensors::module::_stagecheck_tensor::module_def(ctx), operators::_stagecheck_ag::module_def(ctx)]
}
