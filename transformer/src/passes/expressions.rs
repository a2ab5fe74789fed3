//! Walking the expressions of one function for the expression passes.
//!
//! Post-order (operands are converted before the expression that contains
//! them), over the function's own statements and the lambdas and
//! comprehensions in them; not into nested functions and classes, which are
//! converted on their own, and not into annotations or assignment targets.

use ruff_python_ast::visitor::transformer::{walk_expr, walk_stmt, Transformer};
use ruff_python_ast::{self as ast, Expr, Stmt};

/// Applies `rewrite` to every expression of `body`, innermost first.
pub fn rewrite(body: &mut [Stmt], rewrite: &dyn Fn(&mut Expr)) {
    let w = Walker { rewrite, thunking: false };
    for s in body {
        w.visit_stmt(s);
    }
}

/// Like [`rewrite`], for the passes that make lambdas: inside comprehensions
/// only the first iterable (the part evaluated in the function's own scope)
/// is rewritten; a comprehension is a scope of its own that needs no
/// conversion to keep its meaning. (This began as a way around a RustPython
/// compiler bug with lambdas in a comprehension's `if`, `[g(lambda: c) for c
/// in x if h(lambda: 8, lambda: c)]`, since fixed in the vendored code
/// generator: see its PATCHES.md.)
pub fn rewrite_thunking(body: &mut [Stmt], rewrite: &dyn Fn(&mut Expr)) {
    let w = Walker { rewrite, thunking: true };
    for s in body {
        w.visit_stmt(s);
    }
}

/// True when `e` can move into a `lambda:` unchanged: no `yield` or `await`
/// (which would change the lambda's kind) and no `:=` (which would bind in
/// the lambda instead of the function).
pub fn thunkable(e: &Expr) -> bool {
    use ruff_python_ast::visitor::{walk_expr, Visitor};
    struct Check(bool);
    impl Visitor<'_> for Check {
        fn visit_expr(&mut self, e: &Expr) {
            if matches!(e, Expr::Yield(_) | Expr::YieldFrom(_) | Expr::Await(_) | Expr::Named(_)) {
                self.0 = false;
            } else if self.0 {
                walk_expr(self, e);
            }
        }
    }
    let mut c = Check(true);
    c.visit_expr(e);
    c.0
}

struct Walker<'a> {
    rewrite: &'a dyn Fn(&mut Expr),
    /// Whether this walk makes lambdas: it then leaves out comprehension
    /// bodies (see `rewrite_thunking`).
    thunking: bool,
}

impl Transformer for Walker<'_> {
    fn visit_stmt(&self, stmt: &mut Stmt) {
        match stmt {
            Stmt::FunctionDef(f) => {
                for d in &mut f.decorator_list {
                    self.visit_expr(&mut d.expression);
                }
                for p in f.parameters.posonlyargs.iter_mut().chain(f.parameters.args.iter_mut()).chain(f.parameters.kwonlyargs.iter_mut()) {
                    if let Some(d) = &mut p.default {
                        self.visit_expr(d);
                    }
                }
            }
            Stmt::ClassDef(c) => {
                for d in &mut c.decorator_list {
                    self.visit_expr(&mut d.expression);
                }
                if let Some(args) = &mut c.arguments {
                    self.visit_arguments(args);
                }
            }
            Stmt::Assign(a) => {
                self.visit_expr(&mut a.value);
                for t in &mut a.targets {
                    self.visit_target(t);
                }
            }
            Stmt::AnnAssign(a) => {
                if let Some(v) = &mut a.value {
                    self.visit_expr(v);
                }
                self.visit_target(&mut a.target);
            }
            Stmt::AugAssign(a) => {
                self.visit_target(&mut a.target);
                self.visit_expr(&mut a.value);
            }
            Stmt::For(f) => {
                self.visit_expr(&mut f.iter);
                self.visit_target(&mut f.target);
                self.visit_body(&mut f.body);
                self.visit_body(&mut f.orelse);
            }
            Stmt::Delete(d) => {
                for t in &mut d.targets {
                    self.visit_target(t);
                }
            }
            Stmt::With(w) => {
                for item in &mut w.items {
                    self.visit_expr(&mut item.context_expr);
                    if let Some(v) = &mut item.optional_vars {
                        self.visit_target(v);
                    }
                }
                self.visit_body(&mut w.body);
            }
            Stmt::TypeAlias(_) => {}
            _ => walk_stmt(self, stmt),
        }
    }

    fn visit_annotation(&self, _: &mut Expr) {}

    fn visit_expr(&self, expr: &mut Expr) {
        if self.thunking {
            let generators = match expr {
                Expr::ListComp(c) => Some(&mut c.generators),
                Expr::SetComp(c) => Some(&mut c.generators),
                Expr::DictComp(c) => Some(&mut c.generators),
                Expr::Generator(c) => Some(&mut c.generators),
                _ => None,
            };
            if let Some(generators) = generators {
                if let Some(first) = generators.first_mut() {
                    self.visit_expr(&mut first.iter);
                }
                return;
            }
        }
        walk_expr(self, expr);
        (self.rewrite)(expr);
    }
}

impl Walker<'_> {
    /// Targets are stored to, not evaluated; the expressions inside them
    /// (`a[i]`'s `a` and `i`, `o.x`'s `o`) are.
    fn visit_target(&self, t: &mut Expr) {
        match t {
            Expr::Name(_) => {}
            Expr::Tuple(ast::ExprTuple { elts, .. }) | Expr::List(ast::ExprList { elts, .. }) => {
                for e in elts {
                    self.visit_target(e);
                }
            }
            Expr::Starred(s) => self.visit_target(&mut s.value),
            Expr::Subscript(s) => {
                self.visit_expr(&mut s.value);
                self.visit_expr(&mut s.slice);
            }
            Expr::Attribute(a) => self.visit_expr(&mut a.value),
            other => self.visit_expr(other),
        }
    }
}
