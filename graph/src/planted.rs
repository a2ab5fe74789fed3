//! Planted bugs (feature `planted-bugs`, for tests of the fuzzer only):
//! one-line slips in the graph executor and the kernels only it runs (the
//! in-place kernels, the donor rule, the flat loop), chosen by
//! `STAGECHECK_PLANT`, that the fuzz loop must find. Each is
//! described in the catalogue, `stagecheck::planted::CATALOGUE`. Kernels that
//! eager runs share (`eval`) are not planted here: eager and staged runs
//! would agree on the wrong value. Without the feature every check is a
//! constant `false`. The GPU crate's `planted::active` is this one.

/// The graph crate's planted bugs.
pub const NAMES: &[&str] = &["in_place_donor_side", "donor_returned_value", "flat_loop_buffer_not_cleared", "outputs_repeated_taken"];

/// Whether the planted bug `name` is active (a constant `false` without
/// the feature: the check compiles away).
#[inline(always)]
pub fn active(name: &str) -> bool {
    cfg!(feature = "planted-bugs") && std::env::var("STAGECHECK_PLANT").is_ok_and(|p| p == name)
}
