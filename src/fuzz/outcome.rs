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
    /// The generated program does not compile: a generator bug (reported as a finding kind of its own).
    Invalid { message: String },
}

#[derive(Clone, Debug)]
pub struct Checked {
    pub kind: Kind,
    pub micros: u64,
}

pub fn check_case(worker: &mut Worker, case: &Case) -> Checked {
    let started = std::time::Instant::now();
    let path = format!("fuzz-{}-{}.py", case.seed, case.index);
    let kind = match check(worker, &case.program.source, &path, MODES) {
        Err(e) => Kind::Invalid { message: e.to_string() },
        Ok(report) => match report.verdict {
            Verdict::Agree => Kind::Agree,
            Verdict::Refused { construct, reason, .. } => Kind::Refused { reason: reason_key(&construct, &reason) },
            Verdict::Diverged { .. } => {
                // A finding must reproduce: run the case again.
                match check(worker, &case.program.source, &path, MODES) {
                    Ok(again) if again.verdict.is_finding() => {
                        let signature = Signature::of(&report.verdict, &case.program.constructs);
                        if Signature::of(&again.verdict, &case.program.constructs) == signature {
                            Kind::Finding { signature, verdict: report.verdict }
                        } else {
                            Kind::Poisoned
                        }
                    }
                    _ => Kind::Poisoned,
                }
            }
        },
    };
    Checked { kind, micros: started.elapsed().as_micros() as u64 }
}

/// Refusals are counted by construct and the reason's first clause (names
/// and numbers in messages would make every refusal its own reason).
pub fn reason_key(construct: &str, reason: &str) -> String {
    let head: String = reason.split([':', '(', '\'']).next().unwrap_or("").trim().chars().take(80).collect();
    format!("{construct}: {head}")
}
