//! Printing the converted module, and the source map back to the original.
//!
//! The generated code is printed by ruff's `Generator` (vendored with fixes:
//! transformer/vendor/ruff_python_codegen/PATCHES.md). Every statement in
//! the converted tree carries the range of the original statement it came
//! from (generated ones that of the statement they stand for), and the
//! vendored printer says where it printed each statement
//! (`Generator::stmt_printed`): together they give, for every generated
//! line, the original line, without parsing the printed code again.
//!
//! `convert_verified` (`stagecheck convert`: code that leaves the tool)
//! parses the printed code once more, as Python 3.11, and refuses
//! (`printer`) when its tree is not the converted one (a tree the printer
//! cannot print as it is: `t'{a and b = }'` whose expression the conversion
//! rewrote, while the text it prints is the original's; f-strings' `=` forms
//! are lowered before the passes, `passes::fstring_debug`) or needs a newer
//! Python than the original, naming the construct's line (`locate`).
//! `convert` (`check` and the fuzzer, which run
//! the printed code against the original anyway) trusts the printer and
//! parses again only when it printed an f-string or t-string.
//! `transformer/tests/roundtrip.rs` checks that both give the same result and
//! that the printer's statement starts are where a parser finds them.

use crate::error::Refusal;
use crate::locate;
use ruff_python_ast::{Expr, Stmt};
use ruff_python_codegen::{Generator, Indentation};
use ruff_source_file::{LineEnding, LineIndex};
use ruff_text_size::{Ranged, TextRange, TextSize};
use serde::Serialize;

/// For each line of the converted source (index 0 = line 1), the original
/// line it came from; 0 for lines with no origin (the runtime import).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SourceMap {
    pub lines: Vec<u32>,
}

impl SourceMap {
    /// The original line of converted line `line` (1-based), if any.
    pub fn original_line(&self, line: u32) -> Option<u32> {
        let l = *self.lines.get(line.checked_sub(1)? as usize)?;
        (l > 0).then_some(l)
    }
}

pub fn unparse(body: &[Stmt]) -> String {
    printed(body).source
}

/// A module printed, with where each statement (in preorder) starts.
pub fn printed(body: &[Stmt]) -> ruff_python_codegen::Printed {
    printed_with(None, body)
}

/// [`printed`], with each literal that has a range (a user's) printed as its
/// text in `source`, the source `body`'s ranges refer to
/// (`Generator::with_source`): a string's parsed value cannot hold a lone
/// surrogate (`"\ud800"` is parsed as U+FFFD), and a literal's text is its
/// value whatever the printer would make of it. Implicitly concatenated
/// parts are copied one by one (what lay between them, a newline in
/// parentheses, is not), a multi-line string as it is: its lines are its
/// value, not indentation.
pub fn printed_from(source: &str, body: &[Stmt]) -> ruff_python_codegen::Printed {
    printed_with(Some(source), body)
}

fn printed_with(source: Option<&str>, body: &[Stmt]) -> ruff_python_codegen::Printed {
    let indent = Indentation::new("    ".to_string());
    let mut out = ruff_python_codegen::Printed { source: String::new(), starts: Vec::new(), interpolated: false };
    for (i, stmt) in body.iter().enumerate() {
        let def = |s: &Stmt| matches!(s, Stmt::FunctionDef(_) | Stmt::ClassDef(_));
        if i > 0 && (def(stmt) || def(&body[i - 1])) {
            out.source.push_str("\n\n");
        }
        let generator = Generator::new(&indent, LineEnding::Lf);
        let generator = match source {
            Some(source) => generator.with_source(source),
            None => generator,
        };
        let one = generator.stmt_printed(stmt);
        let text = one.source.trim_start_matches('\n');
        let base = out.source.len() - (one.source.len() - text.len());
        out.starts.extend(one.starts.into_iter().map(|(range, at)| (range, base + at)));
        out.interpolated |= one.interpolated;
        out.source.push_str(text);
        out.source.push('\n');
    }
    out
}

/// An expression as source text (for error messages and `expr_repr`s).
pub fn expr_source(e: &Expr) -> String {
    let indent = Indentation::new("    ".to_string());
    Generator::new(&indent, LineEnding::Lf).expr(e)
}

/// How much [`print`] checks the printed code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verify {
    /// Parse the printed code again and compare its tree with the converted
    /// one (`stagecheck convert`): a printer bug becomes a refusal.
    Tree,
    /// Trust the printer (its round trip is a property test and a fuzz
    /// target; `check` runs the printed code against the original anyway),
    /// parsing again only when an f-string or t-string was printed, to
    /// catch quotes that need a newer Python than the original.
    Printer,
}

/// The module printed, checked (`verify`) and mapped. `Err` is a refusal
/// (construct `printer`) of what ruff's printer would break, at the
/// construct it could not print (`locate`).
pub fn print(original: &str, converted: &[Stmt], verify: Verify) -> Result<(String, SourceMap), Refusal> {
    let refuse = |at: Option<TextSize>, reason: &str| {
        let at = at.or(converted.first().map(Ranged::start)).unwrap_or_default();
        Refusal { offset: at, construct: "printer", reason: reason.to_string() }
    };
    // User literals as written: the converter never changes one.
    let out = printed_from(original, converted);
    if verify == Verify::Tree || out.interpolated {
        // One parse of the printed code (as Python 3.11, to count what it
        // lacks) serves both checks.
        let printed = parse_py311(&out.source).map_err(|e| {
            let at = locate::statement_printed_at(&out.starts, e.location.start().to_usize());
            refuse(at, &format!("the printed code does not parse: {}", e.error))
        })?;
        if !same_tree(converted, printed.suite()) {
            let at = locate::first_difference(converted, printed.suite());
            return Err(refuse(
                at,
                "ruff's printer would change the program (it cannot print this tree as it is); refused rather than emitted",
            ));
        }
        let unsupported = printed.unsupported_syntax_errors();
        if !unsupported.is_empty() && unsupported.len() > parse_py311(original).map_or(0, |p| p.unsupported_syntax_errors().len()) {
            let at = locate::newer_f_string(original, converted)
                .or_else(|| locate::statement_printed_at(&out.starts, unsupported[0].range.start().to_usize()));
            return Err(refuse(at, "the printed code would need a newer Python than the original (an f-string's quotes)"));
        }
    }
    let map = source_map(original, &out.starts, &out.source);
    Ok((out.source, map))
}

/// Parses `source` as a module, recording syntax Python 3.11 lacks (3.12
/// f-string quote reuse, ...) as unsupported-syntax errors.
fn parse_py311(source: &str) -> Result<ruff_python_parser::Parsed<ruff_python_ast::ModModule>, ruff_python_parser::ParseError> {
    use ruff_python_ast::PythonVersion;
    use ruff_python_parser::{Mode, ParseOptions};
    let options = ParseOptions::from(Mode::Module).with_target_version(PythonVersion::PY311);
    let parsed = ruff_python_parser::parse(source, options)?;
    Ok(parsed.try_into_module().expect("parsed in module mode"))
}

/// Whether the printed tree is the converted one (ranges aside). ruff
/// 0.0.10's printer silently changed some trees (`a[(1, 2):3]` → `a[1,
/// 2:3]`, `case [C()]` → `case []`): those are fixed in the vendored copy
/// (transformer/vendor/ruff_python_codegen/PATCHES.md); this catches any
/// left, and trees the printer cannot print as they are.
fn same_tree(converted: &[Stmt], printed: &[Stmt]) -> bool {
    use ruff_python_ast::comparable::ComparableStmt;
    printed.len() == converted.len() && printed.iter().zip(converted).all(|(a, b)| ComparableStmt::from(a) == ComparableStmt::from(b))
}

/// For each generated line, the original line of the statement that
/// starts on it (`starts`: each converted statement's original range and
/// where the printer put it); lines inside a statement take its origin.
pub fn source_map(original: &str, starts: &[(TextRange, usize)], generated: &str) -> SourceMap {
    let original_lines = LineIndex::from_source_text(original);
    let generated_lines = LineIndex::from_source_text(generated);
    let n = generated.lines().count();
    let mut lines = vec![0u32; n];
    let mut starts_here = vec![false; n];
    for (from, at) in starts {
        let g = generated_lines.line_index(TextSize::new(*at as u32)).get() - 1;
        let o = if from.is_empty() && from.start() == 0.into() { 0 } else { original_lines.line_index(from.start()).get() as u32 };
        if g < n && !starts_here[g] {
            lines[g] = o;
            starts_here[g] = true;
        }
    }
    // Lines inside a statement (continuations) take the statement's origin.
    for i in 1..n {
        if !starts_here[i] {
            lines[i] = lines[i - 1];
        }
    }
    SourceMap { lines }
}
