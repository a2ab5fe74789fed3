//! Pass 1, functions: what must hold of a function before its statements
//! move into nested functions.
//!
//! - Functions that look at their own namespace (`locals()`, `vars()` and
//!   `dir()` without arguments, `exec`/`eval` without a namespace) are found
//!   here: converting their statements or moving their expressions into
//!   lambdas would change that namespace, so they are only partly converted.
//! - `super()` without arguments in a method becomes `super(__class__,
//!   <first parameter>)`: Python finds both implicitly from the frame, which
//!   inside a nested function is the wrong one.
//! - `global` and `nonlocal` declarations move to the top of the function:
//!   they apply to all of it, wherever written, and a declaration left in a
//!   moved block would apply to the nested function only.

use crate::ast_build::{self, Sub};
use crate::blocks;
use ruff_python_ast::visitor::{walk_expr, Visitor};
use ruff_python_ast::{self as ast, Expr, Stmt};
use ruff_text_size::Ranged;

/// Builtins that see the caller's namespace when called with at most this
/// many arguments (`exec(code, ns)` has its own namespace; `exec(code)` not).
const NAMESPACE_READERS: &[(&str, usize)] = &[("locals", usize::MAX), ("vars", 0), ("dir", 0), ("exec", 1), ("eval", 1)];

/// Whether the function (its own scope, lambdas aside) reads or writes its
/// own namespace.
pub fn reads_namespace(body: &[Stmt]) -> bool {
    struct Find(bool);
    impl Visitor<'_> for Find {
        fn visit_stmt(&mut self, stmt: &Stmt) {
            if !self.0 && !matches!(stmt, Stmt::FunctionDef(_) | Stmt::ClassDef(_)) {
                ruff_python_ast::visitor::walk_stmt(self, stmt);
            }
        }
        fn visit_expr(&mut self, e: &Expr) {
            if let Expr::Call(c) = e {
                if let Expr::Name(n) = &*c.func {
                    self.0 |= NAMESPACE_READERS.iter().any(|(name, max_args)| n.id.as_str() == *name && c.arguments.len() <= *max_args);
                }
            }
            if !self.0 && !matches!(e, Expr::Lambda(_)) {
                walk_expr(self, e);
            }
        }
    }
    let mut f = Find(false);
    for s in body {
        f.visit_stmt(s);
    }
    f.0
}

/// `super()` → `super(__class__, first)` in the function's own scope.
pub fn explicit_super(body: &mut [Stmt], first: &str) {
    super::expressions::rewrite(body, &|e| {
        let Expr::Call(c) = e else { return };
        if !c.arguments.is_empty() || !matches!(&*c.func, Expr::Name(n) if n.id.as_str() == "super") {
            return;
        }
        let range = c.range();
        *e = ast_build::expr("super(__class__, FIRST)", vec![("FIRST", Sub::Expr(ast_build::name(first)))]);
        ruff_python_ast::relocate::relocate_expr(e, range);
    });
}

/// `x: T = v` → `x = v`, and `x: T` → `pass`, for names: a name bound in a
/// generated function is declared `nonlocal` there, which Python forbids
/// for annotated names; annotations of a function's locals are never
/// evaluated, so nothing changes.
pub fn drop_local_annotations(body: &mut Vec<Stmt>) {
    for stmt in body.iter_mut() {
        blocks::for_each_block_vec(stmt, &mut drop_local_annotations);
        let Stmt::AnnAssign(a) = stmt else { continue };
        if !matches!(&*a.target, Expr::Name(_)) {
            continue;
        }
        let range = a.range;
        *stmt = match a.value.take() {
            Some(v) => ast_build::stmt(
                "X = V",
                range,
                vec![("X", Sub::Expr(std::mem::replace(&mut *a.target, ast_build::name("_")))), ("V", Sub::Expr(*v))],
            ),
            None => ast_build::stmt("pass", range, vec![]),
        };
    }
}

/// Moves `global`/`nonlocal` statements to `at` (after the docstring).
pub fn hoist_declarations(body: &mut Vec<Stmt>, at: usize) {
    let mut found = Vec::new();
    take_declarations(body, &mut found);
    let at = at.min(body.len());
    body.splice(at..at, found);
}

fn take_declarations(body: &mut Vec<Stmt>, found: &mut Vec<Stmt>) {
    let mut i = 0;
    while i < body.len() {
        if matches!(body[i], Stmt::Global(_) | Stmt::Nonlocal(_)) {
            found.push(body.remove(i));
            if body.is_empty() {
                break;
            }
            continue;
        }
        blocks::for_each_block_vec(&mut body[i], &mut |b| {
            let was_empty = b.is_empty();
            take_declarations(b, found);
            if b.is_empty() && !was_empty {
                b.push(ast_build::stmt("pass", Default::default(), vec![]));
            }
        });
        i += 1;
    }
}

/// 1 when `body` starts with a docstring, else 0.
pub fn docstring_end(body: &[Stmt]) -> usize {
    match body.first() {
        Some(Stmt::Expr(ast::StmtExpr { value, .. })) if value.is_string_literal_expr() => 1,
        _ => 0,
    }
}

/// Where generated code may start: after the docstring and declarations.
pub fn prologue_end(body: &[Stmt]) -> usize {
    let mut i = docstring_end(body);
    while i < body.len() && matches!(body[i], Stmt::Global(_) | Stmt::Nonlocal(_)) {
        i += 1;
    }
    i
}
