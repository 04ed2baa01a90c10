//! Nonholonomic (velocity-level, non-integrable) constraints `k(t, q, v) = 0`.
//!
//! A model with `N` coordinates, `M` holonomic constraints `g(t, q) = 0` and `K` nonholonomic
//! constraints `k(t, q, v) = 0` obeys (Small 2011, (8.1a-e) = (7.1))
//!
//! ```text
//! q' = v
//! d/dt ∇_v L(t, q, v) = ∇_q L(t, q, v) − G(t, q)ᵀ λ − k_v(t, q, v)ᵀ ψ
//! 0 = g(t, q),   0 = g_t + G v,   0 = k(t, q, v)
//! ```
//!
//! The reaction force of the nonholonomic constraints is `−k_vᵀ ψ` ("ideal" constraints). The
//! step [`crate::mixed_step::step_mixed`] evaluates `k_vᵀ ψ` at the Gauss stages `(T_j, Q_j, V_j)`
//! with `Q_j = q0 + h Σ_l a_jl V_l`, so Newton's matrix needs its derivatives with respect to
//! `q` and to `v`, contracted with the multiplier: [`NonholonomicJacobian::hess_vq`] and
//! [`NonholonomicJacobian::hess_vv`]. The constraint rows themselves (`k` at the step end and
//! `b`-weighted moments of `k` at the stages) need only `k_q` and `k_v`. No second derivative
//! `∂²k/∂q∂q` is needed: `ψ` multiplies `k_v`, never `k_q`.

use nalgebra::{SMatrix, SVector};

use crate::system::Lagrangian;

/// The nonholonomic constraints and their derivatives at one point `(t, q, v)`, with the
/// second derivatives contracted with a multiplier vector `ψ` (passed to
/// [`Nonholonomic::nonholonomic_jacobian`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NonholonomicJacobian<const N: usize, const K: usize> {
    /// `k(t, q, v)` (K entries).
    pub k: SVector<f64, K>,
    /// `k_q = ∂k/∂q` (K × N): `kq[(l, b)] = ∂k_l/∂q_b`.
    pub kq: SMatrix<f64, K, N>,
    /// `k_v = ∂k/∂v` (K × N): `kv[(l, b)] = ∂k_l/∂v_b`. The reaction force is `−k_vᵀ ψ`.
    pub kv: SMatrix<f64, K, N>,
    /// `∂(k_vᵀ ψ)/∂q` (N × N): `hess_vq[(a, b)] = Σ_l ψ_l ∂²k_l/∂v_a∂q_b` (row: velocity index,
    /// column: coordinate). Zero when `k_v` does not depend on `q`.
    pub hess_vq: SMatrix<f64, N, N>,
    /// `∂(k_vᵀ ψ)/∂v` (N × N): `hess_vv[(a, b)] = Σ_l ψ_l ∂²k_l/∂v_a∂v_b`. Zero when `k` is
    /// affine in `v` (every example of the thesis).
    pub hess_vv: SMatrix<f64, N, N>,
}

impl<const N: usize, const K: usize> Default for NonholonomicJacobian<N, K> {
    fn default() -> Self {
        Self {
            k: SVector::zeros(),
            kq: SMatrix::zeros(),
            kv: SMatrix::zeros(),
            hess_vq: SMatrix::zeros(),
            hess_vv: SMatrix::zeros(),
        }
    }
}

/// A [`Lagrangian`] system with, in addition, `K` nonholonomic constraints `k(t, q, v) = 0`
/// and reaction force `−k_vᵀ ψ`.
///
/// `K = 0` is allowed: the model is then purely holonomic and
/// [`crate::mixed_step::step_mixed`] gives the same step as the holonomic Gauss-Lobatto SPARK
/// method. Every derivative must be exact: Newton's method relies on it.
pub trait Nonholonomic<const N: usize, const M: usize, const K: usize>: Lagrangian<N, M> {
    /// `k(t, q, v)`.
    fn nonholonomic_constraints(
        &self,
        t: f64,
        q: &SVector<f64, N>,
        v: &SVector<f64, N>,
    ) -> SVector<f64, K>;

    /// `k`, `k_q`, `k_v` and the second derivatives of `k_vᵀ psi` (see
    /// [`NonholonomicJacobian`]) at `(t, q, v)`.
    fn nonholonomic_jacobian(
        &self,
        t: f64,
        q: &SVector<f64, N>,
        v: &SVector<f64, N>,
        psi: &SVector<f64, K>,
    ) -> NonholonomicJacobian<N, K>;
}

/// A consistent state of a model with nonholonomic constraints: `g = 0`, `g_t + G v = 0` and
/// `k = 0` (what `Integrator::project` does for such models; `mechanics!` wires it in).
#[doc(hidden)]
pub fn project_consistent<
    Sys: Nonholonomic<N, M, K>,
    const N: usize,
    const M: usize,
    const K: usize,
>(
    sys: &Sys,
    state: &crate::State<N>,
) -> Result<crate::State<N>, crate::Error> {
    crate::project::project_mixed(sys, state)
}
