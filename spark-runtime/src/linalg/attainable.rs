//! The accuracy a Newton iteration can attain: the rounding of its residual, row by row,
//! propagated through the factored matrix. Near a configuration where the constraints lose
//! rank (a linkage's change point) this grows with the conditioning; the steps accept updates
//! down to it and fail (`SingularJacobian`) where it exceeds the tolerance by far
//! (`newton::ILL_CONDITIONED`), instead of returning a step on the wrong branch of motion.

use core::ops::Range;

use crate::linalg::lu;

/// The rounding of each residual row of a step system from its exact matrix `jm` (row-major,
/// square): `ε Σ_j |J_ij| scale_j`, with `scale_j` the size of unknown `j`'s terms; the rows
/// `positions.0`, position constraints divided by `h`, add `ε positions.1 · |G|`, with
/// `positions.1 = (1 + |q0|)/|h|` and `|G|` the largest entry of any of those rows. Not their
/// own: where the constraints lose rank a row of `G` vanishes, while `g`'s terms, and their
/// rounding, do not (with each row's own entries the four-bar's estimate was 20 to 60 times
/// too small).
pub(crate) fn row_rounding(
    jm: &[f64],
    scale: &[f64],
    (rows, position_scale): (&Range<usize>, f64),
    out: &mut [f64],
) {
    let len = out.len();
    let mut gradient = 0.0f64;
    for row in jm.chunks_exact(len).take(rows.end).skip(rows.start) {
        gradient = row.iter().fold(gradient, |m, a| m.max(a.abs()));
    }
    for (i, (row, o)) in jm.chunks_exact(len).zip(out.iter_mut()).enumerate() {
        let mut sum = 0.0f64;
        for (&a, &c) in row.iter().zip(scale) {
            sum += a.abs() * c;
        }
        if rows.contains(&i) {
            sum += gradient * position_scale;
        }
        *o = f64::EPSILON * sum;
    }
}

/// How far rounding of the residual (`noise`, per row) can move the unknowns, each measured
/// with `weight_j` (zero for unknowns that do not count): an estimate of
/// `max_i weight_i Σ_j |(J⁻¹)_ij| noise_j`, by the first step of Hager's 1-norm estimator
/// (LAPACK's `xLACON`) on `C = W J⁻¹ D`. `y = D J⁻ᵀ W 1/n` gives `‖y‖₁`, an average row sum
/// of `|C|` with the signs of `y`; `z = C sign(y)` gives each row of `C` summed with those signs.
/// Both are lower bounds of the worst case. It costs one solve with `J` and one with `Jᵀ`.
/// Further steps of the estimator changed no result of the four-bar scans
/// (`tests/suite/four_bar.rs`), and they cost 15 % of the bicycle's step. `jm` and `perm` are the
/// factors; `y` and `z` are scratch buffers. The steps estimate it once per solve, at the
/// first iterate's matrix: near the solution the matrix changes little, and at every
/// iteration the estimate cost 80 % of a Hamiltonian pendulum's step.
pub(crate) fn propagated(
    jm: &[f64],
    perm: &[usize],
    noise: &[f64],
    weight: &[f64],
    y: &mut [f64],
    z: &mut [f64],
) -> f64 {
    let len = noise.len();
    let counted = weight.iter().filter(|&&w| w != 0.0).count().max(1) as f64;
    for (yj, &w) in y.iter_mut().zip(weight) {
        *yj = w / counted;
    }
    lu::solve_transposed(jm, perm, y, len);
    let mut average = 0.0;
    for ((yj, zj), &n) in y.iter_mut().zip(z.iter_mut()).zip(noise) {
        *yj *= n;
        average += yj.abs();
        *zj = if *yj < 0.0 { -n } else { n };
    }
    lu::solve(jm, perm, z, len);
    z.iter()
        .zip(weight)
        .fold(average, |m, (x, w)| m.max(w * x.abs()))
}
