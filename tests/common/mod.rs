//! Helpers shared by the root crate's integration tests (the reducer's,
//! the CLI's, the workers', the CPython oracle's, the red team's).

#![allow(dead_code)] // each test crate uses some of these

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

/// Runs the `# replay:` command of a reduced program's header
/// (`[NAME=VALUE ...] stagecheck check ...`), with `extra` arguments after it.
pub fn replay(file: &Path, extra: &[&str]) -> Output {
    let text = std::fs::read_to_string(file).expect("reduced program");
    let line = text.lines().find_map(|l| l.strip_prefix("# replay: ")).unwrap_or_else(|| panic!("no replay line:\n{text}"));
    let words: Vec<&str> = line.split_whitespace().collect();
    let at = words.iter().position(|w| *w == "stagecheck").unwrap_or_else(|| panic!("not a stagecheck command: {line}"));
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_stagecheck"));
    cmd.env_remove("STAGECHECK_PLANT");
    for assignment in &words[..at] {
        let (name, value) = assignment.split_once('=').expect("NAME=VALUE before the command");
        cmd.env(name, value);
    }
    cmd.args(&words[at + 1..]).args(extra).output().expect("stagecheck runs")
}

/// The kind of the first difference and the mode of `stagecheck check --json`'s verdict.
pub fn kind_and_mode(check_json: &[u8]) -> (String, String) {
    let doc: serde_json::Value = serde_json::from_slice(check_json).expect("check --json");
    let verdict = &doc["verdict"];
    assert_eq!(verdict["verdict"], "diverged", "{doc}");
    let kind = verdict["differences"][0]["kind"].as_str().unwrap_or_default().to_string();
    (kind, verdict["mode"].as_str().unwrap_or_default().to_string())
}

/// Lines neither blank nor comments.
pub fn code_lines(text: &str) -> usize {
    text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')).count()
}

/// Writes `text` as `name` in a temporary directory of the test binary's
/// own (`stagecheck-<group>-<pid>`), and gives its path. The tests of one
/// binary run in parallel in that one directory, so a name written twice
/// (two tests' `loop.py`) is a race and panics here instead of failing at
/// random.
pub fn program(group: &str, name: &str, text: impl AsRef<[u8]>) -> PathBuf {
    static WRITTEN: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
    let dir = std::env::temp_dir().join(format!("stagecheck-{group}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temporary directory");
    let path = dir.join(name);
    let key = format!("{group}/{name}");
    let mut written = WRITTEN.lock().unwrap_or_else(|e| e.into_inner());
    assert!(!written.contains(&key), "{key} written twice: tests of one binary share its directory");
    written.push(key);
    std::fs::write(&path, text).expect("write the program");
    path
}

/// A third party's target: the Python kit and `body` run by python3 from a
/// shell script (as a third party would), written under `group`.
pub fn third_party_target(group: &str, name: &str, body: &str) -> PathBuf {
    const KIT: &str = include_str!("../../targets/python/stagecheck_target.py");
    let python = program(group, &format!("{name}.py"), format!("{KIT}\n{body}"));
    let sh = format!("#!/bin/sh\nexec python3 -c \"$(cat '{}')\"\n", python.display());
    let path = program(group, name, sh);
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// The words a POSIX shell makes of `command` (as the arguments of a
/// printer: nothing in it runs unless the shell reads a second command,
/// whose effects then show in `dir`).
pub fn shell_words(dir: &Path, command: &str) -> Vec<String> {
    let script = format!("show() {{ printf '%s\\0' \"$@\"; }}; show {command}");
    let out = Command::new("sh").arg("-c").arg(script).current_dir(dir).output().expect("sh runs");
    assert!(out.status.success(), "{}", text(&out.stderr));
    text(&out.stdout).split_terminator('\0').map(str::to_string).collect()
}

/// Runs this build's `stagecheck` with `args`.
pub fn stagecheck(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_stagecheck")).args(args).output().expect("stagecheck runs")
}

/// Output bytes as text.
pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// An empty temporary directory of one test's own (`stagecheck-<group>-<pid>-<name>`).
pub fn scratch(group: &str, name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("stagecheck-{group}-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temporary directory");
    dir
}

/// The TensorFlow venv's python, the venv made by `scripts/target-venv`
/// (once per test binary: the script does nothing when the venv is there);
/// `None` (said on stderr) only where pip cannot reach the registry.
pub fn tensorflow() -> Option<PathBuf> {
    static PYTHON: OnceLock<Option<PathBuf>> = OnceLock::new();
    PYTHON.get_or_init(|| venv(None)).clone()
}

/// The torch venv's python (`scripts/target-venv torch`), as [`tensorflow`].
pub fn torch() -> Option<PathBuf> {
    static PYTHON: OnceLock<Option<PathBuf>> = OnceLock::new();
    PYTHON.get_or_init(|| venv(Some("torch"))).clone()
}

fn venv(arg: Option<&str>) -> Option<PathBuf> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/target-venv");
    let out = Command::new(&script).args(arg).output().expect("scripts/target-venv runs");
    match out.status.code() {
        Some(0) => Some(PathBuf::from(text(&out.stdout).trim())),
        Some(3) => {
            eprintln!("SKIPPED: the {} tests: {}", arg.unwrap_or("TensorFlow"), text(&out.stderr).trim());
            None
        }
        _ => panic!("scripts/target-venv failed: {}", text(&out.stderr)),
    }
}
