//! Shared by the integration tests: a seeded byte source (no RNG crate), program
//! generation from random bytes and random configs, and python3 helpers.

#![allow(dead_code)]

use arbitrary::{Arbitrary, Unstructured};
use stagecheck_generator::{generate_for, Config, Family, Program, Settings};
use std::io::Write;
use std::process::{Command, Stdio};

/// xorshift64*: a deterministic stream of bytes for a seed.
pub fn bytes(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            (x.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 56) as u8
        })
        .collect()
}

/// A program from `data`: the config drawn from the first bytes, the program from the rest.
pub fn program_from(data: &[u8], family: Family) -> (Config, Program) {
    program_from_for(data, family, &Settings::DEFAULT)
}

fn program_from_for(data: &[u8], family: Family, settings: &Settings) -> (Config, Program) {
    let mut u = Unstructured::new(data);
    let config = Config::arbitrary(&mut u).expect("a config never fails");
    let p = generate_for(&mut u, &config, family, settings).expect("generation never fails");
    (config, p)
}

/// The program for seed `seed` (random length up to 6 KiB).
pub fn program(seed: u64, family: Family) -> (Config, Program) {
    program_for(seed, family, &Settings::DEFAULT)
}

/// [`program`] under a target's `settings` (`ALL_ROWS`: every row of the table).
pub fn program_for(seed: u64, family: Family, settings: &Settings) -> (Config, Program) {
    let len = (bytes(seed ^ 0xABCD, 2).iter().map(|&b| b as usize).sum::<usize>() * 12).max(64);
    program_from_for(&bytes(seed, len), family, settings)
}

/// Every row of the table, fuel on, one round of calls: what a target running
/// both sides on one CPython may take.
pub const ALL_ROWS: Settings = Settings { never: &[], fuel: true, rebind: false };

/// A JIT's settings (torch-compile's): every row, no fuel, the functions
/// called again after the int globals are rebound.
pub const JIT: Settings = Settings { never: &[], fuel: false, rebind: true };

/// Parses every source with python3's `ast` in one process; returns the
/// indices that failed with their errors.
pub fn parse_all(sources: &[String]) -> Vec<(usize, String)> {
    let script = r#"
import ast, json, sys
srcs = json.load(sys.stdin)
for i, s in enumerate(srcs):
    try:
        ast.parse(s)
        compile(s, '<gen>', 'exec')
    except SyntaxError as e:
        print(i, repr(e))
"#;
    let mut child =
        Command::new("python3").arg("-c").arg(script).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().expect("python3 runs");
    let json = serde_json::to_string(sources).expect("strings serialise");
    child.stdin.take().expect("stdin").write_all(json.as_bytes()).expect("write");
    let out = child.wait_with_output().expect("python3 ends");
    assert!(out.status.success(), "the parse script failed");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| {
            let (i, e) = l.split_once(' ').expect("index and error");
            (i.parse().expect("an index"), e.to_string())
        })
        .collect()
}

/// `f(seed)` for every seed on two threads (the machine's cores), in seed order.
pub fn on_two_threads<T: Send>(seeds: &[u64], f: impl Fn(u64) -> T + Sync) -> Vec<T> {
    let out = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for chunk in seeds.chunks(seeds.len().div_ceil(2).max(1)) {
            let (f, out) = (&f, &out);
            s.spawn(move || {
                for &seed in chunk {
                    let r = f(seed);
                    out.lock().expect("lock").push((seed, r));
                }
            });
        }
    });
    let mut v = out.into_inner().expect("lock");
    v.sort_by_key(|r| r.0);
    v.into_iter().map(|(_, r)| r).collect()
}

/// Runs the program at `path` under python3 with the mock `stagecheck`
/// (`tests/mock`), within 5 s; `stale` is its `STAGECHECK_MOCK_STALE`.
pub fn run_mock(path: &std::path::Path, stale: &str) -> std::process::Output {
    Command::new("timeout")
        .args(["5", "python3"])
        .arg(path)
        .env("PYTHONPATH", concat!(env!("CARGO_MANIFEST_DIR"), "/tests/mock"))
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env("STAGECHECK_MOCK_STALE", stale)
        .output()
        .expect("python3 runs")
}
