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
//! the block). The lambdas converted expressions pass to operators
//! (`and_`'s operands) are not moved: they are expressions, evaluated
//! where the original evaluates them.

use crate::analysis::activity::Activity;
use crate::analysis::{free, Names};
use crate::ast_build::identifiers;
use crate::blocks;
use crate::context::FunctionContext;
use ruff_python_ast::{self as ast, Stmt};

pub fn run(body: &mut Vec<Stmt>, cx: &FunctionContext) {
    let mut function = Activity::of_stmts(body.iter()).bound;
    function.retain(|n| !cx.scope.globals.contains(n));
    function.extend_from(&cx.scope.params);
    function.extend_from(&cx.scope.nonlocals);
    hoist_in(body, &Resolve { function, cx });
}

/// How the converted function resolves a name a generated function leaves free.
struct Resolve<'a, 'n> {
    /// What the converted function binds (its parameters included) or
    /// declares nonlocal: its own or its enclosing functions' variables.
    function: Names,
    cx: &'a FunctionContext<'n>,
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
fn hoist_in(stmts: &mut Vec<Stmt>, r: &Resolve) {
    let mut out = Vec::with_capacity(stmts.len());
    for mut stmt in std::mem::take(stmts) {
        match &mut stmt {
            Stmt::FunctionDef(d) if is_scaffolding(d, r.cx) => {
                let mut inner: Vec<Stmt> = std::mem::take(&mut d.body).into_iter().collect();
                hoist_in(&mut inner, r);
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
            Stmt::FunctionDef(d) if is_scaffolding(d, r.cx) => Some((i, free::of_def(d))),
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
        let staying = free::names_of(Some(params), body.iter().enumerate().filter(|(i, _)| !leaving.iter().any(|(l, _)| l == i)).map(|(_, s)| s));
        let mut lost = Names::new();
        for (_, f) in &leaving {
            lost.extend_from(f);
        }
        // Not its own variables either: what stays binds, and the functions leaving.
        let own = |n: &ruff_python_ast::name::Name| {
            staying.locals.contains(n) || leaving.iter().any(|(i, _)| matches!(&body[*i], Stmt::FunctionDef(d) if d.name.as_str() == n.as_str()))
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
