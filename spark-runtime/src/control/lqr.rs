//! Discrete LQR on the tangent space: one step of the Riccati recursion (finite horizons) and
//! the infinite-horizon gain from the discrete algebraic Riccati equation (DARE)
//! `P = Q + Aᵀ P A − Aᵀ P B (R + Bᵀ P B)⁻¹ Bᵀ P A`, `K = (R + Bᵀ P B)⁻¹ Bᵀ P A`, `u = −K z`.

use nalgebra::SMatrix;

use crate::control::dense::{
    cholesky, cholesky_solve, inverse, is_schur_stable, is_symmetric_positive,
};
use crate::control::error::{require, ControlError};

/// Whether every entry of `m` is finite.
fn finite<const R: usize, const C: usize>(m: &SMatrix<f64, R, C>) -> bool {
    m.iter().all(|x| x.is_finite())
}

/// A discrete LQR solution: the gain `K` (`u = −K z`) and the cost-to-go `P` (`zᵀ P z`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lqr<const D: usize, const U: usize> {
    /// `K` (`U × D`).
    pub gain: SMatrix<f64, U, D>,
    /// `P` (`D × D`, symmetric).
    pub cost_to_go: SMatrix<f64, D, D>,
    /// Iterations used (doubling steps for [`dare`], 1 for [`riccati_step`]).
    pub iterations: usize,
}

/// One backward step of the Riccati recursion from the cost-to-go `p_next` at `k + 1`: the gain
/// and the cost-to-go at `k`, for `z⁺ = A z + B u` with the stage cost `zᵀQz + uᵀRu`.
///
/// Errors: [`ControlError::InvalidArgument`] when `A` or `B` has a non-finite entry, or `Q`,
/// `R` or `p_next` is not finite, symmetric and positive semidefinite
/// ([`is_symmetric_positive`]); [`ControlError::NotPositiveDefinite`] when `R + Bᵀ P B` is
/// singular (make `R` positive definite).
///
/// ```
/// use spark_runtime::control::lqr::riccati_step;
/// use spark_runtime::nalgebra::SMatrix;
/// let one = SMatrix::<f64, 1, 1>::identity();
/// // z⁺ = z + u, cost z² + u², terminal z²: K = 1/2, P = 3/2.
/// let s = riccati_step(&one, &one, &one, &one, &one).unwrap();
/// assert!((s.gain[0] - 0.5).abs() < 1e-15 && (s.cost_to_go[0] - 1.5).abs() < 1e-15);
/// ```
pub fn riccati_step<const D: usize, const U: usize>(
    a: &SMatrix<f64, D, D>,
    b: &SMatrix<f64, D, U>,
    q: &SMatrix<f64, D, D>,
    r: &SMatrix<f64, U, U>,
    p_next: &SMatrix<f64, D, D>,
) -> Result<Lqr<D, U>, ControlError> {
    require(
        finite(a) && finite(b),
        "A and B of the Riccati step must be finite",
    )?;
    require(
        is_symmetric_positive(q, false),
        "Q of the Riccati step must be finite, symmetric and positive semidefinite",
    )?;
    require(
        is_symmetric_positive(r, false),
        "R of the Riccati step must be finite, symmetric and positive semidefinite \
         (positive definite for a unique gain)",
    )?;
    require(
        is_symmetric_positive(p_next, false),
        "the cost-to-go P of the Riccati step must be finite, symmetric and positive semidefinite",
    )?;
    riccati_unchecked(a, b, q, r, p_next)
}

/// [`riccati_step`] after its checks.
fn riccati_unchecked<const D: usize, const U: usize>(
    a: &SMatrix<f64, D, D>,
    b: &SMatrix<f64, D, U>,
    q: &SMatrix<f64, D, D>,
    r: &SMatrix<f64, U, U>,
    p_next: &SMatrix<f64, D, D>,
) -> Result<Lqr<D, U>, ControlError> {
    let pb = p_next * b;
    let s = r + b.tr_mul(&pb);
    let l = cholesky(&s).ok_or(ControlError::NotPositiveDefinite {
        what: "R + Bᵀ P B"
    })?;
    let gain = cholesky_solve(&l, &pb.tr_mul(a));
    let p = q + a.tr_mul(&(p_next * a)) - a.tr_mul(&pb) * gain;
    if !(finite(&gain) && finite(&p)) {
        return Err(ControlError::NonFinite {
            what: "the Riccati step's gain or cost-to-go (an overflow: scale A, B, Q and R)",
        });
    }
    Ok(Lqr {
        gain,
        cost_to_go: (p + p.transpose()) * 0.5,
        iterations: 1,
    })
}

/// The infinite-horizon LQR of `z⁺ = A z + B u` with the cost `Σ zᵀQz + uᵀRu`: the stabilizing
/// solution of the DARE by the structured doubling algorithm (quadratic convergence; `(A, B)`
/// stabilizable, `(A, Q^½)` detectable, `R` positive definite), polished by one Riccati step.
///
/// The result is checked: the closed loop `A − B K` must be stable (spectral radius below 1,
/// [`is_schur_stable`]). An undetectable unstable mode (one `Q` does not weigh) makes `P = 0`
/// on it a solution of the equation that leaves the mode unstable: that is an error, not a
/// gain.
///
/// Errors: [`ControlError::InvalidArgument`] for a non-finite `A` or `B`, a `Q` that is not
/// finite, symmetric and positive semidefinite, an `R` that is not symmetric positive
/// definite, or a pair for which no stabilizing solution was found (`(A, B)` not stabilizable
/// or `(A, Q^½)` not detectable); [`ControlError::NoConvergence`] when the doubling iteration
/// does not converge.
///
/// ```
/// use spark_runtime::control::lqr::dare;
/// use spark_runtime::nalgebra::SMatrix;
/// let one = SMatrix::<f64, 1, 1>::identity();
/// // z⁺ = 2 z + u with no weight on z: u = 0 is "optimal" and unstable.
/// assert!(dare(&(one * 2.0), &one, &SMatrix::zeros(), &one).is_err());
/// // Weighing z, the gain stabilizes it: P = 2 + √5, K = 2P / (1 + P).
/// let lqr = dare(&(one * 2.0), &one, &one, &one).unwrap();
/// assert!((lqr.cost_to_go[0] - (2.0 + 5f64.sqrt())).abs() < 1e-12);
/// ```
///
/// ```
/// use spark_runtime::control::lqr::dare;
/// use spark_runtime::nalgebra::{Matrix2, Vector2};
/// // A double integrator sampled at 0.1 s.
/// let a = Matrix2::new(1.0, 0.1, 0.0, 1.0);
/// let b = Vector2::new(0.005, 0.1);
/// let lqr = dare(&a, &b, &Matrix2::identity(), &[[1.0]].into()).unwrap();
/// // The closed loop is stable: the spectral radius of A − B K is below 1.
/// let closed = a - b * lqr.gain;
/// assert!(closed.pow(200).amax() < 1e-3);
/// ```
pub fn dare<const D: usize, const U: usize>(
    a: &SMatrix<f64, D, D>,
    b: &SMatrix<f64, D, U>,
    q: &SMatrix<f64, D, D>,
    r: &SMatrix<f64, U, U>,
) -> Result<Lqr<D, U>, ControlError> {
    require(finite(a) && finite(b), "A and B of the DARE must be finite")?;
    require(
        is_symmetric_positive(q, false),
        "Q of the DARE must be finite, symmetric and positive semidefinite",
    )?;
    require(
        is_symmetric_positive(r, true),
        "R of the DARE must be finite, symmetric and positive definite",
    )?;
    let lr = cholesky(r).ok_or(ControlError::NotPositiveDefinite {
        what: "R of the DARE",
    })?;
    let id = SMatrix::<f64, D, D>::identity();
    // A_k, G_k = B R⁻¹ Bᵀ, H_k → P.
    let mut ak = *a;
    let mut gk = b * cholesky_solve(&lr, &b.transpose());
    let mut hk = (q + q.transpose()) * 0.5;
    for it in 1..=60 {
        let w = inverse(&(id + gk * hk)).ok_or(ControlError::NotPositiveDefinite {
            what: "I + G H in the doubling iteration",
        })?;
        let wa = w * ak;
        let a_next = ak * wa;
        let g_next = gk + ak * (w * gk) * ak.transpose();
        let h_next = hk + ak.tr_mul(&(hk * wa));
        let change = (h_next - hk).amax();
        ak = a_next;
        gk = (g_next + g_next.transpose()) * 0.5;
        hk = (h_next + h_next.transpose()) * 0.5;
        if !hk.iter().all(|x| x.is_finite()) {
            break;
        }
        if change <= 1e-15 * hk.amax() {
            let polished = riccati_unchecked(a, b, q, r, &hk)?;
            if !is_schur_stable(&(a - b * polished.gain)) {
                return Err(ControlError::InvalidArgument {
                    what: "the DARE has no stabilizing solution for these matrices: A − B K is \
                           unstable. Make (A, B) stabilizable (the inputs must reach every \
                           unstable mode) and (A, Q) detectable (Q must weigh every unstable mode)",
                });
            }
            return Ok(Lqr {
                iterations: it,
                ..polished
            });
        }
    }
    Err(ControlError::NoConvergence {
        what: "the doubling iteration of the DARE",
        iterations: 60,
    })
}
