//! Parameter reductions: drop parameter `i` of a function and the `i`-th
//! positional argument of every call of it by name (`f(a, b)` with
//! `def f(x, y)` → `f(a)` with `def f(x)`). Functions are matched by name,
//! module-wide; calls through attributes (methods) are left alone, and the
//! predicate drops what that breaks.

use super::tree::{bodies, statements};
use super::Pass;
use stagecheck_transformer::syntax::ast::visitor::transformer::{walk_expr, walk_stmt, Transformer};
use stagecheck_transformer::syntax::ast::{Expr, Stmt, Suite};

pub const PARAMETERS: Pass = Pass { name: "drop parameters", sites: |t| sites(t).len(), candidates: drop_parameter };

/// `(function, parameter index)` for every positional parameter of every `def`.
fn sites(tree: &Suite) -> Vec<(String, usize)> {
    let all = bodies(tree);
    statements(tree)
        .into_iter()
        .filter_map(|(b, i)| match &all[b][i] {
            Stmt::FunctionDef(f) => Some((f.name.id.to_string(), f.parameters.args.len())),
            _ => None,
        })
        .flat_map(|(name, n)| (0..n).rev().map(move |i| (name.clone(), i)))
        .collect()
}

struct Drop<'a>(&'a str, usize);

impl Transformer for Drop<'_> {
    fn visit_stmt(&self, s: &mut Stmt) {
        if let Stmt::FunctionDef(f) = s {
            if f.name.id.as_str() == self.0 && self.1 < f.parameters.args.len() {
                f.parameters.args.remove(self.1);
            }
        }
        walk_stmt(self, s);
    }
    fn visit_expr(&self, e: &mut Expr) {
        if let Expr::Call(call) = e {
            let args = &call.arguments.args;
            let by_name = matches!(&*call.func, Expr::Name(n) if n.id.as_str() == self.0);
            if by_name && self.1 < args.len() && !args[..=self.1].iter().any(Expr::is_starred_expr) {
                let mut v = args.to_vec();
                v.remove(self.1);
                call.arguments.args = v.into();
            }
        }
        walk_expr(self, e);
    }
}

fn drop_parameter(tree: &Suite, site: usize) -> Vec<Suite> {
    let Some((name, i)) = sites(tree).into_iter().nth(site) else { return vec![] };
    let mut t = tree.clone();
    let drop = Drop(&name, i);
    for s in t.iter_mut() {
        drop.visit_stmt(s);
    }
    vec![t]
}
