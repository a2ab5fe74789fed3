//! The loops of one `[m, k] @ [k, n]` product on contiguous row-major
//! slices. Every output element is `((0 + a[i,0]·b[0,j]) + a[i,1]·b[1,j]) + …`,
//! products added in increasing `p`, a multiply then an add (no fused
//! multiply-add): the sequential sum the GPU's kernel computes too. Speed
//! comes only from computing many such chains side by side, in blocks of
//! outputs the compiler keeps in vector registers:
//!
//! - along a row (`W` consecutive columns `j`): each step `p` multiplies one
//!   `a[i,p]` by `W` consecutive `b[p, j..]`;
//! - along a column, for the columns a row block does not fill (a thin `b`,
//!   `n = 1` typically): `W` consecutive rows `i`, reading `a` transposed
//!   (copied once, so that `a[i.., p]` is consecutive).

use super::elem::Number;

/// `out = a @ b` for one matrix (`a`: m×k, `b`: k×n, `out`: m×n, all
/// row-major), compiled for AVX-512 or AVX2 where the CPU has it (wider
/// vectors, the same operations in the same order, so the same bits).
pub(crate) fn matmul_into<T: Number>(a: &[T], b: &[T], out: &mut [T], m: usize, k: usize, n: usize) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx512f") {
        // SAFETY: the CPU has AVX-512F, checked just above.
        unsafe { blocks_avx512(a, b, out, m, k, n) };
        return;
    }
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, checked just above.
        unsafe { blocks_avx2(a, b, out, m, k, n) };
        return;
    }
    blocks(a, b, out, m, k, n);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn blocks_avx2<T: Number>(a: &[T], b: &[T], out: &mut [T], m: usize, k: usize, n: usize) {
    blocks(a, b, out, m, k, n);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn blocks_avx512<T: Number>(a: &[T], b: &[T], out: &mut [T], m: usize, k: usize, n: usize) {
    blocks(a, b, out, m, k, n);
}

#[inline(always)]
fn blocks<T: Number>(a: &[T], b: &[T], out: &mut [T], m: usize, k: usize, n: usize) {
    let mut j = 0;
    j = rows::<T, 16>(a, b, out, (m, k, n), j);
    j = rows::<T, 8>(a, b, out, (m, k, n), j);
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

/// Columns `j0..` in blocks of `W` while a whole block fits, every row;
/// returns the first column not done.
#[inline(always)]
fn rows<T: Number, const W: usize>(a: &[T], b: &[T], out: &mut [T], (m, k, n): (usize, usize, usize), j0: usize) -> usize {
    let mut j = j0;
    while j + W <= n {
        // Four rows at a time: four independent chains per column, so the
        // adds' latency overlaps (each element's own chain is unchanged).
        let mut i = 0;
        while i + 4 <= m {
            row_block::<T, W, 4>(a, b, out, (k, n), i, j);
            i += 4;
        }
        for i in i..m {
            row_block::<T, W, 1>(a, b, out, (k, n), i, j);
        }
        j += W;
    }
    j
}

/// Rows `i..i + R`, columns `j..j + W`.
#[inline(always)]
fn row_block<T: Number, const W: usize, const R: usize>(a: &[T], b: &[T], out: &mut [T], (k, n): (usize, usize), i: usize, j: usize) {
    let mut acc = [[T::ZERO; W]; R];
    for p in 0..k {
        let b_part: &[T; W] = b[p * n + j..p * n + j + W].try_into().expect("W elements");
        for (r, acc) in acc.iter_mut().enumerate() {
            let x = a[(i + r) * k + p];
            for l in 0..W {
                acc[l] = acc[l].add(x.mul(b_part[l]));
            }
        }
    }
    for (r, acc) in acc.iter().enumerate() {
        out[(i + r) * n + j..(i + r) * n + j + W].copy_from_slice(acc);
    }
}

/// Column `j`, rows `i0..` in blocks of `W` while a whole block fits (`at`:
/// `a` transposed); returns the first row not done.
#[inline(always)]
fn columns<T: Number, const W: usize>(
    at: &[T],
    b: &[T],
    out: &mut [T],
    (m, k, n): (usize, usize, usize),
    j: usize,
    i0: usize,
) -> usize {
    let mut i = i0;
    while i + W <= m {
        let mut acc = [T::ZERO; W];
        for p in 0..k {
            let y = b[p * n + j];
            let a_part: &[T; W] = at[p * m + i..p * m + i + W].try_into().expect("W elements");
            for l in 0..W {
                acc[l] = acc[l].add(a_part[l].mul(y));
            }
        }
        for (l, &v) in acc.iter().enumerate() {
            out[(i + l) * n + j] = v;
        }
        i += W;
    }
    i
}
