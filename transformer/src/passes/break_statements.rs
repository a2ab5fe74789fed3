//! Pass 3, `break`: lowered to a flag (AutoGraph's break_statements).
//!
//! ```text
//! while test:          break_ = False
//!     if c:            while not break_ and test:     (extra test, checked first:
//!         break            if c:                        `test` is not evaluated
//!     more()                   break_ = True            again after a break)
//! else:                    if not break_:
//!     done()                   more()
//!                      if not break_:
//!                          done()
//! ```
//! Loops are visited innermost first, so an inner loop's `else` clause has
//! been moved out (it belongs to the outer loop's body) before the outer
//! loop's breaks are looked for. A loop without `break` gets its `else`
//! clause appended after it. A `for` loop's extra test is checked by
//! `ag__.for_stmt` before the next item is taken, as Python's `break` does.

use super::exits;
use crate::blocks;
use crate::context::FunctionContext;
use ruff_python_ast::Stmt;
use ruff_text_size::Ranged;

pub fn run(body: &mut Vec<Stmt>, cx: &mut FunctionContext) {
    let mut out = Vec::with_capacity(body.len());
    for mut stmt in std::mem::take(body) {
        blocks::for_each_block_vec(&mut stmt, &mut |b| run(b, cx));
        match stmt {
            Stmt::While(_) | Stmt::For(_) => lower_loop(stmt, cx, &mut out),
            other => out.push(other),
        }
    }
    *body = out;
}

fn lower_loop(mut stmt: Stmt, cx: &mut FunctionContext, out: &mut Vec<Stmt>) {
    let range = stmt.range();
    let (loop_body, orelse) = match &mut stmt {
        Stmt::While(w) => (&mut w.body, std::mem::take(&mut w.orelse)),
        Stmt::For(f) => (&mut f.body, std::mem::take(&mut f.orelse)),
        _ => unreachable!(),
    };
    let orelse: Vec<Stmt> = orelse.into_iter().collect();
    let has_break = blocks::any_stmt_outside_loops(loop_body, &mut |s| matches!(s, Stmt::Break(_)));
    if !has_break {
        out.push(stmt);
        out.extend(orelse);
        return;
    }
    if crate::planted::active("converter_panic") {
        // Planted: a loop with a break is assumed to have an `else`.
        let _ = orelse.first().expect("a loop with a break has an else");
    }
    let flag = cx.namer.new_name("break_");
    exits::lower_loop_exits(loop_body, &|s| matches!(s, Stmt::Break(_)), &flag);
    cx.extra_tests.entry(range).or_default().push(flag.clone());
    out.extend(exits::reset(&flag, None, range));
    out.push(stmt);
    if crate::planted::active("for_else_after_break") {
        out.extend(orelse);
    } else if !orelse.is_empty() {
        out.push(exits::guard(&flag, orelse, range));
    }
}
