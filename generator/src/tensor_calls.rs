//! Tensor family: how staged functions are defined and called.
//!
//! - Retraces (`retrace_shape`, `retrace_dtype`): a staged function's first
//!   parameter is sometimes *polymorphic*: the top level (and staged callers)
//!   pass it tensors of 2 or 3 shapes of one dtype, or of 2 or 3 dtypes of one
//!   shape, so each signature is its own trace. The body reads it only in
//!   ways valid for every variant: a cast to a fixed dtype (same shape), or a
//!   scalar from a reduction, an element of `reshape(p, [-1])` or its rank.
//!   `shape_dtype_read`: Python `if`s on `t.shape`/`t.dtype` (specialised per
//!   trace; for a polymorphic parameter they differ between traces).
//! - Captured tensors (`captured_tensor`): module-level tensors staged
//!   functions read; the top level rebinds them between calls.
//! - Closures (`staged_closure`): a staged function defined inside a plain
//!   factory `def make(a):` reading its Python int `a` and maybe a tensor of
//!   the factory; the top level calls `make` again between calls (a new
//!   function, a new value).
//! - Staged recursion (`staged_recursion`): a helper `def r(t, n): if n > 0:
//!   t = r(e, n - 1)` / `return e2` on an int32 counter that callers pass as
//!   `sc.constant(k)` or `x % 4`: at most 3 levels; a call node in the graph.
//! - The top level: `sc.print` (`sc_print`), `with sc.device("gpu"):`
//!   around calls (`device_gpu`: staged graphs on the GPU in every staged
//!   mode), `bool()`/`int()`/`float()` of scalar results
//!   (`scalar_conversion`), `.shape`/`.dtype` (`shape_dtype_show`),
//!   special and extreme argument values (`special_values`).
//!
//! Program-level choices take their weight from their table row
//! (`table::decide`).

use crate::gen::Gen;
use crate::scope::{CallKind, Callable};
use crate::table::{self, Want};
use crate::tensor_expr::{self as te, random_dtype, random_shape, random_tty, tensor, want_tensor, wrap};
use crate::tensor_values::special_constant;
use crate::types::{DType, Shape, TTy, Ty};
use arbitrary::{Result, Unstructured};

/// What varies between the calls of a polymorphic parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PolyKind {
    Shape,
    Dtype,
}

/// The tensor family's call-related state (`TensorState::calls`).
#[derive(Clone, Debug, Default)]
pub struct Calls {
    /// Module-level tensors staged functions may read.
    pub captured: Vec<(String, TTy)>,
    /// Polymorphic parameters of the function being written.
    pub polys: Vec<(String, PolyKind, Vec<TTy>)>,
    /// Staged functions made by a factory: (function, factory).
    pub factories: Vec<(String, String)>,
    /// Whether top-level arguments may hold special values.
    pub special_args: bool,
}

/// Module-level tensors and the recursive helper, before the staged functions.
pub fn declare(g: &mut Gen, u: &mut Unstructured) -> Result<()> {
    g.tensor.calls.special_args = table::decide(g, u, "special_values")?;
    if g.cfg.allow_captures && g.chance(u, 1, 2)? {
        for _ in 0..u.int_in_range(1..=2)? {
            let ty = random_tty(g, u)?;
            let c = g.fresh("c");
            let v = te::constant(u, ty)?;
            g.w.line(format!("{c} = {v}"));
            g.tensor.calls.captured.push((c, ty));
        }
    }
    if g.cfg.allow_staged_recursion && g.cfg.allow_nested_calls && g.chance(u, 1, 2)? {
        recursive_helper(g, u)?;
    }
    Ok(())
}

pub fn can_captured(g: &Gen, w: Want) -> bool {
    g.ctx.in_staged_fn && want_tensor(w).is_some_and(|t| te::has_typed(&g.tensor.calls.captured, t))
}

/// A module-level tensor, read by the trace (a captured input).
pub fn captured(g: &mut Gen, u: &mut Unstructured, w: Want) -> Result<String> {
    let t = want_tensor(w).expect("a tensor");
    te::pick_typed(g, u, &g.tensor.calls.captured, t)
}

/// Between top-level calls: a captured tensor rebound to a new value.
fn rebind_captured(g: &mut Gen, u: &mut Unstructured) -> Result<()> {
    if g.tensor.calls.captured.is_empty() {
        return Ok(());
    }
    let (c, ty) = g.pick(u, &g.tensor.calls.captured.clone())?.clone();
    let v = te::constant(u, ty)?;
    g.w.line(format!("{c} = {v}"));
    Ok(())
}

/// The variants of a polymorphic first parameter, if the function gets one.
pub fn poly(g: &mut Gen, u: &mut Unstructured) -> Result<Option<(PolyKind, Vec<TTy>)>> {
    let kind = if table::decide(g, u, "retrace_shape")? {
        PolyKind::Shape
    } else if table::decide(g, u, "retrace_dtype")? {
        PolyKind::Dtype
    } else {
        return Ok(None);
    };
    let n = u.int_in_range(2..=3)?;
    let mut v: Vec<TTy> = Vec::new();
    match kind {
        PolyKind::Shape => {
            let d = random_dtype(g, u)?;
            for _ in 0..8 {
                let t = TTy::new(d, random_shape(u)?);
                if !v.contains(&t) {
                    v.push(t);
                }
            }
        }
        PolyKind::Dtype => {
            let s = random_shape(u)?;
            for _ in 0..8 {
                let t = TTy::new(random_dtype(g, u)?, s);
                if !v.contains(&t) {
                    v.push(t);
                }
            }
            // Without the wide dtypes only int32 and float32 exist.
            if v.len() < 2 {
                let other = if v[0].dtype == DType::I32 { DType::F32 } else { DType::I32 };
                v.push(TTy::new(other, s));
            }
        }
    }
    if v.len() < 2 {
        // The bytes ran out: a shape variant always exists.
        let other = if v[0].shape == Shape::Scalar { Shape::Vec(2) } else { Shape::Scalar };
        v.push(TTy::new(v[0].dtype, other));
    }
    v.truncate(n as usize);
    Ok(Some((kind, v)))
}

/// Binds polymorphic parameter `name` in the function being written and
/// reads it once first thing (every trace reads it).
pub fn begin_poly(g: &mut Gen, u: &mut Unstructured, name: &str, kind: PolyKind, variants: Vec<TTy>) -> Result<()> {
    g.scope.bind(name, Ty::Poly, true);
    g.tensor.calls.polys.push((name.to_string(), kind, variants.clone()));
    let ty = match kind {
        PolyKind::Shape => TTy::new(random_dtype(g, u)?, Shape::Scalar),
        PolyKind::Dtype => TTy::new(random_dtype(g, u)?, variants[0].shape),
    };
    let row = if kind == PolyKind::Shape { "retrace_shape" } else { "retrace_dtype" };
    g.used.insert(row);
    let e = poly_read(g, u, name, kind, &variants, ty)?;
    let v = g.fresh("t");
    g.w.line(format!("{v} = {}", wrap(e, ty)));
    g.scope.bind(&v, Ty::Tensor(ty), false);
    Ok(())
}

pub fn end_poly(g: &mut Gen) {
    g.tensor.calls.polys.clear();
}

/// A read of polymorphic `p` as a tensor of `ty`, valid for every variant.
fn poly_read(g: &mut Gen, u: &mut Unstructured, p: &str, kind: PolyKind, variants: &[TTy], ty: TTy) -> Result<String> {
    let d = ty.dtype.sc();
    if kind == PolyKind::Dtype {
        return Ok(format!("sc.cast({p}, {d})"));
    }
    let num = variants[0].dtype.is_num();
    Ok(match u.int_in_range(0..=4)? {
        0 => format!("sc.cast(sc.reshape({p}, [-1])[0], {d})"),
        1 => format!("sc.cast(sc.reshape({p}, [-1])[-1], {d})"),
        2 => format!("sc.cast(sc.constant(len({p}.shape)), {d})"),
        3 if num => format!("sc.cast(sc.{}({p}), {d})", g.pick(u, &["reduce_max", "reduce_min", "reduce_sum"])?),
        _ => format!("sc.cast(sc.reduce_sum(sc.cast({p}, sc.float64)), {d})"),
    })
}

fn polys_of(g: &Gen, kind: PolyKind, t: TTy) -> Vec<(String, Vec<TTy>)> {
    g.tensor
        .calls
        .polys
        .iter()
        .filter(|(_, k, v)| {
            *k == kind && (kind == PolyKind::Shape && t.shape == Shape::Scalar || kind == PolyKind::Dtype && v[0].shape == t.shape)
        })
        .map(|(n, _, v)| (n.clone(), v.clone()))
        .collect()
}

fn can_poly(g: &Gen, w: Want, kind: PolyKind) -> bool {
    g.ctx.in_staged_fn && want_tensor(w).is_some_and(|t| !polys_of(g, kind, t).is_empty())
}

pub fn can_retrace_shape(g: &Gen, w: Want) -> bool {
    can_poly(g, w, PolyKind::Shape)
}

pub fn can_retrace_dtype(g: &Gen, w: Want) -> bool {
    can_poly(g, w, PolyKind::Dtype)
}

fn read_poly(g: &mut Gen, u: &mut Unstructured, w: Want, kind: PolyKind) -> Result<String> {
    let t = want_tensor(w).expect("a tensor");
    let (p, v) = g.pick(u, &polys_of(g, kind, t))?.clone();
    poly_read(g, u, &p, kind, &v, t)
}

pub fn retrace_shape(g: &mut Gen, u: &mut Unstructured, w: Want) -> Result<String> {
    read_poly(g, u, w, PolyKind::Shape)
}

pub fn retrace_dtype(g: &mut Gen, u: &mut Unstructured, w: Want) -> Result<String> {
    read_poly(g, u, w, PolyKind::Dtype)
}

/// Tensors of the function being written with the types they may have.
fn typed_vars(g: &Gen) -> Vec<(String, Vec<TTy>)> {
    let f = g.scope.frames.last().expect("a frame");
    f.vars
        .iter()
        .filter_map(|v| match v.ty {
            Ty::Tensor(t) => Some((v.name.clone(), vec![t])),
            Ty::Poly => g.tensor.calls.polys.iter().find(|(n, ..)| *n == v.name).map(|(n, _, vs)| (n.clone(), vs.clone())),
            _ => None,
        })
        .collect()
}

pub fn can_shape_dtype_read(g: &Gen, w: Want) -> bool {
    w == Want::Stmt && g.ctx.in_staged_fn && g.can_nest_stmt() && !typed_vars(g).is_empty()
}

/// A Python `if` on a tensor's `.shape` or `.dtype`: decided while tracing.
pub fn shape_dtype_read(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let (v, types) = g.pick(u, &typed_vars(g))?.clone();
    let t = *g.pick(u, &types)?;
    let c = match u.int_in_range(0..=4)? {
        0 => format!("{v}.dtype == {}", t.dtype.sc()),
        1 => format!("{v}.dtype in (sc.int32, sc.int64)"),
        2 => format!("len({v}.shape) == {}", t.shape.rank()),
        3 if types.iter().all(|t| t.shape != Shape::Scalar) => format!("{v}.shape[0] > {}", u.int_in_range(1..=3)?),
        _ => format!("{v}.shape == {}", tuple(t.shape)),
    };
    crate::tensor::python_if(g, u, &c)
}

/// A shape as the Python tuple `.shape` gives.
fn tuple(s: Shape) -> String {
    match s {
        Shape::Scalar => "()".into(),
        Shape::Vec(n) => format!("({n},)"),
        Shape::Mat(r, c) => format!("({r}, {c})"),
    }
}

/// A factory for the staged function about to be written, if it gets one:
/// (factory name, its Python int parameter).
pub fn closure(g: &mut Gen, u: &mut Unstructured) -> Result<Option<(String, String)>> {
    if !table::decide(g, u, "staged_closure")? {
        return Ok(None);
    }
    Ok(Some((g.fresh("make"), g.fresh("a"))))
}

/// Opens the factory's scope: its parameter and maybe a tensor it makes;
/// returns the factory's lines before the `def`.
pub fn open_factory(g: &mut Gen, u: &mut Unstructured, a: &str) -> Result<Vec<String>> {
    g.scope.push_frame();
    g.scope.bind(a, Ty::Hyper, true);
    let mut lines = Vec::new();
    if g.chance(u, 1, 2)? {
        let ty = random_tty(g, u)?;
        let c = g.fresh("cc");
        lines.push(format!("{c} = {}", te::constant(u, ty)?));
        g.scope.bind(&c, Ty::Tensor(ty), true);
    }
    Ok(lines)
}

/// The factory around a staged function's text, and the module-level
/// binding of the function made with `a = value`.
pub fn wrap_factory(
    g: &mut Gen,
    u: &mut Unstructured,
    name: &str,
    factory: &str,
    a: &str,
    pre: Vec<String>,
    def: crate::emit::Writer,
) -> Result<()> {
    g.scope.pop_frame();
    g.w.line("");
    g.w.line("");
    g.w.line(format!("def {factory}({a}):"));
    g.w.indent();
    for l in pre {
        g.w.line(l);
    }
    g.w.append(def);
    g.w.line(format!("return {name}"));
    g.w.dedent();
    g.w.line("");
    g.w.line("");
    g.w.line(format!("{name} = {factory}({})", u.int_in_range(0..=3)?));
    g.tensor.calls.factories.push((name.to_string(), factory.to_string()));
    Ok(())
}

/// The recursive helper: `r(t, n)` of type `T`, the counter an int32 scalar.
fn recursive_helper(g: &mut Gen, u: &mut Unstructured) -> Result<()> {
    let name = g.fresh("r");
    let ty = random_tty(g, u)?;
    let counter = TTy::new(DType::I32, Shape::Scalar);
    let (t, n) = (g.fresh("t"), g.fresh("n"));
    let outer = g.w.take();
    g.scope.push_frame();
    g.scope.bind(&t, Ty::Tensor(ty), false);
    g.scope.bind(&n, Ty::Tensor(counter), true);
    let saved = g.ctx;
    g.ctx.in_staged_fn = true;
    let quiet = crate::tensor_raise::quiet(g);
    crate::tensor_python::begin_fn(g);
    g.w.line(format!("if {n} > 0:"));
    g.ctx.staged = true;
    let e = tensor(g, u, ty)?;
    g.w.line(format!("    {t} = {name}({}, {n} - 1)", wrap(e, ty)));
    g.ctx.staged = false;
    let r = tensor(g, u, ty)?;
    g.w.line(format!("return {}", wrap(r, ty)));
    g.ctx = saved;
    crate::tensor_raise::unquiet(g, quiet);
    g.scope.pop_frame();
    crate::tensor_python::end_fn(g, &name);
    let body = std::mem::replace(&mut g.w, outer);
    g.w.line("");
    g.w.line("");
    g.w.line("@sc.function");
    g.w.line(format!("def {name}({t}, {n}):"));
    g.w.indent();
    g.w.append(body);
    g.w.dedent();
    let kind = CallKind::Staged { params: vec![ty, counter], hyper: false, result: ty, poly: None, counter: true };
    g.scope.add_callable(Callable { name, arity: 2, kind });
    Ok(())
}

pub fn can_recursion(g: &Gen, w: Want) -> bool {
    g.ctx.in_staged_fn && g.can_nest_expr() && want_tensor(w).is_some_and(|t| !te::staged_callables(g, t, true).is_empty())
}

/// A call of the recursive helper: a call node that calls itself at run time.
pub fn recursion(g: &mut Gen, u: &mut Unstructured, w: Want) -> Result<String> {
    let t = want_tensor(w).expect("a tensor");
    let c = g.pick(u, &te::staged_callables(g, t, true))?.clone();
    let CallKind::Staged { params, .. } = &c.kind else { unreachable!("staged") };
    let a = tensor(g, u, params[0])?;
    crate::tensor_python::calls(g, &c.name);
    Ok(format!("{}({a}, {})", c.name, depth(g, u)?))
}

/// A recursion depth argument: 0..=3.
pub fn depth(g: &mut Gen, u: &mut Unstructured) -> Result<String> {
    if g.can_nest_expr() && g.ctx.in_staged_fn && g.chance(u, 1, 2)? {
        let e = tensor(g, u, TTy::new(DType::I32, Shape::Scalar))?;
        return Ok(format!("({e} % 4)"));
    }
    Ok(format!("sc.constant({})", u.int_in_range(0..=3)?))
}

/// Before a top-level call of `entry` (not the first): captured tensors
/// rebound, the entry's factory called again.
pub fn between_calls(g: &mut Gen, u: &mut Unstructured, entry: &str) -> Result<()> {
    if g.chance(u, 1, 3)? {
        rebind_captured(g, u)?;
    }
    let factory = g.tensor.calls.factories.iter().find(|(n, _)| n == entry).map(|(_, f)| f.clone());
    if let Some(f) = factory {
        if g.chance(u, 1, 2)? {
            g.w.line(format!("{entry} = {f}({})", u.int_in_range(0..=3)?));
        }
    }
    Ok(())
}

/// An argument of type `t` for a top-level call: sometimes special values
/// (not often: a NaN argument hides much of what else a call computes).
pub fn argument(g: &mut Gen, u: &mut Unstructured, t: TTy) -> Result<String> {
    if t.dtype != DType::Bool && g.tensor.calls.special_args && g.chance(u, 1, 4)? {
        return special_constant(u, t);
    }
    te::constant(u, t)
}

/// One top-level call shown: `print(call)`, `.numpy()`, `sc.print`,
/// conversions of a scalar, `.shape`/`.dtype`; inside `with
/// sc.device("gpu"):` sometimes; inside `try` when the program raises.
pub fn show(g: &mut Gen, u: &mut Unstructured, call: &str, result: TTy, pair: bool) -> Result<()> {
    let gpu = table::decide(g, u, "device_gpu")?;
    let mut lines = Vec::new();
    if !pair && result.shape == Shape::Scalar && table::decide(g, u, "scalar_conversion")? {
        // int() of NaN or inf raises; bool() of bools only (the mock's tests keep truth values to bools).
        let f = match result.dtype {
            DType::Bool => *g.pick(u, &["bool", "int", "float"])?,
            d if d.is_float() => "float",
            _ => *g.pick(u, &["int", "float"])?,
        };
        lines.push(format!("print({f}({call}))"));
    } else if !pair && table::decide(g, u, "shape_dtype_show")? {
        let r = g.fresh("r");
        lines.push(format!("{r} = {call}"));
        lines.push(format!("print({r}.shape, {r}.dtype, {r}.numpy())"));
    } else if table::decide(g, u, "sc_print")? {
        if g.chance(u, 1, 2)? {
            lines.push(format!("sc.print({call})"));
        } else {
            lines.push(format!("sc.print('out', {call}, sep=' | ', end=' ;\\n')"));
        }
    } else if !pair && g.chance(u, 1, 2)? {
        lines.push(format!("print({call}.numpy())"));
    } else {
        lines.push(format!("print({call})"));
    }
    if gpu {
        g.w.line("with sc.device('gpu'):");
        g.w.indent();
    }
    crate::tensor::top_call(g, &lines);
    if gpu {
        g.w.dedent();
    }
    Ok(())
}
