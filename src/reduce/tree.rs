//! Walking a module's statement lists: every pass numbers its sites in the
//! same pre-order (the module's body, then each statement's own bodies,
//! depth first), so a site found on one copy of the tree is the same site on
//! another.

use stagecheck_transformer::syntax::ast::visitor::{walk_expr, walk_stmt, Visitor};
use stagecheck_transformer::syntax::ast::{ExceptHandler, Expr, Stmt, Suite};

/// The statement lists directly inside `s`, in source order: a def's body,
/// a loop's body and `else`, an `if`'s body and each `elif`/`else`, a
/// `try`'s body, handlers, `else` and `finally`, each `case` of a `match`.
pub fn child_bodies(s: &Stmt) -> Vec<&Suite> {
    match s {
        Stmt::FunctionDef(f) => vec![&f.body],
        Stmt::ClassDef(c) => vec![&c.body],
        Stmt::For(f) => vec![&f.body, &f.orelse],
        Stmt::While(w) => vec![&w.body, &w.orelse],
        Stmt::If(i) => std::iter::once(&i.body).chain(i.elif_else_clauses.iter().map(|c| &c.body)).collect(),
        Stmt::With(w) => vec![&w.body],
        Stmt::Match(m) => m.cases.iter().map(|c| &c.body).collect(),
        Stmt::Try(t) => std::iter::once(&t.body)
            .chain(t.handlers.iter().map(|ExceptHandler::ExceptHandler(h)| &h.body))
            .chain([&t.orelse, &t.finalbody])
            .collect(),
        _ => vec![],
    }
    .into_iter()
    .filter(|b| !b.is_empty())
    .collect()
}

/// [`child_bodies`], mutable, in the same order.
pub fn child_bodies_mut(s: &mut Stmt) -> Vec<&mut Suite> {
    match s {
        Stmt::FunctionDef(f) => vec![&mut f.body],
        Stmt::ClassDef(c) => vec![&mut c.body],
        Stmt::For(f) => vec![&mut f.body, &mut f.orelse],
        Stmt::While(w) => vec![&mut w.body, &mut w.orelse],
        Stmt::If(i) => std::iter::once(&mut i.body).chain(i.elif_else_clauses.iter_mut().map(|c| &mut c.body)).collect(),
        Stmt::With(w) => vec![&mut w.body],
        Stmt::Match(m) => m.cases.iter_mut().map(|c| &mut c.body).collect(),
        Stmt::Try(t) => std::iter::once(&mut t.body)
            .chain(t.handlers.iter_mut().map(|ExceptHandler::ExceptHandler(h)| &mut h.body))
            .chain([&mut t.orelse, &mut t.finalbody])
            .collect(),
        _ => vec![],
    }
    .into_iter()
    .filter(|b| !b.is_empty())
    .collect()
}

/// Every statement list of the module, in pre-order (index 0: the module's).
pub fn bodies(tree: &Suite) -> Vec<&Suite> {
    fn walk<'a>(body: &'a Suite, out: &mut Vec<&'a Suite>) {
        out.push(body);
        for s in body {
            for c in child_bodies(s) {
                walk(c, out);
            }
        }
    }
    let mut out = Vec::new();
    walk(tree, &mut out);
    out
}

/// The statement list numbered `n` by [`bodies`].
pub fn body_mut(tree: &mut Suite, n: usize) -> Option<&mut Suite> {
    fn walk<'a>(body: &'a mut Suite, n: &mut usize) -> Option<&'a mut Suite> {
        if *n == 0 {
            return Some(body);
        }
        *n -= 1;
        for s in body.iter_mut() {
            for c in child_bodies_mut(s) {
                if let Some(b) = walk(c, n) {
                    return Some(b);
                }
            }
        }
        None
    }
    walk(tree, &mut { n })
}

/// A `pass` statement, for a body a reduction emptied.
pub fn pass() -> Stmt {
    stagecheck_transformer::syntax::parse("pass").expect("pass parses").remove(0)
}

/// Replaces statement `i` of `body` by `stmts`.
pub fn replace(body: &mut Suite, i: usize, stmts: Vec<Stmt>) {
    body.remove(i);
    for (k, s) in stmts.into_iter().enumerate() {
        body.insert(i + k, s);
    }
}

/// The statement `(body, index)` of every statement of the module, in pre-order of bodies.
pub fn statements(tree: &Suite) -> Vec<(usize, usize)> {
    bodies(tree).iter().enumerate().flat_map(|(b, body)| (0..body.len()).map(move |i| (b, i))).collect()
}

/// Statements and expressions in the tree: the reducer's first measure of size.
pub fn nodes(tree: &Suite) -> usize {
    struct Count(usize);
    impl<'a> Visitor<'a> for Count {
        fn visit_stmt(&mut self, s: &'a Stmt) {
            self.0 += 1;
            walk_stmt(self, s);
        }
        fn visit_expr(&mut self, e: &'a Expr) {
            self.0 += 1;
            walk_expr(self, e);
        }
    }
    let mut c = Count(0);
    c.visit_body(tree);
    c.0
}
