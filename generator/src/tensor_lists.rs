//! Tensor family: a Python list grown in a staged loop (`staged_list`,
//! the graph's list ops; AutoGraph's `outputs.append` in a `dynamic_rnn`).
//!
//! `l = []` (sometimes with a first element appended) in a staged
//! function, then a staged loop (a counted `while` or `for` over
//! `sc.range`) whose body ends with `l.append(e)`, sometimes under a staged
//! `if`, and sometimes pops while `len(l) > 1`; after the loop one of:
//! a reduction over axis 0 of `sc.stack(l)`, `l.pop()`, or the count
//! `sc.constant(0) + len(l)`. The list's elements are one dtype and shape
//! (scalars or vectors of a numeric dtype), as a graph's list needs.
//!
//! A list that may end empty (no first element, a loop that may not run)
//! makes `sc.stack` raise ValueError and `pop` IndexError, in the original
//! and in the graph alike: written only where the function has room for a
//! raise site (`tensor_raise.rs`), which the top level then catches;
//! elsewhere the list starts with one element and pops keep one.

use crate::gen::Gen;
use crate::table::Want;
use crate::tensor::{bound, counted_while, staged_block, test};
use crate::tensor_expr::{random_num_dtype, tensor, wrap};
use crate::tensor_raise;
use crate::types::{DType, Shape, TTy, Ty};
use arbitrary::{Result, Unstructured};

/// At a staged function's top level, not a helper's: a helper called from
/// a staged loop or branch would append inside that staged control flow (a
/// refusal: the list would grow once, when traced).
pub fn can_list(g: &Gen, w: Want) -> bool {
    w == Want::Stmt && g.ctx.in_staged_fn && !g.ctx.staged && !g.tensor.helper && g.can_nest_stmt()
}

pub fn staged_list(g: &mut Gen, u: &mut Unstructured, _: Want) -> Result<String> {
    let shape = if g.chance(u, 1, 2)? { Shape::Scalar } else { Shape::Vec(u.int_in_range(1..=3)?) };
    let ty = TTy::new(random_num_dtype(g, u)?, shape);
    let l = g.fresh("l");
    g.w.line(format!("{l} = []"));
    let may_empty = tensor_raise::room(g) && g.chance(u, 1, 2)?;
    if !may_empty {
        let e = wrap(tensor(g, u, ty)?, ty);
        g.w.line(format!("{l}.append({e})"));
    }
    let mark = g.scope.mark();
    if g.chance(u, 1, 2)? {
        counted_while(g, u, false)?;
    } else {
        let b = bound(g, u)?;
        let i = g.fresh("i");
        g.w.line(format!("for {i} in sc.range({b}):"));
        g.scope.bind(&i, Ty::Tensor(TTy::new(DType::I32, Shape::Scalar)), true);
    }
    if g.chance(u, 1, 2)? {
        staged_block(g, u, true)?;
    }
    g.w.indent();
    let saved = g.ctx;
    g.ctx.staged = true;
    let guarded = g.chance(u, 1, 3)?;
    if guarded {
        let c = test(g, u)?;
        g.w.line(format!("if {c}:"));
        g.w.indent();
    }
    let e = wrap(tensor(g, u, ty)?, ty);
    g.w.line(format!("{l}.append({e})"));
    if guarded {
        g.w.dedent();
    }
    if g.chance(u, 1, 4)? {
        g.w.line(format!("if len({l}) > 1:"));
        g.w.line(format!("    {l}.pop()"));
    }
    g.ctx = saved;
    g.w.dedent();
    g.scope.restore(mark);
    let (out, out_ty) = match u.int_in_range(0..=3)? {
        0 => {
            if may_empty {
                tensor_raise::site(g, "IndexError");
            }
            (format!("{l}.pop()"), ty)
        }
        1 => (format!("sc.constant(0) + len({l})"), TTy::new(DType::I32, Shape::Scalar)),
        _ => {
            if may_empty {
                tensor_raise::site(g, "ValueError");
            }
            let op = *g.pick(u, &["reduce_sum", "reduce_max", "reduce_min"])?;
            (format!("sc.{op}(sc.stack({l}), axis=0)"), ty)
        }
    };
    let t = g.fresh("t");
    g.w.line(format!("{t} = {out}"));
    g.scope.bind(&t, Ty::Tensor(out_ty), false);
    Ok(String::new())
}
