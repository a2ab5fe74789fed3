//! A `kill -9` of `stagecheck fuzz` mid-run leaves every finding it
//! announced on disk, whole and readable, and the next run on the same
//! directory carries on: it does not save known findings again,
//! reduces what the killed run left unreduced, exits sanely and writes its
//! report. A planted bug makes findings come within seconds.
//!
//!     scripts/planted-bugs     # runs this file with tests/planted.rs

#![cfg(feature = "planted-bugs")]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn fuzz(out: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_stagecheck"));
    cmd.args(["fuzz", "--jobs", "1", "--family", "plain", "--seed", "7", "--out"]).arg(out).env("STAGECHECK_PLANT", "and_evaluates_all");
    cmd
}

/// A finding directory is whole: every file there, non-empty and parsing.
fn assert_whole(dir: &Path) {
    let read = |name: &str| std::fs::read(dir.join(name)).unwrap_or_else(|e| panic!("{}/{name}: {e}", dir.display()));
    let program = String::from_utf8(read("program.py")).expect("program.py is UTF-8");
    assert!(program.contains("# replay: stagecheck check") && program.lines().count() > 4, "{program}");
    assert!(!read("input.bin").is_empty(), "{}: empty input.bin", dir.display());
    for json in ["config.json", "signature.json", "verdict.json"] {
        let v: serde_json::Value = serde_json::from_slice(&read(json)).unwrap_or_else(|e| panic!("{}/{json}: {e}", dir.display()));
        assert!(!v.is_null(), "{}/{json} is null", dir.display());
    }
    if let Ok(reduced) = std::fs::read_to_string(dir.join("reduced.py")) {
        assert!(reduced.contains("# replay: "), "a partial reduced.py:\n{reduced}");
    }
}

#[test]
fn kill_9_mid_run_keeps_announced_findings_whole_and_the_next_run_carries_on() {
    let out = std::env::temp_dir().join(format!("stagecheck-kill-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let mut child = fuzz(&out).args(["--time", "60s"]).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().expect("spawns");
    let mut announced: Vec<PathBuf> = Vec::new();
    for line in BufReader::new(child.stdout.take().expect("stdout")).lines() {
        let line = line.expect("a line");
        if let Some(rest) = line.strip_prefix("new finding ") {
            let (_, path) = rest.split_once(": ").expect("new finding ID: PATH");
            announced.push(PathBuf::from(path));
            // SIGKILL, at once: most likely while it reduces this finding.
            child.kill().expect("kill -9");
            break;
        }
    }
    let status = child.wait().expect("waits");
    assert!(!announced.is_empty(), "no finding announced within 60 s ({status})");
    assert_eq!(std::os::unix::process::ExitStatusExt::signal(&status), Some(9), "killed by SIGKILL, not finished: {status}");
    assert!(!out.join("summary.json").exists(), "a killed run writes no summary");
    for dir in &announced {
        assert_whole(dir);
    }
    let findings = out.join("findings");
    let listed = |findings: &Path| -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = std::fs::read_dir(findings).expect("findings").flatten().map(|e| e.path()).collect();
        v.sort();
        v
    };
    for dir in listed(&findings) {
        if !dir.file_name().is_some_and(|n| n.to_string_lossy().starts_with('.')) {
            assert_whole(&dir);
        }
    }

    // The next run: up to the first finding's program again, on the same directory,
    // with the leftover of a save killed half-way (a process that is gone).
    let program = std::fs::read_to_string(announced[0].join("program.py")).expect("program.py");
    let index: u64 = program
        .split_whitespace()
        .skip_while(|w| *w != "index")
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no index in the header:\n{program}"));
    let stale = findings.join(".tmp-terminal-unstaged-00000000-999999999");
    std::fs::create_dir_all(&stale).expect("stale temp dir");
    std::fs::write(stale.join("program.py"), "# half").expect("write");
    let before: Vec<PathBuf> = listed(&findings).into_iter().filter(|p| p != &stale).collect();
    let again = fuzz(&out).args(["--time", "120s", "--programs", &(index + 1).to_string(), "--reduce-time", "30s"]).output().expect("runs");
    let stdout = String::from_utf8_lossy(&again.stdout);
    assert_eq!(again.status.code(), Some(0), "nothing new: exit 0\n{stdout}\n{}", String::from_utf8_lossy(&again.stderr));
    assert!(!stdout.contains("new finding "), "{stdout}");
    assert!(!stale.exists(), "the killed save's temporary directory is removed");
    assert_eq!(listed(&findings), before, "no finding saved again, none lost");
    assert_eq!(std::fs::read_to_string(announced[0].join("program.py")).expect("program.py"), program, "not rewritten");
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).expect("the report is written")).expect("json");
    assert_eq!(summary["programs"], index + 1, "{summary}");
    assert!(summary["stats"]["finding_hits"].as_u64().unwrap_or(0) >= 1, "the known finding is met again: {summary}");
    assert_eq!(summary["stats"]["findings"].as_array().map(Vec::len), Some(0), "{summary}");
    // What the killed run left unreduced is reduced now.
    for dir in &announced {
        assert_whole(dir);
        assert!(dir.join("reduced.py").exists(), "{}: not reduced by the next run", dir.display());
    }
    let _ = std::fs::remove_dir_all(&out);
}
