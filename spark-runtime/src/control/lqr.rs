//! Discrete LQR on the tangent space: one step of the Riccati recursion (finite horizons) and
//! the infinite-horizon gain from the discrete algebraic Riccati equation (DARE)
//! `P = Q + Aᵀ P A − Aᵀ P B (R + Bᵀ P B)⁻¹ Bᵀ P A`, `K = (R + Bᵀ P B)⁻¹ Bᵀ P A`, `u = −K z`.

use nalgebra::SMatrix;

use crate::control::dense::{cholesky, cholesky_solve, inverse};
use crate::control::error::ControlError;

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
    let pb = p_next * b;
    let s = r + b.tr_mul(&pb);
    let l = cholesky(&s).ok_or(ControlError::NotPositiveDefinite {
        what: "R + Bᵀ P B"
    })?;
    let gain = cholesky_solve(&l, &pb.tr_mul(a));
    let p = q + a.tr_mul(&(p_next * a)) - a.tr_mul(&pb) * gain;
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
    let finite = a.iter().chain(b.iter()).chain(q.iter()).chain(r.iter());
    if !finite.into_iter().all(|x| x.is_finite()) {
        return Err(ControlError::InvalidArgument {
            what: "a non-finite entry in A, B, Q or R",
        });
    }
    let lr = cholesky(r).ok_or(ControlError::NotPositiveDefinite { what: "R" })?;
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
            let polished = riccati_step(a, b, q, r, &hk)?;
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
