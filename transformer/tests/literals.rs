//! Literal fidelity: every literal of the original is in the
//! converted program as written, so it has the same value there.
//!
//! A parsed string cannot hold a lone surrogate (`"\ud800"` is parsed as
//! U+FFFD), so the printer copies each user literal's source text
//! (`Generator::with_source`, transformer/vendor/ruff_python_codegen/PATCHES.md).
//! The property, over programs whose literals cover every escape class (lone
//! and paired surrogates, `\x`, `\u`, `\U`, `\N{...}`, octal, raw strings,
//! bytes with every byte, f-strings and their literal parts, floats at the
//! edges, big ints, complex) placed where the conversion moves code (if,
//! for and while bodies become nested functions, a conditional expression
//! inside an f-string is rewritten): the multiset of the original's literal
//! tokens (strings, bytes, numbers, f-string literal text) is contained in the
//! converted program's. An f-string `=` form is lowered to literal text
//! (`f'a{x=}'` → `f'ax={x!r}'`), which joins the user's text before it in one
//! token: f-string text need only start a token of the converted program,
//! and its value (parsed) start a literal element's value, so that a copied
//! short octal escape (`\1`) cannot take in a digit after it (`{7=}`).
//! The same on every corpus program that converts.
//! The values themselves, run, are compared in the root crate's
//! `tests/literals.rs`.
//!
//! 256 cases (`PROPTEST_CASES` overrides).
//!
//!     cargo test --release -p stagecheck-transformer --test literals

use proptest::prelude::*;
use proptest::sample::select;
use ruff_python_ast::token::TokenKind;
use ruff_text_size::Ranged;
use stagecheck_transformer::{convert, convert_verified};

/// One piece of a non-raw `str` literal's body, for a `quote`-quoted literal.
#[rustfmt::skip]
fn str_piece() -> impl Strategy<Value = String> {
    prop_oneof![
        // Lone surrogates, high and low, and a paired one written as escapes.
        (0xd800u32..0xe000).prop_map(|c| format!("\\u{c:04x}")),
        (0xd800u32..0xdc00, 0xdc00u32..0xe000).prop_map(|(h, l)| format!("\\u{h:04x}\\u{l:04x}")),
        (0u32..0x110000).prop_map(|c| format!("\\U{c:08x}")),
        (0u32..0x10000).prop_map(|c| format!("\\u{c:04X}")),
        (0u32..256).prop_map(|c| format!("\\x{c:02x}")),
        (0u32..0o400).prop_map(|c| format!("\\{c:o}")),
        select(&["\\N{BULLET}", "\\N{LATIN SMALL LETTER E WITH ACUTE}", "\\N{EM DASH}", "\\n", "\\t", "\\\\",
            "\\'", "\\\"", "\\a", "\\0", "\\r", "\\\n", "\\d", "é", "\u{1f600}", "a", " ", "{", "}"][..])
            .prop_map(String::from),
        // Characters as they are (not quotes, backslashes or newlines).
        any::<char>()
            .prop_filter("plain", |c| !matches!(c, '\'' | '"' | '\\' | '\n' | '\r') && !c.is_control())
            .prop_map(String::from),
    ]
}

fn bytes_piece() -> impl Strategy<Value = String> {
    prop_oneof![
        (0u32..256).prop_map(|c| format!("\\x{c:02X}")),
        (0u32..0o400).prop_map(|c| format!("\\{c:03o}")),
        select(&["\\n", "\\\\", "\\'", "\\\"", "\\0", "\\q", "a", "~"][..]).prop_map(String::from),
    ]
}

fn quoted(prefix: &str, quote: &str, body: &str) -> String {
    format!("{prefix}{quote}{body}{quote}")
}

/// A `str` literal (with prefix and quotes).
fn str_literal() -> impl Strategy<Value = String> {
    let body = prop::collection::vec(str_piece(), 0..6).prop_map(|v| v.concat()).boxed();
    prop_oneof![
        (select(&["", "u", "U"][..]), select(&["'", "\""][..]), body.clone()).prop_map(|(p, q, b)| quoted(p, q, &b)),
        // Triple-quoted, with newlines and indentation that are the value.
        (body.clone(), body.clone()).prop_map(|(a, b)| quoted("", "'''", &format!("{a}\n  {b}\n\t x"))),
        // Raw: backslashes as written.
        (select(&["r", "R"][..]), prop::collection::vec(select(&["\\d", "\\ud800", "\\N", "x", "\\\\", "\\x4"][..]), 0..5))
            .prop_map(|(p, v)| quoted(p, "'", &v.concat())),
    ]
}

fn bytes_literal() -> impl Strategy<Value = String> {
    prop_oneof![
        (select(&["b", "B"][..]), prop::collection::vec(bytes_piece(), 0..8)).prop_map(|(p, v)| quoted(p, "'", &v.concat())),
        // Every byte, once.
        Just(quoted("b", "'", &(0..256).map(|b| format!("\\x{b:02x}")).collect::<String>())),
        select(&["br'\\x\\d'", "Rb\"\\\\\"", "b'''a\n b'''"][..]).prop_map(String::from),
    ]
}

#[rustfmt::skip]
fn number() -> impl Strategy<Value = String> {
    prop_oneof![
        select(&["0", "00", "1_000", "0x1F", "0XdeadBEEF", "0o17", "0b1011", "0B_1",
            "123456789012345678901234567890123456789", "0x" ][..])
            .prop_filter("complete", |s| *s != "0x")
            .prop_map(String::from),
        any::<u128>().prop_map(|n| n.to_string()),
        select(&["0.1", "1.", ".5", "1e-7", "1E+16", "1e10", "0.9999999999999999", "5e-324", "4.9e-324",
            "2.2250738585072014e-308", "1.7976931348623157e308", "1.7976931348623159e308", "1e999",
            "1_0.0_1e1_0", "0.30000000000000004", "123456789012345678901234567890.0"][..])
            .prop_map(String::from),
        any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(|f| format!("{:e}", f.abs())),
        select(&["1j", "0J", "2.5e-7j", "1e999j", "1_0j", ".5j", "5e-324j"][..]).prop_map(String::from),
    ]
}

/// An f-string: literal parts with escapes around replacement fields.
fn f_string() -> impl Strategy<Value = String> {
    // Braces doubled, except in `\N{...}`.
    let piece = str_piece().prop_map(|p| if p.starts_with("\\N") { p } else { p.replace('{', "{{").replace('}', "}}") });
    let text = prop::collection::vec(piece, 0..4).prop_map(|v| v.concat()).boxed();
    (text.clone(), text.clone(), select(&["x", "x!r", "x:>8", "x:{w}", "x if p else w", "-x=", "[x, w]", "7 = ", "0=!s:>{w}"][..]))
        .prop_map(|(a, b, e)| {
            // The conversion rewrites a conditional expression (the literal parts are
            // then printed one by one), with `'p'` beside it: the f-string's quote is `"`.
            if e.contains(" if ") {
                format!("f\"{a}{{({e})}}{b}\"")
            } else {
                format!("f'{a}{{{e}}}{b}'")
            }
        })
}

fn literal() -> impl Strategy<Value = String> {
    prop_oneof![3 => str_literal(), 2 => bytes_literal(), 2 => number(), 2 => f_string()]
}

/// Implicit concatenation over two lines in parentheses, same family.
fn concatenation() -> impl Strategy<Value = String> {
    prop_oneof![
        (str_literal(), str_literal()).prop_map(|(a, b)| format!("({a}\n        {b})")),
        (bytes_literal(), bytes_literal()).prop_map(|(a, b)| format!("({a}\n        {b})")),
        (str_literal(), f_string()).prop_map(|(a, b)| format!("({a}\n        {b})")),
    ]
}

/// A program with the literals in every place the conversion moves code.
fn program() -> impl Strategy<Value = String> {
    // The literal inside `f"{... if p else w}"` (rewritten) has no `"`: the
    // generated code beside it has `'`, and the program is then 3.11 as
    // written (the printer refuses code that needs a newer Python than the original).
    let in_f_string = literal().prop_filter("3.11", |l| !l.contains(['"', '\\', '\n']));
    (prop::collection::vec(literal(), 5), in_f_string, concatenation(), literal()).prop_map(|(mut l, l3, c, m)| {
        l.insert(3, l3);
        format!(
            "M = {m}\n\
             def f(p, w=3):\n\
             \x20   x = {l0}\n\
             \x20   if p:\n\
             \x20       y = {l1}\n\
             \x20   else:\n\
             \x20       y = {c}\n\
             \x20   for i in range(2):\n\
             \x20       print(repr({l2}), f\"{{{l3} if p else w}}\")\n\
             \x20   while p:\n\
             \x20       p = {l4} if p else {l5}\n\
             \x20       break\n\
             \x20   return x, y\n\
             f(1)\n",
            l0 = l[0],
            l1 = l[1],
            l2 = l[2],
            l3 = l[3],
            l4 = l[4],
            l5 = l[5]
        )
    })
}

/// The texts of a program's literal tokens: whole literals (strings, bytes,
/// numbers) and f-string literal text (`FStringMiddle`), apart.
fn literal_tokens(source: &str) -> (Vec<String>, Vec<String>) {
    let parsed = ruff_python_parser::parse_module(source).unwrap_or_else(|e| panic!("does not parse: {e}\n{source}"));
    let (mut whole, mut middles) = (Vec::new(), Vec::new());
    for token in parsed.tokens().iter() {
        let text = source[token.range()].to_string();
        match token.kind() {
            TokenKind::String | TokenKind::Int | TokenKind::Float | TokenKind::Complex => whole.push(text),
            TokenKind::FStringMiddle | TokenKind::TStringMiddle => middles.push(text),
            _ => {}
        }
    }
    (whole, middles)
}

/// The values of the literal text of every f-string (top level of each, not
/// format specs), in source order.
fn f_string_texts(source: &str) -> Vec<String> {
    use ruff_python_ast::visitor::{walk_f_string, Visitor};
    struct Texts(Vec<String>);
    impl Visitor<'_> for Texts {
        fn visit_f_string(&mut self, f: &ruff_python_ast::FString) {
            self.0.extend(f.elements.literals().map(|l| l.value.to_string()));
            walk_f_string(self, f);
        }
    }
    let mut texts = Texts(Vec::new());
    for stmt in ruff_python_parser::parse_module(source).unwrap().suite() {
        texts.visit_stmt(stmt);
    }
    texts.0
}

/// The items of `original` that `converted` lacks, counted: each is matched
/// to an item of `converted` equal to it, or (`prefixes`) one that starts
/// with it. The text of a lowered f-string `=` form follows the user's
/// literal text before it in one token (`f'a{x=}'` → `f'ax={x!r}'`).
fn lacking(original: Vec<String>, converted: Vec<String>, prefixes: bool) -> Vec<String> {
    let mut have = converted;
    let mut unmatched = Vec::new();
    for text in original {
        match have.iter().position(|h| *h == text) {
            Some(i) => drop(have.swap_remove(i)),
            None => unmatched.push(text),
        }
    }
    // Longest first: a shorter text that starts the same items as a longer
    // one starts all the longer one's, so taking the longer's first loses none.
    unmatched.sort_by_key(|text| std::cmp::Reverse(text.len()));
    unmatched.retain(|text| match have.iter().position(|h| prefixes && h.starts_with(text.as_str())) {
        Some(i) => {
            have.swap_remove(i);
            false
        }
        None => true,
    });
    unmatched
}

/// The original's literals the converted program lacks: each token as
/// written, and each f-string's literal text by its value too (a copied
/// short octal escape must not take in a digit of text printed after it).
fn missing(original: &str, converted: &str) -> Vec<String> {
    let ((whole, middles), (have_whole, have_middles)) = (literal_tokens(original), literal_tokens(converted));
    let mut lost = lacking(whole, have_whole, false);
    lost.extend(lacking(middles, have_middles, true));
    lost.extend(lacking(f_string_texts(original), f_string_texts(converted), true).into_iter().map(|v| format!("{v:?} (value)")));
    lost
}

fn check_program(source: &str) -> Result<(), TestCaseError> {
    for (how, conversion) in [("convert", convert(source, "p.py")), ("convert_verified", convert_verified(source, "p.py"))] {
        let conversion = conversion.map_err(|e| TestCaseError::fail(format!("{how} refused: {e}\n{source}")))?;
        let lost = missing(source, &conversion.source);
        prop_assert!(lost.is_empty(), "{how} lost literals {lost:?}\n--- original\n{source}\n--- converted\n{}", conversion.source);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(256),
        failure_persistence: Some(Box::new(proptest::test_runner::FileFailurePersistence::WithSource("proptest-regressions"))),
        ..ProptestConfig::default()
    })]

    #[test]
    fn literals_survive_conversion(source in program()) {
        check_program(&source)?;
    }
}

/// The issue's reproducers.
#[test]
fn reproducers() {
    for source in [
        "def f():\n    print(\"\\ud800\" == \"\\udfff\")\nf()\n",
        "def f():\n    for i in range(1):\n        print(\"\\ud83d\\ude00\", f\"\\ud800{i}\", f\"\\udfff{i if i else 0}\")\nf()\n",
    ] {
        check_program(source).unwrap();
    }
}

/// Literals the conversion drops with their statement: code after a `return`
/// in every branch is unreachable and not converted.
const DROPPED: &[(&str, &str)] = &[("return/008_return_tuple_from_while.py", "'unreachable'")];

/// Every corpus program that converts keeps its literals (but [`DROPPED`]).
#[test]
fn corpus_literals_survive() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../corpus");
    let mut stack = vec![std::path::PathBuf::from(root)];
    let mut seen = 0;
    let mut failures = Vec::new();
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "py") {
                let source = std::fs::read_to_string(&path).unwrap();
                if let Ok(conversion) = convert(&source, "p.py") {
                    let lost = missing(&source, &conversion.source);
                    if !lost.is_empty() && !DROPPED.iter().any(|(file, text)| path.ends_with(file) && lost == [*text]) {
                        failures.push(format!("{}: lost literals {lost:?}", path.display()));
                    }
                    seen += 1;
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(seen > 100, "only {seen} corpus programs converted");
}
