//! Dense LU factorisation with partial pivoting on flat row-major slices.
//!
//! The slices come from [`crate::linalg::layout`] buffers, so the size is a constant after
//! monomorphisation and the loops have fixed trip counts.

// Index loops mirror the textbook algorithm; iterator forms obscure the row/column roles.
#![allow(clippy::needless_range_loop)]

use nalgebra::{SMatrix, SVector};

/// Why a factorisation failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Singular {
    /// The elimination column at which no usable pivot was found.
    pub column: usize,
}

/// Factors the `n × n` row-major matrix `a` in place as `P A = L U` (unit lower `L`).
///
/// `perm[k]` records the row swapped with row `k`. A pivot whose magnitude is below
/// `n · ε · max|a|` (or not finite) is reported as [`Singular`].
pub fn factor(a: &mut [f64], perm: &mut [usize], n: usize) -> Result<(), Singular> {
    factor_inline(a, perm, n)
}

/// [`factor`], inlined into its caller, where `n` is then a constant. The step Jacobians call
/// it (with `factor_lower` and `solve_many_lower` inlined too they took 3–6 % less time); the
/// steps' own solves call [`factor`], one copy for all of them.
#[inline(always)]
pub(crate) fn factor_inline(a: &mut [f64], perm: &mut [usize], n: usize) -> Result<(), Singular> {
    debug_assert!(a.len() == n * n && perm.len() == n);
    let a = &mut a[..n * n];
    let tiny = pivot_floor(a, n)?;
    eliminate(a, perm, n, (0, n), tiny)
}

/// The smallest usable pivot, `n · ε · max|a|`; [`Singular`] if an entry is not finite.
///
/// Eight independent lanes, each a compare-select maximum and a sum of `x · 0` (zero for a
/// finite `x`, NaN otherwise): the loop vectorises. A single running `f64::max` with
/// `is_finite` was a serial dependency chain and cost half of the factorization of a
/// 72-unknown step system.
fn pivot_floor(a: &[f64], n: usize) -> Result<f64, Singular> {
    const LANES: usize = 8;
    let (mut big, mut bad) = ([0.0f64; LANES], [0.0f64; LANES]);
    let mut lane = |c: &[f64]| {
        for ((m, z), &x) in big.iter_mut().zip(bad.iter_mut()).zip(c) {
            let y = x.abs();
            *m = if y > *m { y } else { *m };
            *z += x * 0.0;
        }
    };
    let chunks = a.chunks_exact(LANES);
    let rest = chunks.remainder();
    for c in chunks {
        lane(c);
    }
    lane(rest);
    if bad.iter().any(|&z| z != 0.0) {
        return Err(Singular { column: 0 });
    }
    let scale = big.iter().fold(0.0f64, |m, &y| if y > m { y } else { m });
    Ok(scale * f64::EPSILON * (n as f64))
}

/// Partial pivoting for column `k` of the row-major `n`-column matrix `a` among the rows
/// `k..=last`: the row with the largest entry is swapped (whole) into row `k` and returned;
/// [`Singular`] if that entry is below `tiny` or zero.
#[inline(always)]
fn pivot(a: &mut [f64], n: usize, k: usize, last: usize, tiny: f64) -> Result<usize, Singular> {
    let mut p = k;
    let mut best = a[k * n + k].abs();
    for r in k + 1..=last {
        let x = a[r * n + k].abs();
        if x > best {
            best = x;
            p = r;
        }
    }
    if best <= tiny || best == 0.0 {
        return Err(Singular { column: k });
    }
    if p != k {
        let (upper, lower) = a.split_at_mut(p * n);
        upper[k * n..(k + 1) * n].swap_with_slice(&mut lower[..n]);
    }
    Ok(p)
}

/// Gaussian elimination with partial pivoting of the diagonal block `[lo, hi)` of the
/// row-major `n × n` matrix `a`, in place: pivots from the block's rows (whole rows are
/// swapped), row operations within the block's columns.
#[inline(always)]
fn eliminate(
    a: &mut [f64],
    perm: &mut [usize],
    n: usize,
    (lo, hi): (usize, usize),
    tiny: f64,
) -> Result<(), Singular> {
    for k in lo..hi {
        perm[k] = pivot(a, n, k, hi - 1, tiny)?;
        // Row operations on whole slices: no bounds checks in the inner loop, which the
        // compiler then vectorises.
        let (done, rest) = a.split_at_mut((k + 1) * n);
        let pivot_row = &done[k * n + k..k * n + hi];
        let inv = 1.0 / pivot_row[0];
        let tail = &pivot_row[1..];
        for row in rest[..(hi - k - 1) * n].chunks_exact_mut(n) {
            let l = row[k] * inv;
            row[k] = l;
            if l != 0.0 {
                for (x, &u) in row[k + 1..hi].iter_mut().zip(tail) {
                    *x -= l * u;
                }
            }
        }
    }
    Ok(())
}

/// Factors the two diagonal blocks of a block lower triangular `n × n` row-major matrix
/// `[[A, 0], [B, C]]` (`A` is `ns × ns`) in place, each as `P L U` with pivots from its own
/// rows; `B` is kept (with `C`'s row swaps applied) for [`solve_many_lower`]. The upper right
/// block must be zero and is not read. Costs `(ns³ + (n − ns)³)/3` instead of `n³/3`; `ns = n`
/// is [`factor`]. Pivots are judged against the whole matrix's largest entry, as in [`factor`].
/// Inlined (only the step Jacobians call it; see `factor_inline`).
#[inline(always)]
pub fn factor_lower(
    a: &mut [f64],
    perm: &mut [usize],
    n: usize,
    ns: usize,
) -> Result<(), Singular> {
    debug_assert!(a.len() == n * n && perm.len() == n && ns <= n);
    let a = &mut a[..n * n];
    let tiny = pivot_floor(a, n)?;
    eliminate(a, perm, n, (0, ns), tiny)?;
    eliminate(a, perm, n, (ns, n), tiny)
}

/// [`factor_lower`] for matrices whose rows have short nonzero spans (banded, as the reordered
/// step systems of chains), recording those spans in `spans` (`4n` entries) for
/// [`solve_banded`].
///
/// Within each diagonal block (`[0, ns)`, `[ns, n)`), every row's first and one-past-last
/// nonzero column are found once; then the pivot search and the row operations for column `k`
/// visit only the rows whose first nonzero is at or before `k` (no other row has a nonzero
/// there, nor gets one), and each row operation stops at the pivot row's last nonzero, which
/// it passes on to the row it updates. With partial pivoting, a band of lower width `p` and
/// upper width `q` keeps lower width `p` and upper width at most `p + q`, so the work is
/// `O(n p (p + q))` instead of `O(n³)`. The results are the same as [`factor_lower`]'s: the
/// operations skipped are on zeros.
///
/// `spans`: `[first, last, b_first, b_last]`, `n` each: the span of row `r`'s nonzeros within
/// its diagonal block (`first[r]..last[r]`, after the row swaps), and for `r ≥ ns` within
/// the leading columns (the block `B`).
#[inline(always)]
pub(crate) fn factor_banded(
    a: &mut [f64],
    perm: &mut [usize],
    spans: &mut [usize],
    n: usize,
    ns: usize,
) -> Result<(), Singular> {
    debug_assert!(a.len() == n * n && perm.len() == n && spans.len() == 4 * n && ns <= n);
    let a = &mut a[..n * n];
    let tiny = pivot_floor(a, n)?;
    let (first, rest) = spans[..4 * n].split_at_mut(n);
    let (last, rest) = rest.split_at_mut(n);
    let (b_first, b_last) = rest.split_at_mut(n);
    for r in ns..n {
        let (f, l) = span(&a[r * n..r * n + ns]);
        (b_first[r], b_last[r]) = (f, l);
    }
    let mut spans = Spans {
        first,
        last,
        b_first,
        b_last,
    };
    eliminate_banded(a, perm, &mut spans, n, (0, ns), tiny)?;
    eliminate_banded(a, perm, &mut spans, n, (ns, n), tiny)
}

/// `P a Pᵀ` in place, for the row-major `len × len` matrix `a` and the permutation `P` of its
/// leading `swaps.len()` rows and columns given both as the swaps that produce it (in order,
/// as [`factor`]'s pivots) and as `at` (`at[k]`: the original index of the new `k`-th); `tmp`
/// is scratch of at least that length. The rows are swapped whole, then each row's leading
/// entries gathered through `tmp`: no second matrix.
pub(crate) fn permute_symmetric(
    a: &mut [f64],
    len: usize,
    (swaps, at): (&[usize], &[usize]),
    tmp: &mut [f64],
) {
    let ns = swaps.len();
    debug_assert!(at.len() == ns && tmp.len() >= ns && a.len() == len * len);
    permute_rows(a, len, swaps, true);
    let tmp = &mut tmp[..ns];
    for row in a.chunks_exact_mut(len) {
        for (t, &c) in tmp.iter_mut().zip(at) {
            *t = row[c];
        }
        row[..ns].copy_from_slice(tmp);
    }
}

/// Applies the swaps of a permutation (as in [`permute_symmetric`], or [`factor`]'s pivots) to
/// the rows of the row-major `· × r` matrix `x`, in order (`forward`: `x ← P x`) or in reverse
/// (`x ← Pᵀ x`).
pub(crate) fn permute_rows(x: &mut [f64], r: usize, swaps: &[usize], forward: bool) {
    let mut swap = |k: usize, p: usize| {
        if p != k {
            let (upper, lower) = x.split_at_mut(p * r);
            upper[k * r..(k + 1) * r].swap_with_slice(&mut lower[..r]);
        }
    };
    if forward {
        for (k, &p) in swaps.iter().enumerate() {
            swap(k, p);
        }
    } else {
        for (k, &p) in swaps.iter().enumerate().rev() {
            swap(k, p);
        }
    }
}

/// The row spans of [`factor_banded`].
struct Spans<'a> {
    first: &'a mut [usize],
    last: &'a mut [usize],
    b_first: &'a mut [usize],
    b_last: &'a mut [usize],
}

/// The first and one-past-last index of a nonzero of `row` (`(len, 0)` if there is none).
#[inline(always)]
fn span(row: &[f64]) -> (usize, usize) {
    let first = row.iter().position(|&x| x != 0.0).unwrap_or(row.len());
    let last = row.iter().rposition(|&x| x != 0.0).map_or(0, |j| j + 1);
    (first, last)
}

/// [`eliminate`] on the block `[lo, hi)`, within the rows' spans (see [`factor_banded`]).
#[inline(always)]
fn eliminate_banded(
    a: &mut [f64],
    perm: &mut [usize],
    spans: &mut Spans<'_>,
    n: usize,
    (lo, hi): (usize, usize),
    tiny: f64,
) -> Result<(), Singular> {
    for r in lo..hi {
        let (f, l) = span(&a[r * n + lo..r * n + hi]);
        (spans.first[r], spans.last[r]) = (lo + f, lo + l);
    }
    // `perm[k]` holds, until pivot `k` overwrites it, the last row whose first nonzero is at
    // or before column `k` (rows below it are untouched by the eliminations up to `k`).
    for k in lo..hi {
        perm[k] = k;
    }
    for r in lo..hi {
        let c = spans.first[r];
        if c < hi {
            perm[c] = perm[c].max(r);
        }
    }
    let mut reach = lo;
    for k in lo..hi {
        reach = reach.max(perm[k]);
        perm[k] = reach;
    }
    for k in lo..hi {
        let bottom = perm[k];
        let p = pivot(a, n, k, bottom, tiny)?;
        perm[k] = p;
        if p != k {
            spans.first.swap(k, p);
            spans.last.swap(k, p);
            spans.b_first.swap(k, p);
            spans.b_last.swap(k, p);
        }
        let end = spans.last[k];
        let (done, rest) = a.split_at_mut((k + 1) * n);
        let pivot_row = &done[k * n + k..k * n + end];
        let inv = 1.0 / pivot_row[0];
        let tail = &pivot_row[1..];
        for (i, row) in rest[..(bottom - k) * n].chunks_exact_mut(n).enumerate() {
            let l = row[k] * inv;
            row[k] = l;
            if l != 0.0 {
                for (x, &u) in row[k + 1..end].iter_mut().zip(tail) {
                    *x -= l * u;
                }
                let last = &mut spans.last[k + 1 + i];
                *last = (*last).max(end);
            }
        }
    }
    Ok(())
}

/// [`solve_many_lower`] with the factors and the row spans of [`factor_banded`]: each row
/// operation runs over its row's span only.
#[inline(always)]
pub(crate) fn solve_banded(
    lu: &[f64],
    perm: &[usize],
    spans: &[usize],
    x: &mut [f64],
    (n, r, ns): (usize, usize, usize),
) {
    debug_assert!(lu.len() == n * n && perm.len() == n && x.len() == n * r && ns <= n);
    let lu = &lu[..n * n];
    let x = &mut x[..n * r];
    let (first, rest) = spans[..4 * n].split_at(n);
    let (last, rest) = rest.split_at(n);
    let (b_first, b_last) = rest.split_at(n);
    permute_rows(x, r, &perm[..n], true);
    let forward = |x: &mut [f64], lo: usize, hi: usize| {
        for i in lo..hi {
            let from = first[i].min(i);
            subtract_rows(x, r, i, from, &lu[i * n + from..i * n + i], 1.0);
        }
    };
    let back = |x: &mut [f64], lo: usize, hi: usize| {
        for i in (lo..hi).rev() {
            let row = &lu[i * n..(i + 1) * n];
            let to = last[i].max(i + 1);
            subtract_rows(x, r, i, i + 1, &row[i + 1..to], 1.0 / row[i]);
        }
    };
    forward(x, 0, ns);
    back(x, 0, ns);
    if ns < n {
        for i in ns..n {
            let (from, to) = (b_first[i], b_last[i].max(b_first[i]));
            subtract_rows(x, r, i, from, &lu[i * n + from..i * n + to], 1.0);
        }
        forward(x, ns, n);
        back(x, ns, n);
    }
}

/// Solves `A x = b` in place (`b` becomes `x`) with the factors from [`factor`].
pub fn solve(lu: &[f64], perm: &[usize], b: &mut [f64], n: usize) {
    solve_inline(lu, perm, b, n)
}

/// [`solve`], inlined into its caller, where `n` is then a constant (the small saddle systems
/// of the projections, with [`factor_inline`]).
#[inline(always)]
pub(crate) fn solve_inline(lu: &[f64], perm: &[usize], b: &mut [f64], n: usize) {
    debug_assert!(lu.len() == n * n && perm.len() == n && b.len() == n);
    let lu = &lu[..n * n];
    let b = &mut b[..n];
    for k in 0..n {
        b.swap(k, perm[k]);
    }
    for (r, row) in lu.chunks_exact(n).enumerate() {
        let (solved, rest) = b.split_at_mut(r);
        rest[0] -= dot(&row[..r], solved);
    }
    for (r, row) in lu.chunks_exact(n).enumerate().rev() {
        let (head, solved) = b.split_at_mut(r + 1);
        head[r] = (head[r] - dot(&row[r + 1..], solved)) / row[r];
    }
}

/// Inverts the `n × n` row-major matrix `a` into `inv` (`a` is overwritten with scratch) by
/// Gauss-Jordan elimination with partial pivoting, in place: `n³` operations against the
/// `4n³/3` of [`factor`] and `n` [`solve`]s, and no division after each pivot's reciprocal. A
/// pivot below `n · ε · max|a|` (or a non-finite entry) is reported as [`Singular`], as by
/// [`factor`]. For the few rows whose inverse a step applies at every iteration (the coupled
/// step's nonholonomic Schur complement).
///
/// In place, column `k` of `a` becomes a column of the inverse at pivot `k` (the column of
/// `[A | I]`'s right half whose unit then stands in row `k`, updated by the same operations),
/// and the row swaps are undone on the columns at the end: the values of `[A | I]` reduced to
/// `[I | A⁻¹]` (up to the sign of zeros) with `n` instead of `n + (n − k)` entries per row and
/// pivot. The row operations take the pivot row as its own slice, without bounds checks.
// Inlined, so that `n` is the caller's constant: out of line, with `n` known only at run
// time, the compiler vectorized the row operations with masked loads and stores
// (`vmaskmovpd`), which AMD's cores execute slowly: the differential-drive robot's step
// (a 6 × 6 inverse) took 1.5 µs instead of 0.95 (EPYC, `-C target-cpu=native`).
#[inline(always)]
pub(crate) fn invert(a: &mut [f64], inv: &mut [f64], n: usize) -> Result<(), Singular> {
    let (a, inv) = (&mut a[..n * n], &mut inv[..n * n]);
    let tiny = pivot_floor(a, n)?;
    for k in 0..n {
        let p = pivot(a, n, k, n - 1, tiny)?;
        // The pivot rows, kept in `inv` (an integer below 2⁵³ as `f64`) until it is written.
        inv[k] = p as f64;
        let (above, rest) = a.split_at_mut(k * n);
        let (row_k, below) = rest.split_at_mut(n);
        let d = 1.0 / row_k[k];
        row_k[k] = 1.0;
        row_k.iter_mut().for_each(|x| *x *= d);
        let row_k = &*row_k;
        let eliminate = |row: &mut [f64]| {
            let f = row[k];
            row[k] = 0.0;
            if f != 0.0 {
                row.iter_mut().zip(row_k).for_each(|(x, &y)| *x -= f * y);
            }
        };
        above.chunks_exact_mut(n).for_each(eliminate);
        below.chunks_exact_mut(n).for_each(eliminate);
    }
    // `a` is now `(P A)⁻¹ = A⁻¹ Pᵀ` with the swaps of `P` in order: undo them on the columns.
    for k in (0..n).rev() {
        let p = inv[k] as usize;
        if p != k {
            a.chunks_exact_mut(n).for_each(|row| row.swap(k, p));
        }
    }
    inv.copy_from_slice(a);
    Ok(())
}

/// Solves `Aᵀ x = b` in place (`b` becomes `x`) with the factors of `A` from [`factor`].
pub fn solve_transposed(lu: &[f64], perm: &[usize], b: &mut [f64], n: usize) {
    debug_assert!(lu.len() == n * n && perm.len() == n && b.len() == n);
    let lu = &lu[..n * n];
    let b = &mut b[..n];
    // P A = L U, so Aᵀ = Uᵀ Lᵀ P: solve with Uᵀ (lower), then Lᵀ (unit upper), then undo P.
    // Each solved entry is taken out of the others with its (contiguous) row of the factors.
    for (k, row) in lu.chunks_exact(n).enumerate() {
        let (done, rest) = b.split_at_mut(k + 1);
        let x = done[k] / row[k];
        done[k] = x;
        for (bj, &u) in rest.iter_mut().zip(&row[k + 1..]) {
            *bj -= u * x;
        }
    }
    for (k, row) in lu.chunks_exact(n).enumerate().rev() {
        let (head, tail) = b.split_at_mut(k);
        let x = tail[0];
        for (bj, &l) in head.iter_mut().zip(&row[..k]) {
            *bj -= l * x;
        }
    }
    for k in (0..n).rev() {
        b.swap(k, perm[k]);
    }
}

/// Solves `A X = B` in place for `r` right-hand sides at once, with the factors from
/// [`factor`]: `x` is the `n × r` row-major matrix `B` and becomes `X`. See [`solve_many_lower`].
pub fn solve_many(lu: &[f64], perm: &[usize], x: &mut [f64], n: usize, r: usize) {
    solve_many_lower(lu, perm, x, n, r, n);
}

/// [`solve_many`] with the factors of [`factor_lower`] (the same `ns`; `ns = n` for the factors
/// of [`factor`]): solves with `A`, takes `B` times that solution from the lower rows, then
/// solves with `C`.
///
/// Each row of right-hand sides is updated in chunks of up to 32 columns held in registers
/// across the whole sum over the solved rows (`subtract_rows`), and zero factor
/// entries, common in the structured step systems, are skipped. Updating the row in memory,
/// one solved row at a time, chained every update through a store and a load (a third of the
/// solve's time on the 2-link chain's step Jacobian); a loop of [`solve`] calls is
/// latency-bound by its dot products.
#[inline(always)]
pub fn solve_many_lower(lu: &[f64], perm: &[usize], x: &mut [f64], n: usize, r: usize, ns: usize) {
    debug_assert!(lu.len() == n * n && perm.len() == n && x.len() == n * r && ns <= n);
    let lu = &lu[..n * n];
    let x = &mut x[..n * r];
    permute_rows(x, r, &perm[..n], true);
    // `x_i −= Σ_{j ∈ [lo, hi)} m_ij x_j` for the rows `i` in `rows`, `hi = i` unless given:
    // the forward substitution of a block (`lo` its first row) and, with `lo = 0` and the
    // stage rows solved, `B x_s`.
    let forward = |x: &mut [f64], rows: core::ops::Range<usize>, lo: usize, upto: Option<usize>| {
        for i in rows {
            let hi = upto.unwrap_or(i);
            subtract_rows(x, r, i, lo, &lu[i * n + lo..i * n + hi], 1.0);
        }
    };
    // Back substitution of the block `[lo, hi)`.
    let back = |x: &mut [f64], lo: usize, hi: usize| {
        for i in (lo..hi).rev() {
            let row = &lu[i * n..(i + 1) * n];
            subtract_rows(x, r, i, i + 1, &row[i + 1..hi], 1.0 / row[i]);
        }
    };
    forward(x, 0..ns, 0, None);
    back(x, 0, ns);
    if ns < n {
        forward(x, ns..n, 0, Some(ns));
        forward(x, ns..n, ns, None);
        back(x, ns, n);
    }
}

/// Chunks wider than four pay off where `f64` arithmetic is vectorised (x86-64, AArch64); on
/// targets without `f64` SIMD (thumbv7em computes `f64` in software) they only add code: 9 kB
/// of the Cortex-M4F image. The results are the same (each entry's sum runs in the same
/// order).
const WIDE_CHUNKS: bool = cfg!(any(target_arch = "x86_64", target_arch = "aarch64"));

/// `x_i ← scale (x_i − Σ_k m_k x_{j0 + k})` for row `i` of the row-major `· × r` matrix `x`,
/// skipping zero `m_k`, in column chunks ([`subtract_chunk`]) of 32, 16, 8, the last 5 to 7 or 2 to 3 together
/// ([`WIDE_CHUNKS`]), 4 and 1.
#[inline(always)]
fn subtract_rows(x: &mut [f64], r: usize, i: usize, j0: usize, m: &[f64], scale: f64) {
    let mut c = 0;
    while c < r {
        let left = r - c;
        if WIDE_CHUNKS && left >= 32 {
            subtract_chunk::<32>(x, r, (i, c), j0, m, scale);
            c += 32;
        } else if WIDE_CHUNKS && left >= 16 {
            subtract_chunk::<16>(x, r, (i, c), j0, m, scale);
            c += 16;
        } else if WIDE_CHUNKS && left >= 8 {
            subtract_chunk::<8>(x, r, (i, c), j0, m, scale);
            c += 8;
        } else if WIDE_CHUNKS && left > 4 {
            // The last 5 to 7 columns in one pass over `m` (the step Jacobian's `2N + U`
            // right-hand sides are often 7: 4 + 1 + 1 + 1 passes before).
            match left {
                5 => subtract_chunk::<5>(x, r, (i, c), j0, m, scale),
                6 => subtract_chunk::<6>(x, r, (i, c), j0, m, scale),
                _ => subtract_chunk::<7>(x, r, (i, c), j0, m, scale),
            }
            c = r;
        } else if left >= 4 {
            subtract_chunk::<4>(x, r, (i, c), j0, m, scale);
            c += 4;
        } else if WIDE_CHUNKS && left > 1 {
            match left {
                2 => subtract_chunk::<2>(x, r, (i, c), j0, m, scale),
                _ => subtract_chunk::<3>(x, r, (i, c), j0, m, scale),
            }
            c = r;
        } else {
            subtract_chunk::<1>(x, r, (i, c), j0, m, scale);
            c += 1;
        }
    }
}

/// [`subtract_rows`] on the `W` columns from `c`: the sum is accumulated in a `W`-array the
/// compiler keeps in registers.
#[inline(always)]
fn subtract_chunk<const W: usize>(
    x: &mut [f64],
    r: usize,
    (i, c): (usize, usize),
    j0: usize,
    m: &[f64],
    scale: f64,
) {
    let mut acc = [0.0f64; W];
    acc.copy_from_slice(&x[i * r + c..i * r + c + W]);
    for (k, &l) in m.iter().enumerate() {
        if l != 0.0 {
            let at = (j0 + k) * r + c;
            let xj = &x[at..at + W];
            for (a, &b) in acc.iter_mut().zip(xj) {
                *a -= l * b;
            }
        }
    }
    if scale != 1.0 {
        for a in acc.iter_mut() {
            *a *= scale;
        }
    }
    x[i * r + c..i * r + c + W].copy_from_slice(&acc);
}

/// `Σ x_i y_i` with four partial sums (independent chains the processor can overlap).
#[inline]
fn dot(x: &[f64], y: &[f64]) -> f64 {
    let mut acc = [0.0f64; 4];
    let mut xs = x.chunks_exact(4);
    let mut ys = y.chunks_exact(4);
    for (a, b) in (&mut xs).zip(&mut ys) {
        for i in 0..4 {
            acc[i] += a[i] * b[i];
        }
    }
    let mut s = (acc[0] + acc[1]) + (acc[2] + acc[3]);
    for (a, b) in xs.remainder().iter().zip(ys.remainder()) {
        s += a * b;
    }
    s
}

/// The inverse of a static `K × K` matrix, for the small blocks of the structured Newton
/// solves: applying it is a matrix-vector product (throughput-bound, vectorised) where
/// triangular solves would be latency-bound chains of dependent operations.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Factored<const K: usize> {
    inv: SMatrix<f64, K, K>,
    /// The matrix (and so its inverse) is diagonal: products scale entry by entry.
    diagonal: bool,
}

impl<const K: usize> Factored<K> {
    /// Inverts `m` by Gauss-Jordan elimination with partial pivoting; a pivot below
    /// `K · ε · max|m|` (or a non-finite entry) is reported as [`Singular`].
    pub(crate) fn new(m: &SMatrix<f64, K, K>) -> Result<Self, Singular> {
        // One pass over the entries (contiguous, column-major): finiteness, scale, and whether
        // anything lies off the diagonal.
        // Branch-free accumulations, so that the loop vectorises: a NaN or infinite entry fails
        // `a <= f64::MAX`; the matrix is diagonal when all its nonzeros are on the diagonal.
        let mut scale = 0.0f64;
        let mut finite = true;
        let mut nonzeros = 0usize;
        for &x in m.as_slice() {
            let a = x.abs();
            finite &= a <= f64::MAX;
            scale = if a > scale { a } else { scale };
            nonzeros += usize::from(x != 0.0);
        }
        let diagonal_nonzeros = (0..K).filter(|&k| m[(k, k)] != 0.0).count();
        let off_diagonal = nonzeros > diagonal_nonzeros;
        if !finite {
            return Err(Singular { column: 0 });
        }
        let tiny = scale * f64::EPSILON * (K as f64);
        // Diagonal matrices (point masses in Cartesian coordinates) invert entry by entry.
        if !off_diagonal {
            let mut inv = *m;
            for k in 0..K {
                let d = m[(k, k)];
                if d.abs() <= tiny || d == 0.0 {
                    return Err(Singular { column: k });
                }
                inv[(k, k)] = 1.0 / d;
            }
            return Ok(Self {
                inv,
                diagonal: true,
            });
        }
        let mut a = *m;
        let mut inv = SMatrix::<f64, K, K>::identity();
        for k in 0..K {
            let mut p = k;
            for r in k + 1..K {
                if a[(r, k)].abs() > a[(p, k)].abs() {
                    p = r;
                }
            }
            let pivot = a[(p, k)];
            if pivot.abs() <= tiny || pivot == 0.0 {
                return Err(Singular { column: k });
            }
            if p != k {
                a.swap_rows(k, p);
                inv.swap_rows(k, p);
            }
            // Multipliers of row k for every other row, then column-by-column updates
            // (contiguous in nalgebra's column-major storage) over the rows where a multiplier
            // is nonzero; columns whose row-k entry is zero are skipped. Diagonal, block-diagonal
            // and banded matrices (a chain's Schur complement is tridiagonal) are cheap.
            let d = 1.0 / pivot;
            let mut f: [f64; K] = core::array::from_fn(|r| a[(r, k)]);
            f[k] = 0.0;
            // (Up to K = 8 the whole column costs no more than finding the range: measured with
            // `chain_bench count`.)
            let (lo, hi) = if K > 8 {
                (
                    f.iter().position(|x| *x != 0.0).unwrap_or(0),
                    f.iter().rposition(|x| *x != 0.0).map_or(0, |r| r + 1),
                )
            } else {
                (0, K)
            };
            for m in [&mut a, &mut inv] {
                for col in m.as_mut_slice().chunks_exact_mut(K) {
                    let x = col[k] * d;
                    if x != 0.0 {
                        if hi - lo < K {
                            for (e, fr) in col[lo..hi].iter_mut().zip(&f[lo..hi]) {
                                *e -= fr * x;
                            }
                        } else {
                            for (e, fr) in col.iter_mut().zip(&f) {
                                *e -= fr * x;
                            }
                        }
                    }
                    col[k] = x;
                }
            }
        }
        Ok(Self {
            inv,
            diagonal: false,
        })
    }

    /// `‖m‖∞ ‖m⁻¹‖∞`, the condition number of `m` (given again: only the inverse is stored).
    pub(crate) fn condition(&self, m: &SMatrix<f64, K, K>) -> f64 {
        let norm = |a: &SMatrix<f64, K, K>| {
            (0..K).fold(0.0f64, |n, r| n.max(a.row(r).iter().map(|x| x.abs()).sum()))
        };
        norm(m) * norm(&self.inv)
    }

    /// Overwrites `x` with `m⁻¹ x`.
    pub(crate) fn solve(&self, x: &mut SVector<f64, K>) {
        if self.diagonal {
            for k in 0..K {
                x[k] *= self.inv[(k, k)];
            }
        } else {
            *x = self.inv * *x;
        }
    }

    /// `m⁻¹ b` for a block of right-hand sides.
    pub(crate) fn apply<const C: usize>(&self, b: &SMatrix<f64, K, C>) -> SMatrix<f64, K, C> {
        if self.diagonal {
            let mut out = *b;
            for k in 0..K {
                let d = self.inv[(k, k)];
                for c in 0..C {
                    out[(k, c)] *= d;
                }
            }
            out
        } else {
            self.inv * b
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `invert` gives the inverse (product with the matrix the identity to round-off) of
    /// matrices needing pivoting, sizes 1 to 9, and reports a singular one.
    #[test]
    fn invert_inverts_and_reports_singular_matrices() {
        for n in 1..=9usize {
            let m: [f64; 81] = core::array::from_fn(|k| {
                let (r, c) = (k / 9, k % 9);
                if r == c && r % 2 == 1 {
                    0.0
                } else {
                    ((r * 9 + c) as f64 * 0.61).sin() + if r == c { 0.5 } else { 0.0 }
                }
            });
            let mut a: [f64; 81] = core::array::from_fn(|k| {
                if k < n * n {
                    m[(k / n) * 9 + k % n]
                } else {
                    0.0
                }
            });
            let a0 = a;
            let mut inv = [0.0; 81];
            invert(&mut a, &mut inv, n).unwrap();
            for r in 0..n {
                for c in 0..n {
                    let p: f64 = (0..n).map(|k| a0[r * n + k] * inv[k * n + c]).sum();
                    let id = if r == c { 1.0 } else { 0.0 };
                    assert!((p - id).abs() < 1e-12, "n = {n}: ({r}, {c}) {p}");
                }
            }
        }
        let mut singular = [1.0, 2.0, 2.0, 4.0];
        assert!(invert(&mut singular, &mut [0.0; 4], 2).is_err());
        let mut not_finite = [1.0, f64::NAN, 0.0, 1.0];
        assert!(invert(&mut not_finite, &mut [0.0; 4], 2).is_err());
    }

    #[test]
    fn solves_a_system_needing_pivoting() {
        let a0 = [0.0, 2.0, 1.0, 1.0, 1.0, 0.0, 3.0, 0.0, 1.0];
        let x = [1.0, -2.0, 0.5];
        let mut b = [0.0; 3];
        for r in 0..3 {
            for c in 0..3 {
                b[r] += a0[r * 3 + c] * x[c];
            }
        }
        let mut a = a0;
        let mut perm = [0; 3];
        factor(&mut a, &mut perm, 3).unwrap();
        solve(&a, &perm, &mut b, 3);
        for k in 0..3 {
            assert!((b[k] - x[k]).abs() < 1e-14, "{b:?}");
        }
    }

    /// The band-restricted elimination (K > 8) inverts a tridiagonal matrix, and a dense one
    /// of the same size, to round-off.
    #[test]
    fn factored_inverts_banded_and_dense_matrices_above_eight() {
        const K: usize = 12;
        let tridiagonal = SMatrix::<f64, K, K>::from_fn(|r, c| match r.abs_diff(c) {
            0 => 2.0 + 0.1 * r as f64,
            1 => -1.0,
            _ => 0.0,
        });
        let dense = SMatrix::<f64, K, K>::from_fn(|r, c| {
            if r == c {
                4.0
            } else {
                ((r * K + c) as f64 * 0.7).sin()
            }
        });
        for m in [tridiagonal, dense] {
            let f = Factored::new(&m).unwrap();
            let x = SVector::<f64, K>::from_fn(|i, _| (i as f64 * 1.3).cos());
            let mut b = m * x;
            f.solve(&mut b);
            assert!((b - x).amax() < 1e-13, "{}", (b - x).amax());
        }
    }

    /// The one-pass scan: a NaN or infinite entry anywhere is refused, a matrix with nonzeros
    /// only on its diagonal takes the diagonal path, one off-diagonal entry the general one.
    #[test]
    fn factored_scan_finds_non_finite_and_diagonal_matrices() {
        for bad in [f64::NAN, f64::INFINITY, -f64::INFINITY] {
            let mut m = SMatrix::<f64, 3, 3>::identity();
            m[(2, 0)] = bad;
            assert!(Factored::new(&m).is_err());
            let mut m = SMatrix::<f64, 3, 3>::identity();
            m[(1, 1)] = bad;
            assert!(Factored::new(&m).is_err());
        }
        let d = SMatrix::<f64, 3, 3>::from_diagonal(&SVector::from([2.0, -4.0, 0.5]));
        assert!(Factored::new(&d).unwrap().diagonal);
        let mut m = d;
        m[(0, 2)] = 1e-300;
        let f = Factored::new(&m).unwrap();
        assert!(!f.diagonal);
        let mut x = SVector::from([1.0, 2.0, 3.0]);
        f.solve(&mut x);
        assert!((m * x - SVector::from([1.0, 2.0, 3.0])).amax() < 1e-15);
    }

    /// Several right-hand sides at once give what one solve per right-hand side gives, on a
    /// matrix that needs pivoting and has zero factor entries.
    #[test]
    fn solve_many_equals_solves_one_by_one() {
        let n = 6;
        let mut a = [0.0; 36];
        for i in 0..n {
            for j in 0..n {
                // Sparse, nonsymmetric, zero diagonal in row 0 (pivoting needed).
                if (i + 2 * j) % 3 != 0 || i == j + 1 {
                    a[i * n + j] = 1.0 + ((i * 7 + j * 3) % 5) as f64 - 0.3 * j as f64;
                }
            }
        }
        a[0] = 0.0;
        let mut lu_buf = a;
        let mut perm = [0usize; 6];
        factor(&mut lu_buf, &mut perm, n).unwrap();
        // Every width of the register chunks (32, 16, 8, 4, 1) and their combinations.
        for r in [1, 3, 4, 5, 8, 13, 16, 31, 32, 45, 67] {
            let mut many = [0.0; 6 * 67];
            let many = &mut many[..n * r];
            for (k, x) in many.iter_mut().enumerate() {
                *x = ((k * 5) % 7) as f64 - 2.5;
            }
            let b = many.to_vec();
            solve_many(&lu_buf, &perm, many, n, r);
            for c in 0..r {
                let mut one: [f64; 6] = core::array::from_fn(|i| b[i * r + c]);
                solve(&lu_buf, &perm, &mut one, n);
                for i in 0..n {
                    let (x, y) = (many[i * r + c], one[i]);
                    assert!(
                        (x - y).abs() <= 1e-13 * (1.0 + y.abs()),
                        "r = {r}: {x} vs {y}"
                    );
                }
                // And it solves A x = b.
                for i in 0..n {
                    let ax: f64 = (0..n).map(|j| a[i * n + j] * many[j * r + c]).sum();
                    assert!((ax - b[i * r + c]).abs() < 1e-12, "r = {r}, row {i}: {ax}");
                }
            }
        }
    }

    /// The transposed solve solves `Aᵀ x = b` with the factors of `A`.
    #[test]
    fn transposed_solve_solves_the_transpose() {
        let n = 5;
        let mut a = [0.0; 25];
        for i in 0..n {
            for j in 0..n {
                a[i * n + j] = ((i * 3 + j * 7) % 5) as f64 - 1.5 + if i == j { 0.0 } else { 0.2 };
            }
        }
        a[0] = 0.0;
        let mut lu_buf = a;
        let mut perm = [0usize; 5];
        factor(&mut lu_buf, &mut perm, n).unwrap();
        let b = [1.0, -2.0, 0.5, 3.0, -0.25];
        let mut x = b;
        solve_transposed(&lu_buf, &perm, &mut x, n);
        for j in 0..n {
            let atx: f64 = (0..n).map(|i| a[i * n + j] * x[i]).sum();
            assert!((atx - b[j]).abs() < 1e-12, "column {j}: {atx}");
        }
    }

    /// The two-block factorization of a block lower triangular matrix solves it: both blocks
    /// need pivoting (zero leading entries), and `B` is dense.
    #[test]
    fn block_lower_factors_solve_like_the_full_factorization() {
        let (n, ns, r) = (7, 4, 3);
        let mut a = [0.0; 49];
        for i in 0..n {
            for j in 0..n {
                if i < ns && j >= ns {
                    continue;
                }
                a[i * n + j] = 1.0 + ((i * 7 + j * 3) % 5) as f64 - 0.4 * j as f64;
            }
        }
        a[0] = 0.0;
        a[ns * n + ns] = 0.0;
        let mut b = [0.0; 21];
        for (k, x) in b.iter_mut().enumerate() {
            *x = ((k * 5) % 7) as f64 - 2.5;
        }
        let (mut full, mut blocks) = (a, a);
        let (mut pf, mut pb) = ([0usize; 7], [0usize; 7]);
        factor(&mut full, &mut pf, n).unwrap();
        factor_lower(&mut blocks, &mut pb, n, ns).unwrap();
        let (mut xf, mut xb) = (b, b);
        solve_many(&full, &pf, &mut xf, n, r);
        solve_many_lower(&blocks, &pb, &mut xb, n, r, ns);
        for c in 0..r {
            for i in 0..n {
                let (x, y) = (xb[i * r + c], xf[i * r + c]);
                assert!((x - y).abs() <= 1e-12 * (1.0 + y.abs()), "{x} vs {y}");
                let ax: f64 = (0..n).map(|j| a[i * n + j] * xb[j * r + c]).sum();
                assert!((ax - b[i * r + c]).abs() < 1e-12, "row {i}: {ax}");
            }
        }
    }

    /// A block lower triangular `n × n` matrix (leading block `ns`) with entries within `band`
    /// of the diagonal in each diagonal block (the first off-diagonals always, the others
    /// with probability 3/4; the diagonal zero every third row, so that pivots come from
    /// below) and a sparse `B`, from the seed `seed`.
    fn banded_test_matrix(n: usize, ns: usize, band: usize, seed: u64) -> [f64; 400] {
        let mut state = seed;
        let mut next = move || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) as f64 / (1u64 << 31) as f64
        };
        let mut a = [0.0; 400];
        for i in 0..n {
            for j in 0..n {
                let same_block = (i < ns) == (j < ns);
                let keep = if same_block {
                    i.abs_diff(j) <= band && (i != j || i % 3 != 1)
                } else {
                    i >= ns && (i + 2 * j) % 5 == 0
                };
                let x = next();
                if keep && (x < 0.75 || i.abs_diff(j) == 1) {
                    a[i * n + j] = 2.0 * next() - 1.0 + if i == j { 2.0 } else { 0.0 };
                }
            }
        }
        a
    }

    /// The banded factorization skips only operations on zeros: its factors are those of
    /// `factor_lower`, entry by entry, every entry outside a recorded span is zero, and the
    /// solves agree to round-off, on banded matrices of several widths (and a full width).
    #[test]
    fn banded_factors_equal_the_block_factors() {
        let mut factored = 0;
        for (seed, (n, ns, band)) in [(12, 8, 1), (12, 8, 2), (20, 13, 3), (20, 14, 19), (9, 9, 2)]
            .into_iter()
            .enumerate()
        {
            let a = banded_test_matrix(n, ns, band, seed as u64 + 1);
            let (mut plain, mut banded) = (a, a);
            let (mut pp, mut pb) = ([0usize; 20], [0usize; 20]);
            let mut spans = [0usize; 80];
            let plain_ok = factor_lower(&mut plain[..n * n], &mut pp[..n], n, ns);
            let banded_ok = factor_banded(
                &mut banded[..n * n],
                &mut pb[..n],
                &mut spans[..4 * n],
                n,
                ns,
            );
            assert_eq!(plain_ok, banded_ok, "seed {seed}");
            if plain_ok.is_err() {
                continue;
            }
            factored += 1;
            assert_eq!(pp, pb, "seed {seed}: pivots");
            assert_eq!(&plain[..n * n], &banded[..n * n], "seed {seed}: factors");
            for i in 0..n {
                let (lo, hi) = if i < ns { (0, ns) } else { (ns, n) };
                let (first, last) = (spans[i], spans[n + i]);
                for j in lo..hi {
                    if j < first.min(i) || j >= last.max(i + 1) {
                        assert_eq!(banded[i * n + j], 0.0, "seed {seed}: ({i}, {j}) outside");
                    }
                }
                if i >= ns {
                    for j in 0..ns {
                        if j < spans[2 * n + i] || j >= spans[3 * n + i] {
                            assert_eq!(banded[i * n + j], 0.0, "seed {seed}: B ({i}, {j})");
                        }
                    }
                }
            }
            let r = 3;
            let mut b = [0.0; 60];
            for (k, x) in b[..n * r].iter_mut().enumerate() {
                *x = ((k * 5) % 7) as f64 - 2.5;
            }
            let (mut xp, mut xb) = (b, b);
            solve_many_lower(&plain[..n * n], &pp[..n], &mut xp[..n * r], n, r, ns);
            solve_banded(
                &banded[..n * n],
                &pb[..n],
                &spans[..4 * n],
                &mut xb[..n * r],
                (n, r, ns),
            );
            for k in 0..n * r {
                let (x, y) = (xb[k], xp[k]);
                assert!(
                    (x - y).abs() <= 1e-13 * (1.0 + y.abs()),
                    "seed {seed}: {x} vs {y}"
                );
            }
            for c in 0..r {
                for i in 0..n {
                    let ax: f64 = (0..n).map(|j| a[i * n + j] * xb[j * r + c]).sum();
                    let want = b[i * r + c];
                    assert!(
                        (ax - want).abs() < 1e-10 * (1.0 + want.abs()),
                        "seed {seed}: row {i}"
                    );
                }
            }
        }
        assert_eq!(factored, 5, "every test matrix is regular");
    }

    /// The banded factorization reports what `factor_lower` reports: a singular block (a
    /// zero column below the diagonal, which no row in reach can fix; a rank-deficient pair
    /// of rows) at the same column, and a non-finite entry.
    #[test]
    fn banded_factorization_reports_singular_and_non_finite() {
        let (n, ns) = (12, 8);
        let base = banded_test_matrix(n, ns, 2, 7);
        type Spoil = fn(&mut [f64; 400], usize);
        let cases: [(&str, Spoil); 3] = [
            ("zero column", |a, n| {
                for r in 0..8 {
                    a[r * n + 5] = 0.0;
                }
            }),
            ("dependent rows", |a, n| {
                for c in 0..n {
                    a[10 * n + c] = 2.0 * a[9 * n + c];
                }
            }),
            ("not finite", |a, n| a[3 * n + 4] = f64::NAN),
        ];
        for (label, spoil) in cases {
            let mut a = base;
            spoil(&mut a, n);
            let (mut plain, mut banded) = (a, a);
            let (mut pp, mut pb) = ([0usize; 20], [0usize; 20]);
            let mut spans = [0usize; 80];
            let want = factor_lower(&mut plain[..n * n], &mut pp[..n], n, ns);
            let got = factor_banded(&mut banded[..n * n], &mut pb[..n], &mut spans[..48], n, ns);
            assert!(want.is_err(), "{label}: the test matrix must be singular");
            assert_eq!(got, want, "{label}");
        }
    }

    #[test]
    fn reports_singular_and_non_finite() {
        let mut a = [1.0, 2.0, 2.0, 4.0];
        let mut perm = [0; 2];
        assert_eq!(factor(&mut a, &mut perm, 2), Err(Singular { column: 1 }));
        let mut a = [1.0, f64::NAN, 2.0, 4.0];
        assert!(factor(&mut a, &mut perm, 2).is_err());
        // The pivot floor's scan runs in lanes of eight with a remainder: a non-finite entry
        // anywhere (each lane, the remainder) is found, and so is the largest entry.
        const N: usize = 5;
        for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            for k in 0..N * N {
                let mut a: [f64; N * N] =
                    core::array::from_fn(|i| if i % (N + 1) == 0 { 4.0 } else { 0.5 });
                a[k] = bad;
                let mut perm = [0; N];
                assert_eq!(
                    factor(&mut a, &mut perm, N),
                    Err(Singular { column: 0 }),
                    "{k}"
                );
            }
        }
        let mut a: [f64; N * N] =
            core::array::from_fn(|i| if i % (N + 1) == 0 { 1.0 } else { 0.0 });
        a[N * N - 1] = -1e300;
        assert_eq!(pivot_floor(&a, N), Ok(1e300 * f64::EPSILON * N as f64));
    }
}
