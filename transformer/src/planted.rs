//! Planted bugs (feature `planted-bugs`, for tests of the fuzzer only):
//! deliberately wrong conversions, chosen by `STAGECHECK_PLANT`, that the
//! fuzz loop must find (issue 5). The runtime's are in the executor's
//! `planted.rs`. Without the feature every check is a constant `false`.

/// The converter's planted bugs.
pub const NAMES: &[&str] = &["for_else_after_break", "nonlocal_write_lost", "converter_panic"];

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
