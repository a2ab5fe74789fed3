//! Building generated code: AutoGraph-style templates and small constructors.
//!
//! A template is Python source with placeholder names (`BODY`, `COND`, ...);
//! [`stmts`] parses it once (cached), gives every generated statement the
//! range of the original statement it stands for (so the source map can
//! point back at it), gives generated expressions the empty range at 0
//! (user nodes keep their own ranges, which analyses key on), then splices
//! in the user's expressions and statement lists.
//!
//! Placeholders are substituted in the template alone, *then* the user's
//! bodies are spliced in: user code is never walked by the substitution, so
//! a user variable called `NAME` or `BODY` stays the user's (corpus
//! `scoping/019`). The small expressions generated most (`ag__.op`, thunks,
//! `ld`, `ldu_all`, calls) are built directly, not from templates.

use ruff_python_ast::relocate::relocate_expr;
use ruff_python_ast::visitor::transformer::{walk_expr, Transformer};
use ruff_python_ast::{self as ast, Expr, ExprContext, Stmt};
use ruff_text_size::TextRange;
use rustc_hash::FxHashMap as HashMap;
use std::cell::RefCell;

/// What a placeholder is replaced by.
pub enum Sub {
    Expr(Expr),
    Body(Vec<Stmt>),
    /// A placeholder identifier renamed (function names, parameters, targets).
    Name(String),
}

thread_local! {
    static CACHE: RefCell<HashMap<(usize, usize), Vec<Stmt>>> = RefCell::new(HashMap::default());
}

/// Parses `template` (cached) into statements standing for `origin`, with
/// `subs` spliced in.
pub fn stmts(template: &'static str, origin: TextRange, subs: Vec<(&str, Sub)>) -> Vec<Stmt> {
    let mut body = CACHE.with(|c| {
        c.borrow_mut()
            // Keyed by address: each template is a `&'static str`.
            .entry((template.as_ptr() as usize, template.len()))
            .or_insert_with(|| {
                let mut body = ruff_python_parser::parse_module(template)
                    .unwrap_or_else(|e| panic!("bad template {template:?}: {e}"))
                    .into_suite()
                    .into_iter()
                    .collect::<Vec<_>>();
                for s in &mut body {
                    Blank.visit_stmt(s);
                }
                body
            })
            .clone()
    });
    for s in &mut body {
        set_ranges(s, origin);
    }
    // Substitute in the template alone, then splice the bodies in: user code
    // is never walked, so a user's name that happens to spell a placeholder
    // stays as written (and the cost does not grow with nesting depth).
    let subst = Substitute { subs: RefCell::new(subs.into_iter().map(|(k, v)| (k.to_string(), Some(v))).collect()) };
    for s in &mut body {
        subst.visit_stmt(s);
    }
    splice_bodies(&mut body, &subst);
    body
}

/// One statement from a template of one statement.
pub fn stmt(template: &'static str, origin: TextRange, subs: Vec<(&str, Sub)>) -> Stmt {
    let mut v = stmts(template, origin, subs);
    assert_eq!(v.len(), 1, "template {template:?} is not one statement");
    v.pop().unwrap()
}

/// An expression from a template (statement ranges do not matter in it).
pub fn expr(template: &'static str, subs: Vec<(&str, Sub)>) -> Expr {
    match stmt(template, TextRange::default(), subs) {
        Stmt::Expr(e) => *e.value,
        _ => panic!("template {template:?} is not an expression"),
    }
}

/// A name, read.
pub fn name(id: &str) -> Expr {
    Expr::Name(ast::ExprName { node_index: Default::default(), range: TextRange::default(), id: id.into(), ctx: ExprContext::Load })
}

/// A name, assigned.
pub fn target(id: &str) -> Expr {
    let mut e = name(id);
    if let Expr::Name(n) = &mut e {
        n.ctx = ExprContext::Store;
    }
    e
}

/// A string literal (identifiers and source snippets alike).
pub fn string(value: &str) -> Expr {
    let literal = ast::StringLiteral {
        range: TextRange::default(),
        node_index: Default::default(),
        value: value.into(),
        flags: ast::StringLiteralFlags::empty(),
    };
    Expr::StringLiteral(ast::ExprStringLiteral {
        node_index: Default::default(),
        range: TextRange::default(),
        value: ast::StringLiteralValue::single(literal),
    })
}

/// A tuple of string literals: `('a', 'b')`.
pub fn string_tuple(items: &[String]) -> Expr {
    tuple(items.iter().map(|s| string(s)).collect())
}

pub fn tuple(elts: Vec<Expr>) -> Expr {
    Expr::Tuple(ast::ExprTuple {
        node_index: Default::default(),
        range: TextRange::default(),
        elts,
        ctx: ExprContext::Load,
        parenthesized: true,
    })
}

pub fn int(value: usize) -> Expr {
    Expr::NumberLiteral(ast::ExprNumberLiteral {
        node_index: Default::default(),
        range: TextRange::default(),
        value: ast::Number::Int(ast::Int::from(value as u64)),
    })
}

/// `lambda: body`, generated (empty range: see [`is_generated_lambda`]).
pub fn thunk(body: Expr) -> Expr {
    Expr::Lambda(ast::ExprLambda { node_index: Default::default(), range: TextRange::default(), parameters: None, body: Box::new(body) })
}

/// `None` (also what an expression is replaced by while it moves).
pub fn none() -> Expr {
    Expr::NoneLiteral(ast::ExprNoneLiteral { node_index: Default::default(), range: TextRange::default() })
}

/// `value.attr`, read.
pub fn attribute(value: Expr, attr: &str) -> Expr {
    Expr::Attribute(ast::ExprAttribute {
        node_index: Default::default(),
        range: TextRange::default(),
        value: Box::new(value),
        attr: ast::Identifier::new(attr, TextRange::default()),
        ctx: ExprContext::Load,
    })
}

/// `func(args...)`. The small calls the passes generate most are built
/// directly rather than from a template: conversion time is mostly theirs.
pub fn call(func: Expr, args: Vec<Expr>) -> Expr {
    Expr::Call(ast::ExprCall {
        node_index: Default::default(),
        range_start: Default::default(),
        func: Box::new(func),
        arguments: ast::Arguments {
            range: TextRange::default(),
            node_index: Default::default(),
            args: args.into_boxed_slice(),
            keywords: Default::default(),
        },
    })
}

/// `def name(params): body`, standing for `origin` (the thunks and state
/// functions of control flow, built directly for the same reason).
pub fn function_def(name: &str, params: &[String], body: Vec<Stmt>, origin: TextRange) -> Stmt {
    let parameter = |p: &String| ast::ParameterWithDefault {
        range: TextRange::default(),
        node_index: Default::default(),
        parameter: ast::Parameter {
            range: TextRange::default(),
            node_index: Default::default(),
            name: ast::Identifier::new(p.as_str(), TextRange::default()),
            annotation: None,
        },
        default: None,
    };
    Stmt::FunctionDef(ast::StmtFunctionDef {
        node_index: Default::default(),
        range: origin,
        is_async: false,
        decorator_list: Default::default(),
        name: ast::Identifier::new(name, TextRange::default()),
        type_params: None,
        parameters: Box::new(ast::Parameters {
            range: TextRange::default(),
            node_index: Default::default(),
            posonlyargs: Default::default(),
            args: params.iter().map(parameter).collect(),
            vararg: None,
            kwonlyargs: Default::default(),
            kwarg: None,
        }),
        returns: None,
        body: body.into_iter().collect(),
    })
}

/// `return value`, standing for `origin`.
pub fn return_stmt(value: Expr, origin: TextRange) -> Stmt {
    Stmt::Return(ast::StmtReturn { node_index: Default::default(), range: origin, value: Some(Box::new(value)) })
}

/// `target = value`, standing for `origin`.
pub fn assign(target: Expr, value: Expr, origin: TextRange) -> Stmt {
    Stmt::Assign(ast::StmtAssign { node_index: Default::default(), range: origin, targets: vec![target], value: Box::new(value) })
}

/// An expression statement, standing for `origin`.
pub fn expr_stmt(value: Expr, origin: TextRange) -> Stmt {
    Stmt::Expr(ast::StmtExpr { node_index: Default::default(), range: origin, value: Box::new(value) })
}

/// `pass`, standing for `origin`.
pub fn pass(origin: TextRange) -> Stmt {
    Stmt::Pass(ast::StmtPass { node_index: Default::default(), range: origin })
}

/// Generated lambdas carry the empty range at 0; a user's never does.
pub fn is_generated_lambda(e: &ast::ExprLambda) -> bool {
    e.range == TextRange::default()
}

/// `names` as the targets of a declaration statement (`nonlocal a, b`).
pub fn identifiers(names: &[String]) -> Vec<ast::Identifier> {
    names.iter().map(|n| ast::Identifier::new(n.as_str(), TextRange::default())).collect()
}

/// The range of a statement, to write.
pub fn range_mut(stmt: &mut Stmt) -> &mut TextRange {
    match stmt {
        Stmt::FunctionDef(s) => &mut s.range,
        Stmt::ClassDef(s) => &mut s.range,
        Stmt::Return(s) => &mut s.range,
        Stmt::Delete(s) => &mut s.range,
        Stmt::TypeAlias(s) => &mut s.range,
        Stmt::Assign(s) => &mut s.range,
        Stmt::AugAssign(s) => &mut s.range,
        Stmt::AnnAssign(s) => &mut s.range,
        Stmt::For(s) => &mut s.range,
        Stmt::While(s) => &mut s.range,
        Stmt::If(s) => &mut s.range,
        Stmt::With(s) => &mut s.range,
        Stmt::Match(s) => &mut s.range,
        Stmt::Raise(s) => &mut s.range,
        Stmt::Try(s) => &mut s.range,
        Stmt::Assert(s) => &mut s.range,
        Stmt::Import(s) => &mut s.range,
        Stmt::ImportFrom(s) => &mut s.range,
        Stmt::Global(s) => &mut s.range,
        Stmt::Nonlocal(s) => &mut s.range,
        Stmt::Expr(s) => &mut s.range,
        Stmt::Pass(s) => &mut s.range,
        Stmt::Break(s) => &mut s.range,
        Stmt::Continue(s) => &mut s.range,
        Stmt::IpyEscapeCommand(s) => &mut s.range,
    }
}

/// Gives `stmt` and every statement nested in it the range `origin`.
pub fn set_ranges(stmt: &mut Stmt, origin: TextRange) {
    *range_mut(stmt) = origin;
    crate::blocks::for_each_block(stmt, &mut |b| {
        for s in b.iter_mut() {
            set_ranges(s, origin);
        }
    });
}

/// Template expressions get the empty range at 0 (generated).
struct Blank;

impl Transformer for Blank {
    fn visit_expr(&self, expr: &mut Expr) {
        relocate_expr(expr, TextRange::default());
    }
}

struct Substitute {
    subs: RefCell<HashMap<String, Option<Sub>>>,
}

impl Substitute {
    fn take(&self, id: &str) -> Option<Sub> {
        let mut subs = self.subs.borrow_mut();
        let slot = subs.get_mut(id)?;
        Some(slot.take().unwrap_or_else(|| panic!("template placeholder {id} used twice")))
    }

    fn rename(&self, ident: &mut ast::Identifier) {
        if let Some(Sub::Name(n)) = self.peek_name(ident.as_str()) {
            ident.id = n.as_str().into();
        }
    }

    fn peek_name(&self, id: &str) -> Option<Sub> {
        match self.subs.borrow().get(id) {
            Some(Some(Sub::Name(n))) => Some(Sub::Name(n.clone())),
            _ => None,
        }
    }
}

impl Transformer for Substitute {
    fn visit_stmt(&self, stmt: &mut Stmt) {
        match stmt {
            Stmt::FunctionDef(f) => {
                self.rename(&mut f.name);
                let p = &mut *f.parameters;
                for p in p.posonlyargs.iter_mut().chain(p.args.iter_mut()).chain(p.kwonlyargs.iter_mut()) {
                    self.rename(&mut p.parameter.name);
                }
            }
            Stmt::Nonlocal(ast::StmtNonlocal { names, .. }) | Stmt::Global(ast::StmtGlobal { names, .. }) => {
                for n in names {
                    self.rename(n);
                }
            }
            _ => {}
        }
        ruff_python_ast::visitor::transformer::walk_stmt(self, stmt);
    }

    fn visit_expr(&self, expr: &mut Expr) {
        if let Expr::Name(n) = expr {
            if let Some(Sub::Name(new)) = self.peek_name(n.id.as_str()) {
                n.id = new.as_str().into();
                return;
            }
            match self.subs.borrow().get(n.id.as_str()) {
                // Bodies are spliced in afterwards, by `splice_bodies`.
                Some(Some(Sub::Body(_))) => return,
                Some(Some(Sub::Name(_))) => unreachable!(),
                _ => {}
            }
            if let Some(sub) = self.take(n.id.as_str()) {
                match sub {
                    Sub::Expr(e) => *expr = e,
                    _ => panic!("placeholder {} is not an expression", n.id),
                }
                return;
            }
        }
        walk_expr(self, expr);
    }
}

/// Replaces statements that are a bare body placeholder (`BODY`) by the body.
fn splice_bodies(body: &mut Vec<Stmt>, subst: &Substitute) {
    let mut i = 0;
    while i < body.len() {
        let placeholder = match &body[i] {
            Stmt::Expr(ast::StmtExpr { value, .. }) => match &**value {
                Expr::Name(n) if matches!(subst.subs.borrow().get(n.id.as_str()), Some(Some(Sub::Body(_)))) => Some(n.id.to_string()),
                _ => None,
            },
            _ => None,
        };
        if let Some(id) = placeholder {
            let Some(Sub::Body(stmts)) = subst.take(&id) else { unreachable!() };
            let n = stmts.len();
            body.splice(i..=i, stmts);
            i += n;
            continue;
        }
        match &mut body[i] {
            Stmt::FunctionDef(f) => {
                let mut b: Vec<Stmt> = std::mem::take(&mut f.body).into_iter().collect();
                splice_bodies(&mut b, subst);
                f.body = b.into_iter().collect();
            }
            other => crate::blocks::for_each_block_vec(other, &mut |b| splice_bodies(b, subst)),
        }
        i += 1;
    }
}
