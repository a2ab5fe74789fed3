//! Blocks the statement passes leave as written: a `finally` that holds a
//! def, lambda or comprehension of the user's (RustPython cannot compile the
//! nested functions conversion would add there: see
//! `expressions::rewrite_thunking`). Its loops keep their own `break` and
//! `continue`, its `if`s stay statements.

use super::expressions::has_user_scope;
use crate::context::FunctionContext;
use ruff_python_ast::Stmt;

/// Whether `stmt` is a `try` whose `finally` is kept as written.
pub fn keeps_finally(stmt: &Stmt, cx: &FunctionContext) -> bool {
    matches!(stmt, Stmt::Try(t) if has_user_scope(&t.finalbody, &|n| cx.namer.is_generated(n)))
}

/// `blocks::for_each_block_vec`, leaving out the `finally` block when `keep`.
pub fn for_each_converted_block_vec(stmt: &mut Stmt, keep: bool, f: &mut dyn FnMut(&mut Vec<Stmt>)) {
    let kept = match stmt {
        Stmt::Try(t) if keep => Some(std::mem::take(&mut t.finalbody)),
        _ => None,
    };
    crate::blocks::for_each_block_vec(stmt, f);
    if let (Stmt::Try(t), Some(finalbody)) = (stmt, kept) {
        t.finalbody = finalbody;
    }
}
