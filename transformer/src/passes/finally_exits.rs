//! Pass 2, exits inside `finally`: a `return`, `break` or `continue` that
//! leaves a `finally` block cancels what was in flight there (an exception,
//! or an earlier `return`, `break` or `continue` of the `try`) and takes its
//! own exit instead. The flags of passes 3, 5 and 6 cannot cancel an
//! exception, so this pass moves every such exit out of its `finally`
//! first; Python's own rule does the cancelling: an exception raised in a
//! `finally` replaces whatever was in flight.
//!
//! ```text
//! try:                       fin_exit = False
//!     T                      try:
//! finally:                       try:
//!     F1                             T
//!     if c:                      finally:
//!         return v                   F1
//!     F2                             if c:
//!                                        fin_value = v
//!                                        fin_exit = 1
//!                                    if not fin_exit:
//!                                        F2
//!                                    if fin_exit:
//!                                        raise BaseException
//!                            except BaseException:
//!                                if not fin_exit:
//!                                    raise
//!                            if fin_exit == 1:
//!                                return fin_value
//! ```
//! The exit becomes a flag inside the `finally` (code after it is skipped,
//! loops in the block stop, as in [`super::exits`]), and at the block's end
//! a raise cancels the exception or exit in flight: the other passes'
//! lowered exits undo themselves when their `finally` raises (`exits`'s
//! cancel). The raise is caught right outside the `try` (an exception
//! escapes it with the flag set only from there: a `finally` nested in the
//! block that raises after the exit resets the flag, as it cancels the
//! exit), and the exit is taken there, as an ordinary statement the later
//! passes lower. The raise sits at the block's top level, outside every
//! `with` and `except` of the user's. `try` statements are rewritten
//! innermost first, so an exit leaving several `finally` blocks moves out of
//! one at a time.

use super::exits::Exit;
use crate::ast_build::{self, Sub};
use crate::blocks;
use crate::context::FunctionContext;
use ruff_python_ast::{self as ast, Stmt};
use ruff_text_size::{Ranged, TextRange};
use rustc_hash::FxHashSet as HashSet;

/// The exits, in the order of the flag's values (1, 2, 3).
const KINDS: [fn(&Stmt) -> bool; 3] =
    [|s| matches!(s, Stmt::Return(_)), |s| matches!(s, Stmt::Break(_)), |s| matches!(s, Stmt::Continue(_))];

pub fn run(body: &mut Vec<Stmt>, cx: &mut FunctionContext) {
    let mut out = Vec::with_capacity(body.len());
    for mut stmt in std::mem::take(body) {
        blocks::for_each_block_vec(&mut stmt, &mut |b| run(b, cx));
        match stmt {
            Stmt::Try(t) => {
                let mut exits = Vec::new();
                leaving(&t.finalbody, false, &mut exits);
                if exits.is_empty() {
                    out.push(Stmt::Try(t));
                } else {
                    out.extend(move_out(t, &exits, cx));
                }
            }
            other => out.push(other),
        }
    }
    *body = out;
}

/// The exits in `block` that leave it: every `return`, and the `break`s and
/// `continue`s outside loops of the block.
fn leaving(block: &[Stmt], in_loop: bool, exits: &mut Vec<Stmt>) {
    for s in block {
        match s {
            Stmt::Return(_) => exits.push(s.clone()),
            Stmt::Break(_) | Stmt::Continue(_) if !in_loop => exits.push(s.clone()),
            _ => {
                let in_loop = in_loop || matches!(s, Stmt::While(_) | Stmt::For(_));
                for b in blocks::blocks(s) {
                    leaving(b, in_loop, exits);
                }
            }
        }
    }
}

fn move_out(mut t: ast::StmtTry, exits: &[Stmt], cx: &mut FunctionContext) -> Vec<Stmt> {
    let origin = t.range;
    let flag = cx.namer.new_name("fin_exit");
    let has_return = exits.iter().any(|s| KINDS[0](s));
    let value = has_return.then(|| cx.namer.new_name("fin_value"));
    // The dispatch after the `try`: one exit of each kind taken, with the
    // range of its first occurrence.
    let mut dispatch = Vec::new();
    for (i, is_kind) in KINDS.iter().enumerate() {
        if let Some(first) = exits.iter().find(|s| is_kind(s)) {
            let exit = match first {
                Stmt::Return(r) => ast_build::return_stmt(ast_build::name(value.as_deref().unwrap()), r.range),
                other => other.clone(),
            };
            dispatch.push(ast_build::stmt(
                "if FLAG == KIND:\n    EXIT",
                first.range(),
                vec![("FLAG", Sub::Name(flag.clone())), ("KIND", Sub::Expr(ast_build::int(i + 1))), ("EXIT", Sub::Body(vec![exit]))],
            ));
        }
    }
    let ranges: HashSet<TextRange> = exits.iter().map(|s| s.range()).collect();
    let (set_flag, set_value) = (flag.clone(), value.clone());
    let mut lower = move |exit: Stmt| {
        let kind = KINDS.iter().position(|is_kind| is_kind(&exit)).unwrap() + 1;
        let range = exit.range();
        let mut lowered = Vec::new();
        if let Stmt::Return(r) = exit {
            let v = r.value.map(|v| *v).unwrap_or_else(ast_build::none);
            let value = Sub::Name(set_value.clone().unwrap());
            lowered.push(ast_build::stmt("VALUE = V", r.range, vec![("VALUE", value), ("V", Sub::Expr(v))]));
        }
        let (flag, kind) = (Sub::Name(set_flag.clone()), Sub::Expr(ast_build::int(kind)));
        lowered.push(ast_build::stmt("FLAG = KIND", range, vec![("FLAG", flag), ("KIND", kind)]));
        lowered
    };
    let is_exit = |s: &Stmt| KINDS.iter().any(|k| k(s)) && ranges.contains(&s.range());
    let mut exit =
        Exit { is_exit: &is_exit, lower: &mut lower, flag: flag.clone(), value: value.clone(), through_loops: true, loops: Vec::new() };
    let mut finalbody: Vec<Stmt> = std::mem::take(&mut t.finalbody).into_iter().collect();
    exit.block(&mut finalbody);
    for l in std::mem::take(&mut exit.loops) {
        cx.extra_tests.entry(l).or_default().push(flag.clone());
    }
    let end = TextRange::empty(origin.end());
    finalbody.push(ast_build::stmt("if FLAG:\n    raise BaseException", end, vec![("FLAG", Sub::Name(flag.clone()))]));
    t.finalbody = finalbody.into_iter().collect();
    let mut out = super::exits::reset(&flag, value.as_deref(), origin);
    out.push(ast_build::stmt(
        "try:\n    TRY\nexcept BaseException:\n    if not FLAG:\n        raise",
        origin,
        vec![("TRY", Sub::Body(vec![Stmt::Try(t)])), ("FLAG", Sub::Name(flag))],
    ));
    out.extend(dispatch);
    out
}
