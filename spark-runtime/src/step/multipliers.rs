//! The constraint multipliers consistent with a state: the `λ` and `ψ` for which the
//! acceleration of the equations of motion keeps the state on its constraint manifold, and from
//! which the reaction forces follow.

use nalgebra::SVector;

use crate::error::{Error, Phase};
use crate::linalg::saddle::{solve_blocks, solve_saddle2};
use crate::model::saddle::SaddleStore;
use crate::model::{Lagrangian, Odae, State};
use crate::step::odae::Point;

/// The multipliers of the constraints at one state: `λ` of the `M` holonomic constraints and
/// `ψ` of the `K` nonholonomic ones. The reaction force on the coordinates is
/// `−G(t, q)ᵀ λ − k_v(t, q, v)ᵀ ψ` (for a Hamiltonian or DAE model: `r(t, q, λ)`, which is
/// `−Gᵀλ` for a Hamiltonian).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Multipliers<const M: usize, const K: usize> {
    /// `λ`: one per holonomic constraint.
    pub lambda: SVector<f64, M>,
    /// `ψ`: one per nonholonomic constraint.
    pub psi: SVector<f64, K>,
}

/// The step in `t` of the central differences that give the explicit time derivatives
/// (`∂²L/∂v∂t`, `∂w/∂t`, `∂k/∂t`): relative accuracy about 1e-10, and exactly zero where the
/// model does not depend on `t`.
fn time_step(t: f64) -> f64 {
    1e-5 * (1.0 + t.abs())
}

fn singular(_: crate::linalg::lu::Singular) -> Error {
    Error::SingularJacobian {
        phase: Phase::Stages,
    }
}

fn finite<const R: usize>(x: &SVector<f64, R>) -> bool {
    x.iter().all(|v| v.is_finite())
}

/// The multipliers consistent with `state` of a Lagrangian model: the solution of the index-1
/// system (`a = q''`)
///
/// ```text
/// [ L_vv  Gᵀ  k_vᵀ ] [a]   [ ∇_qL + Q − L_vq v − L_vt ]
/// [ G     0   0    ] [λ] = [ −(∂w/∂q) v − ∂w/∂t       ]      (w = g_t + G v)
/// [ k_v   0   0    ] [ψ]   [ −k_q v − k_t             ]
/// ```
pub(crate) fn lagrangian<Sys, const N: usize, const M: usize, const K: usize>(
    sys: &Sys,
    state: &State<N>,
) -> Result<Multipliers<M, K>, Error>
where
    Sys: Lagrangian<N, M, K>,
{
    accelerations(sys, state).map(|(_, m)| m)
}

/// The acceleration `a = q''` of the system above, with the multipliers.
pub(crate) fn accelerations<Sys, const N: usize, const M: usize, const K: usize>(
    sys: &Sys,
    state: &State<N>,
) -> Result<(SVector<f64, N>, Multipliers<M, K>), Error>
where
    Sys: Lagrangian<N, M, K>,
{
    if !state.is_finite() {
        return Err(Error::NonFiniteState);
    }
    if let Some(name) = sys.first_non_finite_parameter() {
        return Err(Error::NonFiniteParameter { name });
    }
    if K == 0 && Sys::SPARSE_SADDLE {
        if let Some(out) = sparse_accelerations(sys, state) {
            return out;
        }
    }
    dense_accelerations(sys, state)
}

/// `(f(t + δ) − f(t − δ)) / 2δ` for the time step `δ` of `t` ([`time_step`]); zero without
/// evaluating `f` when the model says nothing depends on `t` (`autonomous`).
fn centered<const R: usize>(
    autonomous: bool,
    t: f64,
    f: impl Fn(f64) -> SVector<f64, R>,
) -> SVector<f64, R> {
    if autonomous {
        return SVector::zeros();
    }
    let dt = time_step(t);
    (f(t + dt) - f(t - dt)) / (2.0 * dt)
}

/// [`accelerations`] from the model's sparse factors ([`Lagrangian::SPARSE_SADDLE`], `K = 0`):
/// `λ = S⁻¹ (G L⁻¹ top − bottom)`, `a = L⁻¹ (top − Gᵀ λ)` with `S = G L⁻¹ Gᵀ`, in `O(N + M)`
/// memory. `None` when the factorization fails (the dense path then reports why).
#[allow(clippy::type_complexity)]
fn sparse_accelerations<Sys, const N: usize, const M: usize, const K: usize>(
    sys: &Sys,
    state: &State<N>,
) -> Option<Result<(SVector<f64, N>, Multipliers<M, K>), Error>>
where
    Sys: Lagrangian<N, M, K>,
{
    let (t, q, v) = (state.t, state.q, state.v);
    let mut store = SaddleStore::<N, M>::default();
    if !sys.saddle_factor((t, &q, &v), (t, &q), &mut store) {
        return None;
    }
    let (_, f, lvq_v) = sys.momentum_force_lvq_v(t, &q, &v);
    let (_, wq_v) = sys.hidden_constraint(t, &q, &v);
    let lvt = centered(Sys::AUTONOMOUS, t, |s| sys.momentum_force(s, &q, &v).0);
    let wt = centered(Sys::AUTONOMOUS, t, |s| sys.hidden_constraint(s, &q, &v).0);
    let top = f - lvq_v - lvt;
    let bottom = -wq_v - wt;
    let mut x = top;
    sys.saddle_mass_solve(&store, &mut x);
    let mut lambda = sys.saddle_g(&store, &x) - bottom;
    sys.saddle_schur_solve(&store, &mut lambda);
    let mut a = top - sys.saddle_g_tr(&store, &lambda);
    sys.saddle_mass_solve(&store, &mut a);
    let psi = SVector::<f64, K>::zeros();
    Some(if finite(&a) && finite(&lambda) {
        Ok((a, Multipliers { lambda, psi }))
    } else {
        Err(Error::NonFiniteState)
    })
}

/// [`accelerations`] by a dense saddle solve: its own frame, with the `N × N` blocks.
#[inline(never)]
#[allow(clippy::type_complexity)]
fn dense_accelerations<Sys, const N: usize, const M: usize, const K: usize>(
    sys: &Sys,
    state: &State<N>,
) -> Result<(SVector<f64, N>, Multipliers<M, K>), Error>
where
    Sys: Lagrangian<N, M, K>,
{
    let (t, q, v) = (state.t, state.q, state.v);
    // The mass matrix and `L_vq v`, not the whole dynamics Jacobian.
    let d = sys.mass_force(t, &q, &v);
    let hidden = sys.velocity_constraint(t, &q, &v);
    let nh = sys.nonholonomic_jacobian(t, &q, &v, &SVector::zeros());
    let lvt = centered(Sys::AUTONOMOUS, t, |s| sys.momentum_force(s, &q, &v).0);
    let wt = centered(Sys::AUTONOMOUS, t, |s| sys.velocity_constraint(s, &q, &v).w);
    let kt = centered(Sys::AUTONOMOUS, t, |s| {
        sys.nonholonomic_constraints(s, &q, &v)
    });
    let top = d.f - d.lvq_v - lvt;
    let (a, lambda, psi) = solve_saddle2(
        &d.lvv,
        &hidden.gq,
        &nh.kv,
        &top,
        &(-hidden.wq_v - wt),
        &(-(nh.kq * v) - kt),
    )
    .map_err(singular)?;
    if finite(&a) && finite(&lambda) && finite(&psi) {
        Ok((a, Multipliers { lambda, psi }))
    } else {
        Err(Error::NonFiniteState)
    }
}

/// The multiplier consistent with `(t, y, z)` of a model given as the DAE (2.11): the solution
/// of `[[p_z, −r_λ], [w_z, 0]] [z'; λ] = [f + r − p_t − p_y v; −w_t − w_y v]` (`r` at the current
/// `λ`, Newton's method when `r` is not linear in `λ`; one step when it is).
pub(crate) fn odae<Sys: Odae<N, M>, const N: usize, const M: usize>(
    sys: &Sys,
    point: &Point<N, M>,
) -> Result<SVector<f64, M>, Error> {
    odae_rates(sys, point).map(|(_, _, lambda)| lambda)
}

/// The rates `(y', z')` of the DAE (2.11) at `(t, y, z)` and the consistent multiplier (see
/// [`odae`]): `y' = v(t, y, z)`, and `z'` from the same solve, at the converged `λ`.
#[allow(clippy::type_complexity)]
pub(crate) fn odae_rates<Sys: Odae<N, M>, const N: usize, const M: usize>(
    sys: &Sys,
    point: &Point<N, M>,
) -> Result<(SVector<f64, N>, SVector<f64, N>, SVector<f64, M>), Error> {
    let (t, y, z) = (point.t, point.y, point.z);
    let start_finite = t.is_finite() && finite(&y) && finite(&z);
    if !start_finite {
        return Err(Error::NonFiniteState);
    }
    if let Some(name) = sys.first_non_finite_parameter() {
        return Err(Error::NonFiniteParameter { name });
    }
    let kin = sys.kinematics_jacobian(t, &y, &z);
    let hidden = sys.hidden_constraint(t, &y, &z);
    let dt = time_step(t);
    let centered = |f: &dyn Fn(f64) -> f64| (f(t + dt) - f(t - dt)) / (2.0 * dt);
    let pt = SVector::<f64, N>::from_fn(|a, _| centered(&|s| sys.kinematics(s, &y, &z).1[a]));
    let wt =
        SVector::<f64, M>::from_fn(|l, _| centered(&|s| sys.hidden_constraint(s, &y, &z).w[l]));
    let bottom = -(hidden.w_y * kin.v) - wt;
    let mut lambda = SVector::<f64, M>::zeros();
    let mut rate = SVector::<f64, N>::zeros();
    for _ in 0..8 {
        let r = sys.reaction_jacobian(t, &y, &lambda);
        let top = kin.f + r.r - pt - kin.p_y * kin.v;
        // Solve for (z', Δλ): p_z z' − r_λ Δλ = top, w_z z' = bottom.
        let (dz, dl) =
            solve_blocks(&kin.p_z, &-r.r_l, &hidden.w_z, &top, &bottom).map_err(singular)?;
        lambda += dl;
        rate = dz;
        if !finite(&lambda) || !finite(&rate) {
            return Err(Error::NonFiniteState);
        }
        let size = 1.0 + lambda.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        if dl.iter().fold(0.0f64, |m, x| m.max(x.abs())) <= 1e-14 * size {
            break;
        }
    }
    Ok((kin.v, rate, lambda))
}
