//! Pass 8, calls: `f(args)` → `ag__.converted_call(f)(args)`.
//!
//! AutoGraph passes the arguments to `converted_call`; here it only resolves
//! the callee (overloads of builtins, staged implementations), and the call
//! stays an ordinary Python call, so argument evaluation order, binding and
//! every error message are Python's own. Calls the converter generated
//! (`ag__.*`) are left alone.

use super::expressions;
use crate::ast_build;
use crate::context::FunctionContext;
use ruff_python_ast::{Expr, Stmt};

pub fn run(body: &mut [Stmt], cx: &FunctionContext) {
    expressions::rewrite(body, &|e| {
        let Expr::Call(c) = e else { return };
        if cx.is_op(&c.func) {
            return;
        }
        let func = std::mem::replace(&mut *c.func, ast_build::none());
        *c.func = ast_build::call(cx.op("converted_call"), vec![func]);
    });
}
