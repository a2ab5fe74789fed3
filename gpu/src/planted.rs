//! Planted kernel bugs (feature `planted-bugs`, tests only): one-line slips
//! in generated WGSL that the shadow check (`GpuDevice`) must catch, naming
//! the op. `STAGECHECK_PLANT=<name>` picks one; without the feature every
//! check is a constant `false`.

/// The kernels' planted bugs.
pub const NAMES: &[&str] = &["gpu_floordiv_off_by_one", "gpu_exp_inexact"];

/// Whether the planted bug `name` is active.
#[cfg(feature = "planted-bugs")]
pub fn active(name: &str) -> bool {
    std::env::var("STAGECHECK_PLANT").is_ok_and(|p| p == name)
}

#[cfg(not(feature = "planted-bugs"))]
#[inline(always)]
pub fn active(_name: &str) -> bool {
    false
}
