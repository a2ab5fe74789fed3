//! Pass 11, control flow: `if`, `while` and `for` become calls of
//! `ag__.if_stmt`, `ag__.while_stmt` and `ag__.for_stmt`, their bodies
//! functions nested in the converted function (AutoGraph's control_flow):
//!
//! ```text
//! if x > 0:                 def get_state():
//!     y = 1                     return ag__.ldu_all(lambda: (y,), ('y',))
//! else:                     def set_state(vars_):
//!     y = 2                     nonlocal y
//!                               (y,) = vars_
//!                           def if_body():
//!                               nonlocal y
//!                               y = 1
//!                           def else_body():
//!                               nonlocal y
//!                               y = 2
//!                           ag__.if_stmt(x > 0, if_body, else_body, get_state, set_state, ('y',), 1)
//! ```
//! The bodies reach the function's variables through `nonlocal` (`global`
//! for names the function declares global), so closures created in them see
//! the same variables, late binding included (unlike AutoGraph:
//! tensorflow#56089). `get_state`/`set_state` and
//! the symbol names are the statement's state for staging: the names it
//! binds that are live after it (loops: or read in them). Statements are
//! converted outermost first; the bodies of the generated functions are then
//! converted in turn.

use crate::analysis::activity::Activity;
use crate::analysis::liveness::{self, Live};
use crate::analysis::Names;
use crate::ast_build::{self, identifiers, string, thunk, Sub};
use crate::blocks;
use crate::context::FunctionContext;
use ruff_python_ast::{self as ast, Expr, Stmt};
use ruff_text_size::{Ranged, TextRange};

/// The base of a state getter's name: only a staged implementation calls
/// one (pass 13 leaves its thunk in it for that reason).
pub const GET_STATE: &str = "get_state";

pub fn run(body: &mut Vec<Stmt>, cx: &mut FunctionContext) {
    let mut live_out: Names = cx.scope.globals.union(&cx.scope.nonlocals).cloned().collect();
    live_out.extend_from(&cx.scope.nested);
    block(body, &live_out, cx);
}

fn block(body: &mut Vec<Stmt>, live_out: &Names, cx: &mut FunctionContext) {
    let (_, lives) = liveness::block(body, live_out);
    convert_block(body, lives, cx);
}

/// Converts the statements of `body`, whose liveness (computed before
/// rewriting) is `lives`.
fn convert_block(body: &mut Vec<Stmt>, lives: Vec<Live>, cx: &mut FunctionContext) {
    let stmts = std::mem::take(body);
    for (stmt, live) in stmts.into_iter().zip(lives) {
        let Live { out, mut uses, branches } = live;
        match stmt {
            Stmt::If(s) => if_stmt(s, out, branches, cx, body),
            Stmt::While(_) | Stmt::For(ast::StmtFor { is_async: false, .. }) => {
                // Everything the loop reads, its test and iterable included,
                // and the flags its extra test will read (`break_`,
                // `do_return`): they are loop state even where no statement
                // of the body reads them (a `break` as its last statement).
                if let Some(flags) = cx.extra_tests.get(&stmt.range()) {
                    uses.extend(flags.iter().map(|f| ruff_python_ast::name::Name::from(f.as_str())));
                }
                match stmt {
                    Stmt::While(s) => while_stmt(s, uses, &out, cx, body),
                    Stmt::For(s) => for_stmt(s, uses, &out, cx, body),
                    _ => unreachable!(),
                }
            }
            mut other => {
                let mut inner = out;
                inner.extend_from(&uses);
                blocks::for_each_block_vec(&mut other, &mut |b| block(b, &inner, cx));
                body.push(other);
            }
        }
    }
}

/// The names `stmts` bind, as `(nonlocal, global)` declarations of a
/// function nested in the converted one.
fn declarations(bound: &Names, cx: &FunctionContext) -> (Vec<String>, Vec<String>) {
    let (globals, nonlocals): (Vec<String>, Vec<String>) =
        bound.iter().map(|n| n.to_string()).partition(|n| cx.scope.globals.contains(n.as_str()));
    (nonlocals, globals)
}

/// `def name(params): <declarations> body`, standing for `origin`; `bound`
/// is what the body bound before its own statements were converted (after,
/// its assignments sit in generated functions of its own).
fn thunk_def(name: &str, params: &[String], body: Vec<Stmt>, bound: Option<Names>, origin: TextRange, cx: &FunctionContext) -> Stmt {
    let bound = bound.unwrap_or_else(|| Activity::bound_by(&body));
    let (mut nonlocals, mut globals) = declarations(&bound, cx);
    if crate::planted::active("nonlocal_write_lost") && name.starts_with("loop_body") {
        nonlocals.retain(|n| cx.namer.is_generated(n));
    }
    if crate::planted::active("global_write_lost_in_loop") && name.starts_with("loop_body") {
        globals.clear();
    }
    // The scaffolding's mark: its children's qualnames skip it (`scaffold`).
    let mut decls = vec![crate::scaffold::mark(&cx.ag, origin)];
    if !globals.is_empty() {
        decls.push(Stmt::Global(ast::StmtGlobal { node_index: Default::default(), range: origin, names: identifiers(&globals) }));
    }
    if !nonlocals.is_empty() {
        decls.push(Stmt::Nonlocal(ast::StmtNonlocal { node_index: Default::default(), range: origin, names: identifiers(&nonlocals) }));
    }
    decls.extend(body);
    ast_build::function_def(name, params, decls, origin)
}

/// `get_state` and `set_state` of `names` (in order): their definitions
/// and the two expressions the operator's call passes. A statement that
/// modifies no variable passes the runtime's `no_state` for both: two
/// empty closures were made at every call of the enclosing function, and
/// compiled, for each such `if` or loop (a third of a generated program's).
fn state_functions(names: &[String], origin: TextRange, cx: &mut FunctionContext) -> (Vec<Stmt>, Expr, Expr) {
    if names.is_empty() {
        return (Vec::new(), cx.op("no_state"), cx.op("no_state"));
    }
    let get = cx.namer.new_name(GET_STATE);
    let set = cx.namer.new_name("set_state");
    let vars = cx.namer.new_name("vars_");
    let names: Vec<String> = names.to_vec();
    // One thunk for the whole state (`ldu_all`): a thunk per name made two
    // thirds of a converted program's functions, each compiled and, at every
    // statement, created and called.
    let reads = ast_build::tuple(names.iter().map(|n| ast_build::name(n)).collect());
    let state = ast_build::call(cx.op("ldu_all"), vec![thunk(reads), symbol_names(&names)]);
    let get_body = vec![ast_build::return_stmt(state, origin)];
    let mut target = ast_build::tuple(names.iter().map(|n| ast_build::name(n)).collect());
    if let Expr::Tuple(t) = &mut target {
        t.ctx = ast::ExprContext::Store;
        for e in &mut t.elts {
            if let Expr::Name(n) = e {
                n.ctx = ast::ExprContext::Store;
            }
        }
    }
    let set_body = vec![ast_build::assign(target, ast_build::name(&vars), origin)];
    let defs = vec![thunk_def(&get, &[], get_body, None, origin, cx), thunk_def(&set, &[vars], set_body, None, origin, cx)];
    (defs, ast_build::name(&get), ast_build::name(&set))
}

fn symbol_names(names: &[String]) -> Expr {
    ast_build::string_tuple(names)
}

fn sorted(names: &Names) -> Vec<String> {
    names.iter().map(|n| n.to_string()).collect()
}

/// `branches`: the liveness of the body and of each `elif`/`else` clause.
fn if_stmt(mut s: ast::StmtIf, live_out: Names, branches: Vec<Vec<Live>>, cx: &mut FunctionContext, out: &mut Vec<Stmt>) {
    let origin = s.range;
    let mut branches = branches.into_iter();
    let body_lives = branches.next().unwrap_or_default();
    // `elif` chains become an `else` holding the next `if`.
    let mut orelse: Vec<Stmt> = Vec::new();
    let mut orelse_lives: Vec<Live> = Vec::new();
    let mut clauses = std::mem::take(&mut s.elif_else_clauses);
    if !clauses.is_empty() {
        let first = clauses.remove(0);
        match first.test {
            None => {
                orelse = first.body.into_iter().collect();
                orelse_lives = branches.next().unwrap_or_default();
            }
            Some(test) => {
                orelse.push(Stmt::If(ast::StmtIf {
                    node_index: Default::default(),
                    range: first.range,
                    test: Box::new(test),
                    body: first.body,
                    elif_else_clauses: clauses,
                }));
                orelse_lives.push(Live { out: live_out.clone(), uses: Names::new(), branches: branches.collect() });
            }
        }
    }
    let live_out = &live_out;
    let mut body: Vec<Stmt> = std::mem::take(&mut s.body).into_iter().collect();
    let body_bound = Activity::bound_by(&body);
    let orelse_bound = Activity::bound_by(&orelse);
    let bound: Names = body_bound.union(&orelse_bound).cloned().collect();
    let state: Names = bound.intersection(live_out).cloned().collect();
    // The state is the live names (the statement's outputs), then the
    // other names a branch binds: a staged `if` resets those too before
    // tracing each branch, so one branch never sees the other's values.
    let mut names = sorted(&state);
    names.extend(sorted(&bound.difference(&state).cloned().collect()));
    convert_block(&mut body, body_lives, cx);
    convert_block(&mut orelse, orelse_lives, cx);
    let (mut defs, get, set) = state_functions(&names, origin, cx);
    let if_body = cx.namer.new_name("if_body");
    defs.push(thunk_def(&if_body, &[], body, Some(body_bound), origin, cx));
    // No `else`: None, not a function that does nothing, made and called.
    let else_body = if orelse.is_empty() {
        ast_build::none()
    } else {
        let name = cx.namer.new_name("else_body");
        defs.push(thunk_def(&name, &[], orelse, Some(orelse_bound), origin, cx));
        ast_build::name(&name)
    };
    out.extend(defs);
    let call = ast_build::call(
        cx.op("if_stmt"),
        vec![*s.test, ast_build::name(&if_body), else_body, get, set, symbol_names(&names), ast_build::int(state.len())],
    );
    out.push(ast_build::expr_stmt(call, origin));
}

/// `not f1 and not f2 ...` over the loop's flags, in converted form.
fn extra_test(range: TextRange, cx: &mut FunctionContext) -> Option<Expr> {
    let flags = cx.extra_tests.remove(&range)?;
    let nots: Vec<Expr> = flags
        .iter()
        .map(|f| {
            // A loop test: only its truth counts.
            let mut not = ast_build::call(cx.op("not_"), vec![ast_build::name(f)]);
            super::logical_expressions::test_flag(&mut not);
            not
        })
        .collect();
    Some(conjunction(nots, cx))
}

fn conjunction(mut terms: Vec<Expr>, cx: &FunctionContext) -> Expr {
    if terms.len() == 1 {
        return terms.pop().unwrap();
    }
    // The first term as a value, the others as thunks (`and_`'s signature).
    let operands = terms.into_iter().enumerate().map(|(i, t)| if i == 0 { t } else { thunk(t) });
    ast_build::call(cx.op("and_"), operands.collect())
}

fn loop_state(stmt_uses: Names, bound: &Names, live_out: &Names) -> Names {
    let carried = |n: &&ruff_python_ast::name::Name| stmt_uses.contains(*n) && !crate::planted::active("loop_state_live_out_only");
    bound.iter().filter(|n| live_out.contains(*n) || carried(n)).cloned().collect()
}

fn while_stmt(mut s: ast::StmtWhile, uses: Names, live_out: &Names, cx: &mut FunctionContext, out: &mut Vec<Stmt>) {
    cx.loops = true;
    let origin = s.range;
    let mut body: Vec<Stmt> = std::mem::take(&mut s.body).into_iter().collect();
    let bound = Activity::bound_by(&body);
    let state = loop_state(uses.clone(), &bound, live_out);
    let mut inner = live_out.clone();
    inner.extend_from(&uses);
    block(&mut body, &inner, cx);
    let test = match extra_test(origin, cx) {
        // A test with `:=` (or `yield`) cannot move into a lambda, where it
        // would bind in the lambda: a plain `and` after the flags, which are
        // Python bools (found by the fuzzer: `while (e := e + 1) < 3:` with a
        // `return` in its body raised UnboundLocalError converted).
        Some(extra) if !super::expressions::thunkable(&s.test) => {
            ast_build::expr("EXTRA and (TEST)", vec![("EXTRA", Sub::Expr(extra)), ("TEST", Sub::Expr(*s.test))])
        }
        Some(extra) => conjunction(vec![extra, *s.test], cx),
        None => *s.test,
    };
    let names = sorted(&state);
    let (mut defs, get, set) = state_functions(&names, origin, cx);
    let loop_test = cx.namer.new_name("loop_test");
    let loop_body = cx.namer.new_name("loop_body");
    let test_body = vec![ast_build::return_stmt(test, origin)];
    defs.push(thunk_def(&loop_test, &[], test_body, None, origin, cx));
    defs.push(thunk_def(&loop_body, &[], body, Some(bound), origin, cx));
    out.extend(defs);
    let call = ast_build::call(
        cx.op("while_stmt"),
        vec![ast_build::name(&loop_test), ast_build::name(&loop_body), get, set, symbol_names(&names), ast_build::expr("{}", vec![])],
    );
    out.push(ast_build::expr_stmt(call, origin));
}

fn for_stmt(mut s: ast::StmtFor, uses: Names, live_out: &Names, cx: &mut FunctionContext, out: &mut Vec<Stmt>) {
    cx.loops = true;
    let origin = s.range;
    let itr = cx.namer.new_name("itr");
    let iterate_names = crate::unparse::expr_source(&s.target);
    let target_range = s.target.range();
    let mut body = vec![ast_build::assign(*s.target, ast_build::name(&itr), target_range)];
    body.extend(std::mem::take(&mut s.body));
    let bound = Activity::bound_by(&body[usize::from(crate::planted::active("lambda_late_binding_lost"))..]);
    let state = loop_state(uses.clone(), &bound, live_out);
    let mut inner = live_out.clone();
    inner.extend_from(&uses);
    block(&mut body, &inner, cx);
    let names = sorted(&state);
    let (mut defs, get, set) = state_functions(&names, origin, cx);
    let extra = match extra_test(origin, cx) {
        Some(test) => {
            let name = cx.namer.new_name("extra_test");
            let test_body = vec![ast_build::return_stmt(test, origin)];
            defs.push(thunk_def(&name, &[], test_body, None, origin, cx));
            ast_build::name(&name)
        }
        None => ast_build::none(),
    };
    let loop_body = cx.namer.new_name("loop_body");
    defs.push(thunk_def(&loop_body, &[itr], body, Some(bound), origin, cx));
    out.extend(defs);
    out.push(ast_build::stmt(
        "OP(ITER, EXTRA, BODY, GET, SET, NAMES, {'iterate_names': ITERATE})",
        origin,
        vec![
            ("OP", Sub::Expr(cx.op("for_stmt"))),
            ("ITER", Sub::Expr(*s.iter)),
            ("EXTRA", Sub::Expr(extra)),
            ("BODY", Sub::Name(loop_body)),
            ("GET", Sub::Expr(get)),
            ("SET", Sub::Expr(set)),
            ("NAMES", Sub::Expr(symbol_names(&names))),
            ("ITERATE", Sub::Expr(string(&iterate_names))),
        ],
    ));
}
