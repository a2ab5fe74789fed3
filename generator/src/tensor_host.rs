//! Tensor family: effects on the host inside staged functions,
//! which a graph must perform at every execution, in program order, where
//! tracing runs them once per trace (tf.function prints once where Python
//! prints three times):
//! - `staged_print`: `print(...)` or `sc.print(...)` of text, tensors and
//!   hyper-parameters, with `sep`/`end` sometimes, anywhere in a staged
//!   function: in staged loops and branches, in Python loops (unrolled);
//! - `staged_assert`: `assert <bool scalar tensor>[, 'message']`, a raise
//!   site like `tensor_raise.rs`'s (from its budget): `AssertionError` joins
//!   the classes the top level catches;
//! - Variables: module-level `sc.Variable`s (declared by `declare`), updated
//!   in staged code by `.assign`/`.assign_add`/`.assign_sub` of their own
//!   type (`variable_assign`) and read by `.read_value()`/`.value()`
//!   (`variable_read`); between calls the top level assigns or prints them,
//!   so a trace reading a stale value, or an update lost in a staged loop or
//!   branch, shows;
//! - `py_function`: `sc.py_function(f, [t], dtype)` of a module-level
//!   elementwise Python function that logs each call (a list it appends to,
//!   or a print), so the count and order of its calls show.
//!
//! Variables and Python functions are declared only when the config allows
//! them and a coin says so; the rows record a construct only where used.

use crate::gen::Gen;
use crate::table::Want;
use crate::tensor_expr::{self as te, random_tty, tcond, tensor, want_tensor, wrap};
use crate::tensor_raise;
use crate::types::{DType, TTy, Ty};
use arbitrary::{Result, Unstructured};

/// The host state of one program (`TensorState::host`).
#[derive(Clone, Debug, Default)]
pub struct Host {
    /// Module-level `sc.Variable`s and their types.
    pub variables: Vec<(String, TTy)>,
    /// Module-level Python functions for `sc.py_function`: for numeric
    /// tensors, for bool tensors.
    pub py_functions: Option<(String, String)>,
}

/// Module-level Variables and `sc.py_function` targets, if the program gets them.
pub fn declare(g: &mut Gen, u: &mut Unstructured) -> Result<()> {
    if g.cfg.allow_variables && g.chance(u, 1, 2)? {
        for _ in 0..u.int_in_range(1..=2)? {
            let ty = random_tty(g, u)?;
            let v = g.fresh("v");
            let init = te::constant(u, ty)?;
            g.w.line(format!("{v} = sc.Variable({init})"));
            g.tensor.host.variables.push((v, ty));
        }
    }
    if g.cfg.allow_py_function && g.chance(u, 1, 2)? {
        let log = g.fresh("pylog");
        g.w.line(format!("{log} = []"));
        let (num, boolean) = (g.fresh("pf"), g.fresh("pf"));
        let note = |g: &Gen, u: &mut Unstructured, f: &str| -> Result<String> {
            Ok(if g.chance(u, 1, 2)? { format!("{log}.append(a.numpy())") } else { format!("print('{f}', a)") })
        };
        let body = *g.pick(u, &["a + a", "-a", "a * a", "sc.maximum(a, -a)", "a - a * a"])?;
        g.w.line("");
        g.w.line("");
        g.w.line(format!("def {num}(a):"));
        g.w.line(format!("    {}", note(g, u, &num)?));
        g.w.line(format!("    return {body}"));
        let body = *g.pick(u, &["~a", "a | a", "a & ~a"])?;
        g.w.line("");
        g.w.line("");
        g.w.line(format!("def {boolean}(a):"));
        g.w.line(format!("    {}", note(g, u, &boolean)?));
        g.w.line(format!("    return {body}"));
        g.tensor.host.py_functions = Some((num, boolean));
    }
    Ok(())
}

pub fn can_print(g: &Gen, w: Want) -> bool {
    w == Want::Stmt && g.ctx.in_staged_fn
}

/// `print(...)`/`sc.print(...)` in a staged function: a print node.
pub fn print(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let tag = g.fresh("p");
    let mut items = vec![format!("'{tag}'")];
    let hypers: Vec<String> = g.scope.readable(Ty::Hyper).iter().map(|v| v.name.clone()).collect();
    for _ in 0..u.int_in_range(1..=2)? {
        if !hypers.is_empty() && g.chance(u, 1, 4)? {
            items.push(g.pick(u, &hypers)?.clone());
        } else {
            let ty = random_tty(g, u)?;
            items.push(tensor(g, u, ty)?);
        }
    }
    let f = if g.chance(u, 1, 2)? { "print" } else { "sc.print" };
    let tail = match u.int_in_range(0..=3)? {
        0 => ", sep=' | '",
        1 => ", end=' ;\\n'",
        _ => "",
    };
    g.w.line(format!("{f}({}{tail})", items.join(", ")));
    Ok(String::new())
}

pub fn can_assert(g: &Gen, w: Want) -> bool {
    w == Want::Stmt && g.ctx.in_staged_fn && tensor_raise::room(g)
}

/// `assert c[, 'message']` on a bool scalar tensor: a graph assert.
pub fn assert_stmt(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    tensor_raise::site(g, "AssertionError");
    let c = tcond(g, u)?;
    let message = match u.int_in_range(0..=3)? {
        0 => String::new(),
        1 => ", ''".to_string(),
        _ => format!(", '{} failed'", g.fresh("check")),
    };
    g.w.line(format!("assert {c}{message}"));
    Ok(String::new())
}

pub fn can_variable_assign(g: &Gen, w: Want) -> bool {
    w == Want::Stmt && g.ctx.in_staged_fn && !g.tensor.host.variables.is_empty()
}

/// `v.assign(e)`, `v.assign_add(e)` or `v.assign_sub(e)`: an assignment
/// node, seen by later reads and after the call.
pub fn variable_assign(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let (v, ty) = g.pick(u, &g.tensor.host.variables.clone())?.clone();
    let method = if ty.dtype == DType::Bool { "assign" } else { *g.pick(u, &["assign", "assign_add", "assign_sub"])? };
    let e = wrap(tensor(g, u, ty)?, ty);
    g.w.line(format!("{v}.{method}({e})"));
    Ok(String::new())
}

pub fn can_variable_read(g: &Gen, w: Want) -> bool {
    g.ctx.in_staged_fn && want_tensor(w).is_some_and(|t| te::has_typed(&g.tensor.host.variables, t))
}

/// `v.read_value()` (or `v.value()`): a read node, the value at execution.
pub fn variable_read(g: &mut Gen, u: &mut Unstructured, w: Want) -> Result<String> {
    let t = want_tensor(w).expect("a tensor");
    let v = te::pick_typed(g, u, &g.tensor.host.variables, t)?;
    let method = if g.chance(u, 1, 4)? { "value" } else { "read_value" };
    Ok(format!("{v}.{method}()"))
}

/// Between top-level calls: a Variable assigned a new value, or printed.
pub fn between_calls(g: &mut Gen, u: &mut Unstructured) -> Result<()> {
    if g.tensor.host.variables.is_empty() {
        return Ok(());
    }
    let (v, ty) = g.pick(u, &g.tensor.host.variables.clone())?.clone();
    match u.int_in_range(0..=2)? {
        0 => {
            let value = te::constant(u, ty)?;
            g.w.line(format!("{v}.assign({value})"));
        }
        1 => g.w.line(format!("print('{v}', {v})")),
        _ => {}
    }
    Ok(())
}

pub fn can_py_function(g: &Gen, w: Want) -> bool {
    g.ctx.in_staged_fn && g.can_nest_expr() && want_tensor(w).is_some() && g.tensor.host.py_functions.is_some()
}

/// `sc.py_function(f, [e], dtype)` of an elementwise Python function: a
/// node calling back into Python at every execution.
pub fn py_function(g: &mut Gen, u: &mut Unstructured, w: Want) -> Result<String> {
    let t = want_tensor(w).expect("a tensor");
    let (num, boolean) = g.tensor.host.py_functions.clone().expect("declared");
    let f = if t.dtype == DType::Bool { boolean } else { num };
    let arg = tensor(g, u, t)?;
    Ok(format!("sc.py_function({f}, [{arg}], {})", t.dtype.sc()))
}
