//! The gradient oracle in the fuzz loop: a generated program
//! that takes gradients (`sc.GradientTape`, generator/src/tensor_grad.rs)
//! is also checked against float64 central differences
//! (`crate::oracles::gradcheck`), as `check --gradcheck` does. The modes compare
//! gradients with each other, but a backward rule wrong in every mode alike
//! agrees with itself; only this reference sees it. A miss seen twice is a
//! finding of kind `gradient`, mode `gradcheck` (replayed by
//! `stagecheck check --gradcheck`), reduced ([`reduce_saved`]) while the
//! check still misses: the predicate is the gradient check itself, as
//! `check` is the modes' findings'.

use crate::executor::Config;
use crate::fuzz::case::Case;
use crate::fuzz::signature::Signature;
use crate::oracles::gradcheck::{gradcheck, GradCheck};
use crate::reduce::finding::{reduce_side_finding, SideOracle};
use crate::worker::Worker;
use std::path::Path;
use std::time::Duration;

/// The finding, if the case takes gradients and its check fails twice the
/// same way: a gradient that misses (kind `gradient`), a crashed run
/// (`crash`: never a quiet agree) or shared state leaked past the restore
/// (`leak`, the prelude's switch left on: [`GradCheck::kind`]).
pub fn check_case(worker: &mut Worker, case: &Case) -> Option<(Signature, GradCheck)> {
    if !case.program.source.contains("GradientTape") {
        return None;
    }
    let path = format!("fuzz-{}-{}.py", case.seed, case.index);
    let first = gradcheck(worker, &case.program.source, &path).ok().filter(GradCheck::is_finding)?;
    let kind = first.kind()?;
    gradcheck(worker, &case.program.source, &path).ok().filter(|again| again.kind() == Some(kind))?;
    let mut constructs: Vec<String> = case.program.constructs.iter().map(|c| c.to_string()).collect();
    constructs.sort();
    constructs.dedup();
    // A crash or a leak is named by what it says, as the modes' are.
    let detail = match kind {
        "crash" => first.terminal.chars().take(200).collect(),
        "leak" => first.leaks.join("; ").chars().take(200).collect(),
        _ => String::new(),
    };
    Some((Signature { kind: kind.into(), mode: "gradcheck".into(), constructs, detail }, first))
}

/// Reduces the gradient check's finding in `dir` (its `program.py`) into
/// `reduced.py`, keeping candidates whose check still fails the same way
/// (its signature's kind); headed like the modes' reductions, replayed by
/// `check --gradcheck`.
/// Best effort, as theirs: a failed reduction is reported, the finding stays.
pub fn reduce_saved(dir: &Path, exec: &Config, budget: Duration) {
    let oracle = SideOracle { name: "gradcheck", replay: &["--gradcheck"], default_kind: Some("gradient") };
    let still = |worker: &mut Worker, candidate: &str, path: &str, kind: &str| {
        gradcheck(worker, candidate, path).is_ok_and(|g| g.kind() == Some(kind))
    };
    if let Err(e) = reduce_side_finding(dir, exec, budget, &oracle, still) {
        eprintln!("stagecheck fuzz: {}: not reduced: {e}", dir.display());
    }
}
