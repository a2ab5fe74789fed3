//! Tensor family: gradients. `tape_gradient` writes, in a staged
//! function, a `with sc.GradientTape() as tape:` block that watches a float
//! source and computes a loss from it through what staging must
//! differentiate: a staged `if` on a tensor condition (a cond whose gradient
//! is a cond over its branches'), a Python `for` over `range` (unrolled at
//! trace time), elementwise math with broadcasting, reductions, `matmul`,
//! `concat` and indexing, the program's own tensors as data (and its float
//! Variables, watched automatically); then `tape.gradient(loss, sources)`,
//! bound to a new tensor variable the rest of the function may use.
//!
//! The loss is smooth where it is evaluated (no relu, abs, maximum or
//! floor at data the generator does not control): data from the program's
//! expressions goes through `sc.where(sc.abs(d) < 4.0, d, zeros)` and `tanh`,
//! so infinities and NaNs of the tensor family's special values stay out of
//! the differentiated path, and `check --gradcheck`'s finite differences
//! are meaningful on every program this writes. The modes compare the
//! gradients like any other value (staged gradient graphs against the eager
//! tape, exactly on CPU); a backward rule wrong in every mode alike (the
//! planted `tanh_grad_one_minus_y`) only the gradient check sees, so tanh is
//! on most paths.
//!
//! Loops: a Python range (unrolled), a staged `for` over `sc.range` or a
//! counted staged `while` (bound 0 to 3 at run time: while_v2's gradient;
//! the gradient then asks `unconnected_gradients='zero'`, as a loop that
//! runs 0 times leaves the eager tape's None, which a graph cannot give).
//! Calls: sometimes a nested `@sc.function` helper (with its own staged if)
//! on the path (a staged call's forward function).

use crate::gen::Gen;
use crate::table::Want;
use crate::tensor::test;
use crate::tensor_expr::tensor;
use crate::types::{DType, Shape, TTy, Ty};
use arbitrary::{Result, Unstructured};

pub fn can_tape(g: &Gen, w: Want) -> bool {
    w == Want::Stmt && g.ctx.in_staged_fn && g.can_nest_stmt()
}

/// A float literal in [-2, 2] in steps of 0.25, never 0 (no kink or pole at 0).
fn value(u: &mut Unstructured) -> Result<String> {
    let k = u.int_in_range(1..=8)? as f64 * 0.25;
    Ok(format!("{:?}", if u.arbitrary::<bool>()? { -k } else { k }))
}

fn literal(u: &mut Unstructured, t: TTy) -> Result<String> {
    let text = match t.shape {
        Shape::Scalar => value(u)?,
        Shape::Vec(n) => {
            let items: Result<Vec<String>> = (0..n).map(|_| value(u)).collect();
            format!("[{}]", items?.join(", "))
        }
        Shape::Mat(r, c) => {
            let mut rows = Vec::new();
            for _ in 0..r {
                let items: Result<Vec<String>> = (0..c).map(|_| value(u)).collect();
                rows.push(format!("[{}]", items?.join(", ")));
            }
            format!("[{}]", rows.join(", "))
        }
    };
    Ok(if t.dtype == DType::F32 { format!("sc.constant({text})") } else { format!("sc.constant({text}, {})", t.dtype.sc()) })
}

/// A smooth function of `h` (same shape), sometimes of the source `x` too.
fn smooth(g: &Gen, u: &mut Unstructured, h: &str, x: &str) -> Result<String> {
    let forms: &[&str] = &[
        "sc.tanh({h})",
        "sc.tanh({h} * 0.75 + {x})",
        "sc.sigmoid({h}) * 2.0",
        "{h} * {h} * 0.5",
        "sc.exp({h} * 0.25)",
        "sc.sqrt({h} * {h} + 1.0)",
        "sc.log({h} * {h} + 1.0)",
        "{h} / ({x} * {x} + 2.0)",
        "sc.tanh({h}) * {x}",
        "({h} - {x}) ** 2.0",
    ];
    let f = *g.pick(u, forms)?;
    Ok(f.replace("{h}", h).replace("{x}", x))
}

fn loop_body(g: &mut Gen, u: &mut Unstructured, h: &str, x: &str) -> Result<()> {
    g.w.indent();
    let s = smooth(g, u, h, x)?;
    g.w.line(format!("{h} = sc.tanh({s} * 0.5)"));
    g.w.dedent();
    Ok(())
}

/// A staged loop's bound: an int32 scalar known at execution, 0 to 3.
fn bound(g: &mut Gen, u: &mut Unstructured) -> Result<String> {
    let ints: Vec<String> = g.scope.readable(Ty::Tensor(TTy::new(DType::I32, Shape::Scalar))).iter().map(|v| v.name.clone()).collect();
    if !ints.is_empty() && g.chance(u, 1, 2)? {
        let v = g.pick(u, &ints)?.clone();
        return Ok(format!("({v} % 4 + 4) % 4"));
    }
    Ok(format!("sc.constant({})", u.int_in_range(0..=3)?))
}

/// `with sc.GradientTape() as tape:` ... `g = tape.gradient(loss, sources)`.
pub fn tape_gradient(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let dtype = if g.chance(u, 1, 3)? { DType::F64 } else { DType::F32 };
    let shape = match u.int_in_range(0..=3)? {
        0 => Shape::Scalar,
        1 | 2 => Shape::Vec(u.int_in_range(1..=4)?),
        _ => Shape::Mat(u.int_in_range(1..=3)?, u.int_in_range(1..=3)?),
    };
    let ty = TTy::new(dtype, shape);
    let (x, tape, h, loss, grad) = (g.fresh("gx"), g.fresh("tape"), g.fresh("gh"), g.fresh("loss"), g.fresh("grad"));
    g.w.line(format!("{x} = {}", literal(u, ty)?));
    // Data from the program: bounded and finite, not watched.
    let data = if g.chance(u, 1, 2)? {
        let d = g.fresh("gd");
        let e = tensor(g, u, ty)?;
        let zeros = format!("sc.zeros({}, {})", ty.shape.list(), dtype.sc());
        g.w.line(format!("{d} = sc.tanh(sc.where(sc.abs({e}) < 4.0, {e}, {zeros}))"));
        Some(d)
    } else {
        None
    };
    // A float Variable of the program, watched automatically.
    let vars: Vec<(String, TTy)> = g.tensor.host.variables.iter().filter(|(_, t)| t.dtype.is_float()).cloned().collect();
    let var = if !vars.is_empty() && g.chance(u, 1, 3)? { Some(g.pick(u, &vars)?.clone()) } else { None };
    // Sometimes a staged helper (a nested sc.function) on the path: a staged
    // call's gradient (its forward function returns what the backward needs).
    let helper = if g.chance(u, 1, 3)? {
        let f = g.fresh("gf");
        let (a, b) = (g.fresh("a"), g.fresh("b"));
        g.w.line("@sc.function");
        g.w.line(format!("def {f}({a}, {b}):"));
        g.w.indent();
        let body = smooth(g, u, &a, &b)?;
        g.w.line(format!("{a} = {body}"));
        if g.chance(u, 1, 2)? {
            let c = value(u)?;
            g.w.line(format!("if sc.reduce_sum({a}) > {c}:"));
            g.w.indent();
            let t = smooth(g, u, &a, &b)?;
            g.w.line(format!("{a} = {t}"));
            g.w.dedent();
        }
        g.w.line(format!("return sc.tanh({a})"));
        g.w.dedent();
        Some(f)
    } else {
        None
    };
    g.w.line(format!("with sc.GradientTape() as {tape}:"));
    g.w.indent();
    g.w.line(format!("{tape}.watch({x})"));
    // Sometimes the source itself (h aliases x: a loop or branch then
    // reaches x both as its initial value and as a captured one).
    let first = match u.int_in_range(0..=5)? {
        0 => x.clone(),
        1 | 2 => smooth(g, u, &x, &x)?,
        _ => format!("sc.tanh({x} * 0.5)"),
    };
    g.w.line(format!("{h} = {first}"));
    if let Some(d) = &data {
        g.w.line(format!("{h} = {h} + {d} * {x}"));
    }
    if g.chance(u, 2, 3)? {
        // A staged if (a cond): both branches differentiate through h.
        let c = if g.chance(u, 1, 2)? { format!("sc.reduce_sum({h}) > {}", value(u)?) } else { test(g, u)? };
        g.w.line(format!("if {c}:"));
        g.w.indent();
        // Each branch reaches the source too (a source reached through one
        // branch only is None or not by the branch taken: refused unless
        // unconnected_gradients='zero').
        let a = smooth(g, u, &h, &x)?;
        let ca = value(u)?;
        g.w.line(format!("{h} = {a} + {x} * {ca}"));
        g.w.dedent();
        g.w.line("else:");
        g.w.indent();
        let b = smooth(g, u, &h, &x)?;
        let cb = value(u)?;
        g.w.line(format!("{h} = {b} + {x} * {cb}"));
        g.w.dedent();
    }
    // A loop: unrolled (a Python range), or staged (while_v2's gradient),
    // whose bound may be 0 at run time (then no gradient flows through it).
    let mut staged_loop = false;
    match u.int_in_range(0..=5)? {
        0 | 1 => {
            let i = g.fresh("gi");
            g.w.line(format!("for {i} in range({}):", u.int_in_range(1..=3)?));
            loop_body(g, u, &h, &x)?;
        }
        2 | 3 => {
            staged_loop = true;
            let i = g.fresh("gi");
            let b = bound(g, u)?;
            g.w.line(format!("for {i} in sc.range({b}):"));
            loop_body(g, u, &h, &x)?;
        }
        4 => {
            staged_loop = true;
            let i = g.fresh("gi");
            let b = bound(g, u)?;
            g.w.line(format!("{i} = sc.constant(0)"));
            g.w.line(format!("while {i} < {b}:"));
            loop_body(g, u, &h, &x)?;
            g.w.indent();
            g.w.line(format!("{i} = {i} + 1"));
            g.w.dedent();
        }
        _ => {}
    }
    if let Some(f) = &helper {
        g.w.line(format!("{h} = {f}({h}, {x})"));
    }
    let reduce = *g.pick(u, &["sc.reduce_sum", "sc.reduce_mean"])?;
    let total = match shape {
        Shape::Mat(..) if g.chance(u, 1, 2)? => format!("{reduce}(sc.matmul({h}, sc.transpose({h})))"),
        Shape::Vec(n) if n > 1 && g.chance(u, 1, 3)? => format!("{reduce}(sc.concat([{h}[1:], {h}[:1] * 2.0], 0) * {h})"),
        _ => format!("{reduce}({h} * {h})"),
    };
    g.w.line(format!("{loss} = {total}"));
    if let Some((v, _)) = &var {
        g.w.line(format!("{loss} = {loss} + sc.cast(sc.reduce_sum(sc.tanh({v}.read_value() * 0.5)), {})", dtype.sc()));
    }
    g.w.dedent();
    let sources = match &var {
        Some((v, _)) => format!("[{x}, {v}]"),
        None => x.clone(),
    };
    // A staged loop that runs 0 times leaves a source the eager tape never
    // reached: None there, which a graph cannot give; TF's zeros instead.
    let zero = if staged_loop { ", unconnected_gradients='zero'" } else { "" };
    match &var {
        Some((_, vty)) => {
            let vgrad = g.fresh("grad");
            g.w.line(format!("{grad}, {vgrad} = {tape}.gradient({loss}, {sources}{zero})"));
            g.scope.bind(&vgrad, Ty::Tensor(*vty), false);
        }
        None => g.w.line(format!("{grad} = {tape}.gradient({loss}, {sources}{zero})")),
    }
    g.scope.bind(&grad, Ty::Tensor(ty), false);
    Ok(String::new())
}
