//! The modes a program runs in, and how each is run.
//!
//! | mode       | what runs                                              |
//! |------------|--------------------------------------------------------|
//! | `original` | the program as written                                 |
//! | `unstaged` | the converted program, same VM: conversion alone       |
//! | `staged`   | the converted program; `sc.function`s traced into graphs run by the graph executor |
//! | `staged-gpu` | as `staged`, the graphs run on GPU kernels (wgpu: a Vulkan GPU, or lavapipe); floats compared within the ops' tolerance |
//! | `compiled` | a target's only (`torch-compile`): each top-level function under the target's JIT compiler |
//!
//! `ALL` (the default of `check`) is the first three; `staged-gpu` runs when
//! asked for (`--modes ...,staged-gpu`, `fuzz --gpu`) and needs a Vulkan adapter.
//!
//! Every mode but `original` converts first: a refusal is
//! [`ModeRun::Refused`], the converter's own panic [`ModeRun::ConverterCrashed`],
//! converted code the VM cannot compile [`ModeRun::Uncompilable`]. A converted
//! run ([`run_converted`]) has its exception lines mapped back through the
//! source map; its globals are compared whole (the runtime is a builtin,
//! `Conversion::runtime_name`, not a global of the program). A staged run ended
//! by the runtime's own `StagingError` (the class, `Terminal::Raised.refusal`,
//! never the name) is a refusal with construct `staging`; the oracle makes
//! any refusal not listed in [`crate::oracles::refusals`] a finding. Without a Vulkan
//! adapter, asking for `staged-gpu` is a usage error naming why
//! ([`available`]).

use crate::executor::{Frame, Outcome, Terminal};
use crate::worker::Worker;
use serde::Serialize;
use stagecheck_transformer::{Conversion, ConversionError};

/// The modes: one list, staging's (what `sc.function` does in each).
pub use stagecheck_staging::Mode;

/// Whether every mode of `modes` can run here: `staged-gpu` needs a Vulkan
/// adapter (lavapipe from mesa-vulkan-drivers will do: `scripts/deps`).
pub fn available(modes: &[Mode]) -> Result<(), String> {
    if modes.contains(&Mode::Compiled) {
        return Err("mode compiled: a target's mode (--target torch-compile), not stagecheck's".into());
    }
    if modes.contains(&Mode::StagedGpu) {
        if let Err(why) = stagecheck_gpu::Gpu::available() {
            return Err(format!("mode staged-gpu: {why} (scripts/deps installs Mesa's lavapipe)"));
        }
    }
    Ok(())
}

/// What one mode produced.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "status", rename_all = "kebab-case")]
pub enum ModeRun {
    /// It ran; exceptions report original lines.
    Ran { outcome: Outcome },
    /// The converter declined the program (not a finding).
    Refused { error: RefusalInfo },
    /// The converted program does not compile: a converter bug (a finding).
    Uncompilable { message: String, line: u32 },
    /// The converter itself panicked: a converter bug (a finding).
    ConverterCrashed { message: String },
}

impl ModeRun {
    /// What a conversion error makes of a mode: a refusal, or the
    /// converter's crash.
    pub fn not_converted(e: &ConversionError) -> ModeRun {
        if e.is_internal() {
            ModeRun::ConverterCrashed { message: e.reason.clone() }
        } else {
            ModeRun::Refused { error: e.into() }
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct RefusalInfo {
    pub line: u32,
    pub construct: String,
    pub reason: String,
}

impl From<&ConversionError> for RefusalInfo {
    fn from(e: &ConversionError) -> Self {
        RefusalInfo { line: e.line, construct: e.construct.clone(), reason: e.reason.clone() }
    }
}

/// Runs converted code in `mode` (unstaged or staged); a staged mode after
/// an unstaged run in `earlier` that never read its mode takes that run's
/// outcome instead ([`taken_from_unstaged`]).
pub fn run_converted_after(worker: &mut Worker, conversion: &Conversion, path: &str, mode: Mode, earlier: &[(Mode, ModeRun)]) -> ModeRun {
    taken_from_unstaged(earlier, mode).unwrap_or_else(|| run_converted(worker, conversion, path, mode))
}

/// A staged mode's run when the unstaged run of the same converted program
/// never read its mode (`Outcome::mode_read`: no staged function called, no
/// `sc.device` entered): everything that differs when staged is reached only
/// through that read (`staging::tensors::mode_read`), so running it again
/// would repeat the unstaged run. Decided by what the run did, never by the
/// program's text. The outcome says where it came from (`taken_from`).
pub fn taken_from_unstaged(earlier: &[(Mode, ModeRun)], mode: Mode) -> Option<ModeRun> {
    if !mode.is_staged() {
        return None;
    }
    let unstaged = earlier.iter().find_map(|(m, run)| match run {
        ModeRun::Ran { outcome } if *m == Mode::Unstaged && !outcome.mode_read => Some(outcome),
        _ => None,
    })?;
    let mut outcome = unstaged.clone();
    outcome.taken_from = Some(Mode::Unstaged.name().to_string());
    Some(finish(outcome, mode))
}

/// Runs converted code in `mode` (unstaged or staged).
pub fn run_converted(worker: &mut Worker, conversion: &Conversion, path: &str, mode: Mode) -> ModeRun {
    match worker.run_in(&conversion.source, path, mode) {
        Err(e) => ModeRun::Uncompilable { message: e.message, line: e.line },
        Ok(mut outcome) => {
            if let Terminal::Raised { line, traceback, .. } = &mut outcome.terminal {
                for Frame { file, line: l, .. } in traceback.iter_mut() {
                    if file == path {
                        *l = conversion.map.original_line(*l).unwrap_or(0);
                    }
                }
                *line = line.and_then(|l| conversion.map.original_line(l));
            }
            outcome.graph = original_graph_lines(&outcome.graph, |l| conversion.map.original_line(l));
            finish(outcome, mode)
        }
    }
}

/// A converted run's outcome, lines mapped, as `mode`'s run.
fn finish(outcome: Outcome, mode: Mode) -> ModeRun {
    // Staging declined explicitly (the runtime's StagingError class):
    // a refusal, a finding unless intended (crate::oracles::refusals).
    if let Terminal::Raised { message, line, refusal: true, .. } = &outcome.terminal {
        if mode.is_staged() {
            let error = RefusalInfo { line: line.unwrap_or(0), construct: "staging".into(), reason: message.clone() };
            return ModeRun::Refused { error };
        }
    }
    ModeRun::Ran { outcome }
}

/// The printed graphs (`--show-graph`) with each raise node's `:line N`, a
/// line of the converted program, as the original's line (`:line ?` where
/// the converted line has none). The key is the one after the node's
/// message, a quoted Debug string: `" :line ` with that quote unescaped.
fn original_graph_lines(graph: &str, original: impl Fn(u32) -> Option<u32>) -> String {
    const KEY: &str = "\" :line ";
    let mut out = String::with_capacity(graph.len());
    let mut rest = graph;
    while let Some(at) = rest.find(KEY) {
        let (head, tail) = rest.split_at(at + KEY.len());
        out.push_str(head);
        let escapes = head[..at].bytes().rev().take_while(|&b| b == b'\\').count();
        let digits = if escapes % 2 == 0 { tail.bytes().take_while(u8::is_ascii_digit).count() } else { 0 };
        match tail[..digits].parse::<u32>().ok() {
            Some(l) => out.push_str(&original(l).map_or_else(|| "?".to_string(), |o| o.to_string())),
            None => out.push_str(&tail[..digits]),
        }
        rest = &tail[digits..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn raise_node_lines_are_mapped_to_the_original() {
        let g = "(raise ValueError \"x\\\" :line 3\" :line 15 :site 0)\n(raise KeyError \"k\" :line ? :site 1)";
        let mapped = super::original_graph_lines(g, |l| (l == 15).then_some(6));
        assert_eq!(mapped, "(raise ValueError \"x\\\" :line 3\" :line 6 :site 0)\n(raise KeyError \"k\" :line ? :site 1)");
    }
}
