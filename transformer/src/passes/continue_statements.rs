//! Pass 5, `continue`: lowered to a flag reset at the top of every iteration
//! (AutoGraph's continue_statements); code after a statement that may have
//! set it runs under `if not continue_:`.

use super::exits;
use crate::blocks;
use crate::context::FunctionContext;
use ruff_python_ast::Stmt;
use ruff_text_size::Ranged;

pub fn run(body: &mut Vec<Stmt>, cx: &mut FunctionContext) {
    for stmt in body.iter_mut() {
        blocks::for_each_block_vec(stmt, &mut |b| run(b, cx));
        let range = stmt.range();
        let loop_body = match stmt {
            Stmt::While(w) => &mut w.body,
            Stmt::For(f) => &mut f.body,
            _ => continue,
        };
        if !blocks::any_stmt_outside_loops(loop_body, &mut |s| matches!(s, Stmt::Continue(_))) {
            continue;
        }
        let flag = cx.namer.new_name("continue_");
        exits::lower_loop_exits(loop_body, &|s| matches!(s, Stmt::Continue(_)), &flag);
        loop_body.splice(0..0, exits::reset(&flag, None, range));
    }
}
