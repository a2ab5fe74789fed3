//! Pass 9, `a if cond else b` → `ag__.if_exp(cond, lambda: a, lambda: b, 'cond')`.

use super::expressions::{self, thunkable};
use crate::ast_build::{self, string, thunk, Sub};
use crate::context::FunctionContext;
use ruff_python_ast::{Expr, Stmt};

pub fn run(body: &mut [Stmt], cx: &FunctionContext) {
    expressions::rewrite_thunking(body, &|e| {
        let Expr::If(i) = e else { return };
        if !thunkable(&i.body) || !thunkable(&i.orelse) {
            return;
        }
        let take = |x: &mut Expr| std::mem::replace(x, ast_build::none());
        let repr = crate::unparse::expr_source(&i.test);
        *e = ast_build::expr(
            "OP(COND, A, B, REPR)",
            vec![
                ("OP", Sub::Expr(cx.op("if_exp"))),
                ("COND", Sub::Expr(take(&mut i.test))),
                ("A", Sub::Expr(thunk(take(&mut i.body)))),
                ("B", Sub::Expr(thunk(take(&mut i.orelse)))),
                ("REPR", Sub::Expr(string(&repr))),
            ],
        );
    });
}
