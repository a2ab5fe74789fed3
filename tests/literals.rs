//! Literal fidelity end to end: a literal of every escape class,
//! inside a converted function (a loop body, which becomes a nested
//! function, and an f-string whose expression the conversion rewrites),
//! has the same value run converted (`unstaged`) as run as written.
//! The property over random literals, on the printed text, is
//! `transformer/tests/literals.rs`.

use stagecheck::check::check;
use stagecheck::executor::Config;
use stagecheck::modes::Mode;
use stagecheck::oracles::convergence::Verdict;
use stagecheck::worker::Worker;

/// One of each class: lone and paired surrogates, `\x`, `\u`, `\U`, `\N`,
/// octal, raw, bytes, f-string literal parts, big ints, float edges, complex.
const LITERALS: &[&str] = &[
    r#""\ud800""#,
    r#""\udfff""#,
    r#""\ud83d\ude00""#,
    r#""\udbff\udfff\ud800""#,
    r#"u'\x00\x7f\xff'"#,
    r#""\u00e9\uFFFF\U0010ffff\U0001F600""#,
    r#""\N{BULLET}\N{EM DASH}""#,
    r#""\0\7\77\377\1234""#,
    r#"r"\ud800\N{x}\x""#,
    r#"'''a
  b\ud800
	c'''"#,
    r#"("a"
     "\udc00")"#,
    r#"b'\x00\x7f\x80\xff\377\q'"#,
    r#"rb'\xff\d'"#,
    r#"f"\ud800{i}\x41{{\udfff}}""#,
    r#"f"\ud800{i if i else -1}\N{BULLET}""#,
    r#"f'{i!r:>4}' '\udc80' f'\U0001F600{i=}'"#,
    "123456789012345678901234567890123456789",
    "0x_dead_BEEF",
    "0o17",
    "0b1011",
    "1_000",
    "0.1",
    "0.9999999999999999",
    "5e-324",
    "2.2250738585072014e-308",
    "1.7976931348623157e308",
    "1.7976931348623159e308",
    "1e999",
    "1e-7",
    "1.",
    ".5",
    "2j",
    "1e999j",
    "5e-324J",
];

#[test]
fn every_literal_has_its_value_after_conversion() {
    let mut source = String::from("def f():\n    out = []\n    for i in range(1):\n");
    for literal in LITERALS {
        source.push_str(&format!("        out.append(ascii({literal}))\n"));
    }
    source.push_str("    if out:\n        out.append(ascii(\"\\ud800\" == \"\\udfff\"))\n");
    source.push_str("    return out\n\n\nfor line in f():\n    print(line)\n");
    let mut worker = Worker::new(Config::default());
    let report = check(&mut worker, &source, "literals.py", &[Mode::Original, Mode::Unstaged]).expect("compiles");
    assert!(matches!(report.verdict, Verdict::Agree), "{:?}\n{source}", report.verdict);
    // The original's values are the literals' (not U+FFFD): the comparison means something.
    let stagecheck::modes::ModeRun::Ran { outcome } = &report.runs[0].1 else { panic!("the original ran") };
    for expected in ["'\\ud800'\n", "'\\ud83d\\ude00'\n", "\nFalse\n", "'a\\udc00'\n"] {
        assert!(outcome.stdout.contains(expected), "{expected} not in\n{}", outcome.stdout);
    }
}
