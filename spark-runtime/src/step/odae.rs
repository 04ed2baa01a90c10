//! One SPARK step for the overdetermined DAE (2.11) of Jay (2007), Definition 3.1:
//!
//! ```text
//! (3.2a) Y_i = y0 + h Σ_j a_ij v(T_j, Y_j, Z_j)                               i = 1..s
//! (3.2b) p(T_i, Y_i, Z_i) = p0 + h Σ_j â_ij f_j + h Σ_{j=0..s̃} ã_ij r(T̃_j, Ỹ_j, Λ_j)
//! (3.2c) Ỹ_i = y0 + h Σ_j ā_ij v_j,   (3.2d) 0 = g(T̃_i, Ỹ_i)                 i = 1..s̃
//! (3.2e) y1 = y0 + h Σ_j b_j v_j = Ỹ_s̃
//! (3.2f) p(t1, y1, z1) = p0 + h Σ_j b̂_j f_j + h Σ_{j=0..s̃} b̃_j r(T̃_j, Ỹ_j, Λ_j)
//! (3.2h) 0 = g_t(t1, y1) + g_y(t1, y1) v(t1, y1, z1)
//! ```
//!
//! As in the Lagrangian step, `ã_{i s̃} = 0` splits it into a stage solve for
//! `(Y, Z, hΛ_0..hΛ_{s̃-1})` and an end-point solve for `(z1, hΛ_s̃)`. The Newton unknowns for the
//! multipliers are `μ = hΛ` (the reaction is evaluated at `μ/h`, so `r` may be nonlinear in `λ`),
//! and the position constraints are divided by `h`: every block of the Newton matrix is O(1).
//! The multipliers start from the caller's guess, which matters when `r` is nonlinear in `λ`
//! (several roots); for mechanical models (`r = −Gᵀλ`) any guess works.

// Loops follow the paper's subscripts.
#![allow(clippy::needless_range_loop, clippy::too_many_arguments)]

use nalgebra::{SMatrix, SVector};

use crate::error::{Error, Phase};
use crate::linalg::attainable;
use crate::linalg::layout::{flat, flat_square, zero_square, Arr, Cat, Layout, Scalar};
use crate::linalg::lu;
use crate::linalg::newton::{Monitor, Verdict};
use crate::linalg::vector::max_abs;
use crate::model::blocks::{KinematicsJacobian, ReactionJacobian};
use crate::model::Odae;
use crate::options::{Options, StepStats};
use crate::step::start::inconsistency;
use crate::tableau::SparkTableau;

/// Stage unknowns: `Y_1..Y_S`, `Z_1..Z_S`, `μ_0..μ_{S-1}`.
pub(crate) type StageLayout<const N: usize, const M: usize, const S: usize> =
    Cat<Cat<Arr<Arr<Scalar, N>, S>, Arr<Arr<Scalar, N>, S>>, Arr<Arr<Scalar, M>, S>>;
/// End-point unknowns: `z1`, `μ_s̃`.
type EndLayout<const N: usize, const M: usize> = Cat<Arr<Scalar, N>, Arr<Scalar, M>>;

/// A point of the DAE: time, `y`, `z`, and the multiplier `λ` (guess on input, `Λ_s̃` on output).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Point<const N: usize, const M: usize> {
    /// Time.
    pub t: f64,
    /// `y`.
    pub y: SVector<f64, N>,
    /// `z`.
    pub z: SVector<f64, N>,
    /// `λ`.
    pub lambda: SVector<f64, M>,
}

/// Max-norm of the blocks of an update, each relative to its own scale (1 where the scale is 0).
fn scaled(d: f64, scale: f64) -> f64 {
    if scale > 0.0 {
        d / scale
    } else {
        d
    }
}

/// Advances `start` by `h` with the SPARK method `tab`; nothing is modified on error.
/// The exact Newton matrix of the stage equations (row-major, [`StageLayout`]) at the stage
/// evaluations `kin`, the reactions `rea` at the Lobatto nodes `0..s̃−1` and `g_y` at the nodes
/// `1..s̃`: rows (3.2a), (3.2b), `g(Ỹ_i)/h`, and `μ_i = guess` for unused multiplier slots.
pub(crate) fn fill_stage_matrix<const N: usize, const M: usize, const S: usize>(
    tab: &SparkTableau<S>,
    h: f64,
    kin: &[KinematicsJacobian<N>; S],
    rea: &[ReactionJacobian<N, M>; S],
    gy: &[SMatrix<f64, M, N>; S],
    jm: &mut [f64],
) {
    let st = tab.s_tilde;
    let k_len = <StageLayout<N, M, S> as Layout>::LEN;
    let yc = |k: usize, b: usize| k * N + b;
    let zc = |k: usize, b: usize| S * N + k * N + b;
    let mc = |j: usize, l: usize| 2 * S * N + j * M + l;
    let mut set = |row: usize, col: usize, x: f64| jm[row * k_len + col] += x;
    for i in 0..S {
        for k in 0..S {
            // ∂(3.2a)_i/∂(Y_k, Z_k).
            let mut ay = -kin[k].v_y * (h * tab.a[i][k]);
            if i == k {
                ay += SMatrix::<f64, N, N>::identity();
            }
            let az = -kin[k].v_z * (h * tab.a[i][k]);
            // ∂(3.2b)_i/∂(Y_k, Z_k): p at stage i, forces, reactions through Ỹ_j.
            let mut by = -kin[k].f_y * (h * tab.a_hat[i][k]);
            let mut bz = -kin[k].f_z * (h * tab.a_hat[i][k]);
            if i == k {
                by += kin[i].p_y;
                bz += kin[i].p_z;
            }
            for j in 1..st {
                let w = h * h * tab.a_til[i][j - 1] * tab.a_bar[j - 1][k];
                by -= rea[j].r_y * kin[k].v_y * w;
                bz -= rea[j].r_y * kin[k].v_z * w;
            }
            for a in 0..N {
                for b in 0..N {
                    set(yc(i, a), yc(k, b), ay[(a, b)]);
                    set(yc(i, a), zc(k, b), az[(a, b)]);
                    set(zc(i, a), yc(k, b), by[(a, b)]);
                    set(zc(i, a), zc(k, b), bz[(a, b)]);
                }
            }
            // ∂(g(Ỹ_i)/h)/∂(Y_k, Z_k) = ā_ik g_y v_{y,z}.
            if i < st {
                let cy = gy[i] * kin[k].v_y * tab.a_bar[i][k];
                let cz = gy[i] * kin[k].v_z * tab.a_bar[i][k];
                for l in 0..M {
                    for b in 0..N {
                        set(mc(i, l), yc(k, b), cy[(l, b)]);
                        set(mc(i, l), zc(k, b), cz[(l, b)]);
                    }
                }
            }
        }
        // ∂(3.2b)_i/∂μ_j = −ã_ij r_λ (the h of (3.2b) cancels the 1/h of Λ = μ/h).
        for j in 0..st {
            let w = if j == 0 {
                tab.a_til0[i]
            } else {
                tab.a_til[i][j - 1]
            };
            for a in 0..N {
                for l in 0..M {
                    set(zc(i, a), mc(j, l), -w * rea[j].r_l[(a, l)]);
                }
            }
        }
        if i >= st {
            for l in 0..M {
                set(mc(i, l), mc(i, l), 1.0);
            }
        }
    }
}

pub(crate) fn step<Sys: Odae<N, M>, const N: usize, const M: usize, const S: usize>(
    tab: &SparkTableau<S>,
    sys: &Sys,
    h: f64,
    options: &Options,
    start: &Point<N, M>,
) -> Result<(Point<N, M>, StepStats), Error> {
    solve(tab, sys, h, options, start).map(|(end, stats, _)| (end, stats))
}

/// The converged unknowns of a step and the model's evaluations there: what the step's
/// Jacobian (`odae_jacobian.rs`) needs.
pub(crate) struct Converged<const N: usize, const M: usize, const S: usize> {
    /// `Y_i`, `Z_i`.
    pub ys: [SVector<f64, N>; S],
    pub zs: [SVector<f64, N>; S],
    /// `v, p, f` and their derivatives at the stages.
    pub kin: [KinematicsJacobian<N>; S],
    /// The reactions at the Lobatto nodes `0..s̃−1` (node 0 is the step start).
    pub rea: [ReactionJacobian<N, M>; S],
    /// `g_y` at the Lobatto nodes `1..s̃` (slot `i` is node `i + 1`).
    pub gy: [SMatrix<f64, M, N>; S],
    /// `z1` and `μ_s̃`.
    pub z1: SVector<f64, N>,
    pub mu_end: SVector<f64, M>,
}

/// The step, with its converged unknowns.
#[allow(clippy::type_complexity)]
pub(crate) fn solve<Sys: Odae<N, M>, const N: usize, const M: usize, const S: usize>(
    tab: &SparkTableau<S>,
    sys: &Sys,
    h: f64,
    options: &Options,
    start: &Point<N, M>,
) -> Result<(Point<N, M>, StepStats, Converged<N, M, S>), Error> {
    let st = tab.s_tilde;
    let (t0, y0, z0) = (start.t, start.y, start.z);
    let finite = t0.is_finite()
        && y0.iter().chain(z0.iter()).all(|x| x.is_finite())
        && start.lambda.iter().all(|x| x.is_finite());
    if !finite {
        return Err(Error::NonFiniteState);
    }
    let (g0, gy0) = sys.position_constraints(t0, &y0);
    let hidden0 = sys.hidden_constraint(t0, &y0, &z0);
    let (pos, vel) = inconsistency(&g0, &hidden0.w, &gy0);
    let (v0, p0, _) = sys.kinematics(t0, &y0, &z0);
    let tol_c = options.consistency_tolerance;
    if !(pos <= tol_c * (1.0 + max_abs(&y0)) && vel <= tol_c * (1.0 + max_abs(&v0))) {
        return Err(Error::InconsistentState {
            position: pos,
            velocity: vel,
        });
    }
    let times: [f64; S] = core::array::from_fn(|i| t0 + tab.c[i] * h);
    let lob_times: [f64; S] = core::array::from_fn(|i| t0 + tab.c_lob[i] * h);
    let combine = |vs: &[SVector<f64, N>; S], coef: &[f64; S]| {
        let mut y = y0;
        for j in 0..S {
            y += vs[j] * (h * coef[j]);
        }
        y
    };
    let mu_guess = start.lambda * h;

    // ---- stage solve ---------------------------------------------------------------------------
    let mut ys = [y0; S];
    let mut zs = [z0; S];
    let mut mu = [mu_guess; S];
    let mut kin = [KinematicsJacobian::<N>::default(); S];
    // Reaction at Lobatto node j (0..s̃-1) and constraint Jacobian at node i+1 (i < s̃).
    let mut rea = [ReactionJacobian::<N, M>::default(); S];
    let mut gy = [SMatrix::<f64, M, N>::zeros(); S];
    let mut yl = [y0; S];
    let mut monitor = Monitor::new(Phase::Stages, options.max_iterations);
    let mut converged = false;
    let k_len = <StageLayout<N, M, S> as Layout>::LEN;
    // The attainable accuracy and the scratch of its estimate.
    let mut attainable = 0.0f64;
    let mut nbuf = <StageLayout<N, M, S> as Layout>::fill(0.0);
    let (mut wbuf, mut ybuf, mut zbuf) = (nbuf, nbuf, nbuf);
    loop {
        for i in 0..S {
            kin[i] = sys.kinematics_jacobian(times[i], &ys[i], &zs[i]);
        }
        let vs: [SVector<f64, N>; S] = core::array::from_fn(|i| kin[i].v);
        for i in 0..st {
            yl[i] = combine(&vs, &tab.a_bar[i]);
        }
        rea[0] = sys.reaction_jacobian(t0, &y0, &(mu[0] / h));
        for j in 1..st {
            rea[j] = sys.reaction_jacobian(lob_times[j - 1], &yl[j - 1], &(mu[j] / h));
        }
        let mut gvals = [SVector::<f64, M>::zeros(); S];
        for i in 0..st {
            let (g, gyi) = sys.position_constraints(lob_times[i], &yl[i]);
            gvals[i] = g;
            gy[i] = gyi;
        }
        if converged {
            break;
        }
        let mut jac = zero_square::<StageLayout<N, M, S>>();
        let mut rhs = <StageLayout<N, M, S> as Layout>::fill(0.0);
        let vscale = vs.iter().fold(max_abs(&v0), |m, v| m.max(max_abs(v))) * h.abs();
        let zscale = zs.iter().fold(max_abs(&z0), |m, z| m.max(max_abs(z)));
        {
            let r = flat::<StageLayout<N, M, S>, f64>(&mut rhs);
            let jm = flat_square::<StageLayout<N, M, S>>(&mut jac);
            fill_stage_matrix(tab, h, &kin, &rea, &gy, jm);
            let yc = |k: usize, b: usize| k * N + b;
            let zc = |k: usize, b: usize| S * N + k * N + b;
            let mc = |j: usize, l: usize| 2 * S * N + j * M + l;
            for i in 0..S {
                // (3.2a) residual.
                let mut ra = ys[i] - y0;
                for j in 0..S {
                    ra -= vs[j] * (h * tab.a[i][j]);
                }
                // (3.2b) residual.
                let mut rb = kin[i].p - p0;
                for j in 0..S {
                    rb -= kin[j].f * (h * tab.a_hat[i][j]);
                }
                rb -= rea[0].r * (h * tab.a_til0[i]);
                for j in 1..st {
                    rb -= rea[j].r * (h * tab.a_til[i][j - 1]);
                }
                for a in 0..N {
                    r[yc(i, a)] = -ra[a];
                    r[zc(i, a)] = -rb[a];
                }
                // Constraint rows; unused multiplier slots get μ = its guess.
                for l in 0..M {
                    r[mc(i, l)] = if i < st { -gvals[i][l] / h } else { 0.0 };
                }
            }
            // The attainable accuracy, at the first iterate's matrix (`attainable`): the
            // rounding of each row before the factorization overwrites the matrix.
            let first = monitor.iterations() == 0;
            let row_noise = flat::<StageLayout<N, M, S>, f64>(&mut nbuf);
            let (w, y, z) = (
                flat::<StageLayout<N, M, S>, f64>(&mut wbuf),
                flat::<StageLayout<N, M, S>, f64>(&mut ybuf),
                flat::<StageLayout<N, M, S>, f64>(&mut zbuf),
            );
            if first {
                let ymag = ys.iter().fold(max_abs(&y0), |m, y| m.max(max_abs(y)));
                for (j, c) in y.iter_mut().enumerate() {
                    *c = if j < S * N {
                        ymag
                    } else if j < 2 * S * N {
                        zscale
                    } else {
                        mu[(j - 2 * S * N) / M][(j - 2 * S * N) % M].abs()
                    };
                }
                let positions = mc(0, 0)..mc(st, 0);
                let position_scale = (1.0 + max_abs(&y0)) / h.abs();
                attainable::row_rounding(jm, y, (&positions, position_scale), row_noise);
                // In the units of the convergence test below.
                let (wy, wz) = (
                    1.0 / if vscale > 0.0 { vscale } else { 1.0 },
                    1.0 / if zscale > 0.0 { zscale } else { 1.0 },
                );
                for (j, wj) in w.iter_mut().enumerate() {
                    *wj = if j < S * N {
                        wy
                    } else if j < 2 * S * N {
                        wz
                    } else {
                        0.0
                    };
                }
            }
            let mut perm = <StageLayout<N, M, S> as Layout>::fill(0usize);
            let p = flat::<StageLayout<N, M, S>, usize>(&mut perm);
            lu::factor(jm, p, k_len).map_err(|_| monitor.singular())?;
            if first {
                attainable = attainable::propagated(jm, p, row_noise, w, y, z);
            }
            lu::solve(jm, p, r, k_len);
        }
        let mut delta = 0.0f64;
        for i in 0..S {
            for a in 0..N {
                ys[i][a] += rhs.0 .0[i][a];
                zs[i][a] += rhs.0 .1[i][a];
                delta = delta
                    .max(scaled(rhs.0 .0[i][a].abs(), vscale))
                    .max(scaled(rhs.0 .1[i][a].abs(), zscale));
            }
            for l in 0..M {
                mu[i][l] += rhs.1[i][l];
            }
        }
        let noise = 64.0 * f64::EPSILON * (1.0 + scaled(max_abs(&y0), vscale));
        let noise = monitor.attainable_floor(attainable, options.tolerance.max(noise), noise)?;
        if monitor.judge(delta / options.tolerance, noise / options.tolerance)?
            == Verdict::Converged
        {
            converged = true;
        }
    }
    let stage_iterations = monitor.iterations();

    // ---- end-point solve -----------------------------------------------------------------------
    let t1 = t0 + h;
    let y1 = yl[st - 1];
    let mut known = -p0 - rea[0].r * (h * tab.b_lob0);
    for j in 0..S {
        known -= kin[j].f * (h * tab.b[j]);
    }
    for j in 1..st {
        known -= rea[j].r * (h * tab.b_lob[j - 1]);
    }
    let weight = tab.b_lob[st - 1];
    let mut z1 = zs[S - 1];
    let mut mu_end = mu[st - 1];
    let mut monitor = Monitor::new(Phase::EndPoint, options.max_iterations);
    let e_len = <EndLayout<N, M> as Layout>::LEN;
    let mut end_noise = <EndLayout<N, M> as Layout>::fill(0.0);
    let (mut end_w, mut end_y, mut end_z) = (end_noise, end_noise, end_noise);
    let mut end_attainable = 0.0f64;
    loop {
        let k = sys.kinematics_jacobian(t1, &y1, &z1);
        let w = sys.hidden_constraint(t1, &y1, &z1);
        let re = sys.reaction_jacobian(t1, &y1, &(mu_end / h));
        let rho = k.p + known - re.r * (h * weight);
        let mut jac = zero_square::<EndLayout<N, M>>();
        let mut rhs = <EndLayout<N, M> as Layout>::fill(0.0);
        for a in 0..N {
            rhs.0[a] = -rho[a];
            for b in 0..N {
                jac.0[a].0[b] = k.p_z[(a, b)];
            }
            for l in 0..M {
                jac.0[a].1[l] = -weight * re.r_l[(a, l)];
                jac.1[l].0[a] = w.w_z[(l, a)];
            }
        }
        for l in 0..M {
            rhs.1[l] = -w.w[l];
        }
        let mut perm = <EndLayout<N, M> as Layout>::fill(0usize);
        {
            let jm = flat_square::<EndLayout<N, M>>(&mut jac);
            let p = flat::<EndLayout<N, M>, usize>(&mut perm);
            let r = flat::<EndLayout<N, M>, f64>(&mut rhs);
            let first = monitor.iterations() == 0;
            let row_noise = flat::<EndLayout<N, M>, f64>(&mut end_noise);
            let (w, y, z) = (
                flat::<EndLayout<N, M>, f64>(&mut end_w),
                flat::<EndLayout<N, M>, f64>(&mut end_y),
                flat::<EndLayout<N, M>, f64>(&mut end_z),
            );
            if first {
                let zmag = max_abs(&z1).max(max_abs(&z0));
                for (j, c) in y.iter_mut().enumerate() {
                    *c = if j < N { zmag } else { mu_end[j - N].abs() };
                }
                attainable::row_rounding(jm, y, (&(0..0), 0.0), row_noise);
                let wz = 1.0 / if zmag > 0.0 { zmag } else { 1.0 };
                for (j, wj) in w.iter_mut().enumerate() {
                    *wj = if j < N { wz } else { 0.0 };
                }
            }
            lu::factor(jm, p, e_len).map_err(|_| monitor.singular())?;
            if first {
                end_attainable = attainable::propagated(jm, p, row_noise, w, y, z);
            }
            lu::solve(jm, p, r, e_len);
        }
        let mut delta = 0.0f64;
        let zscale = max_abs(&z1).max(max_abs(&z0));
        for a in 0..N {
            z1[a] += rhs.0[a];
            delta = delta.max(scaled(rhs.0[a].abs(), zscale));
        }
        for l in 0..M {
            mu_end[l] += rhs.1[l];
        }
        let noise = 64.0 * f64::EPSILON;
        let noise =
            monitor.attainable_floor(end_attainable, options.tolerance.max(noise), noise)?;
        if monitor.judge(delta / options.tolerance, noise / options.tolerance)?
            == Verdict::Converged
        {
            break;
        }
    }
    let out = Point {
        t: t1,
        y: y1,
        z: z1,
        lambda: mu_end / h,
    };
    let finite = out
        .y
        .iter()
        .chain(out.z.iter())
        .chain(out.lambda.iter())
        .all(|x| x.is_finite());
    if !finite {
        return Err(Error::NonFiniteState);
    }
    Ok((
        out,
        StepStats {
            stage_iterations,
            end_iterations: monitor.iterations(),
            ..StepStats::default()
        },
        Converged {
            ys,
            zs,
            kin,
            rea,
            gy,
            z1,
            mu_end,
        },
    ))
}
