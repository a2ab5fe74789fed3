//! Plain family expressions: ints (bools count), lists of ints, conditions.
//!
//! Values stay small: products and powers are taken `% 1000` where they are
//! formed, and what is stored (`bounded`) is too, so no loop can grow an int
//! without bound. Division and modulo take a non-zero literal divisor, except
//! under a `try` that catches `ZeroDivisionError`, where any divisor goes (a
//! division by zero on purpose). Subscripts are guarded unless a `try` catches
//! `IndexError`. Every compound expression is parenthesised or a call.

use crate::gen::{Gen, EXCEPTIONS};
use crate::scope::CallKind;
use crate::table::Want;
use crate::types::Ty;
use arbitrary::{Result, Unstructured};

pub(crate) fn catches(g: &Gen, exc: &str) -> bool {
    let i = EXCEPTIONS.iter().position(|e| *e == exc).expect("known exception");
    g.ctx.catching & (1 << i) != 0
}

/// `e` reduced into `0..1000` unless it is a literal or a name (for storing:
/// not an atom, use it only where a whole expression goes).
pub fn bounded(e: String) -> String {
    let leaf = e.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if leaf {
        e
    } else {
        format!("{e} % 1000")
    }
}

pub fn int(g: &mut Gen, u: &mut Unstructured) -> Result<String> {
    g.expr(u, Want::Int)
}

pub fn list(g: &mut Gen, u: &mut Unstructured) -> Result<String> {
    g.expr(u, Want::List)
}

pub fn cond(g: &mut Gen, u: &mut Unstructured) -> Result<String> {
    g.expr(u, Want::Cond)
}

pub fn literal(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    Ok(g.small_int(u)?.to_string())
}

fn want_ty(w: Want) -> Option<Ty> {
    match w {
        Want::Int => Some(Ty::Int),
        Want::List => Some(Ty::List),
        _ => None,
    }
}

pub fn can_name(g: &Gen, w: Want) -> bool {
    want_ty(w).is_some_and(|t| !g.scope.readable(t).is_empty())
}

pub fn name(g: &mut Gen, u: &mut Unstructured, w: Want) -> Result<String> {
    let ty = want_ty(w).expect("can_name");
    let vars: Vec<String> = g.scope.readable(ty).iter().map(|v| v.name.clone()).collect();
    Ok(g.pick(u, &vars)?.clone())
}

pub fn list_literal(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let n = u.int_in_range(0..=3)?;
    let mut items = Vec::new();
    for _ in 0..n {
        items.push(if g.can_nest_expr() { int(g, u)? } else { g.small_int(u)?.to_string() });
    }
    Ok(format!("[{}]", items.join(", ")))
}

const CMP: [&str; 6] = ["<", "<=", ">", ">=", "==", "!="];

pub fn compare(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let a = int(g, u)?;
    let op = g.pick(u, &CMP)?;
    let b = int(g, u)?;
    Ok(format!("({a} {op} {b})"))
}

pub fn can_arith(g: &Gen, w: Want) -> bool {
    w == Want::Int && g.can_nest_expr()
}

pub fn arith(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let a = int(g, u)?;
    let k = u.int_in_range(0..=9)?;
    Ok(match k {
        0 => format!("({a} + {})", int(g, u)?),
        1 => format!("({a} - {})", int(g, u)?),
        2 => format!("({a} * {} % 1000)", int(g, u)?),
        3 | 4 => {
            let op = if k == 3 { "//" } else { "%" };
            if catches(g, "ZeroDivisionError") && g.chance(u, 1, 2)? {
                format!("({a} {op} {})", int(g, u)?)
            } else {
                let d = *g.pick(u, &[3, 2, 7, -2, 5, 10])?;
                format!("({a} {op} {d})")
            }
        }
        5 => format!("({a} ** {} % 1000)", u.int_in_range(0..=3)?),
        6 => format!("({a} & {})", int(g, u)?),
        7 => format!("({a} | {})", int(g, u)?),
        8 => format!("({a} ^ {})", int(g, u)?),
        _ => format!("({a} >> {})", u.int_in_range(0..=3)?),
    })
}

pub fn unary(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    Ok(match u.int_in_range(0..=3)? {
        0 => format!("(-{})", int(g, u)?),
        1 => format!("abs({})", int(g, u)?),
        2 => format!("(~{})", int(g, u)?),
        _ => format!("int({})", cond(g, u)?),
    })
}

pub fn can_and_or(g: &Gen, w: Want) -> bool {
    matches!(w, Want::Int | Want::Cond) && g.can_nest_expr()
}

pub fn and_or(g: &mut Gen, u: &mut Unstructured, w: Want) -> Result<String> {
    let a = g.expr(u, w)?;
    let op = if g.chance(u, 1, 2)? { "and" } else { "or" };
    let b = g.expr(u, w)?;
    if g.chance(u, 1, 4)? {
        let c = g.expr(u, w)?;
        let op2 = if op == "and" { "or" } else { "and" };
        return Ok(format!("({a} {op} {b} {op2} {c})"));
    }
    Ok(format!("({a} {op} {b})"))
}

pub fn not(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    Ok(format!("(not {})", cond(g, u)?))
}

pub fn can_ternary(g: &Gen, w: Want) -> bool {
    matches!(w, Want::Int | Want::List) && g.can_nest_expr()
}

pub fn ternary(g: &mut Gen, u: &mut Unstructured, w: Want) -> Result<String> {
    let a = g.expr(u, w)?;
    let c = cond(g, u)?;
    let b = g.expr(u, w)?;
    Ok(format!("({a} if {c} else {b})"))
}

pub fn chained_compare(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let a = int(g, u)?;
    let op1 = g.pick(u, &CMP)?;
    let b = int(g, u)?;
    let op2 = g.pick(u, &CMP)?;
    let c = int(g, u)?;
    Ok(format!("({a} {op1} {b} {op2} {c})"))
}

pub fn can_membership(g: &Gen, w: Want) -> bool {
    w == Want::Cond && g.can_nest_expr()
}

pub fn membership(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let a = int(g, u)?;
    let l = list(g, u)?;
    let op = if g.chance(u, 1, 3)? { "not in" } else { "in" };
    Ok(format!("({a} {op} {l})"))
}

fn fits(kind: &CallKind, w: Want) -> bool {
    matches!((kind, w), (CallKind::Func | CallKind::Recursive | CallKind::Generator, Want::Int) | (CallKind::Generator, Want::List))
}

pub fn can_call(g: &Gen, w: Want) -> bool {
    g.can_nest_expr() && g.scope.callables().iter().any(|c| fits(&c.kind, w))
}

/// Arguments for a callable of `arity` int parameters.
pub fn args(g: &mut Gen, u: &mut Unstructured, kind: &CallKind, arity: usize) -> Result<String> {
    let mut a = Vec::new();
    for i in 0..arity {
        if i == 0 && matches!(kind, CallKind::Recursive) {
            a.push(u.int_in_range(0..=4)?.to_string());
        } else {
            a.push(bounded(int(g, u)?));
        }
    }
    Ok(a.join(", "))
}

pub fn call(g: &mut Gen, u: &mut Unstructured, w: Want) -> Result<String> {
    let fit: Vec<_> = g.scope.callables().into_iter().filter(|c| fits(&c.kind, w)).cloned().collect();
    let c = g.pick(u, &fit)?.clone();
    let a = args(g, u, &c.kind, c.arity)?;
    Ok(match (c.kind, w) {
        (CallKind::Generator, Want::List) => format!("list({}({a}))", c.name),
        (CallKind::Generator, _) => format!("(sum({}({a})) % 1000)", c.name),
        _ => format!("{}({a})", c.name),
    })
}

pub fn side_effect_in_condition(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let a = int(g, u)?;
    let op = g.pick(u, &CMP)?;
    let b = int(g, u)?;
    Ok(format!("(note({a}) {op} {b})"))
}

pub fn side_effect_operand(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    Ok(format!("note({})", int(g, u)?))
}

pub fn can_subscript(g: &Gen, w: Want) -> bool {
    g.can_nest_expr()
        && match w {
            Want::Int => !g.scope.readable(Ty::List).is_empty() || catches(g, "IndexError"),
            Want::List => true,
            _ => false,
        }
}

pub fn subscript(g: &mut Gen, u: &mut Unstructured, w: Want) -> Result<String> {
    if w == Want::List {
        let l = list(g, u)?;
        let a = *g.pick(u, &["", "1", "-2", "0"])?;
        let b = *g.pick(u, &["", "3", "-1", "2"])?;
        return Ok(format!("{l}[{a}:{b}]"));
    }
    if catches(g, "IndexError") && (g.scope.readable(Ty::List).is_empty() || g.chance(u, 1, 2)?) {
        let l = list(g, u)?;
        let i = u.int_in_range(-3..=3)?;
        return Ok(format!("{l}[{i}]"));
    }
    let vars: Vec<String> = g.scope.readable(Ty::List).iter().map(|v| v.name.clone()).collect();
    let l = g.pick(u, &vars)?.clone();
    if g.chance(u, 1, 3)? {
        return Ok(format!("({l}[-1] if {l} else 0)"));
    }
    let i = u.int_in_range(0..=3)?;
    Ok(format!("({l}[{i}] if len({l}) > {i} else -1)"))
}

pub fn can_len(g: &Gen, w: Want) -> bool {
    w == Want::Int && g.can_nest_expr()
}

pub fn len(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    Ok(format!("len({})", list(g, u)?))
}

pub fn can_comprehension(g: &Gen, w: Want) -> bool {
    matches!(w, Want::Int | Want::List) && g.can_nest_expr()
}

/// An iterable for a comprehension or a `for`: a short range, a list literal
/// or a slice of a list (never a list the loop could grow).
pub fn iterable(g: &mut Gen, u: &mut Unstructured) -> Result<String> {
    Ok(match u.int_in_range(0..=3)? {
        0 => format!("range({})", u.int_in_range(0..=4)?),
        1 => format!("range({}, {})", u.int_in_range(-2..=1)?, u.int_in_range(1..=4)?),
        2 => {
            let mut items = Vec::new();
            for _ in 0..u.int_in_range(0..=3)? {
                items.push(g.small_int(u)?.to_string());
            }
            format!("[{}]", items.join(", "))
        }
        _ => format!("{}[:4]", list(g, u)?),
    })
}

pub fn comprehension(g: &mut Gen, u: &mut Unstructured, w: Want) -> Result<String> {
    let it = iterable(g, u)?;
    let var = g.fresh("c");
    let mark = g.scope.mark();
    g.scope.bind(&var, Ty::Int, true);
    let mut clauses = format!("for {var} in {it}");
    if g.chance(u, 1, 4)? {
        let it2 = iterable(g, u)?;
        let var2 = g.fresh("c");
        g.scope.bind(&var2, Ty::Int, true);
        clauses = format!("{clauses} for {var2} in {it2}");
    }
    if g.chance(u, 1, 3)? {
        clauses = format!("{clauses} if {}", cond(g, u)?);
    }
    let e = int(g, u)?;
    g.scope.restore(mark);
    Ok(match (w, u.int_in_range(0..=2)?) {
        (Want::List, 0) => format!("[{e} {clauses}]"),
        (Want::List, 1) => format!("sorted({{{e} {clauses}}})"),
        (Want::List, _) => format!("list({{{var}: {e} {clauses}}}.values())"),
        (_, 0) => format!("(sum({e} {clauses}) % 1000)"),
        (_, 1) => format!("len([{e} {clauses}])"),
        _ => format!("max([{e} {clauses}], default=-1)"),
    })
}
