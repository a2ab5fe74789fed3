//! The statement lists (blocks) nested in a statement, in source order.
//!
//! "Blocks" here are the bodies that belong to the same scope as the
//! statement: if/elif/else, loop bodies and else clauses, with, try clauses
//! and handlers, match cases. Function and class bodies are other scopes and
//! are never visited by these helpers: passes of a function must not reach
//! into the functions nested in it (those are converted on their own).

use ruff_python_ast::{self as ast, Stmt};
use thin_vec::ThinVec;

/// Calls `f` on each block of `stmt` that is in the same scope.
pub fn for_each_block(stmt: &mut Stmt, f: &mut dyn FnMut(&mut ThinVec<Stmt>)) {
    match stmt {
        Stmt::If(s) => {
            f(&mut s.body);
            for clause in &mut s.elif_else_clauses {
                f(&mut clause.body);
            }
        }
        Stmt::While(s) => {
            f(&mut s.body);
            f(&mut s.orelse);
        }
        Stmt::For(s) => {
            f(&mut s.body);
            f(&mut s.orelse);
        }
        Stmt::With(s) => f(&mut s.body),
        Stmt::Try(s) => {
            f(&mut s.body);
            for ast::ExceptHandler::ExceptHandler(h) in &mut s.handlers {
                f(&mut h.body);
            }
            f(&mut s.orelse);
            f(&mut s.finalbody);
        }
        Stmt::Match(s) => {
            for case in &mut s.cases {
                f(&mut case.body);
            }
        }
        _ => {}
    }
}

/// [`for_each_block`] for code that works on `Vec`s (templates).
pub fn for_each_block_vec(stmt: &mut Stmt, f: &mut dyn FnMut(&mut Vec<Stmt>)) {
    for_each_block(stmt, &mut |b| {
        let mut v: Vec<Stmt> = std::mem::take(b).into_iter().collect();
        f(&mut v);
        *b = v.into_iter().collect();
    });
}

/// Read-only blocks of `stmt` in the same scope.
pub fn blocks(stmt: &Stmt) -> Vec<&[Stmt]> {
    match stmt {
        Stmt::If(s) => {
            let mut v: Vec<&[Stmt]> = vec![&s.body];
            v.extend(s.elif_else_clauses.iter().map(|c| &c.body[..]));
            v
        }
        Stmt::While(s) => vec![&s.body, &s.orelse],
        Stmt::For(s) => vec![&s.body, &s.orelse],
        Stmt::With(s) => vec![&s.body],
        Stmt::Try(s) => {
            let mut v: Vec<&[Stmt]> = vec![&s.body];
            v.extend(s.handlers.iter().map(|ast::ExceptHandler::ExceptHandler(h)| &h.body[..]));
            v.push(&s.orelse);
            v.push(&s.finalbody);
            v
        }
        Stmt::Match(s) => s.cases.iter().map(|c| &c.body[..]).collect(),
        _ => vec![],
    }
}

/// True when `pred` holds for a statement in `body` or nested in its blocks
/// (same scope only).
pub fn any_stmt(body: &[Stmt], pred: &mut dyn FnMut(&Stmt) -> bool) -> bool {
    body.iter().any(|s| pred(s) || blocks(s).into_iter().any(|b| any_stmt(b, pred)))
}

/// Like [`any_stmt`], but not looking into nested loops: what a `break` or
/// `continue` in `body` would leave is the loop owning `body`.
pub fn any_stmt_outside_loops(body: &[Stmt], pred: &mut dyn FnMut(&Stmt) -> bool) -> bool {
    body.iter()
        .any(|s| pred(s) || (!matches!(s, Stmt::While(_) | Stmt::For(_)) && blocks(s).into_iter().any(|b| any_stmt_outside_loops(b, pred))))
}
