//! The third red-team pass's programs through the CLI:
//! what `run --json` and `check --json` print for each stays under 10 MB,
//! the processes (stagecheck and its workers) under 1 GB of RSS together,
//! and each run ends honestly (completed, or a MemoryError or ValueError),
//! never crashed or diverged. Before: 235 MB of JSON and a 1.2 GB parent, a
//! 4 GB worker, a 419 MB message, a render that never ended, aborted
//! workers. The VM's side is executor/tests/bounds.rs.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

const MB: u64 = 1 << 20;

/// Resident KiB of `pid` and its descendants.
fn tree_rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let own: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0);
    let children = std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children")).unwrap_or_default();
    own + children.split_whitespace().filter_map(|c| c.parse().ok()).map(tree_rss_kib).sum::<u64>()
}

/// Runs stagecheck with `args`, its stdout to a file: that file's size and
/// text (at most 10 MB read), and the highest RSS of its process tree seen.
fn measured(args: &[&str], file: &Path) -> (u64, String, u64) {
    let out_path = file.with_extension(format!("{}.out", args[0]));
    let out = std::fs::File::create(&out_path).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_stagecheck"))
        .args(args)
        .arg(file)
        .stdout(out)
        .stderr(Stdio::null())
        .spawn()
        .expect("stagecheck runs");
    let mut peak = 0;
    while child.try_wait().unwrap().is_none() {
        peak = peak.max(tree_rss_kib(child.id()) * 1024);
        std::thread::sleep(Duration::from_millis(5));
    }
    let size = std::fs::metadata(&out_path).unwrap().len();
    let text = if size < 10 * MB { std::fs::read_to_string(&out_path).unwrap() } else { String::new() };
    (size, text, peak)
}

fn program(name: &str, text: &str) -> PathBuf {
    common::program("bounded-output", name, text)
}

#[test]
fn the_third_passs_programs_print_little_and_stay_small() {
    for (name, src, ends) in [
        ("shared.py", "s = 'x' * (32 << 20); g = [s] * 6\n", "completed"),
        ("many.py", "k = 'y' * (8 << 20); g = [k] * 200000\n", "completed"),
        ("message.py", "raise ValueError('m' * (200 << 20))\n", "ValueError"),
        ("bigint.py", "x = 1 << 10**8\n", "completed"),
        ("bigstr.py", "x = 1 << 10**8\ns = str(x)\n", "ValueError"),
        ("join.py", "s = 'x' * (32 << 20)\nj = ''.join([s] * 20000)\n", "MemoryError"),
        ("replace.py", "r = ('a' * 1000).replace('a', 'z' * 10**7)\n", "MemoryError"),
        ("width.py", "w = '%*d' % (10**9, 1)\n", "MemoryError"),
        ("spec.py", "w = f'{1:>{10**9}}'\n", "MemoryError"),
    ] {
        let path = program(name, src);
        for args in [&["run", "--json"][..], &["check", "--json", "--modes", "original,unstaged"][..]] {
            let (size, text, peak) = measured(args, &path);
            assert!(size < 10 * MB, "{name} {args:?}: {size} bytes");
            assert!(peak > 0 && peak < 1024 * MB, "{name} {args:?}: {} MiB resident", peak / MB);
            assert!(text.contains(ends), "{name} {args:?}: {}", &text[..text.len().min(2000)]);
            assert!(!text.contains("\"diverged\"") && !text.contains("\"crashed\""), "{name} {args:?}: {text}");
        }
    }
}
