//! Pass 9, logical expressions: `a and b` → `ag__.and_(lambda: a, lambda:
//! b)`, `or` likewise, `not a` → `ag__.not_(a)`, and chained comparisons
//! `a < b < c` → `ag__.compare(a, '<', lambda: b, '<', lambda: c)`: every
//! operand evaluated at most once, lazily, in order. An `and`/`or` whose
//! value is only tested for truth (the test of `if`, `while`, `assert`, a
//! ternary or a comprehension filter, the operand of `not`, and operands of
//! such an `and`/`or`) gets `test=True`, so every `__bool__` runs once, as
//! in Python.

use super::expressions::{self, thunkable};
use crate::ast_build::{self, string, thunk, Sub};
use crate::context::FunctionContext;
use ruff_python_ast::visitor::{walk_expr, walk_stmt, Visitor};
use ruff_python_ast::{BoolOp, Expr, Stmt, UnaryOp};
use ruff_text_size::TextRange;
use std::collections::HashSet;

fn take(x: &mut Expr) -> Expr {
    std::mem::replace(x, ast_build::none())
}

fn call(op: Expr, args: Vec<Expr>) -> Expr {
    let mut c = ast_build::expr("OP()", vec![("OP", Sub::Expr(op))]);
    if let Expr::Call(call) = &mut c {
        call.arguments.args = args.into_boxed_slice();
    }
    c
}

pub fn run(body: &mut [Stmt], cx: &FunctionContext) {
    let tests = test_contexts(body);
    expressions::rewrite(body, &|e| match e {
        Expr::BoolOp(b) if b.values.iter().all(thunkable) => {
            let op = cx.op(if b.op == BoolOp::And { "and_" } else { "or_" });
            let in_test = tests.contains(&b.range);
            *e = call(op, b.values.iter_mut().map(|v| thunk(take(v))).collect());
            if in_test {
                if let Expr::Call(c) = e {
                    let flag = ast_build::expr("f(test=True)", vec![]);
                    if let Expr::Call(f) = flag {
                        c.arguments.keywords = f.arguments.keywords;
                    }
                }
            }
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

/// Ranges of the `and`/`or` expressions whose value is only tested for truth.
fn test_contexts(body: &[Stmt]) -> HashSet<TextRange> {
    struct T(HashSet<TextRange>);
    impl T {
        fn mark(&mut self, e: &Expr) {
            if let Expr::BoolOp(b) = e {
                self.0.insert(b.range);
                for v in &b.values {
                    self.mark(v);
                }
            }
        }
    }
    impl Visitor<'_> for T {
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
    let mut t = T(HashSet::new());
    for s in body {
        t.visit_stmt(s);
    }
    t.0
}
