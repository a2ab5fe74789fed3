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
        live = live_before(stmt, &live);
    }
    live
}

fn live_before(stmt: &Stmt, after: &Names) -> Names {
    match stmt {
        Stmt::Return(_) | Stmt::Raise(_) => Activity::of_stmt(stmt).uses(),
        Stmt::If(i) => {
            let mut live = Activity::of_expr(&i.test).uses();
            live.extend(live_in(&i.body, after));
            let mut has_else = false;
            for c in &i.elif_else_clauses {
                if let Some(t) = &c.test {
                    live.extend(Activity::of_expr(t).uses());
                } else {
                    has_else = true;
                }
                live.extend(live_in(&c.body, after));
            }
            if !has_else {
                live.extend(after.iter().cloned());
            }
            live
        }
        Stmt::Assign(_) | Stmt::AugAssign(_) | Stmt::AnnAssign(_) | Stmt::Expr(_) | Stmt::Delete(_)
        | Stmt::Import(_) | Stmt::ImportFrom(_) | Stmt::FunctionDef(_) | Stmt::ClassDef(_) | Stmt::Pass(_) => {
            let a = Activity::of_stmt(stmt);
            let mut live: Names = after.difference(&a.bound).cloned().collect();
            live.extend(a.uses());
            live
        }
        // Loops, try, with, match and the rest: everything they read is live
        // before them, and nothing they bind is surely bound.
        _ => {
            let mut live = after.clone();
            live.extend(Activity::of_stmt(stmt).uses());
            live
        }
    }
}
