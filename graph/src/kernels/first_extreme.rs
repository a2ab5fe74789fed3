//! The element a sequential NaN-propagating max (or min) fold picks, found
//! without a chain of dependent compares. Folding `m = maximum(m, y)` from
//! the first element (`elem.rs`: the first NaN wins; `m` moves only to a
//! strictly larger `y`) ends at the first NaN when there is one, else at
//! the first element equal to the largest value (`0.0 == -0.0`: the first
//! zero when the maximum is zero). `ArgMax` picks the same element. Both are
//! found here in two passes the compiler vectorises: the largest value over
//! eight independent lanes, noting NaNs on the way (the order of a max of
//! non-NaN values changes no value), then the first element equal to it (or
//! the first NaN), searched eight elements at a time.

use super::elem::Elem;

/// The position and value of the element a max (`is_max`) or min fold of
/// `g` ends at; `None` for an empty `g`.
#[inline]
pub(crate) fn first_extreme<T: Elem>(g: &[T], is_max: bool) -> Option<(usize, T)> {
    let &first = g.first()?;
    let better = |y: T, m: T| if is_max { y > m } else { y < m };
    let mut lanes = [first; 8];
    let mut nans = [false; 8];
    let chunks = g.chunks_exact(8);
    let rest = chunks.remainder();
    for chunk in chunks {
        for ((m, nan), &y) in lanes.iter_mut().zip(&mut nans).zip(chunk) {
            *nan |= y.is_nan();
            if better(y, *m) {
                *m = y;
            }
        }
    }
    if nans.iter().chain(&[rest.iter().any(|x| x.is_nan())]).any(|&n| n) {
        return first_where(g, |x| x.is_nan());
    }
    let mut best = rest.iter().fold(first, |m, &y| if better(y, m) { y } else { m });
    for &m in &lanes {
        if better(m, best) {
            best = m;
        }
    }
    first_where(g, |x| x == best)
}

/// The first element satisfying `p`, with its position: a chunk of eight
/// is tested whole (no early exit inside it), then searched.
#[inline(always)]
fn first_where<T: Elem>(g: &[T], p: impl Fn(T) -> bool) -> Option<(usize, T)> {
    let mut base = 0;
    for chunk in g.chunks(8) {
        if chunk.iter().fold(false, |hit, &x| hit | p(x)) {
            return chunk.iter().position(|&x| p(x)).map(|i| (base + i, chunk[i]));
        }
        base += chunk.len();
    }
    None
}
