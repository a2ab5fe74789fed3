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
    if let Err(e) = reduce_into(&dir.join("program.py"), &dir.join("reduced.py"), exec, budget) {
        eprintln!("stagecheck fuzz: {}: not reduced: {e}", dir.display());
    }
}

fn reduce_into(input: &Path, out: &Path, exec: &Config, budget: Duration) -> Result<(), String> {
    let text = std::fs::read_to_string(input).map_err(|e| format!("{}: {e}", input.display()))?;
    let (header, body) = crate::reduce::finding::split_header(&text);
    let signature = input.with_file_name("signature.json");
    let kind = std::fs::read_to_string(&signature)
        .ok()
        .and_then(|t| serde_json::from_str::<Signature>(&t).ok())
        .map_or_else(|| "gradient".to_string(), |s| s.kind);
    let mut worker = Worker::spawn(None, exec.clone());
    let path = input.display().to_string();
    let mut misses = |candidate: &str| gradcheck(&mut worker, candidate, &path).is_ok_and(|g| g.kind() == Some(kind.as_str()));
    if !misses(body) {
        return Err(format!("the gradient check no longer fails ({kind})"));
    }
    let r = crate::reduce::reduce(body, budget, &mut misses, &mut |_| {})?;
    let mut head = crate::reduce::finding::reduced_head(&format!("{kind}-gradcheck"), &r, input, &header);
    head.push(format!("# replay: {}stagecheck check --gradcheck {}", crate::reduce::finding::plant_prefix(), out.display()));
    let file = format!("{}\n\n{}", head.join("\n"), r.source);
    super::report::atomic_write(out, file.as_bytes()).map_err(|e| format!("{}: {e}", out.display()))
}
