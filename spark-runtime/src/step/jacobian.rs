//! The Jacobian of one step, `(q0, v0, u) → (q1, v1)`, by the implicit function theorem on the
//! converged step equations.
//!
//! The step equations are written as the monolithic system `F(x; q0, v0, u) = 0` of the mixed
//! step (`mixed.rs`: stage velocities, end velocity, scaled multipliers; with `K = 0` it is the
//! holonomic SPARK step, which `holonomic.rs` solves in two phases). At its solution `x*`,
//! `dx/dθ = −F_x⁻¹ F_θ` for `θ = (q0, v0, u)`: one LU factorization of the exact Newton matrix
//! `F_x` (the same assembly as the step's Newton iteration) and `2N + U` right-hand sides, built
//! row by row from the model's exact first and second derivatives:
//!
//! * momentum rows `ρ = ∇_vL(T*, Q*, V*) − p0 − h Σ w_j F_j + …` (`assembly.rs`): `∂ρ/∂q0` is
//!   the own momentum's `L_vq`, minus `L_vq` at the start, plus `w0 Σ μ0_k ∇²g_k(q0)`, plus the
//!   stage and Lobatto-node terms through `Q_j = q0 + …`
//!   (`StageEvaluations::momentum_start_coupling`); `∂ρ/∂v0 = −L_vv(t0, q0, v0)`;
//!   `∂ρ/∂u = ∂p*/∂u − ∂p0/∂u − h Σ w_j ∂F_j/∂u`;
//! * position-constraint rows `g(Q̃_j)/h`: `G̃_j / h`; the hidden constraint at the end:
//!   `∂w/∂q`; the nonholonomic rows: `k_q` at the end point and `Σ_j ω_ij k_q(T_j, Q_j, V_j)`.
//!
//! Then `q1 = q0 + h Σ b_j V_j` and `v1` give the four state blocks and the two input blocks.

// Stage and block indices follow the papers' subscripts.
#![allow(clippy::needless_range_loop)]

use nalgebra::{SMatrix, SVector};

use crate::error::Error;
use crate::linalg::layout::{flat, flat_square, zero_square, Layout};
use crate::linalg::lu;
use crate::model::blocks::InputJacobian;
use crate::model::{Inputs, Lagrangian, State};
use crate::options::StepStats;
use crate::step::assembly::{MomentumWeights, StageEvaluations};
use crate::step::holonomic::Retain;
use crate::step::mixed::{system_len, MixedLayout, MixedPoint, Offsets};
use crate::step::start::StepStart;
use crate::step::Problem;
use crate::tableau::SparkTableau;

/// The Jacobian of one step `(q0, v0, u) → (q1, v1)` (for Hamiltonian models `p` in place of
/// `v`), as returned by [`crate::Integrator::step_with_jacobian`]. `U` is the model's number of
/// inputs (zero allowed).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StepJacobian<const N: usize, const U: usize> {
    /// `∂q1/∂q0`.
    pub dq_dq: SMatrix<f64, N, N>,
    /// `∂q1/∂v0`.
    pub dq_dv: SMatrix<f64, N, N>,
    /// `∂v1/∂q0`.
    pub dv_dq: SMatrix<f64, N, N>,
    /// `∂v1/∂v0`.
    pub dv_dv: SMatrix<f64, N, N>,
    /// `∂q1/∂u`.
    pub dq_du: SMatrix<f64, N, U>,
    /// `∂v1/∂u`.
    pub dv_du: SMatrix<f64, N, U>,
}

impl<const N: usize, const U: usize> StepJacobian<N, U> {
    /// Whether every entry of every block is finite.
    pub fn is_finite(&self) -> bool {
        [
            self.dq_dq.as_slice(),
            self.dq_dv.as_slice(),
            self.dv_dq.as_slice(),
            self.dv_dv.as_slice(),
            self.dq_du.as_slice(),
            self.dv_du.as_slice(),
        ]
        .iter()
        .all(|m| m.iter().all(|x| x.is_finite()))
    }

    /// `J ξ` for a state direction `ξ = (δq, δv)` (inputs fixed).
    pub fn apply(
        &self,
        dq: &SVector<f64, N>,
        dv: &SVector<f64, N>,
    ) -> (SVector<f64, N>, SVector<f64, N>) {
        (
            self.dq_dq * dq + self.dq_dv * dv,
            self.dv_dq * dq + self.dv_dv * dv,
        )
    }
}

impl<Sys, const N: usize, const M: usize, const K: usize> Problem<'_, Sys, N, M, K>
where
    Sys: Lagrangian<N, M, K>,
{
    /// One step of the SPARK method `tab` with the Jacobian of the step map: the step is
    /// `step`'s own (the two-phase [`Problem::holonomic`] for `K = 0`, the coupled
    /// [`Problem::mixed`] for `K > 0`), and the Jacobian comes from its converged unknowns.
    pub fn spark_with_jacobian<const S: usize, const U: usize>(
        &self,
        tab: &SparkTableau<S>,
    ) -> Result<(State<N>, StepJacobian<N, U>, StepStats), Error>
    where
        Sys: Inputs<N, U>,
    {
        type L<const N: usize, const M: usize, const K: usize, const S: usize> =
            MixedLayout<N, M, K, S>;
        type O<const N: usize, const M: usize, const K: usize, const S: usize> =
            Offsets<N, M, K, S>;
        if K == 0 {
            let (next, stats, (vs, mus), mu_end) = self.holonomic_solution::<S, Retain>(tab)?;
            // The coupled system's unknowns from the two phases' (the same equations).
            let mut xbuf = <L<N, M, K, S> as Layout>::fill(0.0);
            let x = flat::<L<N, M, K, S>, f64>(&mut xbuf);
            for i in 0..S {
                x[O::<N, M, K, S>::v(i)..O::<N, M, K, S>::v(i) + N]
                    .copy_from_slice(vs[i].as_slice());
                if i < tab.s_tilde {
                    x[O::<N, M, K, S>::mu(i)..O::<N, M, K, S>::mu(i) + M]
                        .copy_from_slice(mus[i].as_slice());
                }
            }
            x[O::<N, M, K, S>::V1..O::<N, M, K, S>::V1 + N].copy_from_slice(next.v.as_slice());
            let end = O::<N, M, K, S>::mu(tab.s_tilde);
            x[end..end + M].copy_from_slice(mu_end.as_slice());
            let start = StepStart::at(self.sys, self.state);
            let jacobian = self.jacobian_at(tab, &start, x)?;
            Ok((next, jacobian, stats))
        } else {
            let (start, mut xbuf, iterations) = self.solve_mixed(tab)?;
            let x = flat::<L<N, M, K, S>, f64>(&mut xbuf);
            let next = self.mixed_state(tab, x)?;
            let jacobian = self.jacobian_at(tab, &start, x)?;
            let stats = StepStats {
                stage_iterations: iterations,
                end_iterations: 0,
            };
            Ok((next, jacobian, stats))
        }
    }

    /// The Jacobian of the step map at the converged unknowns `x` of the coupled system.
    fn jacobian_at<const S: usize, const U: usize>(
        &self,
        tab: &SparkTableau<S>,
        start: &StepStart<N, M>,
        x: &[f64],
    ) -> Result<StepJacobian<N, U>, Error>
    where
        Sys: Inputs<N, U>,
    {
        let (sys, h, state) = (self.sys, self.h, self.state);
        type L<const N: usize, const M: usize, const K: usize, const S: usize> =
            MixedLayout<N, M, K, S>;
        type O<const N: usize, const M: usize, const K: usize, const S: usize> =
            Offsets<N, M, K, S>;
        let len = system_len::<N, M, K, S>();

        // F_x at the solution, factored.
        let mut jbuf = zero_square::<L<N, M, K, S>>();
        let jm = flat_square::<L<N, M, K, S>>(&mut jbuf);
        let mut rbuf = <L<N, M, K, S> as Layout>::fill(0.0);
        let r = flat::<L<N, M, K, S>, f64>(&mut rbuf);
        self.assemble_mixed(tab, start, x, r, Some(&mut *jm));
        let mut pbuf = <L<N, M, K, S> as Layout>::fill(0usize);
        let perm = flat::<L<N, M, K, S>, usize>(&mut pbuf);
        lu::factor(jm, perm, len).map_err(|_| Error::SingularJacobian {
            phase: crate::error::Phase::Stages,
        })?;

        let pt: MixedPoint<N, M, K, S> = self.mixed_point(tab, start, x);
        let (t0, q0, v0) = (state.t, state.q, state.v);
        let d0 = sys.dynamics_jacobian(t0, &q0, &v0);
        let c0 = sys.constraint_jacobian(t0, &q0, &pt.mu0);
        let u0: InputJacobian<N, U> = sys.input_jacobian(t0, &q0, &v0);
        let us: [InputJacobian<N, U>; S] =
            core::array::from_fn(|i| sys.input_jacobian(pt.times[i], &pt.qs[i], &pt.vs[i]));
        let u1: InputJacobian<N, U> = sys.input_jacobian(pt.t1, &pt.q1, &pt.v1);
        let ev = StageEvaluations {
            h,
            a: &tab.a,
            a_bar: &tab.a_bar,
            p0: &start.p0,
            gq0: &start.gq0,
            mu0: &pt.mu0,
            dyns: &pt.dyns,
            nhs: &pt.nhs,
            nus: &pt.nus,
            cons: &pt.cons,
            mus: &pt.mus,
        };

        // The columns of −F_θ, one at a time: θ = q0_b (b < N), v0_b, u_k.
        let mut out: StepJacobian<N, U> = StepJacobian {
            dq_dq: SMatrix::identity(),
            dq_dv: SMatrix::zeros(),
            dv_dq: SMatrix::zeros(),
            dv_dv: SMatrix::zeros(),
            dq_du: SMatrix::zeros(),
            dv_du: SMatrix::zeros(),
        };
        let stage_weights = |i: usize| MomentumWeights::spark_stage(tab, i);
        let end_weights = MomentumWeights::spark_end(tab);
        // ∂/∂q0 of every row, as N × N blocks (rows of a block: the row's components).
        let momentum_dq = |own_lvq: &SMatrix<f64, N, N>, w: &MomentumWeights<'_, S>| {
            own_lvq - d0.lvq + c0.hess_mu * w.start + ev.momentum_start_coupling(w)
        };
        let momentum_du = |own: &InputJacobian<N, U>, w: &MomentumWeights<'_, S>| {
            let mut m = own.p_u - u0.p_u;
            for j in 0..S {
                m -= us[j].f_u * (h * w.force[j]);
            }
            m
        };
        let stage_dq: [SMatrix<f64, N, N>; S] =
            core::array::from_fn(|i| momentum_dq(&pt.dyns[i].lvq, &stage_weights(i)));
        let end_dq = momentum_dq(&pt.d1.lvq, &end_weights);
        let stage_du: [SMatrix<f64, N, U>; S] =
            core::array::from_fn(|i| momentum_du(&us[i], &stage_weights(i)));
        let end_du = momentum_du(&u1, &end_weights);
        let st = tab.s_tilde;
        let omega = |i: usize, j: usize| tab.b[j] * libm::pow(tab.c[j], (i - 1) as f64);

        let mut col = <L<N, M, K, S> as Layout>::fill(0.0);
        for c in 0..2 * N + U {
            let rhs = flat::<L<N, M, K, S>, f64>(&mut col);
            rhs.fill(0.0);
            // The column of −F_θ for parameter c.
            let mut put = |row: usize, value: f64| rhs[row] = -value;
            if c < N {
                let b = c;
                for i in 0..S {
                    for a in 0..N {
                        put(O::<N, M, K, S>::v(i) + a, stage_dq[i][(a, b)]);
                    }
                }
                for a in 0..N {
                    put(O::<N, M, K, S>::V1 + a, end_dq[(a, b)]);
                }
                for l in 0..M {
                    put(O::<N, M, K, S>::mu(0) + l, pt.w1.wq[(l, b)]);
                    for j in 0..st {
                        put(O::<N, M, K, S>::mu(j + 1) + l, pt.cons[j].gq[(l, b)] / h);
                    }
                }
                for l in 0..K {
                    put(O::<N, M, K, S>::nu(0) + l, pt.nh1.kq[(l, b)]);
                    for i in 1..S {
                        let mut s = 0.0;
                        for j in 0..S {
                            s += omega(i, j) * pt.nhs[j].kq[(l, b)];
                        }
                        put(O::<N, M, K, S>::nu(i) + l, s);
                    }
                }
            } else if c < 2 * N {
                // Only p0 depends on v0.
                let b = c - N;
                for a in 0..N {
                    for i in 0..S {
                        put(O::<N, M, K, S>::v(i) + a, -d0.lvv[(a, b)]);
                    }
                    put(O::<N, M, K, S>::V1 + a, -d0.lvv[(a, b)]);
                }
            } else {
                let k = c - 2 * N;
                for a in 0..N {
                    for i in 0..S {
                        put(O::<N, M, K, S>::v(i) + a, stage_du[i][(a, k)]);
                    }
                    put(O::<N, M, K, S>::V1 + a, end_du[(a, k)]);
                }
            }
            lu::solve(jm, perm, rhs, len);
            // q1 = q0 + h Σ b_j V_j, v1.
            let mut dq1 = SVector::<f64, N>::zeros();
            for j in 0..S {
                for a in 0..N {
                    dq1[a] += h * tab.b[j] * rhs[O::<N, M, K, S>::v(j) + a];
                }
            }
            let dv1 = SVector::<f64, N>::from_fn(|a, _| rhs[O::<N, M, K, S>::V1 + a]);
            if c < N {
                for a in 0..N {
                    out.dq_dq[(a, c)] += dq1[a];
                }
                out.dv_dq.set_column(c, &dv1);
            } else if c < 2 * N {
                out.dq_dv.set_column(c - N, &dq1);
                out.dv_dv.set_column(c - N, &dv1);
            } else {
                out.dq_du.set_column(c - 2 * N, &dq1);
                out.dv_du.set_column(c - 2 * N, &dv1);
            }
        }
        if !out.is_finite() {
            return Err(Error::NonFiniteState);
        }
        Ok(out)
    }
}
