//! Statement reductions: delete statements (chunks of a statement list,
//! halving down to single statements, as ddmin does), replace a compound
//! statement by one of its bodies, drop `elif`/`else`/`except`/`finally`
//! clauses, `case`s of a `match` (and names of a `global`/`nonlocal`), simplify assignments:
//! `x = f()` → `f()`, and `a, b = x, y` → one assignment per name (which
//! deletion can then take one at a time).

use super::tree::{bodies, body_mut, child_bodies, pass, replace, statements};
use super::Pass;
use stagecheck_transformer::syntax::ast::{Expr, Stmt, StmtAssign, StmtExpr, Suite};

pub const DELETE: Pass = Pass { name: "delete statements", sites: |t| delete_sites(t).len(), candidates: delete };
pub const FLATTEN: Pass = Pass { name: "flatten blocks", sites: |t| flatten_sites(t).len(), candidates: flatten };
pub const CLAUSES: Pass = Pass { name: "drop clauses", sites: |t| clause_sites(t).len(), candidates: drop_clause };
pub const ASSIGNMENTS: Pass = Pass { name: "simplify assignments", sites: |t| assign_sites(t).len(), candidates: simplify_assignment };

/// `(body, start, length)`: in each statement list, the whole list, then
/// halves, quarters, ... down to single statements.
fn delete_sites(tree: &Suite) -> Vec<(usize, usize, usize)> {
    let mut out = Vec::new();
    for (b, body) in bodies(tree).iter().enumerate() {
        let n = body.len();
        let mut size = n;
        while size > 0 {
            out.extend((0..n).step_by(size).map(|start| (b, start, size)));
            size = if size == 1 { 0 } else { size.div_ceil(2).min(size - 1) };
        }
    }
    out
}

fn delete(tree: &Suite, site: usize) -> Vec<Suite> {
    let Some(&(b, start, size)) = delete_sites(tree).get(site) else { return vec![] };
    let mut t = tree.clone();
    let body = body_mut(&mut t, b).expect("site from this tree");
    body.drain(start..(start + size).min(body.len()));
    if body.is_empty() && b > 0 {
        body.push(pass());
    }
    vec![t]
}

/// `(body, statement, child body)` for every body of every compound statement.
fn flatten_sites(tree: &Suite) -> Vec<(usize, usize, usize)> {
    let all = bodies(tree);
    statements(tree).into_iter().flat_map(|(b, i)| (0..child_bodies(&all[b][i]).len()).map(move |c| (b, i, c))).collect()
}

fn flatten(tree: &Suite, site: usize) -> Vec<Suite> {
    let Some(&(b, i, c)) = flatten_sites(tree).get(site) else { return vec![] };
    let mut t = tree.clone();
    let body = body_mut(&mut t, b).expect("site from this tree");
    let inner: Vec<Stmt> = child_bodies(&body[i])[c].iter().cloned().collect();
    replace(body, i, inner);
    vec![t]
}

/// How many clauses statement `s` can lose: each `elif`/`else` of an `if`,
/// a loop's `else`, each handler and the `else` and `finally` of a `try`,
/// each name of a `global` or `nonlocal` naming several, each `case` of a
/// `match` holding several.
fn clauses(s: &Stmt) -> usize {
    match s {
        Stmt::Match(m) if m.cases.len() > 1 => m.cases.len(),
        Stmt::Global(g) if g.names.len() > 1 => g.names.len(),
        Stmt::Nonlocal(n) if n.names.len() > 1 => n.names.len(),
        Stmt::If(i) => i.elif_else_clauses.len(),
        Stmt::For(f) => usize::from(!f.orelse.is_empty()),
        Stmt::While(w) => usize::from(!w.orelse.is_empty()),
        Stmt::Try(t) => t.handlers.len() + 2,
        _ => 0,
    }
}

fn clause_sites(tree: &Suite) -> Vec<(usize, usize, usize)> {
    let all = bodies(tree);
    statements(tree).into_iter().flat_map(|(b, i)| (0..clauses(&all[b][i])).map(move |j| (b, i, j))).collect()
}

/// A `try` left with neither handler nor `finally` does not parse: the
/// driver drops such candidates.
fn drop_clause(tree: &Suite, site: usize) -> Vec<Suite> {
    let Some(&(b, i, j)) = clause_sites(tree).get(site) else { return vec![] };
    let mut t = tree.clone();
    let body = body_mut(&mut t, b).expect("site from this tree");
    match &mut body[i] {
        Stmt::If(s) => {
            s.elif_else_clauses.remove(j);
        }
        Stmt::For(s) => s.orelse.clear(),
        Stmt::While(s) => s.orelse.clear(),
        Stmt::Try(s) if j < s.handlers.len() => {
            s.handlers.remove(j);
        }
        Stmt::Try(s) if j == s.handlers.len() => s.orelse.clear(),
        Stmt::Try(s) => s.finalbody.clear(),
        Stmt::Global(s) => {
            s.names.remove(j);
        }
        Stmt::Nonlocal(s) => {
            s.names.remove(j);
        }
        Stmt::Match(s) => {
            s.cases.remove(j);
        }
        _ => return vec![],
    }
    vec![t]
}

/// The targets and values of `a, b = x, y` (as many of each, none starred).
fn pairs(s: &Stmt) -> Option<(&[Expr], &[Expr])> {
    let Stmt::Assign(StmtAssign { targets, value, .. }) = s else { return None };
    let [target] = &targets[..] else { return None };
    let (ts, vs) = match (target, &**value) {
        (Expr::Tuple(t), Expr::Tuple(v)) => (&t.elts[..], &v.elts[..]),
        (Expr::Tuple(t), Expr::List(v)) => (&t.elts[..], &v.elts[..]),
        (Expr::List(t), Expr::Tuple(v)) => (&t.elts[..], &v.elts[..]),
        (Expr::List(t), Expr::List(v)) => (&t.elts[..], &v.elts[..]),
        _ => return None,
    };
    let starred = |es: &[Expr]| es.iter().any(|e| e.is_starred_expr());
    (ts.len() == vs.len() && !starred(ts) && !starred(vs)).then_some((ts, vs))
}

fn assign_sites(tree: &Suite) -> Vec<(usize, usize)> {
    let all = bodies(tree);
    statements(tree).into_iter().filter(|&(b, i)| matches!(all[b][i], Stmt::Assign(_))).collect()
}

/// The assignment's value alone, then (for `a, b = x, y`) one assignment per name.
fn simplify_assignment(tree: &Suite, site: usize) -> Vec<Suite> {
    let Some(&(b, i)) = assign_sites(tree).get(site) else { return vec![] };
    let Stmt::Assign(assign) = &bodies(tree)[b][i] else { return vec![] };
    let value = Stmt::Expr(StmtExpr { node_index: assign.node_index.clone(), range: assign.range, value: assign.value.clone() });
    let mut candidates = vec![vec![value]];
    if let Some((targets, values)) = pairs(&bodies(tree)[b][i]) {
        let single =
            |(t, v): (&Expr, &Expr)| Stmt::Assign(StmtAssign { targets: vec![t.clone()], value: Box::new(v.clone()), ..assign.clone() });
        candidates.push(targets.iter().zip(values).map(single).collect());
    }
    candidates
        .into_iter()
        .map(|stmts| {
            let mut t = tree.clone();
            replace(body_mut(&mut t, b).expect("site from this tree"), i, stmts);
            t
        })
        .collect()
}
