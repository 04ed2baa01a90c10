//! What every step checks and forms at its start: the consistency of the state and the
//! quantities that do not depend on the unknowns.

use nalgebra::{SMatrix, SVector};

use crate::error::Error;
use crate::linalg::vector::{max_abs, row_norm};
use crate::model::saddle::SaddleStore;
use crate::model::{Lagrangian, Odae, State};
use crate::step::gradient::Gradient;
use crate::step::Problem;

/// `k(t, q, v)` and `K_v = k_v(t, q, v)` ([`Lagrangian::nonholonomic_velocity_jacobian`]):
/// the model's `nonholonomic_jacobian` would form its two `N × N` second-derivative blocks
/// (14 kB of stack for the 10-mass chain) for nothing.
pub(crate) fn nonholonomic_rows<
    Sys: Lagrangian<N, M, K>,
    const N: usize,
    const M: usize,
    const K: usize,
>(
    sys: &Sys,
    t: f64,
    q: &SVector<f64, N>,
    v: &SVector<f64, N>,
) -> (SVector<f64, K>, SMatrix<f64, K, N>) {
    sys.nonholonomic_velocity_jacobian(t, q, v)
}

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

/// Checks the violations `(position, velocity)` of a state `(q, v)` against `tolerance`,
/// relative to `1 + max|q|`, resp. `1 + max|v|`, as every step checks its start:
/// [`Error::InconsistentState`] when either exceeds it or is NaN.
pub(crate) fn within_tolerance<const N: usize>(
    (position, velocity): (f64, f64),
    tolerance: f64,
    q: &SVector<f64, N>,
    v: &SVector<f64, N>,
) -> Result<(), Error> {
    if position <= tolerance * (1.0 + max_abs(q)) && velocity <= tolerance * (1.0 + max_abs(v)) {
        Ok(())
    } else {
        Err(Error::InconsistentState { position, velocity })
    }
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
    /// `f0 = ∇_q L(t0, q0, v0)` plus the model's forces (for the coupled step's predictor).
    pub f0: SVector<f64, N>,
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
        let (p0, f0) = sys.momentum_force(state.t, &state.q, &state.v);
        Self::with_momentum(state, p0, f0, gq0)
    }

    /// The quantities at `state` from `p0`, `f0` and `gq0` evaluated there.
    pub fn with_momentum(
        state: &State<N>,
        p0: SVector<f64, N>,
        f0: SVector<f64, N>,
        gq0: SMatrix<f64, M, N>,
    ) -> Self {
        Self {
            t0: state.t,
            q0: state.q,
            p0,
            f0,
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
            let norm = row_norm(&k0.kv, l);
            let scale = if norm > 0.0 { norm } else { 1.0 };
            vel = vel.max(k0.k[l].abs() / scale);
        }
        within_tolerance((pos, vel), options.consistency_tolerance, &q0, &v0)?;
        Ok(w0.wv)
    }
}

/// `max(a, b)` that keeps a NaN.
fn nan_max(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.max(b)
    }
}

/// The violations `(position, velocity)` of the state's constraints as the steps measure them
/// (each row of `g`, `g_t + G v` and `k` scaled by the norm of its gradient row), from
/// `O(N + M)` values: the row norms of `G` come from [`Lagrangian::constraint_row_norms`], so no
/// `M × N` matrix is formed for models with sparse factors.
fn violation<Sys: Lagrangian<N, M, K>, const N: usize, const M: usize, const K: usize>(
    sys: &Sys,
    state: &State<N>,
) -> (f64, f64) {
    let (t, q, v) = (state.t, &state.q, &state.v);
    let g = sys.constraints(t, q);
    let (w, _) = sys.hidden_constraint(t, q, v);
    let norms = sys.constraint_row_norms(t, q);
    let (mut pos, mut vel) = (0.0f64, 0.0f64);
    for l in 0..M {
        let scale = if norms[l] > 0.0 { norms[l] } else { 1.0 };
        pos = nan_max(pos, g[l].abs() / scale);
        vel = nan_max(vel, w[l].abs() / scale);
    }
    if K > 0 {
        let k = sys.nonholonomic_jacobian(t, q, v, &SVector::zeros());
        for l in 0..K {
            let norm = row_norm(&k.kv, l);
            let scale = if norm > 0.0 { norm } else { 1.0 };
            vel = nan_max(vel, k.k[l].abs() / scale);
        }
    }
    (pos, vel)
}

/// Checks that a Lagrangian state satisfies its constraints to `tolerance` (relative to
/// `1 + max|q|`, resp. `1 + max|v|`), as a step does at its start.
pub(crate) fn check_state<
    Sys: Lagrangian<N, M, K>,
    const N: usize,
    const M: usize,
    const K: usize,
>(
    sys: &Sys,
    state: &State<N>,
    tolerance: f64,
) -> Result<(), Error> {
    let (pos, vel) = violation(sys, state);
    if pos.is_nan() || vel.is_nan() {
        return Err(Error::NonFiniteEvaluation {
            what: "a constraint",
        });
    }
    within_tolerance((pos, vel), tolerance, &state.q, &state.v)
}

/// Checks that a point of a DAE model satisfies its constraints to `tolerance`, as its step
/// does at its start (relative to `1 + max|y|`, resp. `1 + max|v(t, y, z)|`).
pub(crate) fn check_odae_state<Sys: Odae<N, M>, const N: usize, const M: usize>(
    sys: &Sys,
    (t, y, z): (f64, &SVector<f64, N>, &SVector<f64, N>),
    tolerance: f64,
) -> Result<(), Error> {
    let (g, gy) = sys.position_constraints(t, y);
    let w = sys.hidden_constraint(t, y, z).w;
    let (v, _, _) = sys.kinematics(t, y, z);
    let (mut pos, mut vel) = (0.0f64, 0.0f64);
    for l in 0..M {
        let norm = row_norm(&gy, l);
        let scale = if norm > 0.0 { norm } else { 1.0 };
        pos = nan_max(pos, g[l].abs() / scale);
        vel = nan_max(vel, w[l].abs() / scale);
    }
    if pos.is_nan() || vel.is_nan() || !v.iter().all(|x| x.is_finite()) {
        return Err(Error::NonFiniteEvaluation {
            what: "a constraint or the velocity v(t, y, z)",
        });
    }
    within_tolerance((pos, vel), tolerance, y, &v)
}

/// Checks that the kinetic energy is positive definite at `state`: the mass matrix
/// `∂²L/∂v²` has a Cholesky factorization. Models with sparse factors
/// ([`Lagrangian::SPARSE_SADDLE`]) try their own `LDLᵀ` factors first (no `N × N` matrix); only
/// when those fail (an indefinite mass matrix, or constraints that lost rank) is the dense
/// matrix formed, to tell the two apart. Not inlined: the factors' store must not enlarge the
/// frame of the step that calls it.
#[inline(never)]
pub(crate) fn check_mass<
    Sys: Lagrangian<N, M, K>,
    const N: usize,
    const M: usize,
    const K: usize,
>(
    sys: &Sys,
    state: &State<N>,
) -> Result<(), Error> {
    if Sys::SPARSE_SADDLE {
        let mut store = SaddleStore::<N, M>::default();
        let (t, q, v) = (state.t, &state.q, &state.v);
        if sys.saddle_factor((t, q, v), (t, q), &mut store) {
            return Ok(());
        }
    }
    check_dense_mass(sys, state)
}

/// [`check_mass`] with the dense mass matrix: its own frame, left before the step is entered.
#[inline(never)]
fn check_dense_mass<Sys: Lagrangian<N, M, K>, const N: usize, const M: usize, const K: usize>(
    sys: &Sys,
    state: &State<N>,
) -> Result<(), Error> {
    let lvv = sys.mass_force(state.t, &state.q, &state.v).lvv;
    if !lvv.iter().all(|x| x.is_finite()) {
        return Err(Error::NonFiniteEvaluation {
            what: "the mass matrix",
        });
    }
    match nalgebra::linalg::Cholesky::new(lvv) {
        Some(_) => Ok(()),
        None => Err(Error::MassNotPositiveDefinite { t: state.t }),
    }
}

/// Beyond this magnitude a step's products (`h² f`, `|q|²` in a constraint) may overflow.
const HUGE: f64 = 1e150;

/// `true` when `x` is NaN, infinite or beyond [`HUGE`].
fn out_of_range<const R: usize>(x: &SVector<f64, R>, scale: f64) -> bool {
    x.iter().any(|v| {
        let size = (v * scale).abs();
        size.is_nan() || size > HUGE
    })
}

/// Why a step of `h` from a Lagrangian `state` failed, if its evaluations there say so (see
/// [`crate::Advance::diagnose`]): called on the error path only.
#[inline(never)]
#[cold]
pub(crate) fn diagnose<Sys: Lagrangian<N, M, K>, const N: usize, const M: usize, const K: usize>(
    sys: &Sys,
    h: f64,
    state: &State<N>,
) -> Option<Error> {
    let (t, q, v) = (state.t, &state.q, &state.v);
    if out_of_range(q, 1.0) || out_of_range(v, 1.0) || out_of_range(v, h) {
        return Some(Error::NonFiniteEvaluation {
            what: "the state (beyond 1e150)",
        });
    }
    let (p, f) = sys.momentum_force(t, q, v);
    if out_of_range(&p, 1.0) || out_of_range(&f, h) || out_of_range(&f, h * h) {
        return Some(Error::NonFiniteEvaluation {
            what: "the momentum or the generalized force (forces, inputs)",
        });
    }
    if out_of_range(&sys.constraints(t, q), 1.0) {
        return Some(Error::NonFiniteEvaluation {
            what: "a holonomic constraint",
        });
    }
    None
}

/// [`diagnose`] for a point of a DAE model.
pub(crate) fn diagnose_odae<Sys: Odae<N, M>, const N: usize, const M: usize>(
    sys: &Sys,
    h: f64,
    (t, y, z): (f64, &SVector<f64, N>, &SVector<f64, N>),
) -> Option<Error> {
    if out_of_range(y, 1.0) || out_of_range(z, 1.0) {
        return Some(Error::NonFiniteEvaluation {
            what: "the state (beyond 1e150)",
        });
    }
    let (v, p, f) = sys.kinematics(t, y, z);
    if out_of_range(&v, h) || out_of_range(&p, 1.0) || out_of_range(&f, h) {
        return Some(Error::NonFiniteEvaluation {
            what: "the velocity, momentum or force v, p, f (forces, inputs)",
        });
    }
    if out_of_range(&sys.position_constraints(t, y).0, 1.0) {
        return Some(Error::NonFiniteEvaluation {
            what: "a holonomic constraint",
        });
    }
    None
}
