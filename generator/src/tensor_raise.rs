//! Tensor family: staged raises, exceptions raised on some paths of staged
//! control flow.
//!
//! Tracing runs both sides of a staged `if`, ternary and lazy `and`/`or`
//! operand, and a staged loop's body once; the original runs only the side
//! its values choose. So an exception written there must be raised when that
//! path executes, with its type and message, and not at all otherwise. The
//! generator writes such exceptions where they are sometimes taken:
//! - `raise E('message')` last in the true branch of a staged `if` (`if c:
//!   raise ...`, ops before it sometimes), anywhere in a staged function: at
//!   its top, in a staged branch, in a staged loop's body; sometimes of a
//!   Python `if` on a hyper-parameter instead (raised while tracing: the
//!   staged path around it decides, or the call raises as a whole);
//! - raising *expressions* in lazy positions only: a value of a staged
//!   ternary, the right operand of a staged `and`/`or`, or an assignment
//!   last in such a branch. What raises: a call of a module-level function that
//!   always raises (plain, or staged: a call node that raises), a name bound
//!   nowhere (NameError), the function's *late local* (below), `w[7]` of the
//!   knob list (IndexError: it never holds more than 5), a key the knob
//!   dict never has (KeyError), a transpose by a permutation of other axes
//!   or a matmul of a vector (ValueError: shape checks every mode shares);
//! - reads of a local unbound on that path, where the original raises
//!   UnboundLocalError whatever the inputs: the late local, bound only as the
//!   staged function's last statement (before its `return`), so every read
//!   before it finds it unbound; and a name bound in the true branch of a
//!   staged `if` and read in its false branch, written only where no loop
//!   surrounds the `if` (in a loop an earlier iteration could bind it).
//!
//! Messages are constant text, never a tensor's (a symbolic value cannot be
//! shown at trace time: an intended refusal). No raise is ever inside a
//! `try` or `with` of a staged function: the family writes neither (a
//! handler of the trace would be an intended refusal too). The top level
//! wraps every call of an entry point in `try`/`except` of exactly the
//! classes the program can raise (`caught`), printing type and message, so
//! the program goes on after a raise; a `StagingError` (a refusal) is never
//! caught.

use crate::gen::Gen;
use crate::table::Want;
use crate::tensor::{staged_block, test};
use crate::tensor_expr::{can_cond_nested, can_nested, py_scalar, random_tty, tcond, tensor, wrap};
use crate::types::{DType, Shape, TTy, Ty};
use arbitrary::{Result, Unstructured};
use std::collections::BTreeSet;

/// What one program raises on purpose.
#[derive(Clone, Debug, Default)]
pub struct Raises {
    /// The exception classes the program may raise: the top level catches these.
    pub caught: BTreeSet<&'static str>,
    /// Module-level functions of one argument that always raise.
    pub raisers: Vec<String>,
    /// The staged function being written: its late local and the local's type.
    pub late: Option<(String, TTy)>,
    /// Loops (staged or Python) around the point being written.
    pub loops: u32,
    /// Raise sites written in the staged function being written.
    pub sites: u32,
}

/// Raise sites per staged function at most: each is taken for about half the
/// inputs, and a call that raises shows nothing of the knobs it read.
const MAX_SITES: u32 = 2;

pub(crate) fn room(g: &Gen) -> bool {
    g.tensor.raises.sites < MAX_SITES
}

/// A raise site of class `ty` written elsewhere (`tensor_host.rs`'s
/// `assert`): counted against the budget, and caught at the top level.
pub(crate) fn site(g: &mut Gen, ty: &'static str) {
    g.tensor.raises.sites += 1;
    g.tensor.raises.caught.insert(ty);
}

const TYPES: [&str; 8] =
    ["ValueError", "TypeError", "IndexError", "KeyError", "RuntimeError", "LookupError", "ArithmeticError", "OverflowError"];

const MESSAGES: [&str; 8] = [
    "'bad input'",
    "'negative value'",
    "\"out of range\"",
    "'did not converge'",
    "'empty batch'",
    "'shape mismatch: %d' % 3",
    "''",
    "'division by zero'",
];

/// `E('message')` (sometimes `E()` or a bare `E`); `E` joins `caught`.
fn exception(g: &mut Gen, u: &mut Unstructured) -> Result<String> {
    let ty = *g.pick(u, &TYPES)?;
    g.tensor.raises.caught.insert(ty);
    Ok(match u.int_in_range(0..=7)? {
        0 => ty.to_string(),
        1 => format!("{ty}()"),
        _ => format!("{ty}({})", g.pick(u, &MESSAGES)?),
    })
}

/// Module-level functions that always raise: one or two, plain or staged.
pub fn declare(g: &mut Gen, u: &mut Unstructured) -> Result<()> {
    if !g.cfg.allow_staged_raise {
        return Ok(());
    }
    for _ in 0..u.int_in_range(1..=2)? {
        let name = g.fresh("fail");
        let e = exception(g, u)?;
        g.w.line("");
        g.w.line("");
        if g.chance(u, 1, 2)? {
            g.w.line("@sc.function");
        }
        g.w.line(format!("def {name}(x):"));
        g.w.line(format!("    raise {e}"));
        g.tensor.raises.raisers.push(name);
    }
    Ok(())
}

/// No raise sites and no late local (the recursive helper): what to give
/// back to `unquiet`.
pub fn quiet(g: &mut Gen) -> (Option<(String, TTy)>, u32) {
    let saved = (g.tensor.raises.late.take(), g.tensor.raises.sites);
    g.tensor.raises.sites = MAX_SITES;
    saved
}

pub fn unquiet(g: &mut Gen, saved: (Option<(String, TTy)>, u32)) {
    (g.tensor.raises.late, g.tensor.raises.sites) = saved;
}

/// The late local of a staged function about to be written, if it gets one.
pub fn begin_fn(g: &mut Gen, u: &mut Unstructured, first_param: TTy) -> Result<()> {
    g.tensor.raises.late = None;
    g.tensor.raises.sites = 0;
    if g.cfg.allow_staged_unbound && g.chance(u, 1, 2)? {
        let ty = if g.chance(u, 1, 2)? { first_param } else { random_tty(g, u)? };
        g.tensor.raises.late = Some((g.fresh("t"), ty));
    }
    Ok(())
}

/// Binds the late local (the staged function's last statement before its
/// `return`): every read written before it found it unbound.
pub fn end_fn(g: &mut Gen, u: &mut Unstructured) -> Result<()> {
    if let Some((name, ty)) = g.tensor.raises.late.take() {
        let e = wrap(tensor(g, u, ty)?, ty);
        g.w.line(format!("{name} = {e}"));
        g.scope.bind(&name, Ty::Tensor(ty), false);
    }
    Ok(())
}

/// An expression of type `t` that raises whenever it is evaluated.
fn raising(g: &mut Gen, u: &mut Unstructured, t: TTy) -> Result<String> {
    let late = g.tensor.raises.late.clone().filter(|(_, ty)| *ty == t && g.cfg.allow_staged_unbound);
    let knobs = g.tensor.knobs.clone();
    let mut kinds = Vec::new();
    if !g.tensor.raises.raisers.is_empty() {
        kinds.extend([1, 1]);
    }
    if g.cfg.allow_staged_unbound || kinds.is_empty() {
        kinds.push(0);
    }
    if late.is_some() {
        kinds.push(2);
    }
    // The knob containers twice: programs with them are fewer (the rest of
    // the `sc` API shares the family), and their raises show the reads work.
    if knobs.list.is_some() {
        kinds.extend([3, 3]);
    }
    if knobs.dict.is_some() {
        kinds.extend([4, 4]);
    }
    // An op TensorFlow refuses for its shapes (ValueError): the shape checks
    // every mode shares, with an operand that breaks them.
    kinds.extend([5, 6]);
    Ok(match *g.pick(u, &kinds)? {
        1 => {
            let f = g.pick(u, &g.tensor.raises.raisers.clone())?.clone();
            format!("{f}({})", tensor(g, u, t)?)
        }
        2 => {
            g.tensor.raises.caught.insert("NameError");
            late.expect("kind 2").0
        }
        3 => {
            g.tensor.raises.caught.insert("IndexError");
            let l = knobs.list.expect("kind 3");
            format!("({} + {l}[7])", tensor(g, u, t)?)
        }
        4 => {
            g.tensor.raises.caught.insert("KeyError");
            let d = knobs.dict.expect("kind 4");
            format!("({} + {d}['zz'])", tensor(g, u, t)?)
        }
        5 => {
            // A permutation naming an axis the matrix lacks.
            g.tensor.raises.caught.insert("ValueError");
            let d = if t.dtype.is_num() { t.dtype } else { DType::I32 };
            let (r, c) = (u.int_in_range(1..=3)?, u.int_in_range(1..=3)?);
            let m = tensor(g, u, TTy::new(d, Shape::Mat(r, c)))?;
            let perm = g.pick(u, &["[0, 2]", "[2, 0]", "[0, 0]", "[1]", "[0, 1, 2]"])?;
            format!("sc.reshape(sc.transpose({m}, {perm}), {})", t.shape.list())
        }
        6 => {
            // A product with a vector operand (TF's matmul wants rank 2).
            g.tensor.raises.caught.insert("ValueError");
            let d = if t.dtype.is_num() { t.dtype } else { DType::F32 };
            let n = u.int_in_range(1..=4)?;
            let v = tensor(g, u, TTy::new(d, Shape::Vec(n)))?;
            let other = if g.chance(u, 2, 3)? { Shape::Vec(n) } else { Shape::Mat(n, u.int_in_range(1..=3)?) };
            let o = tensor(g, u, TTy::new(d, other))?;
            let p = if g.chance(u, 1, 2)? { format!("sc.matmul({v}, {o})") } else { format!("sc.matmul({o}, {v})") };
            format!("sc.reshape({p}, {})", t.shape.list())
        }
        _ => {
            // A name bound nowhere in the program.
            g.tensor.raises.caught.insert("NameError");
            let m = g.fresh("missing");
            format!("({} + {m})", tensor(g, u, t)?)
        }
    })
}

pub fn can_raise(g: &Gen, w: Want) -> bool {
    w == Want::Stmt && g.ctx.in_staged_fn && g.can_nest_stmt() && room(g)
}

/// `if c:` (ops sometimes) then `raise E(...)` or an assignment of a raising
/// expression, last in the branch (nothing dead after it); sometimes an
/// `else:` that does not raise.
pub fn raise_stmt(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    g.tensor.raises.sites += 1;
    let hypers: Vec<String> = g.scope.readable(Ty::Hyper).iter().map(|v| v.name.clone()).collect();
    let c = if !hypers.is_empty() && g.chance(u, 1, 4)? {
        // A Python test: raised while tracing, where the trace's own path
        // (a staged branch around it, or the whole call) decides.
        let k = g.pick(u, &hypers)?.clone();
        format!("{k} == {}", u.int_in_range(0..=3)?)
    } else {
        test(g, u)?
    };
    g.w.line(format!("if {c}:"));
    if g.chance(u, 1, 3)? {
        staged_block(g, u, false)?;
    }
    if g.chance(u, 2, 3)? {
        let e = exception(g, u)?;
        g.w.line(format!("    raise {e}"));
    } else {
        let ty = random_tty(g, u)?;
        let e = raising(g, u, ty)?;
        let t = g.fresh("t");
        // Never read: the statement raises.
        g.w.line(format!("    {t} = {e}"));
    }
    if g.chance(u, 1, 3)? {
        g.w.line("else:");
        staged_block(g, u, false)?;
    }
    Ok(String::new())
}

pub fn can_raise_ternary(g: &Gen, w: Want) -> bool {
    can_nested(g, w) && g.ctx.in_staged_fn && room(g)
}

/// `(a if c else R)` or `(R if c else a)`, `R` raising.
pub fn raise_ternary(g: &mut Gen, u: &mut Unstructured, w: Want) -> Result<String> {
    g.tensor.raises.sites += 1;
    let Want::Tensor(t) = w else { unreachable!("can_raise_ternary") };
    let a = tensor(g, u, t)?;
    let c = tcond(g, u)?;
    let r = raising(g, u, t)?;
    Ok(if g.chance(u, 1, 2)? { format!("({a} if {c} else {r})") } else { format!("({r} if {c} else {a})") })
}

pub fn can_raise_and_or(g: &Gen, w: Want) -> bool {
    can_cond_nested(g, w) && g.ctx.in_staged_fn && room(g)
}

/// `(c and R)` or `(c or R)`, `R` a comparison whose operand raises.
pub fn raise_and_or(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    g.tensor.raises.sites += 1;
    let c = tcond(g, u)?;
    let d = if g.chance(u, 1, 3)? { DType::F32 } else { DType::I32 };
    let r = raising(g, u, TTy::new(d, Shape::Scalar))?;
    let op = if g.chance(u, 1, 2)? { "and" } else { "or" };
    let k = py_scalar(u, d)?;
    Ok(format!("({c} {op} ({r} > {k}))"))
}

pub fn can_unbound_late(g: &Gen, w: Want) -> bool {
    g.ctx.staged && room(g) && g.tensor.raises.late.as_ref().is_some_and(|(_, t)| w == Want::Tensor(*t))
}

/// The late local, read inside staged control flow before it is bound.
pub fn unbound_late(g: &mut Gen, _: &mut Unstructured, _: Want) -> Result<String> {
    g.tensor.raises.sites += 1;
    g.tensor.raises.caught.insert("NameError");
    Ok(g.tensor.raises.late.clone().expect("can_unbound_late").0)
}

pub fn can_unbound_branch(g: &Gen, w: Want) -> bool {
    w == Want::Stmt && g.ctx.in_staged_fn && g.can_nest_stmt() && g.tensor.raises.loops == 0 && room(g)
}

/// `if c: ...; v = e` / `else: ...; t = v + 1`: `v` is bound on the true
/// path only and read last on the false one (no loop around: each call runs
/// this `if` once, with `v` unbound before it).
pub fn unbound_branch(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    g.tensor.raises.sites += 1;
    let c = test(g, u)?;
    let ty = random_tty(g, u)?;
    let v = g.fresh("t");
    g.tensor.raises.caught.insert("NameError");
    g.w.line(format!("if {c}:"));
    staged_block(g, u, false)?;
    g.w.indent();
    let e = wrap(tensor(g, u, ty)?, ty);
    g.w.line(format!("{v} = {e}"));
    g.w.dedent();
    g.w.line("else:");
    if g.chance(u, 1, 2)? {
        staged_block(g, u, false)?;
    }
    g.w.indent();
    let t = g.fresh("t");
    let k = py_scalar(u, ty.dtype)?;
    g.w.line(format!("{t} = {}", wrap(format!("({v} + {k})"), ty)));
    g.w.dedent();
    Ok(String::new())
}
