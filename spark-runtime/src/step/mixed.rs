//! One SPARK step for Lagrangian systems with holonomic constraints `g(t, q) = 0` and
//! nonholonomic constraints `k(t, q, v) = 0`: the (s,s)-Gauss-Lobatto SPARK method of Small
//! 2011 (Definition 5.2.1, equations (5.7a-i), in the Lagrangian form (7.12a-j)), and, with the
//! same equations and other coefficients, Jay's Lagrange-d'Alembert SPARK methods (Lobatto
//! IIIA-B, IIIA-B-D, symplectic Euler I; Jay, *Lagrange-d'Alembert SPARK integrators for
//! nonholonomic Lagrangian systems*, (6.1a-f)) combined with the holonomic (s, s̃)-SPARK
//! treatment of the same tableau.
//!
//! Given a consistent `(t0, q0, v0)` and `p0 = ∇_v L(t0, q0, v0)`, with stages
//! `T_i = t0 + c_i h`, `Q_i = q0 + h Σ_j a_ij V_j` (5.7a), Lobatto nodes `T̃_i = t0 + c̃_i h`,
//! `Q̃_i = q0 + h Σ_j ā_ij V_j` (5.7b, `Q̃_0 = q0`), `q1 = q0 + h Σ_j b_j V_j` (5.7d), the
//! unknowns `V_1..V_s`, `v1`, `μ_j = hΛ_j` (`j = 0..s̃`), `ν_j = hΨ_j` (`j = 1..s`) solve
//!
//! ```text
//! E1 (5.7c)  ∇_vL(T_i,Q_i,V_i) − p0 − h Σ_j â_ij F_j + Σ_j ã^n_ij K_jᵀ ν_j + Σ_{j=0..s̃} ã_ij G̃_jᵀ μ_j = 0   i = 1..s
//! E2 (5.7e)  ∇_vL(t1,q1,v1)   − p0 − h Σ_j b_j  F_j + Σ_j b̃^n_j K_jᵀ ν_j + Σ_{j=0..s̃} b̃_j  G̃_jᵀ μ_j = 0
//! E3 (5.7f,g) g(T̃_i, Q̃_i) / h = 0                                    i = 1..s̃
//! E4 (5.7h)  g_t(t1,q1) + G(t1,q1) v1 = 0
//! E5 (5.7i)  k(t1, q1, v1) = 0                                        (row 1 of Ω̃_0)
//! E6 (5.7i)  Σ_j b_j c_j^{i−1} k(T_j, Q_j, V_j) = 0                   i = 1..s−1 (rows 2..s of Ω̃_0)
//! ```
//!
//! with `F_j = ∇_qL(T_j,Q_j,V_j)`, `K_j = k_v(T_j,Q_j,V_j)`, `G̃_j = g_q(T̃_j,Q̃_j)`, `Ã^n`,
//! `b̃^n` = [`SparkTableau::a_nh`], [`SparkTableau::b_nh`] (Jay's `Ã`, `b̃` of (6.1b,d); `A`,
//! `b` for Gauss-Lobatto). The system is coupled (E5 involves `v1` and the `V_j`), so it is
//! solved as one system (`dense_newton`: simplified Newton with the exact Jacobian of the
//! starting iterate, full Newton as the fallback; guide §2.3). Scaling the multipliers
//! by `h` and the position constraints by `1/h` makes every block O(1) as `h → 0`. When
//! `s̃ = S − 1` (Lobatto IIIA-B: the constraint nodes are the stages), the unknown `μ_S` has no
//! equation; its slot is kept and pinned by the row `μ_S = 0`.
//!
//! With `K = 0` the equations are those of the holonomic step in `spark_step` (which solves
//! them in two phases); with `M = 0` they are the Lagrange-d'Alembert SPARK method (6.1a-f) for
//! purely nonholonomic systems.

// The loops index stages, blocks and components the way the thesis writes its subscripts.
#![allow(clippy::needless_range_loop)]

use nalgebra::{SMatrix, SVector};

use crate::error::Error;
use crate::linalg::dense_newton::{self, add_block, DenseProblem};
use crate::linalg::layout::{flat, Layout};
use crate::linalg::vector::row_norm;
use crate::model::blocks::{ConstraintJacobian, DynamicsJacobian, NonholonomicJacobian};
use crate::model::{Lagrangian, State};
use crate::options::{Options, StepStats};
use crate::step::assembly::{
    add_hidden_constraint_row, stage_position, MomentumWeights, ReactionColumns, StageEvaluations,
    ZeroBlocks,
};
pub use crate::step::coupled_layout::system_len;
use crate::step::coupled_layout::{moment_weight, MixedLayout, Offsets};
use crate::step::coupled_matrix::{Blocks, CoupledBlocks};
use crate::step::coupled_motion::CoupledStart;
use crate::step::coupled_scheme::Scheme;
use crate::step::problem::Problem;
use crate::step::stage_matrix::{DenseSaddle, SaddleOps, SparseSaddle};
use crate::step::start::{inconsistency, nonholonomic_rows, within_tolerance, StepStart};
use crate::tableau::SparkTableau;

/// The unknowns of the mixed step at one iterate and the model's evaluations there.
pub(crate) struct MixedPoint<const N: usize, const M: usize, const K: usize, const S: usize> {
    /// `V_1..V_S`.
    pub vs: [SVector<f64, N>; S],
    /// `v1`.
    pub v1: SVector<f64, N>,
    /// `μ_0 = hΛ_0`.
    pub mu0: SVector<f64, M>,
    /// `μ_1..μ_S` (slot `j` is Lobatto node `j + 1`).
    pub mus: [SVector<f64, M>; S],
    /// `ν_1..ν_S`.
    pub nus: [SVector<f64, K>; S],
    /// `t1`, `q1`.
    pub t1: f64,
    pub q1: SVector<f64, N>,
    /// The stage times and positions.
    pub times: [f64; S],
    pub qs: [SVector<f64, N>; S],
    /// `L` and its derivatives at the stages.
    pub dyns: [DynamicsJacobian<N>; S],
    /// `k` and its derivatives at the stages, contracted with `ν_j`.
    pub nhs: [NonholonomicJacobian<N, K>; S],
    /// `g` and its derivatives at the Lobatto nodes `1..s̃`, contracted with `μ_j`.
    pub cons: [ConstraintJacobian<N, M>; S],
    /// `L`, the hidden constraint and `k` at the end point.
    pub d1: DynamicsJacobian<N>,
    pub w1: crate::model::blocks::VelocityConstraintJacobian<N, M>,
    pub nh1: NonholonomicJacobian<N, K>,
}

impl<'a, Sys: Lagrangian<N, M, K>, const N: usize, const M: usize, const K: usize>
    Problem<'a, Sys, N, M, K>
{
    /// Unpacks the flat unknowns `x` and evaluates the model at the stages, the Lobatto nodes
    /// and the end point.
    pub(crate) fn mixed_point<const S: usize>(
        &self,
        tab: &SparkTableau<S>,
        start: &StepStart<N, M>,
        x: &[f64],
    ) -> MixedPoint<N, M, K, S> {
        let (sys, h) = (self.sys, self.h);
        type O<const N: usize, const M: usize, const K: usize, const S: usize> =
            Offsets<N, M, K, S>;
        let (t0, q0) = (start.t0, start.q0);
        let vs: [SVector<f64, N>; S] =
            core::array::from_fn(|i| SVector::from_fn(|a, _| x[O::<N, M, K, S>::v(i) + a]));
        let v1 = SVector::<f64, N>::from_fn(|a, _| x[O::<N, M, K, S>::V1 + a]);
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
        let t1 = t0 + h;
        let q1 = combine(&tab.b);
        let times: [f64; S] = core::array::from_fn(|i| t0 + tab.c[i] * h);
        let qs: [SVector<f64, N>; S] = core::array::from_fn(|i| combine(&tab.a[i]));
        // Lobatto node j = 1..s̃ is slot j-1; with s̃ = S − 1 the last slot is unused (its
        // multiplier is pinned to zero).
        let st = tab.s_tilde;
        // The large evaluations are written into the result in place: as locals moved into it
        // they were copied once more (a tenth of an 8-link chain's step Jacobian), and the
        // elements of `core::array::from_fn` were copied out of its closure too.
        let mut pt = MixedPoint {
            dyns: [DynamicsJacobian::default(); S],
            nhs: [NonholonomicJacobian::default(); S],
            cons: [ConstraintJacobian::default(); S],
            vs,
            v1,
            mu0,
            mus,
            nus,
            t1,
            q1,
            times,
            qs,
            d1: sys.dynamics_jacobian(t1, &q1, &v1),
            w1: sys.velocity_constraint_jacobian(t1, &q1, &v1),
            nh1: sys.nonholonomic_jacobian(t1, &q1, &v1, &SVector::zeros()),
        };
        for i in 0..S {
            pt.dyns[i] = sys.dynamics_jacobian(times[i], &pt.qs[i], &pt.vs[i]);
            if K > 0 {
                pt.nhs[i] = sys.nonholonomic_jacobian(times[i], &pt.qs[i], &pt.vs[i], &nus[i]);
            }
        }
        for j in 0..st {
            pt.cons[j] =
                sys.constraint_jacobian(t0 + tab.c_lob[j] * h, &combine(&tab.a_bar[j]), &mus[j]);
        }
        pt
    }

    /// Evaluates the residual `r = F(x)` of E1-E6 at the flat unknown vector `x` and, if asked,
    /// the exact Jacobian `∂F/∂x` (row-major) into `jac`.
    pub(crate) fn assemble_mixed<const S: usize>(
        &self,
        tab: &SparkTableau<S>,
        start: &StepStart<N, M>,
        x: &[f64],
        r: &mut [f64],
        mut jac: Option<&mut [f64]>,
    ) {
        if let Some(jm) = jac.as_deref_mut() {
            jm.fill(0.0);
        }
        let point = self.mixed_point(tab, start, x);
        self.assemble_mixed_at(tab, start, &point, x, Some(r), jac);
    }

    /// [`Problem::assemble_mixed`] with the model evaluated at `x` already (`point`), the
    /// residual only if asked (the step's Jacobian does not need it); the Jacobian is added
    /// into `jac`, which must be zero. Never inlined: inlined into the step Jacobian, it made
    /// the pendulum's 9 % slower.
    #[inline(never)]
    pub(crate) fn assemble_mixed_at<const S: usize>(
        &self,
        tab: &SparkTableau<S>,
        start: &StepStart<N, M>,
        point: &MixedPoint<N, M, K, S>,
        x: &[f64],
        residual: Option<&mut [f64]>,
        jac: Option<&mut [f64]>,
    ) {
        let h = self.h;
        type O<const N: usize, const M: usize, const K: usize, const S: usize> =
            Offsets<N, M, K, S>;
        let len = system_len::<N, M, K, S>();
        let (p0, gq0) = (start.p0, start.gq0);
        let MixedPoint {
            mu0,
            mus,
            nus,
            dyns,
            nhs,
            cons,
            d1,
            w1,
            nh1,
            ..
        } = point;
        let st = tab.s_tilde;

        // Momentum residuals: E1 (rows of V_i) and E2 (rows of v1), with the coefficient rows
        // (â_i, ã_nh,i, ã_i0, ã_i) resp. (b, b̃_nh, b̃_0, b̃) and the momentum at the stage resp. the end.
        let ev = StageEvaluations {
            h,
            a: &tab.a,
            a_bar: &tab.a_bar,
            p0: &p0,
            gq0: &gq0,
            mu0,
            dyns,
            nhs,
            nus,
            cons,
            mus,
            zeros: ZeroBlocks::of::<Sys, N, M, K>(),
        };
        let stage_weights = |i: usize| MomentumWeights::spark_stage(tab, i);
        let end_weights = MomentumWeights::spark_end(tab);
        let omega = |i: usize, j: usize| moment_weight(tab, i, j);
        if let Some(r) = residual {
            for i in 0..S {
                let rho = ev.momentum_residual(&dyns[i].p, &stage_weights(i));
                r[O::<N, M, K, S>::v(i)..O::<N, M, K, S>::v(i) + N].copy_from_slice(rho.as_slice());
            }
            let rho = ev.momentum_residual(&d1.p, &end_weights);
            r[O::<N, M, K, S>::V1..O::<N, M, K, S>::V1 + N].copy_from_slice(rho.as_slice());
            // E4: hidden constraint at t1; E3: g(Q̃_j)/h (j = 1..s̃; rows: `Offsets`); an unused
            // multiplier slot (s̃ = S − 1) gets the row `μ_S = 0`.
            for l in 0..M {
                r[O::<N, M, K, S>::hidden_row(st) + l] = w1.w[l];
                for j in 0..st {
                    r[O::<N, M, K, S>::position_row(j) + l] = cons[j].g[l] / h;
                }
                for j in st..S {
                    let row = O::<N, M, K, S>::mu(j + 1) + l;
                    r[row] = x[row];
                }
            }
            // E5: k at t1 (rows of ν_1); E6: moments Σ_j b_j c_j^{i-1} k_j (rows of ν_{i+1}).
            for l in 0..K {
                r[O::<N, M, K, S>::nu(0) + l] = nh1.k[l];
                for i in 1..S {
                    let mut s = 0.0;
                    for j in 0..S {
                        s += omega(i, j) * nhs[j].k[l];
                    }
                    r[O::<N, M, K, S>::nu(i) + l] = s;
                }
            }
        }
        let Some(jm) = jac else { return };
        let cols = ReactionColumns {
            start: Some(O::<N, M, K, S>::mu(0)),
            lobatto: O::<N, M, K, S>::mu(1),
            nonholonomic: O::<N, M, K, S>::nu(0),
        };
        for i in 0..S {
            let own = (O::<N, M, K, S>::v(i), &dyns[i], &tab.a[i]);
            ev.add_momentum_row(
                jm,
                len,
                O::<N, M, K, S>::v(i),
                own,
                &stage_weights(i),
                &cols,
            );
        }
        let own = (O::<N, M, K, S>::V1, d1, &tab.b);
        ev.add_momentum_row(jm, len, O::<N, M, K, S>::V1, own, &end_weights, &cols);
        // E4 and E3.
        let (mu_row, v1_col) = (O::<N, M, K, S>::hidden_row(st), O::<N, M, K, S>::V1);
        add_hidden_constraint_row(jm, len, mu_row, v1_col, w1, h, &tab.b);
        ev.add_position_constraint_rows(jm, len, O::<N, M, K, S>::position_row(0), st);
        for j in st..S {
            for l in 0..M {
                let row = O::<N, M, K, S>::mu(j + 1) + l;
                jm[row * len + row] = 1.0;
            }
        }
        // E5 and E6.
        add_block(
            jm,
            len,
            O::<N, M, K, S>::nu(0),
            O::<N, M, K, S>::V1,
            &nh1.kv,
            1.0,
        );
        for l in 0..S {
            add_block(
                jm,
                len,
                O::<N, M, K, S>::nu(0),
                O::<N, M, K, S>::v(l),
                &nh1.kq,
                h * tab.b[l],
            );
            for i in 1..S {
                let mut block = SMatrix::<f64, K, N>::zeros();
                for j in 0..S {
                    block += nhs[j].kq * (omega(i, j) * h * tab.a[j][l]);
                }
                block += nhs[l].kv * omega(i, l);
                add_block(
                    jm,
                    len,
                    O::<N, M, K, S>::nu(i),
                    O::<N, M, K, S>::v(l),
                    &block,
                    1.0,
                );
            }
        }
    }

    /// Residual and exact Jacobian of the mixed step's equations at the flat unknown vector `x`
    /// (layout: [`Offsets`], length [`system_len`]), for testing
    /// the Jacobian against finite differences.
    #[doc(hidden)]
    pub fn mixed_residual<const S: usize>(
        &self,
        tab: &SparkTableau<S>,
        x: &[f64],
        r: &mut [f64],
        jac: Option<&mut [f64]>,
    ) {
        let start = StepStart::at(self.sys, self.state);
        self.assemble_mixed(tab, &start, x, r, jac);
    }

    /// Advances `state` by `h` with the SPARK method `tab` (`s̃ = S` or `S − 1`; e.g.
    /// `GaussLobatto::<S>::TABLEAU` or `LobattoIIIAB::<S>::TABLEAU`) on a system with holonomic and
    /// nonholonomic constraints. Nothing is modified on error; a tableau with another `s̃` gives
    /// [`Error::Unsupported`].
    ///
    /// The state must be consistent: `g = 0`, `g_t + G v = 0` and `k = 0` at `t0` to
    /// `options.consistency_tolerance` (otherwise [`Error::InconsistentState`], with the
    /// nonholonomic violation counted as a velocity). The new state satisfies `g(t1, q1) = 0`,
    /// `g_t + G v1 = 0` and `k(t1, q1, v1) = 0` to Newton's tolerance. The iteration count is
    /// reported in `StepStats::stage_iterations` (there is no separate end-point solve).
    pub fn mixed<const S: usize>(
        &self,
        tab: &SparkTableau<S>,
    ) -> Result<(State<N>, StepStats), Error> {
        let (mut xbuf, iterations) = self.solve_mixed(tab)?;
        let x = flat::<MixedLayout<N, M, K, S>, f64>(&mut xbuf);
        let next = self.mixed_state(tab, x)?;
        Ok((
            next,
            StepStats {
                stage_iterations: iterations,
                end_iterations: 0,
                ..StepStats::default()
            },
        ))
    }

    /// The end state of the mixed step from its converged unknowns `x`.
    pub(crate) fn mixed_state<const S: usize>(
        &self,
        tab: &SparkTableau<S>,
        x: &[f64],
    ) -> Result<State<N>, Error> {
        let (h, state) = (self.h, self.state);
        let (t0, q0) = (state.t, state.q);
        let mut q1 = q0;
        for j in 0..S {
            for a in 0..N {
                q1[a] += h * tab.b[j] * x[j * N + a];
            }
        }
        let v1 = SVector::<f64, N>::from_fn(|a, _| x[Offsets::<N, M, K, S>::V1 + a]);
        State {
            t: t0 + h,
            q: q1,
            v: v1,
        }
        .checked()
    }

    /// Solves the mixed step's equations: the converged unknowns (layout [`MixedLayout`]) and
    /// the Newton iterations.
    ///
    /// Simplified Newton with the block-structured matrix of `coupled_matrix` first (the
    /// model's factors of `L` and `G L⁻¹ Gᵀ` and a small nonholonomic Schur complement); if it
    /// converges slowly or not at all (`Options::full_newton_fallback`), and where it does
    /// not apply (a tableau without its structure) or cannot be factored or is
    /// ill-conditioned (near a configuration where the constraints lose rank), the dense
    /// exact system from `v0`, as [`dense_newton::solve`] does it: simplified with the exact
    /// matrix of the first iterate, then full Newton if that is slow, with its bound on the
    /// attainable accuracy.
    #[allow(clippy::type_complexity)]
    pub(crate) fn solve_mixed<const S: usize>(
        &self,
        tab: &SparkTableau<S>,
    ) -> Result<(<MixedLayout<N, M, K, S> as Layout>::Of<f64>, u32), Error> {
        let state = self.state;
        if !(tab.s_tilde == S || (tab.s_tilde + 1 == S && tab.s_tilde >= 1)) {
            return Err(Error::Unsupported {
                what: "a SPARK tableau with s̃ other than S or S − 1 in the mixed step",
            });
        }
        if !state.is_finite() {
            return Err(Error::NonFiniteState);
        }
        // Consistency of g, the hidden constraint and k at the step start.
        // Borrowed where it lies: moved out of the `Result`, the start (3.1 kB for the
        // 10-mass chain) was copied and both copies stayed on the stack.
        let started = self.coupled_start();
        let (start, rates) = match &started {
            Ok((start, rates)) => (start, rates),
            Err(e) => return Err(*e),
        };
        let structured = if Sys::SPARSE_SADDLE {
            self.structured_solve::<S, SparseSaddle<'a, Sys, N, M, K>>(tab, start, rates)
        } else {
            self.structured_solve::<S, DenseSaddle<N, M>>(tab, start, rates)
        };
        let (options, spent) = match structured {
            Some(Ok(solution)) => return Ok(solution),
            Some(Err(
                Error::NoConvergence { iterations, .. } | Error::Diverged { iterations, .. },
            )) if self.options.full_newton_fallback => {
                // The dense system's exact matrix, factored at the start once (full Newton
                // after it if that is slow too): near a configuration where `K_v` changes
                // across the step by as much as its size (the nonholonomic chain of 5 masses
                // passing its last mass by the axis) the structured matrix fails and the
                // exact one at `v0` converges; one factorization instead of full Newton's
                // three took 11 % off that chain's instructions.
                (*self.options, iterations)
            }
            Some(Err(e)) => return Err(e),
            None => (*self.options, 0),
        };
        let (xbuf, iterations) = self.dense_solve(tab, start, &options)?;
        Ok((xbuf, iterations + spent))
    }

    /// The step start's consistency check (that of `check_consistent`, with the hidden
    /// constraint's `(∂w/∂q) v` in place of its `M × N` block `∂w/∂q`, which it does not
    /// use): what the step keeps of the start's evaluations, or [`Error::InconsistentState`].
    /// Kept out of line: its evaluations' temporaries are not on the stack while the stages
    /// are solved.
    #[inline(never)]
    pub(crate) fn coupled_start(&self) -> Result<(StepStart<N, M>, CoupledStart<N, M, K>), Error> {
        let (sys, state, options) = (self.sys, self.state, self.options);
        let (t0, q0, v0) = (state.t, state.q, state.v);
        let w0 = sys.velocity_constraint(t0, &q0, &v0);
        let g0 = sys.constraints(t0, &q0);
        let (pos, mut vel) = inconsistency(&g0, &w0.w, &w0.gq);
        let (k0, kv) = nonholonomic_rows(sys, t0, &q0, &v0);
        for l in 0..K {
            let norm = row_norm(&kv, l);
            let scale = if norm > 0.0 { norm } else { 1.0 };
            vel = vel.max(k0[l].abs() / scale);
        }
        within_tolerance((pos, vel), options.consistency_tolerance, &q0, &v0)?;
        // `p0` and `f0` with `L_vq v` from one evaluation where the mass matrix varies.
        let (p0, f0, lvq_v) = if Sys::CONSTANT_MASS {
            let (p0, f0) = sys.momentum_force(t0, &q0, &v0);
            (p0, f0, SVector::zeros())
        } else {
            sys.momentum_force_lvq_v(t0, &q0, &v0)
        };
        let rates = CoupledStart {
            kv,
            wq_v: w0.wq_v,
            lvq_v,
            k: k0,
        };
        Ok((StepStart::with_momentum(state, p0, f0, w0.gq), rates))
    }

    /// The mixed step's equations solved on the dense exact system (`dense_newton`). Kept out
    /// of line: its dense matrix occupies the stack only when this solve runs.
    #[allow(clippy::type_complexity)]
    #[inline(never)]
    fn dense_solve<const S: usize>(
        &self,
        tab: &SparkTableau<S>,
        start: &StepStart<N, M>,
        options: &Options,
    ) -> Result<(<MixedLayout<N, M, K, S> as Layout>::Of<f64>, u32), Error> {
        let (h, state) = (self.h, self.state);
        let (q0, v0) = (state.q, state.v);
        type O<const N: usize, const M: usize, const K: usize, const S: usize> =
            Offsets<N, M, K, S>;
        let problem = DenseProblem::at_step(
            O::<N, M, K, S>::VELOCITIES,
            O::<N, M, K, S>::position_rows(tab.s_tilde),
            &q0,
            &v0,
            h,
        );
        dense_newton::solve::<MixedLayout<N, M, K, S>>(
            options,
            &problem,
            |x| {
                for range in O::<N, M, K, S>::VELOCITIES {
                    for at in range.step_by(N.max(1)) {
                        x[at..at + N].copy_from_slice(v0.as_slice());
                    }
                }
            },
            |x, r, jac| self.assemble_mixed(tab, start, x, r, jac),
        )
    }

    /// The structured simplified Newton iteration (see [`Problem::solve_mixed`]): `None` when
    /// it does not apply (options, tableau) or its matrix is singular or ill-conditioned.
    #[allow(clippy::type_complexity)]
    fn structured_solve<const S: usize, F: SaddleOps<N, M> + CoupledBlocks<'a, Sys, N, M, K>>(
        &self,
        tab: &SparkTableau<S>,
        start: &StepStart<N, M>,
        rates: &CoupledStart<N, M, K>,
    ) -> Option<Result<(<MixedLayout<N, M, K, S> as Layout>::Of<f64>, u32), Error>> {
        let residual = |it: &Blocks<N, M, K, S, 1>, r: &mut Blocks<N, M, K, S, 1>| {
            self.coupled_residual(tab, start, it, r)
        };
        let solved =
            self.structured_coupled::<S, 1, F>(tab, Scheme::spark(tab), start, rates, residual)?;
        Some(solved.map(|(it, iterations)| (it.to_flat(), iterations)))
    }

    /// The residuals of E1-E6 at the iterate `it`, block by block (rows as [`Blocks`] says),
    /// from what the iterations evaluate: momenta and forces, `g` and `G̃ᵀμ` at the Lobatto
    /// nodes, the hidden constraint and `k` at the end, `k` and `k_vᵀν` at the stages (each
    /// point's terms from one fused evaluation, [`Lagrangian::stage_terms`] and
    /// [`Lagrangian::end_terms`]).
    fn coupled_residual<const S: usize>(
        &self,
        tab: &SparkTableau<S>,
        start: &StepStart<N, M>,
        it: &Blocks<N, M, K, S, 1>,
        r: &mut Blocks<N, M, K, S, 1>,
    ) {
        let (sys, h) = (self.sys, self.h);
        let (t0, q0) = (start.t0, start.q0);
        let st = tab.s_tilde;
        let vs = &it.x.stages;
        let v1 = it.x.v1();
        let combine = |coef: &[f64; S]| stage_position(&q0, h, coef, vs);
        let (t1, q1) = (t0 + h, combine(&tab.b));
        // −p0 + the start reaction, shared by every momentum row up to its weight.
        let start_reaction = start.gq0.tr_mul(&it.mu.first);
        let zero_n = SVector::<f64, N>::zeros();
        let mut forces = [zero_n; S];
        let mut nh_reactions = [zero_n; S];
        let mut ks = [SVector::<f64, K>::zeros(); S];
        for i in 0..S {
            let ti = t0 + tab.c[i] * h;
            let qi = combine(&tab.a[i]);
            // Momentum, force, k and k_vᵀν from one evaluation.
            let (p, f, k, reaction) = sys.stage_terms(ti, &qi, &vs[i], &it.nu[i]);
            r.x.stages[i] = p - start.p0;
            forces[i] = f;
            (ks[i], nh_reactions[i]) = (k, reaction);
        }
        // Momentum, hidden constraint and k at the end point from one evaluation, with g and
        // G̃ᵀμ of the last Lobatto node where it is the end point (`c̃ = 1`, `ā = b`: the
        // Gauss-Lobatto and Lobatto tableaux), the same values as evaluated there.
        let last = st.wrapping_sub(1);
        let at_end = st > 0 && tab.c_lob[last] == 1.0 && tab.a_bar[last] == tab.b;
        let mut reactions = [zero_n; S];
        let end_mu = if at_end {
            it.mu.rest[last]
        } else {
            SVector::zeros()
        };
        let (p1, w1, k1, g1, reaction1) = sys.end_terms(t1, &q1, v1, &end_mu);
        if at_end {
            r.mu.rest[last] = g1 / h;
            reactions[last] = reaction1;
        }
        r.x.ends[0] = p1 - start.p0;
        // Lobatto nodes 1..s̃: E3 and the reactions G̃_jᵀ μ_j.
        for j in 0..S {
            if at_end && j == last {
                continue;
            }
            if j < st {
                let (g, react) = sys.constraint_reaction(
                    t0 + tab.c_lob[j] * h,
                    &combine(&tab.a_bar[j]),
                    &it.mu.rest[j],
                );
                r.mu.rest[j] = g / h;
                reactions[j] = react;
            } else {
                r.mu.rest[j] = it.mu.rest[j];
            }
        }
        let momentum_row = |rho: &mut SVector<f64, N>, w: &MomentumWeights<'_, S>| {
            rho.axpy(w.start, &start_reaction, 1.0);
            for j in 0..S {
                rho.axpy(-h * w.force[j], &forces[j], 1.0);
                rho.axpy(w.nonholonomic[j], &nh_reactions[j], 1.0);
                rho.axpy(w.lobatto[j], &reactions[j], 1.0);
            }
        };
        for i in 0..S {
            momentum_row(&mut r.x.stages[i], &MomentumWeights::spark_stage(tab, i));
        }
        momentum_row(&mut r.x.ends[0], &MomentumWeights::spark_end(tab));
        // E4, E5, E6.
        r.mu.first = w1;
        if K > 0 {
            r.nu[0] = k1;
            for i in 1..S {
                let mut s = SVector::<f64, K>::zeros();
                for j in 0..S {
                    s.axpy(moment_weight(tab, i, j), &ks[j], 1.0);
                }
                r.nu[i] = s;
            }
        }
    }
}
