//! Plain family: names bound inside a converted `if`/`for` of a function and
//! read after it, by the bindings other rows write only where nothing reads
//! them later (the holes reports/mutation.md named in the converter's
//! activity, liveness and variables analyses): an `import` (`import_in_block`),
//! a `match` capture (`capture_after_block`), a walrus inside a list or set
//! comprehension, in an `and`/`or` operand too (`walrus_after_block`); an
//! annotated local reassigned in a converted block (`annotated_local`); a
//! block holding only a `global` declaration (`declaration_block`);
//! `+=` and `del` of a local bound on one path only (`unbound_update`);
//! the two-item `with` whose inner manager fails and outer one swallows it
//! around a `return` (`with_cancelled_exit`). And functions the converter
//! must leave as they are or keep whole: one reading its namespace
//! (`locals()`, `vars()`, `dir()`) and one with a docstring
//! (`namespace_and_doc`).
//!
//! Each binding is certain on every path that reaches the read (both
//! branches bind, or a loop that runs at least once, or a value bound
//! before), so the program means one thing; the reads print.

use crate::gen::Gen;
use crate::plain::{guarded_name_error, loop_body};
use crate::plain_expr::{self as pe, bounded};
use crate::table::Want;
use crate::types::Ty;
use arbitrary::{Result, Unstructured};

/// A statement in a function (the converter converts functions only).
pub fn can_in_fn(g: &Gen, w: Want) -> bool {
    w == Want::Stmt && g.scope.in_function() && g.can_nest_stmt()
}

/// `if c:` / `else:` each binding `m` by an import (then its block), or a
/// `for` over a range that runs at least once; `m` called after.
pub fn import_in_block(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let m = g.fresh("m");
    if g.chance(u, 1, 3)? {
        let i = g.fresh("i");
        g.w.line(format!("for {i} in range({}):", u.int_in_range(1..=2)?));
        let mark = g.scope.mark();
        g.w.line(format!("    import math as {m}"));
        loop_body(g, u, &[], mark)?;
        let (a, b) = (bounded(pe::int(g, u)?), bounded(pe::int(g, u)?));
        g.w.line(format!("print('{m}', {m}.gcd({a}, {b}))"));
        return Ok(String::new());
    }
    let c = pe::cond(g, u)?;
    g.w.line(format!("if {c}:"));
    g.w.line(format!("    from math import gcd as {m}"));
    g.block(u)?;
    g.w.line("else:");
    g.w.line(format!("    from math import lcm as {m}"));
    g.block(u)?;
    let (a, b) = (bounded(pe::int(g, u)?), bounded(pe::int(g, u)?));
    g.w.line(format!("print('{m}', {m}({a}, {b}))"));
    Ok(String::new())
}

/// `v = 0`, then in a converted `if`, a `match` whose capture binds `v`;
/// `v` read after the `if`.
pub fn capture_after_block(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let v = g.fresh("v");
    g.w.line(format!("{v} = 0"));
    let c = pe::cond(g, u)?;
    g.w.line(format!("if {c}:"));
    g.w.indent();
    let (a, b) = (g.small_int(u)?, g.small_int(u)?);
    if g.chance(u, 1, 2)? {
        let e = pe::int(g, u)?;
        g.w.line(format!("match {e}:"));
        g.w.line(format!("    case {a} | {b}:"));
        g.w.line("        pass");
        g.w.line(format!("    case {v}:"));
        g.w.line("        pass");
    } else {
        let l = pe::list(g, u)?;
        g.w.line(format!("match {l}:"));
        g.w.line(format!("    case [{v}, *_] if {v} != {a}:"));
        g.w.line(format!("        print('first', {v})"));
        g.w.line("    case _:");
        g.w.line(format!("        {v} = {b}"));
    }
    g.w.dedent();
    g.w.line(format!("print('{v}', {v})"));
    g.scope.bind(&v, Ty::Int, false);
    Ok(String::new())
}

/// `y = 0`, then in a converted `if`, a list or set comprehension whose
/// walrus (alone, or an `and`/`or` operand) binds `y`; `y` read after.
pub fn walrus_after_block(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let (v, y, c) = (g.fresh("v"), g.fresh("v"), g.fresh("c"));
    let it = pe::iterable(g, u)?;
    let k = g.small_int(u)?;
    let y0 = g.small_int(u)?;
    g.w.line(format!("{y} = {y0}"));
    let cond = pe::cond(g, u)?;
    let in_if = g.chance(u, 3, 4)?;
    if in_if {
        g.w.line(format!("if {cond}:"));
        g.w.indent();
    }
    let item = match u.int_in_range(0..=2)? {
        0 => format!("({y} := {c} % 7)"),
        1 => format!("(({y} := {c} % 3) or {k})"),
        _ => format!("({c} > {k} and ({y} := {c} * 2))"),
    };
    if g.chance(u, 1, 2)? {
        g.w.line(format!("{v} = {{{item} for {c} in {it}}}"));
        g.w.line(format!("print(sorted({v}))"));
    } else {
        g.w.line(format!("{v} = [{item} for {c} in {it}]"));
        g.w.line(format!("print({v})"));
    }
    if in_if {
        g.w.dedent();
    }
    g.w.line(format!("print('{y}', {y})"));
    g.scope.bind(&y, Ty::Int, false);
    Ok(String::new())
}

/// `v: int = e`, annotated and reassigned again in a converted `if` (the
/// branch's function declares `v` nonlocal: its annotation must go), read
/// after.
pub fn annotated_local(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let v = g.fresh("v");
    let e = bounded(pe::int(g, u)?);
    g.w.line(format!("{v}: int = {e}"));
    g.scope.bind(&v, Ty::Int, false);
    let c = pe::cond(g, u)?;
    g.w.line(format!("if {c}:"));
    let e = bounded(pe::int(g, u)?);
    g.w.line(format!("    {v}: int = {e}"));
    g.block(u)?;
    g.w.line(format!("print('{v}', {v})"));
    Ok(String::new())
}

/// `if c:` holding only `global g` (maybe an `else:` holding it too), then
/// `g = e` after it, or `try:` holding only the declaration, `finally:` the write: `g` a fresh module global, so no statement of the
/// function used it before the declaration (Python's rule), and the
/// function's write shows in the module's globals.
pub fn declaration_block(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let t = g.fresh("g");
    let e = bounded(pe::int(g, u)?);
    if g.chance(u, 1, 2)? {
        // A block the converter leaves as a block (a converted `if` gets a
        // body of its own whatever is left in it).
        g.w.line("try:");
        g.w.line(format!("    global {t}"));
        g.w.line("finally:");
        g.w.line(format!("    {t} = {e}"));
        return Ok(String::new());
    }
    let c = pe::cond(g, u)?;
    g.w.line(format!("if {c}:"));
    g.w.line(format!("    global {t}"));
    if g.chance(u, 1, 2)? {
        g.w.line("else:");
        g.w.line(format!("    global {t}"));
    }
    g.w.line(format!("{t} = {e}"));
    Ok(String::new())
}

/// `if c: v = e`, then `v += k` inside a converted `for` (or `del v`), under
/// `try`/`except NameError`: UnboundLocalError on the path that left `v`
/// unbound.
pub fn unbound_update(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let v = g.fresh("v");
    let c = pe::cond(g, u)?;
    let e = bounded(pe::int(g, u)?);
    g.w.line(format!("if {c}:"));
    g.w.line(format!("    {v} = {e}"));
    let k = g.small_int(u)?;
    let body = if g.chance(u, 1, 2)? {
        let i = g.fresh("i");
        vec![
            format!("for {i} in range({}):", u.int_in_range(1..=2)?),
            "    _tick()".to_string(),
            format!("    {v} += {k}"),
            format!("print('{v}', {v})"),
        ]
    } else {
        vec![format!("del {v}"), format!("print('deleted {v}')")]
    };
    guarded_name_error(g, &body);
    Ok(String::new())
}

pub fn can_with_exit(g: &Gen, w: Want) -> bool {
    g.cfg.allow_with && crate::plain::can_return(g, w) && g.can_nest_stmt()
}

/// `with CM(a, (Boom,)), CM(b, fail=True):` around a `return`: the inner
/// manager's `__exit__` raises Boom after the return, the outer one
/// swallows it, so the return is cancelled and the function goes on.
pub fn with_cancelled_exit(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let (a, b) = (u.int_in_range(1..=9)?, u.int_in_range(1..=9)?);
    g.w.line(format!("with CM({a}, (Boom,)), CM({b}, fail=True):"));
    let saved = g.ctx;
    g.ctx.catching |= 1 << 4;
    if g.chance(u, 1, 2)? {
        g.block(u)?;
    }
    g.ctx = saved;
    let r = if g.ctx.in_generator { "return".to_string() } else { format!("return {}", bounded(pe::int(g, u)?)) };
    g.w.line(format!("    {r}"));
    g.w.line("print('not returned')");
    Ok(String::new())
}

pub fn can_nested_def(g: &Gen, w: Want) -> bool {
    w == Want::Stmt && g.can_nest_stmt() && g.budget > 4
}

/// A function with an `if` and a `for` that reads its own namespace
/// (`locals()`, `vars()`, `dir()`: the converter leaves it as written), or
/// one with a docstring (kept first by the converter), its `__doc__` printed.
pub fn namespace_and_doc(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    g.budget = g.budget.saturating_sub(4);
    let (h, p, v, w, i) = (g.fresh("h"), g.fresh("p"), g.fresh("v"), g.fresh("v"), g.fresh("i"));
    let k = g.small_int(u)?;
    let doc = g.chance(u, 1, 2)?;
    g.w.line(format!("def {h}({p}):"));
    if doc {
        g.w.line(format!("    \"\"\"{h}: doubles {p} past {k}.\"\"\""));
    }
    g.w.line("    _tick()");
    g.w.line(format!("    {v} = {p} % 10"));
    g.w.line(format!("    if {v} > {k}:"));
    if doc {
        g.w.line(format!("        return {v} * 2"));
    } else {
        g.w.line(format!("        {w} = {v} * 2"));
        g.w.line("    else:");
        g.w.line(format!("        {w} = {v}"));
    }
    g.w.line(format!("    for {i} in range(2):"));
    g.w.line("        _tick()");
    g.w.line(format!("        {v} += {i}"));
    if doc {
        g.w.line(format!("    return {v}"));
    } else {
        let reader = g.pick(u, &["locals()", "vars()", "dir()"])?;
        g.w.line(format!("    print(sorted({reader}))"));
        g.w.line(format!("    return {w} + {v}"));
    }
    let a = bounded(pe::int(g, u)?);
    if doc {
        g.w.line(format!("print({h}({a}), {h}.__doc__)"));
    } else {
        g.w.line(format!("print({h}({a}))"));
    }
    Ok(String::new())
}
