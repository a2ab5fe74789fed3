//! Tensor family: `import stagecheck as sc`, staged helpers and entry points
//! (`@sc.function`), top-level calls on a few inputs with prints.
//!
//! Stageable by construction:
//! - only tensors are assigned inside staged control flow, each variable
//!   always with its own dtype and shape (so loop variables keep theirs, and
//!   both branches of a staged `if` leave the same signature); a variable new
//!   in a block is read only inside it, except one bound in *both* branches
//!   of a staged `if` (at their end, or at their start inside a loop, where
//!   a `break`/`continue` could leave a branch before the end);
//! - no list mutation, no `return` except the function's last statement,
//!   no `not` except at the top of a test; the Python effects written are
//!   those staging performs at every execution (`tensor_host.rs`: print,
//!   assert, Variables, `sc.py_function`);
//! - Python control flow only on Python hyper-parameters (`k`) and module
//!   knobs (`tensor_python.rs`), never changed inside a staged function;
//! - staged `while` loops run on an int32 counter bumped first thing in the
//!   body towards a bound of at most 5 (a literal, a hyper-parameter, or `% 5`
//!   of a tensor), staged `for` loops over a tensor's first axis or `sc.range`
//!   of such a bound: they terminate. Fuel is not used in this family: a
//!   Python counter in a staged function would run once per trace, not per
//!   call, and differ between modes.
//!
//! Two kinds of Python state are written on purpose, each in its own file:
//! `tensor_python.rs`, module-level values staged functions read and the
//! top level changes between calls (trace guards), and
//! `tensor_raise.rs`, exceptions and unbound reads on some paths of staged
//! control flow, caught around each top-level call (staged raises).

use crate::gen::Gen;
use crate::scope::{CallKind, Callable};
use crate::table::Want;
use crate::tensor_calls::{self, Calls, PolyKind};
use crate::tensor_expr::{self as te, random_tty, tcond, tensor, wrap};
use crate::tensor_host::{self, Host};
use crate::tensor_python::{self, Knobs};
use crate::tensor_raise::{self, Raises};
use crate::types::{DType, Shape, TTy, Ty};
use arbitrary::{Result, Unstructured};

/// The tensor family's state while one program is written (`Gen::tensor`).
#[derive(Clone, Debug, Default)]
pub struct TensorState {
    /// Python values staged functions read and the top level changes.
    pub knobs: Knobs,
    /// What the program raises on purpose, and where it may.
    pub raises: Raises,
    /// Captured tensors, polymorphic parameters, factories.
    pub calls: Calls,
    /// Variables and `sc.py_function` targets.
    pub host: Host,
    /// Writing a helper, which other staged functions call, from their
    /// staged control flow too: its top level may be inside theirs.
    pub helper: bool,
}

/// The whole program.
pub fn program(g: &mut Gen, u: &mut Unstructured) -> Result<()> {
    g.w.line("import stagecheck as sc");
    tensor_python::declare(g, u)?;
    tensor_raise::declare(g, u)?;
    tensor_calls::declare(g, u)?;
    tensor_host::declare(g, u)?;
    let n_helpers = if g.cfg.allow_nested_calls { u.int_in_range(0..=2)? } else { 0 };
    let n_entries = u.int_in_range(1..=g.cfg.max_functions.min(3))?;
    let mut entries = Vec::new();
    for i in 0..n_helpers + n_entries {
        let name = g.fresh("x");
        let n_params = u.int_in_range(1..=3)?;
        let mut params = Vec::new();
        for _ in 0..n_params {
            params.push(random_tty(g, u)?);
        }
        let poly = tensor_calls::poly(g, u)?;
        if let Some((_, v)) = &poly {
            params[0] = v[0];
        }
        let hyper = g.cfg.allow_hyperparams && g.chance(u, 1, 2)?;
        let result = if poly.is_none() && g.chance(u, 1, 2)? { params[0] } else { random_tty(g, u)? };
        let pair = poly.is_none() && i >= n_helpers && g.chance(u, 1, 4)?;
        let closure = tensor_calls::closure(g, u)?;
        g.tensor.helper = i < n_helpers;
        staged_fn(g, u, &name, &params, poly.clone(), hyper, result, pair, closure)?;
        let arity = params.len() + hyper as usize;
        let poly = poly.map(|(_, v)| v);
        let c = Callable { name, arity, kind: CallKind::Staged { params, hyper, result, poly, counter: false } };
        if i < n_helpers {
            g.scope.add_callable(c);
        } else {
            entries.push((c, pair));
        }
    }
    g.w.line("");
    g.w.line("");
    for (e, (c, pair)) in entries.iter().enumerate() {
        let CallKind::Staged { params, hyper, poly, result, .. } = &c.kind else { unreachable!("staged") };
        // Sometimes one hyper-parameter for every call: the same trace key,
        // so only the trace guards tell the calls apart.
        let same_k = if g.chance(u, 1, 2)? { Some(u.int_in_range(0..=3)?) } else { None };
        // Two calls at least where there are knobs to change between them,
        // or types to retrace on.
        let at_least = if g.tensor.knobs.any() || poly.is_some() { 2 } else { 1 };
        let rounds = u.int_in_range(at_least..=3)?;
        let first_variant = u.int_in_range(0..=2usize)?;
        for round in 0..rounds {
            // Between calls: a knob changes, so a stale trace would differ.
            if (round > 0 && g.chance(u, 3, 4)?) || (round == 0 && e > 0 && g.chance(u, 1, 4)?) {
                tensor_python::mutate(g, u, &c.name)?;
            }
            if round > 0 {
                tensor_calls::between_calls(g, u, &c.name)?;
                tensor_host::between_calls(g, u)?;
            }
            let mut args = Vec::new();
            for (j, p) in params.iter().enumerate() {
                // A polymorphic parameter takes its variants in turn.
                let p = match poly {
                    Some(v) if j == 0 => v[(first_variant + round as usize) % v.len()],
                    _ => *p,
                };
                args.push(tensor_calls::argument(g, u, p)?);
            }
            if *hyper {
                args.push(
                    match same_k {
                        Some(k) => k,
                        None => u.int_in_range(0..=3)?,
                    }
                    .to_string(),
                );
            }
            let call = format!("{}({})", c.name, args.join(", "));
            tensor_calls::show(g, u, &call, *result, *pair)?;
        }
    }
    Ok(())
}

/// `lines` (a top-level call shown), inside `try`/`except` of the classes
/// the program may raise on purpose (printing type and message) when it
/// raises any.
pub(crate) fn top_call(g: &mut Gen, lines: &[String]) {
    let caught: Vec<&str> = g.tensor.raises.caught.iter().copied().collect();
    if caught.is_empty() {
        for l in lines {
            g.w.line(l.clone());
        }
        return;
    }
    let e = g.fresh("e");
    g.w.line("try:");
    for l in lines {
        g.w.line(format!("    {l}"));
    }
    g.w.line(format!("except ({},) as {e}:", caught.join(", ")));
    g.w.line(format!("    print('raised', type({e}).__name__, {e})"));
}

/// `@sc.function def name(params[, k]):` with a generated body ending in
/// `return` of `result` (and of a second tensor when `pair`); the first
/// parameter polymorphic with `poly`, the function made by a factory with
/// `closure` (`tensor_calls.rs`).
#[allow(clippy::too_many_arguments)]
fn staged_fn(
    g: &mut Gen,
    u: &mut Unstructured,
    name: &str,
    params: &[TTy],
    poly: Option<(PolyKind, Vec<TTy>)>,
    hyper: bool,
    result: TTy,
    pair: bool,
    closure: Option<(String, String)>,
) -> Result<()> {
    let outer = g.w.take();
    let pre = match &closure {
        Some((_, a)) => tensor_calls::open_factory(g, u, a)?,
        None => Vec::new(),
    };
    g.scope.push_frame();
    let mut names = Vec::new();
    for (i, p) in params.iter().enumerate() {
        let n = g.fresh("t");
        if i > 0 || poly.is_none() {
            g.scope.bind(&n, Ty::Tensor(*p), false);
        }
        names.push(n);
    }
    if hyper {
        let k = g.fresh("k");
        g.scope.bind(&k, Ty::Hyper, true);
        names.push(k);
    }
    let saved = g.ctx;
    g.ctx.in_staged_fn = true;
    tensor_raise::begin_fn(g, u, params[0])?;
    tensor_python::begin_fn(g);
    if let Some((kind, variants)) = poly {
        tensor_calls::begin_poly(g, u, &names[0], kind, variants)?;
    }
    let n = u.int_in_range(1..=g.cfg.max_stmts)?;
    for _ in 0..n {
        if g.budget == 0 {
            break;
        }
        g.stmt(u)?;
    }
    tensor_raise::end_fn(g, u)?;
    let r = tensor(g, u, result)?;
    let r = tensor_python::observe(g, u, r, result.dtype.is_num())?;
    if pair {
        let second = g.scope.current().vars.iter().rev().find(|v| matches!(v.ty, Ty::Tensor(_))).map(|v| v.name.clone());
        g.w.line(format!("return {r}, {}", second.expect("a tensor parameter")));
    } else {
        g.w.line(format!("return {r}"));
    }
    g.ctx = saved;
    g.scope.pop_frame();
    tensor_calls::end_poly(g);
    tensor_python::end_fn(g, name);
    let body = g.w.take();
    g.w.line("");
    g.w.line("");
    g.w.line("@sc.function");
    g.w.line(format!("def {name}({}):", names.join(", ")));
    g.w.indent();
    g.w.append(body);
    g.w.dedent();
    let def = std::mem::replace(&mut g.w, outer);
    match closure {
        Some((factory, a)) => tensor_calls::wrap_factory(g, u, name, &factory, &a, pre, def)?,
        None => g.w.append(def),
    }
    Ok(())
}

pub fn can_assign(g: &Gen, w: Want) -> bool {
    w == Want::Stmt && g.ctx.in_staged_fn
}

fn writable(g: &Gen) -> Vec<(String, TTy)> {
    g.scope
        .frames
        .last()
        .expect("a frame")
        .vars
        .iter()
        .filter_map(|v| match v.ty {
            Ty::Tensor(t) if !v.readonly => Some((v.name.clone(), t)),
            _ => None,
        })
        .collect()
}

pub fn assign(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let targets = writable(g);
    if !targets.is_empty() && g.chance(u, 2, 3)? {
        let (t, ty) = g.pick(u, &targets)?.clone();
        let e = wrap(tensor(g, u, ty)?, ty);
        g.w.line(format!("{t} = {e}"));
    } else {
        let ty = random_tty(g, u)?;
        let e = wrap(tensor(g, u, ty)?, ty);
        let t = g.fresh("t");
        g.w.line(format!("{t} = {e}"));
        g.scope.bind(&t, Ty::Tensor(ty), false);
    }
    Ok(String::new())
}

pub fn can_compound(g: &Gen, w: Want) -> bool {
    w == Want::Stmt && g.ctx.in_staged_fn && g.can_nest_stmt()
}

/// A test (`if`/`while`), where `not` may go at the top.
pub(crate) fn test(g: &mut Gen, u: &mut Unstructured) -> Result<String> {
    let saved = g.ctx;
    g.ctx.test_top = true;
    let c = tcond(g, u);
    g.ctx = saved;
    c
}

/// A block inside staged control flow.
pub(crate) fn staged_block(g: &mut Gen, u: &mut Unstructured, in_loop: bool) -> Result<()> {
    let saved = g.ctx;
    g.ctx.staged = true;
    if in_loop {
        g.ctx.staged_loop = true;
        g.tensor.raises.loops += 1;
    }
    g.block(u)?;
    if in_loop {
        g.tensor.raises.loops -= 1;
    }
    g.ctx = saved;
    Ok(())
}

pub fn staged_if(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let c = test(g, u)?;
    // Sometimes a new variable bound in both branches: live after. At their
    // end, or at their start where a break/continue may leave a branch
    // early (a path that leaves it unbound would make it unusable after).
    let both = if g.chance(u, 1, 3)? { Some((g.fresh("t"), random_tty(g, u)?)) } else { None };
    let first = g.ctx.staged_loop;
    let bind = |g: &mut Gen, u: &mut Unstructured| -> Result<()> {
        if let Some((v, ty)) = &both {
            g.w.indent();
            let e = wrap(tensor(g, u, *ty)?, *ty);
            g.w.line(format!("{v} = {e}"));
            g.w.dedent();
        }
        Ok(())
    };
    let branch = |g: &mut Gen, u: &mut Unstructured| -> Result<()> {
        if first {
            bind(g, u)?;
        }
        staged_block(g, u, false)?;
        if !first {
            bind(g, u)?;
        }
        Ok(())
    };
    g.w.line(format!("if {c}:"));
    branch(g, u)?;
    if both.is_some() || g.chance(u, 1, 2)? {
        g.w.line("else:");
        branch(g, u)?;
    }
    if let Some((v, ty)) = both {
        g.scope.bind(&v, Ty::Tensor(ty), false);
    }
    Ok(String::new())
}

/// A bound for a staged loop: at most 5, maybe a tensor.
pub(crate) fn bound(g: &mut Gen, u: &mut Unstructured) -> Result<String> {
    let hypers: Vec<String> = g.scope.readable(Ty::Hyper).iter().map(|v| v.name.clone()).collect();
    Ok(match u.int_in_range(0..=3)? {
        1 if !hypers.is_empty() => g.pick(u, &hypers)?.clone(),
        2 | 3 if g.can_nest_expr() => {
            let e = tensor(g, u, TTy::new(DType::I32, Shape::Scalar))?;
            format!("{e} % 5")
        }
        _ => u.int_in_range(0..=4)?.to_string(),
    })
}

/// `n = sc.constant(0)`, `while n < bound [and test]:`, `n = n + 1` first in
/// the body; the counter is read-only for the rest.
pub(crate) fn counted_while(g: &mut Gen, u: &mut Unstructured, extra_test: bool) -> Result<()> {
    let n = g.fresh("n");
    g.w.line(format!("{n} = sc.constant(0)"));
    g.scope.bind(&n, Ty::Tensor(TTy::new(DType::I32, Shape::Scalar)), true);
    let b = bound(g, u)?;
    // Not `test`: a `not` under this `and` would be a value, not a test.
    let t = if extra_test { format!("{n} < {b} and {}", tcond(g, u)?) } else { format!("{n} < {b}") };
    g.w.line(format!("while {t}:"));
    g.w.line(format!("    {n} = {n} + 1"));
    Ok(())
}

pub fn staged_while(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let extra = g.chance(u, 1, 3)?;
    counted_while(g, u, extra)?;
    staged_block(g, u, true)?;
    Ok(String::new())
}

/// Tensors with a first axis (vectors, matrices) readable here.
fn iterables(g: &Gen) -> Vec<(String, TTy)> {
    g.scope
        .frames
        .iter()
        .flat_map(|f| f.vars.iter())
        .filter_map(|v| match v.ty {
            Ty::Tensor(t) if t.shape != Shape::Scalar => Some((v.name.clone(), t)),
            _ => None,
        })
        .collect()
}

pub fn can_for_tensor(g: &Gen, w: Want) -> bool {
    can_compound(g, w)
}

pub fn staged_for_tensor(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let vars = iterables(g);
    let (it, ty) = if !vars.is_empty() && g.chance(u, 2, 3)? {
        g.pick(u, &vars)?.clone()
    } else {
        let ty = TTy::new(te::random_dtype(g, u)?, Shape::Vec(u.int_in_range(1..=4)?));
        (tensor(g, u, ty)?, ty)
    };
    let item = match ty.shape {
        Shape::Vec(_) => Shape::Scalar,
        Shape::Mat(_, c) => Shape::Vec(c),
        Shape::Scalar => unreachable!("iterables"),
    };
    let i = g.fresh("i");
    g.w.line(format!("for {i} in {it}:"));
    let mark = g.scope.mark();
    g.scope.bind(&i, Ty::Tensor(TTy::new(ty.dtype, item)), true);
    staged_block(g, u, true)?;
    g.scope.restore(mark);
    Ok(String::new())
}

pub fn staged_for_range(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let b = bound(g, u)?;
    let i = g.fresh("i");
    g.w.line(format!("for {i} in sc.range({b}):"));
    let mark = g.scope.mark();
    g.scope.bind(&i, Ty::Tensor(TTy::new(DType::I32, Shape::Scalar)), true);
    staged_block(g, u, true)?;
    g.scope.restore(mark);
    Ok(String::new())
}

/// Two or three tensors of one type updated together each iteration
/// (`a, b = b, a + b`), then more of the body.
pub fn loop_carried(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let ty = TTy::new(te::random_num_dtype(g, u)?, te::random_shape(u)?);
    let n_vars = u.int_in_range(2..=3)?;
    let mut vars = Vec::new();
    for _ in 0..n_vars {
        let v = g.fresh("t");
        let e = wrap(tensor(g, u, ty)?, ty);
        g.w.line(format!("{v} = {e}"));
        vars.push(v);
    }
    counted_while(g, u, false)?;
    g.w.indent();
    let mut rotated: Vec<String> = vars[1..].to_vec();
    let op = g.pick(u, &["+", "-", "*"])?;
    rotated.push(wrap(format!("({} {op} {})", vars[0], vars[n_vars as usize - 1]), ty));
    g.w.line(format!("{} = {}", vars.join(", "), rotated.join(", ")));
    g.w.dedent();
    for v in &vars {
        g.scope.bind(v, Ty::Tensor(ty), false);
    }
    if g.chance(u, 1, 2)? {
        staged_block(g, u, true)?;
    }
    Ok(String::new())
}

pub fn can_exit(g: &Gen, w: Want) -> bool {
    w == Want::Stmt && g.ctx.staged_loop && g.ctx.in_staged_fn
}

pub fn staged_break(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let c = test(g, u)?;
    g.w.line(format!("if {c}:"));
    g.w.line("    break");
    Ok(String::new())
}

pub fn staged_continue(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let c = test(g, u)?;
    g.w.line(format!("if {c}:"));
    g.w.line("    continue");
    Ok(String::new())
}

pub fn can_python_hyper(g: &Gen, w: Want) -> bool {
    can_compound(g, w) && !g.scope.readable(Ty::Hyper).is_empty()
}

/// Python control flow on a hyper-parameter: specialised when traced.
pub fn python_hyper(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let hypers: Vec<String> = g.scope.readable(Ty::Hyper).iter().map(|v| v.name.clone()).collect();
    let k = g.pick(u, &hypers)?.clone();
    let saved = g.ctx;
    // A Python loop or branch: break/continue here would be Python's.
    g.ctx.staged_loop = false;
    if !g.ctx.staged && g.chance(u, 1, 2)? {
        let j = g.fresh("j");
        g.w.line(format!("for {j} in range({k}):"));
        let mark = g.scope.mark();
        g.scope.bind(&j, Ty::Hyper, true);
        g.tensor.raises.loops += 1;
        g.tensor.knobs.py_loops += 1;
        g.block(u)?;
        g.tensor.knobs.py_loops -= 1;
        g.tensor.raises.loops -= 1;
        g.scope.restore(mark);
        g.ctx = saved;
        return Ok(String::new());
    }
    let c = match u.int_in_range(0..=2)? {
        0 => format!("{k} > {}", u.int_in_range(0..=2)?),
        1 => format!("{k} % 2 == 0"),
        _ => format!("{k} == {}", u.int_in_range(1..=3)?),
    };
    g.ctx = saved;
    python_if(g, u, &c)
}

/// `if c:` on Python values (specialised when traced), maybe `else:`.
pub(crate) fn python_if(g: &mut Gen, u: &mut Unstructured, c: &str) -> Result<String> {
    let saved = g.ctx;
    // A Python branch: break/continue here would be Python's.
    g.ctx.staged_loop = false;
    g.w.line(format!("if {c}:"));
    g.block(u)?;
    if g.chance(u, 1, 2)? {
        g.w.line("else:");
        g.block(u)?;
    }
    g.ctx = saved;
    Ok(String::new())
}

pub fn can_top_stmt(g: &Gen, w: Want) -> bool {
    w == Want::Stmt && g.ctx.in_staged_fn && !g.ctx.staged && g.can_nest_stmt()
}

/// `lam = lambda: (yield k)`: a generator lambda in a staged function,
/// never called. Its `yield` is the lambda's: the function is still an
/// ordinary one to convert (its staged `if`s staged), not a generator.
pub fn yield_lambda(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let l = g.fresh("lam");
    g.w.line(format!("{l} = lambda: (yield {})", u.int_in_range(0..=3)?));
    staged_if(g, u, Want::Stmt)
}

/// A name bound before a staged `if` to a Python int or a tensor of another
/// dtype, assigned a tensor in a branch, and assigned again after the `if`
/// before any read: dead after the `if`, so it is no output of the staged
/// `if` (were it one, its branches would disagree in type: a refusal).
pub fn dead_cond_output(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let ty = random_tty(g, u)?;
    let t = g.fresh("t");
    let before = match u.int_in_range(0..=2)? {
        0 => u.int_in_range(0..=3)?.to_string(),
        1 if ty.dtype != DType::F32 => "sc.constant(0.5)".to_string(),
        _ if ty.dtype != DType::I32 => "sc.constant(1)".to_string(),
        _ => "sc.constant([True, False])".to_string(),
    };
    g.w.line(format!("{t} = {before}"));
    let c = test(g, u)?;
    g.w.line(format!("if {c}:"));
    g.w.indent();
    let e = wrap(tensor(g, u, ty)?, ty);
    g.w.line(format!("{t} = {e}"));
    g.w.dedent();
    staged_block(g, u, false)?;
    if g.chance(u, 1, 2)? {
        g.w.line("else:");
        staged_block(g, u, false)?;
    }
    let e = wrap(tensor(g, u, ty)?, ty);
    g.w.line(format!("{t} = {e}"));
    g.scope.bind(&t, Ty::Tensor(ty), false);
    Ok(String::new())
}
