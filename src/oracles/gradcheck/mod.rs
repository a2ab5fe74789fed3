//! `stagecheck check --gradcheck`: every gradient a program takes
//! eagerly with `sc.GradientTape` is compared with central finite
//! differences computed in float64; a gradient outside the tolerance is a
//! finding (exit 1), like a divergence between modes.
//!
//! The modes compare gradients with each other (eager tape vs staged graph:
//! the same backward rules, so exactly on CPU); a backward rule that is wrong
//! in every mode alike (tanh' as `1 - y`) only a reference outside the rules
//! sees. Here the original runs once more with
//! `__import__('stagecheck').gradients.check._gradcheck_on()` first; each eager
//! `tape.gradient` then replays the tape's record in float64 with each source
//! element moved by ±h (h = 1e-6·max(1, |x|)), sums the targets (weighted by
//! their output gradients) and prints one `@@gradcheck` line per source
//! (`staging/runtime/stagecheck/gradients/check.py: _gradcheck`). The
//! replay follows the recorded path: a staged branch or comparison keeps the
//! outcome it had, so the difference quotient is the derivative of that path.
//!
//! Tolerance, per dtype of the tape's gradient: |g − fd| ≤ atol + rtol·max(|g|, |fd|)
//! - float64: atol 1e-6, rtol 1e-5. The float64 quotient's error is
//!   truncation (h²·f'''/6 ≈ 1e-12) plus rounding (ε·|f|/h ≈ 2e-10·|f|):
//!   well inside, for losses up to ~1e3.
//! - float32: atol 1e-3, rtol 1e-2. The gradient itself is computed in
//!   float32 (ε ≈ 6e-8) through chains of ops whose rounding compounds (a
//!   saturated tanh's 1 − y² loses most digits of y); 1% still separates a
//!   wrong rule (tanh' as 1 − y is off by y(1 − y)/(1 − y²), 33% at y = 0.5).
//!
//! Kinks (relu, abs, max ties at the point) have no derivative: a program
//! checked here keeps its points away from them.

/// Its glue in the fuzz loop (generated programs that take gradients).
pub mod fuzz;

use crate::input::InputError;
use crate::worker::Worker;
use serde::Serialize;

/// The line the runtime switch is, put before the program.
pub const PRELUDE: &str = "__import__('stagecheck').gradients.check._gradcheck_on()\n";

#[derive(Clone, Debug, Serialize)]
pub struct GradCheck {
    /// The runtime's lines, one per (gradient call, source).
    pub lines: Vec<String>,
    /// Lines whose status is FAIL.
    pub failed: usize,
    /// Lines not checked (a record holding a staged call or cond).
    pub skipped: usize,
    /// The run's end (`completed`, or how it stopped).
    pub terminal: String,
    /// The run crashed (a VM panic, a worker killed): a finding, never a quiet agree.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub crashed: bool,
    /// Shared state the run leaked past the sandbox's restore (`Outcome::leaks`):
    /// the prelude's switch is a runtime global the restore must undo.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub leaks: Vec<String>,
}

impl GradCheck {
    /// The finding's kind: `crash`, `leak` or `gradient` (a gradient outside
    /// the tolerance), in that order; None when the check passes.
    pub fn kind(&self) -> Option<&'static str> {
        if self.crashed {
            Some("crash")
        } else if !self.leaks.is_empty() {
            Some("leak")
        } else if self.failed > 0 {
            Some("gradient")
        } else {
            None
        }
    }

    pub fn is_finding(&self) -> bool {
        self.kind().is_some()
    }
}

/// Runs the gradient check of `source` (the original, eagerly).
pub fn gradcheck(worker: &mut Worker, source: &str, path: &str) -> Result<GradCheck, InputError> {
    let prefixed = format!("{PRELUDE}{source}");
    let outcome = worker
        .run(&prefixed, path)
        .map_err(|e| InputError(format!("{path}:{}:{}: syntax error: {}", e.line.saturating_sub(1), e.column, e.message)))?;
    let lines: Vec<String> =
        outcome.stdout.lines().filter(|l| l.starts_with("@@gradcheck ")).map(|l| l["@@gradcheck ".len()..].to_string()).collect();
    let failed = lines.iter().filter(|l| l.ends_with("status=FAIL")).count();
    let skipped = lines.iter().filter(|l| l.ends_with("status=skipped")).count();
    let crashed = matches!(outcome.terminal, crate::executor::Terminal::Crashed { .. });
    Ok(GradCheck { lines, failed, skipped, terminal: outcome.terminal.to_string(), crashed, leaks: outcome.leaks })
}

/// The check's text for `check`'s report.
pub fn print(g: &GradCheck) {
    println!(
        "gradcheck: {} gradient(s) against float64 central differences: {}",
        g.lines.len(),
        if g.failed > 0 {
            format!("{} FAILED", g.failed)
        } else if g.lines.is_empty() {
            "none taken".into()
        } else {
            "all within tolerance".into()
        }
    );
    for l in &g.lines {
        println!("  {l}");
    }
    if !g.terminal.starts_with("completed") {
        println!("  (the checked run ended: {})", g.terminal);
    }
    if g.crashed {
        println!("  CRASHED: the checked run crashed ({})", g.terminal);
    }
    for leak in &g.leaks {
        println!("  LEAKED past the restore after the run: {leak}");
    }
}
