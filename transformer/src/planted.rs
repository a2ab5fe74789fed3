//! Planted bugs (feature `planted-bugs`, for tests of the fuzzer only):
//! deliberately wrong conversions, chosen by `STAGECHECK_PLANT`, that the
//! fuzz loop must find. The runtime's are in the executor's
//! `planted.rs`. Without the feature every check is a constant `false`.

/// The converter's planted bugs.
/// Each is described in the catalogue, `stagecheck::planted::CATALOGUE`.
pub const NAMES: &[&str] = &[
    "for_else_after_break",
    "nonlocal_write_lost",
    "converter_panic",
    "liveness_assign_reads_lost",
    "definitions_join_union",
    "loop_state_live_out_only",
    "global_write_lost_in_loop",
    "lambda_late_binding_lost",
    "try_else_after_return",
    "hoist_user_functions",
];

/// Whether the planted bug `name` is active (a constant `false` without
/// the feature: the check compiles away).
#[inline(always)]
pub fn active(name: &str) -> bool {
    cfg!(feature = "planted-bugs") && std::env::var("STAGECHECK_PLANT").is_ok_and(|p| p == name)
}
