//! Printing the converted module, and the source map back to the original.
//!
//! The generated code is printed by ruff's `Generator`. Every statement in
//! the converted tree carries the range of the original statement it came
//! from (generated ones that of the statement they stand for), so parsing
//! the printed code again and pairing statements in order gives, for every
//! generated line, the original line.

use ruff_python_ast::visitor::{walk_stmt, Visitor};
use ruff_python_ast::{Expr, Stmt};
use ruff_python_codegen::{Generator, Indentation};
use ruff_source_file::{LineEnding, LineIndex};
use ruff_text_size::{Ranged, TextRange};
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
    let indent = Indentation::new("    ".to_string());
    let mut s = String::new();
    for (i, stmt) in body.iter().enumerate() {
        let def = |s: &Stmt| matches!(s, Stmt::FunctionDef(_) | Stmt::ClassDef(_));
        if i > 0 && (def(stmt) || def(&body[i - 1])) {
            s.push_str("\n\n");
        }
        s.push_str(Generator::new(&indent, LineEnding::Lf).stmt(stmt).trim_start_matches('\n'));
        s.push('\n');
    }
    s
}

/// An expression as source text (for error messages and `expr_repr`s).
pub fn expr_source(e: &Expr) -> String {
    let indent = Indentation::new("    ".to_string());
    Generator::new(&indent, LineEnding::Lf).expr(e)
}

/// Statement ranges in source order, nested functions included.
fn statement_ranges(body: &[Stmt]) -> Vec<TextRange> {
    struct R(Vec<TextRange>);
    impl Visitor<'_> for R {
        fn visit_stmt(&mut self, stmt: &Stmt) {
            self.0.push(stmt.range());
            walk_stmt(self, stmt);
        }
    }
    let mut r = R(Vec::new());
    for s in body {
        r.visit_stmt(s);
    }
    r.0
}

/// Float literals in visiting order, with their ranges.
fn floats(body: &[Stmt]) -> Vec<(TextRange, f64)> {
    use ruff_python_ast::visitor::walk_expr;
    struct F(Vec<(TextRange, f64)>);
    impl Visitor<'_> for F {
        fn visit_expr(&mut self, e: &Expr) {
            if let Expr::NumberLiteral(n) = e {
                if let ruff_python_ast::Number::Float(f) = n.value {
                    self.0.push((n.range, f));
                }
            }
            walk_expr(self, e);
        }
    }
    let mut f = F(Vec::new());
    for s in body {
        f.visit_stmt(s);
    }
    f.0
}

/// ruff's printer writes floats with too few digits (`0.9999999999999999`
/// becomes `1.0`): every float literal whose printed value differs from the
/// tree's is rewritten with Rust's shortest round-trip form, which Python
/// reads back exactly.
pub fn fix_floats(converted: &[Stmt], text: String) -> String {
    let Ok(parsed) = ruff_python_parser::parse_module(&text) else { return text };
    let want = floats(converted);
    let got = floats(parsed.suite());
    let mut text = text;
    for ((range, printed), (_, value)) in got.iter().zip(&want).rev() {
        if printed.to_bits() != value.to_bits() {
            let exact = format!("{value:?}");
            text.replace_range(usize::from(range.start())..usize::from(range.end()), &exact);
        }
    }
    text
}

/// Whether `text` parses back to exactly `converted` (ranges aside). ruff
/// 0.0.10's printer silently changes some trees (`a[(1, 2):3]` → `a[1,
/// 2:3]`, `case [C()]` → `case []`): the converter refuses those.
pub fn prints_faithfully(converted: &[Stmt], text: &str) -> bool {
    use ruff_python_ast::comparable::ComparableStmt;
    let Ok(parsed) = ruff_python_parser::parse_module(text) else { return false };
    let again = parsed.suite();
    again.len() == converted.len()
        && again.iter().zip(converted).all(|(a, b)| ComparableStmt::from(a) == ComparableStmt::from(b))
}

/// Syntax of the printed code that Python 3.11 lacks (3.12 f-string quote
/// reuse, ...), counted; the printer may introduce some the original lacked.
pub fn py311_unsupported(source: &str) -> usize {
    use ruff_python_ast::PythonVersion;
    use ruff_python_parser::{Mode, ParseOptions};
    let options = ParseOptions::from(Mode::Module).with_target_version(PythonVersion::PY311);
    ruff_python_parser::parse(source, options).map_or(0, |p| p.unsupported_syntax_errors().len())
}

/// Pairs the statements of the converted tree (original ranges) with those
/// of its printed form (`generated`). `Err`: the printed code does not parse
/// (a printer bug; the caller refuses rather than emit it).
pub fn source_map(original: &str, converted: &[Stmt], generated: &str) -> Result<SourceMap, String> {
    let reparsed = ruff_python_parser::parse_module(generated).map_err(|e| e.to_string())?.into_suite();
    let from = statement_ranges(converted);
    let to = statement_ranges(&reparsed);
    let original_lines = LineIndex::from_source_text(original);
    let generated_lines = LineIndex::from_source_text(generated);
    let n = generated.lines().count();
    let mut lines = vec![0u32; n];
    let mut starts = vec![false; n];
    for (f, t) in from.iter().zip(&to) {
        let g = generated_lines.line_index(t.start()).get() - 1;
        let o = if f.is_empty() && f.start() == 0.into() { 0 } else { original_lines.line_index(f.start()).get() as u32 };
        if g < n && !starts[g] {
            lines[g] = o;
            starts[g] = true;
        }
    }
    // Lines inside a statement (continuations) take the statement's origin.
    for i in 1..n {
        if !starts[i] {
            lines[i] = lines[i - 1];
        }
    }
    Ok(SourceMap { lines })
}
