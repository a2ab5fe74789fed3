//! Same bytes and config, same program; empty and all-zero input give a small
//! valid program; Config and Program serialise.

mod common;

use arbitrary::Unstructured;
use stagecheck_generator::{generate, Config, Family, Program};
use std::process::Command;

fn gen(data: &[u8], config: &Config, family: Family) -> Program {
    generate(&mut Unstructured::new(data), config, family).expect("never fails")
}

#[test]
fn same_bytes_and_config_give_the_same_program() {
    for seed in 0..200u64 {
        for family in [Family::Plain, Family::Tensor] {
            let (c1, p1) = common::program(seed, family);
            let (c2, p2) = common::program(seed, family);
            assert_eq!(c1, c2);
            assert_eq!(p1, p2);
        }
    }
}

#[test]
fn constructs_are_distinct_and_sorted() {
    for seed in 0..200u64 {
        let (_, p) = common::program(seed, Family::Plain);
        assert!(p.constructs.windows(2).all(|w| w[0] < w[1]), "{:?}", p.constructs);
    }
}

/// Runs under python3 (with the strict mock `stagecheck` of `tests/mock`).
fn runs_cleanly(source: &str) {
    let out = Command::new("timeout")
        .args(["2", "python3", "-c", source])
        .env("PYTHONPATH", concat!(env!("CARGO_MANIFEST_DIR"), "/tests/mock"))
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .expect("python3 runs");
    assert!(out.status.success(), "{}\n{source}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn empty_and_zero_input_give_valid_programs() {
    let configs = [Config::default(), common::program_from(&[], Family::Plain).0];
    for config in &configs {
        for data in [&[][..], &[0u8; 64][..], &[255u8; 64][..]] {
            let plain = gen(data, config, Family::Plain);
            let tensor = gen(data, config, Family::Tensor);
            assert!(plain.source.contains("def f"), "{}", plain.source);
            assert!(tensor.source.contains("@sc.function"), "{}", tensor.source);
            assert_eq!(common::parse_all(&[plain.source.clone(), tensor.source.clone()]), vec![]);
            runs_cleanly(&plain.source);
            runs_cleanly(&tensor.source);
        }
    }
}

#[test]
fn config_and_program_serialise() {
    let (config, p) = common::program(7, Family::Tensor);
    let text = serde_json::to_string(&config).expect("serialise");
    let back: Config = serde_json::from_str(&text).expect("deserialise");
    assert_eq!(back, config);
    let json = serde_json::to_value(&p).expect("serialise");
    assert_eq!(json["family"], "Tensor");
    assert_eq!(json["source"], p.source.as_str());
}
