//! Printing the converted module, and the source map back to the original.
//!
//! The generated code is printed by ruff's `Generator` (vendored with fixes:
//! transformer/vendor/ruff_python_codegen/PATCHES.md). Every statement in
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

/// The module printed, checked against the tree it came from, and mapped.
/// `Err` names what ruff's printer would break; the caller refuses.
pub fn print(original: &str, converted: &[Stmt]) -> Result<(String, SourceMap), String> {
    let text = unparse(converted);
    // One parse of the printed code (as Python 3.11, to count what it lacks)
    // serves every check below and the source map.
    let printed = parse_py311(&text)?;
    if !same_tree(converted, printed.suite()) {
        return Err("ruff's printer would change the program (it cannot print this tree as it is); refused rather than emitted".into());
    }
    let unsupported = printed.unsupported_syntax_errors().len();
    if unsupported > 0 && unsupported > parse_py311(original).map_or(0, |p| p.unsupported_syntax_errors().len()) {
        return Err("the printed code would need a newer Python than the original (an f-string's quotes)".into());
    }
    let map = source_map(original, converted, printed.suite(), &text);
    Ok((text, map))
}

/// Parses `source` as a module, recording syntax Python 3.11 lacks (3.12
/// f-string quote reuse, ...) as unsupported-syntax errors.
fn parse_py311(source: &str) -> Result<ruff_python_parser::Parsed<ruff_python_ast::ModModule>, String> {
    use ruff_python_ast::PythonVersion;
    use ruff_python_parser::{Mode, ParseOptions};
    let options = ParseOptions::from(Mode::Module).with_target_version(PythonVersion::PY311);
    let parsed = ruff_python_parser::parse(source, options).map_err(|e| format!("the printed code does not parse: {e}"))?;
    Ok(parsed.try_into_module().expect("parsed in module mode"))
}

/// Whether the printed tree is the converted one (ranges aside). ruff
/// 0.0.10's printer silently changed some trees (`a[(1, 2):3]` → `a[1,
/// 2:3]`, `case [C()]` → `case []`): those are fixed in the vendored copy
/// (transformer/vendor/ruff_python_codegen/PATCHES.md); this catches any
/// left, and trees the printer cannot print as they are.
fn same_tree(converted: &[Stmt], printed: &[Stmt]) -> bool {
    use ruff_python_ast::comparable::ComparableStmt;
    printed.len() == converted.len()
        && printed.iter().zip(converted).all(|(a, b)| ComparableStmt::from(a) == ComparableStmt::from(b))
}

/// Pairs the statements of the converted tree (original ranges) with those
/// of its printed form (`printed`, parsed from `generated`).
pub fn source_map(original: &str, converted: &[Stmt], printed: &[Stmt], generated: &str) -> SourceMap {
    let from = statement_ranges(converted);
    let to = statement_ranges(printed);
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
    SourceMap { lines }
}
