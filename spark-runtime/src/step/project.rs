//! Consistent initial values: moving a state onto the constraint manifold.

use nalgebra::{SMatrix, SVector};

use crate::error::{Error, Phase};
use crate::linalg::lu::Factored;
use crate::linalg::newton::{Monitor, Verdict};
use crate::linalg::saddle::solve_saddle2;
use crate::linalg::vector::max_abs;
use crate::model::saddle::SaddleStore;
use crate::model::{Lagrangian, Odae, State};

/// The change of least `W`-norm that removes the linearised violation `r` with gradient `G`:
/// `x = −W⁻¹ Gᵀ (G W⁻¹ Gᵀ)⁻¹ r` (`W = I` for `metric` `None`), from the inverses of `W` and of
/// the `M × M` Schur complement: the solution of `[[W, Gᵀ], [G, 0]] [x; y] = [0; −r]`.
/// (Formerly that saddle system's dense LU: for the cart-pole's `4 × 4` system a projection's
/// four factorizations were a fifth of an NMPC period.)
fn least_change<const N: usize, const M: usize>(
    metric: Option<&SMatrix<f64, N, N>>,
    gq: &SMatrix<f64, M, N>,
    r: &SVector<f64, M>,
    phase: Phase,
) -> Result<SVector<f64, N>, Error> {
    let singular = |_| Error::SingularJacobian { phase };
    let wg = match metric {
        Some(w) => Factored::new(w).map_err(singular)?.apply(&gq.transpose()),
        None => gq.transpose(),
    };
    let mut y = *r;
    Factored::new(&(gq * wg)).map_err(singular)?.solve(&mut y);
    Ok(-(wg * y))
}

/// Gauss-Newton for `r(x) = 0` by steps of least change in the metric `W(x)`: `eval(x)`
/// returns `(W, ∂r/∂x, r)` (`W = I` for `None`); stops at round-off (relative 1e-14) or fails
/// with the monitor's error after `max_iterations`.
#[allow(clippy::type_complexity)]
fn solve_least_change<const N: usize, const M: usize>(
    mut x: SVector<f64, N>,
    phase: Phase,
    max_iterations: u32,
    mut eval: impl FnMut(
        &SVector<f64, N>,
    ) -> (
        Option<SMatrix<f64, N, N>>,
        SMatrix<f64, M, N>,
        SVector<f64, M>,
    ),
) -> Result<SVector<f64, N>, Error> {
    let mut monitor = Monitor::new(phase, max_iterations);
    loop {
        let (metric, jac, r) = eval(&x);
        let dx = least_change(metric.as_ref(), &jac, &r, phase)?;
        x += dx;
        let scale = 1.0 + max_abs(&x);
        let unit = 1e-14 * scale;
        if monitor.judge(max_abs(&dx) / unit, 64.0 * f64::EPSILON * scale / unit)?
            == Verdict::Converged
        {
            return Ok(x);
        }
    }
}

/// A consistent state near `state`: `q` moved onto `g(t, q) = 0` by Gauss-Newton steps of least
/// Euclidean change, then `v` made to satisfy `g_t + G v = 0` with least change in kinetic
/// energy (metric `∂²L/∂v²`). Models with sparse factors ([`Lagrangian::SPARSE_SADDLE`]) take
/// [`project_sparse`]: `O(N + M)` stack, coordinates moved in the metric of the mass matrix.
pub(crate) fn project<Sys: Lagrangian<N, M, K>, const N: usize, const M: usize, const K: usize>(
    sys: &Sys,
    state: &State<N>,
) -> Result<State<N>, Error> {
    if !state.is_finite() {
        return Err(Error::NonFiniteState);
    }
    if Sys::SPARSE_SADDLE {
        return project_sparse(sys, state);
    }
    project_dense(sys, state)
}

/// [`project`] with dense saddle systems: its own frame, which holds `N × N` matrices, never
/// entered by models with sparse factors.
#[inline(never)]
fn project_dense<Sys: Lagrangian<N, M, K>, const N: usize, const M: usize, const K: usize>(
    sys: &Sys,
    state: &State<N>,
) -> Result<State<N>, Error> {
    let t = state.t;
    // Only what the iterations use: `g` and `G` (no constraint Hessians), the mass matrix (no
    // second derivatives of the forces), `w` and `∂w/∂v = G` (no `∂w/∂q`).
    let q = solve_least_change(state.q, Phase::ProjectPosition, 50, |q| {
        let (g, gq) = sys.constraint_gradient(t, q);
        (None, gq, g)
    })?;
    let v = solve_least_change(state.v, Phase::ProjectVelocity, 20, |v| {
        let w = sys.velocity_constraint(t, &q, v);
        (Some(sys.mass_force(t, &q, v).lvv), w.gq, w.w)
    })?;
    let out = State { t, q, v };
    if !out.is_finite() {
        return Err(Error::NonFiniteState);
    }
    Ok(out)
}

/// One Gauss-Newton step of least change in the mass-matrix metric `L` towards `r = 0` for a
/// residual with gradient `G`, from the sparse factors in `store`:
/// `dx = −L⁻¹ Gᵀ (G L⁻¹ Gᵀ)⁻¹ r`.
fn sparse_least_change<Sys: Lagrangian<N, M, K>, const N: usize, const M: usize, const K: usize>(
    sys: &Sys,
    store: &SaddleStore<N, M>,
    mut r: SVector<f64, M>,
) -> SVector<f64, N> {
    sys.saddle_schur_solve(store, &mut r);
    let mut dx = sys.saddle_g_tr(store, &r);
    sys.saddle_mass_solve(store, &mut dx);
    -dx
}

/// [`project`] for models with sparse factors ([`Lagrangian::SPARSE_SADDLE`]), in `O(N + M)`
/// memory: no `N × N` or `M × N` matrix is formed. Both Gauss-Newton iterations use the metric
/// of the mass matrix `L = ∂²L/∂v²` (the model's sparse `LDLᵀ` factors of `L` and of
/// `G L⁻¹ Gᵀ`, refactored at every iterate): the coordinates move with least change in
/// `δqᵀ L δq` (not Euclidean: the factors the model emits are those of `L`), the velocities with
/// least change in kinetic energy, as the dense path does.
fn project_sparse<Sys: Lagrangian<N, M, K>, const N: usize, const M: usize, const K: usize>(
    sys: &Sys,
    state: &State<N>,
) -> Result<State<N>, Error> {
    let (t, mut q, mut v) = (state.t, state.q, state.v);
    let mut store = SaddleStore::<N, M>::default();
    for (phase, cap) in [(Phase::ProjectPosition, 50), (Phase::ProjectVelocity, 20)] {
        let mut monitor = Monitor::new(phase, cap);
        loop {
            if !sys.saddle_factor((t, &q, &v), (t, &q), &mut store) {
                return Err(Error::SingularJacobian { phase });
            }
            let (x, dx) = if phase == Phase::ProjectPosition {
                let dq = sparse_least_change(sys, &store, sys.constraints(t, &q));
                q += dq;
                (q, dq)
            } else {
                let dv = sparse_least_change(sys, &store, sys.hidden_constraint(t, &q, &v).0);
                v += dv;
                (v, dv)
            };
            let scale = 1.0 + max_abs(&x);
            let unit = 1e-14 * scale;
            if monitor.judge(max_abs(&dx) / unit, 64.0 * f64::EPSILON * scale / unit)?
                == Verdict::Converged
            {
                break;
            }
        }
    }
    let out = State { t, q, v };
    if !out.is_finite() {
        return Err(Error::NonFiniteState);
    }
    Ok(out)
}

/// A consistent point near `(t, y, z)` of a DAE model: `y` moved onto `g(t, y) = 0` and `z` onto
/// `g_t + g_y v(t, y, z) = 0`, each by Gauss-Newton steps of least Euclidean change.
pub(crate) fn project_odae<Sys: Odae<N, M>, const N: usize, const M: usize>(
    sys: &Sys,
    t: f64,
    y: &SVector<f64, N>,
    z: &SVector<f64, N>,
) -> Result<(f64, SVector<f64, N>, SVector<f64, N>), Error> {
    let finite = t.is_finite() && y.iter().chain(z.iter()).all(|x| x.is_finite());
    if !finite {
        return Err(Error::NonFiniteState);
    }
    let y = solve_least_change(*y, Phase::ProjectPosition, 50, |y| {
        let (g, gy) = sys.position_constraints(t, y);
        (None, gy, g)
    })?;
    let z = solve_least_change(*z, Phase::ProjectVelocity, 50, |z| {
        let w = sys.hidden_constraint(t, &y, z);
        (None, w.w_z, w.w)
    })?;
    if !y.iter().chain(z.iter()).all(|x| x.is_finite()) {
        return Err(Error::NonFiniteState);
    }
    Ok((t, y, z))
}

/// A consistent state of a model with nonholonomic constraints too: `q` as in [`project`],
/// then `v` moved onto `g_t + G v = 0` and `k(t, q, v) = 0` together, with least change in
/// kinetic energy (Newton, since `k` may be nonlinear in `v`).
pub(crate) fn project_mixed<
    Sys: Lagrangian<N, M, K>,
    const N: usize,
    const M: usize,
    const K: usize,
>(
    sys: &Sys,
    state: &State<N>,
) -> Result<State<N>, Error> {
    // Positions (and a first velocity correction for the holonomic part) as without `k`.
    let mut out = project(sys, state)?;
    let (t, q) = (out.t, out.q);
    let zero_k = SVector::<f64, K>::zeros();
    let mut monitor = Monitor::new(Phase::ProjectVelocity, 20);
    loop {
        let w = sys.velocity_constraint_jacobian(t, &q, &out.v);
        let k = sys.nonholonomic_jacobian(t, &q, &out.v, &zero_k);
        let metric = sys.dynamics_jacobian(t, &q, &out.v).lvv;
        let (dv, _, _) = solve_saddle2(&metric, &w.wv, &k.kv, &SVector::zeros(), &-w.w, &-k.k)
            .map_err(|_| Error::SingularJacobian {
                phase: Phase::ProjectVelocity,
            })?;
        out.v += dv;
        let scale = 1.0 + max_abs(&out.v);
        let unit = 1e-14 * scale;
        if monitor.judge(max_abs(&dv) / unit, 64.0 * f64::EPSILON * scale / unit)?
            == Verdict::Converged
        {
            break;
        }
    }
    if !out.is_finite() {
        return Err(Error::NonFiniteState);
    }
    Ok(out)
}
