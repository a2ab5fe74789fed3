//! Replay commands are pasted into a shell: each word stagecheck writes
//! must reach `stagecheck check` as that one argument, whatever it holds
//! (`stagecheck::shell`), and read back the same from a header
//! (`header_target`). A report's are checked in `tests/run_dir.rs`.

mod common;

use stagecheck::reduce::finding::{header_modes, header_target};
use stagecheck::shell::{command, quote};

#[test]
fn every_word_reaches_the_command_as_itself_and_plain_ones_stay_bare() {
    let dir = common::scratch("replay", "words");
    let words = [
        "stagecheck",
        "check",
        "--target",
        "tgt; touch PWNED",
        "it's",
        "$(touch PWNED)",
        "`touch PWNED`",
        "a\nb",
        "~",
        "*",
        "",
        "--modes",
        "original,unstaged",
        "/tmp/a b/program.py",
        "x > PWNED",
        "é",
        "\\",
        "'",
        "''",
        "!",
    ];
    let line = command(words);
    assert_eq!(common::shell_words(&dir, &line), words);
    assert!(!dir.join("PWNED").exists(), "{line}");
    for plain in ["stagecheck", "--modes", "original,unstaged", "/tmp/x/program.py", "STAGECHECK_PLANT=x"] {
        assert_eq!(quote(plain), plain);
    }
    assert_eq!(quote("it's"), r"'it'\''s'");
}

#[test]
fn a_quoted_target_and_modes_read_back_from_a_header() {
    let target = "/opt/my target's/worker";
    let line = format!("# replay: {}", command(["stagecheck", "check", "--target", target, "--modes", "original,unstaged", "x.py"]));
    assert_eq!(header_target(&[&line]).as_deref(), Some(target));
    assert_eq!(header_modes(&[&line]).map(|m| m.len()), Some(2));
    assert_eq!(header_target(&["# target: autograph"]).as_deref(), Some("autograph"));
}

#[test]
fn a_reduced_programs_replay_command_names_its_file_as_one_word() {
    // A directory whose name is a command: the replay line and the one
    // `reduce` prints must still name the file.
    let dir = common::scratch("replay", "reduce").join("a b; touch PWNED #");
    std::fs::create_dir_all(&dir).unwrap();
    let input = dir.join("boolop.py");
    let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/conversion/logical/013_nested_boolop_value_retest.py");
    std::fs::copy(corpus, &input).unwrap();
    let out = common::stagecheck(&["reduce", input.to_str().unwrap(), "--time", "3s"]);
    assert_eq!(out.status.code(), Some(0), "{}", common::text(&out.stderr));
    let reduced = dir.join("boolop.reduced.py");
    let want = ["stagecheck", "check", "--modes", "original,unstaged", reduced.to_str().unwrap()];
    let printed = common::text(&out.stdout);
    let printed = printed.lines().find_map(|l| l.strip_prefix("replay: ")).expect("a replay line");
    assert_eq!(common::shell_words(&dir, printed), want);
    let file = std::fs::read_to_string(&reduced).unwrap();
    let header = file.lines().find_map(|l| l.strip_prefix("# replay: ")).expect("a replay header");
    assert_eq!(common::shell_words(&dir, header), want);
    assert!(!dir.join("PWNED").exists());
}
