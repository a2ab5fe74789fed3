//! The fuzz loop's parts: cases are a function of (seed, index); findings
//! are stored whole and once per signature; a short `stagecheck fuzz` run
//! writes its report and says where.

use stagecheck::fuzz::case::{bytes_for, Case};
use stagecheck::fuzz::{parse_duration, timestamp};
use stagecheck_generator::Family;
use std::process::Command;
use std::time::Duration;

#[test]
fn a_case_is_a_function_of_seed_and_index() {
    for family in [Family::Plain, Family::Tensor] {
        let a = Case::from_seed(7, 3, family);
        let b = Case::from_seed(7, 3, family);
        assert_eq!(a.program.source, b.program.source);
        assert_eq!(a.bytes, b.bytes);
        let c = Case::from_seed(7, 4, family);
        assert_ne!(a.program.source, c.program.source, "neighbouring cases differ");
        // A saved finding's bytes give back its program.
        let again = Case::from_bytes(a.bytes.clone(), family, 7, 3);
        assert_eq!(again.program.source, a.program.source);
    }
    assert_ne!(bytes_for(1, 0), bytes_for(2, 0));
}

#[test]
fn durations_and_timestamps() {
    assert_eq!(parse_duration("90"), Some(Duration::from_secs(90)));
    assert_eq!(parse_duration("90s"), Some(Duration::from_secs(90)));
    assert_eq!(parse_duration("10m"), Some(Duration::from_secs(600)));
    assert_eq!(parse_duration("1h"), Some(Duration::from_secs(3600)));
    assert_eq!(parse_duration("1.5m"), Some(Duration::from_secs(90)));
    assert_eq!(parse_duration("ten"), None);
    assert_eq!(parse_duration("-1s"), None);
    assert_eq!(parse_duration("5d"), None);
    let t = timestamp();
    assert_eq!(t.len(), "2026-11-21T08-30-00Z".len(), "{t}");
    assert!(t.starts_with("20") && t.ends_with('Z'), "{t}");
}

#[test]
fn a_short_fuzz_run_writes_its_report_and_prints_where() {
    let out = std::env::temp_dir().join(format!("stagecheck-fuzz-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let run = Command::new(env!("CARGO_BIN_EXE_stagecheck"))
        .args(["fuzz", "--time", "60s", "--programs", "12", "--seed", "3", "--out"])
        .arg(&out)
        .output()
        .expect("stagecheck runs");
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(matches!(run.status.code(), Some(0) | Some(1)), "{stdout}\n{}", String::from_utf8_lossy(&run.stderr));
    assert!(stdout.contains(&format!("report: {}", out.join("summary.md").display())), "{stdout}");
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).expect("summary.json")).expect("json");
    assert_eq!(summary["programs"], 12, "{summary}");
    assert_eq!(summary["stats"]["per_family"]["plain"], 6, "both families alternate: {summary}");
    assert_eq!(summary["stats"]["per_family"]["tensor"], 6, "{summary}");
    let md = std::fs::read_to_string(out.join("summary.md")).expect("summary.md");
    assert!(md.contains("## Construct coverage"), "{md}");
    // Every finding on disk is whole: its program names the command that replays it.
    for f in std::fs::read_dir(out.join("findings")).expect("findings dir").flatten() {
        let program = std::fs::read_to_string(f.path().join("program.py")).expect("program.py");
        assert!(program.contains("# replay: stagecheck check"), "{program}");
        assert!(f.path().join("input.bin").exists() && f.path().join("config.json").exists());
    }
}

#[test]
fn bad_fuzz_arguments_are_usage_errors() {
    for args in [&["fuzz", "--time", "soon"][..], &["fuzz", "--family", "tensors"], &["fuzz", "--jobs", "0"]] {
        let run = Command::new(env!("CARGO_BIN_EXE_stagecheck")).args(args).output().expect("runs");
        assert_eq!(run.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&run.stderr);
        assert!(err.contains("--"), "{args:?}: {err}");
    }
}

/// The fuzz loop's rule for generated tensor programs (`oracle::planned`),
/// on real runs: a program whose every mode raises the same ValueError (an
/// invalid reshape, computed by the one shape function eager and traced runs
/// share) agrees under the oracle, but as a generated tensor program it is a
/// finding of kind `unplanned`; as a plain-family program, or once the
/// program catches it, it is not.
#[test]
fn a_generated_tensor_program_ending_with_an_unplanned_exception_is_a_finding() {
    use stagecheck::executor::Config;
    use stagecheck::fuzz::outcome::{check_case, Kind};
    use stagecheck::worker::Worker;
    use stagecheck_generator::Program;
    let case = |source: &str, family: Family| Case {
        seed: 0,
        index: 0,
        bytes: Vec::new(),
        config: Default::default(),
        program: Program { source: source.into(), constructs: vec!["reshape"], family },
    };
    let raising =
        "import stagecheck as sc\n\n\n@sc.function\ndef f(t):\n    return sc.reshape(t, [2, 2])\n\n\nprint(f(sc.constant([1, 2, 3])))\n";
    let mut worker = Worker::in_process(Config { keep_graph: false, ..Config::default() });
    match check_case(&mut worker, &case(raising, Family::Tensor)).kind {
        Kind::Finding { signature, .. } => {
            assert_eq!((signature.kind.as_str(), signature.mode.as_str()), ("unplanned", "original"), "{signature:?}");
        }
        k => panic!("not a finding: {k:?}"),
    }
    assert!(matches!(check_case(&mut worker, &case(raising, Family::Plain)).kind, Kind::Agree));
    let caught = raising
        .replace("print(f(", "try:\n    print(f(")
        .replace("3])))\n", "3])))\nexcept (ValueError,) as e:\n    print('raised', type(e).__name__, e)\n");
    assert!(matches!(check_case(&mut worker, &case(&caught, Family::Tensor)).kind, Kind::Agree), "{caught}");
}
