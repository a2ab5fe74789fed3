//! The modes a program runs in, and how each is run.
//!
//! | mode       | what runs                                              |
//! |------------|--------------------------------------------------------|
//! | `original` | the program as written                                 |
//! | `unstaged` | the converted program, same VM: conversion alone       |
//!
//! (`staged` and `staged-gpu` come with the staging and GPU work.)

use crate::executor::{Frame, Outcome, Terminal, Worker};
use serde::Serialize;
use stagecheck_transformer::{convert, Conversion, ConversionError};
use std::fmt;
use std::str::FromStr;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, PartialOrd, Ord)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    Original,
    Unstaged,
}

impl Mode {
    pub const ALL: &'static [Mode] = &[Mode::Original, Mode::Unstaged];

    pub fn name(self) -> &'static str {
        match self {
            Mode::Original => "original",
            Mode::Unstaged => "unstaged",
        }
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Mode {
    type Err = String;
    fn from_str(s: &str) -> Result<Mode, String> {
        Mode::ALL.iter().copied().find(|m| m.name() == s).ok_or_else(|| {
            let known: Vec<_> = Mode::ALL.iter().map(|m| m.name()).collect();
            let later = if matches!(s, "staged" | "staged-gpu") { " (not available yet)" } else { "" };
            format!("unknown mode '{s}'{later}; known modes: {}", known.join(", "))
        })
    }
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

/// Runs the converted program, reporting lines of the original.
pub fn run_unstaged(worker: &mut Worker, source: &str, path: &str) -> ModeRun {
    let conversion = match convert(source, path) {
        Ok(c) => c,
        Err(e) => return ModeRun::Refused { error: (&e).into() },
    };
    run_converted(worker, &conversion, path)
}

pub fn run_converted(worker: &mut Worker, conversion: &Conversion, path: &str) -> ModeRun {
    match worker.run(&conversion.source, path) {
        Err(e) => ModeRun::Uncompilable { message: e.message, line: e.line },
        Ok(mut outcome) => {
            outcome.globals.retain(|(name, _)| *name != conversion.runtime_name);
            if let Terminal::Raised { line, traceback, .. } = &mut outcome.terminal {
                for Frame { file, line: l, .. } in traceback.iter_mut() {
                    if file == path {
                        *l = conversion.map.original_line(*l).unwrap_or(0);
                    }
                }
                *line = line.and_then(|l| conversion.map.original_line(l));
            }
            ModeRun::Ran { outcome }
        }
    }
}
