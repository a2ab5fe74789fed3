//! The result of one run: what a program did, in a form two runs can be compared on.

use crate::value::Value;
use serde::{Deserialize, Serialize};
use std::fmt;

/// Which resource limit a diverged run hit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Limit {
    /// The wall-clock limit, enforced by the watchdog at a bytecode boundary.
    Time,
    /// The wall-clock limit, while the VM was stuck in native code that never
    /// reaches a bytecode boundary; the worker thread was abandoned.
    TimeInNative,
    /// The memory budget, exceeded after a MemoryError was already raised and caught.
    Memory,
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Limit::Time => "time limit",
            Limit::TimeInNative => "time limit (stuck in native code)",
            Limit::Memory => "memory limit",
        })
    }
}

/// One frame of a Python traceback, innermost last. Source lines are never
/// read: a program may name any file in `compile()`, and the harness must not
/// read the host's files on its behalf.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Frame {
    pub file: String,
    pub line: u32,
    pub function: String,
}

/// How a run ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum Terminal {
    /// The module body ran to its end.
    Completed,
    /// An exception escaped the module body.
    Raised {
        exc_type: String,
        message: String,
        /// Line in the program's own file where the exception was raised (innermost
        /// frame of that file), if any frame belongs to it.
        line: Option<u32>,
        traceback: Vec<Frame>,
        /// Raised as the runtime's own `StagingError` (the class itself, not
        /// a name): staging declined explicitly. Not compared.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        refusal: bool,
    },
    /// The run did not terminate within a limit (Snek §4's divergence).
    Diverged { limit: Limit },
    /// The VM itself panicked; the interpreter was replaced.
    Crashed { message: String },
}

impl Terminal {
    /// Equality the oracle uses: raised exceptions compare on type and message,
    /// not on traceback (converted code has other frames).
    pub fn same_as(&self, other: &Terminal) -> bool {
        match (self, other) {
            (Terminal::Raised { exc_type: a, message: m, .. }, Terminal::Raised { exc_type: b, message: n, .. }) => a == b && m == n,
            (a, b) => a == b,
        }
    }
}

/// Everything one run produced.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    pub terminal: Terminal,
    /// What the program printed (to `sys.stdout`), captured per run.
    pub stdout: String,
    /// True when the program printed more than the capture limit and `stdout` was cut.
    pub stdout_truncated: bool,
    /// The user-defined globals at the end of the run, in definition order.
    pub globals: Vec<(String, Value)>,
    /// Wall-clock time of the run in microseconds (not compared).
    pub micros: u64,
    /// The graph functions the run traced (staged mode), as S-expressions;
    /// empty when it traced none (not compared).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub graph: String,
    /// Within how much of the reference its floats count as equal: set when
    /// graphs ran on the GPU (`tensors::run_tolerance`), else None (bit for bit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tolerance: Option<stagecheck_gpu::Tolerance>,
    /// GPU nodes whose outputs lay beyond their ops' tolerances from the CPU
    /// kernels on the same inputs (staged-gpu, shadowed): each a finding.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gpu_mismatches: Vec<String>,
    /// Shared state the restore after this run left different from the
    /// sandbox as built (`Snapshot::leaks`: `stagecheck.gradients.check._GRADCHECK
    /// rebound`): it would reach every later run on the worker, so it is a
    /// finding (kind `leak`), and the interpreter was replaced.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub leaks: Vec<String>,
    /// The first GPU node accepted only because the GPU flushed float32
    /// subnormals to zero (WGSL allows it; NVIDIA's GPUs do it, lavapipe
    /// does not): what the program did after it may part ways with the CPU
    /// as the platform allows, which the fuzz loop counts apart.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu_flushed: Option<String>,
    /// The run read its mode or placement (`tensors::mode_read`: a staged
    /// function called, `sc.device` entered): only such a run of converted
    /// code can behave differently staged. True for a lost run ([`Outcome::lost`]),
    /// which cannot say. Not compared.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub mode_read: bool,
    /// Not run but taken from the run of the mode named (a staged mode's
    /// outcome is the unstaged run's when that run never read its mode):
    /// said wherever the outcome is shown. Not compared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub taken_from: Option<String>,
}

impl Outcome {
    /// The outcome of a run whose worker was lost (killed, dead, stuck):
    /// nothing it printed or bound came back, only how it ended and its time.
    pub fn lost(terminal: Terminal, micros: u64) -> Outcome {
        Outcome {
            terminal,
            stdout: String::new(),
            stdout_truncated: false,
            globals: Vec::new(),
            micros,
            graph: String::new(),
            tolerance: None,
            gpu_mismatches: Vec::new(),
            leaks: Vec::new(),
            gpu_flushed: None,
            // Unknown: nothing is taken from a run whose worker was lost.
            mode_read: true,
            taken_from: None,
        }
    }

    /// True when the process-level verdict of `stagecheck run` is a failure.
    pub fn is_failure(&self) -> bool {
        matches!(self.terminal, Terminal::Diverged { .. } | Terminal::Crashed { .. })
    }
}

impl fmt::Display for Terminal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Terminal::Completed => write!(f, "completed"),
            Terminal::Raised { exc_type, message, line, .. } => {
                write!(f, "raised {exc_type}")?;
                if !message.is_empty() {
                    write!(f, ": {message}")?;
                }
                if let Some(line) = line {
                    write!(f, " (line {line})")?;
                }
                Ok(())
            }
            Terminal::Diverged { limit } => write!(f, "diverged ({limit})"),
            Terminal::Crashed { message } => write!(f, "crashed: {message}"),
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "outcome: {}", self.terminal)?;
        if let Terminal::Raised { traceback, .. } = &self.terminal {
            if !traceback.is_empty() {
                writeln!(f, "traceback (most recent call last):")?;
                for fr in traceback {
                    writeln!(f, "  {}:{} in {}", fr.file, fr.line, fr.function)?;
                }
            }
        }
        if self.stdout.is_empty() {
            writeln!(f, "stdout: (empty)")?;
        } else {
            writeln!(f, "stdout:")?;
            for line in self.stdout.lines() {
                writeln!(f, "  | {line}")?;
            }
            if self.stdout_truncated {
                writeln!(f, "  | ... (truncated)")?;
            }
        }
        if self.globals.is_empty() {
            writeln!(f, "globals: (none)")?;
        } else {
            writeln!(f, "globals:")?;
            for (name, value) in &self.globals {
                writeln!(f, "  {name} = {value}")?;
            }
        }
        write!(f, "time: {:.3} ms", self.micros as f64 / 1000.0)
    }
}
