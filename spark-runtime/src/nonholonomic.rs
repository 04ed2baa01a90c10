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

/// Step-start quantities of the monolithic mixed steps (`mixed_step`, `emprk_step`) that do
/// not depend on the unknowns.
pub(crate) struct StepStart<const N: usize, const M: usize> {
    /// `t0`.
    pub t0: f64,
    /// `q0`.
    pub q0: SVector<f64, N>,
    /// `p0 = ∇_v L(t0, q0, v0)`.
    pub p0: SVector<f64, N>,
    /// `G(t0, q0)`.
    pub gq0: SMatrix<f64, M, N>,
}

impl<const N: usize, const M: usize> StepStart<N, M> {
    /// The quantities at `state`, with `gq0 = G(t0, q0)` already evaluated.
    pub fn new<Sys: Lagrangian<N, M>>(
        sys: &Sys,
        state: &crate::State<N>,
        gq0: SMatrix<f64, M, N>,
    ) -> Self {
        Self {
            t0: state.t,
            q0: state.q,
            p0: sys.momentum_force(state.t, &state.q, &state.v).0,
            gq0,
        }
    }

    /// The quantities at `state`, evaluating `G` (for the Jacobian tests).
    pub fn at<Sys: Lagrangian<N, M>>(sys: &Sys, state: &crate::State<N>) -> Self {
        Self::new(sys, state, sys.constraint_gradient(state.t, &state.q).1)
    }
}

/// Checks the step start of a model with nonholonomic constraints: `g = 0`, `g_t + G v = 0`
/// and `k = 0` to `options.consistency_tolerance` (relative to `1 + max|q|`, resp.
/// `1 + max|v|`; the nonholonomic violation counts as a velocity, each row scaled by the norm
/// of its `k_v` row). Returns `G(t0, q0)`, or [`crate::Error::InconsistentState`].
pub(crate) fn check_consistent<
    Sys: Nonholonomic<N, M, K>,
    const N: usize,
    const M: usize,
    const K: usize,
>(
    sys: &Sys,
    state: &crate::State<N>,
    options: &crate::Options,
) -> Result<SMatrix<f64, M, N>, crate::Error> {
    let (t0, q0, v0) = (state.t, state.q, state.v);
    let w0 = sys.velocity_constraint_jacobian(t0, &q0, &v0);
    let g0 = sys.constraints(t0, &q0);
    let (pos, mut vel) = crate::spark_step::inconsistency(&g0, &w0.w, &w0.wv);
    let k0 = sys.nonholonomic_jacobian(t0, &q0, &v0, &SVector::zeros());
    for l in 0..K {
        let norm = k0.kv.row(l).norm();
        let scale = if norm > 0.0 { norm } else { 1.0 };
        vel = vel.max(k0.k[l].abs() / scale);
    }
    let tol = options.consistency_tolerance;
    let max_abs = |x: &SVector<f64, N>| x.iter().fold(0.0f64, |m, e| m.max(e.abs()));
    if pos <= tol * (1.0 + max_abs(&q0)) && vel <= tol * (1.0 + max_abs(&v0)) {
        Ok(w0.wv)
    } else {
        Err(crate::Error::InconsistentState {
            position: pos,
            velocity: vel,
        })
    }
}
