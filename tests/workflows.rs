//! The GitHub workflows pass zizmor's security review, and the nightly
//! script refuses dispatch inputs that are not what they claim to be.
//!
//! zizmor is installed by `scripts/deps` (which `scripts/test` runs first)
//! into a venv under the build cache; `ZIZMOR` names another binary. Without
//! it these tests fail and say so: a review that did not run never passes.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn zizmor() -> PathBuf {
    if let Some(path) = std::env::var_os("ZIZMOR") {
        return PathBuf::from(path);
    }
    let home = std::env::var_os("HOME").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("/root"));
    let path = home.join(".cache/stagecheck/venv/bin/zizmor");
    assert!(
        path.is_file(),
        "zizmor is not installed at {}: run scripts/deps (scripts/test does), which installs it from PyPI \
         into that venv, or set ZIZMOR to a zizmor binary. The workflows' security review cannot be skipped.",
        path.display()
    );
    path
}

/// zizmor on `dir`, offline, ignore comments disregarded, every workflow
/// collected or an error, findings below "medium" left out: exit 0 is a
/// clean review, 1-3 an error of zizmor's, 10+ a finding.
fn review(dir: &Path) -> (Option<i32>, String) {
    let Output { status, stdout, stderr } = Command::new(zizmor())
        .args(["--offline", "--no-ignores", "--strict-collection", "--no-progress", "--min-severity", "medium", "--color", "never"])
        .arg(dir)
        .env("NO_COLOR", "1")
        .output()
        .expect("zizmor runs");
    let text = format!("{}{}", String::from_utf8_lossy(&stdout), String::from_utf8_lossy(&stderr));
    (status.code(), text)
}

#[test]
fn workflows_have_no_finding_above_low() {
    let dir = Path::new(ROOT).join(".github/workflows");
    for workflow in ["nightly.yml", "cflite.yml"] {
        assert!(dir.join(workflow).is_file(), "{workflow} is missing from {}", dir.display());
    }
    let (code, text) = review(&dir);
    assert_eq!(code, Some(0), "zizmor reports findings above \"low\" (or failed) on .github/workflows/:\n{text}");
    assert!(text.contains("No findings to report"), "zizmor's review said:\n{text}");
    println!("{}", text.trim());
}

/// The review is not vacuous: the same call catches the injection and the
/// unpinned action the workflows used to have.
#[test]
fn review_catches_an_injection_and_an_unpinned_action() {
    // zizmor collects a folder's workflows only under .github/workflows/.
    let root = std::env::temp_dir().join(format!("stagecheck-zizmor-{}", std::process::id()));
    let dir = root.join(".github/workflows");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("bad.yml"),
        "name: bad\non:\n  workflow_dispatch:\n    inputs:\n      time:\n        default: \"30m\"\n\
         permissions: {}\njobs:\n  fuzz:\n    runs-on: ubuntu-24.04\n    permissions:\n      contents: read\n    steps:\n\
         \x20     - uses: actions/checkout@v4 # zizmor: ignore[unpinned-uses,artipacked]\n\
         \x20     - run: scripts/nightly --time \"${{ inputs.time }}\"\n",
    )
    .unwrap();
    let (code, text) = review(&dir);
    std::fs::remove_dir_all(&root).ok();
    assert!(code.is_some_and(|c| c >= 10), "exit {code:?}, expected a finding:\n{text}");
    for audit in ["template-injection", "unpinned-uses"] {
        assert!(text.contains(audit), "no {audit} finding:\n{text}");
    }
}

fn nightly(args: &[&str]) -> Output {
    Command::new(Path::new(ROOT).join("scripts/nightly")).args(args).output().expect("scripts/nightly runs")
}

/// What a workflow dispatch can send: anything but a duration, a number or a
/// plain path is refused with exit 2 before anything is built or run.
#[test]
fn nightly_refuses_odd_dispatch_inputs() {
    let cases: &[(&[&str], &str)] = &[
        (&["--time", "1m; echo x"], "--time"),
        (&["--time", "$(touch /tmp/stagecheck-nightly-pwned)"], "--time"),
        (&["--time", "0s"], "--time"),
        (&["--time", "1m", "--seed", "1; echo x"], "--seed"),
        (&["--seed", "`id`"], "--seed"),
        (&["--seed", "-1"], "--seed"),
        (&["--jobs", "0"], "--jobs"),
        (&["--jobs", "2 --gpu"], "--jobs"),
        (&["--out", "../outside"], "--out"),
        (&["--out", "--gpu"], "--out"),
        (&["--out", "reports/a b"], "--out"),
        (&["--time"], "--time needs a value"),
        (&["--bogus"], "unknown argument"),
    ];
    for (args, says) in cases {
        let out = nightly(args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(2), "scripts/nightly {args:?}: exit {:?}\n{stdout}{stderr}", out.status.code());
        assert!(stderr.contains(says), "scripts/nightly {args:?} should name {says:?}:\n{stderr}");
        assert!(stdout.is_empty(), "scripts/nightly {args:?} printed before refusing:\n{stdout}");
    }
    assert!(!Path::new("/tmp/stagecheck-nightly-pwned").exists(), "an input ran as a command");
}

/// The workflow hands its inputs to scripts/nightly through env: and quotes
/// them, and its fuzzing step is scripts/nightly itself (one source of truth).
#[test]
fn nightly_workflow_runs_the_script_with_quoted_inputs() {
    let text = std::fs::read_to_string(Path::new(ROOT).join(".github/workflows/nightly.yml")).unwrap();
    let runs: Vec<&str> = text.lines().map(str::trim).filter_map(|l| l.strip_prefix("run: ")).collect();
    let script: Vec<&&str> = runs.iter().filter(|r| r.starts_with("scripts/nightly ")).collect();
    assert_eq!(script.len(), 1, "one step runs scripts/nightly: {runs:?}");
    assert!(!runs.iter().any(|r| r.contains("${{")), "an expression expanded into a run: block: {runs:?}");
    for arg in ["--time \"$FUZZ_TIME\"", "--seed \"$FUZZ_SEED\""] {
        assert!(script[0].contains(arg), "{arg} missing from {}", script[0]);
    }
    for env in ["FUZZ_TIME: ${{ inputs.time }}", "FUZZ_SEED: ${{ inputs.seed }}"] {
        assert!(text.contains(env), "{env} missing from nightly.yml");
    }
}
