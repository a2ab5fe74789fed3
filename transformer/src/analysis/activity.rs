//! Activity: the names code binds and reads, in the scope it runs in.
//!
//! Bodies of nested functions, lambdas, classes and comprehensions are other
//! scopes: a name they mention is recorded as `nested` (a free variable
//! there, a cell here), and bindings in them do not count, except an
//! assignment expression inside a comprehension, which Python binds in the
//! enclosing function. `global`/`nonlocal` declarations are recorded as such.

use super::Names;
use ruff_python_ast::visitor::{walk_expr, walk_pattern, walk_stmt, Visitor};
use ruff_python_ast::{self as ast, Expr, ExprContext, Stmt};

#[derive(Default, Debug, Clone)]
pub struct Activity {
    /// Names bound (assigned, deleted, imported, defined, caught as) here.
    pub bound: Names,
    /// Names read here.
    pub read: Names,
    /// Names mentioned in nested scopes.
    pub nested: Names,
    pub globals: Names,
    pub nonlocals: Names,
}

impl Activity {
    pub fn of_stmts<'a>(stmts: impl IntoIterator<Item = &'a Stmt>) -> Activity {
        let mut v = Walker::default();
        for s in stmts {
            v.visit_stmt(s);
        }
        v.a
    }

    pub fn of_stmt(stmt: &Stmt) -> Activity {
        Activity::of_stmts(std::slice::from_ref(stmt))
    }

    /// Only what `stmts` bind in this scope (`bound`, `globals`,
    /// `nonlocals`): the bodies of nested functions, classes and lambdas,
    /// which bind nothing here, are not walked.
    pub fn bound_by(stmts: &[Stmt]) -> Names {
        Activity::bindings_of(stmts).bound
    }

    /// [`Activity::bound_by`] with what `stmts` declare `global` and
    /// `nonlocal`: the rest is empty.
    pub fn bindings_of(stmts: &[Stmt]) -> Activity {
        let mut v = Walker { bound_only: true, ..Walker::default() };
        for s in stmts {
            v.visit_stmt(s);
        }
        v.a
    }

    pub fn of_expr(expr: &Expr) -> Activity {
        let mut v = Walker::default();
        v.visit_expr(expr);
        v.a
    }

    /// Everything read, here or by nested scopes (what liveness counts).
    pub fn uses(&self) -> Names {
        let mut uses = self.read.clone();
        uses.extend_from(&self.nested);
        uses
    }
}

/// The name an import alias binds (`import a.b` binds `a`); none for `*`.
pub fn import_binding(alias: &ast::Alias) -> Option<String> {
    let bound = match &alias.asname {
        Some(a) => a.as_str(),
        None => alias.name.split('.').next().unwrap_or(""),
    };
    (bound != "*").then(|| bound.to_string())
}

/// The names an import, or a `try`'s `except ... as` handlers, bind by
/// themselves (not in their blocks).
pub fn own_bindings(stmt: &Stmt) -> Vec<String> {
    match stmt {
        Stmt::Import(ast::StmtImport { names, .. }) | Stmt::ImportFrom(ast::StmtImportFrom { names, .. }) => {
            names.iter().filter_map(import_binding).collect()
        }
        Stmt::Try(t) => {
            t.handlers.iter().filter_map(|ast::ExceptHandler::ExceptHandler(h)| h.name.as_ref().map(|n| n.to_string())).collect()
        }
        _ => Vec::new(),
    }
}

/// A comprehension's generators and the expressions it makes each element
/// of (a dict comprehension's key and value), or None for any other expression.
pub fn comprehension_parts(expr: &Expr) -> Option<(&[ast::Comprehension], Vec<&Expr>)> {
    match expr {
        Expr::ListComp(ast::ExprListComp { elt, generators, .. })
        | Expr::SetComp(ast::ExprSetComp { elt, generators, .. })
        | Expr::Generator(ast::ExprGenerator { elt, generators, .. }) => Some((generators, vec![&**elt])),
        Expr::DictComp(ast::ExprDictComp { key, value, generators, .. }) => {
            let mut elts: Vec<&Expr> = key.iter().map(|k| &**k).collect();
            elts.push(value);
            Some((generators, elts))
        }
        _ => None,
    }
}

/// The name a pattern captures itself (`case x`, `case [*rest]`, `case
/// {**rest}`), not counting its sub-patterns.
pub fn pattern_capture(pattern: &ast::Pattern) -> Option<&ast::Identifier> {
    match pattern {
        ast::Pattern::MatchAs(ast::PatternMatchAs { name, .. })
        | ast::Pattern::MatchStar(ast::PatternMatchStar { name, .. })
        | ast::Pattern::MatchMapping(ast::PatternMatchMapping { rest: name, .. }) => name.as_ref(),
        _ => None,
    }
}

/// Every name `pattern` and its sub-patterns capture.
pub fn pattern_names(pattern: &ast::Pattern) -> Vec<String> {
    struct P(Vec<String>);
    impl Visitor<'_> for P {
        fn visit_pattern(&mut self, pattern: &ast::Pattern) {
            self.0.extend(pattern_capture(pattern).map(|n| n.to_string()));
            walk_pattern(self, pattern);
        }
    }
    let mut p = P(Vec::new());
    p.visit_pattern(pattern);
    p.0
}

#[derive(Default)]
struct Walker {
    a: Activity,
    /// Depth of nested scopes we are in (0: the scope analysed).
    depth: usize,
    /// Inside a comprehension (walrus targets bind in the enclosing function).
    comprehension: usize,
    /// Only bindings count ([`Activity::bound_by`]).
    bound_only: bool,
}

impl Walker {
    fn bind(&mut self, name: &str) {
        if self.depth == 0 {
            self.a.bound.insert(name.into());
        } else {
            self.a.nested.insert(name.into());
        }
    }

    /// Walks the body of a nested function, class or lambda.
    fn nested(&mut self, f: impl FnOnce(&mut Self)) {
        if self.bound_only {
            return;
        }
        self.depth += 1;
        f(self);
        self.depth -= 1;
    }

    fn visit_params(&mut self, params: &ast::Parameters) {
        for p in params.iter() {
            if let Some(d) = p.default() {
                self.visit_expr(d);
            }
            if let Some(a) = p.annotation() {
                self.visit_expr(a);
            }
        }
    }
}

impl<'a> Visitor<'a> for Walker {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        match stmt {
            Stmt::FunctionDef(f) => {
                for d in &f.decorator_list {
                    self.visit_expr(&d.expression);
                }
                self.visit_params(&f.parameters);
                if let Some(r) = &f.returns {
                    self.visit_expr(r);
                }
                self.bind(f.name.as_str());
                self.nested(|w| {
                    for s in &f.body {
                        w.visit_stmt(s);
                    }
                });
            }
            Stmt::ClassDef(c) => {
                for d in &c.decorator_list {
                    self.visit_expr(&d.expression);
                }
                if let Some(args) = &c.arguments {
                    self.visit_arguments(args);
                }
                self.bind(c.name.as_str());
                self.nested(|w| {
                    for s in &c.body {
                        w.visit_stmt(s);
                    }
                });
            }
            Stmt::Global(g) => {
                if self.depth == 0 {
                    self.a.globals.extend(g.names.iter().map(|n| n.id.clone()));
                }
            }
            Stmt::Nonlocal(n) => {
                if self.depth == 0 {
                    self.a.nonlocals.extend(n.names.iter().map(|n| n.id.clone()));
                }
            }
            Stmt::Import(_) | Stmt::ImportFrom(_) | Stmt::Try(_) => {
                for bound in own_bindings(stmt) {
                    self.bind(&bound);
                }
                walk_stmt(self, stmt);
            }
            Stmt::AugAssign(a) => {
                if let Expr::Name(n) = &*a.target {
                    if self.depth == 0 {
                        self.a.read.insert(n.id.clone());
                    }
                }
                walk_stmt(self, stmt);
            }
            _ => walk_stmt(self, stmt),
        }
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        match expr {
            Expr::Name(n) => match n.ctx {
                ExprContext::Load if self.bound_only => {}
                ExprContext::Load => {
                    if self.depth == 0 {
                        self.a.read.insert(n.id.clone());
                    } else {
                        self.a.nested.insert(n.id.clone());
                    }
                }
                _ => self.bind(n.id.as_str()),
            },
            Expr::Named(n) => {
                self.visit_expr(&n.value);
                if let Expr::Name(t) = &*n.target {
                    // In a comprehension, the target binds in the enclosing function.
                    if self.comprehension > 0 && self.depth == self.comprehension {
                        self.depth -= self.comprehension;
                        self.bind(t.id.as_str());
                        self.depth += self.comprehension;
                    } else {
                        self.bind(t.id.as_str());
                    }
                }
            }
            Expr::Lambda(l) => {
                if let Some(p) = &l.parameters {
                    self.visit_params(p);
                }
                let saved = self.comprehension;
                self.comprehension = 0;
                self.nested(|w| w.visit_expr(&l.body));
                self.comprehension = saved;
            }
            _ => match comprehension_parts(expr) {
                Some((generators, elts)) => self.comprehension_(generators, &elts),
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

impl Walker {
    /// The first iterable is evaluated in the enclosing scope; the rest in the
    /// comprehension's own.
    fn comprehension_(&mut self, generators: &[ast::Comprehension], elts: &[&Expr]) {
        if let Some(first) = generators.first() {
            self.visit_expr(&first.iter);
        }
        let saved = self.comprehension;
        self.depth += 1;
        self.comprehension = self.depth;
        for (i, g) in generators.iter().enumerate() {
            if i > 0 {
                self.visit_expr(&g.iter);
            }
            self.visit_expr(&g.target);
            for c in &g.ifs {
                self.visit_expr(c);
            }
        }
        for e in elts {
            self.visit_expr(e);
        }
        self.depth -= 1;
        self.comprehension = saved;
    }
}
