//! A checked case, typed as wasmtime's oracles type theirs: the modes agree,
//! or a mode refused explicitly (counted by reason), or they disagree (a
//! finding), or the disagreement did not reproduce (poisoned by
//! non-determinism: counted, never reported as a finding).

use super::case::Case;
use super::signature::Signature;
use super::MODES;
use crate::check::check;
use crate::executor::Worker;
use crate::oracle::Verdict;

#[derive(Clone, Debug)]
pub enum Kind {
    Agree,
    Refused { reason: String },
    Finding { signature: Signature, verdict: Verdict },
    Poisoned,
    /// A mode ran out of time but finishes with a longer limit: slower, not different.
    Slow,
    /// The generated program does not compile in RustPython (its compiler's
    /// bugs with nested scopes, or a generator bug): counted, kept for review.
    Invalid { message: String },
}

#[derive(Clone, Debug)]
pub struct Checked {
    pub kind: Kind,
    pub micros: u64,
}

/// How much longer than a normal run a slow mode may take before its time
/// limit counts as a divergence (converted and staged code runs slower).
pub const SLOW_FACTOR: u32 = 8;

pub fn check_case(worker: &mut Worker, case: &Case) -> Checked {
    let started = std::time::Instant::now();
    let path = format!("fuzz-{}-{}.py", case.seed, case.index);
    let kind = match check(worker, &case.program.source, &path, MODES) {
        Err(e) => Kind::Invalid { message: e.to_string() },
        Ok(report) => match report.verdict {
            Verdict::Agree => Kind::Agree,
            Verdict::Refused { construct, reason, .. } => Kind::Refused { reason: reason_key(&construct, &reason) },
            Verdict::Diverged { .. } => {
                // A finding must reproduce, and a mode that only ran out of
                // time must also run out of time with a longer limit.
                let again = if only_timed_out(&report.verdict) {
                    let mut config = worker.config().clone();
                    config.time_limit *= SLOW_FACTOR;
                    check(&mut Worker::new(config), &case.program.source, &path, MODES)
                } else {
                    check(worker, &case.program.source, &path, MODES)
                };
                match again {
                    Ok(again) if again.verdict.is_finding() => {
                        let signature = Signature::of(&report.verdict, &case.program.constructs);
                        if Signature::of(&again.verdict, &case.program.constructs) == signature {
                            Kind::Finding { signature, verdict: report.verdict }
                        } else {
                            Kind::Poisoned
                        }
                    }
                    Ok(again) => match again.verdict {
                        Verdict::Refused { construct, reason, .. } => Kind::Refused { reason: reason_key(&construct, &reason) },
                        _ if only_timed_out(&report.verdict) => Kind::Slow,
                        _ => Kind::Poisoned,
                    },
                    Err(_) => Kind::Poisoned,
                }
            }
        },
    };
    Checked { kind, micros: started.elapsed().as_micros() as u64 }
}

/// The other mode hit its time limit where the original ended.
pub fn only_timed_out(verdict: &Verdict) -> bool {
    use crate::executor::{Limit, Terminal};
    use crate::oracle::Difference;
    matches!(verdict, Verdict::Diverged { differences, .. } if matches!(differences.first(),
        Some(Difference::Terminal { other: Terminal::Diverged { limit: Limit::Time | Limit::TimeInNative }, original })
            if !matches!(original, Terminal::Diverged { .. })))
}

/// Refusals are counted by construct and the reason's first clause, quoted
/// names left out (names and numbers in messages would make every refusal
/// its own reason; a message that starts with a name keeps its words).
pub fn reason_key(construct: &str, reason: &str) -> String {
    let mut head = String::new();
    let mut quoted = false;
    for c in reason.chars() {
        match c {
            '\'' if !quoted => {
                head.push_str("'…'");
                quoted = true;
            }
            '\'' => quoted = false,
            _ if quoted => {}
            ':' | '(' => break,
            c => head.push(c),
        }
    }
    let head: String = head.trim().chars().take(80).collect();
    format!("{construct}: {head}")
}
