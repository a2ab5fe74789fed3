//! The loops of one `[m, k] @ [k, n]` product on contiguous row-major
//! slices. Every output element is the chain `acc = a[i,p]·b[p,j] + acc`
//! over `p = 0, 1, …, k-1` from `acc = 0`, each step a fused multiply-add
//! for floats (one rounding: the same bits with or without the instruction,
//! on every CPU). Nothing else decides an element's bits: how outputs are
//! grouped into register tiles, and which thread computes which rows, only
//! changes which chains run side by side, so eager and staged runs, and one
//! thread or many, agree bit for bit. (The GPU's kernel adds unfused
//! products in the same order; the GPU oracle holds float32 matmul to the
//! dot-product bound, which both satisfy: gpu/src/tolerance.rs.)
//!
//! Speed comes from running many chains at once, in tiles of outputs the
//! compiler keeps in vector registers:
//!
//! - along rows: `R` rows × `W` consecutive columns; each step `p`
//!   broadcasts `a[i..i+R, p]` against the `W` consecutive `b[p, j..]`. `W`
//!   is two vector registers of the widest unit the CPU has (AVX-512, AVX2),
//!   so a tile holds 12 independent chains, enough to hide the
//!   multiply-add's latency on both of its units;
//! - along a column, for the columns a row tile does not fill (a thin `b`,
//!   `n = 1` typically): `W` consecutive rows `i`, reading `a` transposed
//!   (copied once, so that `a[i.., p]` is consecutive).
//!
//! Large products split their rows over the CPU's threads (pool.rs,
//! [`PARALLEL_WORK`]); small ones, which the fuzzer runs by the million,
//! stay on the calling thread.

use super::elem::Number;

/// Rows per register tile.
const R: usize = 6;

/// Multiply-adds below which a product stays on one thread: handing a part
/// to a helper costs about what 10^4 multiply-adds do, and fuzz jobs
/// already fill the cores with small products.
const PARALLEL_WORK: usize = 1 << 21;

/// `out = a @ b` for one matrix (`a`: m×k, `b`: k×n, `out`: m×n, all
/// row-major).
pub(crate) fn matmul_into<T: Number>(a: &[T], b: &[T], out: &mut [T], m: usize, k: usize, n: usize) {
    let threads = threads_for(m, k, n);
    if threads <= 1 {
        return one_thread(a, b, out, m, k, n);
    }
    // Whole row tiles per part, the first parts taking one more tile; each
    // part in a slot its thread takes it from.
    let tiles = m.div_ceil(R);
    let (per, extra) = (tiles / threads, tiles % threads);
    let (mut a_rest, mut out_rest) = (a, out);
    let mut slots = Vec::with_capacity(threads);
    for t in 0..threads {
        let rows = ((per + usize::from(t < extra)) * R).min(a_rest.len() / k);
        let (a_part, a_next) = a_rest.split_at(rows * k);
        let (out_part, out_next) = std::mem::take(&mut out_rest).split_at_mut(rows * n);
        (a_rest, out_rest) = (a_next, out_next);
        slots.push(std::sync::Mutex::new(Some((a_part, out_part, rows))));
    }
    super::pool::run_parts(threads, &|part| {
        let taken = slots[part].lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some((a, out, rows)) = taken {
            one_thread(a, b, out, rows, k, n);
        }
    });
}

/// How many threads a product of this size uses.
fn threads_for(m: usize, k: usize, n: usize) -> usize {
    if m.saturating_mul(k).saturating_mul(n) < PARALLEL_WORK {
        return 1;
    }
    super::pool::width().min(m.div_ceil(R))
}

/// The product on the calling thread, compiled for AVX-512 or AVX2 with FMA
/// where the CPU has them (wider vectors and tiles, the same chains).
fn one_thread<T: Number>(a: &[T], b: &[T], out: &mut [T], m: usize, k: usize, n: usize) {
    let narrow = std::mem::size_of::<T>() > 4;
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx512f") && std::arch::is_x86_feature_detected!("fma") {
        // SAFETY: the CPU has AVX-512F and FMA, checked just above.
        unsafe {
            if narrow {
                blocks_avx512::<T, 16, 8>(a, b, out, m, k, n)
            } else {
                blocks_avx512::<T, 32, 16>(a, b, out, m, k, n)
            }
        };
        return;
    }
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
        // SAFETY: the CPU has AVX2 and FMA, checked just above.
        unsafe {
            if narrow {
                blocks_avx2::<T, 8, 4>(a, b, out, m, k, n)
            } else {
                blocks_avx2::<T, 16, 8>(a, b, out, m, k, n)
            }
        };
        return;
    }
    if narrow {
        blocks::<T, 8, 4>(a, b, out, m, k, n)
    } else {
        blocks::<T, 16, 8>(a, b, out, m, k, n)
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn blocks_avx2<T: Number, const W: usize, const H: usize>(a: &[T], b: &[T], out: &mut [T], m: usize, k: usize, n: usize) {
    blocks::<T, W, H>(a, b, out, m, k, n);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,fma")]
unsafe fn blocks_avx512<T: Number, const W: usize, const H: usize>(a: &[T], b: &[T], out: &mut [T], m: usize, k: usize, n: usize) {
    blocks::<T, W, H>(a, b, out, m, k, n);
}

/// Column tiles `W` wide, then `H` (half) wide, then the columns left one
/// at a time.
#[inline(always)]
fn blocks<T: Number, const W: usize, const H: usize>(a: &[T], b: &[T], out: &mut [T], m: usize, k: usize, n: usize) {
    let mut j = 0;
    j = rows::<T, W>(a, b, out, (m, k, n), j);
    j = rows::<T, H>(a, b, out, (m, k, n), j);
    if j == n {
        return;
    }
    // a transposed: column p of a is row p here (on the stack when small).
    let mut at: smallvec::SmallVec<[T; 512]> = smallvec::smallvec![T::ZERO; m * k];
    super::layout::transpose_into(a, m, k, &mut at);
    for j in j..n {
        let mut i = columns::<T, 16>(&at, b, out, (m, k, n), j, 0);
        i = columns::<T, 8>(&at, b, out, (m, k, n), j, i);
        i = columns::<T, 4>(&at, b, out, (m, k, n), j, i);
        columns::<T, 1>(&at, b, out, (m, k, n), j, i);
    }
}

/// Columns `j0..` in tiles of `W` while a whole tile fits, every row;
/// returns the first column not done.
#[inline(always)]
fn rows<T: Number, const W: usize>(a: &[T], b: &[T], out: &mut [T], (m, k, n): (usize, usize, usize), j0: usize) -> usize {
    let mut j = j0;
    while j + W <= n {
        let mut i = 0;
        while i + R <= m {
            row_block::<T, W, R>(a, b, out, (k, n), i, j);
            i += R;
        }
        while i + 2 <= m {
            row_block::<T, W, 2>(a, b, out, (k, n), i, j);
            i += 2;
        }
        if i < m {
            row_block::<T, W, 1>(a, b, out, (k, n), i, j);
        }
        j += W;
    }
    j
}

/// Rows `i..i + RB`, columns `j..j + W`.
#[inline(always)]
fn row_block<T: Number, const W: usize, const RB: usize>(a: &[T], b: &[T], out: &mut [T], (k, n): (usize, usize), i: usize, j: usize) {
    let mut acc = [[T::ZERO; W]; RB];
    let a_rows: [&[T]; RB] = std::array::from_fn(|r| &a[(i + r) * k..(i + r + 1) * k]);
    for p in 0..k {
        let b_part: &[T; W] = b[p * n + j..p * n + j + W].try_into().expect("W elements");
        for (acc, a_row) in acc.iter_mut().zip(&a_rows) {
            let x = a_row[p];
            for l in 0..W {
                acc[l] = x.mul_add(b_part[l], acc[l]);
            }
        }
    }
    for (r, acc) in acc.iter().enumerate() {
        out[(i + r) * n + j..(i + r) * n + j + W].copy_from_slice(acc);
    }
}

/// Column `j`, rows `i0..` in tiles of `W` while a whole tile fits (`at`:
/// `a` transposed); returns the first row not done.
#[inline(always)]
fn columns<T: Number, const W: usize>(at: &[T], b: &[T], out: &mut [T], (m, k, n): (usize, usize, usize), j: usize, i0: usize) -> usize {
    let mut i = i0;
    while i + W <= m {
        let mut acc = [T::ZERO; W];
        for p in 0..k {
            let y = b[p * n + j];
            let a_part: &[T; W] = at[p * m + i..p * m + i + W].try_into().expect("W elements");
            for l in 0..W {
                acc[l] = a_part[l].mul_add(y, acc[l]);
            }
        }
        for (l, &v) in acc.iter().enumerate() {
            out[(i + l) * n + j] = v;
        }
        i += W;
    }
    i
}
