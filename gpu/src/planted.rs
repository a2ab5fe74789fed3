//! Planted kernel bugs (feature `planted-bugs`, tests only): one-line slips
//! in generated WGSL that the shadow check (`GpuDevice`) must catch, naming
//! the op. `STAGECHECK_PLANT=<name>` picks one; without the feature every
//! check is a constant `false`. Each is described in the catalogue,
//! `stagecheck::planted::CATALOGUE`.

/// The kernels' planted bugs.
pub const NAMES: &[&str] = &["gpu_floordiv_off_by_one", "gpu_exp_inexact", "gpu_reduce_axis_stride"];

/// Whether the planted bug `name` is active (the graph crate's switch: the
/// feature turns on both).
pub use graph::planted::active;
