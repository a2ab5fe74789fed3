//! Pass 13, hoisting: the generated functions nested in generated functions
//! move out, as far as the converted function itself, so that converted
//! code creates them once per call of the function rather than once per
//! execution of their statement (per loop iteration: a loop body's `if`
//! made four closures at every iteration, a third of converted code's time).
//!
//! ```text
//! def loop_body():              def if_body():
//!     nonlocal i, s                 nonlocal s
//!     def if_body():                s += i
//!         nonlocal s            def else_body(): ...
//!         s += i                def loop_body():
//!     def else_body(): ...          nonlocal i, s
//!     ag__.if_stmt(...)             ag__.if_stmt(...)
//! ```
//!
//! The meaning is the same because a generated function's body (control
//! flow's `thunk_def`) declares every name it binds `nonlocal` (or
//! `global`): the functions nested in it reach the converted function's own
//! cells through it, never a variable of its own. A nested function `E`
//! moves out of its parent `D` only when none of `E`'s free names
//! ([`crate::analysis::free`]) is a local of `D` — `D`'s parameters (a
//! `for` body's item) and what the rest of `D` binds without declaring it —
//! so they resolve to the same cells from the parent's scope; `D` then
//! reads `E` from the enclosing function like any cell.
//!
//! `D`'s closure keeps every cell it had: a cell `D` held only for `E` (a
//! list `if_body` appends to, which staging carries through a staged loop
//! because `loop_body` closes over it: `staging/lists.py`) is declared
//! `nonlocal` in `D` (no bytecode). So a name `E` leaves free must be told
//! apart: a variable of the converted function (or a generated name) is
//! declared; a global one is not (`D` never held it); in a function nested
//! in another, a name the function neither binds nor declares could be
//! either, and `E` stays.
//!
//! Only in a function with a converted loop (elsewhere each generated
//! function is made once per call already). Only generated functions move (fresh names, [`crate::scaffold::mark`],
//! no decorators or defaults: defining one evaluates nothing); the
//! program's own functions, lambdas and classes stay where they are defined,
//! as often as the original defines them. Generated functions inside a
//! `try`/`with` block of a generated function stay in it (hoisted within
//! the block).
//!
//! The thunks converted expressions pass to operators (`and_`'s lazy
//! operands, a conditional expression's branches: generated lambdas
//! without parameters) move too, named: `and_(a, lambda: i > 2)` in a loop
//! body becomes `and_(a, thunk)` with `thunk = lambda: i > 2` before the
//! loop body's `def` (a lambda made per iteration cost a third of a loop's
//! time). Making a lambda evaluates nothing (no defaults), the operator
//! alone sees it, and its body, called when the operator calls it, reads
//! the same cells; the program's own lambdas stay, as the functions do.

use crate::analysis::activity::Activity;
use crate::analysis::{free, Names};
use crate::ast_build::{self, identifiers};
use crate::blocks;
use crate::context::FunctionContext;
use ruff_python_ast::visitor::transformer::{walk_expr, walk_stmt, Transformer};
use ruff_python_ast::{self as ast, Expr, Stmt};
use std::cell::RefCell;

pub fn run(body: &mut Vec<Stmt>, cx: &mut FunctionContext) {
    // Bindings only: a walk into the nested (converted) functions' bodies cost a walk per level of nesting.
    let mut function = Activity::bound_by(body);
    function.retain(|n| !cx.scope.globals.contains(n));
    function.extend_from(&cx.scope.params);
    function.extend_from(&cx.scope.nonlocals);
    hoist_in(body, &mut Resolve { function, cx, known: free::Known::default() });
}

/// How the converted function resolves a name a generated function leaves free.
struct Resolve<'a, 'n> {
    /// What the converted function binds (its parameters included) or
    /// declares nonlocal: its own or its enclosing functions' variables.
    function: Names,
    cx: &'a mut FunctionContext<'n>,
    /// The free names of the generated functions already hoisted out of theirs.
    known: free::Known,
}

enum Binding {
    /// A variable of the converted function or of one enclosing it.
    Variable,
    Global,
    /// Either (a function nested in another, the name not its own).
    Unknown,
}

impl Resolve<'_, '_> {
    fn of(&self, name: &str) -> Binding {
        if self.function.contains(name) || (self.cx.namer.is_generated(name) && name != self.cx.ag) {
            Binding::Variable
        } else if self.cx.scope.globals.contains(name) || !self.cx.enclosed || name == self.cx.ag {
            Binding::Global
        } else {
            Binding::Unknown
        }
    }
}

/// In `stmts` (one block), lifts out of each generated function what may
/// leave it, placing it just before that function.
fn hoist_in(stmts: &mut Vec<Stmt>, r: &mut Resolve) {
    let mut out = Vec::with_capacity(stmts.len());
    for mut stmt in std::mem::take(stmts) {
        match &mut stmt {
            Stmt::FunctionDef(d) if is_scaffolding(d, r.cx) => {
                let mut inner: Vec<Stmt> = std::mem::take(&mut d.body).into_iter().collect();
                hoist_in(&mut inner, r);
                // A state getter runs only under staging: its thunk stays, made when it runs.
                if !d.name.as_str().starts_with(super::control_flow::GET_STATE) {
                    name_thunks(&mut inner, &d.parameters, r);
                }
                let (leaving, declare) = movable(&inner, &d.parameters, r);
                let (moved, mut kept): (Vec<(usize, Stmt)>, Vec<(usize, Stmt)>) =
                    inner.into_iter().enumerate().partition(|(i, _)| leaving.contains(i));
                if !declare.is_empty() {
                    let names: Vec<String> = declare.iter().map(|n| n.to_string()).collect();
                    let nonlocal = ast::StmtNonlocal { node_index: Default::default(), range: d.range, names: identifiers(&names) };
                    // After the mark, which stays first.
                    kept.insert(1.min(kept.len()), (usize::MAX, Stmt::Nonlocal(nonlocal)));
                }
                d.body = kept.into_iter().map(|(_, s)| s).collect();
                // Final now: hoisting further out moves it whole. A generated name is defined once.
                if r.cx.namer.is_generated(d.name.as_str()) {
                    r.known.record(&d.name.id, free::of_def_known(d, &r.known));
                }
                out.extend(moved.into_iter().map(|(_, s)| s));
            }
            Stmt::FunctionDef(_) | Stmt::ClassDef(_) => {}
            other => blocks::for_each_block_vec(other, &mut |b| hoist_in(b, r)),
        }
        out.push(stmt);
    }
    *stmts = out;
}

/// A function the converter generated: a fresh name, the scaffolding's
/// mark first, no decorators, no defaults, no annotations.
fn is_scaffolding(d: &ast::StmtFunctionDef, cx: &FunctionContext) -> bool {
    let marked = matches!(d.body.first(), Some(Stmt::Global(g)) if g.names.len() == 1 && g.names[0].as_str() == cx.ag);
    let generated = (cx.namer.is_generated(d.name.as_str()) && marked) || crate::planted::active("hoist_user_functions");
    let plain = d.parameters.iter().all(|p| p.default().is_none() && p.annotation().is_none());
    generated && plain && d.decorator_list.is_empty() && d.returns.is_none() && !d.is_async
}

/// The indices of the generated functions among `body`'s statements (the
/// body of a generated function with `params`) that may move out of it,
/// and the names it must then declare nonlocal to keep its closure's cells.
fn movable(body: &[Stmt], params: &ast::Parameters, r: &Resolve) -> (Vec<usize>, Names) {
    let mut leaving: Vec<(usize, Names)> = body
        .iter()
        .enumerate()
        .filter_map(|(i, s)| match s {
            Stmt::FunctionDef(d) if is_scaffolding(d, r.cx) => Some((i, free::of_def_known(d, &r.known))),
            Stmt::Assign(a) => named_thunk(a, r.cx).map(|l| (i, free::of_lambda(l))),
            _ => None,
        })
        .collect();
    // What stays binds locals, and a function reading one stays too, which
    // may keep another: until nothing changes. What the parent then no
    // longer reads is what only the functions leaving read, less its
    // globals (with no local among them, the parent held them as cells or
    // globals).
    loop {
        if leaving.is_empty() {
            return (Vec::new(), Names::new());
        }
        let staying = free::names_known(
            Some(params),
            body.iter().enumerate().filter(|(i, _)| !leaving.iter().any(|(l, _)| l == i)).map(|(_, s)| s),
            Some(&r.known),
        );
        let mut lost = Names::new();
        for (_, f) in &leaving {
            lost.extend_from(f);
        }
        // Not its own variables either: what stays binds, and the functions leaving.
        let own = |n: &ruff_python_ast::name::Name| {
            staying.locals.contains(n) || leaving.iter().any(|(i, _)| defined_name(&body[*i]) == Some(n.as_str()))
        };
        lost.retain(|n| !staying.free.contains(n) && !staying.globals.contains(n) && !own(n));
        let mut declare = Names::new();
        let mut unknown = Names::new();
        for n in lost.iter() {
            match r.of(n.as_str()) {
                Binding::Variable => {
                    declare.insert(n.clone());
                }
                Binding::Global => {}
                Binding::Unknown => {
                    unknown.insert(n.clone());
                }
            }
        }
        let count = leaving.len();
        leaving.retain(|(_, f)| !f.iter().any(|n| staying.locals.contains(n) || unknown.contains(n)));
        if leaving.len() == count {
            return (leaving.into_iter().map(|(i, _)| i).collect(), declare);
        }
    }
}

/// The name a leaving statement defines: a generated function's, or a named thunk's.
fn defined_name(s: &Stmt) -> Option<&str> {
    match s {
        Stmt::FunctionDef(d) => Some(d.name.as_str()),
        Stmt::Assign(a) => match a.targets.as_slice() {
            [Expr::Name(n)] => Some(n.id.as_str()),
            _ => None,
        },
        _ => None,
    }
}

/// `thunk = lambda: ...` as [`name_thunks`] writes it: a generated name
/// bound to a generated lambda.
fn named_thunk<'s>(a: &'s ast::StmtAssign, cx: &FunctionContext) -> Option<&'s ast::ExprLambda> {
    match (a.targets.as_slice(), &*a.value) {
        ([Expr::Name(n)], Expr::Lambda(l)) if cx.namer.is_generated(n.id.as_str()) && is_thunk(l) => Some(l),
        _ => None,
    }
}

fn is_named_thunk(s: &Stmt, cx: &FunctionContext) -> bool {
    matches!(s, Stmt::Assign(a) if named_thunk(a, cx).is_some())
}

/// A lambda the converter made for an operator's lazy operand: no
/// parameters (so no defaults).
fn is_thunk(l: &ast::ExprLambda) -> bool {
    ast_build::is_generated_lambda(l) && l.parameters.is_none()
}

/// Names the thunks in `body` (a generated function's, with `params`)
/// that may leave it: none of their free names is a local of the function
/// or a name that could be one of an enclosing function's ([`Binding::Unknown`]).
/// Each is assigned to a fresh name just before the statement holding it.
/// Nested scopes are not entered (their thunks may read their locals).
fn name_thunks(body: &mut Vec<Stmt>, params: &ast::Parameters, r: &mut Resolve) {
    // As `free::names_of(..).locals`, without walking nested scopes (which bind nothing here).
    let here = Activity::bindings_of(body);
    let mut locals = here.bound;
    for p in params.iter() {
        locals.insert(p.name().id.clone());
    }
    locals.retain(|n| !here.globals.contains(n) && !here.nonlocals.contains(n));
    let mut out = Vec::with_capacity(body.len());
    for mut stmt in std::mem::take(body) {
        if !matches!(stmt, Stmt::FunctionDef(_) | Stmt::ClassDef(_)) && !is_named_thunk(&stmt, r.cx) {
            // Taken with a placeholder name (no identifier is empty), then
            // named: the namer is borrowed mutably, the walk reads it.
            let taken = {
                let eligible = |l: &ast::ExprLambda| may_leave(l, &locals, r);
                let walk = Thunks { eligible: &eligible, cx: &*r.cx, taken: RefCell::new(Vec::new()) };
                walk.visit_stmt(&mut stmt);
                walk.taken.into_inner()
            };
            if !taken.is_empty() {
                let names: Vec<String> = taken.iter().map(|_| r.cx.namer.new_name("thunk")).collect();
                Placeholders { names: &names, next: RefCell::new(0) }.visit_stmt(&mut stmt);
                let origin = *ast_build::range_mut(&mut stmt);
                for (name, lambda) in names.iter().zip(taken) {
                    out.push(ast_build::assign(ast_build::target(name), lambda, origin));
                }
            }
        }
        out.push(stmt);
    }
    *body = out;
}

/// Whether thunk `l` reads no local of a function with `locals` and
/// nothing of unknown binding.
fn may_leave(l: &ast::ExprLambda, locals: &Names, r: &Resolve) -> bool {
    free::of_lambda(l).iter().all(|n| !locals.contains(n) && !matches!(r.of(n.as_str()), Binding::Unknown))
}

/// Takes the eligible thunks of a statement, outside nested scopes, in
/// order, putting a placeholder name (empty) in their place.
struct Thunks<'a, 'n> {
    eligible: &'a dyn Fn(&ast::ExprLambda) -> bool,
    cx: &'a FunctionContext<'n>,
    taken: RefCell<Vec<Expr>>,
}

impl Transformer for Thunks<'_, '_> {
    fn visit_stmt(&self, stmt: &mut Stmt) {
        // A named thunk in a block was named in a function hoisted into it.
        if !matches!(stmt, Stmt::FunctionDef(_) | Stmt::ClassDef(_)) && !is_named_thunk(stmt, self.cx) {
            walk_stmt(self, stmt);
        }
    }

    fn visit_expr(&self, expr: &mut Expr) {
        match expr {
            Expr::Lambda(l) if is_thunk(l) && (self.eligible)(l) => {
                self.taken.borrow_mut().push(std::mem::replace(expr, ast_build::name("")));
            }
            Expr::Lambda(_) | Expr::ListComp(_) | Expr::SetComp(_) | Expr::DictComp(_) | Expr::Generator(_) => {}
            _ => walk_expr(self, expr),
        }
    }
}

/// Names [`Thunks`]' placeholders, in the order it took the thunks (both
/// walk in the visitor's order; a placeholder is never in a nested scope).
struct Placeholders<'a> {
    names: &'a [String],
    next: RefCell<usize>,
}

impl Transformer for Placeholders<'_> {
    fn visit_expr(&self, expr: &mut Expr) {
        match expr {
            Expr::Name(n) if n.id.is_empty() => {
                let mut k = self.next.borrow_mut();
                n.id = self.names[*k].as_str().into();
                *k += 1;
            }
            _ => walk_expr(self, expr),
        }
    }
}
