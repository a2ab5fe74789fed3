//! Tensor family: Python values that staged functions read and the top
//! level changes between calls (trace guards).
//!
//! A trace specialises on every Python value it reads: a staged run that
//! reuses a trace after the value changed computes with the old one. So the
//! program declares a few module-level *knobs*, staged functions read them
//! (as operands of tensor ops, and as Python loop bounds, which unroll), and
//! the top level changes them between calls of the entry points. A stale
//! trace then prints a different value from the original.
//!
//! The knobs, each gated by a `Config` switch (swarm testing):
//! - a global int `s` (`allow_hyperparams`), read directly and through a plain
//!   helper `def h(): return s` (`allow_guard_helpers`); the top level
//!   rebinds `s`;
//! - a class `Cfg` with a class attribute `scale` and an instance `opts` with
//!   an attribute `k` (`allow_guard_attrs`); read as `Cfg.scale`,
//!   `opts.scale` (the class's, through the instance) and `opts.k`; the top
//!   level sets `Cfg.scale`, `opts.k`, or `opts.scale` (which then shadows
//!   the class's on the instance only);
//! - a dict `cfg` with keys `"k"` and `"n"` and a list `w`
//!   (`allow_guard_containers`); read as `cfg["k"]`, `w[0]`, `w[-1]`,
//!   `len(w)`; the top level sets items and appends to or pops from `w`.
//!
//! The top level is straight-line code, so the generator knows every knob's
//! value at every call: a change always writes a *different* value, to a
//! knob the entry point called next reads (`read_by`, through the staged
//! functions it calls too), so that a stale trace shows.
//! Values stay in `0..=4` and `w` holds 1 to 5 items, so a Python loop over
//! `range(knob)`, `range(len(w))` or `w` itself runs at most 5 times per
//! trace. Such loops are not nested in one
//! another (`py_loops`) and never go inside staged control flow (binding a
//! Python loop target there would be a Python value a staged branch changes).
//! Knobs are never written inside a staged function.

use crate::gen::Gen;
use crate::table::Want;
use crate::tensor_expr::{can_num, tensor};
use crate::types::Ty;
use arbitrary::{Result, Unstructured};
use std::collections::{BTreeMap, BTreeSet};

/// A Python value a trace may read, as the top level can change it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// `s` (also through `h()`).
    Global,
    /// `Cfg.scale`.
    ClassScale,
    /// `opts.scale`: the class's until the instance gets its own.
    InstanceScale,
    /// `opts.k`.
    InstanceK,
    /// `cfg['k']`, `cfg['n']`.
    DictK,
    DictN,
    /// `w[0]`, `w[-1]`, `len(w)` (and `for j in w`).
    ListFirst,
    ListLast,
    ListLen,
}

/// The knobs of one program (names; `None` where the program has none) and
/// their values now.
#[derive(Clone, Debug, Default)]
pub struct Knobs {
    /// A global int and its value.
    pub global: Option<(String, i32)>,
    /// A plain function returning the global.
    pub helper: Option<String>,
    /// A class with attribute `scale`, and an instance of it with `k`.
    pub class: Option<(String, String)>,
    /// `Cfg.scale`, the instance's own `scale` if set, `opts.k`.
    scale: i32,
    shadow: Option<i32>,
    k: i32,
    /// A dict with keys `"k"` and `"n"`, and their values.
    pub dict: Option<String>,
    items: [i32; 2],
    /// A list of ints (1..=5 of them).
    pub list: Option<String>,
    list_values: Vec<i32>,
    /// The kinds the staged function being written reads (also through the
    /// staged functions it calls), and each finished one's.
    reading: BTreeSet<Kind>,
    read_by: BTreeMap<String, BTreeSet<Kind>>,
    /// Python loops over knobs around the point being written.
    pub py_loops: u32,
}

impl Knobs {
    /// Whether the program has a knob.
    pub fn any(&self) -> bool {
        self.global.is_some() || self.class.is_some() || self.dict.is_some()
    }

    fn kinds(&self) -> Vec<Kind> {
        let mut v = Vec::new();
        if self.global.is_some() {
            v.push(Kind::Global);
        }
        if self.class.is_some() {
            v.extend([Kind::ClassScale, Kind::InstanceScale, Kind::InstanceK]);
        }
        if self.dict.is_some() {
            v.extend([Kind::DictK, Kind::DictN]);
        }
        if self.list.is_some() {
            v.extend([Kind::ListFirst, Kind::ListLast, Kind::ListLen]);
        }
        v
    }

    /// The text of a read of `kind` (`None`: the program has no such knob).
    fn text(&self, kind: Kind, through_helper: bool) -> Option<String> {
        let class = self.class.as_ref();
        Some(match kind {
            Kind::Global if through_helper => format!("{}()", self.helper.as_ref()?),
            Kind::Global => self.global.as_ref()?.0.clone(),
            Kind::ClassScale => format!("{}.scale", class?.0),
            Kind::InstanceScale => format!("{}.scale", class?.1),
            Kind::InstanceK => format!("{}.k", class?.1),
            Kind::DictK => format!("{}['k']", self.dict.as_ref()?),
            Kind::DictN => format!("{}['n']", self.dict.as_ref()?),
            Kind::ListFirst => format!("{}[0]", self.list.as_ref()?),
            Kind::ListLast => format!("{}[-1]", self.list.as_ref()?),
            Kind::ListLen => format!("len({})", self.list.as_ref()?),
        })
    }

    /// The row a read of `kind` counts for.
    fn row(kind: Kind, through_helper: bool) -> &'static str {
        match kind {
            Kind::Global if through_helper => "python_helper_read",
            Kind::Global => "python_global_read",
            Kind::ClassScale | Kind::InstanceScale => "python_class_attr_read",
            Kind::InstanceK => "python_instance_attr_read",
            Kind::DictK | Kind::DictN => "python_dict_item_read",
            Kind::ListFirst | Kind::ListLast => "python_list_item_read",
            Kind::ListLen => "python_len_read",
        }
    }
}

/// The longest `w` may grow.
const MAX_LEN: usize = 5;

fn value(u: &mut Unstructured) -> Result<i32> {
    u.int_in_range(0..=4)
}

/// A value in `0..=4` other than `old`.
fn other(u: &mut Unstructured, old: i32) -> Result<i32> {
    Ok((old + u.int_in_range(1..=4)?).rem_euclid(5))
}

/// Declares the program's knobs at module level, as its config allows.
pub fn declare(g: &mut Gen, u: &mut Unstructured) -> Result<()> {
    let mut lines = Vec::new();
    if g.cfg.allow_hyperparams && g.chance(u, 1, 2)? {
        let s = g.fresh("s");
        let v = u.int_in_range(1..=3)?;
        lines.push(format!("{s} = {v}"));
        if g.cfg.allow_guard_helpers && g.chance(u, 2, 3)? {
            let h = g.fresh("h");
            lines.extend(["".into(), "".into(), format!("def {h}():"), format!("    return {s}"), "".into(), "".into()]);
            g.tensor.knobs.helper = Some(h);
        }
        g.tensor.knobs.global = Some((s, v));
    }
    if g.cfg.allow_guard_attrs && g.chance(u, 1, 2)? {
        let (c, o) = (g.fresh("Cfg"), g.fresh("opts"));
        let (scale, k) = (value(u)?, value(u)?);
        lines.extend([
            "".into(),
            "".into(),
            format!("class {c}:"),
            format!("    scale = {scale}"),
            "".into(),
            "    def __init__(self, k):".into(),
            "        self.k = k".into(),
            "".into(),
            "".into(),
            format!("{o} = {c}({k})"),
        ]);
        let knobs = &mut g.tensor.knobs;
        (knobs.class, knobs.scale, knobs.k) = (Some((c, o)), scale, k);
    }
    if g.cfg.allow_guard_containers && g.chance(u, 1, 2)? {
        let d = g.fresh("cfg");
        let items = [value(u)?, value(u)?];
        lines.push(format!("{d} = {{'k': {}, 'n': {}}}", items[0], items[1]));
        let w = g.fresh("w");
        let mut list = Vec::new();
        for _ in 0..u.int_in_range(1..=3)? {
            list.push(value(u)?);
        }
        let shown: Vec<String> = list.iter().map(|v| v.to_string()).collect();
        lines.push(format!("{w} = [{}]", shown.join(", ")));
        let knobs = &mut g.tensor.knobs;
        (knobs.dict, knobs.items, knobs.list, knobs.list_values) = (Some(d), items, Some(w), list);
    }
    if !lines.is_empty() {
        g.w.line("");
    }
    for l in lines {
        g.w.line(l);
    }
    Ok(())
}

/// A staged function begins: nothing read yet.
pub fn begin_fn(g: &mut Gen) {
    g.tensor.knobs.reading.clear();
}

/// The staged function `name` is written: what it reads is known.
pub fn end_fn(g: &mut Gen, name: &str) {
    let read = std::mem::take(&mut g.tensor.knobs.reading);
    g.tensor.knobs.read_by.insert(name.to_string(), read);
}

/// A call of the staged function `callee` in the one being written: the
/// caller's trace reads what the callee's does.
pub fn calls(g: &mut Gen, callee: &str) {
    let read = g.tensor.knobs.read_by.get(callee).cloned().unwrap_or_default();
    g.tensor.knobs.reading.extend(read);
}

/// One top-level statement, before a call of `entry`, changing what a read of
/// a knob gives: of a kind `entry` reads if it reads any (else of any kind).
pub fn mutate(g: &mut Gen, u: &mut Unstructured, entry: &str) -> Result<()> {
    let all = g.tensor.knobs.kinds();
    let mine = g.tensor.knobs.read_by.get(entry).cloned().unwrap_or_default();
    let read: Vec<Kind> = all.iter().copied().filter(|k| mine.contains(k)).collect();
    let kinds = if read.is_empty() { all } else { read };
    if kinds.is_empty() {
        return Ok(());
    }
    let kind = *g.pick(u, &kinds)?;
    let k = &g.tensor.knobs;
    let (c, o) = k.class.clone().unwrap_or_default();
    let d = k.dict.clone().unwrap_or_default();
    let w = k.list.clone().unwrap_or_default();
    let line = match kind {
        Kind::Global => {
            let (s, old) = k.global.clone().expect("a global");
            let v = other(u, old)?;
            g.tensor.knobs.global = Some((s.clone(), v));
            format!("{s} = {v}")
        }
        Kind::ClassScale | Kind::InstanceScale => {
            // The class's (seen through the instance until it has its own),
            // or sometimes the instance's own over it.
            let own = kind == Kind::InstanceScale && (k.shadow.is_some() || g.chance(u, 1, 3)?);
            if own {
                let v = other(u, k.shadow.unwrap_or(k.scale))?;
                g.tensor.knobs.shadow = Some(v);
                format!("{o}.scale = {v}")
            } else {
                let v = other(u, k.scale)?;
                g.tensor.knobs.scale = v;
                format!("{c}.scale = {v}")
            }
        }
        Kind::InstanceK => {
            let v = other(u, k.k)?;
            g.tensor.knobs.k = v;
            format!("{o}.k = {v}")
        }
        Kind::DictK | Kind::DictN => {
            let i = (kind == Kind::DictN) as usize;
            let v = other(u, k.items[i])?;
            g.tensor.knobs.items[i] = v;
            format!("{d}[{}] = {v}", ["'k'", "'n'"][i])
        }
        Kind::ListFirst => {
            let v = other(u, k.list_values[0])?;
            g.tensor.knobs.list_values[0] = v;
            format!("{w}[0] = {v}")
        }
        Kind::ListLast | Kind::ListLen => {
            let list = &k.list_values;
            let last = *list.last().expect("never empty");
            let n = list.len();
            // Grow or shrink (the length changes, and maybe the last item),
            // or for the last item sometimes set it.
            let pop = n > 1 && (n == MAX_LEN || g.chance(u, 1, 3)?) && (kind == Kind::ListLen || list[n - 2] != last);
            if pop {
                g.tensor.knobs.list_values.pop();
                format!("{w}.pop()")
            } else if n < MAX_LEN && (kind == Kind::ListLen || g.chance(u, 1, 2)?) {
                let v = other(u, last)?;
                g.tensor.knobs.list_values.push(v);
                format!("{w}.append({v})")
            } else {
                let v = other(u, last)?;
                *g.tensor.knobs.list_values.last_mut().expect("never empty") = v;
                format!("{w}[-1] = {v}")
            }
        }
    };
    g.w.line(line);
    Ok(())
}

/// The text of a read of `kind`, recorded as read (and its row as used).
fn read(g: &mut Gen, kind: Kind, through_helper: bool) -> String {
    g.tensor.knobs.reading.insert(kind);
    g.used.insert(Knobs::row(kind, through_helper));
    g.tensor.knobs.text(kind, through_helper).expect("a knob the program has")
}

/// `(a op read)`: a tensor of the wanted type combined with a Python int,
/// a read of one of `kinds` (the first the program has some of).
fn operand(g: &mut Gen, u: &mut Unstructured, w: Want, kinds: &[Kind], through_helper: bool) -> Result<String> {
    let Want::Tensor(t) = w else { unreachable!("a tensor row") };
    let a = tensor(g, u, t)?;
    let kind = *g.pick(u, kinds)?;
    let r = read(g, kind, through_helper);
    let op = g.pick(u, &["+", "*", "-"])?;
    Ok(format!("({a} {op} {r})"))
}

fn in_fn(g: &Gen, w: Want) -> bool {
    can_num(g, w) && g.ctx.in_staged_fn
}

pub fn can_global_read(g: &Gen, w: Want) -> bool {
    in_fn(g, w) && g.tensor.knobs.global.is_some()
}

pub fn global_read(g: &mut Gen, u: &mut Unstructured, w: Want) -> Result<String> {
    operand(g, u, w, &[Kind::Global], false)
}

pub fn can_helper_read(g: &Gen, w: Want) -> bool {
    in_fn(g, w) && g.tensor.knobs.helper.is_some()
}

pub fn helper_read(g: &mut Gen, u: &mut Unstructured, w: Want) -> Result<String> {
    operand(g, u, w, &[Kind::Global], true)
}

pub fn can_attr_read(g: &Gen, w: Want) -> bool {
    in_fn(g, w) && g.tensor.knobs.class.is_some()
}

pub fn class_attr_read(g: &mut Gen, u: &mut Unstructured, w: Want) -> Result<String> {
    operand(g, u, w, &[Kind::ClassScale, Kind::ClassScale, Kind::InstanceScale], false)
}

pub fn instance_attr_read(g: &mut Gen, u: &mut Unstructured, w: Want) -> Result<String> {
    operand(g, u, w, &[Kind::InstanceK], false)
}

pub fn can_container_read(g: &Gen, w: Want) -> bool {
    in_fn(g, w) && g.tensor.knobs.dict.is_some()
}

pub fn dict_item_read(g: &mut Gen, u: &mut Unstructured, w: Want) -> Result<String> {
    operand(g, u, w, &[Kind::DictK, Kind::DictN], false)
}

pub fn list_item_read(g: &mut Gen, u: &mut Unstructured, w: Want) -> Result<String> {
    operand(g, u, w, &[Kind::ListFirst, Kind::ListLast], false)
}

pub fn len_read(g: &mut Gen, u: &mut Unstructured, w: Want) -> Result<String> {
    operand(g, u, w, &[Kind::ListLen], false)
}

/// The value a staged function returns, `r`, sometimes combined with a knob
/// (`(r + cfg['k'])`): the body's reads may not reach the result, this one
/// does, so a stale trace shows in what the top level prints.
pub fn observe(g: &mut Gen, u: &mut Unstructured, r: String, numeric: bool) -> Result<String> {
    let kinds = g.tensor.knobs.kinds();
    if kinds.is_empty() || !numeric || !g.chance(u, 2, 3)? {
        return Ok(r);
    }
    let kind = *g.pick(u, &kinds)?;
    let helper = kind == Kind::Global && g.tensor.knobs.helper.is_some() && g.chance(u, 1, 2)?;
    let read = read(g, kind, helper);
    let op = g.pick(u, &["+", "*", "-"])?;
    Ok(format!("({r} {op} {read})"))
}

pub fn can_loop_bound(g: &Gen, w: Want) -> bool {
    w == Want::Stmt
        && g.ctx.in_staged_fn
        && !g.ctx.staged
        && g.can_nest_stmt()
        && g.tensor.knobs.py_loops == 0
        && !g.tensor.knobs.kinds().is_empty()
}

/// `for j in range(knob):` (or `for j in w:`), unrolled when traced: the
/// trace's length depends on the knob. `j` is a Python int in `0..=4`, read
/// like a hyper-parameter.
pub fn loop_bound(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let kinds = g.tensor.knobs.kinds();
    let j = g.fresh("j");
    match g.tensor.knobs.list.clone() {
        Some(l) if g.chance(u, 1, 4)? => {
            g.tensor.knobs.reading.insert(Kind::ListLen);
            g.w.line(format!("for {j} in {l}:"));
        }
        _ => {
            let kind = *g.pick(u, &kinds)?;
            let helper = kind == Kind::Global && g.tensor.knobs.helper.is_some() && g.chance(u, 1, 2)?;
            let e = read(g, kind, helper);
            g.w.line(format!("for {j} in range({e}):"));
        }
    }
    let saved = g.ctx;
    // A Python loop: a break/continue here would be Python's.
    g.ctx.staged_loop = false;
    g.tensor.knobs.py_loops += 1;
    g.tensor.raises.loops += 1;
    let mark = g.scope.mark();
    g.scope.bind(&j, Ty::Hyper, true);
    g.block(u)?;
    g.scope.restore(mark);
    g.tensor.raises.loops -= 1;
    g.tensor.knobs.py_loops -= 1;
    g.ctx = saved;
    Ok(String::new())
}
