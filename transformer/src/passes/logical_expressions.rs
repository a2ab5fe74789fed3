//! Pass 9, logical expressions: `a and b` → `ag__.and_(lambda: a, lambda:
//! b)`, `or` likewise, `not a` → `ag__.not_(a)`, and chained comparisons
//! `a < b < c` → `ag__.compare(a, '<', lambda: b, '<', lambda: c)`: every
//! operand evaluated at most once, lazily, in order.

use super::expressions::{self, thunkable};
use crate::ast_build::{self, string, thunk, Sub};
use crate::context::FunctionContext;
use ruff_python_ast::{BoolOp, Expr, Stmt, UnaryOp};

fn take(x: &mut Expr) -> Expr {
    std::mem::replace(x, ast_build::expr("None", vec![]))
}

fn call(op: Expr, args: Vec<Expr>) -> Expr {
    let mut c = ast_build::expr("OP()", vec![("OP", Sub::Expr(op))]);
    if let Expr::Call(call) = &mut c {
        call.arguments.args = args.into_boxed_slice();
    }
    c
}

pub fn run(body: &mut [Stmt], cx: &FunctionContext) {
    expressions::rewrite(body, &|e| match e {
        Expr::BoolOp(b) if b.values.iter().all(thunkable) => {
            let op = cx.op(if b.op == BoolOp::And { "and_" } else { "or_" });
            *e = call(op, b.values.iter_mut().map(|v| thunk(take(v))).collect());
        }
        Expr::UnaryOp(u) if u.op == UnaryOp::Not => {
            *e = call(cx.op("not_"), vec![take(&mut u.operand)]);
        }
        Expr::Compare(c) if c.ops.len() > 1 && c.comparators.iter().all(thunkable) => {
            let mut args = vec![take(&mut c.left)];
            for (op, right) in c.ops.iter().zip(c.comparators.iter_mut()) {
                args.push(string(op.as_str()));
                args.push(thunk(take(right)));
            }
            *e = call(cx.op("compare"), args);
        }
        _ => {}
    });
}
