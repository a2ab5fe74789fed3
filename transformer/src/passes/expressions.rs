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

/// Like [`rewrite`], for the passes that make lambdas, around two bugs of
/// RustPython 0.5's compiler (CPython compiles both):
/// - some comprehensions holding lambdas fail (`[g(lambda: c) for c in x if
///   h(lambda: 8, lambda: c)]`: "the symbol 'c' must be present in the
///   symbol table"): inside comprehensions only the first iterable (the part
///   evaluated in the function's own scope) is rewritten; a comprehension is
///   a scope of its own that needs no conversion to keep its meaning;
/// - nested scopes in `finally` blocks fail in several ways (any nested
///   scope when the `try` returns, breaks or continues; a lambda after a
///   nested comprehension always: "no symbol table available", "the symbol
///   'ag__' must be present in the symbol table"): `finally` blocks are left
///   as written (Python's own lazy operators there keep their meaning).
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
    /// bodies and `finally` blocks (see `rewrite_thunking`).
    thunking: bool,
}

impl Transformer for Walker<'_> {
    fn visit_stmt(&self, stmt: &mut Stmt) {
        match stmt {
            Stmt::FunctionDef(f) => {
                for d in &mut f.decorator_list {
                    self.visit_expr(&mut d.expression);
                }
                for p in f.parameters.posonlyargs.iter_mut().chain(f.parameters.args.iter_mut())
                    .chain(f.parameters.kwonlyargs.iter_mut())
                {
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
            Stmt::Try(t) if self.thunking => {
                self.visit_body(&mut t.body);
                for ast::ExceptHandler::ExceptHandler(h) in &mut t.handlers {
                    if let Some(e) = &mut h.type_ {
                        self.visit_expr(e);
                    }
                    self.visit_body(&mut h.body);
                }
                self.visit_body(&mut t.orelse);
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

/// Whether `body` holds a nested scope of the user's (a def, class, lambda
/// or comprehension the program wrote, not one the converter made), where
/// RustPython's compiler cannot take more in a `finally` (see
/// [`rewrite_thunking`]).
pub fn has_user_scope(body: &[Stmt], is_generated: &dyn Fn(&str) -> bool) -> bool {
    use ruff_python_ast::visitor::{walk_expr, walk_stmt, Visitor};
    struct V<'a>(bool, &'a dyn Fn(&str) -> bool);
    impl Visitor<'_> for V<'_> {
        fn visit_stmt(&mut self, s: &Stmt) {
            match s {
                Stmt::FunctionDef(f) if !(self.1)(f.name.as_str()) => self.0 = true,
                Stmt::ClassDef(_) => self.0 = true,
                _ if !self.0 => walk_stmt(self, s),
                _ => {}
            }
        }
        fn visit_expr(&mut self, e: &Expr) {
            match e {
                Expr::Lambda(l) if !crate::ast_build::is_generated_lambda(l) => self.0 = true,
                Expr::ListComp(_) | Expr::SetComp(_) | Expr::DictComp(_) | Expr::Generator(_) => self.0 = true,
                _ if !self.0 => walk_expr(self, e),
                _ => {}
            }
        }
    }
    let mut v = V(false, is_generated);
    for st in body {
        v.visit_stmt(st);
    }
    v.0
}

/// Whether the function's own statements (not nested functions') hold a
/// `try` whose `finally` holds a user scope (see `passes::convert_body`).
pub fn has_scoped_finally(body: &[Stmt]) -> bool {
    body.iter().any(|s| match s {
        Stmt::FunctionDef(_) | Stmt::ClassDef(_) => false,
        Stmt::Try(t) if has_user_scope(&t.finalbody, &|_| false) => true,
        other => crate::blocks::blocks(other).into_iter().any(has_scoped_finally),
    })
}
