//! Name reductions: inline a variable assigned once (its reads become the
//! assigned expression, the assignment goes), and, last, rename variables,
//! parameters, functions and classes to short names (`a`, `b`, `c`, ...).
//!
//! Names are matched by spelling, module-wide, not by scope: a candidate
//! that means something else is one the finding does not hold for, and the
//! driver drops it.

use super::tree::{bodies, body_mut, pass, statements};
use super::Pass;
use stagecheck_transformer::syntax::ast::name::Name;
use stagecheck_transformer::syntax::ast::visitor::transformer::{
    walk_except_handler, walk_expr, walk_keyword, walk_parameter, walk_stmt, Transformer,
};
use stagecheck_transformer::syntax::ast::{ExceptHandler, Expr, ExprContext, Identifier, Keyword, Parameter, Stmt, Suite};
use std::cell::RefCell;
use std::collections::HashMap;

pub const INLINE: Pass = Pass { name: "inline variables", sites: |t| inlinable(t).len(), candidates: inline };
pub const RENAME: Pass = Pass { name: "rename", sites: |t| renamable(t).len(), candidates: rename };

/// How a name occurs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Role {
    /// Read (`Load`).
    Read,
    /// Assigned or deleted (`Store`, `Del`: targets, `for`, `with ... as`, walrus).
    Store,
    /// Bound otherwise: a parameter, a `def` or `class`, `except ... as`.
    Bind,
    /// Named in `global`/`nonlocal`, or a keyword argument's name.
    Mention,
    /// An attribute's name or an import: never renamed, but taken.
    Fixed,
}

/// Calls `f` on every identifier of the tree with its role; `f` may rename it.
struct Identifiers<F: FnMut(Role, &mut Name)>(RefCell<F>);

impl<F: FnMut(Role, &mut Name)> Identifiers<F> {
    fn id(&self, role: Role, id: &mut Identifier) {
        (self.0.borrow_mut())(role, &mut id.id);
    }
}

impl<F: FnMut(Role, &mut Name)> Transformer for Identifiers<F> {
    fn visit_stmt(&self, s: &mut Stmt) {
        match s {
            Stmt::FunctionDef(d) => self.id(Role::Bind, &mut d.name),
            Stmt::ClassDef(c) => self.id(Role::Bind, &mut c.name),
            Stmt::Global(g) => g.names.iter_mut().for_each(|n| self.id(Role::Mention, n)),
            Stmt::Nonlocal(n) => n.names.iter_mut().for_each(|n| self.id(Role::Mention, n)),
            Stmt::Import(i) => i.names.iter_mut().for_each(|a| self.id(Role::Fixed, a.asname.as_mut().unwrap_or(&mut a.name))),
            Stmt::ImportFrom(i) => i.names.iter_mut().for_each(|a| self.id(Role::Fixed, a.asname.as_mut().unwrap_or(&mut a.name))),
            _ => {}
        }
        walk_stmt(self, s);
    }
    fn visit_expr(&self, e: &mut Expr) {
        match e {
            Expr::Name(n) => {
                let role = if n.ctx == ExprContext::Load { Role::Read } else { Role::Store };
                (self.0.borrow_mut())(role, &mut n.id);
            }
            Expr::Attribute(a) => self.id(Role::Fixed, &mut a.attr),
            _ => {}
        }
        walk_expr(self, e);
    }
    fn visit_parameter(&self, p: &mut Parameter) {
        self.id(Role::Bind, &mut p.name);
        walk_parameter(self, p);
    }
    fn visit_keyword(&self, k: &mut Keyword) {
        if let Some(arg) = &mut k.arg {
            self.id(Role::Mention, arg);
        }
        walk_keyword(self, k);
    }
    fn visit_except_handler(&self, h: &mut ExceptHandler) {
        let ExceptHandler::ExceptHandler(inner) = h;
        if let Some(name) = &mut inner.name {
            self.id(Role::Bind, name);
        }
        walk_except_handler(self, h);
    }
}

/// Runs `f` over every identifier of `tree` (which it may rename).
fn each_identifier(tree: &mut Suite, f: impl FnMut(Role, &mut Name)) {
    let v = Identifiers(RefCell::new(f));
    for s in tree.iter_mut() {
        v.visit_stmt(s);
    }
}

/// Every name in the tree with the roles it occurs in (counted), in order of first occurrence.
fn occurrences(tree: &Suite) -> Vec<(String, HashMap<Role, usize>)> {
    let mut out: Vec<(String, HashMap<Role, usize>)> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    each_identifier(&mut tree.clone(), |role, name| {
        let i = *index.entry(name.to_string()).or_insert_with(|| {
            out.push((name.to_string(), HashMap::new()));
            out.len() - 1
        });
        *out[i].1.entry(role).or_default() += 1;
    });
    out
}

/// `(body, statement)` of `name = value` for each name read, and assigned
/// once, by that statement alone, and bound nowhere else.
fn inlinable(tree: &Suite) -> Vec<(String, usize, usize)> {
    let all = bodies(tree);
    let mut out = Vec::new();
    for (name, roles) in occurrences(tree) {
        let only_stored_once = roles.get(&Role::Store) == Some(&1) && roles.len() == 2 && roles.contains_key(&Role::Read);
        if !only_stored_once {
            continue;
        }
        let assigns = |s: &Stmt| matches!(s, Stmt::Assign(a) if matches!(&a.targets[..], [Expr::Name(n)] if n.id.as_str() == name));
        if let Some((b, i)) = statements(tree).into_iter().find(|&(b, i)| assigns(&all[b][i])) {
            out.push((name, b, i));
        }
    }
    out
}

fn inline(tree: &Suite, site: usize) -> Vec<Suite> {
    let Some((name, b, i)) = inlinable(tree).into_iter().nth(site) else { return vec![] };
    let mut t = tree.clone();
    let body = body_mut(&mut t, b).expect("site from this tree");
    let Stmt::Assign(assign) = body.remove(i) else { unreachable!("inlinable finds assignments") };
    if body.is_empty() && b > 0 {
        body.push(pass());
    }
    struct Inline<'a>(&'a str, Expr);
    impl Transformer for Inline<'_> {
        fn visit_expr(&self, e: &mut Expr) {
            match e {
                Expr::Name(n) if n.ctx == ExprContext::Load && n.id.as_str() == self.0 => *e = self.1.clone(),
                _ => walk_expr(self, e),
            }
        }
    }
    let v = Inline(&name, *assign.value);
    for s in t.iter_mut() {
        v.visit_stmt(s);
    }
    vec![t]
}

/// Names the program binds (variables, parameters, functions, classes)
/// longer than one letter, dunders and imported names excepted.
fn renamable(tree: &Suite) -> Vec<String> {
    occurrences(tree)
        .into_iter()
        .filter(|(name, roles)| {
            let bound = roles.contains_key(&Role::Store) || roles.contains_key(&Role::Bind);
            bound && name.chars().count() > 1 && !name.starts_with("__") && !roles.contains_key(&Role::Fixed)
        })
        .map(|(name, _)| name)
        .collect()
}

/// The first of `a`..`z`, then `a1`, `b1`, ..., that the program does not use.
fn fresh(tree: &Suite) -> String {
    let taken: Vec<String> = occurrences(tree).into_iter().map(|(n, _)| n).collect();
    (0..)
        .flat_map(|round| (b'a'..=b'z').map(move |c| if round == 0 { (c as char).to_string() } else { format!("{}{round}", c as char) }))
        .find(|n| !taken.contains(n))
        .expect("an unused name")
}

fn rename(tree: &Suite, site: usize) -> Vec<Suite> {
    let Some(old) = renamable(tree).into_iter().nth(site) else { return vec![] };
    let new = Name::new(fresh(tree));
    let mut t = tree.clone();
    each_identifier(&mut t, |role, name| {
        if role != Role::Fixed && name.as_str() == old {
            *name = new.clone();
        }
    });
    vec![t]
}
