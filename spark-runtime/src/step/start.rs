//! What every step checks and forms at its start: the consistency of the state and the
//! quantities that do not depend on the unknowns.

use nalgebra::{SMatrix, SVector};

use crate::error::Error;
use crate::linalg::vector::max_abs;
use crate::model::{Lagrangian, State};
use crate::step::gradient::Gradient;
use crate::step::Problem;

/// Consistency of a state: constraint violations turned into a distance and a speed.
/// Each row is scaled by the norm of its row of `G` (`gq`, dense or sparse).
pub(crate) fn inconsistency<const N: usize, const M: usize>(
    g: &SVector<f64, M>,
    w: &SVector<f64, M>,
    gq: &impl Gradient<N, M>,
) -> (f64, f64) {
    let mut pos = 0.0f64;
    let mut vel = 0.0f64;
    let norms = gq.row_norms();
    for k in 0..M {
        let norm = norms[k];
        let scale = if norm > 0.0 { norm } else { 1.0 };
        pos = pos.max(g[k].abs() / scale);
        vel = vel.max(w[k].abs() / scale);
    }
    (pos, vel)
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
    pub fn new<Sys: Lagrangian<N, M, K>, const K: usize>(
        sys: &Sys,
        state: &State<N>,
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
    pub fn at<Sys: Lagrangian<N, M, K>, const K: usize>(sys: &Sys, state: &State<N>) -> Self {
        Self::new(sys, state, sys.constraint_gradient(state.t, &state.q).1)
    }
}

/// Checks the step start of a model with nonholonomic constraints: `g = 0`, `g_t + G v = 0`
/// and `k = 0` to `options.consistency_tolerance` (relative to `1 + max|q|`, resp.
/// `1 + max|v|`; the nonholonomic violation counts as a velocity, each row scaled by the norm
/// of its `k_v` row). Returns `G(t0, q0)`, or [`Error::InconsistentState`].
impl<Sys: Lagrangian<N, M, K>, const N: usize, const M: usize, const K: usize>
    Problem<'_, Sys, N, M, K>
{
    pub(crate) fn check_consistent(&self) -> Result<SMatrix<f64, M, N>, Error> {
        let (sys, state, options) = (self.sys, self.state, self.options);
        let (t0, q0, v0) = (state.t, state.q, state.v);
        let w0 = sys.velocity_constraint_jacobian(t0, &q0, &v0);
        let g0 = sys.constraints(t0, &q0);
        let (pos, mut vel) = inconsistency(&g0, &w0.w, &w0.wv);
        let k0 = sys.nonholonomic_jacobian(t0, &q0, &v0, &SVector::zeros());
        for l in 0..K {
            let norm = k0.kv.row(l).norm();
            let scale = if norm > 0.0 { norm } else { 1.0 };
            vel = vel.max(k0.k[l].abs() / scale);
        }
        let tol = options.consistency_tolerance;
        if pos <= tol * (1.0 + max_abs(&q0)) && vel <= tol * (1.0 + max_abs(&v0)) {
            Ok(w0.wv)
        } else {
            Err(Error::InconsistentState {
                position: pos,
                velocity: vel,
            })
        }
    }
}
