//! Plain family, data and control: strings and f-strings, floats (-0.0, inf,
//! nan, `math`), tuples and unpacking, dicts and sets, subscript and slice
//! assignment (augmented too), `match`, the walrus, `assert`, exception
//! chaining, big ints, `is` and `isinstance`, exits inside `finally`.
//!
//! Nothing prints a set (only `sorted` of one) and no set outlives its
//! statement: their order is the interpreter's. Strings in generated
//! expressions use single quotes only and no backslashes, so any expression
//! fits in an f-string's braces (written parenthesised). Floats never
//! overflow (exponents are taken modulo a small number) and are divided only
//! by non-zero literals unless a `try` here catches ZeroDivisionError.

use crate::gen::{Gen, EXCEPTIONS};
use crate::plain::{if_then, loop_body, read_maybe_unbound, use_call};
use crate::plain_expr::{self as pe, bounded, catches};
use crate::plain_objects::noted;
use crate::table::Want;
use crate::types::Ty;
use arbitrary::{Result, Unstructured};

fn vars(g: &Gen, ty: Ty) -> Vec<String> {
    g.scope.readable(ty).iter().map(|v| v.name.clone()).collect()
}

// ---- strings ------------------------------------------------------------------

/// An int computed by string methods and slicing.
pub fn string_methods(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let e = pe::int(g, u)?;
    Ok(match u.int_in_range(0..=11)? {
        0 => format!("len(str({e}).zfill(5))"),
        1 => format!("str({e}).count('1')"),
        2 => format!("str({e}).find('2')"),
        3 => format!("(int(str(abs({e}))[::-1]) % 1000)"),
        4 => format!("len(('ab' * ({e} % 5)).replace('ba', 'xyz'))"),
        5 => format!("ord('stagecheck'[{e} % 10])"),
        6 => format!("len('-'.join(map(str, {})).split('-'))", pe::list(g, u)?),
        7 => format!("len(str({e}).strip('-0').center(7, '*').rstrip('*'))"),
        8 => format!("int(str({e}).startswith('-'))"),
        9 => format!("str({}).count(', ')", pe::list(g, u)?),
        10 => format!("len(str({e})[{}:{}:{}])", u.int_in_range(-3..=1)?, u.int_in_range(-1..=4)?, g.pick(u, &[1, 2, -1])?),
        _ => format!("('{}'.upper() + str({e})).index('{}')", "ab", "B"),
    })
}

/// `print` of an f-string: format specs, conversions, nested specs, `=`.
pub fn fstring(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let mut parts = Vec::new();
    for _ in 0..u.int_in_range(1..=4)? {
        let e = pe::int(g, u)?;
        parts.push(match u.int_in_range(0..=11)? {
            0 => format!("{{({e})}}"),
            1 => format!("{{({e}):>6}}"),
            2 => format!("{{({e}):+05d}}"),
            3 => format!("{{({e}):#x}}"),
            4 => format!("{{({e}) * 1000:,}}"),
            5 => format!("{{({e})!r:^7}}"),
            6 => format!("{{({e}) / 8:.3f}}"),
            7 => format!("{{({e}) / 3:08.2e}}"),
            8 => format!("{{({e}):{{{}}}}}", g.pick(u, &["'<4'", "'*^5'", "'b'", "'o'"])?),
            9 => format!("{{({})!s:<9}}|", pe::list(g, u)?),
            10 => format!("{{({e}) / 4:%}}"),
            _ => {
                let ints = vars(g, Ty::Int);
                if ints.is_empty() {
                    // A str value (its repr is not its str) and `!s`.
                    if g.chance(u, 1, 2)? {
                        format!("{{str({e})=}}")
                    } else {
                        format!("{{({e})=}} {{str({e}) = !s:>4}}")
                    }
                } else {
                    let v = g.pick(u, &ints)?.clone();
                    match u.int_in_range(0..=2)? {
                        0 => format!("{{{v}=}} {{{v} = :>4}}"),
                        1 => format!("{{str({v})=}} {{{v}=!s}}"),
                        _ => format!("{{'ab' * ({v} % 3)=}} {{str({v}) = !r:<6}}"),
                    }
                }
            }
        });
    }
    g.w.line(format!("print(f\"<{}>\")", parts.join(" ")));
    Ok(String::new())
}

/// A str subclass with a method and an `__add__`: which operations keep the subclass.
pub fn str_subclass(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    g.budget = g.budget.saturating_sub(3);
    let (cls, s) = (g.fresh("T"), g.fresh("s"));
    g.w.line(format!("class {cls}(str):"));
    g.w.line("    def shout(self):");
    g.w.line("        return self.upper() + '!'");
    g.w.line("");
    g.w.line("    def __add__(self, other):");
    g.w.line(format!("        return {cls}(str.__add__(self, other) + '+')"));
    let e = pe::int(g, u)?;
    g.w.line(format!("{s} = {cls}('ab' + str({e}))"));
    g.w.line(format!(
        "print({s}.shout(), {s} + 'c', type({s} + 'c').__name__, type({s}.upper()).__name__, {s}[1:], {s} == 'ab' + str({e}), repr({s}))"
    ));
    use_call(g, u, &format!("len({s}.shout() + {s})"), Ty::Int)
}

// ---- floats -------------------------------------------------------------------

/// Float arithmetic and `math`, printed; an int made from it.
pub fn float_arith(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let f = g.fresh("x");
    let e = pe::int(g, u)?;
    let d = if catches(g, "ZeroDivisionError") && g.chance(u, 1, 2)? {
        pe::int(g, u)?
    } else {
        g.pick(u, &["3", "2.5", "-4", "7.0", "0.1"])?.to_string()
    };
    g.w.line(format!("{f} = ({e}) / {d}"));
    let mut items = Vec::new();
    for _ in 0..u.int_in_range(2..=5)? {
        let e = pe::int(g, u)?;
        items.push(match u.int_in_range(0..=13)? {
            0 => format!("{f} * 3"),
            1 => format!("({e}) // 2.5"),
            2 => format!("({e}) % -2.5"),
            3 => format!("2.0 ** (({e}) % 40 - 20)"),
            4 => format!("math.sqrt(abs({e}))"),
            5 => format!("(math.floor({f}), math.ceil({f}), math.trunc(-{f}))"),
            6 => format!("round({f})"),
            7 => format!("math.fsum([{f}, 0.1, 0.2]) - ({f} + 0.1 + 0.2)"),
            8 => format!("math.pi * ({e})"),
            9 => format!("(math.exp(({e}) % 5), math.log(abs({e}) + 1))"),
            10 => format!("(math.hypot({e}, 3), math.atan2({e}, -1))"),
            11 => format!("divmod({e}, 0.75)"),
            12 => format!("({f}.is_integer(), float({e}) == ({e}), {f}.as_integer_ratio())"),
            _ => format!("abs({e}) ** 0.5"),
        });
    }
    g.w.line(format!("print({})", items.join(", ")));
    use_call(g, u, &format!("int({f} * 10) % 1000"), Ty::Int)
}

/// -0.0, infinities and nan: signs, comparisons, `math` predicates, sorting.
pub fn float_special(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let (z, inf, nan) = (g.fresh("x"), g.fresh("x"), g.fresh("x"));
    g.w.line(format!("{z} = -0.0"));
    g.w.line(format!("{inf} = float('inf')"));
    g.w.line(format!("{nan} = float('nan')"));
    let mut items = Vec::new();
    for _ in 0..u.int_in_range(2..=5)? {
        let e = pe::int(g, u)?;
        items.push(match u.int_in_range(0..=11)? {
            0 => format!("({z}, -{z}, {z} == 0.0, math.copysign(1.0, {z}))"),
            1 => format!("(1 / {inf}, -{inf}, {inf} - {inf}, {inf} > 10 ** 300)"),
            2 => format!("({nan} == {nan}, {nan} != {nan}, math.isnan({inf} * 0), math.isinf(-{inf}))"),
            3 => format!("(max(1.0, {nan}), min({nan}, 1.0))"),
            4 => format!("sorted([3.0, -0.0, 0.0, -{inf}, {inf}, ({e}) / 2])"),
            5 => format!("(float({e}) * {z}, {z} * -1, str({z}), repr({z} + 0.0))"),
            6 => format!("(({e}) * 1e308 * 10, -1e308 * 10)"),
            7 => format!("(hash(-0.0) == hash(0.0), {z} in [0.0], {nan} in [{nan}])"),
            8 => format!("math.copysign({e}, {z})"),
            9 => format!("(round(-0.4), round(-0.5), -0.0 + 0, 0.0 * -({e}))"),
            10 => format!("({inf} // 3, -{inf} % 5)"),
            _ => format!("math.fmod({e}, -{inf})"),
        });
    }
    g.w.line(format!("print({})", items.join(", ")));
    if g.chance(u, 1, 3)? {
        let e = g.fresh("e");
        let what = *g.pick(u, &[inf.as_str(), nan.as_str()])?;
        g.w.line("try:");
        g.w.line(format!("    print(int({what}))"));
        g.w.line(format!("except (OverflowError, ValueError) as {e}:"));
        g.w.line(format!("    print(type({e}).__name__, {e})"));
    }
    Ok(String::new())
}

// ---- tuples and unpacking -----------------------------------------------------

/// Nested tuple targets, a swap of two variables, chained assignment.
pub fn tuple_unpack(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let ints: Vec<String> = g.scope.writable_local(Ty::Int).iter().map(|v| v.name.clone()).collect();
    let k = u.int_in_range(0..=3)?;
    if k == 0 && ints.len() >= 2 {
        let a = g.pick(u, &ints)?.clone();
        let b = g.pick(u, &ints)?.clone();
        if g.chance(u, 1, 2)? {
            g.w.line(format!("{a}, {b} = {b}, {a}"));
        } else {
            g.w.line(format!("{a}, {b} = {b}, ({a} + {b}) % 1000"));
        }
        return Ok(String::new());
    }
    let (a, b, c) = (g.fresh("v"), g.fresh("v"), g.fresh("v"));
    let (x, y, z) = (bounded(pe::int(g, u)?), bounded(pe::int(g, u)?), bounded(pe::int(g, u)?));
    match k {
        1 => g.w.line(format!("{a}, ({b}, {c}) = {x}, ({y}, {z})")),
        2 => {
            let t = g.fresh("t");
            g.w.line(format!("{t} = ({x}, {y}, {z})"));
            g.w.line(format!("[{a}, {b}], {c} = {t}[:2], {t}[-1]"));
            g.w.line(format!("print({t}[::-1], {t}.count({a}), {t}.index({t}[1]), ({a}, {b}) < ({b}, {a}), {t} + ({c},))"));
        }
        _ => g.w.line(format!("{a} = {b} = {c} = {x}")),
    }
    for v in [a, b, c] {
        g.scope.bind(&v, Ty::Int, false);
    }
    Ok(String::new())
}

/// Starred targets and starred expressions.
pub fn starred_unpack(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let (a, r) = (g.fresh("v"), g.fresh("v"));
    let e = bounded(pe::int(g, u)?);
    let l = pe::list(g, u)?;
    match u.int_in_range(0..=3)? {
        0 => g.w.line(format!("{a}, *{r} = [{e}] + {l}")),
        1 => g.w.line(format!("*{r}, {a} = {l} + [{e}]")),
        2 => {
            let z = g.fresh("v");
            g.w.line(format!("{a}, *{r}, {z} = [{e}, *{l}, {e}]"));
            g.scope.bind(&z, Ty::Int, false);
        }
        _ => g.w.line(format!("({a}, *{r}), = [({e}, *{l}[:3])]")),
    }
    g.scope.bind(&a, Ty::Int, false);
    g.scope.bind(&r, Ty::List, false);
    if g.chance(u, 1, 2)? {
        g.w.line(format!("print(*{r}, sep='/', end='|\\n')"));
    }
    Ok(String::new())
}

/// `for` with tuple, nested and starred targets; a generated body.
pub fn for_unpack(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let mark = g.scope.mark();
    let (a, b) = (g.fresh("i"), g.fresh("i"));
    let (l1, l2) = (pe::list(g, u)?, pe::list(g, u)?);
    let mut ints = vec![a.clone(), b.clone()];
    let mut lists = Vec::new();
    match u.int_in_range(0..=3)? {
        0 => g.w.line(format!("for {a}, {b} in zip({l1}[:4], {l2}):")),
        1 => {
            let k = g.fresh("i");
            g.w.line(format!("for {k}, ({a}, {b}) in enumerate(zip({l1}, {l2}[:4])):"));
            ints.push(k);
        }
        2 => {
            let e = bounded(pe::int(g, u)?);
            g.w.line(format!("for {a}, *{b} in [[{e}, 1], [2], [3, *{l1}[:3]]]:"));
            ints.pop();
            lists.push(b.clone());
        }
        _ => {
            let (x, y) = (bounded(pe::int(g, u)?), bounded(pe::int(g, u)?));
            let c = g.fresh("i");
            g.w.line(format!("for ({a}, {b}), {c} in [(({x}, {y}), 0), ((1, {y}), {x}), ((2, 3), 4)][:{}]:", u.int_in_range(0..=3)?));
            ints.push(c);
        }
    }
    for v in &ints {
        g.scope.bind(v, Ty::Int, false);
    }
    for v in &lists {
        g.scope.bind(v, Ty::List, false);
    }
    loop_body(g, u, &[], mark)?;
    Ok(String::new())
}

// ---- dicts and sets -------------------------------------------------------------

/// A dict: literal, item assignment and `+=`, methods, deletion and
/// re-insertion (order), merging, a loop over its items with a generated body.
pub fn dict_ops(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let d = g.fresh("d");
    let (x, y) = (bounded(pe::int(g, u)?), bounded(pe::int(g, u)?));
    g.w.line(format!("{d} = {{'a': {x}, 'b': {y}, 3: 0}}"));
    for _ in 0..u.int_in_range(1..=4)? {
        let e = bounded(pe::int(g, u)?);
        let key = noted(g, "'a'".into());
        let line = match u.int_in_range(0..=7)? {
            0 => format!("{d}['c'] = {e}"),
            1 => format!("{d}[{key}] += {e}"),
            2 => format!("{d}.setdefault('e', {e})"),
            3 => format!("{d}.update({{'q': {e}}}, r={e})"),
            4 => format!("{d}[3] = {d}.pop('b', -1) + {d}.get('z', {e})"),
            5 => {
                g.w.line(format!("del {d}['a']"));
                format!("{d}['a'] = {e}")
            }
            6 => format!("{d} = {{**{d}, 'a': {e}}} | {{'m': 1}}"),
            _ => format!("{d} |= {{k: {e} for k in ('b', 'n')}}"),
        };
        g.w.line(line);
    }
    g.w.line(format!("print({d}, list({d}), sorted({d}.values()), {{k: v for k, v in {d}.items() if v > 0}})"));
    if g.chance(u, 1, 2)? {
        let (k, v) = (g.fresh("i"), g.fresh("i"));
        let mark = g.scope.mark();
        g.w.line(format!("for {k}, {v} in list({d}.items())[:4]:"));
        g.scope.bind(&v, Ty::Int, false);
        loop_body(g, u, &[], mark)?;
    }
    use_call(g, u, &format!("sum({d}.values()) % 1000"), Ty::Int)
}

/// Set operations, sorted: a list, or a count, or a membership.
pub fn set_ops(g: &mut Gen, u: &mut Unstructured, w: Want) -> Result<String> {
    let (x, y) = (pe::int(g, u)?, pe::int(g, u)?);
    let l = pe::list(g, u)?;
    let op = *g.pick(u, &["|", "&", "-", "^"])?;
    let s = format!("({{{x}, {y}, 3}} {op} set({l}))");
    Ok(match w {
        Want::List => format!("sorted({s})"),
        Want::Int => format!("len({s})"),
        _ => match u.int_in_range(0..=2)? {
            0 => format!("({x} in {s})"),
            1 => format!("({{{x}}} <= {s})"),
            _ => format!("(frozenset({l}) == set({l}))"),
        },
    })
}

// ---- item assignment ----------------------------------------------------------

fn lists_here(g: &Gen) -> Vec<String> {
    let mut l = vars(g, Ty::List);
    l.extend(vars(g, Ty::Obj).into_iter().map(|o| format!("{o}.items")));
    l
}

pub fn can_item_assign(g: &Gen, w: Want) -> bool {
    w == Want::Stmt && !lists_here(g).is_empty()
}

/// `l[i] = e` (guarded unless a `try` here catches IndexError), index and
/// value maybe noted (the index is evaluated first), a swap of two items.
pub fn subscript_assign(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let ls = lists_here(g);
    let l = g.pick(u, &ls)?.clone();
    let e = bounded(pe::int(g, u)?);
    let i = u.int_in_range(0..=3)?;
    match u.int_in_range(0..=3)? {
        0 if catches(g, "IndexError") => g.w.line(format!("{l}[{i}] = {e}")),
        0 | 1 => {
            g.w.line(format!("if len({l}) > {i}:"));
            g.w.line(format!("    {l}[{i}] = {e}"));
        }
        2 => {
            let idx = noted(g, format!("len({l}) - 1"));
            let v = noted(g, e);
            g.w.line(format!("if {l}:"));
            g.w.line(format!("    {l}[{idx}] = {v}"));
        }
        _ => {
            g.w.line(format!("if len({l}) > 2:"));
            g.w.line(format!("    {l}[0], {l}[2] = {l}[2], {l}[0]"));
        }
    }
    Ok(String::new())
}

/// `l[i] op= e`: the target's index evaluated once, before the value.
pub fn subscript_augassign(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let ls = lists_here(g);
    let l = g.pick(u, &ls)?.clone();
    let e = bounded(pe::int(g, u)?);
    let op = match u.int_in_range(0..=5)? {
        0 | 1 => format!("+= {e}"),
        2 => format!("-= {e}"),
        3 => format!("//= {}", g.pick(u, &[2, 3, -2])?),
        4 => format!("%= {}", g.pick(u, &[7, 10, -4])?),
        _ => format!("^= {e}"),
    };
    if g.chance(u, 1, 2)? {
        let i = u.int_in_range(0..=2)?;
        g.w.line(format!("if len({l}) > {i}:"));
        g.w.line(format!("    {l}[{i}] {op}"));
    } else {
        let idx = noted(g, format!("len({l}) - 1"));
        g.w.line(format!("if {l}:"));
        g.w.line(format!("    {l}[{idx}] {op}"));
    }
    Ok(String::new())
}

/// Slice assignment: growing, shrinking, extended slices (same length), all.
pub fn slice_assign(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let ls = lists_here(g);
    let l = g.pick(u, &ls)?.clone();
    let e = bounded(pe::int(g, u)?);
    let c = g.fresh("c");
    g.w.line(match u.int_in_range(0..=5)? {
        0 => format!("{l}[{}:{}] = [{e}]", u.int_in_range(0..=2)?, u.int_in_range(1..=3)?),
        1 => format!("{l}[{}:{}] = [{e}, {e}][:max(0, 8 - len({l}))]", u.int_in_range(0..=1)?, u.int_in_range(0..=2)?),
        2 => format!("{l}[::2] = [{c} % 7 for {c} in {l}[::2]]"),
        3 => format!("{l}[:] = {l}[::-1]"),
        4 => format!("del {l}[::{}]", g.pick(u, &[2, 3, -2])?),
        _ => format!("{l}[len({l}):] = [{e}][:max(0, 8 - len({l}))]"),
    });
    Ok(String::new())
}

// ---- match --------------------------------------------------------------------

/// One `case` line and its generated block, with its captures bound there.
fn case(g: &mut Gen, u: &mut Unstructured, pattern: &str, ints: &[&str], lists: &[&str], guard: bool) -> Result<()> {
    let mark = g.scope.mark();
    for v in ints {
        g.scope.bind(v, Ty::Int, false);
    }
    for v in lists {
        g.scope.bind(v, Ty::List, false);
    }
    let guard = if guard { format!(" if {}", pe::cond(g, u)?) } else { String::new() };
    g.w.line(format!("case {pattern}{guard}:"));
    g.block(u)?;
    g.scope.restore(mark);
    Ok(())
}

/// `match` on an int or a bool: literal and or-patterns, a class pattern with
/// a capture, guards, a capture or `_` last.
pub fn match_value(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let subject = if g.chance(u, 1, 4)? { pe::cond(g, u)? } else { pe::int(g, u)? };
    g.w.line(format!("match {subject}:"));
    g.w.indent();
    let n = g.fresh("v");
    for _ in 0..u.int_in_range(1..=3)? {
        let (a, b) = (g.small_int(u)?, g.small_int(u)?);
        match u.int_in_range(0..=4)? {
            0 => case(g, u, &format!("{a}"), &[], &[], false)?,
            1 => {
                let guard = g.chance(u, 1, 3)?;
                case(g, u, &format!("{a} | {b} | True"), &[], &[], guard)?
            }
            2 => case(g, u, &format!("int({n}) if {n} > {a}"), &[], &[], false).map(|_| ())?,
            3 => case(g, u, &format!("bool({n})"), &[&n], &[], false)?,
            _ => case(g, u, &format!("({a} | {b}) as {n}"), &[&n], &[], true)?,
        }
    }
    if g.chance(u, 1, 2)? {
        case(g, u, "_", &[], &[], false)?;
    } else {
        let m = g.fresh("v");
        case(g, u, &m, &[&m], &[], false)?;
    }
    g.w.dedent();
    Ok(String::new())
}

/// `match` on a list, a tuple, a dict or an instance: sequence patterns (with
/// a star), mapping patterns (with `**rest`), class patterns, guards.
pub fn match_structure(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let (a, b, r) = (g.fresh("v"), g.fresh("v"), g.fresh("v"));
    let l = pe::list(g, u)?;
    let e = pe::int(g, u)?;
    let k = g.small_int(u)?;
    let objs = vars(g, Ty::Obj);
    match u.int_in_range(0..=3)? {
        0 => {
            g.w.line(format!("match {l}:"));
            g.w.indent();
            case(g, u, "[]", &[], &[], false)?;
            case(g, u, &format!("[{a}]"), &[&a], &[], true)?;
            case(g, u, &format!("[{a}, {b}, *{r}] if {a} <= {b}"), &[&a, &b], &[&r], false)?;
            case(g, u, &format!("[*{r}, {k}]"), &[], &[&r], false)?;
        }
        1 => {
            g.w.line(format!("match ({e}, {l}):"));
            g.w.indent();
            case(g, u, &format!("({k}, [])"), &[], &[], false)?;
            case(g, u, &format!("({a}, [{b}, *_])"), &[&a, &b], &[], true)?;
            case(g, u, &format!("(int({a}), list({r}))"), &[&a], &[&r], false)?;
        }
        2 => {
            g.w.line(format!("match {{'k': {e}, 'l': {l}, {k}: 'x'}}:"));
            g.w.indent();
            case(g, u, &format!("{{'k': {k}}}"), &[], &[], false)?;
            case(g, u, &format!("{{'k': int({a}), 'l': [{b}, *_]}}"), &[&a, &b], &[], true)?;
            case(g, u, &format!("{{'l': [], **{r}}}"), &[], &[], false)?;
            case(g, u, &format!("{{'k': {a}, 'z': _}}"), &[&a], &[], false)?;
        }
        _ if !objs.is_empty() => {
            let o = g.pick(u, &objs)?.clone();
            g.w.line(format!("match {o}:"));
            g.w.indent();
            case(g, u, &format!("object(x={k})"), &[], &[], false)?;
            case(g, u, &format!("object(x=int({a}), items=[{b}, *{r}])"), &[&a, &b], &[&r], true)?;
            case(g, u, "object(items=[])", &[], &[], false)?;
        }
        _ => {
            let pt = g.fresh("Pt");
            g.w.line(format!("class {pt}:"));
            g.w.line("    __match_args__ = ('x', 'y')");
            g.w.line("");
            g.w.line("    def __init__(self, x, y):");
            g.w.line("        self.x = x");
            g.w.line("        self.y = y");
            let y = bounded(pe::int(g, u)?);
            g.w.line(format!("match {pt}({e}, {y}):"));
            g.w.indent();
            case(g, u, &format!("{pt}(0, {b})"), &[&b], &[], false)?;
            case(g, u, &format!("{pt}({a}, {b}) if {a} == {b}"), &[&a, &b], &[], false)?;
            case(g, u, &format!("{pt}(x={a}) if {a} > {k}"), &[&a], &[], false)?;
        }
    }
    case(g, u, "_", &[], &[], false)?;
    g.w.dedent();
    Ok(String::new())
}

// ---- walrus ---------------------------------------------------------------------

/// `:=` in an `if` test (bound after it), a `while` counter or a call's argument.
pub fn walrus(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let v = g.fresh("v");
    let e = bounded(pe::int(g, u)?);
    match u.int_in_range(0..=3)? {
        0 | 3 => {
            let op = *g.pick(u, &["<", ">", "==", "!="])?;
            let k = g.small_int(u)?;
            // The walrus on the left, on the right, or between two others.
            let hi = g.small_int(u)?;
            g.w.line(match u.int_in_range(0..=2)? {
                0 => format!("if ({v} := {e}) {op} {k}:"),
                1 => format!("if {k} {op} ({v} := {e}):"),
                _ => format!("if {k} < ({v} := {e}) <= {hi}:"),
            });
            let mark = g.scope.mark();
            g.scope.bind(&v, Ty::Int, false);
            g.block(u)?;
            g.scope.restore(mark);
            g.scope.bind(&v, Ty::Int, false);
        }
        1 => {
            let bound = u.int_in_range(0..=4)?;
            g.w.line(format!("{v} = 0"));
            g.scope.bind(&v, Ty::Int, true);
            g.w.line(format!("while ({v} := {v} + 1) <= {bound}:"));
            let mark = g.scope.mark();
            loop_body(g, u, &[], mark)?;
        }
        _ => {
            g.w.line(format!("print(({v} := {e}), {v} * 2)"));
            g.scope.bind(&v, Ty::Int, false);
        }
    }
    Ok(String::new())
}

/// `:=` inside a comprehension binds in the enclosing scope: read after it
/// (unbound when it never ran, so read under `except NameError`).
pub fn walrus_comprehension(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let (v, y, c) = (g.fresh("v"), g.fresh("v"), g.fresh("c"));
    let it = pe::iterable(g, u)?;
    let mark = g.scope.mark();
    g.scope.bind(&c, Ty::Int, true);
    let e = pe::int(g, u)?;
    g.scope.restore(mark);
    let k = g.small_int(u)?;
    g.w.line(match u.int_in_range(0..=3)? {
        0 => format!("{v} = [{y} for {c} in {it} if ({y} := ({e}) % 7) > {k}]"),
        1 => format!("{v} = [({y} := {c} + {y}) for {c} in {it}] if ({y} := {k}) else []"),
        2 => format!("{v} = any(({y} := {c}) > {k} for {c} in {it})"),
        _ => format!("{v} = {{{c}: ({y} := ({e}) % 1000) for {c} in {it}}}"),
    });
    g.w.line(format!("print({v})"));
    read_maybe_unbound(g, &y);
    Ok(String::new())
}

// ---- assert, chaining -------------------------------------------------------------

/// `assert cond, message` caught when it fails.
pub fn assert_stmt(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let c = pe::cond(g, u)?;
    let msg = match u.int_in_range(0..=2)? {
        0 => String::new(),
        1 => format!(", 'failed ' + str({})", pe::int(g, u)?),
        _ => format!(", f\"failed {{({})}}\"", pe::int(g, u)?),
    };
    let e = g.fresh("e");
    g.w.line("try:");
    g.w.line(format!("    assert {c}{msg}"));
    g.w.line("    print('assert passed')");
    g.w.line(format!("except AssertionError as {e}:"));
    g.w.line(format!("    print('assert', repr({e}))"));
    Ok(String::new())
}

/// An exception raised while handling another: `from e`, `from None`, or
/// implicit; its cause, context and suppression printed.
pub fn raise_from(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let (e1, e2) = (g.fresh("e"), g.fresh("e"));
    let inner = *g.pick(u, &["ValueError", "Boom", "IndexError"])?;
    let outer = *g.pick(u, &["KeyError", "Boom", "ValueError"])?;
    let outer = if outer == inner { "LookupError" } else { outer };
    let i = EXCEPTIONS.iter().position(|x| *x == inner).expect("known");
    g.w.line("try:");
    g.w.line("    try:");
    g.w.indent();
    let saved = g.ctx;
    g.ctx.catching |= 1 << i;
    g.block(u)?;
    g.ctx = saved;
    let e = pe::int(g, u)?;
    g.w.line(format!("    raise {inner}({e})"));
    g.w.dedent();
    g.w.line(format!("    except {inner} as {e1}:"));
    let from = match u.int_in_range(0..=2)? {
        0 => format!(" from {e1}"),
        1 => " from None".to_string(),
        _ => String::new(),
    };
    let e = pe::int(g, u)?;
    g.w.line(format!("        raise {outer}({e}){from}"));
    g.w.line(format!("except {outer} as {e2}:"));
    g.w.line(format!(
        "    print('chained', repr({e2}), type({e2}.__cause__).__name__, type({e2}.__context__).__name__, {e2}.__suppress_context__)"
    ));
    Ok(String::new())
}

// ---- ints, identity ---------------------------------------------------------------

/// Arithmetic far beyond 64 bits, brought back to a small int.
pub fn big_int(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let e = pe::int(g, u)?;
    Ok(match u.int_in_range(0..=8)? {
        0 => format!("(({e}) * 2 ** 70 + 3 ** 45) % 1000"),
        1 => format!("((2 ** 64 - ({e})) // 3 ** 30 % 1000)"),
        2 => format!("(int('9' * 25) % (abs({e}) + 1))"),
        3 => format!("((({e}) << 80) >> 77) % 1000"),
        4 => format!("pow({e}, 50, 997)"),
        5 => format!("(({e}) ** 30 % 1009)"),
        6 => format!("len(str(2 ** (({e}) % 200)))"),
        7 => format!("(10 ** 30 + ({e})).bit_length()"),
        _ => format!("((-({e}) - 2 ** 65) // 7 % 1000)"),
    })
}

/// `is`/`is not` where identity is defined (None, bools, named lists, objects, types).
pub fn identity(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let mut named = vars(g, Ty::List);
    named.extend(vars(g, Ty::Obj));
    let e = pe::int(g, u)?;
    Ok(match u.int_in_range(0..=5)? {
        0 | 1 if !named.is_empty() => {
            let a = g.pick(u, &named)?.clone();
            let b = g.pick(u, &named)?.clone();
            let op = if g.chance(u, 1, 2)? { "is" } else { "is not" };
            format!("({a} {op} {b})")
        }
        0 => format!("({} is not {})", pe::list(g, u)?, pe::list(g, u)?),
        1 => format!("(int({e}) is None)"),
        2 => format!("(bool({e}) is True)"),
        3 => format!("(type({e}) is int)"),
        4 => format!("(int({e}) is not None)"),
        _ => format!("({}[:] is {})", pe::list(g, u)?, "None"),
    })
}

/// `isinstance` on ints, bools, lists, strings and objects.
pub fn isinstance(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let e = pe::int(g, u)?;
    let objs = vars(g, Ty::Obj);
    Ok(match u.int_in_range(0..=5)? {
        0 => format!("isinstance({e}, int)"),
        1 => format!("isinstance({e}, bool)"),
        2 => format!("isinstance({}, (tuple, list))", pe::list(g, u)?),
        3 => format!("isinstance(str({e}), (int, str))"),
        4 if !objs.is_empty() => format!("isinstance({}, (int, object))", g.pick(u, &objs)?),
        _ => format!("isinstance({e} > 0, int)"),
    })
}

// ---- exits inside finally -----------------------------------------------------------

pub fn can_finally_exit(g: &Gen, w: Want) -> bool {
    w == Want::Stmt && g.can_nest_stmt() && (g.ctx.in_loop || g.scope.in_function())
}

/// A `try` whose `finally` ends (maybe under an `if`) with `return`, `break`
/// or `continue`: it cancels an exception or exit in flight.
pub fn finally_exit(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let mut exits = Vec::new();
    if g.ctx.in_loop {
        exits.extend(["break".to_string(), "continue".to_string()]);
    }
    if g.scope.in_function() {
        exits.push(if g.ctx.in_generator { "return".to_string() } else { format!("return {}", bounded(pe::int(g, u)?)) });
    }
    let exit = g.pick(u, &exits)?.clone();
    let saved = g.ctx;
    g.w.line("try:");
    let handler = g.chance(u, 1, 3)?;
    if handler {
        g.ctx.catching |= 1 << 1;
    }
    g.block(u)?;
    g.ctx = saved;
    if handler {
        let e = g.fresh("e");
        g.w.line(format!("except ValueError as {e}:"));
        g.w.line(format!("    print('caught', {e})"));
    }
    g.w.line("finally:");
    g.ctx.in_finally = true;
    g.ctx.loop_exit_blocked = true;
    if g.chance(u, 1, 2)? {
        g.block(u)?;
    }
    g.w.indent();
    if g.chance(u, 1, 3)? {
        g.w.line(exit);
    } else {
        if_then(g, u, &exit)?;
    }
    g.w.dedent();
    g.ctx = saved;
    Ok(String::new())
}
