//! Consistent initial values: moving a state onto the constraint manifold.

use nalgebra::{SMatrix, SVector};

use crate::error::{Error, Phase};
use crate::integrator::max_abs;
use crate::layout::{flat, flat_square, zero_square, Arr, Cat, Layout, Scalar};
use crate::lu;
use crate::newton::{Monitor, Verdict};
use crate::nonholonomic::Nonholonomic;
use crate::state::State;
use crate::system::{Lagrangian, Odae};

type Saddle<const N: usize, const M: usize> = Cat<Arr<Scalar, N>, Arr<Scalar, M>>;

/// Solves `[[W, Gᵀ], [G, 0]] [x; y] = [0; -r]` and returns `x`: the change of least
/// `W`-norm that removes the linearised violation `r`.
fn least_change<const N: usize, const M: usize>(
    metric: &SMatrix<f64, N, N>,
    gq: &SMatrix<f64, M, N>,
    r: &SVector<f64, M>,
    phase: Phase,
) -> Result<SVector<f64, N>, Error> {
    let mut jac = zero_square::<Saddle<N, M>>();
    let mut rhs = <Saddle<N, M> as Layout>::fill(0.0);
    for a in 0..N {
        for b in 0..N {
            jac.0[a].0[b] = metric[(a, b)];
        }
        for l in 0..M {
            jac.0[a].1[l] = gq[(l, a)];
            jac.1[l].0[a] = gq[(l, a)];
        }
    }
    for l in 0..M {
        rhs.1[l] = -r[l];
    }
    let mut perm = <Saddle<N, M> as Layout>::fill(0usize);
    let n = <Saddle<N, M> as Layout>::LEN;
    {
        let jm = flat_square::<Saddle<N, M>>(&mut jac);
        let p = flat::<Saddle<N, M>, usize>(&mut perm);
        let x = flat::<Saddle<N, M>, f64>(&mut rhs);
        lu::factor(jm, p, n).map_err(|_| Error::SingularJacobian { phase })?;
        lu::solve(jm, p, x, n);
    }
    Ok(SVector::from(rhs.0))
}

/// A consistent state near `state`: `q` moved onto `g(t, q) = 0` by Gauss-Newton steps of least
/// Euclidean change, then `v` made to satisfy `g_t + G v = 0` with least change in kinetic
/// energy (metric `∂²L/∂v²`).
pub(crate) fn project<Sys: Lagrangian<N, M>, const N: usize, const M: usize>(
    sys: &Sys,
    state: &State<N>,
) -> Result<State<N>, Error> {
    if !state.is_finite() {
        return Err(Error::NonFiniteState);
    }
    let t = state.t;
    let mut q = state.q;
    let zero_m = SVector::<f64, M>::zeros();
    let identity = SMatrix::<f64, N, N>::identity();
    let mut monitor = Monitor::new(Phase::ProjectPosition, 50);
    loop {
        let c = sys.constraint_jacobian(t, &q, &zero_m);
        let dq = least_change(&identity, &c.gq, &c.g, Phase::ProjectPosition)?;
        q += dq;
        let scale = 1.0 + max_abs(&q);
        let unit = 1e-14 * scale;
        if monitor.judge(max_abs(&dq) / unit, 64.0 * f64::EPSILON * scale / unit)?
            == Verdict::Converged
        {
            break;
        }
    }
    let mut v = state.v;
    let mut monitor = Monitor::new(Phase::ProjectVelocity, 20);
    loop {
        let w = sys.velocity_constraint_jacobian(t, &q, &v);
        let metric = sys.dynamics_jacobian(t, &q, &v).lvv;
        let dv = least_change(&metric, &w.wv, &w.w, Phase::ProjectVelocity)?;
        v += dv;
        let scale = 1.0 + max_abs(&v);
        let unit = 1e-14 * scale;
        if monitor.judge(max_abs(&dv) / unit, 64.0 * f64::EPSILON * scale / unit)?
            == Verdict::Converged
        {
            break;
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
    let identity = SMatrix::<f64, N, N>::identity();
    let mut y = *y;
    let mut monitor = Monitor::new(Phase::ProjectPosition, 50);
    loop {
        let (g, gy) = sys.position_constraints(t, &y);
        let dy = least_change(&identity, &gy, &g, Phase::ProjectPosition)?;
        y += dy;
        let scale = 1.0 + max_abs(&y);
        let unit = 1e-14 * scale;
        if monitor.judge(max_abs(&dy) / unit, 64.0 * f64::EPSILON * scale / unit)?
            == Verdict::Converged
        {
            break;
        }
    }
    let mut z = *z;
    let mut monitor = Monitor::new(Phase::ProjectVelocity, 50);
    loop {
        let w = sys.hidden_constraint(t, &y, &z);
        let dz = least_change(&identity, &w.w_z, &w.w, Phase::ProjectVelocity)?;
        z += dz;
        let scale = 1.0 + max_abs(&z);
        let unit = 1e-14 * scale;
        if monitor.judge(max_abs(&dz) / unit, 64.0 * f64::EPSILON * scale / unit)?
            == Verdict::Converged
        {
            break;
        }
    }
    if !y.iter().chain(z.iter()).all(|x| x.is_finite()) {
        return Err(Error::NonFiniteState);
    }
    Ok((t, y, z))
}

type Saddle3<const N: usize, const M: usize, const K: usize> =
    Cat<Arr<Scalar, N>, Cat<Arr<Scalar, M>, Arr<Scalar, K>>>;

/// A consistent state of a model with nonholonomic constraints too: `q` as in [`project`],
/// then `v` moved onto `g_t + G v = 0` and `k(t, q, v) = 0` together, with least change in
/// kinetic energy (Newton, since `k` may be nonlinear in `v`).
pub(crate) fn project_mixed<
    Sys: Nonholonomic<N, M, K>,
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
    let n = <Saddle3<N, M, K> as Layout>::LEN;
    loop {
        let w = sys.velocity_constraint_jacobian(t, &q, &out.v);
        let k = sys.nonholonomic_jacobian(t, &q, &out.v, &zero_k);
        let metric = sys.dynamics_jacobian(t, &q, &out.v).lvv;
        let mut jac = zero_square::<Saddle3<N, M, K>>();
        let mut rhs = <Saddle3<N, M, K> as Layout>::fill(0.0);
        for a in 0..N {
            for b in 0..N {
                jac.0[a].0[b] = metric[(a, b)];
            }
            for l in 0..M {
                jac.0[a].1 .0[l] = w.wv[(l, a)];
                jac.1 .0[l].0[a] = w.wv[(l, a)];
            }
            for l in 0..K {
                jac.0[a].1 .1[l] = k.kv[(l, a)];
                jac.1 .1[l].0[a] = k.kv[(l, a)];
            }
        }
        for l in 0..M {
            rhs.1 .0[l] = -w.w[l];
        }
        for l in 0..K {
            rhs.1 .1[l] = -k.k[l];
        }
        let mut perm = <Saddle3<N, M, K> as Layout>::fill(0usize);
        {
            let jm = flat_square::<Saddle3<N, M, K>>(&mut jac);
            let p = flat::<Saddle3<N, M, K>, usize>(&mut perm);
            let x = flat::<Saddle3<N, M, K>, f64>(&mut rhs);
            lu::factor(jm, p, n).map_err(|_| Error::SingularJacobian {
                phase: Phase::ProjectVelocity,
            })?;
            lu::solve(jm, p, x, n);
        }
        let dv = SVector::<f64, N>::from(rhs.0);
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
