//! Where a printer refusal points: the line of the construct the printer
//! could not print, not line 1.
//!
//! The printer's two refusals (`unparse::print`) are found on the printed
//! code as a whole: its tree differs from the converted one, or it needs a
//! newer Python than the original. The converted tree keeps the original's
//! ranges on every user node (generated nodes have the empty range at 0, and
//! generated statements the range of the statement they stand for), so the
//! construct is located on the converted tree and named by its own range:
//!
//! - a tree that differs: the innermost node (statement or expression) whose
//!   children all print back right while it does not, found by walking both
//!   trees side by side from the first statement that differs; a generated
//!   node is named by its nearest user ancestor;
//! - code that needs a newer Python: the first outermost f-string or t-string
//!   whose printed text, parsed alone as 3.11, has more unsupported syntax
//!   than its original text (the quotes that 3.11 lacks are an f-string's);
//!   else the statement printed where the parser met the syntax.

use ruff_python_ast::comparable::{ComparableExpr, ComparableStmt};
use ruff_python_ast::visitor::{walk_expr, walk_stmt, Visitor};
use ruff_python_ast::{Expr, PythonVersion, Stmt};
use ruff_python_codegen::{Generator, Indentation};
use ruff_python_parser::{Mode, ParseOptions};
use ruff_source_file::LineEnding;
use ruff_text_size::{Ranged, TextRange, TextSize};

/// The original offset of the innermost node of `converted` that the
/// printed tree `printed` does not have as it is (`None` when the two are
/// the same).
pub fn first_difference(converted: &[Stmt], printed: &[Stmt]) -> Option<TextSize> {
    let fallback = converted.first().map_or(TextSize::default(), Ranged::start);
    let a: Vec<Node> = converted.iter().map(Node::Stmt).collect();
    let b: Vec<Node> = printed.iter().map(Node::Stmt).collect();
    differing_child(&a, &b, fallback)
}

/// The original offset of the f-string whose printed text needs a newer
/// Python than its original text, if one does.
pub fn newer_f_string(original: &str, converted: &[Stmt]) -> Option<TextSize> {
    let mut strings = OutermostStrings(Vec::new());
    for stmt in converted {
        strings.visit_stmt(stmt);
    }
    let indent = Indentation::new("    ".to_string());
    strings.0.into_iter().find_map(|e| {
        if e.range().is_empty() {
            return None;
        }
        let written = original.get(std::ops::Range::<usize>::from(e.range()))?;
        let printed = Generator::new(&indent, LineEnding::Lf).with_source(original).expr(e);
        (unsupported(&printed) > unsupported(written)).then(|| e.start())
    })
}

/// The original start of the statement printed at `at` in the printed code,
/// by the printer's record of where it put each statement (`starts`: the
/// statement's original range and its printed offset, in preorder).
pub fn statement_printed_at(starts: &[(TextRange, usize)], at: usize) -> Option<TextSize> {
    starts.iter().filter(|(range, start)| *start <= at && !range.is_empty()).max_by_key(|(_, start)| *start).map(|(r, _)| r.start())
}

/// The syntax 3.11 lacks in `expr` (an expression's text), counted.
fn unsupported(expr: &str) -> usize {
    let options = ParseOptions::from(Mode::Expression).with_target_version(PythonVersion::PY311);
    ruff_python_parser::parse(expr, options).map_or(0, |p| p.unsupported_syntax_errors().len())
}

#[derive(Clone, Copy)]
enum Node<'a> {
    Stmt(&'a Stmt),
    Expr(&'a Expr),
}

impl<'a> Node<'a> {
    fn same(self, other: Node<'_>) -> bool {
        match (self, other) {
            (Node::Stmt(a), Node::Stmt(b)) => ComparableStmt::from(a) == ComparableStmt::from(b),
            (Node::Expr(a), Node::Expr(b)) => ComparableExpr::from(a) == ComparableExpr::from(b),
            _ => false,
        }
    }

    fn range(self) -> TextRange {
        match self {
            Node::Stmt(s) => s.range(),
            Node::Expr(e) => e.range(),
        }
    }

    /// The statements and expressions directly inside, in source order.
    fn children(self) -> Vec<Node<'a>> {
        let mut c = Children(Vec::new());
        match self {
            Node::Stmt(s) => walk_stmt(&mut c, s),
            Node::Expr(e) => walk_expr(&mut c, e),
        }
        c.0
    }
}

/// The first pair of `a` and `b` that differ, narrowed to its innermost
/// differing node; `None` when all are the same. `fallback` names a node
/// with no range of its own (generated): its nearest user ancestor.
fn differing_child(a: &[Node], b: &[Node], fallback: TextSize) -> Option<TextSize> {
    let start = |n: &Node| if n.range().is_empty() { fallback } else { n.range().start() };
    if let Some((x, y)) = a.iter().zip(b).find(|(x, y)| !x.same(**y)) {
        let at = start(x);
        return Some(differing_child(&x.children(), &y.children(), at).unwrap_or(at));
    }
    // The same as far as both go: the first node one has and the other lacks.
    (a.len() != b.len()).then(|| a.get(b.len()).map_or(fallback, start))
}

struct Children<'a>(Vec<Node<'a>>);

impl<'a> Visitor<'a> for Children<'a> {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        self.0.push(Node::Stmt(stmt));
    }
    fn visit_expr(&mut self, expr: &'a Expr) {
        self.0.push(Node::Expr(expr));
    }
}

/// The f-strings and t-strings not inside another, in source order.
struct OutermostStrings<'a>(Vec<&'a Expr>);

impl<'a> Visitor<'a> for OutermostStrings<'a> {
    fn visit_expr(&mut self, expr: &'a Expr) {
        if matches!(expr, Expr::FString(_) | Expr::TString(_)) {
            self.0.push(expr);
        } else {
            walk_expr(self, expr);
        }
    }
}
