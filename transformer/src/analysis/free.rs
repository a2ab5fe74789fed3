//! Free names: the names a function, lambda, comprehension or class does
//! not resolve itself, by Python's scoping rules (CPython's symtable): they
//! are its enclosing functions' cells or globals, which the caller tells
//! apart. [`of_function`] is what a function's closure can hold
//! (`__code__.co_freevars` is the part its enclosing functions bind).
//!
//! A function resolves its parameters, what it binds (assignments, `del`,
//! imports, `def`/`class`, `except ... as`, `for`/`with` targets, pattern
//! captures, an assignment expression, also one inside its comprehensions)
//! and what it declares `global`; what it declares `nonlocal` stays free. A
//! nested scope's free names are free here unless this function resolves
//! them; a class body resolves none of its nested scopes' names (a method
//! does not see the class's attributes as variables). Defaults,
//! decorators, annotations, class bases and a comprehension's first
//! iterable are evaluated in the enclosing scope.

use super::activity::{comprehension_parts, own_bindings, pattern_capture};
use super::Names;
use ruff_python_ast::name::Name;
use ruff_python_ast::visitor::{walk_expr, walk_pattern, walk_stmt, Visitor};
use ruff_python_ast::{self as ast, Expr, ExprContext, Stmt};
use rustc_hash::FxHashMap as HashMap;
use std::cell::RefCell;

/// The free names of a function with `params` and `body`.
pub fn of_function<'a>(params: Option<&ast::Parameters>, body: impl IntoIterator<Item = &'a Stmt>) -> Names {
    names_of(params, body).free
}

/// A function's free names, its locals and what it declares global.
pub struct FunctionNames {
    pub free: Names,
    /// Its parameters and what it binds, less what it declares global or nonlocal.
    pub locals: Names,
    pub globals: Names,
}

/// The free names of `def`s, by name, that a caller has recorded as final:
/// a walk meeting such a `def` takes them instead of walking its body. Only
/// for names defined once whose bodies no longer change (hoisting's
/// generated functions, met again at every level they are hoisted through:
/// walking them each time made hoisting quadratic in the nesting depth).
#[derive(Default)]
pub struct Known(RefCell<HashMap<Name, Names>>);

impl Known {
    pub fn record(&self, name: &Name, free: Names) {
        self.0.borrow_mut().insert(name.clone(), free);
    }

    fn get(&self, name: &Name) -> Option<Names> {
        self.0.borrow().get(name).cloned()
    }
}

/// [`FunctionNames`] of a function with `params` and `body`, in one walk.
pub fn names_of<'a>(params: Option<&ast::Parameters>, body: impl IntoIterator<Item = &'a Stmt>) -> FunctionNames {
    names_known(params, body, None)
}

/// [`names_of`], taking the `def`s `known` holds from it.
pub fn names_known<'a>(params: Option<&ast::Parameters>, body: impl IntoIterator<Item = &'a Stmt>, known: Option<&Known>) -> FunctionNames {
    let mut s = ScopeWalk { known, ..ScopeWalk::default() };
    if let Some(p) = params {
        for p in p.iter() {
            s.bound.insert(p.name().id.clone());
        }
    }
    for stmt in body {
        s.visit_stmt(stmt);
    }
    let free = s.free(false);
    let mut locals = s.bound;
    locals.retain(|n| !s.globals.contains(n) && !s.nonlocals.contains(n));
    FunctionNames { free, locals, globals: s.globals }
}

/// The free names of a `def` statement's function (not its decorators or defaults).
pub fn of_def(f: &ast::StmtFunctionDef) -> Names {
    of_function(Some(&f.parameters), &f.body)
}

/// [`of_def`], from `known` if it holds `f`, else walking `f` (its nested
/// `def`s from `known`).
pub fn of_def_known(f: &ast::StmtFunctionDef, known: &Known) -> Names {
    known.get(&f.name.id).unwrap_or_else(|| names_known(Some(&f.parameters), &f.body, Some(known)).free)
}

/// The free names of a lambda (not its defaults).
pub fn of_lambda(l: &ast::ExprLambda) -> Names {
    let mut s = ScopeWalk::default();
    s.function(None, |inner| {
        if let Some(p) = l.parameters.as_deref() {
            for p in p.iter() {
                inner.bound.insert(p.name().id.clone());
            }
        }
        inner.visit_expr(&l.body);
    });
    s.free(false)
}

/// One scope being walked: what it binds, reads and declares, and what its
/// nested scopes leave unresolved.
#[derive(Default)]
struct ScopeWalk<'k> {
    known: Option<&'k Known>,
    bound: Names,
    used: Names,
    globals: Names,
    nonlocals: Names,
    /// Unresolved names of nested scopes.
    nested: Names,
    /// A comprehension: assignment expressions bind in the enclosing function.
    comprehension: bool,
    /// Such bindings, handed to the enclosing scope.
    escaping: Names,
}

impl<'k> ScopeWalk<'k> {
    /// The names this scope leaves unresolved.
    fn free(&self, class: bool) -> Names {
        let mut free = Names::new();
        let resolves = |n: &ruff_python_ast::name::Name| self.bound.contains(n) || self.globals.contains(n);
        for n in self.used.iter() {
            if !resolves(n) && !self.nonlocals.contains(n) {
                free.insert(n.clone());
            }
        }
        for n in self.nested.iter() {
            let resolved = if class { self.globals.contains(n) } else { resolves(n) };
            if !resolved {
                free.insert(n.clone());
            }
        }
        free.extend_from(&self.nonlocals);
        free.extend_from(&self.escaping);
        free
    }

    fn bind(&mut self, name: &str) {
        self.bound.insert(name.into());
    }

    /// A nested scope's unresolved names (and what it binds here).
    fn child(&mut self, child: ScopeWalk<'k>, class: bool) {
        self.nested.extend_from(&child.free(class));
        for n in child.escaping.iter() {
            if self.comprehension {
                self.escaping.insert(n.clone());
            } else {
                self.bound.insert(n.clone());
            }
        }
    }

    fn function(&mut self, params: Option<&ast::Parameters>, body: impl FnOnce(&mut ScopeWalk<'k>)) {
        if let Some(p) = params {
            for p in p.iter() {
                if let Some(d) = p.default() {
                    self.visit_expr(d);
                }
                if let Some(a) = p.annotation() {
                    self.visit_expr(a);
                }
            }
        }
        let mut inner = ScopeWalk { known: self.known, ..ScopeWalk::default() };
        if let Some(p) = params {
            for p in p.iter() {
                inner.bound.insert(p.name().id.clone());
            }
        }
        body(&mut inner);
        // A lambda's or function's walrus binds in itself: nothing escapes.
        inner.escaping = Names::new();
        self.child(inner, false);
    }

    fn comprehension(&mut self, generators: &[ast::Comprehension], elts: &[&Expr]) {
        if let Some(first) = generators.first() {
            self.visit_expr(&first.iter);
        }
        let mut inner = ScopeWalk { comprehension: true, known: self.known, ..ScopeWalk::default() };
        for (i, g) in generators.iter().enumerate() {
            if i > 0 {
                inner.visit_expr(&g.iter);
            }
            inner.visit_expr(&g.target);
            for c in &g.ifs {
                inner.visit_expr(c);
            }
        }
        for e in elts {
            inner.visit_expr(e);
        }
        self.child(inner, false);
    }
}

impl<'a> Visitor<'a> for ScopeWalk<'_> {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        match stmt {
            Stmt::FunctionDef(f) => {
                for d in &f.decorator_list {
                    self.visit_expr(&d.expression);
                }
                if let Some(r) = &f.returns {
                    self.visit_expr(r);
                }
                match self.known.and_then(|k| k.get(&f.name.id)) {
                    // As `function` would leave it: the parameters' parts here, the body's free names nested.
                    Some(free) => self.function(Some(&f.parameters), |inner| inner.nested = free),
                    None => self.function(Some(&f.parameters), |inner| {
                        for s in &f.body {
                            inner.visit_stmt(s);
                        }
                    }),
                }
                self.bind(f.name.as_str());
            }
            Stmt::ClassDef(c) => {
                for d in &c.decorator_list {
                    self.visit_expr(&d.expression);
                }
                if let Some(args) = &c.arguments {
                    self.visit_arguments(args);
                }
                let mut inner = ScopeWalk { known: self.known, ..ScopeWalk::default() };
                for s in &c.body {
                    inner.visit_stmt(s);
                }
                inner.escaping = Names::new();
                self.child(inner, true);
                self.bind(c.name.as_str());
            }
            Stmt::Global(g) => self.globals.extend(g.names.iter().map(|n| n.id.clone())),
            Stmt::Nonlocal(n) => self.nonlocals.extend(n.names.iter().map(|n| n.id.clone())),
            Stmt::Import(_) | Stmt::ImportFrom(_) | Stmt::Try(_) => {
                for bound in own_bindings(stmt) {
                    self.bind(&bound);
                }
                walk_stmt(self, stmt);
            }
            Stmt::AugAssign(a) => {
                if let Expr::Name(n) = &*a.target {
                    self.used.insert(n.id.clone());
                }
                walk_stmt(self, stmt);
            }
            _ => walk_stmt(self, stmt),
        }
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        match expr {
            Expr::Name(n) => match n.ctx {
                ExprContext::Load => {
                    self.used.insert(n.id.clone());
                }
                _ => self.bind(n.id.as_str()),
            },
            Expr::Named(n) => {
                self.visit_expr(&n.value);
                if let Expr::Name(t) = &*n.target {
                    if self.comprehension {
                        self.escaping.insert(t.id.clone());
                    } else {
                        self.bind(t.id.as_str());
                    }
                }
            }
            Expr::Lambda(l) => self.function(l.parameters.as_deref(), |inner| inner.visit_expr(&l.body)),
            _ => match comprehension_parts(expr) {
                Some((generators, elts)) => self.comprehension(generators, &elts),
                None => walk_expr(self, expr),
            },
        }
    }

    fn visit_pattern(&mut self, pattern: &'a ast::Pattern) {
        if let Some(n) = pattern_capture(pattern) {
            self.bind(n.as_str());
        }
        walk_pattern(self, pattern);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The free names of the first function of `source`, sorted.
    fn free(source: &str) -> Vec<String> {
        let parsed = ruff_python_parser::parse_module(source).expect("parses");
        let Stmt::FunctionDef(f) = &parsed.syntax().body[0] else { panic!("a def first") };
        let mut names: Vec<String> = of_def(f).iter().map(|n| n.to_string()).collect();
        names.sort();
        names
    }

    #[test]
    fn as_python_resolves_them() {
        // Reads, a nonlocal declaration, a global one.
        assert_eq!(free("def f(a):\n    nonlocal x\n    global g\n    g = a + y + x\n"), ["x", "y"]);
        // A comprehension's variables are its own; its first iterable is read here.
        assert_eq!(free("def f():\n    return [i + k for i in xs if i]\n"), ["k", "xs"]);
        // A walrus in a comprehension binds in the function.
        assert_eq!(free("def f():\n    [(t := i) for i in xs]\n    return t\n"), ["xs"]);
        // A lambda's parameters are its own; its default is read here.
        assert_eq!(free("def f():\n    return lambda i, j=d: i + j + e\n"), ["d", "e"]);
        // A nested function's free names are the function's unless it binds them.
        assert_eq!(free("def f():\n    def g():\n        return a + b\n    a = 1\n    return g\n"), ["b"]);
        // A class resolves none of its methods' names.
        assert_eq!(free("def f():\n    class C:\n        x = 1\n        def m(self):\n            return x\n    return C\n"), ["x"]);
        // A nested function's nonlocal is free here unless bound here.
        assert_eq!(free("def f():\n    def g():\n        nonlocal n, m\n        n = m = 1\n    n = 0\n"), ["m"]);
        // Imports, except names, pattern captures and augmented targets.
        assert_eq!(free("def f(v):\n    import os.path as p\n    try:\n        q = 1\n    except E as e:\n        pass\n    match v:\n        case [c]:\n            c += w\n    s += 1\n"), ["E", "w"]);
    }
}
