//! Plain-family programs run under python3 (CPython 3.11) to completion within
//! 2 s each, twice with different hash seeds, printing the same: they
//! terminate, raise nothing the top level does not catch, and do not depend
//! on hash order; every other one under a JIT's settings (`common::JIT`: every
//! row, no fuel, a second round of calls). (Tensor programs need the
//! `stagecheck` runtime: parse only.)

mod common;

use stagecheck_generator::Family;
use std::path::PathBuf;
use std::process::Command;

/// How many programs: 200, or `STAGECHECK_GEN_RUNS` for a longer soak.
fn programs() -> u64 {
    std::env::var("STAGECHECK_GEN_RUNS").ok().and_then(|v| v.parse().ok()).unwrap_or(200)
}

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn run(path: &PathBuf, hash_seed: &str) -> Run {
    let out = Command::new("timeout")
        .args(["2", "python3", "-X", "utf8"])
        .arg(path)
        .env("PYTHONHASHSEED", hash_seed)
        .output()
        .expect("timeout and python3 run");
    Run {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

#[test]
fn plain_programs_run_to_completion_deterministically() {
    let dir = std::env::temp_dir().join(format!("stagecheck-gen-run-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let seeds: Vec<u64> = (0..programs()).map(|i| 1_000 + i).collect();
    let failures = std::sync::Mutex::new(Vec::new());
    let raised = std::sync::Mutex::new(std::collections::BTreeMap::<String, usize>::new());
    std::thread::scope(|s| {
        for chunk in seeds.chunks(seeds.len().div_ceil(2)) {
            let (dir, failures, raised) = (&dir, &failures, &raised);
            s.spawn(move || {
                for &seed in chunk {
                    let settings = if seed % 2 == 1 { common::JIT } else { stagecheck_generator::Settings::DEFAULT };
                    let (_, p) = common::program_for(seed, Family::Plain, &settings);
                    let path = dir.join(format!("p{seed}.py"));
                    std::fs::write(&path, &p.source).expect("write program");
                    let a = run(&path, "1");
                    let b = run(&path, "12345");
                    let mut why = Vec::new();
                    if a.code != Some(0) {
                        why.push(format!("exit {:?}: {}", a.code, a.stderr.lines().last().unwrap_or("")));
                    }
                    if a.stdout != b.stdout || a.code != b.code {
                        why.push("output differs between hash seeds".to_string());
                    }
                    for l in a.stdout.lines().filter(|l| l.starts_with("raised ")) {
                        let ty = l.split_whitespace().nth(1).unwrap_or("").to_string();
                        *raised.lock().expect("lock").entry(ty).or_default() += 1;
                    }
                    if !why.is_empty() {
                        failures.lock().expect("lock").push(format!("seed {seed}: {}\n{}", why.join("; "), p.source));
                    } else {
                        let _ = std::fs::remove_file(&path);
                    }
                }
            });
        }
    });
    let failures = failures.into_inner().expect("lock");
    println!("{} programs run; exceptions reaching the top level: {:?}", programs(), raised.into_inner().expect("lock"));
    if failures.is_empty() {
        let _ = std::fs::remove_dir_all(&dir);
    }
    assert!(failures.is_empty(), "{} of {} failed:\n{}", failures.len(), programs(), failures.join("\n\n"));
}
