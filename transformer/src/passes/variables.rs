//! Pass 12, variables: unbound locals read from the generated functions.
//!
//! - A read of a local of the converted function `f` that may be unbound
//!   (reaching definitions) and now happens inside a generated function
//!   becomes `ag__.ld(lambda: x, 'x')`, which raises UnboundLocalError as
//!   the original did (from a nested function, Python would raise a
//!   NameError about a free variable instead).
//! - `del x` of such a local is preceded by the same check: RustPython does
//!   not raise when deleting an empty cell, and conversion turns locals into
//!   cells.
//! - Locals that `f` now binds only inside generated functions are declared
//!   at its top with an annotation (`x: ag__.Undefined`), which makes them
//!   locals of `f` without binding them, so `nonlocal x` finds them and an
//!   unbound read still raises.

use crate::analysis::activity::Activity;
use crate::analysis::Names;
use crate::ast_build::{self, string, thunk, Sub};
use crate::blocks;
use crate::context::FunctionContext;
use ruff_python_ast::visitor::transformer::{walk_expr, walk_stmt, Transformer};
use ruff_python_ast::{self as ast, Expr, ExprContext, Stmt};
use ruff_text_size::Ranged;
use std::cell::Cell;

pub fn run(body: &mut Vec<Stmt>, cx: &FunctionContext, prologue: usize) {
    if !cx.unbound.is_empty() {
        let w = Loads { cx, in_thunk: Cell::new(false) };
        for s in body.iter_mut() {
            w.visit_stmt(s);
        }
        statement_checks(body, cx, false);
    }
    declare(body, cx, prologue);
}

/// `ag__.ld(lambda: name, 'name')`: a read that may find `name` unbound.
fn ld(name: &str, cx: &FunctionContext) -> Expr {
    ast_build::call(cx.op("ld"), vec![thunk(ast_build::name(name)), string(name)])
}

struct Loads<'a, 'n> {
    cx: &'a FunctionContext<'n>,
    in_thunk: Cell<bool>,
}

impl Loads<'_, '_> {
    fn nested(&self, thunk: bool, f: impl FnOnce()) {
        let saved = self.in_thunk.replace(thunk);
        f();
        self.in_thunk.set(saved);
    }
}

impl Transformer for Loads<'_, '_> {
    fn visit_stmt(&self, stmt: &mut Stmt) {
        match stmt {
            Stmt::FunctionDef(f) if self.cx.namer.is_generated(f.name.as_str()) => {
                self.nested(true, || self.visit_body(&mut f.body));
            }
            Stmt::FunctionDef(_) | Stmt::ClassDef(_) => {}
            _ => walk_stmt(self, stmt),
        }
    }

    fn visit_expr(&self, expr: &mut Expr) {
        match expr {
            Expr::Name(n) if n.ctx == ExprContext::Load => {
                if self.in_thunk.get() && self.cx.unbound.contains(&n.range) {
                    let id = n.id.to_string();
                    *expr = ld(&id, self.cx);
                }
            }
            Expr::Lambda(l) if ast_build::is_generated_lambda(l) => {
                self.nested(true, || self.visit_expr(&mut l.body));
            }
            Expr::Lambda(_) => {}
            Expr::ListComp(ast::ExprListComp { generators, .. })
            | Expr::SetComp(ast::ExprSetComp { generators, .. })
            | Expr::Generator(ast::ExprGenerator { generators, .. })
            | Expr::DictComp(ast::ExprDictComp { generators, .. }) => {
                if let Some(g) = generators.first_mut() {
                    self.visit_expr(&mut g.iter);
                }
            }
            _ => walk_expr(self, expr),
        }
    }
}

/// Statements that read a possibly unbound local before anything else:
/// `del a, b` → `ag__.ld(lambda: a, 'a'); del a; ...` (anywhere, see the
/// module doc) and, in generated functions, `x += v` → `ag__.ld(lambda: x,
/// 'x'); x += v`.
fn statement_checks(body: &mut Vec<Stmt>, cx: &FunctionContext, in_thunk: bool) {
    let mut out = Vec::with_capacity(body.len());
    for mut stmt in std::mem::take(body) {
        match &mut stmt {
            Stmt::FunctionDef(f) if cx.namer.is_generated(f.name.as_str()) => {
                let mut b: Vec<Stmt> = std::mem::take(&mut f.body).into_iter().collect();
                statement_checks(&mut b, cx, true);
                f.body = b.into_iter().collect();
            }
            Stmt::AugAssign(a) if in_thunk && matches!(&*a.target, Expr::Name(n) if cx.unbound.contains(&n.range)) => {
                if let Expr::Name(n) = &*a.target {
                    out.push(ast_build::stmt("X", a.range, vec![("X", Sub::Expr(ld(n.id.as_str(), cx)))]));
                }
            }
            Stmt::Delete(d) if d.targets.iter().any(|t| needs_check(t, cx)) => {
                let range = d.range;
                for t in std::mem::take(&mut d.targets) {
                    if let (true, Expr::Name(n)) = (needs_check(&t, cx), &t) {
                        out.push(ast_build::stmt("X", range, vec![("X", Sub::Expr(ld(n.id.as_str(), cx)))]));
                    }
                    out.push(Stmt::Delete(ast::StmtDelete { node_index: Default::default(), range, targets: vec![t] }));
                }
                continue;
            }
            _ => blocks::for_each_block_vec(&mut stmt, &mut |b| statement_checks(b, cx, in_thunk)),
        }
        out.push(stmt);
    }
    *body = out;
}

fn needs_check(t: &Expr, cx: &FunctionContext) -> bool {
    matches!(t, Expr::Name(n) if cx.unbound.contains(&n.range) && !cx.scope.is_cell(n.id.as_str()))
}

/// Declares the locals that generated functions bind through `nonlocal`
/// but `f` itself no longer binds.
fn declare(body: &mut Vec<Stmt>, cx: &FunctionContext, prologue: usize) {
    let mut wanted = Names::new();
    collect_nonlocals(body, cx, &mut wanted);
    if wanted.is_empty() {
        return;
    }
    let own = Activity::bound_by(body);
    let decls: Vec<Stmt> = wanted
        .into_iter()
        .filter(|n| !own.contains(n) && !cx.scope.params.contains(n) && !cx.scope.nonlocals.contains(n) && !cx.scope.globals.contains(n))
        .map(|n| {
            let origin = body.get(prologue).map(|s| s.range()).unwrap_or_default();
            let mut d = ast_build::stmt("X: T", origin, vec![("X", Sub::Name(n.to_string())), ("T", Sub::Expr(cx.op("Undefined")))]);
            if let Stmt::AnnAssign(a) = &mut d {
                if let Expr::Name(t) = &mut *a.target {
                    t.ctx = ExprContext::Store;
                }
            }
            d
        })
        .collect();
    let at = prologue.min(body.len());
    body.splice(at..at, decls);
}

fn collect_nonlocals(body: &[Stmt], cx: &FunctionContext, out: &mut Names) {
    for s in body {
        match s {
            Stmt::FunctionDef(f) if cx.namer.is_generated(f.name.as_str()) => {
                for inner in &f.body {
                    if let Stmt::Nonlocal(n) = inner {
                        out.extend(n.names.iter().map(|n| n.id.clone()));
                    }
                }
                collect_nonlocals(&f.body, cx, out);
            }
            _ => {
                for b in blocks::blocks(s) {
                    collect_nonlocals(b, cx, out);
                }
            }
        }
    }
}
