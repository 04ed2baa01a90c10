//! The (s,s)-Gauss-Lobatto EMPRK method (Small 2011, Definition 6.2.1, §6.2.1) for Lagrangian
//! systems with holonomic constraints `g(t, q) = 0` and nonholonomic constraints
//! `k(t, q, v) = 0`: the method type [`Emprk`](crate::Emprk), its coefficients [`EmprkTableau`] and one step
//! [`Problem::emprk`].
//!
//! EMPRK ("extended modified partitioned Runge-Kutta") treats the holonomic constraints exactly
//! as the Gauss-Lobatto SPARK method does, but instead of imposing `k = 0` at the step end plus
//! `s − 1` weighted moments of `k` at the Gauss stages (SPARK, Definition 5.2.1), it adds
//! velocity (momentum) stages `Ṽ_i` at the Lobatto nodes `c̃_1..c̃_s` and imposes `k = 0`
//! *pointwise* there (Murua's MPRK idea). The last Lobatto stage is the end point: `Ṽ_s = v1`.
//!
//! Given a consistent `(t0, q0, v0)` and `p0 = ∇_v L(t0, q0, v0)`, with Gauss stages
//! `T_i = t0 + c_i h`, `Q_i = q0 + h Σ_j a_ij V_j` (6.4a), Lobatto nodes `T̃_i = t0 + c̃_i h`,
//! `Q̃_i = q0 + h Σ_j ā_ij V_j` (6.4c, `Q̃_0 = q0`, `Q̃_s = q1`), `q1 = q0 + h Σ_j b_j V_j`
//! (6.4e), the unknowns `V_1..V_s`, `Ṽ_1..Ṽ_s`, `μ_j = hΛ_j` (`j = 0..s`), `ν_j = hΨ_j`
//! (`j = 1..s`) solve (`2s·n + (s+1)·m_h + s·m_n` equations)
//!
//! ```text
//! E1  (6.4b)    ∇_vL(T_i,Q_i,V_i) − p0 − h Σ_j a_ij F_j + Σ_j a_ij K_jᵀ ν_j + Σ_{j=0..s} ã_ij G̃_jᵀ μ_j = 0   i = 1..s
//! E2' (6.4d,f)  ∇_vL(T̃_i,Q̃_i,Ṽ_i) − p0 − h Σ_j ā_ij F_j + Σ_j ā_ij K_jᵀ ν_j + Σ_{j=0..s} ǎ_ij G̃_jᵀ μ_j = 0  i = 1..s
//! E3  (6.4g,h)  g(T̃_i, Q̃_i) / h = 0                                           i = 1..s
//! E4  (6.4i)    g_t(t1,q1) + G(t1,q1) Ṽ_s = 0
//! E5' (6.4j,k)  k(T̃_i, Q̃_i, Ṽ_i) = 0                                          i = 1..s
//! ```
//!
//! with `F_j = ∇_qL(T_j,Q_j,V_j)`, `K_j = k_v(T_j,Q_j,V_j)` (the nonholonomic force `−K_jᵀΨ_j`
//! sits at the **Gauss** stages, combined with the Gauss coefficients `A`, `b` and `Ā`, as in
//! the thesis' chapter 6: `F_j := f(t0 + c_j h, Y_j, Z_j, Ψ_j)` in (6.4)), `G̃_j = g_q(T̃_j,Q̃_j)`
//! and `Ǎ = (ǎ_ij)` the Lobatto IIIA matrix on the `s + 1` Lobatto nodes. Chapter 7's
//! Lagrangian rewrite (7.21) places `−KᵀΨ` at the Lobatto stages instead; that variant is only
//! first order (implementation guide, pitfall 9) and is not what this module implements.
//!
//! The equations are scaled as in [`crate::mixed_step`] (multipliers times `h`, position
//! constraints divided by `h`), so every block of the Newton matrix is O(1) as `h → 0`, and
//! solved first by simplified Newton with the coupled steps' structured matrix (the model's
//! factors of the mass matrix and of `G L⁻¹ Gᵀ`, and an `S K`-square nonholonomic Schur
//! complement; `emprk_structured`), then, where that does not apply or converges slowly, by
//! Newton's method with the exact Jacobian of the whole system.
//!
//! Facts (tested in `tests/suite/emprk.rs`): for `s = 1` the equations coincide with those of the
//! SPARK step (`Ǎ = [[0,0],[½,½]]`, so E2' is SPARK's end-point equation and E5' is `k(t1) = 0`);
//! without nonholonomic constraints `(q1, v1)` coincide with the SPARK step's for every `s` (the
//! stages `Ṽ_1..Ṽ_{s−1}` then decouple); the internal Lobatto stages `(T̃_i, Q̃_i, Ṽ_i)` satisfy
//! `k = 0` (see [`Problem::emprk_stages`]).

// The loops index stages, blocks and components the way the thesis writes its subscripts.
#![allow(clippy::needless_range_loop)]

use nalgebra::SVector;

use crate::error::Error;
use crate::linalg::dense_newton::{self, add_block, DenseProblem};
use crate::linalg::layout::{flat, Layout};
use crate::linalg::layout::{flat_square, zero_square};
use crate::linalg::lu;
use crate::model::blocks::InputJacobian;
use crate::model::blocks::{ConstraintJacobian, DynamicsJacobian, NonholonomicJacobian};
use crate::model::Inputs;
use crate::model::{Lagrangian, State};
use crate::options::StepStats;
use crate::step::assembly::{
    add_hidden_constraint_row, MomentumWeights, ReactionColumns, StageEvaluations, ZeroBlocks,
};
use crate::step::coupled_motion::CoupledStart;
pub(crate) use crate::step::emprk_layout::EmprkLayout;
use crate::step::emprk_layout::Offsets;
use crate::step::jacobian::{
    solve_sensitivities, BandBuffers, Columns, MomentumRow, Sensitivity, StartTerms, StepJacobian,
};
use crate::step::ordering::{reorder_emprk, Couplings};
use crate::step::problem::Problem;
use crate::step::stage_matrix::{DenseSaddle, SparseSaddle};
use crate::step::start::StepStart;
use crate::tableau::EmprkTableau;

/// Number of unknowns (and equations) of the EMPRK step: `2S·N + (S+1)·M + S·K`.
#[doc(hidden)]
pub fn system_len<const N: usize, const M: usize, const K: usize, const S: usize>() -> usize {
    <EmprkLayout<N, M, K, S> as Layout>::LEN
}

/// The weights of the momentum row of Gauss stage `i`: the SPARK stage's, with the nonholonomic
/// reactions of the Gauss stages weighted like the forces.
pub(crate) fn gauss_weights<const S: usize>(
    et: &EmprkTableau<S>,
    i: usize,
) -> MomentumWeights<'_, S> {
    let tab = &et.spark;
    MomentumWeights {
        force: &tab.a_hat[i],
        nonholonomic: &tab.a_hat[i],
        start: tab.a_til0[i],
        lobatto: &tab.a_til[i],
    }
}

/// The weights of the momentum row of Lobatto stage `i + 1`: the Gauss stages' forces and
/// nonholonomic reactions by `Ā`, the holonomic reactions by the Lobatto IIIA matrix `Ǎ`.
pub(crate) fn lobatto_weights<const S: usize>(
    et: &EmprkTableau<S>,
    i: usize,
) -> MomentumWeights<'_, S> {
    let tab = &et.spark;
    MomentumWeights {
        force: &tab.a_bar[i],
        nonholonomic: &tab.a_bar[i],
        start: et.a_chk0[i],
        lobatto: &et.a_chk[i],
    }
}

/// The unknowns of the EMPRK step at one iterate and the model's evaluations there.
pub(crate) struct EmprkPoint<const N: usize, const M: usize, const K: usize, const S: usize> {
    /// `V_1..V_S` (Gauss stages), `Ṽ_1..Ṽ_S` (Lobatto stages, `Ṽ_S = v1`).
    pub vs: [SVector<f64, N>; S],
    pub vts: [SVector<f64, N>; S],
    /// `μ_0`, `μ_1..μ_S`, `ν_1..ν_S`.
    pub mu0: SVector<f64, M>,
    pub mus: [SVector<f64, M>; S],
    pub nus: [SVector<f64, K>; S],
    /// The Gauss stages' times and positions, the Lobatto nodes' times and positions.
    pub times: [f64; S],
    pub qs: [SVector<f64, N>; S],
    pub tts: [f64; S],
    pub qts: [SVector<f64, N>; S],
    /// `L` and `k` (contracted with `ν_j`) at the Gauss stages.
    pub dyns: [DynamicsJacobian<N>; S],
    pub nhs: [NonholonomicJacobian<N, K>; S],
    /// `g` (contracted with `μ_j`), `L` and `k` at the Lobatto nodes 1..S.
    pub cons: [ConstraintJacobian<N, M>; S],
    pub dlob: [DynamicsJacobian<N>; S],
    pub klob: [NonholonomicJacobian<N, K>; S],
    /// The hidden constraint at the end point.
    pub w1: crate::model::blocks::VelocityConstraintJacobian<N, M>,
}

impl<'a, Sys: Lagrangian<N, M, K>, const N: usize, const M: usize, const K: usize>
    Problem<'a, Sys, N, M, K>
{
    /// Unpacks the flat unknowns `x` and evaluates the model at the Gauss stages and the
    /// Lobatto nodes.
    pub(crate) fn emprk_point<const S: usize>(
        &self,
        et: &EmprkTableau<S>,
        start: &StepStart<N, M>,
        x: &[f64],
    ) -> EmprkPoint<N, M, K, S> {
        let (sys, h) = (self.sys, self.h);
        type O<const N: usize, const M: usize, const K: usize, const S: usize> =
            Offsets<N, M, K, S>;
        let tab = &et.spark;
        let (t0, q0) = (start.t0, start.q0);
        let vs: [SVector<f64, N>; S] =
            core::array::from_fn(|i| SVector::from_fn(|a, _| x[O::<N, M, K, S>::v(i) + a]));
        let vts: [SVector<f64, N>; S] =
            core::array::from_fn(|i| SVector::from_fn(|a, _| x[O::<N, M, K, S>::vt(i) + a]));
        let mu0 = SVector::<f64, M>::from_fn(|l, _| x[O::<N, M, K, S>::mu(0) + l]);
        let mus: [SVector<f64, M>; S] =
            core::array::from_fn(|j| SVector::from_fn(|l, _| x[O::<N, M, K, S>::mu(j + 1) + l]));
        let nus: [SVector<f64, K>; S] =
            core::array::from_fn(|j| SVector::from_fn(|l, _| x[O::<N, M, K, S>::nu(j) + l]));
        let combine = |coef: &[f64; S]| {
            let mut q = q0;
            for j in 0..S {
                q += vs[j] * (h * coef[j]);
            }
            q
        };
        let times: [f64; S] = core::array::from_fn(|i| t0 + tab.c[i] * h);
        let qs: [SVector<f64, N>; S] = core::array::from_fn(|i| combine(&tab.a[i]));
        let qts: [SVector<f64, N>; S] = core::array::from_fn(|i| combine(&tab.a_bar[i]));
        let tts: [f64; S] = core::array::from_fn(|i| t0 + tab.c_lob[i] * h);
        // Gauss stages: forces and nonholonomic reactions.
        let dyns = core::array::from_fn(|i| sys.dynamics_jacobian(times[i], &qs[i], &vs[i]));
        let nhs =
            core::array::from_fn(|i| sys.nonholonomic_jacobian(times[i], &qs[i], &vs[i], &nus[i]));
        // Lobatto nodes j = 1..S (slot j-1): holonomic reactions and constraints, momenta and k.
        let cons = core::array::from_fn(|j| sys.constraint_jacobian(tts[j], &qts[j], &mus[j]));
        let dlob = core::array::from_fn(|i| sys.dynamics_jacobian(tts[i], &qts[i], &vts[i]));
        let klob = core::array::from_fn(|i| {
            sys.nonholonomic_jacobian(tts[i], &qts[i], &vts[i], &SVector::zeros())
        });
        let w1 = sys.velocity_constraint_jacobian(tts[S - 1], &qts[S - 1], &vts[S - 1]);
        EmprkPoint {
            vs,
            vts,
            mu0,
            mus,
            nus,
            times,
            qs,
            tts,
            qts,
            dyns,
            nhs,
            cons,
            dlob,
            klob,
            w1,
        }
    }

    /// Evaluates the residual `r = F(x)` of E1, E2', E3, E4, E5' at the flat unknown vector `x`
    /// and, if asked, the exact Jacobian `∂F/∂x` (row-major) into `jac`. Returns the Lobatto
    /// stage coordinates `Q̃_1..Q̃_S`.
    pub(crate) fn assemble_emprk<const S: usize>(
        &self,
        et: &EmprkTableau<S>,
        start: &StepStart<N, M>,
        x: &[f64],
        r: &mut [f64],
        jac: Option<&mut [f64]>,
    ) -> [SVector<f64, N>; S] {
        let h = self.h;
        type O<const N: usize, const M: usize, const K: usize, const S: usize> =
            Offsets<N, M, K, S>;
        let tab = &et.spark;
        let len = system_len::<N, M, K, S>();
        let (p0, gq0) = (start.p0, start.gq0);
        let EmprkPoint {
            qts,
            mu0,
            mus,
            nus,
            dyns,
            nhs,
            cons,
            dlob,
            klob,
            w1,
            ..
        } = self.emprk_point(et, start, x);
        let ev = StageEvaluations {
            h,
            a: &tab.a,
            a_bar: &tab.a_bar,
            p0: &p0,
            gq0: &gq0,
            mu0: &mu0,
            dyns: &dyns,
            nhs: &nhs,
            nus: &nus,
            cons: &cons,
            mus: &mus,
            zeros: ZeroBlocks::of::<Sys, N, M, K>(),
        };
        // E1 (rows of V_i): the SPARK stage weights; E2' (rows of Ṽ_i): the Lobatto stages, with
        // the forces and nonholonomic reactions of the Gauss stages weighted by Ā and the
        // holonomic reactions by Ǎ.
        let stage = |i: usize| {
            (
                O::<N, M, K, S>::v(i),
                &dyns[i],
                &tab.a[i],
                gauss_weights(et, i),
            )
        };
        let lobatto_stage = |i: usize| {
            (
                O::<N, M, K, S>::vt(i),
                &dlob[i],
                &tab.a_bar[i],
                lobatto_weights(et, i),
            )
        };
        for (at, d, _, w) in (0..S).map(stage).chain((0..S).map(lobatto_stage)) {
            let rho = ev.momentum_residual(&d.p, &w);
            r[at..at + N].copy_from_slice(rho.as_slice());
        }
        // E4: hidden constraint at t1 (rows of μ_0); E3: g(Q̃_j)/h (rows of μ_j).
        for l in 0..M {
            r[O::<N, M, K, S>::mu(0) + l] = w1.w[l];
            for j in 0..S {
                r[O::<N, M, K, S>::mu(j + 1) + l] = cons[j].g[l] / h;
            }
        }
        // E5': k at the Lobatto nodes 1..S (rows of ν_j).
        for i in 0..S {
            for l in 0..K {
                r[O::<N, M, K, S>::nu(i) + l] = klob[i].k[l];
            }
        }

        let Some(jm) = jac else { return qts };
        jm.fill(0.0);
        let cols = ReactionColumns {
            start: Some(O::<N, M, K, S>::mu(0)),
            lobatto: O::<N, M, K, S>::mu(1),
            nonholonomic: O::<N, M, K, S>::nu(0),
        };
        for (at, d, own_coef, w) in (0..S).map(stage).chain((0..S).map(lobatto_stage)) {
            ev.add_momentum_row(jm, len, at, (at, d, own_coef), &w, &cols);
        }
        // E4 and E3.
        let (mu_row, end_col) = (O::<N, M, K, S>::mu(0), O::<N, M, K, S>::vt(S - 1));
        add_hidden_constraint_row(jm, len, mu_row, end_col, &w1, h, &tab.b);
        ev.add_position_constraint_rows(jm, len, O::<N, M, K, S>::mu(1), S);
        // E5'.
        for i in 0..S {
            add_block(
                jm,
                len,
                O::<N, M, K, S>::nu(i),
                O::<N, M, K, S>::vt(i),
                &klob[i].kv,
                1.0,
            );
            for l in 0..S {
                add_block(
                    jm,
                    len,
                    O::<N, M, K, S>::nu(i),
                    O::<N, M, K, S>::v(l),
                    &klob[i].kq,
                    h * tab.a_bar[i][l],
                );
            }
        }
        qts
    }

    /// Residual and exact Jacobian of the EMPRK step's equations at the flat unknown vector `x`
    /// (layout: `V_1..V_S`, `Ṽ_1..Ṽ_S`, `hΛ_0..hΛ_S`, `hΨ_1..hΨ_S`; length [`system_len`]), for
    /// testing the Jacobian against finite differences.
    #[doc(hidden)]
    pub fn emprk_residual<const S: usize>(
        &self,
        tab: &EmprkTableau<S>,
        x: &[f64],
        r: &mut [f64],
        jac: Option<&mut [f64]>,
    ) {
        let start = StepStart::at(self.sys, self.state);
        self.assemble_emprk(tab, &start, x, r, jac);
    }

    /// Advances `state` by `h` with the (s,s)-Gauss-Lobatto EMPRK method `tab` (normally
    /// `Emprk::<S>::TABLEAU`) on a system with holonomic and nonholonomic constraints. Nothing is
    /// modified on error.
    ///
    /// The state must be consistent: `g = 0`, `g_t + G v = 0` and `k = 0` at `t0` to
    /// `options.consistency_tolerance` (otherwise [`Error::InconsistentState`], with the
    /// nonholonomic violation counted as a velocity). The new state satisfies `g(t1, q1) = 0`,
    /// `g_t + G v1 = 0` and `k(t1, q1, v1) = 0` to Newton's tolerance. Simplified Newton with the
    /// structured matrix (see the module), then, if it is slow, with the exact Jacobian of the
    /// first iterate, then full Newton (`Options::simplified_newton`,
    /// `Options::full_newton_fallback`); the iteration count is reported in
    /// `StepStats::stage_iterations`. Errors: [`Error::NonFiniteState`],
    /// [`Error::InconsistentState`], [`Error::SingularJacobian`], [`Error::Diverged`],
    /// [`Error::NoConvergence`] (all with `Phase::Stages`).
    pub fn emprk<const S: usize>(
        &self,
        tab: &EmprkTableau<S>,
    ) -> Result<(State<N>, StepStats), Error> {
        self.emprk_stages(tab).map(|(next, _, stats)| (next, stats))
    }

    /// [`Problem::emprk`], also returning the Lobatto stages `(T̃_i, Q̃_i, Ṽ_i)`, `i = 1..S` (the last
    /// one is the new state), for checking that they satisfy `k = 0`.
    #[doc(hidden)]
    pub fn emprk_stages<const S: usize>(
        &self,
        tab: &EmprkTableau<S>,
    ) -> Result<(State<N>, [State<N>; S], StepStats), Error> {
        let started = self.emprk_start();
        let (start, rates) = match &started {
            Ok((start, rates)) => (start, rates),
            Err(e) => return Err(*e),
        };
        let (mut xbuf, iterations) = self.solve_emprk(tab, start, rates)?;
        let x = flat::<EmprkLayout<N, M, K, S>, f64>(&mut xbuf);
        let (next, stages) = self.emprk_state(tab, x)?;
        Ok((
            next,
            stages,
            StepStats {
                stage_iterations: iterations,
                end_iterations: 0,
                ..StepStats::default()
            },
        ))
    }

    /// The step start: [`Error::NonFiniteState`] for a state that is not finite, else the
    /// consistency check of [`Problem::coupled_start`] and what the step keeps of it.
    #[allow(clippy::type_complexity)]
    fn emprk_start(&self) -> Result<(StepStart<N, M>, CoupledStart<N, M, K>), Error> {
        if !self.state.is_finite() {
            return Err(Error::NonFiniteState);
        }
        self.coupled_start()
    }

    /// Solves the EMPRK equations from the step start `start`, `rates` (the consistency
    /// check's, [`Problem::coupled_start`]): the converged unknowns (layout [`EmprkLayout`])
    /// and the Newton iterations.
    #[allow(clippy::type_complexity)]
    pub(crate) fn solve_emprk<const S: usize>(
        &self,
        tab: &EmprkTableau<S>,
        start: &StepStart<N, M>,
        rates: &CoupledStart<N, M, K>,
    ) -> Result<(<EmprkLayout<N, M, K, S> as Layout>::Of<f64>, u32), Error> {
        let structured = if Sys::SPARSE_SADDLE {
            self.structured_emprk::<S, SparseSaddle<'a, Sys, N, M, K>>(tab, start, rates)
        } else {
            self.structured_emprk::<S, DenseSaddle<N, M>>(tab, start, rates)
        };
        let spent = match structured {
            Some(Ok(solution)) => return Ok(solution),
            // The dense exact matrix takes over, as in the SPARK step's `solve_mixed`.
            Some(Err(
                Error::NoConvergence { iterations, .. } | Error::Diverged { iterations, .. },
            )) if self.options.full_newton_fallback => iterations,
            Some(Err(e)) => return Err(e),
            None => 0,
        };
        let (xbuf, iterations) = self.dense_emprk(tab, start)?;
        Ok((xbuf, iterations + spent))
    }

    /// The EMPRK equations solved on the dense exact system (`dense_newton`). Kept out of
    /// line: its dense matrix occupies the stack only when this solve runs.
    #[allow(clippy::type_complexity)]
    #[inline(never)]
    fn dense_emprk<const S: usize>(
        &self,
        tab: &EmprkTableau<S>,
        start: &StepStart<N, M>,
    ) -> Result<(<EmprkLayout<N, M, K, S> as Layout>::Of<f64>, u32), Error> {
        let (h, options, state) = (self.h, self.options, self.state);
        let (q0, v0) = (state.q, state.v);
        type L<const N: usize, const M: usize, const K: usize, const S: usize> =
            EmprkLayout<N, M, K, S>;
        let problem = DenseProblem::at_step(
            [0..2 * S * N, 0..0],
            Offsets::<N, M, K, S>::mu(1)..Offsets::<N, M, K, S>::mu(S + 1),
            &q0,
            &v0,
            h,
        );
        let (xbuf, iterations) = dense_newton::solve::<L<N, M, K, S>>(
            options,
            &problem,
            |x| {
                for i in 0..2 * S {
                    x[i * N..(i + 1) * N].copy_from_slice(v0.as_slice());
                }
            },
            |x, r, jac| {
                self.assemble_emprk(tab, start, x, r, jac);
            },
        )?;
        Ok((xbuf, iterations))
    }

    /// The new state and the Lobatto stages from the converged unknowns `x`.
    fn emprk_state<const S: usize>(
        &self,
        tab: &EmprkTableau<S>,
        x: &[f64],
    ) -> Result<(State<N>, [State<N>; S]), Error> {
        let (h, state) = (self.h, self.state);
        let (t0, q0) = (state.t, state.q);
        let et = &tab.spark;
        let stages: [State<N>; S] = core::array::from_fn(|i| {
            let mut q = q0;
            for j in 0..S {
                for a in 0..N {
                    q[a] += h * et.a_bar[i][j] * x[j * N + a];
                }
            }
            State {
                t: t0 + et.c_lob[i] * h,
                q,
                v: SVector::from_fn(|a, _| x[(S + i) * N + a]),
            }
        });
        let mut q1 = q0;
        for j in 0..S {
            for a in 0..N {
                q1[a] += h * et.b[j] * x[j * N + a];
            }
        }
        let next = State {
            t: t0 + h,
            q: q1,
            v: stages[S - 1].v,
        }
        .checked()?;
        Ok((next, stages))
    }

    /// One EMPRK step with the Jacobian of the step map (the implicit function theorem on the
    /// converged EMPRK equations; see `step/jacobian.rs`). The state is [`Problem::emprk`]'s.
    pub(crate) fn emprk_with_jacobian<const S: usize, const U: usize>(
        &self,
        et: &EmprkTableau<S>,
    ) -> Result<(State<N>, StepJacobian<N, U>, StepStats), Error>
    where
        Sys: Inputs<N, U>,
    {
        let (sys, h, state) = (self.sys, self.h, self.state);
        type L<const N: usize, const M: usize, const K: usize, const S: usize> =
            EmprkLayout<N, M, K, S>;
        type O<const N: usize, const M: usize, const K: usize, const S: usize> =
            Offsets<N, M, K, S>;
        let tab = &et.spark;
        let started = self.emprk_start();
        let (start, rates) = match &started {
            Ok((start, rates)) => (start, rates),
            Err(e) => return Err(*e),
        };
        let (mut xbuf, iterations) = self.solve_emprk(et, start, rates)?;
        let x = flat::<L<N, M, K, S>, f64>(&mut xbuf);
        let (next, _) = self.emprk_state(et, x)?;
        let len = system_len::<N, M, K, S>();

        // F_x at the solution, factored.
        let mut jbuf = zero_square::<L<N, M, K, S>>();
        let jm = flat_square::<L<N, M, K, S>>(&mut jbuf);
        let mut rbuf = <L<N, M, K, S> as Layout>::fill(0.0);
        self.assemble_emprk(
            et,
            start,
            x,
            flat::<L<N, M, K, S>, f64>(&mut rbuf),
            Some(&mut *jm),
        );
        let mut pbuf = <L<N, M, K, S> as Layout>::fill(0usize);
        let perm = flat::<L<N, M, K, S>, usize>(&mut pbuf);
        let pt: EmprkPoint<N, M, K, S> = self.emprk_point(et, start, x);
        // Large systems reordered to a band coordinate by coordinate and factored within
        // their rows' nonzero spans, as the SPARK step's Jacobian (`jacobian.rs`).
        let mut band = BandBuffers::<L<N, M, K, S>>::new(len);
        let (mut spans, mut order) = band.split();
        if let Some(order) = order.as_deref_mut() {
            let couplings = Couplings::<N, M, K> {
                gq0: &start.gq0,
                nodes: &pt.cons,
                nonholonomic: (&pt.nhs, &pt.klob),
            };
            reorder_emprk::<N, M, K, S>(jm, &couplings, order);
        }
        let factored = if let Some(spans) = spans.as_deref_mut() {
            lu::factor_banded(jm, perm, spans, len, len)
        } else {
            lu::factor_inline(jm, perm, len)
        };
        factored.map_err(|_| Error::SingularJacobian {
            phase: crate::error::Phase::Stages,
        })?;

        let (t0, q0, v0) = (state.t, state.q, state.v);
        let d0 = sys.dynamics_jacobian(t0, &q0, &v0);
        let c0 = sys.constraint_jacobian(t0, &q0, &pt.mu0);
        let u0: InputJacobian<N, U> = sys.input_jacobian(t0, &q0, &v0);
        let us: [InputJacobian<N, U>; S] =
            core::array::from_fn(|i| sys.input_jacobian(pt.times[i], &pt.qs[i], &pt.vs[i]));
        let ulob: [InputJacobian<N, U>; S] =
            core::array::from_fn(|i| sys.input_jacobian(pt.tts[i], &pt.qts[i], &pt.vts[i]));
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
            zeros: ZeroBlocks::of::<Sys, N, M, K>(),
        };
        let start_terms = StartTerms {
            h,
            lvq0: &d0.lvq,
            hess0: &c0.hess_mu,
            p_u0: &u0.p_u,
            f_u: &core::array::from_fn(|j| us[j].f_u),
            ev: &ev,
        };
        let gauss_rows: [MomentumRow<N, U>; S] = core::array::from_fn(|i| {
            let w = gauss_weights(et, i);
            start_terms.row(O::<N, M, K, S>::v(i), &pt.dyns[i].lvq, &us[i].p_u, &w)
        });
        let lobatto_rows: [MomentumRow<N, U>; S] = core::array::from_fn(|i| {
            let w = lobatto_weights(et, i);
            start_terms.row(O::<N, M, K, S>::vt(i), &pt.dlob[i].lvq, &ulob[i].p_u, &w)
        });
        // ∂/∂q0_b of the constraint rows: the hidden constraint at the end, g(Q̃_j)/h, k at the
        // Lobatto nodes.
        let constraints = |b: usize, put: &mut dyn FnMut(usize, f64)| {
            for l in 0..M {
                put(O::<N, M, K, S>::mu(0) + l, pt.w1.wq[(l, b)]);
                for j in 0..S {
                    put(O::<N, M, K, S>::mu(j + 1) + l, pt.cons[j].gq[(l, b)] / h);
                }
            }
            for i in 0..S {
                for l in 0..K {
                    put(O::<N, M, K, S>::nu(i) + l, pt.klob[i].kq[(l, b)]);
                }
            }
        };
        let mut cols = <Columns<L<N, M, K, S>, N, U> as Layout>::fill(0.0);
        let jacobian = solve_sensitivities(
            jm,
            perm,
            flat::<Columns<L<N, M, K, S>, N, U>, f64>(&mut cols),
            &Sensitivity {
                momentum: [&gauss_rows, &lobatto_rows],
                lvv0: &d0.lvv,
                constraints: &constraints,
                v: core::array::from_fn(O::<N, M, K, S>::v),
                b: &tab.b,
                h,
                v1: O::<N, M, K, S>::vt(S - 1),
                leading: len,
                order: order.as_deref(),
                spans: spans.as_deref(),
            },
        );
        if !jacobian.is_finite() {
            return Err(Error::NonFiniteState);
        }
        Ok((
            next,
            jacobian,
            StepStats {
                stage_iterations: iterations,
                end_iterations: 0,
                ..StepStats::default()
            },
        ))
    }
}
