//! The gradient oracle in the fuzz loop (issue 20): a generated program
//! that takes gradients (`sc.GradientTape`, generator/src/tensor_grad.rs)
//! is also checked against float64 central differences
//! (`crate::gradcheck`), as `check --gradcheck` does. The modes compare
//! gradients with each other, but a backward rule wrong in every mode alike
//! agrees with itself; only this reference sees it. A miss seen twice is a
//! finding of kind `gradient`, mode `gradcheck` (replayed by
//! `stagecheck check --gradcheck`), reduced ([`reduce_saved`]) while the
//! check still misses: the predicate is the gradient check itself, as
//! `check` is the modes' findings'.

use super::case::Case;
use super::signature::Signature;
use crate::gradcheck::{gradcheck, GradCheck};
use crate::executor::Config;
use crate::worker::Worker;
use std::path::Path;
use std::time::Duration;

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

/// Reduces the gradient finding in `dir` (its `program.py`) into
/// `reduced.py`, keeping candidates whose gradient check still misses;
/// headed like the modes' reductions, replayed by `check --gradcheck`.
/// Best effort, as theirs: a failed reduction is reported, the finding stays.
pub fn reduce_saved(dir: &Path, exec: &Config, budget: Duration) {
    if let Err(e) = reduce_into(&dir.join("program.py"), &dir.join("reduced.py"), exec, budget) {
        eprintln!("stagecheck fuzz: {}: not reduced: {e}", dir.display());
    }
}

fn reduce_into(input: &Path, out: &Path, exec: &Config, budget: Duration) -> Result<(), String> {
    let text = std::fs::read_to_string(input).map_err(|e| format!("{}: {e}", input.display()))?;
    let (header, body) = crate::reduce::finding::split_header(&text);
    let mut worker = Worker::spawn(None, exec.clone());
    let path = input.display().to_string();
    let mut misses = |candidate: &str| gradcheck(&mut worker, candidate, &path).is_ok_and(|g| g.is_finding());
    if !misses(body) {
        return Err("the gradient check no longer misses".into());
    }
    let r = crate::reduce::reduce(body, budget, &mut misses, &mut |_| {})?;
    let mut head = crate::reduce::finding::reduced_head("gradient-gradcheck", &r, input, &header);
    head.push(format!("# replay: {}stagecheck check --gradcheck {}", crate::reduce::finding::plant_prefix(), out.display()));
    let file = format!("{}\n\n{}", head.join("\n"), r.source);
    super::report::atomic_write(out, file.as_bytes()).map_err(|e| format!("{}: {e}", out.display()))
}
