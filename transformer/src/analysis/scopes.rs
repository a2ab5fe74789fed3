//! A function's scope: which names are its own locals.

use super::activity::Activity;
use super::Names;
use ruff_python_ast::{Parameters, Stmt};

#[derive(Debug, Default, Clone)]
pub struct Scope {
    pub params: Names,
    pub globals: Names,
    pub nonlocals: Names,
    /// Locals of the function: parameters and names it binds, less those
    /// declared global or nonlocal.
    pub locals: Names,
    /// Names that nested scopes mention (cells when they are locals).
    pub nested: Names,
}

impl Scope {
    pub fn of_function(params: Option<&Parameters>, body: &[Stmt]) -> Scope {
        let a = Activity::of_stmts(body);
        let params: Names = params.map(|p| p.iter().map(|p| p.name().id.clone()).collect()).unwrap_or_default();
        let locals =
            params.iter().chain(a.bound.iter()).filter(|n| !a.globals.contains(*n) && !a.nonlocals.contains(*n)).cloned().collect();
        Scope { params, globals: a.globals, nonlocals: a.nonlocals, locals, nested: a.nested }
    }

    pub fn is_local(&self, name: &str) -> bool {
        self.locals.contains(name)
    }

    /// A local the original function already kept in a cell (a nested scope reads it).
    pub fn is_cell(&self, name: &str) -> bool {
        self.is_local(name) && self.nested.contains(name)
    }
}
