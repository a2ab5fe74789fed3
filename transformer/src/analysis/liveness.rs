//! Liveness: which names may be read after a point, before being rebound.
//!
//! Used to pick the state of a staged statement (AutoGraph's loop variables
//! and if outputs): the names it modifies that are live after it. Backward
//! over straight-line code; compound statements are over-approximated (a
//! name read anywhere in a loop is live throughout it), which may only add
//! state, never lose it. `if` statements are followed branch by branch, and
//! their branches' liveness is kept ([`Live::branches`]), so that control
//! flow, which converts them outermost first, never computes it twice.

use super::activity::Activity;
use super::Names;
use ruff_python_ast::{self as ast, Stmt};

/// A statement's liveness.
#[derive(Clone, Debug, Default)]
pub struct Live {
    /// The names live after it.
    pub out: Names,
    /// What it reads, nested scopes included (not computed for an `if`).
    pub uses: Names,
    /// For an `if`: the liveness of each branch, the body first, then each
    /// `elif`/`else` clause in order.
    pub branches: Vec<Vec<Live>>,
}

/// The names live before `body`, given those live after it, and each of
/// its statements' liveness.
pub fn block(body: &[Stmt], live_out: &Names) -> (Names, Vec<Live>) {
    let mut lives = Vec::with_capacity(body.len());
    let mut live = live_out.clone();
    for stmt in body.iter().rev() {
        let out = live;
        let (before, uses, branches) = match stmt {
            Stmt::If(i) => {
                let (before, branches) = if_stmt(i, &out);
                (before, Names::new(), branches)
            }
            _ => {
                let a = Activity::of_stmt(stmt);
                (live_before(stmt, &a, &out), a.uses(), Vec::new())
            }
        };
        live = before;
        lives.push(Live { out, uses, branches });
    }
    lives.reverse();
    (live, lives)
}

fn if_stmt(i: &ast::StmtIf, after: &Names) -> (Names, Vec<Vec<Live>>) {
    let mut live = Activity::of_expr(&i.test).uses();
    let (body_in, body) = block(&i.body, after);
    live.extend_from(&body_in);
    let mut branches = vec![body];
    let mut has_else = false;
    for c in &i.elif_else_clauses {
        match &c.test {
            Some(t) => live.extend_from(&Activity::of_expr(t).uses()),
            None => has_else = true,
        }
        let (clause_in, clause) = block(&c.body, after);
        live.extend_from(&clause_in);
        branches.push(clause);
    }
    if !has_else {
        live.extend_from(after);
    }
    (live, branches)
}

/// Names live before `stmt` (not an `if`), given those live after it and
/// its activity `a`.
fn live_before(stmt: &Stmt, a: &Activity, after: &Names) -> Names {
    match stmt {
        Stmt::Return(_) | Stmt::Raise(_) => a.uses(),
        Stmt::Assign(_)
        | Stmt::AugAssign(_)
        | Stmt::AnnAssign(_)
        | Stmt::Expr(_)
        | Stmt::Delete(_)
        | Stmt::Import(_)
        | Stmt::ImportFrom(_)
        | Stmt::FunctionDef(_)
        | Stmt::ClassDef(_)
        | Stmt::Pass(_) => {
            let mut live: Names = after.difference(&a.bound).cloned().collect();
            if !crate::planted::active("liveness_assign_reads_lost") {
                live.extend_from(&a.uses());
            }
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
