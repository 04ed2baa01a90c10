//! Newton's method on a monolithic step system with a dense exact Jacobian, shared by the
//! mixed holonomic/nonholonomic step (`mixed_step`) and the EMPRK step (`emprk_step`).
//!
//! By default (`Options::simplified_newton`) the matrix is assembled and factored once, at the
//! starting iterate, and later iterations evaluate residuals only; an iteration that converges
//! slowly (rate above 1/2) or not at all is redone with full Newton from the same start.

use core::ops::Range;

use nalgebra::{SMatrix, SVector};

use crate::error::{Error, Phase};
use crate::linalg::attainable;
use crate::linalg::layout::{flat, flat_square, zero_square, Layout};
use crate::linalg::lu;
use crate::linalg::newton::{slow, with_fallback, SIMPLIFIED_MARGIN};
use crate::linalg::newton::{Monitor, Verdict};
use crate::linalg::vector::max_abs;
use crate::options::Options;

/// The problem: unknowns laid out by `L`, those in `velocities` are velocities (the
/// convergence test looks at them, relative to `vscale0` or their own size).
pub(crate) struct DenseProblem {
    /// The velocity unknowns: two ranges (either may be empty).
    pub velocities: [Range<usize>; 2],
    /// Velocity scale of the step start.
    pub vscale0: f64,
    /// Round-off scale of the velocity unknowns besides their size (`max|q0| / |h|`).
    pub noise_scale: f64,
    /// The rows that hold position constraints divided by `h` (`g(Q̃_j)/h`): their rounding is
    /// `ε (1 + |q0|) |G| / |h|`, far above what their terms in the velocities suggest.
    pub position_rows: Range<usize>,
    /// `(1 + max|q0|) / |h|`.
    pub position_scale: f64,
}

impl DenseProblem {
    /// The problem of a step of size `h` from `(q0, v0)` whose unknowns in `velocities` are
    /// velocities and whose rows `position_rows` are position constraints over `h`.
    pub(crate) fn at_step<const N: usize>(
        velocities: [Range<usize>; 2],
        position_rows: Range<usize>,
        q0: &SVector<f64, N>,
        v0: &SVector<f64, N>,
        h: f64,
    ) -> Self {
        Self {
            velocities,
            vscale0: max_abs(v0),
            noise_scale: max_abs(q0) / h.abs(),
            position_rows,
            position_scale: (1.0 + max_abs(q0)) / h.abs(),
        }
    }

    /// Whether unknown `j` is a velocity.
    fn is_velocity(&self, j: usize) -> bool {
        self.velocities.iter().any(|range| range.contains(&j))
    }

    /// The largest of `from` and `|x_j|` over the velocity unknowns `j`.
    fn max_velocity(&self, x: &[f64], from: f64) -> f64 {
        self.velocities
            .iter()
            .flat_map(|range| &x[range.clone()])
            .fold(from, |m, v| m.max(v.abs()))
    }

    /// The rounding of each residual row at the iterate `x` (velocity scale `vscale`; `scale`
    /// is scratch): see [`attainable::row_rounding`]; the velocity unknowns count with
    /// `vscale`, the others with their size.
    fn row_rounding(&self, jm: &[f64], x: &[f64], vscale: f64, scale: &mut [f64], out: &mut [f64]) {
        for (j, (c, xj)) in scale.iter_mut().zip(x).enumerate() {
            *c = if self.is_velocity(j) {
                vscale
            } else {
                xj.abs()
            };
        }
        attainable::row_rounding(jm, scale, (&self.position_rows, self.position_scale), out);
    }
}

/// Solves `F(x) = 0` from `init`; `assemble(x, r, jac)` writes `r = F(x)` and, when asked, the
/// row-major Jacobian. Returns the solution and the iterations spent (failed simplified
/// iterations included).
pub(crate) fn solve<L: Layout>(
    options: &Options,
    problem: &DenseProblem,
    init: impl Fn(&mut [f64]),
    mut assemble: impl FnMut(&[f64], &mut [f64], Option<&mut [f64]>),
) -> Result<(L::Of<f64>, u32), Error> {
    let len = L::LEN;
    let attempt = |simplified: bool| -> Result<(L::Of<f64>, u32), Error> {
        let mut xbuf = L::fill(0.0);
        let x = flat::<L, f64>(&mut xbuf);
        init(x);
        let mut rbuf = L::fill(0.0);
        let r = flat::<L, f64>(&mut rbuf);
        let mut jbuf = zero_square::<L>();
        let jm = flat_square::<L>(&mut jbuf);
        let mut pbuf = L::fill(0usize);
        let perm = flat::<L, usize>(&mut pbuf);
        let (mut nbuf, mut wbuf) = (L::fill(0.0), L::fill(0.0));
        let (mut ybuf, mut zbuf) = (L::fill(0.0), L::fill(0.0));
        let (row_noise, weight) = (flat::<L, f64>(&mut nbuf), flat::<L, f64>(&mut wbuf));
        let (y, z) = (flat::<L, f64>(&mut ybuf), flat::<L, f64>(&mut zbuf));
        for (j, w) in weight.iter_mut().enumerate() {
            *w = if problem.is_velocity(j) { 1.0 } else { 0.0 };
        }
        let mut monitor = Monitor::new(Phase::Stages, options.max_iterations);
        let mut factored = false;
        // The accuracy the iteration can attain at the last factored matrix.
        let mut attainable = 0.0f64;
        loop {
            let refactor = !(simplified && factored);
            assemble(x, r, if refactor { Some(&mut *jm) } else { None });
            for e in r.iter_mut() {
                *e = -*e;
            }
            if refactor {
                // The attainable accuracy at the first matrix of this attempt (see
                // `attainable::propagated`), before the factorization overwrites it.
                let first = !factored;
                if first {
                    let vscale = problem.max_velocity(x, problem.vscale0);
                    problem.row_rounding(jm, x, vscale, y, row_noise);
                }
                lu::factor(jm, perm, len).map_err(|_| monitor.singular())?;
                factored = true;
                if first {
                    attainable = attainable::propagated(jm, perm, row_noise, weight, y, z);
                }
            }
            lu::solve(jm, perm, r, len);
            let mut delta = 0.0f64;
            for (xi, di) in x.iter_mut().zip(r.iter()) {
                *xi += di;
            }
            delta = problem.max_velocity(r, delta);
            let vscale = problem.max_velocity(x, problem.vscale0);
            if vscale == 0.0 {
                break;
            }
            let margin = if simplified { SIMPLIFIED_MARGIN } else { 1.0 };
            let unit = options.tolerance * margin * vscale;
            let floor = 64.0 * f64::EPSILON * (vscale + problem.noise_scale);
            // Against the tolerance, or, where the velocities are tiny, the rounding of
            // positions as velocities: a system at rest is not ill-conditioned.
            let at_rest = 64.0 * f64::EPSILON * (vscale + problem.position_scale);
            let reference = (options.tolerance * vscale).max(at_rest);
            let noise = monitor.attainable_floor(attainable, reference, floor)?;
            if monitor.judge(delta / unit, noise / unit)? == Verdict::Converged {
                break;
            }
            if simplified && monitor.is_slow() {
                return Err(slow(Phase::Stages, monitor.iterations(), monitor.last()));
            }
        }
        Ok((xbuf, monitor.iterations()))
    };
    let ((x, iterations), failed) = with_fallback(options, attempt)?;
    Ok((x, iterations + failed))
}

/// Adds `s · m` to the block of the row-major `len × len` matrix `jm` at `(row, col)` (nothing
/// when `s = 0`): [`add_block_tr`] of a transposed copy.
pub(crate) fn add_block<const R: usize, const C: usize>(
    jm: &mut [f64],
    len: usize,
    row: usize,
    col: usize,
    m: &SMatrix<f64, R, C>,
    s: f64,
) {
    if s != 0.0 {
        add_block_tr(jm, len, row, col, &m.transpose(), s);
    }
}

/// Adds `s · mᵀ` to the block of the row-major `len × len` matrix `jm` whose top-left corner
/// is `(row, col)`: row `a` of the block is column `a` of `m`, contiguous like the row of
/// `jm`, so the inner loop vectorises.
pub(crate) fn add_block_tr<const R: usize, const C: usize>(
    jm: &mut [f64],
    len: usize,
    row: usize,
    col: usize,
    m: &SMatrix<f64, R, C>,
    s: f64,
) {
    if s == 0.0 {
        return;
    }
    // Columns of `m` as contiguous slices of its (column-major) storage: nalgebra's column
    // iterator kept the loop scalar (a sixth of a 16-link chain's step Jacobian).
    for (a, src) in m.as_slice().chunks_exact(R.max(1)).take(C).enumerate() {
        let dst = &mut jm[(row + a) * len + col..(row + a) * len + col + R];
        for (d, &x) in dst.iter_mut().zip(src) {
            *d += s * x;
        }
    }
}
