//! `Gen`: the state of one program being written, shared by both families —
//! the writer, the scope, the context (`Ctx`: what may go here), the names,
//! the constructs used so far and the statement budget — and the two entry
//! points every builder recurses through: `stmt` and `expr`, which pick a
//! construct from the table (`table.rs`) that fits the context and run it.

use crate::config::Config;
use crate::emit::Writer;
use crate::names::Names;
use crate::scope::Scope;
use crate::table::{self, Want};
use crate::Family;
use arbitrary::{Result, Unstructured};
use std::collections::BTreeSet;

/// Statements a program may have in all, whatever its bytes say: keeps
/// programs small enough to run fast under both interpreters.
pub const STMT_BUDGET: u32 = 160;

/// Exceptions a `try` in the plain family catches (bit per exception).
pub const EXCEPTIONS: [&str; 6] = ["ZeroDivisionError", "ValueError", "IndexError", "KeyError", "Boom", "NameError"];

/// Where the generator is writing: what may go here.
#[derive(Clone, Copy, Debug, Default)]
pub struct Ctx {
    /// Compound statements around this point (within the whole program).
    pub depth: u8,
    /// Inside a loop of the current function (break/continue allowed).
    pub in_loop: bool,
    /// Inside a generator function (bare `return`, `yield`).
    pub in_generator: bool,
    /// Inside a `finally` block of this function: no `return` (the converter
    /// refuses an exit leaving a `finally`, as it would cancel an exception).
    pub in_finally: bool,
    /// In a `finally` block and not in a loop inside it: no break/continue
    /// (a loop inside the `finally` may still be left by its own).
    pub loop_exit_blocked: bool,
    /// Exceptions (bits of `EXCEPTIONS`) a `try` of this function catches here.
    pub catching: u8,
    /// Expressions around this point.
    pub expr_depth: u8,
    /// Tensor family: inside staged control flow (no Python side effects, no new
    /// variables surviving the block, no return).
    pub staged: bool,
    /// Tensor family: directly in a staged or Python loop of this function.
    pub staged_loop: bool,
    /// Tensor family: inside a staged function (not at module level).
    pub in_staged_fn: bool,
    /// Tensor family: the test of an `if`/`while` at its top, where `not` may go.
    pub test_top: bool,
}

/// One program being generated.
pub struct Gen<'c> {
    pub cfg: &'c Config,
    pub family: Family,
    pub w: Writer,
    pub scope: Scope,
    pub ctx: Ctx,
    pub names: Names,
    pub used: BTreeSet<&'static str>,
    pub budget: u32,
    /// Tensor family: its Python knobs and raises (`tensor.rs`).
    pub tensor: crate::tensor::TensorState,
    /// The compiler under test's settings (rows never generated, fuel).
    pub settings: crate::Settings,
}

impl<'c> Gen<'c> {
    pub fn new(cfg: &'c Config, family: Family) -> Self {
        Gen {
            cfg,
            family,
            w: Writer::new(),
            scope: Scope::new(),
            ctx: Ctx::default(),
            names: Names::default(),
            used: BTreeSet::new(),
            budget: STMT_BUDGET,
            tensor: Default::default(),
            settings: crate::Settings::DEFAULT,
        }
    }

    pub fn fresh(&mut self, prefix: &str) -> String {
        self.names.fresh(prefix)
    }

    /// One statement chosen from the table.
    pub fn stmt(&mut self, u: &mut Unstructured) -> Result<()> {
        self.budget = self.budget.saturating_sub(1);
        table::build(self, u, Want::Stmt)?;
        Ok(())
    }

    /// An expression of the wanted type chosen from the table.
    pub fn expr(&mut self, u: &mut Unstructured, want: Want) -> Result<String> {
        self.ctx.expr_depth += 1;
        let r = table::build(self, u, want);
        self.ctx.expr_depth -= 1;
        r
    }

    /// Whether a compound expression may go here.
    pub fn can_nest_expr(&self) -> bool {
        self.ctx.expr_depth < self.cfg.max_expr_depth
    }

    /// Whether a compound statement may go here.
    pub fn can_nest_stmt(&self) -> bool {
        self.ctx.depth < self.cfg.max_depth && self.budget > 0
    }

    /// A block of 1..=max_stmts statements one level deeper; the scope is restored
    /// after it (`scope.rs`). `pass` if the budget ran out.
    pub fn block(&mut self, u: &mut Unstructured) -> Result<()> {
        let mark = self.scope.mark();
        self.block_keep(u)?;
        self.scope.restore(mark);
        Ok(())
    }

    /// `block` without restoring the scope (the caller does, or binds more).
    pub fn block_keep(&mut self, u: &mut Unstructured) -> Result<()> {
        self.w.indent();
        let start = self.w.len();
        let saved = self.ctx;
        self.ctx.depth += 1;
        let n = u.int_in_range(1..=self.cfg.max_stmts)?;
        for _ in 0..n {
            if self.budget == 0 {
                break;
            }
            self.stmt(u)?;
        }
        self.ctx = saved;
        self.w.pass_if_empty(start);
        self.w.dedent();
        Ok(())
    }

    /// A small int literal (`-3..=12`).
    pub fn small_int(&mut self, u: &mut Unstructured) -> Result<i32> {
        u.int_in_range(-3..=12)
    }

    /// Picks one of `items` (the first when the bytes have run out).
    pub fn pick<'a, T>(&self, u: &mut Unstructured, items: &'a [T]) -> Result<&'a T> {
        let i = u.choose_index(items.len())?;
        Ok(&items[i])
    }

    /// True with probability about `num/den` (false when the bytes have run out).
    pub fn chance(&self, u: &mut Unstructured, num: u32, den: u32) -> Result<bool> {
        Ok(u.int_in_range(0..=den - 1)? >= den - num)
    }
}
