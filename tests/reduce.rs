//! The reducer: the engine with injected predicates (real Python parsing and
//! runs), `stagecheck reduce` on a real divergence (an accepted one of the
//! corpus), and `stagecheck corpus add`.

mod common;

use stagecheck::executor::Config;
use stagecheck::reduce::{literals, reduce, Reduction};
use stagecheck::worker::Worker;
use stagecheck_transformer::syntax::ast::visitor::{walk_expr, Visitor};
use stagecheck_transformer::syntax::ast::{Expr, Number};
use stagecheck_transformer::syntax::parse;
use std::path::{Path, PathBuf};
use std::time::Duration;

fn reduce_with(source: &str, mut interesting: impl FnMut(&str) -> bool) -> Reduction {
    assert!(interesting(source), "the test program must be interesting to begin with");
    let r = reduce(source, Duration::from_secs(60), &mut interesting, &mut |_| {}).expect("parses");
    assert!(r.complete, "a fixpoint within the budget");
    assert!(interesting(&r.source), "the result still holds:\n{}", r.source);
    r
}

/// Whether `source` parses and calls `print` with the one argument `value`.
fn prints_literal(source: &str, value: u64) -> bool {
    struct Find(u64, bool);
    impl<'a> Visitor<'a> for Find {
        fn visit_expr(&mut self, e: &'a Expr) {
            if let Expr::Call(c) = e {
                let is_print = matches!(&*c.func, Expr::Name(n) if n.id.as_str() == "print");
                let literal = matches!(&c.arguments.args[..], [Expr::NumberLiteral(l)]
                    if matches!(&l.value, Number::Int(i) if i.as_u64() == Some(self.0)));
                self.1 |= is_print && literal;
            }
            walk_expr(self, e);
        }
    }
    let Ok(tree) = parse(source) else { return false };
    let mut find = Find(value, false);
    find.visit_body(&tree);
    find.1
}

const NESTED: &str = "import math

LIMIT = 10


class Counter:
    def __init__(self, start):
        self.count = start

    def bump(self, by=1):
        self.count += by
        return self.count


def helper(values, scale):
    total = 0
    for v in values:
        if v % 2 == 0:
            total += v * scale
        elif v > LIMIT:
            total -= v
        else:
            continue
    return total


def main():
    c = Counter(3)
    data = [1, 2, 3, 4, 5, 6]
    try:
        while c.bump() < LIMIT:
            if helper(data, 2) > 0:
                print(42)
    except ValueError as e:
        print('bad', e)
    finally:
        print('done')
    return math.floor(2.5)


main()
";

#[test]
fn statements_go_and_blocks_flatten_down_to_what_the_predicate_needs() {
    let r = reduce_with(NESTED, |s| prints_literal(s, 42));
    assert_eq!(r.source, "print(42)\n");
    assert_eq!((r.lines_before, r.lines_after), (31, 1));
    assert!(r.tests > 10, "{} tests", r.tests);
}

/// A `match`'s cases go one at a time (the case the predicate needs stays
/// a `match`: its pattern binds the printed name).
#[test]
fn match_cases_are_dropped_one_at_a_time() {
    let source = "def f(v):\n    match v:\n        case 1:\n            pass\n        case [x, *_]:\n            print(x)\n        case _:\n            pass\nf([7])\n";
    let r = reduce_with(source, |s| s.contains("case [") && s.contains("print(x)") && s.contains("f(["));
    assert_eq!(r.source.matches("case").count(), 1, "{}", r.source);
}

#[test]
fn a_difference_in_a_literal_the_printer_would_normalise_shrinks() {
    // Every candidate used to be printed from the tree, where a lone
    // surrogate is U+FFFD, so no candidate kept the difference.
    let mut source = String::from("def f(n):\n    total = 0\n");
    for i in 0..40 {
        source.push_str(&format!("    total += n * {i}\n    if total > {i}:\n        total -= 1\n"));
    }
    source.push_str("    print(\"\\ud800\" == \"\\udfff\")\n    return total\n\n\nprint(f(3))\n");
    // The finding: the program prints False as written and True printed
    // from its tree (what the converter did).
    let mut worker = Worker::new(Config::default());
    let mut first_line = |s: &str| worker.run(s, "t.py").ok().map(|o| o.stdout.lines().next().unwrap_or("").to_string());
    let differs = |s: &str| {
        let reprinted = stagecheck_transformer::syntax::unparse(&parse(s).expect("parses"));
        first_line(s).as_deref() == Some("False") && first_line(&reprinted).as_deref() == Some("True")
    };
    let r = reduce_with(&source, differs);
    assert!(r.lines_before > 100 && r.lines_after <= 3, "{} lines:\n{}", r.lines_after, r.source);
    assert!(r.source.contains("\\ud800") || r.source.contains("\\udfff"), "{}", r.source);
}

#[test]
fn integers_shrink_to_the_smallest_that_holds() {
    assert_eq!(literals::smaller(Some(1000)), vec![0, 500, 999]);
    assert_eq!(literals::smaller(Some(1)), vec![0]);
    assert_eq!(literals::smaller(Some(0)), Vec::<u64>::new());
    assert_eq!(literals::smaller(None), vec![0, 1]);
    let at_least_37 = |s: &str| (37..1001).any(|n| prints_literal(s, n));
    assert_eq!(reduce_with("print(1000)\n", at_least_37).source, "print(37)\n");
}

#[test]
fn variables_are_inlined_and_names_shortened_while_the_output_holds() {
    let source = "def compute_total(first_value, second_value):
    intermediate = first_value * second_value
    return intermediate + 1


result_value = compute_total(6, 7)
print(result_value)
";
    let mut worker = Worker::new(Config::default());
    let prints_43 = |s: &str| worker.run(s, "t.py").is_ok_and(|o| o.stdout == "43\n");
    let r = reduce_with(source, prints_43);
    assert_eq!(r.source, "def a(b, c):\n    return b * c + 1\n\n\nprint(a(6, 7))\n");
}

#[test]
fn every_candidate_parses() {
    // Dropping the `finally` of a `try` whose handler is gone leaves a `try`
    // with neither: printed, it does not parse, and is never tested.
    let source = "try:\n    x = 1\nexcept ValueError:\n    pass\nfinally:\n    print(42)\n";
    let mut seen = 0;
    let r = reduce_with(source, |s| {
        seen += 1;
        assert!(parse(s).is_ok(), "a candidate that does not parse was tested:\n{s}");
        s.contains("try") && prints_literal(s, 42)
    });
    assert_eq!(r.source, "try:\n    pass\nfinally:\n    print(42)\n");
    assert!(seen > 5, "{seen} candidates");
}

// --- the command line ---

/// An accepted divergence of the corpus (a `__bool__` with side effects is
/// truth-tested twice by converted `and`/`or`): a real finding, no planted bug.
fn divergent_program(dir: &Path) -> PathBuf {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/conversion/logical/013_nested_boolop_value_retest.py");
    let path = dir.join("boolop.py");
    std::fs::copy(corpus, &path).unwrap();
    path
}

#[test]
fn reduce_writes_a_smaller_program_that_replays_its_finding_with_one_command() {
    let dir = common::scratch("reduce", "cli");
    let input = divergent_program(&dir);
    let out = common::stagecheck(&["reduce", input.to_str().unwrap(), "--time", "60s"]);
    assert_eq!(out.status.code(), Some(0), "{}{}", common::text(&out.stdout), common::text(&out.stderr));
    let reduced = dir.join("boolop.reduced.py");
    assert!(common::text(&out.stdout).contains(&format!("{}: ", reduced.display())), "{}", common::text(&out.stdout));
    assert!(common::text(&out.stderr).contains("reduce: delete statements"), "progress goes to stderr: {}", common::text(&out.stderr));
    let program = std::fs::read_to_string(&reduced).unwrap();
    let before = common::code_lines(&std::fs::read_to_string(&input).unwrap());
    let after = common::code_lines(&program);
    assert!(after < before, "{after} lines from {before}:\n{program}");
    assert!(program.starts_with("# stagecheck reduced stdout-unstaged: "), "{program}");
    assert!(program.contains(&format!("# reduced from: {}", input.display())), "{program}");
    // The header's modes came from the corpus header: the replay names them.
    let replay = common::replay(&reduced, &[]);
    assert_eq!(replay.status.code(), Some(1), "{}", common::text(&replay.stdout));
    let json = common::replay(&reduced, &["--json"]);
    assert_eq!(common::kind_and_mode(&json.stdout), ("stdout".into(), "unstaged".into()));
    assert!(program.contains("# replay: stagecheck check --modes original,unstaged "), "{program}");
}

#[test]
fn reduce_refuses_a_program_without_the_finding_asked_for() {
    let dir = common::scratch("reduce", "refuse");
    let agree = dir.join("agree.py");
    std::fs::write(&agree, "def f(x):\n    return x + 1\n\nprint(f(2))\n").unwrap();
    let out = common::stagecheck(&["reduce", agree.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(common::text(&out.stderr).contains("no finding to reduce"), "{}", common::text(&out.stderr));
    let input = divergent_program(&dir);
    let out = common::stagecheck(&["reduce", input.to_str().unwrap(), "--signature", "terminal-staged"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(common::text(&out.stderr).contains("shows stdout-unstaged, not terminal-staged"), "{}", common::text(&out.stderr));
    let out = common::stagecheck(&["reduce", input.to_str().unwrap(), "--signature", "sideways-staged"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(common::text(&out.stderr).contains("unknown kind"), "{}", common::text(&out.stderr));
    assert!(!dir.join("boolop.reduced.py").exists() && !dir.join("agree.reduced.py").exists());
}

#[test]
fn corpus_add_makes_an_entry_that_replays_and_never_overwrites() {
    let dir = common::scratch("reduce", "corpus");
    let input = divergent_program(&dir);
    let out = common::stagecheck(&["reduce", input.to_str().unwrap(), "--time", "60s"]);
    assert_eq!(out.status.code(), Some(0), "{}", common::text(&out.stderr));
    let reduced = dir.join("boolop.reduced.py");
    let corpus = dir.join("corpus");
    let logical = corpus.join("conversion/logical");
    let add = |extra: &[&str]| {
        let mut args = vec!["corpus", "add", reduced.to_str().unwrap(), "--dir", logical.to_str().unwrap()];
        args.extend(extra);
        common::stagecheck(&args)
    };
    let out = add(&[]);
    assert_eq!(out.status.code(), Some(0), "{}", common::text(&out.stderr));
    let path = logical.join("001_stdout_unstaged.py");
    assert_eq!(common::text(&out.stdout).trim(), path.display().to_string());
    let entry = std::fs::read_to_string(&path).unwrap();
    for line in [
        "# id: conv-logical-001\n",
        "# construct: logical\n",
        "# modes: original,unstaged\n",
        "# expect: diverged\n",
        "# reason: open: stdout line ",
        "# status: open\n",
    ] {
        assert!(entry.contains(line), "{line:?} in\n{entry}");
    }
    assert!(entry.contains(&format!("# origin: {}, ", reduced.display())), "{entry}");
    // The same id again is refused; an accepted divergence gets its reason.
    let out = add(&["--id", "conv-logical-001"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(common::text(&out.stderr).contains("id conv-logical-001 is taken"), "{}", common::text(&out.stderr));
    let out = add(&["--accepted", "a __bool__ with side effects is tested twice"]);
    assert_eq!(out.status.code(), Some(0), "{}", common::text(&out.stderr));
    let accepted = std::fs::read_to_string(logical.join("002_stdout_unstaged.py")).unwrap();
    assert!(accepted.contains("# reason: accepted: a __bool__ with side effects is tested twice\n# about: "), "{accepted}");
    assert!(accepted.contains("# status: accepted\n"), "{accepted}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), entry, "the first entry is untouched");
    // A program whose modes agree now is a fixed finding.
    let fixed = dir.join("fixed.py");
    std::fs::write(&fixed, "# stagecheck finding x\n# seed 7 index 3 family Plain generator 0.1.0 constructs: if\n\nprint(1)\n").unwrap();
    let out = common::stagecheck(&["corpus", "add", fixed.to_str().unwrap(), "--dir", logical.to_str().unwrap(), "--id", "fixed-1"]);
    assert_eq!(out.status.code(), Some(0), "{}", common::text(&out.stderr));
    let entry = std::fs::read_to_string(logical.join("003_finding.py")).unwrap();
    assert!(entry.contains("# expect: agree\n") && entry.contains("# status: fixed\n"), "{entry}");
    assert!(entry.contains("# origin: seed 7 index 3 family Plain generator 0.1.0, "), "{entry}");
    let replay = common::stagecheck(&["corpus", "replay", corpus.to_str().unwrap()]);
    assert_eq!(replay.status.code(), Some(0), "{}", common::text(&replay.stdout));
    assert!(common::text(&replay.stdout).contains("corpus: 3 programs, 3 as expected"), "{}", common::text(&replay.stdout));
}

#[test]
fn corpus_add_keeps_each_header_value_on_its_own_line() {
    // A file name, an id and an about that hold line breaks cannot add
    // header lines of their own choosing to the entry.
    let dir = common::scratch("reduce", "header-lines");
    let program = dir.join("p\n# accepted: forged\r# expect: diverged.py");
    std::fs::write(&program, "print(1)\n").unwrap();
    let logical = dir.join("corpus/conversion/logical");
    let args = ["corpus", "add", program.to_str().unwrap(), "--dir", logical.to_str().unwrap()];
    let out = common::stagecheck(&[&args[..], &["--id", "x\n# status: forged", "--about", "a\u{2028}# reason: forged"]].concat());
    assert_eq!(out.status.code(), Some(0), "{}", common::text(&out.stderr));
    let entry = std::fs::read_to_string(logical.join("001_finding.py")).unwrap();
    let header: Vec<&str> = entry.lines().take_while(|l| l.starts_with('#')).collect();
    let keys: Vec<&str> = header.iter().map(|l| l.split(':').next().unwrap()).collect();
    assert_eq!(keys, ["# id", "# construct", "# modes", "# expect", "# about", "# origin", "# status"], "{entry}");
    assert!(!entry.contains('\r') && !entry.contains('\u{2028}'), "{entry:?}");
    assert!(entry.contains(r"# origin: ") && entry.contains(r"p\n# accepted: forged\r# expect: diverged.py"), "{entry}");
    assert!(
        entry.contains("# id: x\\n# status: forged\n") && entry.contains("# expect: agree\n") && entry.contains("# status: fixed\n"),
        "{entry}"
    );
}
