//! Lowering of `break`, `continue` and `return` into flags (shared by the
//! three passes, as in AutoGraph): the exit becomes an assignment, code
//! after it in its block is dropped (it was unreachable), and code after a
//! statement that may have set the flag runs under `if not <flag>:`.
//!
//! An exit leaving a `try` runs its `finally` first; when that raises, the
//! exit is cancelled (the exception propagates instead, and an enclosing
//! `except` may resume the loop or the function). So a `finally` after a
//! body that may exit runs as `try: F / except BaseException: <cancel>;
//! raise`, where `<cancel>` is [`reset`]: at that `try`'s start no exit was
//! pending, so undoing the lowered exit puts its variables back to their
//! initial values (found by the fuzzer: a `break` whose `finally` raised
//! into an enclosing `except` still ended the loop).
//!
//! An exit written inside a `finally` (which cancels the exception or exit
//! in flight) has been moved out of it by [`super::finally_exits`] before
//! these passes run: a `finally` they see exits nowhere.

use crate::ast_build::{self, Sub};
use ruff_python_ast::{self as ast, Stmt};
use ruff_text_size::{Ranged, TextRange};
use thin_vec::ThinVec;

/// An exit's variables at their initial values, no exit pending: `flag =
/// False`, and for `return` its value variable, `retval_ = None`. They start
/// so, and a cancelled exit goes back to them.
pub fn reset(flag: &str, value: Option<&str>, origin: TextRange) -> Vec<Stmt> {
    let mut stmts = vec![ast_build::stmt("FLAG = False", origin, vec![("FLAG", Sub::Name(flag.to_string()))])];
    if let Some(value) = value {
        stmts.push(ast_build::stmt("VALUE = None", origin, vec![("VALUE", Sub::Name(value.to_string()))]));
    }
    stmts
}

/// `if not <flag>: rest`
pub fn guard(flag: &str, rest: Vec<Stmt>, origin: TextRange) -> Stmt {
    ast_build::stmt("if not FLAG:\n    BODY", origin, vec![("FLAG", Sub::Name(flag.to_string())), ("BODY", Sub::Body(rest))])
}

/// Lowers the exits of one loop's own body that `is_exit` picks (its
/// `break`s or its `continue`s, not those of nested loops) to `flag = True`.
pub fn lower_loop_exits(body: &mut ThinVec<Stmt>, is_exit: &dyn Fn(&Stmt) -> bool, flag: &str) {
    let mut lower = |exit: Stmt| vec![ast_build::stmt("FLAG = True", exit.range(), vec![("FLAG", Sub::Name(flag.to_string()))])];
    let mut exit = Exit { is_exit, lower: &mut lower, flag: flag.to_string(), value: None, through_loops: false, loops: Vec::new() };
    exit.vec(body);
}

pub struct Exit<'a> {
    /// Whether a statement is one of the exits lowered.
    pub is_exit: &'a dyn Fn(&Stmt) -> bool,
    /// The statements an exit becomes.
    pub lower: &'a mut dyn FnMut(Stmt) -> Vec<Stmt>,
    pub flag: String,
    /// The variable the exit's value goes to (`return`'s `retval_`).
    pub value: Option<String>,
    /// Whether exits inside nested loops are ours too (`return`) or not (`break`).
    pub through_loops: bool,
    /// Loops whose body may set the flag (they must stop when it is set).
    pub loops: Vec<TextRange>,
}

impl Exit<'_> {
    /// Lowers the exits in `block`; true when the block may set the flag.
    pub fn block(&mut self, block: &mut Vec<Stmt>) -> bool {
        let mut i = 0;
        while i < block.len() {
            if (self.is_exit)(&block[i]) {
                block.truncate(i + 1);
                let exit = block.pop().unwrap();
                block.extend((self.lower)(exit));
                return true;
            }
            if self.children(&mut block[i]) {
                let mut rest = block.split_off(i + 1);
                if !rest.is_empty() {
                    self.block(&mut rest);
                    let origin = rest[0].range();
                    block.push(self.guard(rest, origin));
                }
                return true;
            }
            i += 1;
        }
        false
    }

    fn guard(&self, rest: Vec<Stmt>, origin: TextRange) -> Stmt {
        guard(&self.flag, rest, origin)
    }

    fn children(&mut self, stmt: &mut Stmt) -> bool {
        if matches!(stmt, Stmt::FunctionDef(_) | Stmt::ClassDef(_)) {
            return false;
        }
        if matches!(stmt, Stmt::While(_) | Stmt::For(_)) && !self.through_loops {
            return false;
        }
        let range = stmt.range();
        let mut sets = false;
        match stmt {
            Stmt::Try(t) => {
                let body = self.vec(&mut t.body);
                sets |= body;
                for ast::ExceptHandler::ExceptHandler(h) in &mut t.handlers {
                    sets |= self.vec(&mut h.body);
                }
                sets |= self.vec(&mut t.orelse);
                if body && !(crate::planted::active("try_else_after_return") && self.value.is_some()) {
                    // The else clause runs only when the body completed.
                    self.guard_clause(&mut t.orelse);
                }
                let pending = sets;
                sets |= self.vec(&mut t.finalbody);
                if pending && !t.finalbody.is_empty() {
                    let finalbody: Vec<Stmt> = std::mem::take(&mut t.finalbody).into_iter().collect();
                    let origin = finalbody[0].range();
                    t.finalbody = ThinVec::from_iter([ast_build::stmt(
                        "try:\n    FINALLY\nexcept BaseException:\n    CANCEL\n    raise",
                        origin,
                        vec![("FINALLY", Sub::Body(finalbody)), ("CANCEL", Sub::Body(reset(&self.flag, self.value.as_deref(), origin)))],
                    )]);
                }
            }
            Stmt::With(w) => {
                sets = self.vec(&mut w.body);
                if sets {
                    *stmt =
                        self.cancel_in_exits(std::mem::replace(stmt, Stmt::Pass(ast::StmtPass { range, node_index: Default::default() })));
                }
            }
            Stmt::While(ast::StmtWhile { body, orelse, .. }) | Stmt::For(ast::StmtFor { body, orelse, .. }) => {
                let body_sets = self.vec(body);
                sets = body_sets | self.vec(orelse);
                if body_sets {
                    self.loops.push(range);
                    // A loop stopped by the flag ends as if its test failed;
                    // its else clause runs only when no exit was taken.
                    // (Loops reach here with an else clause only in
                    // `finally_exits`: the break pass has moved them out.)
                    self.guard_clause(orelse);
                }
            }
            _ => crate::blocks::for_each_block_vec(stmt, &mut |b| sets |= self.block(b)),
        }
        sets
    }

    /// A `with` whose body may set the flag: each manager's `__exit__` is a
    /// `finally` (when one raises, the exit is cancelled, and an outer manager
    /// may swallow that exception), so `with A, B: body` becomes `try: with A:
    /// try: with B: body / except BaseException: <cancel>; raise` (one item
    /// a `with`, the same statement) / except BaseException: <cancel>; raise`.
    /// Found by the fuzzer: `with A, B: return 0` where B's `__exit__` raised
    /// and A's swallowed it returned 0 converted, None as written.
    fn cancel_in_exits(&self, stmt: Stmt) -> Stmt {
        let Stmt::With(w) = stmt else { return stmt };
        let origin = w.range;
        let ast::StmtWith { items, body, is_async, node_index, range } = w;
        let mut inner: Vec<Stmt> = body.into_iter().collect();
        for item in items.into_iter().rev() {
            let with = Stmt::With(ast::StmtWith {
                items: vec![item],
                body: inner.into_iter().collect(),
                is_async,
                node_index: node_index.clone(),
                range,
            });
            inner = vec![ast_build::stmt(
                "try:\n    BODY\nexcept BaseException:\n    CANCEL\n    raise",
                origin,
                vec![("BODY", Sub::Body(vec![with])), ("CANCEL", Sub::Body(reset(&self.flag, self.value.as_deref(), origin)))],
            )];
        }
        inner.pop().expect("a with has an item")
    }

    /// `if not <flag>: clause`, for a clause that must not run after an exit.
    fn guard_clause(&self, clause: &mut ThinVec<Stmt>) {
        if let Some(first) = clause.first() {
            let origin = first.range();
            let rest: Vec<Stmt> = std::mem::take(clause).into_iter().collect();
            *clause = ThinVec::from_iter([self.guard(rest, origin)]);
        }
    }

    fn vec(&mut self, b: &mut ThinVec<Stmt>) -> bool {
        let mut v: Vec<Stmt> = std::mem::take(b).into_iter().collect();
        let r = self.block(&mut v);
        *b = v.into_iter().collect();
        r
    }
}
