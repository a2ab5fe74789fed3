//! Expression reductions: replace an expression by a literal (`0`, `1`,
//! `True`, `None`, `""`) or by one of its own subexpressions; shorten
//! lists, tuples, sets, dicts, call argument lists, `and`/`or` chains and
//! comparison chains by one element.
//!
//! Sites are the expressions a program reads, numbered in the AST's
//! evaluation order; assignment targets are never sites (`0 = x` is not
//! Python), nor callees (`f(x)` → `0(x)` is never what a person writes),
//! though their parts are.

use super::Pass;
use stagecheck_transformer::syntax::ast::visitor::transformer::{walk_expr, Transformer};
use stagecheck_transformer::syntax::ast::{Expr, ExprContext, Suite};
use stagecheck_transformer::syntax::parse_expr;
use std::cell::{Cell, RefCell};

pub const REPLACE: Pass = Pass { name: "replace expressions", sites: count, candidates: replace_candidates };
pub const SHORTEN: Pass = Pass { name: "shorten sequences", sites: count, candidates: shorten_candidates };

/// The literals an expression may become, shortest first.
const LITERALS: &[&str] = &["0", "1", "True", "None", "''"];

/// Read, not written: assignment and `del` targets keep their place.
fn replaceable(e: &Expr) -> bool {
    let ctx = match e {
        Expr::Name(n) => n.ctx,
        Expr::Attribute(a) => a.ctx,
        Expr::Subscript(s) => s.ctx,
        Expr::Starred(s) => s.ctx,
        Expr::List(l) => l.ctx,
        Expr::Tuple(t) => t.ctx,
        Expr::IpyEscapeCommand(_) => ExprContext::Invalid,
        _ => ExprContext::Load,
    };
    ctx == ExprContext::Load
}

type Action<'f> = Box<dyn FnOnce(&mut Expr) + 'f>;

/// Numbers the sites; at site `target`, runs `action` on it.
struct Sites<'f> {
    seen: Cell<usize>,
    target: usize,
    action: RefCell<Option<Action<'f>>>,
}

impl Transformer for Sites<'_> {
    fn visit_expr(&self, e: &mut Expr) {
        if replaceable(e) {
            let k = self.seen.get();
            self.seen.set(k + 1);
            if k == self.target {
                if let Some(action) = self.action.borrow_mut().take() {
                    action(e);
                }
                return;
            }
        }
        match e {
            // The callee's parts, not the callee.
            Expr::Call(call) => {
                walk_expr(self, &mut call.func);
                self.visit_arguments(&mut call.arguments);
            }
            _ => walk_expr(self, e),
        }
    }
}

fn walk<'f>(tree: &mut Suite, target: usize, action: Option<Action<'f>>) -> usize {
    let sites = Sites { seen: Cell::new(0), target, action: RefCell::new(action) };
    for s in tree.iter_mut() {
        sites.visit_stmt(s);
    }
    sites.seen.get()
}

/// How many expression sites `tree` has.
pub fn count(tree: &Suite) -> usize {
    walk(&mut tree.clone(), usize::MAX, None)
}

/// The expression at site `k`.
pub fn at(tree: &Suite, k: usize) -> Option<Expr> {
    let found = RefCell::new(None);
    walk(&mut tree.clone(), k, Some(Box::new(|e: &mut Expr| *found.borrow_mut() = Some(e.clone()))));
    found.into_inner()
}

/// `tree` with site `k` replaced by `new`.
pub fn with(tree: &Suite, k: usize, new: Expr) -> Suite {
    let mut t = tree.clone();
    walk(&mut t, k, Some(Box::new(move |e: &mut Expr| *e = new)));
    t
}

/// The sites directly inside `e` (one level down).
fn children(e: &Expr) -> Vec<Expr> {
    struct Collect(RefCell<Vec<Expr>>);
    impl Transformer for Collect {
        fn visit_expr(&self, e: &mut Expr) {
            if replaceable(e) {
                self.0.borrow_mut().push(e.clone());
            }
        }
    }
    let collect = Collect(RefCell::new(Vec::new()));
    let mut e = e.clone();
    match &mut e {
        Expr::Call(call) => collect.visit_arguments(&mut call.arguments),
        other => walk_expr(&collect, other),
    }
    collect.0.into_inner()
}

fn replace_candidates(tree: &Suite, k: usize) -> Vec<Suite> {
    let Some(e) = at(tree, k) else { return vec![] };
    let literals = LITERALS.iter().map(|l| parse_expr(l).expect("literals parse"));
    literals.chain(children(&e)).map(|new| with(tree, k, new)).collect()
}

/// `e` less one of its elements, for each element.
fn shortened(e: &Expr) -> Vec<Expr> {
    fn without<T: Clone>(items: &[T], i: usize) -> Vec<T> {
        let mut v = items.to_vec();
        v.remove(i);
        v
    }
    let mut out = Vec::new();
    let mut each = |n: usize, make: &mut dyn FnMut(&mut Expr, usize)| {
        for i in (0..n).rev() {
            let mut copy = e.clone();
            make(&mut copy, i);
            out.push(copy);
        }
    };
    match e {
        Expr::List(l) => each(l.elts.len(), &mut |c, i| {
            if let Expr::List(l) = c {
                l.elts.remove(i);
            }
        }),
        Expr::Tuple(t) => each(t.elts.len(), &mut |c, i| {
            if let Expr::Tuple(t) = c {
                t.elts.remove(i);
            }
        }),
        Expr::Set(s) if s.elts.len() > 1 => each(s.elts.len(), &mut |c, i| {
            if let Expr::Set(s) = c {
                s.elts.remove(i);
            }
        }),
        Expr::Dict(d) => each(d.items.len(), &mut |c, i| {
            if let Expr::Dict(d) = c {
                d.items.remove(i);
            }
        }),
        Expr::BoolOp(b) if b.values.len() > 2 => each(b.values.len(), &mut |c, i| {
            if let Expr::BoolOp(b) = c {
                b.values.remove(i);
            }
        }),
        Expr::Compare(c) if c.comparators.len() > 1 => {
            let n = c.comparators.len();
            let mut copy = e.clone();
            if let Expr::Compare(c) = &mut copy {
                c.ops = c.ops[..n - 1].into();
                c.comparators = c.comparators[..n - 1].into();
            }
            out.push(copy);
        }
        Expr::Call(call) => {
            let (args, keywords) = (call.arguments.args.len(), call.arguments.keywords.len());
            each(keywords, &mut |c, i| {
                if let Expr::Call(c) = c {
                    c.arguments.keywords.remove(i);
                }
            });
            each(args, &mut |c, i| {
                if let Expr::Call(c) = c {
                    c.arguments.args = without(&c.arguments.args, i).into();
                }
            });
        }
        _ => {}
    }
    out
}

fn shorten_candidates(tree: &Suite, k: usize) -> Vec<Suite> {
    let Some(e) = at(tree, k) else { return vec![] };
    shortened(&e).into_iter().map(|new| with(tree, k, new)).collect()
}
