//! Plain family, objects and calls: classes (methods, inheritance and
//! `super`, properties, class-body scoping, dunder operators), `with`,
//! decorators, signatures (`*args`, `**kwargs`, keyword-only, defaults, a
//! mutable default), generators driven by `send`/`throw`/`close`, mutual
//! recursion.
//!
//! Every class whose instances enter the scope (`Ty::Obj`) has an int
//! attribute `x`, a list attribute `items` and a `__repr__` of its own, so
//! printing one never shows an address and `attribute_*` rows may use any.
//! Side effects (`note`) go where evaluation order and counts matter: default
//! values (evaluated once), `__enter__`/`__exit__`, dunders, decorators.

use crate::gen::{Gen, EXCEPTIONS};
use crate::plain::{def_with, loop_body, use_call};
use crate::plain_expr::{self as pe, bounded};
use crate::scope::{CallKind, Callable};
use crate::table::Want;
use crate::types::Ty;
use arbitrary::{Result, Unstructured};

/// Lines the program starts with when its config asks for them.
pub fn prelude(g: &mut Gen) {
    if g.cfg.allow_floats {
        g.w.line("import math");
        g.w.line("");
        g.w.line("");
    }
    if g.cfg.allow_with {
        for l in [
            "class CM:",
            "    def __init__(self, tag, swallow=(), fail=False):",
            "        self.tag = tag",
            "        self.swallow = swallow",
            "        self.fail = fail",
            "",
            "    def __enter__(self):",
            "        note(self.tag)",
            "        return self.tag",
            "",
            "    def __exit__(self, t, v, tb):",
            "        note(-self.tag if t is None else 100 + self.tag)",
            "        if self.fail:",
            "            raise Boom('exit ' + str(self.tag))",
            "        return t is not None and issubclass(t, self.swallow)",
            "",
            "",
        ] {
            g.w.line(l);
        }
    }
}

/// Statement rows that write a class or a def: room for it.
pub fn can_big(g: &Gen, w: Want) -> bool {
    w == Want::Stmt && g.can_nest_stmt() && g.budget > 6
}

/// `note(e)` when side effects are on, else `e`.
pub(crate) fn noted(g: &Gen, e: String) -> String {
    if g.cfg.allow_side_effects {
        format!("note({e})")
    } else {
        e
    }
}

fn spend(g: &mut Gen, n: u32) {
    g.budget = g.budget.saturating_sub(n);
}

/// `__init__` and `__repr__` of the Obj protocol, one level into a class body.
fn obj_protocol(g: &mut Gen, cls: &str) {
    g.w.indent();
    g.w.line("def __init__(self, x):");
    g.w.line("    self.x = x");
    g.w.line("    self.items = [x]");
    g.w.line("");
    g.w.line("def __repr__(self):");
    g.w.line(format!("    return '{cls}(' + str(self.x) + ', ' + str(self.items) + ')'"));
    g.w.dedent();
}

/// A method `def name(self, p):` with a generated body (self is an Obj) that
/// ends with `tail` lines (the last a `return`), one level into a class body.
fn method(
    g: &mut Gen,
    u: &mut Unstructured,
    name: &str,
    tail: impl FnOnce(&mut Gen, &mut Unstructured, &str) -> Result<Vec<String>>,
) -> Result<()> {
    let p = g.fresh("p");
    g.w.indent();
    let header = format!("def {name}(self, {p}):");
    let bound = [("self".to_string(), Ty::Obj, true), (p.clone(), Ty::Int, false)];
    def_with(g, u, &header, &bound, false, |g, u| {
        for _ in 0..u.int_in_range(0..=g.cfg.max_stmts.min(3))? {
            if g.budget == 0 {
                break;
            }
            g.stmt(u)?;
        }
        for l in tail(g, u, &p)? {
            g.w.line(l);
        }
        Ok(())
    })?;
    g.w.dedent();
    Ok(())
}

/// `o = cls(args)` with `o` an Obj from here on.
fn instance(g: &mut Gen, cls: &str, args: &str) -> String {
    let o = g.fresh("o");
    g.w.line(format!("{o} = {cls}({args})"));
    g.scope.bind(&o, Ty::Obj, true);
    o
}

// ---- classes ------------------------------------------------------------------

/// A class with a class attribute and a generated method, an instance, a call.
pub fn class(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    spend(g, 4);
    let cls = g.fresh("C");
    let m = g.fresh("m");
    let k = g.small_int(u)?;
    g.w.line(format!("class {cls}:"));
    g.w.line(format!("    k = {k}"));
    obj_protocol(g, &cls);
    g.w.line("");
    method(g, u, &m, |g, u, p| {
        let e = bounded(pe::int(g, u)?);
        Ok(vec![format!("self.x = (self.x + {p} + {cls}.k) % 1000"), format!("return {e}")])
    })?;
    let a = bounded(pe::int(g, u)?);
    let o = instance(g, &cls, &a);
    let b = bounded(pe::int(g, u)?);
    use_call(g, u, &format!("{o}.{m}({b}) + {o}.k + {o}.x"), Ty::Int)
}

/// A base and a derived class: `super().__init__`, an override calling
/// `super().m` (in a ternary too), `isinstance`, the MRO.
pub fn inheritance(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    spend(g, 6);
    let (base, derived, m) = (g.fresh("B"), g.fresh("D"), g.fresh("m"));
    let k = g.small_int(u)?;
    g.w.line(format!("class {base}:"));
    obj_protocol(g, &base);
    g.w.line("");
    g.w.line(format!("    def {m}(self, p):"));
    g.w.line(format!("        return (self.x + p * {k}) % 1000"));
    g.w.line("");
    g.w.line("    def tag(self):");
    g.w.line("        return 1");
    g.w.line("");
    g.w.line("");
    g.w.line(format!("class {derived}({base}):"));
    g.w.line("    def __init__(self, x, y):");
    g.w.line("        super().__init__(x)");
    g.w.line("        self.items.append(y)");
    g.w.line("");
    let variant = u.int_in_range(0..=2)?;
    method(g, u, &m, |g, u, p| {
        let c = pe::cond(g, u)?;
        Ok(vec![match variant {
            0 => format!("return (super().{m}({p}) + self.tag()) % 1000"),
            1 => format!("return (super().{m}({p}) if {c} else -super().{m}(-{p})) % 1000"),
            _ => format!("return ({base}.{m}(self, {p}) + super().tag() * 10) % 1000"),
        }])
    })?;
    g.w.line("");
    g.w.line("    def tag(self):");
    g.w.line("        return 2");
    let (a, b) = (bounded(pe::int(g, u)?), bounded(pe::int(g, u)?));
    let o = instance(g, &derived, &format!("{a}, {b}"));
    let e = bounded(pe::int(g, u)?);
    g.w.line(format!("print({o}, isinstance({o}, {base}), [c.__name__ for c in type({o}).__mro__])"));
    use_call(g, u, &format!("{o}.{m}({e})"), Ty::Int)
}

/// A property with a setter: plain and augmented assignment through it.
pub fn property(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    spend(g, 4);
    let cls = g.fresh("P");
    g.w.line(format!("class {cls}:"));
    obj_protocol(g, &cls);
    g.w.line("");
    g.w.line("    @property");
    g.w.line("    def v(self):");
    g.w.line(format!("        return {}", noted(g, "self.x * 2".into())));
    g.w.line("");
    g.w.line("    @v.setter");
    g.w.line("    def v(self, val):");
    g.w.line("        self.x = val % 1000");
    let a = bounded(pe::int(g, u)?);
    let o = instance(g, &cls, &a);
    let e = bounded(pe::int(g, u)?);
    g.w.line(format!("{o}.v = {e}"));
    let e = pe::int(g, u)?;
    g.w.line(format!("{o}.v += {e}"));
    use_call(g, u, &format!("{o}.v"), Ty::Int)
}

/// A class body binding names, with comprehensions reading them in their
/// first iterable (legal) and enclosing names in their element (the class
/// scope is skipped there), read back through the class and an instance.
pub fn class_body_scoping(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    spend(g, 4);
    let cls = g.fresh("S");
    let (a, b, d, c) = (g.fresh("a"), g.fresh("b"), g.fresh("d"), g.fresh("c"));
    let e = bounded(pe::int(g, u)?);
    let outer: Vec<String> = g.scope.readable(Ty::Int).iter().map(|v| v.name.clone()).collect();
    let elem = if outer.is_empty() { format!("{c} * 2") } else { format!("{c} + {}", g.pick(u, &outer)?) };
    g.w.line(format!("class {cls}:"));
    g.w.line(format!("    {a} = {e}"));
    g.w.line(format!("    {b} = [{c} * 2 for {c} in range({a} % 4)]"));
    g.w.line(format!("    {d} = [{elem} for {c} in {b}]"));
    g.w.line(format!("    {a} += len({d})"));
    g.w.line("");
    g.w.line("    def get(self):");
    g.w.line(format!("        return {cls}.{a} + len(self.{b})"));
    g.w.line(format!("print({cls}.{a}, {cls}.{b}, {cls}.{d}, {cls}().get())"));
    use_call(g, u, &format!("{cls}.{a} % 1000"), Ty::Int)
}

/// `__add__`/`__radd__`, maybe `__iadd__` (mutating, returning self: `+=` keeps
/// the identity, else it rebinds), `__eq__`, `__lt__` (sorting), `__neg__`, `__int__`.
pub fn dunder_arith(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    spend(g, 6);
    let cls = g.fresh("A");
    g.w.line(format!("class {cls}:"));
    obj_protocol(g, &cls);
    let iadd = g.chance(u, 2, 3)?;
    for l in [
        "".to_string(),
        "def __add__(self, other):".into(),
        format!("    return {cls}((self.x + int(other)) % 1000)"),
        "".into(),
        "__radd__ = __add__".into(),
        "".into(),
        "def __int__(self):".into(),
        "    return self.x".into(),
        "".into(),
        "def __eq__(self, other):".into(),
        format!("    return isinstance(other, {cls}) and self.x == other.x"),
        "".into(),
        "def __lt__(self, other):".into(),
        "    return self.x < int(other)".into(),
        "".into(),
        "def __neg__(self):".into(),
        format!("    return {cls}(-self.x)"),
    ] {
        g.w.line(if l.is_empty() { l } else { format!("    {l}") });
    }
    if iadd {
        g.w.line("");
        g.w.line("    def __iadd__(self, other):");
        g.w.line(format!("        self.x = (self.x + {}) % 1000", noted(g, "int(other)".into())));
        g.w.line("        return self");
    }
    let a = bounded(pe::int(g, u)?);
    let o = g.fresh("o");
    g.w.line(format!("{o} = {cls}({a})"));
    let o2 = g.fresh("o");
    g.w.line(format!("{o2} = {o}"));
    let e = bounded(pe::int(g, u)?);
    g.w.line(format!("{o} += {e}"));
    let e = pe::int(g, u)?;
    let o3 = g.fresh("o");
    g.w.line(format!("{o3} = {e} + {o}"));
    g.w.line(format!(
        "print({o}, {o2} is {o}, {o} == {o2}, {o3} != {o}, {o} < {o3}, -{o}, sorted([{o3}, {o}, {cls}(5)]), int({o} + {o3}))"
    ));
    for v in [&o, &o2, &o3] {
        g.scope.bind(v, Ty::Obj, true);
    }
    Ok(String::new())
}

/// `__len__`, maybe `__bool__` (noted), `__getitem__`/`__setitem__` (plain
/// and augmented, the index evaluated once), maybe `__iter__` and
/// `__contains__`; the instance as an `and`/`or` operand in an `if` test
/// and a ternary's (its truth tested once: `__bool__` notes each test); a
/// `for` over the instance with a generated body.
pub fn dunder_container(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    spend(g, 6);
    let cls = g.fresh("Q");
    g.w.line(format!("class {cls}:"));
    obj_protocol(g, &cls);
    let (has_bool, has_iter, has_contains) = (g.chance(u, 1, 2)?, g.chance(u, 2, 3)?, g.chance(u, 1, 2)?);
    let mut lines = vec![
        "def __len__(self):".to_string(),
        "    return len(self.items)".into(),
        "def __getitem__(self, i):".into(),
        "    return self.items[i]".into(),
        "def __setitem__(self, i, v):".into(),
        format!("    self.items[i] = {} % 1000", noted(g, "v".into())),
    ];
    if has_bool {
        // Noted: a truth test evaluated twice shows in the log.
        lines.extend(["def __bool__(self):".to_string(), format!("    return {}", noted(g, "self.x % 2 == 0".into()))]);
    }
    if has_iter {
        lines.extend(["def __iter__(self):".to_string(), "    return iter(self.items[:4])".into()]);
    }
    if has_contains {
        lines.extend(["def __contains__(self, v):".to_string(), "    return v in self.items".into()]);
    }
    for l in lines {
        if l.starts_with("def ") {
            g.w.line("");
        }
        g.w.line(format!("    {l}"));
    }
    let a = bounded(pe::int(g, u)?);
    let q = instance(g, &cls, &a);
    let e = bounded(pe::int(g, u)?);
    g.w.line(format!("{q}[0] = {e}"));
    let e = pe::int(g, u)?;
    let i = noted(g, "0".into());
    g.w.line(format!("{q}[{i}] += {e}"));
    let e = pe::int(g, u)?;
    g.w.line(format!("print(len({q}), bool({q}), {e} in {q}, {q}[-1], list({q}))"));
    let c = pe::cond(g, u)?;
    g.w.line(format!("if {q} and {c}:"));
    g.w.line(format!("    {q}[-1] -= 1"));
    // The instance as an and/or operand of a ternary's test: its truth tested once.
    let (c, k) = (pe::cond(g, u)?, g.small_int(u)?);
    g.w.line(format!("print({k} if ({c} or {q}) else -{k}, {k} if ({q} and {c}) else -{k})"));
    let it = if has_iter { q.clone() } else { format!("list({q})[:4]") };
    let t = g.fresh("i");
    let mark = g.scope.mark();
    g.w.line(format!("for {t} in {it}:"));
    g.scope.bind(&t, Ty::Int, false);
    loop_body(g, u, &[], mark)?;
    Ok(String::new())
}

/// `o.x = e`, `o.x op= e`, `o.items[i] = e`, `o.items.append(e)` on an Obj.
pub fn can_obj(g: &Gen, w: Want) -> bool {
    w == Want::Stmt && !g.scope.readable(Ty::Obj).is_empty()
}

pub fn attribute_assign(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let objs: Vec<String> = g.scope.readable(Ty::Obj).iter().map(|v| v.name.clone()).collect();
    let o = g.pick(u, &objs)?.clone();
    let e = bounded(pe::int(g, u)?);
    match u.int_in_range(0..=4)? {
        0 => g.w.line(format!("{o}.x = {e}")),
        1 => g.w.line(format!("{o}.x += {e}")),
        2 => g.w.line(format!("{o}.x -= {e}")),
        3 => {
            g.w.line(format!("if len({o}.items) < 8:"));
            g.w.line(format!("    {o}.items.append({e})"));
        }
        _ => {
            g.w.line(format!("if {o}.items:"));
            g.w.line(format!("    {o}.items[{}] = {e}", noted(g, "-1".into())));
        }
    }
    Ok(String::new())
}

/// `o.x` or `len(o.items)`: an int read from an Obj.
pub fn can_attribute_read(g: &Gen, w: Want) -> bool {
    matches!(w, Want::Int | Want::List) && !g.scope.readable(Ty::Obj).is_empty()
}

pub fn attribute_read(g: &mut Gen, u: &mut Unstructured, w: Want) -> Result<String> {
    let objs: Vec<String> = g.scope.readable(Ty::Obj).iter().map(|v| v.name.clone()).collect();
    let o = g.pick(u, &objs)?.clone();
    Ok(match w {
        Want::List => format!("{o}.items[:4]"),
        _ if g.chance(u, 1, 3)? => format!("len({o}.items)"),
        _ => format!("{o}.x"),
    })
}

/// A class decorator adding attributes; an Obj of the decorated class.
pub fn class_decorator(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    spend(g, 4);
    let (d, cls) = (g.fresh("cd"), g.fresh("K"));
    let k = g.small_int(u)?;
    g.w.line(format!("def {d}(cls):"));
    g.w.line(format!("    cls.tag = {}", noted(g, k.to_string())));
    g.w.line("    cls.made = cls.__name__");
    g.w.line("    return cls");
    g.w.line("");
    g.w.line("");
    g.w.line(format!("@{d}"));
    g.w.line(format!("class {cls}:"));
    obj_protocol(g, &cls);
    let a = bounded(pe::int(g, u)?);
    let o = instance(g, &cls, &a);
    g.w.line(format!("print({cls}.tag, {o}.tag, {o}.made)"));
    Ok(String::new())
}

// ---- with ---------------------------------------------------------------------

/// `with CM(...) as v[, CM(...) as w]:` and a generated block: the manager may
/// swallow some exceptions (which the block may then raise) or raise `Boom`
/// in `__exit__`; exits (break/continue/return) leave through `__exit__`.
pub fn with_stmt(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let mut items = Vec::new();
    let mut caught = 0u8;
    let mut bound = Vec::new();
    for _ in 0..u.int_in_range(1..=2)? {
        let tag = u.int_in_range(1..=9)?;
        let mut swallow = Vec::new();
        for (i, e) in EXCEPTIONS.iter().enumerate() {
            if g.chance(u, 1, 4)? {
                swallow.push(*e);
                caught |= 1 << i;
            }
        }
        let fail = g.chance(u, 1, 6)?;
        let sw = if swallow.is_empty() { String::new() } else { format!(", ({},)", swallow.join(", ")) };
        let fail = if fail {
            if sw.is_empty() {
                ", fail=True"
            } else {
                ", True"
            }
        } else {
            ""
        };
        let cm = format!("CM({tag}{sw}{fail})");
        if g.chance(u, 2, 3)? {
            let v = g.fresh("v");
            items.push(format!("{cm} as {v}"));
            bound.push(v);
        } else {
            items.push(cm);
        }
    }
    g.w.line(format!("with {}:", items.join(", ")));
    let mark = g.scope.mark();
    for v in &bound {
        g.scope.bind(v, Ty::Int, false);
    }
    let saved = g.ctx;
    g.ctx.catching |= caught;
    g.block(u)?;
    g.ctx = saved;
    g.scope.restore(mark);
    // Bound by `__enter__` before the block ran, whatever it did.
    for v in &bound {
        g.scope.bind(v, Ty::Int, false);
    }
    Ok(String::new())
}

// ---- functions ----------------------------------------------------------------

/// A decorated function (a wrapper with `*a, **k`, maybe a decorator factory,
/// maybe stacked), callable from here on.
pub fn decorator(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    spend(g, 4);
    let (d, w) = (g.fresh("dec"), g.fresh("w"));
    let k = u.int_in_range(1..=5)?;
    let factory = g.chance(u, 1, 2)?;
    let count = noted(g, "len(a)".into());
    let mut lines = vec![
        format!("def {w}(*a, **kw):"),
        format!("    {count}"),
        format!("    return (fn(*a, **kw) * {k} + {k}) % 1000"),
        format!("return {w}"),
    ];
    if factory {
        g.w.line(format!("def {d}(k):"));
        g.w.line("    def deco(fn):");
        lines = lines.into_iter().map(|l| format!("        {}", l.replace(&format!("* {k}"), "* k"))).collect();
        for l in lines {
            g.w.line(l);
        }
        g.w.line("    return deco");
    } else {
        g.w.line(format!("def {d}(fn):"));
        for l in lines {
            g.w.line(format!("    {l}"));
        }
    }
    g.w.line("");
    g.w.line("");
    let stacked = g.chance(u, 1, 3)?;
    let at = if factory { format!("@{d}({k})") } else { format!("@{d}") };
    g.w.line(&at);
    if stacked {
        g.w.line(&at);
    }
    let name = g.fresh("f");
    let arity = u.int_in_range(0..=2)?;
    let params: Vec<String> = (0..arity).map(|_| g.fresh("p")).collect();
    let bound: Vec<(String, Ty, bool)> = params.iter().map(|p| (p.clone(), Ty::Int, false)).collect();
    def_with(g, u, &format!("def {name}({}):", params.join(", ")), &bound, false, |g, u| {
        for _ in 0..u.int_in_range(0..=2)? {
            if g.budget > 0 {
                g.stmt(u)?;
            }
        }
        let e = bounded(pe::int(g, u)?);
        g.w.line(format!("return {e}"));
        Ok(())
    })?;
    let c = Callable { name: name.clone(), arity: arity as usize, kind: CallKind::Func };
    let a = pe::args(g, u, &c.kind, c.arity)?;
    g.scope.add_callable(c);
    use_call(g, u, &format!("{name}({a})"), Ty::Int)
}

/// `def k(a, b=<default>, *args, c, d=<default>, **kw)` called in several shapes.
pub fn signature(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    spend(g, 4);
    let name = g.fresh("k");
    let [a, b, c, d] = [g.fresh("p"), g.fresh("p"), g.fresh("p"), g.fresh("p")];
    let db = g.small_int(u)?.to_string();
    let db = noted(g, db);
    let dd = g.small_int(u)?;
    let header = format!("def {name}({a}, {b}={db}, *args, {c}, {d}={dd}, **kw):");
    let bound: Vec<(String, Ty, bool)> = [&a, &b, &c, &d].iter().map(|p| (p.to_string(), Ty::Int, false)).collect();
    def_with(g, u, &header, &bound, false, |g, u| {
        for _ in 0..u.int_in_range(0..=2)? {
            if g.budget > 0 {
                g.stmt(u)?;
            }
        }
        g.w.line(format!("return ({a} + {b} * 2 + {c} * 3 + {d} + sum(args) + sum(kw.values()) + len(kw)) % 1000"));
        Ok(())
    })?;
    let mut calls = Vec::new();
    for _ in 0..u.int_in_range(1..=3)? {
        let (x, y, z) = (bounded(pe::int(g, u)?), bounded(pe::int(g, u)?), bounded(pe::int(g, u)?));
        calls.push(match u.int_in_range(0..=5)? {
            0 => format!("{name}({x}, {c}={y})"),
            1 => format!("{name}({x}, {y}, {z}, 4, {c}={y}, zz={z})"),
            2 => format!("{name}(*[{x}, {y}], {c}={z})"),
            3 => format!("{name}({x}, **{{'{c}': {y}, '{d}': {z}}})"),
            4 => format!("{name}({c}={x}, {a}={y})"),
            _ => format!("{name}(*{}[:2], *[{x}], {c}={y}, **{{'q': {z}}})", pe::list(g, u)?),
        });
    }
    // The list in shape 5 may be empty: `a` still comes from the second starred list.
    use_call(g, u, &format!("[{}]", calls.join(", ")), Ty::List)
}

/// A function appending to its mutable default (capped), callable from here on.
pub fn mutable_default(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    spend(g, 3);
    let name = g.fresh("f");
    let (p, acc) = (g.fresh("p"), g.fresh("acc"));
    g.w.line(format!("def {name}({p}, {acc}=[]):"));
    g.w.line("    _tick()");
    g.w.line(format!("    if len({acc}) < 8:"));
    g.w.line(format!("        {acc}.append({p} % 1000)"));
    g.w.line(format!("    return (len({acc}) + sum({acc})) % 1000"));
    let c = Callable { name: name.clone(), arity: 1, kind: CallKind::Func };
    let a = pe::args(g, u, &c.kind, 1)?;
    let b = pe::args(g, u, &c.kind, 1)?;
    g.scope.add_callable(c);
    g.w.line(format!("print({name}({a}), {name}({b}), {name}({a}, []), {name}.__defaults__)"));
    Ok(String::new())
}

/// A generator that receives values, catches a thrown ValueError at its
/// `yield` and prints in its `finally`, driven by `next`, `send`, `throw`
/// (the first step a `next`), then closed.
pub fn gen_protocol(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    spend(g, 6);
    let name = g.fresh("gp");
    let (k, total, i, x, e) = (g.fresh("p"), g.fresh("v"), g.fresh("i"), g.fresh("v"), g.fresh("e"));
    let header = format!("def {name}({k}):");
    let bound = [(k.clone(), Ty::Int, true)];
    def_with(g, u, &header, &bound, true, |g, u| {
        g.w.line(format!("{total} = 0"));
        g.w.line("try:");
        g.w.line(format!("    for {i} in range({k}):"));
        g.w.line("        _tick()");
        g.w.line("        try:");
        g.w.line(format!("            {x} = yield {total}"));
        g.w.line(format!("        except ValueError as {e}:"));
        g.w.line(format!("            {x} = len(str({e}))"));
        g.w.line(format!("        if {x} is None:"));
        g.w.line(format!("            {x} = {i}"));
        g.w.line(format!("        {total} = ({total} + {x}) % 1000"));
        g.scope.bind(&total, Ty::Int, false);
        g.scope.bind(&i, Ty::Int, true);
        g.scope.bind(&x, Ty::Int, false);
        g.w.indent();
        g.w.indent();
        let saved = g.ctx;
        g.ctx.in_loop = true;
        g.ctx.depth += 2;
        for _ in 0..u.int_in_range(0..=2)? {
            if g.budget > 0 {
                g.stmt(u)?;
            }
        }
        g.ctx = saved;
        g.w.dedent();
        g.w.dedent();
        g.w.line("finally:");
        g.w.line(format!("    print('closing', {total})"));
        g.w.line(format!("return {total}"));
        Ok(())
    })?;
    let it = g.fresh("it");
    let r = g.fresh("v");
    g.w.line(format!("{it} = {name}({})", u.int_in_range(0..=4)?));
    g.w.line(format!("{r} = []"));
    // Closed in a `finally`: a generator left suspended would print when
    // collected, at a time that differs between interpreters.
    g.w.line("try:");
    g.w.indent();
    for step in 0..u.int_in_range(1..=5)? {
        let call = match if step == 0 { 0 } else { u.int_in_range(0..=3)? } {
            0 => format!("next({it})"),
            1 => format!("{it}.send(None)"),
            2 => format!("{it}.send({})", bounded(pe::int(g, u)?)),
            _ => format!("{it}.throw(ValueError('t' * {}))", u.int_in_range(0..=4)?),
        };
        let s = g.fresh("e");
        g.w.line("try:");
        g.w.line(format!("    {r}.append({call})"));
        g.w.line(format!("except StopIteration as {s}:"));
        g.w.line(format!("    {r}.append(-1 if {s}.value is None else {s}.value)"));
        // A thrown ValueError the generator let out, or a value sent into a
        // `yield from` over an iterator without `send` (AttributeError).
        g.w.line("except (ValueError, AttributeError):");
        g.w.line(format!("    {r}.append(-2)"));
    }
    g.w.dedent();
    let s = g.fresh("e");
    g.w.line("finally:");
    g.w.line("    try:");
    g.w.line(format!("        {it}.close()"));
    g.w.line(format!("    except RuntimeError as {s}:"));
    g.w.line(format!("        print('close', {s})"));
    g.w.line(format!("print({r})"));
    g.w.line(format!("del {it}"));
    g.scope.bind(&r, Ty::List, false);
    Ok(String::new())
}

/// Two functions calling each other down a literal depth, the second defined
/// after the first refers to it; the first callable from here on.
pub fn mutual_recursion(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    spend(g, 4);
    let (ra, rb) = (g.fresh("r"), g.fresh("r"));
    for (me, other, base) in [(&ra, &rb, "acc % 1000"), (&rb, &ra, "-acc % 1000")] {
        let (d, acc) = (g.fresh("p"), g.fresh("p"));
        let header = format!("def {me}({d}, {acc}):");
        let bound = [(d.clone(), Ty::Int, true), (acc.clone(), Ty::Int, false)];
        let base = base.replace("acc", &acc);
        def_with(g, u, &header, &bound, false, |g, u| {
            g.w.line(format!("if {d} <= 0:"));
            g.w.line(format!("    return {base}"));
            if g.budget > 0 && g.chance(u, 1, 2)? {
                g.stmt(u)?;
            }
            let e = bounded(pe::int(g, u)?);
            if g.chance(u, 1, 3)? {
                g.w.line(format!("return ({other}({d} - 1, {e}) + {other}({d} - 2, {acc})) % 1000"));
            } else {
                g.w.line(format!("return ({other}({d} - 1, {e}) + {acc}) % 1000"));
            }
            Ok(())
        })?;
    }
    let c = Callable { name: ra.clone(), arity: 2, kind: CallKind::Recursive };
    let a = pe::args(g, u, &c.kind, 2)?;
    g.scope.add_callable(c);
    use_call(g, u, &format!("{ra}({a})"), Ty::Int)
}
