//! `stagecheck report` of a run directory it did not write: a tampered
//! `summary.json` (a finding id that climbs out of `findings/`, a path
//! elsewhere, a target that is a shell command, HTML and Markdown in the
//! texts a program chose) must leave nothing outside `--out`, print a
//! replay command that the shell reads as the words it names, and give a
//! `summary.md` (and `index.html`) that renders those texts as text.

mod common;

use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// A real (two-program) fuzz run in `root/run`, its `summary.json` then
/// edited by `tamper`.
fn tampered_run(root: &Path, tamper: impl FnOnce(&mut Value)) -> PathBuf {
    let run = root.join("run");
    let out = common::stagecheck(&["fuzz", "--programs", "2", "--seed", "1", "--out", run.to_str().unwrap()]);
    assert!(out.status.code().is_some_and(|c| c < 2), "{}", common::text(&out.stderr));
    let path = run.join("summary.json");
    let mut summary: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    tamper(&mut summary);
    std::fs::write(&path, serde_json::to_string_pretty(&summary).unwrap()).unwrap();
    run
}

fn finding(id: &str, path: &Path, target: Option<&str>) -> Value {
    let mut f = json!({"id": id, "mode": "unstaged", "path": path, "seed": 1, "index": 0, "at_seconds": 0.5});
    if let Some(t) = target {
        f["target"] = json!(t);
    }
    f
}

/// Every path under `root`, sorted.
fn tree(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            out.push(e.path());
            if e.file_type().unwrap().is_dir() {
                stack.push(e.path());
            }
        }
    }
    out.sort();
    out
}

#[test]
fn a_finding_id_that_climbs_out_of_findings_is_refused_and_nothing_is_written_outside_out() {
    let root = common::scratch("run-dir", "climb");
    // The attacker's files, where `run/findings/../../x/y` points.
    std::fs::create_dir_all(root.join("x/y")).unwrap();
    std::fs::write(root.join("x/y/evil.txt"), "evil").unwrap();
    let run = tampered_run(&root, |s| {
        s["stats"]["findings"] = json!([finding("../../x/y", &root.join("run/findings/../../x/y"), None)]);
    });
    let out = root.join("a/out");
    let before = tree(&root);
    let report = common::stagecheck(&["report", run.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    let stderr = common::text(&report.stderr);
    assert_eq!(report.status.code(), Some(2), "nothing valid: bad input\n{stderr}");
    assert!(stderr.contains(&format!("{}: finding \"../../x/y\" left out", run.join("summary.json").display())), "{stderr}");
    assert_eq!(tree(&root), before, "nothing written anywhere, inside --out or out of it");
    // Rebuilding the run's own pages is refused the same way.
    let rebuild = common::stagecheck(&["report", run.to_str().unwrap()]);
    assert_eq!(rebuild.status.code(), Some(2), "{}", common::text(&rebuild.stderr));
    assert_eq!(tree(&root), before);
}

#[test]
fn bad_findings_are_left_out_good_ones_kept_and_the_replay_command_runs_nothing() {
    let root = common::scratch("run-dir", "mixed");
    std::fs::create_dir_all(root.join("elsewhere")).unwrap();
    std::fs::write(root.join("elsewhere/program.py"), "print('elsewhere')\n").unwrap();
    let good = "stdout-unstaged-0000beef";
    let target = "tgt; touch PWNED #";
    let run = tampered_run(&root, |s| {
        s["stats"]["findings"] = json!([
            finding("..", &root.join("run/findings/.."), None),
            finding("a/b", &root.join("run/findings/a/b"), None),
            finding("stdout-unstaged-00000bad", &root.join("elsewhere"), None),
            finding(good, &root.join("run/findings").join(good), Some(target)),
        ]);
    });
    std::fs::create_dir_all(run.join("findings").join(good)).unwrap();
    std::fs::write(run.join("findings").join(good).join("program.py"), "print(1)\n").unwrap();
    let out = root.join("out");
    let report = common::stagecheck(&["report", run.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    let stderr = common::text(&report.stderr);
    assert_eq!(report.status.code(), Some(0), "{stderr}");
    for id in ["..", "a/b", "stdout-unstaged-00000bad"] {
        assert!(stderr.contains(&format!("finding {id:?} left out")), "{id}: {stderr}");
    }
    assert!(stderr.contains("is not its own findings/<id> directory"), "{stderr}");
    assert!(out.join("findings").join(good).join("program.py").is_file(), "the good finding is copied");
    let outside: Vec<PathBuf> = tree(&root)
        .into_iter()
        .filter(|p| !p.starts_with(&out) && !p.starts_with(&run) && !p.starts_with(root.join("elsewhere")))
        .collect();
    assert!(outside.is_empty(), "written outside --out: {outside:?}");
    // The replay command, pasted into a shell, is `stagecheck check` with
    // the target as one argument: no second command runs.
    let md = std::fs::read_to_string(out.join("summary.md")).unwrap();
    let line = md.lines().find(|l| l.contains(good)).unwrap_or_else(|| panic!("the finding in summary.md:\n{md}"));
    let command = line.split("): `").nth(1).and_then(|c| c.strip_suffix('`')).unwrap_or_else(|| panic!("a replay command: {line}"));
    let program = out.join("findings").join(good).join("program.py");
    assert_eq!(common::shell_words(&root, command), ["stagecheck", "check", "--target", target, program.to_str().unwrap()]);
    assert!(!root.join("PWNED").exists());
    assert!(!md.contains("stdout-unstaged-00000bad") && !md.contains("elsewhere"), "{md}");
    let html = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(html.contains("--target &#39;tgt; touch PWNED #&#39;"), "the page shows the quoted command");
}

#[test]
fn texts_a_program_chose_render_as_text_in_summary_md() {
    let root = common::scratch("run-dir", "markdown");
    let reason = "<script>alert(1)</script>\n# injected `x` | y";
    let poisoned = "first `a`` b` then <img src=x onerror=alert(1)>\r\n## heading";
    let run = tampered_run(&root, |s| {
        s["stats"]["refusals"] = json!({ reason: 3 });
        s["stats"]["poisoned_cases"] = json!([poisoned]);
    });
    let report = common::stagecheck(&["report", run.to_str().unwrap()]);
    assert_eq!(report.status.code(), Some(0), "{}", common::text(&report.stderr));
    let md = std::fs::read_to_string(run.join("summary.md")).unwrap();
    assert!(!md.contains("<script") && !md.contains("<img"), "raw HTML in summary.md:\n{md}");
    assert!(md.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), "{md}");
    let headings: Vec<&str> = md.lines().filter(|l| l.starts_with('#')).collect();
    assert!(!headings.iter().any(|h| h.contains("injected") || h.contains("heading")), "a new line of the page: {headings:?}");
    let line = md.lines().find(|l| l.contains("onerror")).expect("the poisoned case");
    assert!(line.contains(r"\`a\`\` b\`") && line.contains(r"\\r\\n"), "backticks and line breaks escaped: {line}");
    assert!(md.contains(r"\| y"), "{md}");
    let html = std::fs::read_to_string(run.join("index.html")).unwrap();
    assert!(!html.contains("<script") && html.contains("&lt;script&gt;alert(1)"), "index.html escapes it too");
}

/// What `kinds.md` puts a program's output and source in: a code span no
/// backtick run closes early, a block no line of the program ends.
#[test]
fn code_spans_and_blocks_hold_whatever_a_program_printed() {
    use stagecheck::markdown::{block, code};
    assert_eq!(code("a`b"), "``a`b``");
    assert_eq!(code("`x`"), "`` `x` ``");
    assert_eq!(code("<script>\n# h"), r"`<script>\n# h`");
    let program = "s = '''\n```\n# not a heading\n'''\nprint('````')\n";
    let b = block(program, "python");
    assert!(b.starts_with("`````python\n") && b.ends_with("\n`````"), "{b}");
    assert_eq!(b.lines().filter(|l| l.starts_with("`````")).count(), 2, "{b}");
}

/// `report --kinds` of a run directory: the replay command is made, not
/// copied from `reduced.py`'s header, and the reduced program stays in its
/// code block.
#[test]
fn the_kinds_page_makes_its_own_replay_command() {
    let root = common::scratch("run-dir", "kinds");
    let id = "stdout-unstaged-0000cafe";
    let run = tampered_run(&root, |s| {
        s["stats"]["target"] = json!("toy");
        s["stats"]["findings"] = json!([finding(id, &root.join("run/findings").join(id), Some("toy"))]);
    });
    let dir = run.join("findings").join(id);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("program.py"), "print(1 + 1)\n").unwrap();
    std::fs::write(
        dir.join("reduced.py"),
        "# replay: stagecheck check x.py; touch PWNED\n\ns = '''\n```\n# Not a heading\n'''\nprint(s)\n",
    )
    .unwrap();
    let report = common::stagecheck(&["report", run.to_str().unwrap(), "--kinds"]);
    assert_eq!(report.status.code(), Some(0), "{}", common::text(&report.stderr));
    let md = std::fs::read_to_string(run.join("kinds.md")).unwrap();
    let replay = md.lines().find_map(|l| l.strip_prefix("Replay: `")).and_then(|l| l.strip_suffix('`')).unwrap_or_else(|| panic!("{md}"));
    let reduced = dir.join("reduced.py");
    assert_eq!(common::shell_words(&root, replay), ["stagecheck", "check", "--target", "toy", reduced.to_str().unwrap()]);
    let lines: Vec<&str> = md.lines().collect();
    let (open, close) = (lines.iter().position(|l| *l == "````python"), lines.iter().rposition(|l| *l == "````"));
    let inner = lines.iter().position(|l| *l == "```");
    assert!(open < inner && inner < close && open.is_some(), "the program's own fence stays inside a longer one:\n{md}");
}
