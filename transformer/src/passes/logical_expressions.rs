//! Pass 10, logical expressions: `a and b` → `ag__.and_(a, lambda: b)`,
//! `or` likewise, `not a` → `ag__.not_(a)`, and chained comparisons
//! `a < b < c` → `ag__.compare(a, '<', lambda: b, '<', lambda: c)`: every
//! operand evaluated at most once, lazily, in order. The first operand,
//! which Python always evaluates, is passed as a value (as `compare`'s
//! left one): a lambda fewer to make and call each time. An `and`/`or`/`not` whose
//! value is only tested for truth (the test of `if`, `while`, `assert`, a
//! ternary or a comprehension filter, the operand of `not`, and operands of
//! such an `and`/`or`) gets `test=True`, so every `__bool__` runs once, as
//! in Python. Passes 4 and 9 run first: an `assert`'s and a ternary's test
//! are then the first argument of `ag__.assert_stmt` / `ag__.if_exp`.

use super::expressions::{self, thunkable};
use crate::ast_build::{self, string, thunk};
use crate::context::FunctionContext;
use ruff_python_ast::visitor::{walk_expr, walk_stmt, Visitor};
use ruff_python_ast::{BoolOp, Expr, Stmt, UnaryOp};
use ruff_text_size::TextRange;
use rustc_hash::FxHashSet as HashSet;

fn take(x: &mut Expr) -> Expr {
    std::mem::replace(x, ast_build::none())
}

pub fn run(body: &mut [Stmt], cx: &FunctionContext) {
    let tests = test_contexts(body, cx);
    expressions::rewrite_thunking(body, &|e| match e {
        Expr::BoolOp(b) if b.values.iter().all(thunkable) => {
            let op = cx.op(if b.op == BoolOp::And { "and_" } else { "or_" });
            let in_test = tests.contains(&b.range);
            let operands = b.values.iter_mut().enumerate().map(|(i, v)| if i == 0 { take(v) } else { thunk(take(v)) });
            *e = ast_build::call(op, operands.collect());
            if in_test {
                test_flag(e);
            }
        }
        Expr::UnaryOp(u) if u.op == UnaryOp::Not => {
            let in_test = tests.contains(&u.range);
            *e = ast_build::call(cx.op("not_"), vec![take(&mut u.operand)]);
            if in_test {
                test_flag(e);
            }
        }
        Expr::Compare(c) if c.ops.len() > 1 && c.comparators.iter().all(thunkable) => {
            let mut args = vec![take(&mut c.left)];
            for (op, right) in c.ops.iter().zip(c.comparators.iter_mut()) {
                args.push(string(op.as_str()));
                args.push(thunk(take(right)));
            }
            *e = ast_build::call(cx.op("compare"), args);
        }
        _ => {}
    });
}

/// Adds `test=True` to a generated call. ruff's printer orders arguments
/// by their ranges, and the operand keeps the user's: the keyword goes last.
pub fn test_flag(e: &mut Expr) {
    if let (Expr::Call(c), Expr::Call(f)) = (e, ast_build::expr("f(test=True)", vec![])) {
        c.arguments.keywords = f.arguments.keywords;
        for k in c.arguments.keywords.iter_mut() {
            k.range = TextRange::empty(u32::MAX.into());
        }
    }
}

/// Ranges of the `and`/`or`/`not` expressions whose value is only tested
/// for truth (a staged `not` may then be a tensor; as a value it must be the
/// Python bool the original computes).
fn test_contexts(body: &[Stmt], cx: &FunctionContext<'_>) -> HashSet<TextRange> {
    struct T<'c, 'f>(HashSet<TextRange>, &'c FunctionContext<'f>);
    impl T<'_, '_> {
        fn mark(&mut self, e: &Expr) {
            match e {
                Expr::BoolOp(b) => {
                    self.0.insert(b.range);
                    for v in &b.values {
                        self.mark(v);
                    }
                }
                Expr::UnaryOp(u) if u.op == UnaryOp::Not => {
                    self.0.insert(u.range);
                }
                _ => {}
            }
        }
    }
    impl Visitor<'_> for T<'_, '_> {
        fn visit_stmt(&mut self, s: &Stmt) {
            match s {
                Stmt::If(i) => {
                    self.mark(&i.test);
                    for c in &i.elif_else_clauses {
                        if let Some(t) = &c.test {
                            self.mark(t);
                        }
                    }
                }
                Stmt::While(w) => self.mark(&w.test),
                Stmt::Assert(a) => self.mark(&a.test),
                _ => {}
            }
            walk_stmt(self, s);
        }
        fn visit_expr(&mut self, e: &Expr) {
            match e {
                Expr::If(i) => self.mark(&i.test),
                Expr::UnaryOp(u) if u.op == UnaryOp::Not => self.mark(&u.operand),
                // A ternary's and an assert's test, as passes 9 and 4 left them.
                Expr::Call(c) if ["if_exp", "assert_stmt"].iter().any(|op| self.1.is_op_named(&c.func, op)) => {
                    if let Some(test) = c.arguments.args.first() {
                        self.mark(test);
                    }
                }
                _ => {}
            }
            walk_expr(self, e);
        }
        fn visit_comprehension(&mut self, c: &ruff_python_ast::Comprehension) {
            for i in &c.ifs {
                self.mark(i);
            }
            ruff_python_ast::visitor::walk_comprehension(self, c);
        }
    }
    let mut t = T(HashSet::default(), cx);
    for s in body {
        t.visit_stmt(s);
    }
    t.0
}
