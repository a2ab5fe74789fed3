//! The conversion passes, one per file, run in this fixed order on every
//! function (innermost functions first), as AutoGraph orders its converters:
//!
//! | # | pass                       | rewrites                                        |
//! |---|----------------------------|-------------------------------------------------|
//! | 1 | [`functions`]              | `super()`, declarations to the top, local annotations dropped |
//! | 2 | [`finally_exits`]          | exits inside `finally` → taken after the `try` |
//! | 3 | [`break_statements`]       | `break` → flag, loop `else` → guarded code      |
//! | 4 | [`asserts`]                | `assert` → `ag__.assert_stmt`                   |
//! | 5 | [`continue_statements`]    | `continue` → flag                               |
//! | 6 | [`return_statements`]      | `return` → flag and value, one exit             |
//! | 7 | [`slices`]                 | `x[i]`, `x[i] = v` → `ag__.get_item/set_item`   |
//! | 8 | [`call_trees`]             | `f(a)` → `ag__.converted_call(f)(a)`            |
//! | 9 | [`conditional_expressions`]| `a if c else b` → `ag__.if_exp`                 |
//! | 10| [`logical_expressions`]    | `and`/`or`/`not`/chained comparisons            |
//! | 11| [`control_flow`]           | `if`/`while`/`for` → `ag__.*_stmt` + functions  |
//! | 12| [`variables`]              | unbound-local reads, declarations               |
//! | 13| [`hoist`]                  | generated functions out of generated functions: made once per call |
//!
//! Before them, [`fstring_debug`] lowers every f-string `=` form
//! (`f"{e = }"` → `f"e = {e!r}"`), so that any pass may rewrite `e`.
//!
//! Analyses run before the rewrites that need them: scopes and reaching
//! definitions on the function as written (pass 12 uses them), liveness and
//! activity inside pass 11 on the code it converts. In generators and
//! coroutines, passes 2, 3, 5, 6, 11 and 13 are skipped: moving code that yields
//! or awaits into a nested function would change what it means (their exits
//! stay as written, `finally` included). Functions that read their own
//! namespace (`locals()`, `vars()`, `dir()`, `exec(s)`, `eval(s)`) also skip
//! 4, 9 and 10, which put code into lambdas.

pub mod asserts;
pub mod break_statements;
pub mod call_trees;
pub mod conditional_expressions;
pub mod continue_statements;
pub mod control_flow;
mod exits;
pub mod expressions;
pub mod finally_exits;
pub mod fstring_debug;
pub mod functions;
pub mod hoist;
pub mod logical_expressions;
pub mod return_statements;
pub mod slices;
pub mod variables;

use crate::analysis::{definitions, scopes::Scope};
use crate::blocks;
use crate::context::FunctionContext;
use crate::error::Refusal;
use crate::namer::Namer;
use ruff_python_ast::visitor::{walk_expr, Visitor};
use ruff_python_ast::{self as ast, Expr, Stmt};
use ruff_text_size::Ranged;
use rustc_hash::FxHashMap as HashMap;

/// Converts every function in `body` (a module or class body), at any depth.
pub fn convert_scope_body(body: &mut [Stmt], in_class: bool, namer: &mut Namer, ag: &str) -> Result<(), Refusal> {
    for stmt in body.iter_mut() {
        convert_nested(stmt, in_class, namer, ag)?;
    }
    Ok(())
}

fn convert_nested(stmt: &mut Stmt, in_class: bool, namer: &mut Namer, ag: &str) -> Result<(), Refusal> {
    match stmt {
        Stmt::FunctionDef(f) => convert_function(f, in_class, namer, ag),
        Stmt::ClassDef(c) => convert_scope_body(&mut c.body, true, namer, ag),
        _ => {
            let mut result = Ok(());
            blocks::for_each_block(stmt, &mut |b| {
                if result.is_ok() {
                    result = convert_scope_body(b, in_class, namer, ag);
                }
            });
            result
        }
    }
}

fn convert_function(f: &mut ast::StmtFunctionDef, in_class: bool, namer: &mut Namer, ag: &str) -> Result<(), Refusal> {
    // Innermost first: the passes below treat nested functions as opaque.
    DEPTH.set(DEPTH.get() + 1);
    let nested = convert_scope_body(&mut f.body, false, namer, ag);
    DEPTH.set(DEPTH.get() - 1);
    nested?;
    let outer = CONVERTING.replace(Some(f.start()));
    let mut body: Vec<Stmt> = std::mem::take(&mut f.body).into_iter().collect();
    let result = convert_body(&mut body, f, in_class, namer, ag);
    f.body = body.into_iter().collect();
    // Left set when a pass panics (see `converting`).
    CONVERTING.set(outer);
    result
}

thread_local! {
    /// How many functions enclose the one being converted.
    static DEPTH: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    static CONVERTING: std::cell::Cell<Option<ruff_text_size::TextSize>> = const { std::cell::Cell::new(None) };
}

/// The start of the function whose passes this thread is running, or ran
/// when a pass panicked: the converter's own failure (`error::INTERNAL`)
/// names that function's line. `None` outside the passes.
pub fn converting() -> Option<ruff_text_size::TextSize> {
    CONVERTING.get()
}

/// Forgets a function left by a panic (before a new conversion).
pub fn reset_converting() {
    CONVERTING.set(None);
    DEPTH.set(0);
}

fn convert_body(body: &mut Vec<Stmt>, f: &ast::StmtFunctionDef, in_class: bool, namer: &mut Namer, ag: &str) -> Result<(), Refusal> {
    fstring_debug::run(body);
    // A function that reads its own namespace keeps its statements and gets
    // no lambdas: both would change what `locals()` or `eval(s)` see.
    let reads_namespace = functions::reads_namespace(body);
    let scope = Scope::of_function(Some(&f.parameters), body);
    let unbound = definitions::possibly_unbound(&scope, body);
    let convert_statements = !f.is_async && !yields(body) && !reads_namespace;
    let mut cx = FunctionContext {
        namer,
        ag: ag.to_string(),
        scope,
        unbound,
        convert_statements,
        thunks: !reads_namespace,
        extra_tests: HashMap::default(),
        enclosed: DEPTH.get() > 0,
        loops: false,
    };
    if in_class {
        if let Some(first) = f.parameters.posonlyargs.first().or(f.parameters.args.first()) {
            functions::explicit_super(body, first.parameter.name.as_str());
        }
    }
    if cx.convert_statements {
        functions::hoist_declarations(body, functions::docstring_end(body));
        functions::drop_local_annotations(body);
    }
    let prologue = functions::prologue_end(body);
    if cx.convert_statements {
        finally_exits::run(body, &mut cx);
        break_statements::run(body, &mut cx);
    }
    if cx.thunks {
        asserts::run(body, &cx);
    }
    if cx.convert_statements {
        continue_statements::run(body, &mut cx);
        return_statements::run(body, &mut cx, prologue);
    }
    slices::run(body, &cx);
    call_trees::run(body, &cx);
    if cx.thunks {
        conditional_expressions::run(body, &cx);
        logical_expressions::run(body, &cx);
    }
    if cx.convert_statements {
        control_flow::run(body, &mut cx);
    }
    variables::run(body, &cx, prologue);
    if cx.convert_statements && cx.loops {
        hoist::run(body, &mut cx);
    }
    Ok(())
}

/// Whether the function's own scope yields (it is a generator).
fn yields(body: &[Stmt]) -> bool {
    struct Y(bool);
    impl Visitor<'_> for Y {
        fn visit_stmt(&mut self, stmt: &Stmt) {
            if !matches!(stmt, Stmt::FunctionDef(_) | Stmt::ClassDef(_)) {
                ruff_python_ast::visitor::walk_stmt(self, stmt);
            }
        }
        fn visit_expr(&mut self, e: &Expr) {
            match e {
                Expr::Yield(_) | Expr::YieldFrom(_) | Expr::Await(_) => self.0 = true,
                Expr::Lambda(_) => {}
                _ => walk_expr(self, e),
            }
        }
    }
    let mut y = Y(false);
    for s in body {
        y.visit_stmt(s);
    }
    y.0
}
