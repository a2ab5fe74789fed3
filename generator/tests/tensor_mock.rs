//! Tensor-family programs run under python3 with a strict stand-in for the
//! `stagecheck` runtime (`tests/mock/stagecheck.py`): same dtype and shape for
//! every binary op, truth values of scalar bools only, bounds that are int
//! scalars. A typing mistake of the generator fails here; the staging rules
//! are not modelled (the real runtime is the executor crate's).

mod common;

use stagecheck_generator::Family;
use std::process::Command;

/// How many programs: 200, or `STAGECHECK_GEN_RUNS` for a longer soak.
fn programs() -> u64 {
    std::env::var("STAGECHECK_GEN_RUNS").ok().and_then(|v| v.parse().ok()).unwrap_or(200)
}

#[test]
fn tensor_programs_are_well_typed_under_a_strict_mock_runtime() {
    let dir = std::env::temp_dir().join(format!("stagecheck-gen-tensor-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let seeds: Vec<u64> = (0..programs()).map(|i| 50_000 + i).collect();
    let failures: Vec<String> = common::on_two_threads(&seeds, |seed| {
        let (_, p) = common::program(seed, Family::Tensor);
        let path = dir.join(format!("t{seed}.py"));
        std::fs::write(&path, &p.source).expect("write program");
        let out = common::run_mock(&path, "");
        if out.status.success() {
            let _ = std::fs::remove_file(&path);
            return None;
        }
        let err = String::from_utf8_lossy(&out.stderr);
        Some(format!(
            "seed {seed}: exit {:?}: {}\n{}",
            out.status.code(),
            err.lines().rev().take(3).collect::<Vec<_>>().join(" | "),
            p.source
        ))
    })
    .into_iter()
    .flatten()
    .collect();
    if failures.is_empty() {
        let _ = std::fs::remove_dir_all(&dir);
    }
    assert!(failures.is_empty(), "{} of {} failed:\n{}", failures.len(), programs(), failures.join("\n\n"));
}

/// The mock is not vacuous: it refuses what the generator must never write.
#[test]
fn the_mock_refuses_ill_typed_programs() {
    let mock = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/mock");
    for bad in [
        "sc.constant(1) + sc.constant(1.0)",
        "sc.constant([1, 2]) + sc.constant([1, 2, 3])",
        "bool(sc.constant([1, 2]) > 0)",
        "sc.constant([1]) * 0.5",
        "sc.argmax(sc.constant([1, 3]), 0) + sc.constant(2)",
        "sc.matmul(sc.ones([2, 3]), sc.ones([2, 3]))",
        "sc.tanh(sc.constant(1))",
        "sc.constant(True) + sc.constant(False)",
        "sc.constant([True]) < sc.constant([False])",
        "sc.constant(1.5) & sc.constant(2.5)",
        "sc.constant(True) & 1",
        "sc.constant([1, 2])[0:2, 0]",
    ] {
        let out = Command::new("python3")
            .args(["-c", &format!("import stagecheck as sc\n{bad}")])
            .env("PYTHONPATH", mock)
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .output()
            .expect("python3 runs");
        assert!(!out.status.success(), "the mock accepted {bad}");
    }
}
