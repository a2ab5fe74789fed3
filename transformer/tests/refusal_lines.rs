//! Every ConversionError names the line of the construct it refuses, never
//! line 1 for want of a better one.
//!
//! One case per place in `transformer/src` that builds a refusal, each with
//! the refused construct away from line 1 (inside a function, in the middle
//! of a statement that spans lines, after another f-string that prints
//! fine), asserting the error's line is the construct's. `SITES` counts the
//! places by their text, so a new one fails here until it has a case.
//!
//!     cargo test --release --workspace --test refusal_lines

use stagecheck_transformer::{convert, convert_verified, locate, syntax, unparse, ConversionError};

/// Converts with both entry points; they must refuse alike.
fn refusal(source: &str) -> ConversionError {
    let a = convert(source, "p.py").expect_err("convert refuses");
    let b = convert_verified(source, "p.py").expect_err("convert_verified refuses");
    assert_eq!(a, b, "convert and convert_verified differ on\n{source}");
    a
}

/// The 1-based line of the first line of `source` containing `marker`.
fn line_of(source: &str, marker: &str) -> u32 {
    source.lines().position(|l| l.contains(marker)).unwrap_or_else(|| panic!("no {marker:?} in\n{source}")) as u32 + 1
}

fn assert_refused_at(source: &str, construct: &str, marker: &str) {
    let e = refusal(source);
    assert_eq!(e.construct, construct, "{e}\n{source}");
    assert_eq!(e.line, line_of(source, marker), "{e}: wrong line in\n{source}");
}

/// The places in transformer/src that build a refusal, by the text that
/// builds it, and how many of each there are: (file, text, count).
const SITES: &[(&str, &str, usize)] = &[
    // lib.rs: the converter's panic (`internal_error_names_the_function`),
    // and the `error` closure that names the line of an offset.
    ("lib.rs", "ConversionError {", 2),
    // lib.rs: its three callers: a syntax error (`syntax_error`), a pass's
    // refusal (none refuses today: `Refusal::new` below), the printer's.
    ("lib.rs", "error(", 3),
    // passes: a pass's refusal (none today).
    ("passes", "Refusal::new(", 0),
    // unparse.rs: the printer's three (`printer_*` below), through `refuse`.
    ("unparse.rs", "refuse(", 3),
];

#[test]
fn every_site_has_a_case() {
    let src = concat!(env!("CARGO_MANIFEST_DIR"), "/src");
    let mut files = Vec::new();
    let mut stack = vec![std::path::PathBuf::from(src)];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    for (place, text, expected) in SITES {
        let found: usize = files
            .iter()
            .filter(|p| p.strip_prefix(src).unwrap().starts_with(place))
            .map(|p| std::fs::read_to_string(p).unwrap().matches(text).count())
            .sum();
        assert_eq!(found, *expected, "{place}: {found} × {text:?}, {expected} with a case here: add one");
    }
    // Refusals built anywhere else would not be counted above.
    for path in &files {
        let rel = path.strip_prefix(src).unwrap();
        let text = std::fs::read_to_string(path).unwrap();
        let elsewhere = ["ConversionError {", "Refusal {", "Refusal::new("].iter().any(|t| text.contains(t));
        let counted = ["lib.rs", "error.rs", "unparse.rs"].iter().any(|f| rel.ends_with(f)) || rel.starts_with("passes");
        assert!(!elsewhere || counted, "{}: builds a refusal SITES does not count", rel.display());
    }
}

#[test]
fn syntax_error() {
    assert_refused_at("x = 1\n\ndef f():\n    return 1 +* 2\n", "syntax", "+*");
    assert_refused_at("x = [\n    1,\n    2 3,\n]\n", "syntax", "2 3");
}

/// The printed tree differs from the converted one: a t-string `=` form
/// (kept: see `passes::fstring_debug`) whose call the conversion rewrote.
#[test]
fn printer_tree_differs() {
    let source = "x = 1\n\n\ndef f(p):\n    y = [\n        1,\n        t\"{g(1) = }\",\n    ]\n    return y\n";
    assert_refused_at(source, "printer", "t\"");
    let nested =
        "def f(p):\n    if p:\n        print(p)\n    else:\n        print(\n            f'{p=}', t'{p}',\n            t'{h(p) = }')\n";
    assert_refused_at(nested, "printer", "h(p)");
}

/// The printed code needs a newer Python than the original: the expression
/// the conversion prints beside a literal takes the f-string's own quote.
#[test]
fn printer_needs_a_newer_python() {
    let source = "def f(p):\n    return [\n        p,\n        f\"{p if 'k' else 1}\",\n    ]\n";
    assert_refused_at(source, "printer", "else 1");
    // After f-strings that print fine, at module level and in the function.
    let later =
        "x = f\"{'k'}\"\n\n\ndef f(p):\n    a = f\"{p}\" + f'{p}'\n    return [\n        a,\n        f\"{p if 'k' else 1}\",\n    ]\n";
    assert_refused_at(later, "printer", "else 1");
}

/// The printed code does not parse: no tree is known to do it (the
/// printer's patches fixed those found), so the locator it uses is checked
/// on a printed module: an offset inside a statement's printed text names
/// that statement's line in the original.
#[test]
fn printer_output_does_not_parse() {
    let source = "x = 1\n\n\ndef f(p):\n    a = [\n        1,\n    ]\n    return (\n        a, p)\n";
    let body = syntax::parse(source).unwrap();
    let printed = unparse::printed_from(source, &body);
    let at = printed.source.find("return").unwrap() + 3;
    let offset = locate::statement_printed_at(&printed.starts, at).expect("a statement");
    assert_eq!(&source[offset.to_usize()..offset.to_usize() + 6], "return");
    let at = printed.source.find("a = [").unwrap();
    let offset = locate::statement_printed_at(&printed.starts, at).expect("a statement");
    assert_eq!(&source[offset.to_usize()..offset.to_usize() + 5], "a = [");
}

/// The differing-node locator on two parsed modules: the innermost node
/// that differs, not the statement around it.
#[test]
fn first_difference_is_innermost() {
    let a = "def f():\n    y = [\n        1,\n        g(2),\n    ]\n    return y\n";
    let b = "def f():\n    y = [\n        1,\n        g(3),\n    ]\n    return y\n";
    let (pa, pb) = (syntax::parse(a).unwrap(), syntax::parse(b).unwrap());
    let at = locate::first_difference(&pa, &pb).expect("they differ");
    assert_eq!(&a[at.to_usize()..at.to_usize() + 1], "2");
    assert_eq!(locate::first_difference(&pa, &pa), None);
    // A statement one has and the other lacks.
    let c = "def f():\n    y = [\n        1,\n        g(2),\n    ]\n    return y\n    z = 1\n";
    let pc = syntax::parse(c).unwrap();
    let at = locate::first_difference(&pc, &pa).expect("they differ");
    assert_eq!(&c[at.to_usize()..at.to_usize() + 5], "z = 1");
}

/// The converter's own panic (a planted one: feature `planted-bugs`) names
/// the function whose passes panicked. The environment variable reaches
/// every test of this file: the other cases hold no loop with a `break`,
/// where the planted panic is.
#[cfg(feature = "planted-bugs")]
#[test]
fn internal_error_names_the_function() {
    std::env::set_var("STAGECHECK_PLANT", "converter_panic");
    let source = "x = 1\n\n\ndef ok():\n    return 1\n\n\ndef f(p):\n    while p:\n        break\n";
    let e = convert(source, "p.py").expect_err("the planted panic");
    std::env::remove_var("STAGECHECK_PLANT");
    assert!(e.is_internal(), "{e}");
    assert_eq!(e.line, line_of(source, "def f"), "{e}");
    // The next conversion starts afresh.
    assert!(convert("def g():\n    return 2\n", "q.py").is_ok());
}
