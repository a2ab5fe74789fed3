//! Fresh names for what the converter introduces.
//!
//! Every identifier of the module is reserved up front, so a generated name
//! (`if_body`, `break_`, `ag__`, ...) never captures or shadows a user's.
//! The set of generated names tells later passes which functions are
//! generated thunks and which are the user's.

use crate::analysis::activity::{import_binding, pattern_capture};
use ruff_python_ast::visitor::{walk_expr, walk_stmt, Visitor};
use ruff_python_ast::{self as ast, Expr, Stmt};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

#[derive(Default)]
pub struct Namer {
    used: HashSet<String>,
    generated: HashSet<String>,
    /// The next suffix to try for each base, so that the n-th `if_body`
    /// costs one lookup, not n.
    next: HashMap<String, usize>,
}

impl Namer {
    /// Reserves every identifier appearing in `module`.
    pub fn new(module: &[Stmt]) -> Namer {
        let mut collect = Collect(HashSet::default());
        for s in module {
            collect.visit_stmt(s);
        }
        Namer { used: collect.0, ..Namer::default() }
    }

    /// A name based on `base`, unused so far; reserved from now on.
    pub fn new_name(&mut self, base: &str) -> String {
        // `next`: the suffix to try next (0: the bare base).
        let next = match self.next.get_mut(base) {
            Some(next) => next,
            None => self.next.entry(base.to_string()).or_insert(0),
        };
        let mut candidate = base.to_string();
        loop {
            if *next > 0 {
                candidate = format!("{base}_{next}");
            }
            *next += 1;
            if !self.used.contains(&candidate) {
                break;
            }
        }
        self.used.insert(candidate.clone());
        self.generated.insert(candidate.clone());
        candidate
    }

    pub fn is_generated(&self, name: &str) -> bool {
        self.generated.contains(name)
    }
}

struct Collect(HashSet<String>);

impl Visitor<'_> for Collect {
    fn visit_stmt(&mut self, stmt: &Stmt) {
        match stmt {
            Stmt::FunctionDef(f) => {
                self.0.insert(f.name.to_string());
                for p in f.parameters.iter() {
                    self.0.insert(p.name().to_string());
                }
            }
            Stmt::ClassDef(c) => {
                self.0.insert(c.name.to_string());
            }
            Stmt::Global(ast::StmtGlobal { names, .. }) | Stmt::Nonlocal(ast::StmtNonlocal { names, .. }) => {
                self.0.extend(names.iter().map(|n| n.to_string()));
            }
            Stmt::Import(ast::StmtImport { names, .. }) | Stmt::ImportFrom(ast::StmtImportFrom { names, .. }) => {
                self.0.extend(names.iter().filter_map(import_binding));
            }
            Stmt::Try(t) => {
                for ast::ExceptHandler::ExceptHandler(h) in &t.handlers {
                    if let Some(n) = &h.name {
                        self.0.insert(n.to_string());
                    }
                }
            }
            _ => {}
        }
        walk_stmt(self, stmt);
    }

    fn visit_expr(&mut self, expr: &Expr) {
        match expr {
            Expr::Name(n) => {
                self.0.insert(n.id.to_string());
            }
            Expr::Lambda(l) => {
                if let Some(p) = &l.parameters {
                    for p in p.iter() {
                        self.0.insert(p.name().to_string());
                    }
                }
            }
            _ => {}
        }
        walk_expr(self, expr);
    }

    fn visit_pattern(&mut self, pattern: &ast::Pattern) {
        self.0.extend(pattern_capture(pattern).map(|n| n.to_string()));
        ruff_python_ast::visitor::walk_pattern(self, pattern);
    }
}
