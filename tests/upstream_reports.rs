//! reports/upstream/: one report per bug found in someone else's
//! code, in that project's issue template. Each report's reproducer (its one
//! ```python block) is replayed here:
//!
//! - `tensorflow-*.md`: under the TensorFlow venv (`scripts/target-venv`, the
//!   pinned TensorFlow) it prints the report's "Actual" block (the bug still
//!   shows), and with AutoGraph and tf.function turned off (`PYTHON_AS_WRITTEN`
//!   run first: the functions run as the Python they are, under the same
//!   CPython 3.11) it prints the "Expected" block;
//! - `pytorch-*.md`: under the torch venv (`scripts/target-venv torch`, the
//!   pinned PyTorch) it prints the "Actual" block, and with `torch.compile`
//!   made the identity (`PYTORCH_AS_WRITTEN` run first) the "Expected" one;
//! - `rustpython-*.md`: `python3` (CPython) prints the "Expected" block, and so
//!   does `stagecheck run` (the vendored VM, where the bug is patched); the
//!   report carries the patch (a ```diff block).
//!
//! Where pip cannot reach the registry the TensorFlow and PyTorch reports are
//! not run, said on stderr (as in tests/targets.rs); the rest still is.

mod common;

use common::{scratch, tensorflow, text, torch};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/reports/upstream");

/// Prepended to a TensorFlow report's reproducer for its expected output:
/// `to_graph` gives the function back unconverted and tf.functions run
/// eagerly (their Python, no AutoGraph, no tracing).
const PYTHON_AS_WRITTEN: &str = "import tensorflow as tf\n\
tf.autograph.to_graph = lambda f, **kwargs: f\n\
tf.config.run_functions_eagerly(True)\n";

/// Prepended to a PyTorch report's reproducer for its expected output:
/// `torch.compile` gives the function back, which runs as the Python it is.
const PYTORCH_AS_WRITTEN: &str = "import torch\n\
torch.compile = lambda model=None, **kwargs: model if model is not None else (lambda f: f)\n";

/// The pinned frameworks' interpreters, where their venvs could be made.
struct Venvs {
    tensorflow: Option<PathBuf>,
    torch: Option<PathBuf>,
}

/// A report's checkable parts.
struct Report {
    name: String,
    reproducer: String,
    expected: String,
    actual: String,
    has_patch: bool,
}

/// The fenced blocks of a report: the ```python block, the ```text blocks
/// under the headings starting "Expected" and "Actual" (any level), and
/// whether a ```diff block is there.
fn parse(name: &str, doc: &str) -> Report {
    let (mut reproducer, mut expected, mut actual) = (Vec::new(), Vec::new(), Vec::new());
    let (mut heading, mut has_patch) = ("", false);
    let mut lines = doc.lines();
    while let Some(line) = lines.next() {
        if line.starts_with('#') {
            heading = line.trim_start_matches('#').trim_start();
            continue;
        }
        let Some(info) = line.strip_prefix("```") else { continue };
        let block: Vec<&str> = lines.by_ref().take_while(|l| *l != "```").collect();
        let body = block.iter().map(|l| format!("{l}\n")).collect::<String>();
        match info {
            "python" => reproducer.push(body),
            "text" if heading.starts_with("Expected") => expected.push(body),
            "text" if heading.starts_with("Actual") => actual.push(body),
            "diff" => has_patch = true,
            _ => {}
        }
    }
    for (what, blocks) in [("```python", &reproducer), ("expected", &expected), ("actual", &actual)] {
        assert_eq!(blocks.len(), 1, "{name}: one {what} block wanted, found {}", blocks.len());
    }
    Report { name: name.to_string(), reproducer: reproducer.remove(0), expected: expected.remove(0), actual: actual.remove(0), has_patch }
}

fn reports() -> Vec<Report> {
    let mut names: Vec<String> = std::fs::read_dir(DIR)
        .expect("reports/upstream")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md") && n != "README.md")
        .collect();
    names.sort();
    names.iter().map(|n| parse(n, &std::fs::read_to_string(Path::new(DIR).join(n)).expect("report"))).collect()
}

/// `python` on `source` (written as `repro.py` in a directory of the report's
/// own): its stdout, or an error saying what it printed.
fn python(python: &Path, dir: &Path, source: &str) -> Result<String, String> {
    let file = dir.join("repro.py");
    std::fs::write(&file, source).expect("write the reproducer");
    let out = Command::new(python).arg(&file).current_dir(dir).env("TF_CPP_MIN_LOG_LEVEL", "3").output().expect("python runs");
    if out.status.success() {
        Ok(text(&out.stdout))
    } else {
        Err(format!("exit {:?}\n{}{}", out.status.code(), text(&out.stdout), text(&out.stderr)))
    }
}

/// The program's stdout under `stagecheck run` (the vendored VM).
fn stagecheck_run(dir: &Path, source: &str) -> Result<String, String> {
    let file = dir.join("vm.py");
    std::fs::write(&file, source).expect("write the reproducer");
    let out = common::stagecheck(&["run", "--json", file.to_str().expect("utf-8 path")]);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).map_err(|e| format!("run --json: {e}: {}", text(&out.stderr)))?;
    doc["outcome"]["stdout"].as_str().map(str::to_string).ok_or_else(|| format!("no stdout in {doc}"))
}

/// `what` printed `got`; the report says `want`: why not, if they differ.
fn differs(report: &Report, what: &str, got: Result<String, String>, want: &str) -> Option<String> {
    match got {
        Ok(got) if got == want => None,
        Ok(got) => Some(format!("{}: {what} printed\n{got}\nthe report says\n{want}", report.name)),
        Err(e) => Some(format!("{}: {what} failed: {e}", report.name)),
    }
}

/// Why `report` no longer holds, if it does not.
fn replay(report: &Report, venvs: &Venvs) -> Vec<Option<String>> {
    let dir = scratch("upstream", report.name.trim_end_matches(".md"));
    // A framework's report: under its venv the reproducer shows the bug; with
    // the framework's compiler turned off (`off` run first), CPython's output.
    let framework = |venv: Option<&Path>, name: &str, off: &str, off_name: &str| {
        let Some(venv) = venv else { return vec![] };
        let as_written = format!("{off}{}", report.reproducer);
        vec![
            differs(report, name, python(venv, &dir, &report.reproducer), &report.actual),
            differs(report, off_name, python(venv, &dir, &as_written), &report.expected),
        ]
    };
    if report.name.starts_with("pytorch-") {
        framework(venvs.torch.as_deref(), "PyTorch", PYTORCH_AS_WRITTEN, "CPython (torch.compile the identity)")
    } else if report.name.starts_with("tensorflow-") {
        framework(venvs.tensorflow.as_deref(), "TensorFlow", PYTHON_AS_WRITTEN, "CPython (AutoGraph and tf.function off)")
    } else if report.name.starts_with("rustpython-") {
        vec![
            differs(report, "python3", python(Path::new("python3"), &dir, &report.reproducer), &report.expected),
            differs(report, "stagecheck run (the patched VM)", stagecheck_run(&dir, &report.reproducer), &report.expected),
        ]
    } else {
        vec![Some(format!("{}: the name says no project (pytorch-, tensorflow-, rustpython-)", report.name))]
    }
}

/// Each report's reproducer shows its bug with the pinned versions and its
/// expected output is CPython's; four reports at a time (TensorFlow's and
/// PyTorch's imports are heavy).
#[test]
fn every_report_replays() {
    let reports = reports();
    assert!(reports.len() >= 10, "at least 10 upstream reports are kept; {} found", reports.len());
    for r in &reports {
        let lines = r.reproducer.lines().count();
        assert!(lines <= 15, "{}: the reproducer has {lines} lines (at most 15)", r.name);
        assert_ne!(r.expected, r.actual, "{}: expected and actual are the same: no bug shown", r.name);
        if r.name.starts_with("rustpython-") {
            assert!(r.has_patch, "{}: a RustPython report carries its patch (a ```diff block)", r.name);
        }
    }
    let venvs = Venvs { tensorflow: tensorflow(), torch: torch() };
    let next = AtomicUsize::new(0);
    let wrong = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                while let Some(r) = reports.get(next.fetch_add(1, Ordering::SeqCst)) {
                    let found = replay(r, &venvs);
                    wrong.lock().unwrap_or_else(|e| e.into_inner()).extend(found.into_iter().flatten());
                }
            });
        }
    });
    let wrong = wrong.into_inner().unwrap_or_else(|e| e.into_inner());
    assert!(wrong.is_empty(), "{} of the reports no longer hold:\n\n{}", wrong.len(), wrong.join("\n\n"));
}

/// The index links every report, and every link of it is a report.
#[test]
fn the_index_links_every_report() {
    let index = std::fs::read_to_string(Path::new(DIR).join("README.md")).expect("reports/upstream/README.md");
    for r in reports() {
        assert!(index.contains(&format!("]({})", r.name)), "the index does not link {}", r.name);
    }
    for link in index.split("](").skip(1).filter_map(|l| l.split(')').next()).filter(|l| l.ends_with(".md")) {
        assert!(Path::new(DIR).join(link).is_file(), "the index links {link}, which is not there");
    }
    let reports_index = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/reports/README.md")).expect("reports/README.md");
    assert!(reports_index.contains("upstream/README.md"), "reports/README.md links the upstream index");
}
