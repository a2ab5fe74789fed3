//! The fuzzer finds every planted bug (issue 5): with the feature
//! `planted-bugs`, `STAGECHECK_PLANT=<bug> stagecheck fuzz` on one core must
//! save a finding within 60 s. Each bug runs in its own process (the bug is
//! chosen when the interpreter is built). And each finding reduces to at
//! most 15 lines that replay it with one command (issue 6): the fuzz run
//! writes `reduced.py` next to the finding's program, and the command in
//! its header gives the finding's kind of divergence in the same mode.
//!
//!     scripts/planted-bugs     # = cargo test --release --features planted-bugs --test planted

#![cfg(feature = "planted-bugs")]

mod common;

use std::process::Command;

/// Fuzzes the plain family with `bug` planted until the first finding; the findings' directories.
fn fuzz(bug: &str, reduce_time: &str) -> (Vec<std::fs::DirEntry>, String) {
    fuzz_family(bug, "plain", reduce_time)
}

fn fuzz_family(bug: &str, family: &str, reduce_time: &str) -> (Vec<std::fs::DirEntry>, String) {
    let out_dir = std::env::temp_dir().join(format!("stagecheck-planted-{bug}-{reduce_time}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out_dir);
    let out = Command::new(env!("CARGO_BIN_EXE_stagecheck"))
        .args(["fuzz", "--time", "60s", "--jobs", "1", "--family", family, "--seed", "7", "--stop-at-first"])
        .args(["--reduce-time", reduce_time, "--out"])
        .arg(&out_dir)
        .env("STAGECHECK_PLANT", bug)
        .output()
        .expect("stagecheck runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(1), "{bug}: no finding within 60 s\n{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    let findings: Vec<_> = std::fs::read_dir(out_dir.join("findings")).expect("findings dir").flatten().collect();
    assert!(!findings.is_empty(), "{bug}: exit 1 but no finding on disk");
    (findings, stdout)
}

fn finds(bug: &str) {
    finds_in(bug, "plain");
}

fn finds_in(bug: &str, family: &str) {
    // The reductions take 1-2 s unloaded; the margin is for a busy machine.
    let (findings, stdout) = fuzz_family(bug, family, "20s");
    for f in findings {
        let program = std::fs::read_to_string(f.path().join("program.py")).expect("program.py");
        assert!(program.contains("# replay: stagecheck check"), "{program}");
        // The directory is named for the signature: kind-mode-hash.
        let name = f.file_name().to_string_lossy().into_owned();
        let mut parts = name.split('-');
        let (kind, mode) = (parts.next().unwrap_or_default(), parts.next().unwrap_or_default());
        let reduced_path = f.path().join("reduced.py");
        let reduced = std::fs::read_to_string(&reduced_path).unwrap_or_else(|e| panic!("{bug}: {}: {e}", reduced_path.display()));
        let lines = common::code_lines(&reduced);
        assert!(lines <= 15, "{bug}: {lines} lines:\n{reduced}");
        let replay = common::replay(&reduced_path, &[]);
        assert_eq!(replay.status.code(), Some(1), "{bug}: the replay does not diverge:\n{reduced}\n{}", String::from_utf8_lossy(&replay.stdout));
        let json = common::replay(&reduced_path, &["--json"]);
        assert_eq!(common::kind_and_mode(&json.stdout), (kind.to_string(), mode.to_string()), "{bug}:\n{reduced}");
        println!("{bug}: {} lines from {}\n{reduced}", lines, common::code_lines(&program));
    }
    println!("{bug}: found\n{stdout}");
}

#[test]
fn guards_skip_globals() {
    // A staged function reading a global scalar the program rebinds between
    // calls (the tensor family writes both) reuses its stale trace.
    finds_in("guards_skip_globals", "tensor");
}

#[test]
fn and_evaluates_all() {
    finds("and_evaluates_all");
}

#[test]
fn compare_middle_twice() {
    finds("compare_middle_twice");
}

#[test]
fn while_test_once_more() {
    finds("while_test_once_more");
}

#[test]
fn for_else_after_break() {
    finds("for_else_after_break");
}

#[test]
fn nonlocal_write_lost() {
    finds("nonlocal_write_lost");
}

/// A program that kills its worker process (every converted `if` aborts)
/// is saved as a crash finding, and the run, with two jobs, goes on to its
/// end: the `stagecheck` process itself exits normally.
#[test]
fn a_dying_worker_is_a_finding_and_the_run_goes_on() {
    let out_dir = std::env::temp_dir().join(format!("stagecheck-planted-abort-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out_dir);
    let started = std::time::Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_stagecheck"))
        .args(["fuzz", "--time", "20s", "--jobs", "2", "--family", "plain", "--seed", "3", "--reduce-time", "0", "--out"])
        .arg(&out_dir)
        .env("STAGECHECK_PLANT", "worker_abort")
        .output()
        .expect("stagecheck runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "findings saved, exit 1, no signal:\n{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(started.elapsed().as_secs() >= 20, "the run went on to its end");
    let crashes: Vec<_> = std::fs::read_dir(out_dir.join("findings"))
        .expect("findings dir")
        .flatten()
        .filter(|f| f.file_name().to_string_lossy().starts_with("crash-"))
        .collect();
    assert!(!crashes.is_empty(), "no crash finding:\n{stdout}");
    let verdict = std::fs::read_to_string(crashes[0].path().join("verdict.json")).expect("verdict.json");
    assert!(verdict.contains("SIGABRT"), "{verdict}");
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("summary.json")).expect("summary.json")).expect("json");
    println!("{stdout}\n{summary}");
}

/// A panic of the converter is a finding (`converter-...`), not a refusal.
#[test]
fn converter_panic() {
    finds("converter_panic");
}

#[test]
fn reduce_time_0_keeps_findings_unreduced() {
    for f in fuzz("and_evaluates_all", "0").0 {
        assert!(f.path().join("program.py").exists());
        assert!(!f.path().join("reduced.py").exists(), "{}", f.path().display());
    }
}

/// A staged program with an int32 `//` and a float32 `exp`, both run on GPU kernels.
const GPU_PROGRAM: &str = "import stagecheck as sc\n\n@sc.function\ndef f(a, b, x):\n    return a // b, sc.exp(x)\n\nq, e = f(sc.constant([7, -7, 9]), sc.constant([2, 2, 3]), sc.constant([0.5, 1.0]))\nprint(q.numpy(), e.numpy())\n";

/// `check --modes ...,staged-gpu` of [`GPU_PROGRAM`] with `plant` (None: no bug).
fn gpu_check(plant: Option<&str>) -> Option<(Option<i32>, String)> {
    if let Err(why) = stagecheck_gpu::Gpu::available() {
        eprintln!("SKIPPED: no Vulkan adapter: {why}");
        return None;
    }
    let path = std::env::temp_dir().join(format!("stagecheck-planted-gpu-{}.py", std::process::id()));
    std::fs::write(&path, GPU_PROGRAM).unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_stagecheck"));
    cmd.args(["check", "--modes", "original,staged,staged-gpu"]).arg(&path).env_remove("STAGECHECK_PLANT");
    if let Some(p) = plant {
        cmd.env("STAGECHECK_PLANT", p);
    }
    let out = cmd.output().expect("stagecheck runs");
    Some((out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned()))
}

/// The shadow check names the GPU op beyond its tolerance, for an int32
/// result off by one (which no float tolerance may excuse) and for a float32
/// result beyond its op's ULP bound; without a plant the program agrees.
#[test]
fn gpu_kernels_beyond_their_tolerance_are_found_naming_the_op() {
    let Some((code, stdout)) = gpu_check(None) else { return };
    assert_eq!(code, Some(0), "{stdout}");
    for (plant, op, dtype) in [("gpu_floordiv_off_by_one", "FloorDiv", "int32"), ("gpu_exp_inexact", "Exp", "float32")] {
        let (code, stdout) = gpu_check(Some(plant)).expect("an adapter");
        assert_eq!(code, Some(1), "{plant}: {stdout}");
        assert!(stdout.contains(&format!("GPU {op} -> {dtype}")), "{plant}: the op is named:\n{stdout}");
        println!("{plant}:\n{stdout}");
    }
}
