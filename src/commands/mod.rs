//! The subcommands of `stagecheck`, one file each; `main.rs` parses and dispatches.
//!
//! - `run.rs`: `stagecheck run` (one program in the sandboxed VM)
//! - `convert.rs`: `stagecheck convert` (the converted program, its source map)
//! - `check.rs`: `stagecheck check` (a program in several modes, compared)
//! - `fuzz.rs`: `stagecheck fuzz` (generate and check programs, write a report)
//! - `generate.rs`: `stagecheck generate` (generated programs as files)
//! - `reduce.rs`: `stagecheck reduce` (shrink a finding's program)
//! - `corpus.rs`: `stagecheck corpus replay`, `corpus add`, `corpus review`
//! - `report.rs`: `stagecheck report` (rebuild or merge fuzz reports)
//! - `devices.rs`: `stagecheck devices` (the GPU staged-gpu would use)
//!
//! Below: what several commands share.

pub(crate) mod check;
pub(crate) mod convert;
pub(crate) mod corpus;
pub(crate) mod devices;
pub(crate) mod fuzz;
pub(crate) mod generate;
pub(crate) mod reduce;
pub(crate) mod report;
pub(crate) mod run;

use stagecheck::executor::Config;
use stagecheck::input::InputError;
use std::time::Duration;

/// Oracles beyond the modes' comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum ExtraOracle {
    /// The original under the host's CPython (python3) against RustPython's run.
    Cpython,
}

pub(crate) fn config(time_limit: f64, memory_limit: usize) -> Result<Config, InputError> {
    if !(time_limit.is_finite() && time_limit > 0.0) {
        return Err(InputError(format!("--time-limit must be a positive number of seconds, not {time_limit}")));
    }
    // Tests of crash handling reach the crash hooks through the command line.
    let debug_panic = std::env::var_os("STAGECHECK_DEBUG_HOOKS").is_some_and(|v| v == "1");
    Ok(Config { time_limit: Duration::from_secs_f64(time_limit), memory_limit: memory_limit << 20, debug_panic, ..Config::default() })
}

/// A duration flag where `0` means none.
pub(crate) fn duration_or_zero(flag: &str, text: &str) -> Result<Duration, InputError> {
    if text.trim().trim_end_matches('s') == "0" {
        return Ok(Duration::ZERO);
    }
    stagecheck::fuzz::parse_duration(text).ok_or_else(|| InputError(format!("{flag}: not a duration: {text:?} (try 5s, 1m, or 0)")))
}

/// Mesa's Vulkan drivers print "XDG_RUNTIME_DIR is invalid or not set" at
/// every start where it is unset (CI, containers): give them a private one
/// (0700, as they check), before any thread exists.
pub(crate) fn quiet_vulkan_loader() {
    if std::env::var_os("XDG_RUNTIME_DIR").is_some() {
        return;
    }
    use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
    let Ok(me) = std::fs::metadata("/proc/self") else { return };
    let dir = std::env::temp_dir().join(format!("stagecheck-runtime-{}", me.uid()));
    let _ = std::fs::DirBuilder::new().mode(0o700).create(&dir);
    let made = std::fs::metadata(&dir).is_ok_and(|m| m.is_dir() && m.uid() == me.uid())
        && std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).is_ok();
    if made {
        // SAFETY: called first thing in main, while this is the only thread.
        unsafe { std::env::set_var("XDG_RUNTIME_DIR", &dir) };
    }
}
