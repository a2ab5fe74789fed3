//! Reaching definitions, reduced to the question conversion asks: at a read
//! (or `del`) of one of the function's locals, may no definition reach, so
//! that Python raises UnboundLocalError?
//!
//! A forward "definitely bound" analysis over the structured statements:
//! the state is the set of locals bound on every path; `None` means the
//! point is unreachable (after return, raise, break, continue). Joins
//! intersect. It is conservative: when unsure, a read is reported as
//! possibly unbound, which only costs an `ld` wrapper. Reads inside nested
//! scopes are not reported: they were free variables in the original too.

use super::activity;
use super::scopes::Scope;
use super::Names;
use ruff_python_ast::{self as ast, Expr, ExprContext, Stmt};
use ruff_text_size::TextRange;
use rustc_hash::FxHashSet as HashSet;

type State = Option<Names>;

fn join(a: State, b: State) -> State {
    match (a, b) {
        (None, x) | (x, None) => x,
        (Some(a), Some(b)) if crate::planted::active("definitions_join_union") => Some(a.union(&b).cloned().collect()),
        (Some(a), Some(b)) => Some(a.intersection(&b).cloned().collect()),
    }
}

/// Ranges of `Name` reads and `del` targets of locals that may be unbound there.
pub fn possibly_unbound(scope: &Scope, body: &[Stmt]) -> HashSet<TextRange> {
    let mut a = Analysis { scope, found: HashSet::default(), breaks: Vec::new() };
    a.block(body, Some(scope.params.clone()));
    a.found
}

struct Analysis<'s> {
    scope: &'s Scope,
    found: HashSet<TextRange>,
    /// States at `break`s of the loops we are in (innermost last).
    breaks: Vec<State>,
}

impl Analysis<'_> {
    fn block(&mut self, body: &[Stmt], mut s: State) -> State {
        for stmt in body {
            s = self.stmt(stmt, s);
        }
        s
    }

    fn bind(&self, s: &mut State, name: &str) {
        if let Some(s) = s {
            if self.scope.is_local(name) {
                s.insert(name.into());
            }
        }
    }

    fn stmt(&mut self, stmt: &Stmt, s: State) -> State {
        let mut s = s;
        s.as_ref()?;
        match stmt {
            Stmt::FunctionDef(f) => {
                for d in &f.decorator_list {
                    self.expr(&d.expression, &mut s);
                }
                for p in f.parameters.iter() {
                    if let Some(d) = p.default() {
                        self.expr(d, &mut s);
                    }
                }
                self.bind(&mut s, f.name.as_str());
            }
            Stmt::ClassDef(c) => {
                for d in &c.decorator_list {
                    self.expr(&d.expression, &mut s);
                }
                if let Some(args) = &c.arguments {
                    for a in args.args.iter() {
                        self.expr(a, &mut s);
                    }
                    for k in args.keywords.iter() {
                        self.expr(&k.value, &mut s);
                    }
                }
                self.bind(&mut s, c.name.as_str());
            }
            Stmt::Return(r) => {
                if let Some(v) = &r.value {
                    self.expr(v, &mut s);
                }
                return None;
            }
            Stmt::Raise(r) => {
                if let Some(e) = &r.exc {
                    self.expr(e, &mut s);
                }
                if let Some(c) = &r.cause {
                    self.expr(c, &mut s);
                }
                return None;
            }
            Stmt::Break(_) => {
                if let Some(b) = self.breaks.last_mut() {
                    *b = join(b.take(), s);
                }
                return None;
            }
            Stmt::Continue(_) => return None,
            Stmt::Delete(d) => {
                for t in &d.targets {
                    if let Expr::Name(n) = t {
                        self.check(n.id.as_str(), n.range, &s);
                        if let Some(s) = &mut s {
                            s.remove(n.id.as_str());
                        }
                    } else {
                        self.expr(t, &mut s);
                    }
                }
            }
            Stmt::Assign(a) => {
                self.expr(&a.value, &mut s);
                for t in &a.targets {
                    self.target(t, &mut s);
                }
            }
            Stmt::AugAssign(a) => {
                if let Expr::Name(n) = &*a.target {
                    self.check(n.id.as_str(), n.range, &s);
                } else {
                    self.expr(&a.target, &mut s);
                }
                self.expr(&a.value, &mut s);
                self.target(&a.target, &mut s);
            }
            Stmt::AnnAssign(a) => {
                if let Some(v) = &a.value {
                    self.expr(v, &mut s);
                    self.target(&a.target, &mut s);
                }
            }
            Stmt::If(i) => {
                self.expr(&i.test, &mut s);
                let mut out = self.block(&i.body, s.clone());
                let mut rest = s;
                let mut has_else = false;
                for clause in &i.elif_else_clauses {
                    if let Some(t) = &clause.test {
                        self.expr(t, &mut rest);
                    } else {
                        has_else = true;
                    }
                    out = join(out, self.block(&clause.body, rest.clone()));
                }
                return if has_else { out } else { join(out, rest) };
            }
            Stmt::While(w) => {
                let header = loop_header(&s, &w.body);
                let mut h = header.clone();
                self.expr(&w.test, &mut h);
                self.breaks.push(None);
                self.block(&w.body, h.clone());
                let broke = self.breaks.pop().unwrap();
                let orelse = self.block(&w.orelse, h);
                return join(orelse, broke);
            }
            Stmt::For(f) => {
                self.expr(&f.iter, &mut s);
                let header = loop_header(&s, &f.body);
                let mut inside = header.clone();
                self.target(&f.target, &mut inside);
                self.breaks.push(None);
                self.block(&f.body, inside);
                let broke = self.breaks.pop().unwrap();
                let orelse = self.block(&f.orelse, header);
                return join(orelse, broke);
            }
            Stmt::With(w) => {
                let before = s.clone();
                for item in &w.items {
                    self.expr(&item.context_expr, &mut s);
                    if let Some(v) = &item.optional_vars {
                        self.target(v, &mut s);
                    }
                }
                let end = self.block(&w.body, s.clone());
                // A context manager may swallow an exception raised anywhere in the body.
                return join(end, join(before, s));
            }
            Stmt::Try(t) => {
                let deleted = activity::Activity::bound_by(&t.body);
                // An exception may leave the body at any point: a handler starts
                // from the state before it, less what the body may unbind.
                let entry: State = s.clone().map(|s| s.difference(&deleted).cloned().collect());
                let body_end = self.block(&t.body, s.clone());
                let mut out = self.block(&t.orelse, body_end);
                for ast::ExceptHandler::ExceptHandler(h) in &t.handlers {
                    let mut hs = entry.clone();
                    if let Some(ty) = &h.type_ {
                        self.expr(ty, &mut hs);
                    }
                    if let Some(n) = &h.name {
                        self.bind(&mut hs, n.as_str());
                    }
                    let mut end = self.block(&h.body, hs);
                    if let (Some(n), Some(e)) = (&h.name, &mut end) {
                        e.remove(n.as_str());
                    }
                    out = join(out, end);
                }
                if !t.finalbody.is_empty() {
                    // The finally clause also runs on the way out of an exception
                    // or a return: analyse it from the weakest state.
                    let weakest = join(entry, out.clone());
                    let fin = self.block(&t.finalbody, weakest);
                    return match (out, fin) {
                        (Some(o), Some(f)) => Some(o.union(&f).cloned().collect()),
                        _ => None,
                    };
                }
                return out;
            }
            Stmt::Match(m) => {
                self.expr(&m.subject, &mut s);
                let mut out = s.clone();
                for case in &m.cases {
                    let mut cs = s.clone();
                    for n in activity::pattern_names(&case.pattern) {
                        self.bind(&mut cs, &n);
                    }
                    if let Some(g) = &case.guard {
                        self.expr(g, &mut cs);
                    }
                    out = join(out, self.block(&case.body, cs));
                }
                return out;
            }
            Stmt::Import(ast::StmtImport { names, .. }) | Stmt::ImportFrom(ast::StmtImportFrom { names, .. }) => {
                for bound in names.iter().filter_map(activity::import_binding) {
                    self.bind(&mut s, &bound);
                }
            }
            Stmt::Expr(e) => self.expr(&e.value, &mut s),
            Stmt::Assert(a) => {
                self.expr(&a.test, &mut s);
                if let Some(m) = &a.msg {
                    let mut ms = s.clone();
                    self.expr(m, &mut ms);
                }
            }
            Stmt::TypeAlias(_) | Stmt::Global(_) | Stmt::Nonlocal(_) | Stmt::Pass(_) | Stmt::IpyEscapeCommand(_) => {}
        }
        s
    }

    fn check(&mut self, name: &str, range: TextRange, s: &State) {
        if let Some(s) = s {
            if self.scope.is_local(name) && !s.contains(name) {
                self.found.insert(range);
            }
        }
    }

    fn target(&mut self, t: &Expr, s: &mut State) {
        match t {
            Expr::Name(n) => self.bind(s, n.id.as_str()),
            Expr::Tuple(ast::ExprTuple { elts, .. }) | Expr::List(ast::ExprList { elts, .. }) => {
                for e in elts {
                    self.target(e, s);
                }
            }
            Expr::Starred(st) => self.target(&st.value, s),
            other => self.expr(other, s),
        }
    }

    /// Reads in evaluation order; a walrus binds only where it surely runs.
    fn expr(&mut self, e: &Expr, s: &mut State) {
        match e {
            Expr::Name(n) if n.ctx == ExprContext::Load => self.check(n.id.as_str(), n.range, s),
            Expr::Name(_) => {}
            Expr::Named(n) => {
                self.expr(&n.value, s);
                self.target(&n.target, s);
            }
            Expr::BoolOp(b) => {
                let mut first = true;
                let mut maybe = s.clone();
                for v in &b.values {
                    if first {
                        self.expr(v, s);
                        maybe = s.clone();
                        first = false;
                    } else {
                        self.expr(v, &mut maybe);
                    }
                }
            }
            Expr::If(i) => {
                self.expr(&i.test, s);
                let mut a = s.clone();
                let mut b = s.clone();
                self.expr(&i.body, &mut a);
                self.expr(&i.orelse, &mut b);
                *s = join(a, b);
            }
            Expr::Lambda(l) => {
                if let Some(p) = &l.parameters {
                    for p in p.iter() {
                        if let Some(d) = p.default() {
                            self.expr(d, s);
                        }
                    }
                }
            }
            Expr::ListComp(ast::ExprListComp { generators, .. })
            | Expr::SetComp(ast::ExprSetComp { generators, .. })
            | Expr::Generator(ast::ExprGenerator { generators, .. })
            | Expr::DictComp(ast::ExprDictComp { generators, .. }) => {
                if let Some(g) = generators.first() {
                    self.expr(&g.iter, s);
                }
            }
            _ => {
                let mut children = Vec::new();
                collect_children(e, &mut children);
                for c in children {
                    self.expr(c, s);
                }
            }
        }
    }
}

fn collect_children<'a>(e: &'a Expr, out: &mut Vec<&'a Expr>) {
    use ruff_python_ast::visitor::source_order::{SourceOrderVisitor, TraversalSignal};
    struct Kids<'a, 'b>(&'b mut Vec<&'a Expr>, bool);
    impl<'a> SourceOrderVisitor<'a> for Kids<'a, '_> {
        fn enter_node(&mut self, _: ruff_python_ast::AnyNodeRef<'a>) -> TraversalSignal {
            TraversalSignal::Traverse
        }
        fn visit_expr(&mut self, expr: &'a Expr) {
            if self.1 {
                self.1 = false;
                ruff_python_ast::visitor::source_order::walk_expr(self, expr);
            } else {
                self.0.push(expr);
            }
        }
    }
    let mut k = Kids(out, true);
    k.visit_expr(e);
}

/// The state at a loop header: the state before the loop, less what the
/// body may delete (a second iteration sees the first one's deletions).
fn loop_header(s: &State, body: &[Stmt]) -> State {
    let mut deleted = Names::new();
    collect_deletions(body, &mut deleted);
    s.clone().map(|s| s.difference(&deleted).cloned().collect())
}

fn collect_deletions(body: &[Stmt], out: &mut Names) {
    for s in body {
        match s {
            Stmt::Delete(d) => {
                for t in &d.targets {
                    if let Expr::Name(n) = t {
                        out.insert(n.id.clone());
                    }
                }
            }
            Stmt::Try(t) => {
                for ast::ExceptHandler::ExceptHandler(h) in &t.handlers {
                    if let Some(n) = &h.name {
                        out.insert(n.id.clone());
                    }
                }
            }
            _ => {}
        }
        for b in crate::blocks::blocks(s) {
            collect_deletions(b, out);
        }
    }
}
