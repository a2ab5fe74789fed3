//! A checked case, typed as wasmtime's oracles type theirs: the modes agree,
//! or a mode refused explicitly (counted by reason), or they disagree (a
//! finding), or the disagreement did not reproduce (poisoned by
//! non-determinism: counted, never reported as a finding). A disagreement
//! that is only a mode running out of time is checked again with
//! [`SLOW_FACTOR`]x the limit; if it then ends, the case is `Slow`. A
//! program RustPython cannot compile is `Invalid` (its compiler's bugs, or
//! the generator's): counted, and kept in the report's `invalid/`. A
//! disagreement in values or output in a run whose GPU flushed float32
//! subnormals to zero (accepted op by op, as WGSL allows: a real GPU does
//! it, lavapipe not) is `Flushed`: the platform's, not the compiler's.

use super::case::Case;
use super::signature::Signature;
use super::MODES;
use crate::check::check;
use crate::oracles::convergence::Verdict;
use crate::worker::Worker;

#[derive(Clone, Debug)]
pub enum Kind {
    Agree,
    Refused {
        reason: String,
    },
    Finding {
        signature: Signature,
        verdict: Verdict,
    },
    /// What the first check found and what the recheck gave instead.
    Poisoned {
        first: String,
        again: String,
    },
    /// A mode ran out of time but finishes with a longer limit: slower, not
    /// different. `ratio`: its time over the original's in the longer run.
    Slow {
        ratio: f64,
    },
    /// The values or output parted ways after the GPU flushed subnormals
    /// (`note`: the mode and the first op that needed the allowance).
    Flushed {
        note: String,
    },
    /// The generated program does not compile in RustPython (its compiler's
    /// bugs with nested scopes, or a generator bug): counted, kept for review.
    Invalid {
        message: String,
    },
}

#[derive(Clone, Debug)]
pub struct Checked {
    pub kind: Kind,
    pub micros: u64,
    /// Staged runs taken from the unstaged run, not run (it never read its
    /// mode: `modes::taken_from_unstaged`).
    pub taken: u64,
}

/// How much longer than a normal run a slow mode may take before its time
/// limit counts as a divergence (converted and staged code runs slower).
pub const SLOW_FACTOR: u32 = 8;

/// Checks `case` in [`MODES`] (the libFuzzer targets' entry).
pub fn check_case(worker: &mut Worker, case: &Case) -> Checked {
    check_case_in(worker, case, MODES)
}

/// Checks `case` in `modes` (the original first).
pub fn check_case_in(worker: &mut Worker, case: &Case, modes: &[crate::modes::Mode]) -> Checked {
    let started = std::time::Instant::now();
    let path = format!("fuzz-{}-{}.py", case.seed, case.index);
    // A generated tensor program run by our own stager ends `Completed` in
    // its original run (`oracle::planned`); under a target it is another's.
    let tensor = case.program.family == stagecheck_generator::Family::Tensor && worker.target().is_none();
    let judged = |worker: &mut Worker, source: &str, path: &str, modes: &[crate::modes::Mode]| {
        check(worker, source, path, modes).map(|mut r| {
            if tensor {
                r.verdict = crate::oracles::convergence::planned(r.verdict, &r.runs);
            }
            r
        })
    };
    let mut taken = 0;
    let kind = match judged(worker, &case.program.source, &path, modes) {
        Err(e) => Kind::Invalid { message: e.to_string() },
        Ok(report) => {
            taken = report
                .runs
                .iter()
                .filter(|(_, r)| matches!(r, crate::modes::ModeRun::Ran { outcome } if outcome.taken_from.is_some()))
                .count() as u64;
            match report.verdict {
                Verdict::Agree => Kind::Agree,
                Verdict::Refused { construct, reason, .. } => Kind::Refused { reason: reason_key(&construct, &reason) },
                Verdict::Diverged { .. } => {
                    // A finding must reproduce, and a mode that only ran out of
                    // time must also run out of time with a longer limit.
                    let again = if only_timed_out(&report.verdict) {
                        let longer = worker.config().time_limit * SLOW_FACTOR;
                        worker.with_time_limit(longer, |w| judged(w, &case.program.source, &path, modes))
                    } else {
                        judged(worker, &case.program.source, &path, modes)
                    };
                    let under_target = worker.target().is_some();
                    match again {
                        Ok(again) if again.verdict.is_finding() => {
                            let signature = Signature::of_run(&report.verdict, &case.program.constructs, under_target);
                            let second = Signature::of_run(&again.verdict, &case.program.constructs, under_target);
                            if second == signature {
                                match flushed(&report) {
                                    Some(note) => Kind::Flushed { note },
                                    None => Kind::Finding { signature, verdict: report.verdict },
                                }
                            } else {
                                Kind::Poisoned { first: signature.id(), again: second.id() }
                            }
                        }
                        Ok(again) => match again.verdict {
                            Verdict::Refused { construct, reason, .. } => Kind::Refused { reason: reason_key(&construct, &reason) },
                            _ if only_timed_out(&report.verdict) => Kind::Slow { ratio: again.slowest_ratio() },
                            v => Kind::Poisoned {
                                first: first_id(&report.verdict, case),
                                again: format!("{v:?}").chars().take(120).collect(),
                            },
                        },
                        Err(e) => Kind::Poisoned { first: first_id(&report.verdict, case), again: e.to_string() },
                    }
                }
            }
        }
    };
    Checked { kind, micros: started.elapsed().as_micros() as u64, taken }
}

/// Where the GPU flushed subnormals in the mode the verdict blames, when
/// every difference is one such a flush can cause (how the run ended, its
/// output, its values; not a crash, a leak, a node beyond its bound, a
/// converter's). A flush in another mode's run excuses nothing: the modes
/// before the blamed one agreed, and a mode that ran no GPU graph parted
/// ways on its own.
fn flushed(report: &crate::check::CheckReport) -> Option<String> {
    use crate::oracles::convergence::Difference::{Global, Stdout, Terminal};
    let Verdict::Diverged { mode, differences } = &report.verdict else { return None };
    if !differences.iter().all(|d| matches!(d, Terminal { .. } | Stdout { .. } | Global { .. })) {
        return None;
    }
    report.runs.iter().find_map(|(m, run)| match run {
        crate::modes::ModeRun::Ran { outcome } if m == mode => outcome.gpu_flushed.as_ref().map(|note| format!("{m}: {note}")),
        _ => None,
    })
}

fn first_id(verdict: &Verdict, case: &Case) -> String {
    Signature::of(verdict, &case.program.constructs).id()
}

/// One side hit its time limit where the other ended: the other mode (a
/// converted program is slower), or the original (a staged graph is
/// faster). Rechecked with a longer limit before it counts.
pub fn only_timed_out(verdict: &Verdict) -> bool {
    use crate::executor::{Limit, Terminal};
    use crate::oracles::convergence::Difference;
    let timed_out = |t: &Terminal| matches!(t, Terminal::Diverged { limit: Limit::Time | Limit::TimeInNative });
    let diverged = |t: &Terminal| matches!(t, Terminal::Diverged { .. });
    matches!(verdict, Verdict::Diverged { differences, .. } if matches!(differences.first(),
        Some(Difference::Terminal { original, other })
            if (timed_out(other) && !diverged(original)) || (timed_out(original) && !diverged(other))))
}

/// Refusals are counted by construct and the reason's first clause, with
/// what varies from program to program taken out (names and numbers would
/// make every refusal its own reason): a quoted name becomes `'_'`, a
/// parenthesised part `(…)`, a run of digits `N`; the key stops at a colon.
pub fn reason_key(construct: &str, reason: &str) -> String {
    let mut head = String::new();
    let mut chars = reason.chars().peekable();
    let (mut depth, mut prev) = (0usize, ' ');
    while let Some(c) = chars.next() {
        let shown = depth == 0;
        match c {
            ':' if shown => break,
            // A quote opens a name unless it is an apostrophe (`ruff's`).
            '\'' | '"' if !prev.is_alphanumeric() => {
                for d in chars.by_ref() {
                    if d == c {
                        break;
                    }
                }
                if shown {
                    head.push_str("'_'");
                }
            }
            '(' => {
                if shown {
                    head.push_str("(…)");
                }
                depth += 1;
            }
            ')' => depth = depth.saturating_sub(1),
            c if c.is_ascii_digit() && shown && !prev.is_ascii_digit() => head.push('N'),
            c if c.is_ascii_digit() => {}
            c if shown => head.push(c),
            _ => {}
        }
        prev = c;
        if head.chars().count() >= 80 {
            break;
        }
    }
    format!("{construct}: {}", head.trim())
}

#[cfg(test)]
mod tests {
    use super::{flushed, reason_key, Verdict};

    #[test]
    fn reasons_group_without_their_names_and_numbers() {
        let key = |r: &str| reason_key("staging", r);
        assert_eq!(
            key("loop variable 'x' changes from int32 (3,) to float32 (3,) in a staged while loop"),
            key("loop variable 'total' changes from int32 (12, 2) to float32 () in a staged while loop"),
        );
        assert_eq!(
            key("'y' is a tensor in one branch of a staged if and a Python value in the other"),
            "staging: '_' is a tensor in one branch of a staged if and a Python value in the other"
        );
        assert_ne!(key("'y' is a tensor in one branch"), key("a return in one branch of a staged if only"));
        assert_eq!(
            reason_key("printer", "ruff's printer would change the program (it cannot print this tree as it is)"),
            "printer: ruff's printer would change the program (…)"
        );
        assert_eq!(reason_key("syntax", "unexpected token: ')'"), "syntax: unexpected token");
    }

    /// A divergence in values after a GPU flush is the platform's; a crash
    /// or a node beyond its bound stays a finding, and so does a divergence
    /// in a run that flushed nothing, or blamed on a mode other than the
    /// one that flushed.
    #[test]
    fn only_value_differences_after_a_flush_are_the_platforms() {
        use crate::executor::{Outcome, Terminal, Value};
        use crate::modes::{Mode, ModeRun};
        use crate::oracles::convergence::Difference;
        let mut outcome = Outcome::lost(Terminal::Completed, 1);
        let report = |differences: Vec<Difference>, outcome: &Outcome| crate::check::CheckReport {
            file: "f.py".into(),
            runs: vec![
                (Mode::Original, ModeRun::Ran { outcome: Outcome::lost(Terminal::Completed, 1) }),
                (Mode::StagedGpu, ModeRun::Ran { outcome: outcome.clone() }),
            ],
            verdict: Verdict::Diverged { mode: Mode::StagedGpu, differences },
            slow: None,
        };
        let global = || Difference::Global { name: "c".into(), original: Some(Value::Float(0)), other: None };
        assert_eq!(flushed(&report(vec![global()], &outcome)), None, "nothing flushed");
        outcome.gpu_flushed = Some("Minimum -> float32: element 0".into());
        assert_eq!(flushed(&report(vec![global()], &outcome)).as_deref(), Some("staged-gpu: Minimum -> float32: element 0"));
        assert_eq!(flushed(&report(vec![Difference::Crash { message: "x".into() }], &outcome)), None, "a crash");
        assert_eq!(flushed(&report(vec![global(), Difference::GpuOp { node: "n".into() }], &outcome)), None, "a node beyond its bound");
        let elsewhere = crate::check::CheckReport {
            verdict: Verdict::Diverged { mode: Mode::Unstaged, differences: vec![global()] },
            ..report(vec![], &outcome)
        };
        assert_eq!(flushed(&elsewhere), None, "the flush was in another mode than the one blamed");
    }
}
