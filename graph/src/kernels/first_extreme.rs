//! The element a sequential NaN-propagating max (or min) fold picks, found
//! without a chain of dependent compares. Folding `m = maximum(m, y)` from
//! the first element (`elem.rs`: the first NaN wins; `m` moves only to a
//! strictly larger `y`) ends at the first NaN when there is one, else at
//! the first element equal to the largest value (`0.0 == -0.0`: the first
//! zero when the maximum is zero). `ArgMax` picks the same element. Both are
//! found here in passes the compiler vectorises: a NaN scan, the largest
//! value over eight independent lanes (the order of a max of non-NaN
//! values changes no value), then the first element equal to it.

use super::elem::Elem;

/// The position and value of the element a max (`is_max`) or min fold of
/// `g` ends at; `None` for an empty `g`.
#[inline]
pub(crate) fn first_extreme<T: Elem>(g: &[T], is_max: bool) -> Option<(usize, T)> {
    let &first = g.first()?;
    if let Some(i) = g.iter().position(|x| x.is_nan()) {
        return Some((i, g[i]));
    }
    let better = |y: T, m: T| if is_max { y > m } else { y < m };
    let mut lanes = [first; 8];
    let chunks = g.chunks_exact(8);
    let rest = chunks.remainder();
    for chunk in chunks {
        for (m, &y) in lanes.iter_mut().zip(chunk) {
            if better(y, *m) {
                *m = y;
            }
        }
    }
    let mut best = rest.iter().fold(first, |m, &y| if better(y, m) { y } else { m });
    for &m in &lanes {
        if better(m, best) {
            best = m;
        }
    }
    g.iter().position(|&x| x == best).map(|i| (i, g[i]))
}
