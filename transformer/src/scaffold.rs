//! The marks that keep the converter's scaffolding out of qualnames.
//!
//! A function, lambda, class or comprehension the program defines in a
//! converted `if`/`while`/`for` body now sits in a generated function
//! (`loop_body`, `if_body`, ...), and an operand of `and`, `or`, a ternary or
//! a chained comparison in a generated lambda (`ag__.and_(a, lambda:
//! b)`); without more, its `__qualname__`, and every message and repr made
//! from it, would name them: `f.<locals>.loop_body.<locals>.g` where the
//! original says `f.<locals>.g`.
//!
//! The vendored code generator (executor/vendor/rustpython-codegen,
//! `compile.rs` `converter_runtime` and `make_qualname`, its PATCHES.md) makes
//! the scaffolding transparent: a scope's qualname is made from the nearest
//! enclosing scope that is not scaffolding, so every qualname is the
//! original's, whatever the program defines (functions, lambdas, classes and
//! their methods, generator expressions, `global`-declared functions, at any
//! depth). The compiler knows scaffolding by marks tied to the runtime's
//! builtin name `R` (`ag__`), which the converter's header binds and the
//! namer made fresh (no identifier of the program is `R`):
//!
//! * a generated function begins with `global R` ([`mark`]): no bytecode,
//!   and `R` is read as a global either way, so it costs nothing at run time;
//! * a generated lambda is a direct positional argument of a call of
//!   `R.<op>`. The converter also passes the program's own values there
//!   (`ag__.converted_call(lambda: [...])()`, `ag__.set_item(x, i, lambda:
//!   ...)`); such a lambda, taken for scaffolding, would hide itself from its
//!   children's qualnames, so where it has children (a nested lambda or
//!   comprehension, which the converter's own thunks count as)
//!   [`unmark_program_lambdas`] passes it as `(lambda: ..., )[0]` instead
//!   (a tuple more, only there). A childless lambda needs nothing: its own
//!   qualname does not depend on the mark.
//!
//! Why marks in the text rather than names or a side channel: the namer's
//! names avoid the program's, but a program may have its own `loop_body`, and
//! a converted program is compiled by the same `Executor::run` as the
//! original, from its text alone. A program forges the marks only by binding
//! stagecheck's private runtime itself, exactly as the converter's first
//! statement does. Setting `__qualname__` at run time instead would cost an
//! assignment per definition and could not reach a lambda's or a generator
//! expression's code.

use crate::ast_build;
use ruff_python_ast::visitor::transformer::{walk_expr, walk_stmt, Transformer};
use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{self as ast, Expr, Stmt};
use ruff_text_size::TextRange;

/// `global R`, the first statement of a generated function.
pub fn mark(ag: &str, origin: TextRange) -> Stmt {
    Stmt::Global(ast::StmtGlobal { node_index: Default::default(), range: origin, names: ast_build::identifiers(&[ag.to_string()]) })
}

/// Passes each of the program's lambdas with children that is a direct
/// positional argument of a call of `ag.<op>` as `(lambda: ...,)[0]`.
pub fn unmark_program_lambdas(body: &mut [Stmt], ag: &str) {
    let unmark = Unmark { ag };
    for s in body {
        unmark.visit_stmt(s);
    }
}

struct Unmark<'a> {
    ag: &'a str,
}

impl Transformer for Unmark<'_> {
    fn visit_stmt(&self, stmt: &mut Stmt) {
        walk_stmt(self, stmt);
    }

    fn visit_expr(&self, expr: &mut Expr) {
        walk_expr(self, expr);
        let Expr::Call(call) = expr else { return };
        let is_op = matches!(&*call.func, Expr::Attribute(a) if matches!(&*a.value, Expr::Name(n) if n.id.as_str() == self.ag));
        if !is_op {
            return;
        }
        for arg in call.arguments.args.iter_mut() {
            let Expr::Lambda(l) = arg else { continue };
            if ast_build::is_generated_lambda(l) || !has_scopes(&l.body) {
                continue;
            }
            let range = l.range;
            let lambda = std::mem::replace(arg, ast_build::none());
            let mut tuple = ast_build::tuple(vec![lambda]);
            if let Expr::Tuple(t) = &mut tuple {
                t.range = range;
            }
            *arg = Expr::Subscript(ast::ExprSubscript {
                node_index: Default::default(),
                range,
                value: Box::new(tuple),
                slice: Box::new(ast_build::int(0)),
                ctx: ast::ExprContext::Load,
            });
        }
    }
}

/// Whether `e` holds a lambda or a comprehension (a scope of its own).
fn has_scopes(e: &Expr) -> bool {
    struct Find(bool);
    impl Visitor<'_> for Find {
        fn visit_expr(&mut self, e: &Expr) {
            if matches!(e, Expr::Lambda(_) | Expr::ListComp(_) | Expr::SetComp(_) | Expr::DictComp(_) | Expr::Generator(_)) {
                self.0 = true;
            } else if !self.0 {
                visitor::walk_expr(self, e);
            }
        }
    }
    let mut find = Find(false);
    find.visit_expr(e);
    find.0
}
