//! Plain family: the program's frame (prelude, globals, functions, top-level
//! calls) and its statements.
//!
//! Termination: every `while` runs on a counter bumped first thing in its body
//! towards a literal bound (so `continue` cannot skip it), every `for` runs
//! over a short range, literal or slice, recursion takes a literal depth that
//! each call lowers, and on top `_tick()` — called at every loop header and
//! function entry — raises `OutOfFuel` after `FUEL` ticks. No `try` catches
//! `OutOfFuel` except the top level's, around each call. Nothing prints a set
//! or an id; exceptions raised on purpose are caught by the `try` that raises
//! them, or reach the top level's `except`, which prints type and message.

use crate::gen::{Gen, EXCEPTIONS};
use crate::plain_expr::{self as pe, bounded};
use crate::plain_objects;
use crate::scope::{CallKind, Callable, Mark};
use crate::table::Want;
use crate::types::Ty;
use arbitrary::{Result, Unstructured};

/// Ticks before `OutOfFuel`.
pub const FUEL: u32 = 10_000;

/// What the top level catches around each call and block.
const TOP_CATCH: &str = "(OutOfFuel, Boom, ArithmeticError, LookupError, ValueError)";

/// The whole program.
pub fn program(g: &mut Gen, u: &mut Unstructured) -> Result<()> {
    for l in [
        "class OutOfFuel(Exception):",
        "    pass",
        "",
        "",
        "class Boom(Exception):",
        "    pass",
        "",
        "",
        &format!("_fuel = {FUEL}"),
        "",
        "",
        "def _tick():",
    ] {
        g.w.line(l);
    }
    let tick: &[&str] = match g.settings.fuel {
        true => &["    global _fuel", "    _fuel -= 1", "    if _fuel < 0:", "        raise OutOfFuel('out of fuel')"],
        // Off for this target (`Settings::fuel`): bounded by construction.
        false => &["    pass"],
    };
    for l in tick.iter().copied().chain([
        "",
        "",
        "log = []",
        "",
        "",
        "def note(v):",
        "    if len(log) < 64:",
        "        log.append(v)",
        "    return v",
        "",
        "",
    ]) {
        g.w.line(l);
    }
    plain_objects::prelude(g);
    // Module state: ints and lists the functions read and (via `global`) write.
    let n_int = u.int_in_range(1..=3)?;
    let n_list = u.int_in_range(0..=2)?;
    for i in 0..n_int + n_list {
        let name = g.fresh("g");
        let (ty, value) = if i < n_int { (Ty::Int, g.small_int(u)?.to_string()) } else { (Ty::List, pe::list_literal(g, u, Want::List)?) };
        g.w.line(format!("{name} = {value}"));
        g.scope.bind(&name, ty, false);
    }
    let n_fn = u.int_in_range(1..=g.cfg.max_functions)?;
    for _ in 0..n_fn {
        g.w.line("");
        g.w.line("");
        let name = g.fresh("f");
        let arity = u.int_in_range(0..=3)?;
        def(g, u, &name, arity, Body::Func)?;
        g.scope.add_callable(Callable { name, arity: arity as usize, kind: CallKind::Func });
    }
    g.w.line("");
    g.w.line("");
    // Top-level statements (left as written by the converter), then the calls.
    if g.budget > 0 && g.chance(u, 1, 2)? {
        guarded(g, u, |g, u| g.block(u))?;
    }
    let callables: Vec<Callable> = g.scope.callables().into_iter().cloned().collect();
    for c in &callables {
        if g.settings.rebind {
            // Twice with the same arguments: the first call compiles, the
            // second runs through a JIT's guard cache.
            let a = pe::args(g, u, &c.kind, c.arity)?;
            print_call(g, u, c, &a)?;
            print_call(g, u, c, &a)?;
            continue;
        }
        for _ in 0..u.int_in_range(1..=2)? {
            let a = pe::args(g, u, &c.kind, c.arity)?;
            print_call(g, u, c, &a)?;
        }
    }
    if g.settings.rebind {
        // Every int global the functions may read rebound, then every
        // function called a third time (`Settings::rebind`).
        let ints: Vec<String> = g.scope.frames[0].vars.iter().filter(|v| v.ty == Ty::Int && !v.readonly).map(|v| v.name.clone()).collect();
        for n in ints {
            g.w.line(format!("{n} = ({n} + 7) % 1000"));
        }
        for c in &callables {
            let a = pe::args(g, u, &c.kind, c.arity)?;
            print_call(g, u, c, &a)?;
        }
    }
    let globals: Vec<String> = g.scope.frames[0].vars.iter().map(|v| v.name.clone()).collect();
    g.w.line(format!("print({}, _fuel, log)", globals.join(", ")));
    Ok(())
}

/// `print('f', f(a))` at the top level, guarded.
fn print_call(g: &mut Gen, u: &mut Unstructured, c: &Callable, a: &str) -> Result<()> {
    guarded(g, u, |g, _| {
        g.w.indent();
        g.w.line(format!("print('{}', {}({a}))", c.name, c.name));
        g.w.dedent();
        Ok(())
    })
}

/// `try: <body> except TOP_CATCH as e: print(...)` at the top level.
pub(crate) fn guarded(g: &mut Gen, u: &mut Unstructured, body: impl FnOnce(&mut Gen, &mut Unstructured) -> Result<()>) -> Result<()> {
    g.w.line("try:");
    let saved = g.ctx;
    // What TOP_CATCH covers may be raised on purpose here.
    g.ctx.catching = 0b1_1111;
    body(g, u)?;
    g.ctx = saved;
    let e = g.fresh("e");
    g.w.line(format!("except {TOP_CATCH} as {e}:"));
    g.w.line(format!("    print('raised', type({e}).__name__, {e})"));
    Ok(())
}

/// What a `def` is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Body {
    /// Returns an int at the end.
    Func,
    /// Yields; consumed by `list`/`sum`.
    Generator,
    /// `(depth, acc)`: returns `acc` at depth 0, else recurses.
    Recursive,
}

/// Writes `def name(params):` with a generated body: declarations found while
/// generating the body go above it, then `_tick()`, the body, the ending.
fn def(g: &mut Gen, u: &mut Unstructured, name: &str, arity: u32, kind: Body) -> Result<()> {
    let params: Vec<String> = (0..arity).map(|_| g.fresh("p")).collect();
    let bound: Vec<(String, Ty, bool)> =
        params.iter().enumerate().map(|(i, p)| (p.clone(), Ty::Int, kind == Body::Recursive && i == 0)).collect();
    // The recursion depth is read-only: it bounds the recursion.
    let header = format!("def {name}({}):", params.join(", "));
    def_with(g, u, &header, &bound, kind == Body::Generator, |g, u| {
        if kind == Body::Recursive {
            g.w.line(format!("if {} <= 0:", params[0]));
            g.w.line(format!("    return {} % 1000", params[1]));
        }
        let n = u.int_in_range(1..=g.cfg.max_stmts)?;
        for _ in 0..n {
            if g.budget == 0 {
                break;
            }
            g.stmt(u)?;
        }
        match kind {
            Body::Func => {
                let e = bounded(pe::int(g, u)?);
                g.w.line(format!("return {e}"));
            }
            Body::Generator => {
                let last = if g.chance(u, 1, 2)? {
                    format!("yield {}", bounded(pe::int(g, u)?))
                } else {
                    format!("yield from {}", pe::iterable(g, u)?)
                };
                g.w.line(last);
            }
            Body::Recursive => {
                let (d, a) = (&params[0], &params[1]);
                let e1 = bounded(pe::int(g, u)?);
                if g.chance(u, 1, 2)? {
                    let e2 = bounded(pe::int(g, u)?);
                    g.w.line(format!("return ({name}({d} - 1, {e1}) + {name}({d} - 2, {e2})) % 1000"));
                } else {
                    g.w.line(format!("return ({name}({d} - 1, {e1}) + {a}) % 1000"));
                }
            }
        }
        Ok(())
    })
}

/// Writes `header` (a `def` line, any parameters) and a body written by
/// `body` in a fresh function frame where `bound` are the parameters the
/// generated code may use: declarations found while writing the body go
/// above it, then `_tick()`, then the body.
pub(crate) fn def_with(
    g: &mut Gen,
    u: &mut Unstructured,
    header: &str,
    bound: &[(String, Ty, bool)],
    generator: bool,
    body: impl FnOnce(&mut Gen, &mut Unstructured) -> Result<()>,
) -> Result<()> {
    let outer = g.w.take();
    let saved = g.ctx;
    if g.scope.in_function() {
        // A nested def is one more level; a module-level one starts at 0.
        g.ctx.depth += 1;
    }
    g.ctx.in_loop = false;
    g.ctx.in_finally = false;
    g.ctx.loop_exit_blocked = false;
    g.ctx.catching = 0;
    g.ctx.expr_depth = 0;
    g.ctx.in_generator = generator;
    g.scope.push_frame();
    for (p, ty, ro) in bound {
        g.scope.bind(p, *ty, *ro);
    }
    let r = body(g, u);
    let frame = g.scope.pop_frame();
    g.ctx = saved;
    let text = std::mem::replace(&mut g.w, outer);
    r?;
    g.w.line(header);
    g.w.indent();
    if !frame.globals.is_empty() {
        g.w.line(format!("global {}", frame.globals.iter().cloned().collect::<Vec<_>>().join(", ")));
    }
    if !frame.nonlocals.is_empty() {
        g.w.line(format!("nonlocal {}", frame.nonlocals.iter().cloned().collect::<Vec<_>>().join(", ")));
    }
    g.w.line("_tick()");
    g.w.append(text);
    g.w.dedent();
    Ok(())
}

/// An `if` line with a condition, then `then` one level deeper.
pub(crate) fn if_then(g: &mut Gen, u: &mut Unstructured, then: &str) -> Result<()> {
    let c = pe::cond(g, u)?;
    g.w.line(format!("if {c}:"));
    g.w.line(format!("    {then}"));
    Ok(())
}

// ---- simple statements ------------------------------------------------------

pub fn can_assign(_: &Gen, w: Want) -> bool {
    w == Want::Stmt
}

pub fn assign(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let ty = if g.chance(u, 1, 5)? { Ty::List } else { Ty::Int };
    let existing: Vec<String> = g.scope.writable_local(ty).iter().map(|v| v.name.clone()).collect();
    let reuse = !existing.is_empty() && g.chance(u, 1, 2)?;
    let value = if ty == Ty::Int { bounded(pe::int(g, u)?) } else { pe::list(g, u)? };
    if reuse {
        let t = g.pick(u, &existing)?.clone();
        g.w.line(format!("{t} = {value}"));
    } else {
        let t = g.fresh("v");
        g.w.line(format!("{t} = {value}"));
        g.scope.bind(&t, ty, false);
    }
    Ok(String::new())
}

pub fn print(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let mut items = Vec::new();
    for _ in 0..u.int_in_range(1..=3)? {
        items.push(if g.chance(u, 1, 4)? { pe::list(g, u)? } else { pe::int(g, u)? });
    }
    g.w.line(format!("print({})", items.join(", ")));
    Ok(String::new())
}

pub fn can_augassign(g: &Gen, w: Want) -> bool {
    w == Want::Stmt && (!g.scope.writable_local(Ty::Int).is_empty() || !g.scope.writable_local(Ty::List).is_empty())
}

pub fn augassign(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let ints: Vec<String> = g.scope.writable_local(Ty::Int).iter().map(|v| v.name.clone()).collect();
    let lists: Vec<String> = g.scope.writable_local(Ty::List).iter().map(|v| v.name.clone()).collect();
    let line = augassign_line(g, u, &ints, &lists)?;
    g.w.line(line);
    Ok(String::new())
}

/// `t op= e` for one of `ints` or `lists` (at least one non-empty).
fn augassign_line(g: &mut Gen, u: &mut Unstructured, ints: &[String], lists: &[String]) -> Result<String> {
    if ints.is_empty() || (!lists.is_empty() && g.chance(u, 1, 4)?) {
        let t = g.pick(u, lists)?.clone();
        let e = pe::int(g, u)?;
        return Ok(format!("{t} += [{e}]"));
    }
    let t = g.pick(u, ints)?.clone();
    Ok(match u.int_in_range(0..=5)? {
        0 => format!("{t} += {}", bounded(pe::int(g, u)?)),
        1 => format!("{t} -= {}", bounded(pe::int(g, u)?)),
        2 => format!("{t} %= {}", g.pick(u, &[7, 3, 10, -4])?),
        3 => format!("{t} //= {}", g.pick(u, &[2, 3, -2])?),
        4 => format!("{t} ^= {}", bounded(pe::int(g, u)?)),
        _ => format!("{t} |= {}", bounded(pe::int(g, u)?)),
    })
}

pub fn can_list_append(g: &Gen, w: Want) -> bool {
    w == Want::Stmt && !g.scope.readable(Ty::List).is_empty()
}

pub fn list_append(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let lists: Vec<String> = g.scope.readable(Ty::List).iter().map(|v| v.name.clone()).collect();
    let l = g.pick(u, &lists)?.clone();
    match u.int_in_range(0..=3)? {
        0 | 1 => {
            let e = pe::int(g, u)?;
            g.w.line(format!("{l}.append({e})"));
        }
        2 => {
            let e = pe::int(g, u)?;
            let k = g.small_int(u)?;
            g.w.line(format!("{l}.extend([{e}, {k}])"));
        }
        _ => {
            g.w.line(format!("if {l}:"));
            g.w.line(format!("    {l}.pop()"));
        }
    }
    Ok(String::new())
}

pub fn has_calls(g: &Gen) -> bool {
    g.cfg.allow_side_effects || !g.scope.callables().is_empty()
}

pub fn expr_stmt(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let callables: Vec<Callable> = g.scope.callables().into_iter().cloned().collect();
    if callables.is_empty() || (g.cfg.allow_side_effects && g.chance(u, 1, 3)?) {
        let e = pe::int(g, u)?;
        g.w.line(format!("note({e})"));
    } else {
        let c = g.pick(u, &callables)?.clone();
        let a = pe::args(g, u, &c.kind, c.arity)?;
        g.w.line(format!("{}({a})", c.name));
    }
    Ok(String::new())
}

// ---- control flow -----------------------------------------------------------

pub fn if_stmt(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let c = pe::cond(g, u)?;
    g.w.line(format!("if {c}:"));
    g.block(u)?;
    if g.chance(u, 1, 3)? {
        let c = pe::cond(g, u)?;
        g.w.line(format!("elif {c}:"));
        g.block(u)?;
    }
    if g.chance(u, 1, 2)? {
        g.w.line("else:");
        g.block(u)?;
    }
    Ok(String::new())
}

/// The body of a loop: `_tick()`, `pre` lines, then a block, in a loop
/// context; then maybe an `else` block, where the names bound since `targets`
/// (the loop's targets: unbound if it never ran) are out of scope again.
pub(crate) fn loop_body(g: &mut Gen, u: &mut Unstructured, pre: &[String], targets: Mark) -> Result<()> {
    g.w.indent();
    g.w.line("_tick()");
    for l in pre {
        g.w.line(l.clone());
    }
    g.w.dedent();
    let saved = g.ctx;
    g.ctx.in_loop = true;
    g.ctx.loop_exit_blocked = false;
    g.block(u)?;
    g.ctx = saved;
    g.scope.restore(targets);
    // The draw is made whatever the settings: a seed's programs stay the same.
    if g.chance(u, 1, 5)? && g.settings.allows("loop_else") {
        g.used.insert("loop_else");
        g.w.line("else:");
        g.block(u)?;
    }
    Ok(())
}

pub fn while_stmt(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let n = g.fresh("n");
    g.w.line(format!("{n} = 0"));
    g.scope.bind(&n, Ty::Int, true);
    let bound = u.int_in_range(0..=5)?;
    let test = if g.chance(u, 1, 3)? { format!("{n} < {bound} and {}", pe::cond(g, u)?) } else { format!("{n} < {bound}") };
    g.w.line(format!("while {test}:"));
    let mark = g.scope.mark();
    loop_body(g, u, &[format!("{n} += 1")], mark)?;
    Ok(String::new())
}

pub fn for_stmt(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let i = g.fresh("i");
    let mark = g.scope.mark();
    if g.chance(u, 1, 5)? {
        let j = g.fresh("i");
        let l = pe::list(g, u)?;
        g.w.line(format!("for {i}, {j} in enumerate({l}[:4]):"));
        g.scope.bind(&j, Ty::Int, false);
    } else {
        let it = pe::iterable(g, u)?;
        g.w.line(format!("for {i} in {it}:"));
    }
    g.scope.bind(&i, Ty::Int, false);
    loop_body(g, u, &[], mark)?;
    Ok(String::new())
}

pub fn can_exit_loop(g: &Gen, w: Want) -> bool {
    w == Want::Stmt && g.ctx.in_loop && !g.ctx.loop_exit_blocked
}

pub fn break_stmt(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    exit_stmt(g, u, "break")
}

pub fn continue_stmt(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    exit_stmt(g, u, "continue")
}

fn exit_stmt(g: &mut Gen, u: &mut Unstructured, what: &str) -> Result<String> {
    if g.chance(u, 1, 4)? {
        g.w.line(what);
    } else {
        if_then(g, u, what)?;
    }
    Ok(String::new())
}

pub fn can_return(g: &Gen, w: Want) -> bool {
    w == Want::Stmt && g.scope.in_function() && !g.ctx.in_finally && (!g.ctx.in_loop || g.cfg.allow_return_in_loop)
}

pub fn return_stmt(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let r = if g.ctx.in_generator { "return".to_string() } else { format!("return {}", bounded(pe::int(g, u)?)) };
    if g.ctx.depth > 1 && g.chance(u, 1, 4)? {
        g.w.line(r);
    } else {
        if_then(g, u, &r)?;
    }
    Ok(String::new())
}

// ---- exceptions ---------------------------------------------------------------

pub fn try_stmt(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let mut caught: u8 = 0;
    let n_handlers = u.int_in_range(0..=2)?;
    let mut handlers = Vec::new();
    for _ in 0..n_handlers {
        let i = u.choose_index(EXCEPTIONS.len())?;
        if caught & (1 << i) == 0 {
            caught |= 1 << i;
            handlers.push(EXCEPTIONS[i]);
        }
    }
    let has_finally = handlers.is_empty() || g.chance(u, 1, 2)?;
    g.w.line("try:");
    let saved = g.ctx;
    g.ctx.catching |= caught;
    g.block(u)?;
    g.ctx = saved;
    for h in &handlers {
        let e = g.fresh("e");
        g.w.line(format!("except {h} as {e}:"));
        g.w.line(format!("    print('caught', type({e}).__name__, {e})"));
        if g.chance(u, 1, 3)? {
            g.block(u)?;
        }
    }
    if !handlers.is_empty() && g.chance(u, 1, 4)? {
        g.w.line("else:");
        g.block(u)?;
    }
    if has_finally {
        g.w.line("finally:");
        g.ctx.in_finally = true;
        g.ctx.loop_exit_blocked = true;
        g.block(u)?;
        g.ctx = saved;
    }
    Ok(String::new())
}

pub fn can_raise(g: &Gen, w: Want) -> bool {
    w == Want::Stmt && (g.scope.in_function() || g.ctx.catching != 0)
}

pub fn raise_stmt(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let caught: Vec<&str> = EXCEPTIONS.iter().enumerate().filter(|(i, _)| g.ctx.catching & (1 << i) != 0).map(|(_, e)| *e).collect();
    let exc = if !caught.is_empty() && (!g.scope.in_function() || g.chance(u, 3, 4)?) {
        *g.pick(u, &caught)?
    } else {
        *g.pick(u, &["ValueError", "Boom", "KeyError", "ZeroDivisionError"])?
    };
    let e = pe::int(g, u)?;
    let arg = match exc {
        "Boom" | "KeyError" => e,
        _ => format!("'{}: ' + str({e})", exc.to_lowercase()),
    };
    let r = format!("raise {exc}({arg})");
    if g.chance(u, 1, 4)? {
        g.w.line(r);
    } else {
        if_then(g, u, &r)?;
    }
    Ok(String::new())
}

pub fn del_stmt(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let lists: Vec<String> = g.scope.readable(Ty::List).iter().map(|v| v.name.clone()).collect();
    if !lists.is_empty() && g.chance(u, 1, 2)? {
        let l = g.pick(u, &lists)?.clone();
        if g.chance(u, 1, 2)? {
            let k = u.int_in_range(0..=2)?;
            g.w.line(format!("if len({l}) > {k}:"));
            g.w.line(format!("    del {l}[{k}]"));
        } else {
            g.w.line(format!("del {l}[{}:{}]", u.int_in_range(0..=1)?, u.int_in_range(1..=3)?));
        }
        return Ok(String::new());
    }
    let v = g.fresh("v");
    let e = bounded(pe::int(g, u)?);
    g.w.line(format!("{v} = {e}"));
    g.w.line(format!("print('{v}', {v})"));
    g.w.line(format!("del {v}"));
    if g.chance(u, 1, 2)? {
        read_maybe_unbound(g, &v);
    }
    Ok(String::new())
}

/// `try: print(v) except NameError` (UnboundLocalError in functions).
pub(crate) fn read_maybe_unbound(g: &mut Gen, v: &str) {
    let e = g.fresh("e");
    g.w.line("try:");
    g.w.line(format!("    print('{v}', {v})"));
    g.w.line(format!("except NameError as {e}:"));
    g.w.line(format!("    print('unbound', type({e}).__name__, {e})"));
}

/// `try:` `body` `except NameError` printing the exception's type
/// (UnboundLocalError in functions; its message is RustPython's own).
pub(crate) fn guarded_name_error(g: &mut Gen, body: &[String]) {
    let e = g.fresh("e");
    g.w.line("try:");
    for l in body {
        g.w.line(format!("    {l}"));
    }
    g.w.line(format!("except NameError as {e}:"));
    g.w.line(format!("    print('unbound', type({e}).__name__)"));
}

pub fn unbound_read(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let v = g.fresh("v");
    if g.chance(u, 1, 3)? {
        let i = g.fresh("i");
        g.w.line(format!("for {i} in range({}):", u.int_in_range(0..=2)?));
        g.w.line(format!("    {v} = {i}"));
    } else {
        let c = pe::cond(g, u)?;
        let e = bounded(pe::int(g, u)?);
        g.w.line(format!("if {c}:"));
        g.w.line(format!("    {v} = {e}"));
    }
    read_maybe_unbound(g, &v);
    Ok(String::new())
}

// ---- scoping ------------------------------------------------------------------

pub fn can_global(g: &Gen, w: Want) -> bool {
    w == Want::Stmt && (!g.scope.writable_global(Ty::Int).is_empty() || !g.scope.writable_global(Ty::List).is_empty())
}

pub fn global_stmt(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let ints: Vec<String> = g.scope.writable_global(Ty::Int).iter().map(|v| v.name.clone()).collect();
    let lists: Vec<String> = g.scope.writable_global(Ty::List).iter().map(|v| v.name.clone()).collect();
    write_outer(g, u, ints, lists, true)
}

pub fn can_nonlocal(g: &Gen, w: Want) -> bool {
    w == Want::Stmt && (!g.scope.writable_nonlocal(Ty::Int).is_empty() || !g.scope.writable_nonlocal(Ty::List).is_empty())
}

pub fn nonlocal_stmt(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let ints: Vec<String> = g.scope.writable_nonlocal(Ty::Int).iter().map(|v| v.name.clone()).collect();
    let lists: Vec<String> = g.scope.writable_nonlocal(Ty::List).iter().map(|v| v.name.clone()).collect();
    write_outer(g, u, ints, lists, false)
}

/// A write to a variable of an outer scope, declared at the function's top.
fn write_outer(g: &mut Gen, u: &mut Unstructured, ints: Vec<String>, lists: Vec<String>, global: bool) -> Result<String> {
    let line = if !ints.is_empty() && g.chance(u, 1, 2)? {
        let t = g.pick(u, &ints)?.clone();
        format!("{t} = {}", bounded(pe::int(g, u)?))
    } else {
        augassign_line(g, u, &ints, &lists)?
    };
    let target = line.split_whitespace().next().expect("a target").to_string();
    let f = g.scope.current();
    if global {
        f.globals.insert(target);
    } else {
        f.nonlocals.insert(target);
    }
    g.w.line(line);
    Ok(String::new())
}

pub fn can_def(g: &Gen, w: Want) -> bool {
    w == Want::Stmt && g.can_nest_stmt() && g.budget > 4
}

/// A nested function, called right away and callable after.
pub fn closure(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let name = g.fresh("h");
    let arity = u.int_in_range(0..=2)?;
    def(g, u, &name, arity, Body::Func)?;
    let c = Callable { name: name.clone(), arity: arity as usize, kind: CallKind::Func };
    let a = pe::args(g, u, &c.kind, c.arity)?;
    g.scope.add_callable(c);
    use_call(g, u, &format!("{name}({a})"), Ty::Int)
}

/// `v = call` (a new variable) or `print(call)`.
pub(crate) fn use_call(g: &mut Gen, u: &mut Unstructured, call: &str, ty: Ty) -> Result<String> {
    if g.chance(u, 1, 2)? {
        let v = g.fresh("v");
        g.w.line(format!("{v} = {call}"));
        g.scope.bind(&v, ty, false);
    } else {
        g.w.line(format!("print({call})"));
    }
    Ok(String::new())
}

/// Functions made in a loop, called after it: each sees the loop variable's
/// last value (late binding), or its own (a default argument).
pub fn late_binding(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let fs = g.fresh("v");
    let i = g.fresh("i");
    let p = g.fresh("p");
    g.w.line(format!("{fs} = []"));
    g.w.line(format!("for {i} in range({}):", u.int_in_range(1..=3)?));
    g.w.indent();
    g.w.line("_tick()");
    let mark = g.scope.mark();
    g.scope.bind(&i, Ty::Int, false);
    g.scope.bind(&p, Ty::Int, true);
    let saved = g.ctx;
    g.ctx.expr_depth = 0;
    let body = bounded(pe::int(g, u)?);
    let uses_i = format!("({body} + {i} * {})", u.int_in_range(1..=5)?);
    g.ctx = saved;
    g.scope.restore(mark);
    match u.int_in_range(0..=2)? {
        0 => {
            let h = g.fresh("h");
            g.w.line(format!("def {h}({p}):"));
            g.w.line("    _tick()");
            g.w.line(format!("    return {uses_i}"));
            g.w.line(format!("{fs}.append({h})"));
        }
        1 => g.w.line(format!("{fs}.append(lambda {p}: {uses_i})")),
        _ => g.w.line(format!("{fs}.append(lambda {p}, {i}={i}: {uses_i})")),
    }
    g.w.dedent();
    let f = g.fresh("c");
    let arg = pe::int(g, u)?;
    use_call(g, u, &format!("[{f}({arg}) for {f} in {fs}]"), Ty::List)
}

/// A function, lambda or class with a method defined here (in a loop or
/// branch body: inside the converter's scaffolding), called with one
/// argument too many: the TypeError's message and the `__qualname__`
/// printed both name it.
pub fn qualname(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let q = g.fresh("q");
    let e = g.fresh("e");
    match u.int_in_range(0..=2)? {
        0 => {
            g.w.line(format!("def {q}():"));
            g.w.line("    return 0");
        }
        1 => g.w.line(format!("{q} = lambda: 0")),
        _ => {
            g.w.line(format!("class {q}:"));
            g.w.line("    def m(self):");
            g.w.line("        return 0");
            g.w.line(format!("{q} = {q}().m"));
        }
    }
    g.w.line("try:");
    g.w.line(format!("    {q}(1)"));
    g.w.line(format!("except TypeError as {e}:"));
    g.w.line(format!("    print({q}.__qualname__, {e})"));
    Ok(String::new())
}

pub fn generator(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let name = g.fresh("gen");
    let arity = u.int_in_range(0..=2)?;
    def(g, u, &name, arity, Body::Generator)?;
    let c = Callable { name: name.clone(), arity: arity as usize, kind: CallKind::Generator };
    let a = pe::args(g, u, &c.kind, c.arity)?;
    g.scope.add_callable(c);
    use_call(g, u, &format!("list({name}({a}))"), Ty::List)
}

pub fn can_yield(g: &Gen, w: Want) -> bool {
    w == Want::Stmt && g.ctx.in_generator
}

pub fn yield_stmt(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let callables: Vec<Callable> = g.scope.callables().into_iter().filter(|c| matches!(c.kind, CallKind::Generator)).cloned().collect();
    match u.int_in_range(0..=3)? {
        0 | 1 => {
            let e = bounded(pe::int(g, u)?);
            g.w.line(format!("yield {e}"));
        }
        2 if !callables.is_empty() => {
            let c = g.pick(u, &callables)?.clone();
            let a = pe::args(g, u, &c.kind, c.arity)?;
            g.w.line(format!("yield from {}({a})", c.name));
        }
        _ => {
            let it = pe::iterable(g, u)?;
            g.w.line(format!("yield from {it}"));
        }
    }
    Ok(String::new())
}

pub fn recursion(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let name = g.fresh("r");
    def(g, u, &name, 2, Body::Recursive)?;
    let c = Callable { name: name.clone(), arity: 2, kind: CallKind::Recursive };
    let a = pe::args(g, u, &c.kind, c.arity)?;
    g.scope.add_callable(c);
    use_call(g, u, &format!("{name}({a})"), Ty::Int)
}
