//! Plain family, what a tracing JIT emulates rather than runs (TorchDynamo
//! re-implements builtins, sets, dicts and module globals in Python): builtins
//! called with their full argument forms (`format` specs, `int` bases,
//! `sorted`/`min`/`max` keys and defaults, `divmod`, `round` digits, `pow`'s
//! modulus), the exceptions builtins raise caught and printed (type and
//! message), a set's own iteration and `pop` order, attributes of functions
//! stored across calls, and a global deleted and made again.
//!
//! `set_order` prints a set's order, which is the interpreter's own: it is
//! generated only for targets whose both sides are one CPython
//! (`Settings::DEFAULT` leaves it out, so stagecheck's RustPython runs and the
//! CPython oracle never see it).

use crate::gen::Gen;
use crate::plain_expr::{self as pe, bounded};
use crate::table::Want;
use arbitrary::{Result, Unstructured};

/// `print` of builtins called with their argument forms on int operands.
pub fn builtin_forms(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let mut parts = Vec::new();
    for _ in 0..u.int_in_range(1..=3)? {
        let e = bounded(pe::int(g, u)?);
        let l = pe::list(g, u)?;
        parts.push(match u.int_in_range(0..=15)? {
            0 => format!("format({e}, '08b')"),
            1 => format!("format({e}, {})", *g.pick(u, &["'+x'", "'#o'", "','", "'>6'", "'^7d'", "'X'", "'e'", "'.2%'"])?),
            2 => format!("int(str(abs({e})), {})", *g.pick(u, &["10", "16", "36", "0"])?),
            3 => format!("int({})", *g.pick(u, &["'0x1f', 16", "'0b101', 0", "' 12 '", "'1_000'", "'-7', 8"])?),
            4 => format!("sorted({l}, key=abs, reverse=True)"),
            5 => format!("min({l}, default={e})"),
            6 => format!("max({l}, key=lambda v: -v, default=None)"),
            7 => format!("divmod({e}, {})", *g.pick(u, &["7", "-3", "1"])?),
            8 => format!("round({e} / 7, {})", *g.pick(u, &["2", "0", "-1"])?),
            9 => format!("round({e}, -1)"),
            10 => format!("pow({e}, {}, 7)", *g.pick(u, &["2", "3", "0"])?),
            11 => format!("sum({l}, {e})"),
            12 => format!("list(enumerate({l}, {e}))"),
            13 => format!("min({e}, 3, -1, key=abs)"),
            14 => format!("(bin({e}), oct({e}), hex({e}), chr(65 + abs({e}) % 26))"),
            _ => format!("list(zip({l}, reversed({l})))"),
        });
    }
    g.w.line(format!("print({})", parts.join(", ")));
    Ok(String::new())
}

/// A builtin that raises, in a `try` that prints the exception's type and
/// message (the emulated builtin's message is compared).
pub fn builtin_errors(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let e = bounded(pe::int(g, u)?);
    let (call, catch) = match u.int_in_range(0..=13)? {
        0 => (format!("int('x' + str({e}))"), "ValueError"),
        1 => (format!("int(str({e}), 1)"), "ValueError"),
        2 => (format!("format({e}, 'q')"), "ValueError"),
        3 => (format!("format(str({e}), 'd')"), "ValueError"),
        4 => (format!("divmod({e}, 0)"), "ZeroDivisionError"),
        5 => ("min([])".to_string(), "ValueError"),
        6 => (format!("sorted([{e}, 'a'])"), "TypeError"),
        7 => (format!("chr(-1 - abs({e}))"), "ValueError"),
        8 => (format!("[{e}].index({e} + 1)"), "ValueError"),
        9 => ("{}.popitem()".to_string(), "KeyError"),
        10 => ("set().pop()".to_string(), "KeyError"),
        11 => (format!("tuple({e})"), "TypeError"),
        12 => (format!("round({e}, 'a')"), "TypeError"),
        _ => (format!("'abc'.index(str({e}))"), "ValueError"),
    };
    let x = g.fresh("e");
    g.w.line("try:");
    g.w.line(format!("    print({call})"));
    g.w.line(format!("except {catch} as {x}:"));
    g.w.line(format!("    print('{catch}', {x})"));
    Ok(String::new())
}

/// A set built, grown and shrunk, then its order printed and popped.
pub fn set_order(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let s = g.fresh("s");
    let (x, y) = (bounded(pe::int(g, u)?), bounded(pe::int(g, u)?));
    g.w.line(format!("{s} = {{{x}, 100, -5, 33, {y}, 7}}"));
    for _ in 0..u.int_in_range(0..=2)? {
        let e = bounded(pe::int(g, u)?);
        g.w.line(match u.int_in_range(0..=3)? {
            0 => format!("{s}.add({e})"),
            1 => format!("{s}.discard({e})"),
            2 => format!("{s} |= {{{e}, 64}}"),
            _ => format!("{s} = {s} - {{{e}}}"),
        });
    }
    g.w.line(format!("print(list({s}), [v for v in {s} if v % 2], {s}.pop(), len({s}))"));
    Ok(String::new())
}

/// An attribute stored on a top-level function (read back at the next call)
/// or on a nested one, then printed.
pub fn function_attrs(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let e = bounded(pe::int(g, u)?);
    let tops: Vec<String> = g.scope.callables().iter().map(|c| c.name.clone()).collect();
    if !tops.is_empty() && g.chance(u, 2, 3)? {
        let f = g.pick(u, &tops)?.clone();
        g.w.line(format!("{f}.calls = getattr({f}, 'calls', 0) + 1"));
        g.w.line(format!("{f}.seen = getattr({f}, 'seen', []) + [{e}]"));
        g.w.line(format!("print({f}.__name__, {f}.calls, {f}.seen[-3:], 'calls' in {f}.__dict__)"));
    } else {
        let h = g.fresh("h");
        g.w.line(format!("def {h}():"));
        g.w.line("    return 1");
        g.w.line(format!("{h}.tag = {e}"));
        g.w.line(format!("{h}.tag += 1"));
        g.w.line(format!("print({h}.tag, {h}.__qualname__, 'tag' in {h}.__dict__)"));
    }
    Ok(String::new())
}

/// A global bound, deleted (its read then a NameError, caught) and bound
/// again, from inside a function.
pub fn global_recreated(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let name = g.fresh("gd");
    let (x, y) = (bounded(pe::int(g, u)?), bounded(pe::int(g, u)?));
    let err = g.fresh("e");
    for l in [
        format!("global {name}"),
        format!("{name} = {x}"),
        format!("del {name}"),
        "try:".to_string(),
        format!("    print({name})"),
        format!("except NameError as {err}:"),
        format!("    print('gone', {err})"),
        format!("{name} = {y}"),
        format!("print('again', {name})"),
    ] {
        g.w.line(l);
    }
    Ok(String::new())
}
