//! Tensor family: products that take the matmul kernels' other paths (the
//! holes reports/mutation.md named). The family's own shapes are scalars,
//! vectors and matrices of 1..=4 per dimension (`tensor_expr::random_shape`),
//! so `matmul` alone only ever runs the kernel's column loop on one batch.
//! Each row here builds its larger operands itself and gives back a tensor
//! of the wanted (small) type, so nothing else in the generator sees a
//! dimension past 4 or a rank past 2:
//!
//! - `wide_matmul`: `[m, k] @ [k, n]` with 8, 9, 16, 17, 24 or 33 columns
//!   or 5..17 rows (the row blocks of 16 and 8 columns, four rows at a time
//!   — a block past the first column needs 24 columns: 16 then 8 — and the
//!   column blocks of 16, 8, 4 rows), operands counting up from a
//!   `sc.range` plus a generated row (distinct values, so a misplaced index
//!   shows), then a window of the wanted shape sliced out;
//! - `batched_matmul`: `sc.stack` of 2 or 3 matrices on each side, a rank-3
//!   product, one batch taken (`[1]`, `[-1]` mostly: the batch offsets);
//! - `donor_matmul`: `w @ (x * 2.0)` with `w` square (and `(x * 2.0) @ w`):
//!   the product's operand is a temporary of the output's shape read for the
//!   last time, which the staged executor computes into in place (eager runs
//!   allocate: the two must agree).
//!
//! Valid by construction (inner dimensions match, slices inside the
//! product); integer values stay small (`% 5` of the ramp), and the caller
//! wraps what it stores (`% 97`).

use crate::gen::Gen;
use crate::table::Want;
use crate::tensor_expr::{tensor, want_tensor};
use crate::types::{DType, Shape, TTy};
use arbitrary::{Result, Unstructured};

/// A number-typed matrix is wanted and a compound expression may go here.
pub fn can_mat(g: &Gen, w: Want) -> bool {
    want_tensor(w).is_some_and(|t| t.dtype.is_num() && matches!(t.shape, Shape::Mat(..))) && g.can_nest_expr()
}

/// `x * 2` in `t`'s dtype (`2.0` for floats).
fn twice(x: &str, d: DType) -> String {
    if d.is_float() {
        format!("({x} * 2.0)")
    } else {
        format!("({x} * 2)")
    }
}

/// An `r x c` matrix of dtype `d` whose values differ by position: a ramp
/// (`sc.range` reshaped, `% 5` for ints) plus a generated `1 x c` row.
fn ramp(g: &mut Gen, u: &mut Unstructured, d: DType, r: u8, c: u8) -> Result<String> {
    let n = r as u32 * c as u32;
    let start = u.int_in_range(-3..=3)?;
    let base = format!("sc.reshape(sc.range({start}, {}, 1, dtype={}), [{r}, {c}])", start + n as i32, d.sc());
    let base = if d.is_int() { format!("({base} % 5)") } else { base };
    if c <= 4 && g.chance(u, 1, 2)? {
        let row = tensor(g, u, TTy::new(d, Shape::Mat(1, c)))?;
        return Ok(format!("({base} + {row})"));
    }
    Ok(base)
}

/// `[m, k] @ [k, n]` with many columns or rows, a window of the wanted shape.
pub fn wide_matmul(g: &mut Gen, u: &mut Unstructured, w: Want) -> Result<String> {
    let t = want_tensor(w).expect("a tensor");
    let Shape::Mat(r, c) = t.shape else { unreachable!("can_mat") };
    let k = u.int_in_range(1..=4)?;
    let (m, n) = if g.chance(u, 2, 3)? {
        (r.max(*g.pick(u, &[1u8, 2, 4, 5])?), c.max(*g.pick(u, &[8u8, 9, 16, 17, 24, 33])?))
    } else {
        (r.max(*g.pick(u, &[5u8, 8, 16, 17])?), c.max(*g.pick(u, &[1u8, 3, 8])?))
    };
    let a = ramp(g, u, t.dtype, m, k)?;
    let b = ramp(g, u, t.dtype, k, n)?;
    let (i, j) = (u.int_in_range(0..=m - r)?, u.int_in_range(0..=n - c)?);
    Ok(format!("sc.matmul({a}, {b})[{i}:{}, {j}:{}]", i + r, j + c))
}

/// `(sc.stack([a...]) @ sc.stack([b...]))[i]`: a rank-3 product, one batch.
pub fn batched_matmul(g: &mut Gen, u: &mut Unstructured, w: Want) -> Result<String> {
    let t = want_tensor(w).expect("a tensor");
    let Shape::Mat(r, c) = t.shape else { unreachable!("can_mat") };
    let k = u.int_in_range(1..=4)?;
    let batches = u.int_in_range(2..=3)?;
    let side = |g: &mut Gen, u: &mut Unstructured, shape: Shape| -> Result<String> {
        let mut v = Vec::new();
        for _ in 0..batches {
            v.push(tensor(g, u, TTy::new(t.dtype, shape))?);
        }
        Ok(format!("sc.stack([{}])", v.join(", ")))
    };
    let a = side(g, u, Shape::Mat(r, k))?;
    let b = side(g, u, Shape::Mat(k, c))?;
    let i = *g.pick(u, &[1i32, 1, -1, 0, batches - 1])?;
    Ok(if g.chance(u, 1, 2)? { format!("({a} @ {b})[{i}]") } else { format!("sc.matmul({a}, {b})[{i}]") })
}

/// `w @ (x * 2)` with `w` square, or `(x * 2) @ w`: a temporary operand of
/// the output's shape (the staged executor's in-place product).
pub fn donor_matmul(g: &mut Gen, u: &mut Unstructured, w: Want) -> Result<String> {
    let t = want_tensor(w).expect("a tensor");
    let Shape::Mat(r, c) = t.shape else { unreachable!("can_mat") };
    let x = tensor(g, u, t)?;
    let x = twice(&x, t.dtype);
    if g.chance(u, 2, 3)? {
        let sq = tensor(g, u, TTy::new(t.dtype, Shape::Mat(r, r)))?;
        Ok(format!("({sq} @ {x})"))
    } else {
        let sq = tensor(g, u, TTy::new(t.dtype, Shape::Mat(c, c)))?;
        Ok(format!("sc.matmul({x}, {sq})"))
    }
}
