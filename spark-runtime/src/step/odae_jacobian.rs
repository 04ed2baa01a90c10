//! The Jacobian of one step of a Hamiltonian or DAE model, `(y0, z0, u) → (y1, z1)`, by the
//! implicit function theorem on the step's own converged equations (3.2a-h) of `odae.rs`.
//!
//! The stage equations `F_s(X; θ) = 0` (`X = (Y, Z, μ)`) do not involve the end-point unknowns
//! `(z1, μ_s̃)`, so the sensitivities follow in two solves per direction `δθ = (δy0, δz0, δu)`:
//!
//! 1. `δX = −F_s,X⁻¹ (∂F_s/∂θ δθ)` with the exact stage matrix at the solution (one LU), where
//!    `∂F_s/∂θ δθ` is, row by row: (3.2a) `−δy0 − h Σ_j a_ij v_u,j δu`; (3.2b)
//!    `p_u,i δu − δp0 − h Σ_j â_ij f_u,j δu − h ã_i0 r_y,0 δy0 − h Σ_{j≥1} ã_ij r_y,j δỸ_j^θ`;
//!    `g(Ỹ_i)/h`: `g_y,i δỸ_i^θ / h`, with `δỸ_j^θ = δy0 + h Σ_k ā_jk v_u,k δu` the direct
//!    change of the Lobatto-node positions;
//! 2. the end point, linearized with every stage quantity's change:
//!    `[[p_z, −b̃_s̃ r_λ], [w_z, 0]] [δz1; δμ_s̃] = −[p_y δy1 + p_u δu + δknown − h b̃_s̃ r_y δy1;
//!    w_y δy1 + g_y v_u δu]`, with `δy1 = δỸ_s̃` and `δknown` the change of
//!    `−p0 − h b̃_0 r_0 − h Σ_j b_j f_j − h Σ_{j≥1} b̃_j r_j`.

// Stage and block indices follow the paper's subscripts.
#![allow(clippy::needless_range_loop)]

use nalgebra::{SMatrix, SVector};

use crate::error::{Error, Phase};
use crate::linalg::layout::{flat, flat_square, zero_square, Layout};
use crate::linalg::lu;
use crate::linalg::saddle::solve_blocks;
use crate::model::blocks::InputJacobian;
use crate::model::{Inputs, Odae};
use crate::options::{Options, StepStats};
use crate::step::jacobian::StepJacobian;
use crate::step::odae::{fill_stage_matrix, solve, Converged, Point, StageLayout};
use crate::tableau::SparkTableau;

fn singular(phase: Phase) -> impl Fn(lu::Singular) -> Error {
    move |_| Error::SingularJacobian { phase }
}

/// One step of the SPARK method `tab` on a Hamiltonian or DAE model, with the Jacobian of the
/// step map with respect to `(y0, z0)` and the inputs (the state advanced by the step's own
/// code).
#[allow(clippy::type_complexity)]
pub(crate) fn step_with_jacobian<
    Sys,
    const N: usize,
    const M: usize,
    const S: usize,
    const U: usize,
>(
    tab: &SparkTableau<S>,
    sys: &Sys,
    h: f64,
    options: &Options,
    start: &Point<N, M>,
) -> Result<(Point<N, M>, StepStats, StepJacobian<N, U>), Error>
where
    Sys: Odae<N, M> + Inputs<N, U>,
{
    let (end, stats, c): (Point<N, M>, StepStats, Converged<N, M, S>) =
        solve(tab, sys, h, options, start)?;
    let st = tab.s_tilde;
    let (t0, y0, z0) = (start.t, start.y, start.z);
    let times: [f64; S] = core::array::from_fn(|i| t0 + tab.c[i] * h);
    let k0 = sys.kinematics_jacobian(t0, &y0, &z0);
    let u0: InputJacobian<N, U> = sys.input_jacobian(t0, &y0, &z0);
    let us: [InputJacobian<N, U>; S] =
        core::array::from_fn(|i| sys.input_jacobian(times[i], &c.ys[i], &c.zs[i]));
    // The end point's evaluations.
    let (t1, y1) = (end.t, end.y);
    let k1 = sys.kinematics_jacobian(t1, &y1, &c.z1);
    let w1 = sys.hidden_constraint(t1, &y1, &c.z1);
    let r1 = sys.reaction_jacobian(t1, &y1, &(c.mu_end / h));
    let gy1 = sys.position_constraints(t1, &y1).1;
    let u1: InputJacobian<N, U> = sys.input_jacobian(t1, &y1, &c.z1);
    let weight = tab.b_lob[st - 1];

    // The stage matrix at the solution, factored.
    type L<const N: usize, const M: usize, const S: usize> = StageLayout<N, M, S>;
    let k_len = <L<N, M, S> as Layout>::LEN;
    let mut jbuf = zero_square::<L<N, M, S>>();
    let jm = flat_square::<L<N, M, S>>(&mut jbuf);
    fill_stage_matrix(tab, h, &c.kin, &c.rea, &c.gy, jm);
    let mut pbuf = <L<N, M, S> as Layout>::fill(0usize);
    let perm = flat::<L<N, M, S>, usize>(&mut pbuf);
    lu::factor_inline(jm, perm, k_len).map_err(singular(Phase::Stages))?;

    let yc = |k: usize, b: usize| k * N + b;
    let zc = |k: usize, b: usize| S * N + k * N + b;
    let mc = |j: usize, l: usize| 2 * S * N + j * M + l;
    let mut out = StepJacobian::<N, U> {
        dq_dq: SMatrix::zeros(),
        dq_dv: SMatrix::zeros(),
        dv_dq: SMatrix::zeros(),
        dv_dv: SMatrix::zeros(),
        dq_du: SMatrix::zeros(),
        dv_du: SMatrix::zeros(),
    };
    let mut col = <L<N, M, S> as Layout>::fill(0.0);
    for dir in 0..2 * N + U {
        // The direction δθ = (δy0, δz0, δu).
        let mut dy0 = SVector::<f64, N>::zeros();
        let mut dz0 = SVector::<f64, N>::zeros();
        let mut du = SVector::<f64, U>::zeros();
        if dir < N {
            dy0[dir] = 1.0;
        } else if dir < 2 * N {
            dz0[dir - N] = 1.0;
        } else {
            du[dir - 2 * N] = 1.0;
        }
        let dv_direct: [SVector<f64, N>; S] = core::array::from_fn(|k| us[k].v_u * du);
        // Direct change of the Lobatto-node positions (slot j is node j + 1).
        let node_direct = |j: usize| {
            let mut d = dy0;
            for k in 0..S {
                d += dv_direct[k] * (h * tab.a_bar[j][k]);
            }
            d
        };
        let dp0 = k0.p_y * dy0 + k0.p_z * dz0 + u0.p_u * du;
        let rhs = flat::<L<N, M, S>, f64>(&mut col);
        for i in 0..S {
            let mut ra = -dy0;
            let mut rb = us[i].p_u * du - dp0 - c.rea[0].r_y * dy0 * (h * tab.a_til0[i]);
            for j in 0..S {
                ra -= dv_direct[j] * (h * tab.a[i][j]);
                rb -= us[j].f_u * du * (h * tab.a_hat[i][j]);
            }
            for j in 1..st {
                rb -= c.rea[j].r_y * node_direct(j - 1) * (h * tab.a_til[i][j - 1]);
            }
            for a in 0..N {
                rhs[yc(i, a)] = -ra[a];
                rhs[zc(i, a)] = -rb[a];
            }
            for l in 0..M {
                rhs[mc(i, l)] = if i < st {
                    -(c.gy[i] * node_direct(i))[l] / h
                } else {
                    0.0
                };
            }
        }
        lu::solve(jm, perm, rhs, k_len);
        let d_ys: [SVector<f64, N>; S] =
            core::array::from_fn(|k| SVector::from_fn(|b, _| rhs[yc(k, b)]));
        let d_zs: [SVector<f64, N>; S] =
            core::array::from_fn(|k| SVector::from_fn(|b, _| rhs[zc(k, b)]));
        let d_mu: [SVector<f64, M>; S] =
            core::array::from_fn(|j| SVector::from_fn(|l, _| rhs[mc(j, l)]));
        // The stage quantities' changes.
        let d_vs: [SVector<f64, N>; S] = core::array::from_fn(|k| {
            c.kin[k].v_y * d_ys[k] + c.kin[k].v_z * d_zs[k] + dv_direct[k]
        });
        let node = |j: usize| {
            let mut d = dy0;
            for k in 0..S {
                d += d_vs[k] * (h * tab.a_bar[j][k]);
            }
            d
        };
        let dy1 = node(st - 1);
        let mut dknown =
            -dp0 - (c.rea[0].r_y * dy0 + c.rea[0].r_l * d_mu[0] / h) * (h * tab.b_lob0);
        for j in 0..S {
            let df = c.kin[j].f_y * d_ys[j] + c.kin[j].f_z * d_zs[j] + us[j].f_u * du;
            dknown -= df * (h * tab.b[j]);
        }
        for j in 1..st {
            let dr = c.rea[j].r_y * node(j - 1) + c.rea[j].r_l * d_mu[j] / h;
            dknown -= dr * (h * tab.b_lob[j - 1]);
        }
        // The end point.
        let top = -(k1.p_y * dy1 + u1.p_u * du + dknown - r1.r_y * dy1 * (h * weight));
        let bottom = -(w1.w_y * dy1 + gy1 * (u1.v_u * du));
        let (dz1, _) = solve_blocks(&k1.p_z, &(r1.r_l * -weight), &w1.w_z, &top, &bottom)
            .map_err(singular(Phase::EndPoint))?;
        let (dq, dv) = (dy1, dz1);
        if dir < N {
            out.dq_dq.set_column(dir, &dq);
            out.dv_dq.set_column(dir, &dv);
        } else if dir < 2 * N {
            out.dq_dv.set_column(dir - N, &dq);
            out.dv_dv.set_column(dir - N, &dv);
        } else {
            out.dq_du.set_column(dir - 2 * N, &dq);
            out.dv_du.set_column(dir - 2 * N, &dv);
        }
    }
    if !out.is_finite() {
        return Err(Error::NonFiniteState);
    }
    Ok((end, stats, out))
}
