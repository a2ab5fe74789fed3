//! The gradient oracle in the fuzz loop (issue 20): a generated program
//! that takes gradients (`sc.GradientTape`, generator/src/tensor_grad.rs)
//! is also checked against float64 central differences
//! (`crate::gradcheck`), as `check --gradcheck` does. The modes compare
//! gradients with each other, but a backward rule wrong in every mode alike
//! agrees with itself; only this reference sees it. A miss seen twice is a
//! finding of kind `gradient`, mode `gradcheck` (replayed by
//! `stagecheck check --gradcheck`); like the CPython oracle's, it is saved
//! unreduced.

use super::case::Case;
use super::signature::Signature;
use crate::gradcheck::{gradcheck, GradCheck};
use crate::worker::Worker;

/// The finding, if the case takes gradients and one misses twice.
pub fn check_case(worker: &mut Worker, case: &Case) -> Option<(Signature, GradCheck)> {
    if !case.program.source.contains("GradientTape") {
        return None;
    }
    let path = format!("fuzz-{}-{}.py", case.seed, case.index);
    let first = gradcheck(worker, &case.program.source, &path).ok().filter(GradCheck::is_finding)?;
    gradcheck(worker, &case.program.source, &path).ok().filter(GradCheck::is_finding)?;
    let mut constructs: Vec<String> = case.program.constructs.iter().map(|c| c.to_string()).collect();
    constructs.sort();
    constructs.dedup();
    Some((Signature { kind: "gradient".into(), mode: "gradcheck".into(), constructs, detail: String::new() }, first))
}
