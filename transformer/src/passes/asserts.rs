//! Pass 4, `assert test, msg` → `ag__.assert_stmt(test, lambda: msg)`: the
//! message is evaluated only when the assertion fails, as in Python.

use super::expressions::thunkable;
use crate::ast_build::{self, thunk, Sub};
use crate::blocks;
use crate::context::FunctionContext;
use ruff_python_ast::Stmt;

pub fn run(body: &mut Vec<Stmt>, cx: &FunctionContext) {
    for stmt in body.iter_mut() {
        blocks::for_each_block_vec(stmt, &mut |b| run(b, cx));
        let Stmt::Assert(a) = stmt else { continue };
        if a.msg.as_deref().is_some_and(|m| !thunkable(m)) {
            continue;
        }
        let test = std::mem::replace(&mut *a.test, ast_build::none());
        let range = a.range;
        *stmt = match a.msg.take() {
            Some(msg) => ast_build::stmt(
                "OP(TEST, MSG)",
                range,
                vec![("OP", Sub::Expr(cx.op("assert_stmt"))), ("TEST", Sub::Expr(test)), ("MSG", Sub::Expr(thunk(*msg)))],
            ),
            None => ast_build::stmt("OP(TEST)", range, vec![("OP", Sub::Expr(cx.op("assert_stmt"))), ("TEST", Sub::Expr(test))]),
        };
    }
}
