//! Pass 7, subscripts: `x[i]` → `ag__.get_item(x, i)` and `x[i] = v` →
//! `ag__.set_item(value=v, target=x, key=i)` (keywords in Python's
//! evaluation order: the value first). Slices (`x[a:b]`), augmented and
//! multiple-target assignments stay as written.

use super::expressions;
use crate::ast_build::{self, Sub};
use crate::blocks;
use crate::context::FunctionContext;
use ruff_python_ast::{self as ast, Expr, ExprContext, Stmt};

fn has_slice(e: &Expr) -> bool {
    match e {
        Expr::Slice(_) => true,
        Expr::Tuple(t) => t.elts.iter().any(has_slice),
        Expr::Starred(_) => true,
        _ => false,
    }
}

pub fn run(body: &mut Vec<Stmt>, cx: &FunctionContext) {
    expressions::rewrite(body, &|e| {
        let Expr::Subscript(s) = e else { return };
        if s.ctx != ExprContext::Load || has_slice(&s.slice) {
            return;
        }
        let value = std::mem::replace(&mut *s.value, ast_build::none());
        let slice = std::mem::replace(&mut *s.slice, ast_build::none());
        *e = ast_build::expr("OP(X, I)", vec![("OP", Sub::Expr(cx.op("get_item"))), ("X", Sub::Expr(value)), ("I", Sub::Expr(slice))]);
    });
    stores(body, cx);
}

fn stores(body: &mut Vec<Stmt>, cx: &FunctionContext) {
    for stmt in body.iter_mut() {
        blocks::for_each_block_vec(stmt, &mut |b| stores(b, cx));
        let Stmt::Assign(a) = stmt else { continue };
        let [Expr::Subscript(ast::ExprSubscript { slice, .. })] = &a.targets[..] else { continue };
        if has_slice(slice) {
            continue;
        }
        let range = a.range;
        let Some(Expr::Subscript(target)) = a.targets.pop() else { unreachable!() };
        let value = std::mem::replace(&mut *a.value, ast_build::none());
        *stmt = ast_build::stmt(
            "OP(value=V, target=X, key=I)",
            range,
            vec![
                ("OP", Sub::Expr(cx.op("set_item"))),
                ("V", Sub::Expr(value)),
                ("X", Sub::Expr(*target.value)),
                ("I", Sub::Expr(*target.slice)),
            ],
        );
    }
}
