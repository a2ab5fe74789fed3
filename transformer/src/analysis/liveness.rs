//! Liveness: which names may be read after a point, before being rebound.
//!
//! Used to pick the state of a staged statement (AutoGraph's loop variables
//! and if outputs): the names it modifies that are live after it. Backward
//! over straight-line code; compound statements are over-approximated (a
//! name read anywhere in a loop is live throughout it), which may only add
//! state, never lose it.

use super::activity::Activity;
use super::Names;
use ruff_python_ast::Stmt;

/// Names live before `body`, given those live after it.
pub fn live_in(body: &[Stmt], live_out: &Names) -> Names {
    let mut live = live_out.clone();
    for stmt in body.iter().rev() {
        live = live_before(stmt, &activity(stmt), &live);
    }
    live
}

/// What [`live_before`] needs of `stmt`'s activity: none for an `if`,
/// whose branches it follows one by one.
pub fn activity(stmt: &Stmt) -> Activity {
    match stmt {
        Stmt::If(_) => Activity::default(),
        _ => Activity::of_stmt(stmt),
    }
}

/// Names live before `stmt`, given those live after it; `a` is
/// [`activity`]`(stmt)`, which callers that need it too compute once.
pub fn live_before(stmt: &Stmt, a: &Activity, after: &Names) -> Names {
    match stmt {
        Stmt::Return(_) | Stmt::Raise(_) => a.uses(),
        Stmt::If(i) => {
            let mut live = Activity::of_expr(&i.test).uses();
            live.extend_from(&live_in(&i.body, after));
            let mut has_else = false;
            for c in &i.elif_else_clauses {
                if let Some(t) = &c.test {
                    live.extend_from(&Activity::of_expr(t).uses());
                } else {
                    has_else = true;
                }
                live.extend_from(&live_in(&c.body, after));
            }
            if !has_else {
                live.extend_from(after);
            }
            live
        }
        Stmt::Assign(_) | Stmt::AugAssign(_) | Stmt::AnnAssign(_) | Stmt::Expr(_) | Stmt::Delete(_)
        | Stmt::Import(_) | Stmt::ImportFrom(_) | Stmt::FunctionDef(_) | Stmt::ClassDef(_) | Stmt::Pass(_) => {
            let mut live: Names = after.difference(&a.bound).cloned().collect();
            live.extend_from(&a.uses());
            live
        }
        // Loops, try, with, match and the rest: everything they read is live
        // before them, and nothing they bind is surely bound.
        _ => {
            let mut live = after.clone();
            live.extend_from(&a.uses());
            live
        }
    }
}
