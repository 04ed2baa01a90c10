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
use crate::linalg::layout::{flat, Arr, Cat, Layout, Scalar};
use crate::model::blocks::{ConstraintJacobian, DynamicsJacobian, NonholonomicJacobian};
use crate::model::{Lagrangian, State};
use crate::options::StepStats;
use crate::step::assembly::{
    add_hidden_constraint_row, MomentumWeights, ReactionColumns, StageEvaluations, ZeroBlocks,
};
use crate::step::start::StepStart;
use crate::step::Problem;
use crate::tableau::SparkTableau;

/// Unknowns of the monolithic solve: `V_1..V_S`, `v1`, `μ_0`, `μ_1..μ_S`, `ν_1..ν_S` (`K > 0`),
/// or `V_1..V_S`, `μ_0..μ_S`, `v1` (`K = 0`); where each block and each equation's rows sit is
/// [`Offsets`]' business. The layout only counts the lengths.
pub(crate) type MixedLayout<const N: usize, const M: usize, const K: usize, const S: usize> = Cat<
    Cat<Arr<Arr<Scalar, N>, S>, Arr<Scalar, N>>,
    Cat<Cat<Arr<Scalar, M>, Arr<Arr<Scalar, M>, S>>, Arr<Arr<Scalar, K>, S>>,
>;

/// Number of unknowns (and equations) of the mixed step: `(S+1)(N+M) + S·K`.
#[doc(hidden)]
pub fn system_len<const N: usize, const M: usize, const K: usize, const S: usize>() -> usize {
    <MixedLayout<N, M, K, S> as Layout>::LEN
}

/// Offsets of the unknown blocks in the flat vector, and the rows of the equations.
///
/// With nonholonomic constraints (`K > 0`) the unknowns are `V_1..V_S`, `v1`, `μ_0..μ_S`,
/// `ν_1..ν_S`, and the rows E1, E2, E4 (at `μ_0`'s), E3 (at `μ_1..μ_s̃`'s), E5, E6.
///
/// Without them (`K = 0`, the holonomic step, whose Jacobian [`crate::step::jacobian`] builds
/// on this system) the unknowns are `V_1..V_S`, `μ_0..μ_S`, `v1` and the rows E1, E3 (at
/// `μ_0..μ_{s̃−1}`'s), E4 (at `μ_s̃`'s), E2 (at `v1`'s): the stage equations (E1, E3) involve
/// only the stage unknowns (`V_1..V_S`, `μ_0..μ_{s̃−1}`), which come first, so the matrix is
/// block lower triangular as assembled, with a leading block of [`Offsets::stage_len`] rows.
/// (Reordering the first layout into this one after assembly cost 6 % of the 2-link chain's
/// step Jacobian.)
///
/// An unused multiplier slot (`s̃ = S − 1`: `μ_S`) has its identity row at its own column in
/// both layouts.
#[derive(Clone, Copy)]
pub(crate) struct Offsets<const N: usize, const M: usize, const K: usize, const S: usize>;

impl<const N: usize, const M: usize, const K: usize, const S: usize> Offsets<N, M, K, S> {
    /// `V_i`, `i = 0..S-1` (0-based).
    pub(crate) const fn v(i: usize) -> usize {
        i * N
    }
    /// `v1`.
    pub(crate) const V1: usize = if K == 0 { S * N + (S + 1) * M } else { S * N };
    /// `μ_j`, `j = 0..S` (Lobatto index).
    pub(crate) const fn mu(j: usize) -> usize {
        if K == 0 {
            S * N + j * M
        } else {
            (S + 1) * N + j * M
        }
    }
    /// `ν_j`, `j = 0..S-1` (0-based Gauss index).
    pub(crate) const fn nu(j: usize) -> usize {
        (S + 1) * (N + M) + j * K
    }
    /// The first row of E3, `g(Q̃_j)/h` (`j = 1..s̃`); row block `j` is `M` rows further.
    pub(crate) const fn position_row(j: usize) -> usize {
        if K == 0 {
            Self::mu(j)
        } else {
            Self::mu(j + 1)
        }
    }
    /// The first row of E4, the hidden constraint at `t1`, for `s̃ = st`.
    pub(crate) const fn hidden_row(st: usize) -> usize {
        if K == 0 {
            Self::mu(st)
        } else {
            Self::mu(0)
        }
    }
    /// The rows of E3 for `s̃ = st` (with `K > 0`, and the unused slot's identity row after
    /// them), whose rounding [`DenseProblem`] scales as positions over `h`.
    pub(crate) const fn position_rows(st: usize) -> core::ops::Range<usize> {
        if K == 0 {
            Self::position_row(0)..Self::position_row(st)
        } else {
            Self::mu(1)..Self::mu(S + 1)
        }
    }
    /// The number of stage unknowns, `S N + s̃ M` for `s̃ = st`: with `K = 0` the leading
    /// block of the block lower triangular matrix.
    pub(crate) const fn stage_len(st: usize) -> usize {
        S * N + st * M
    }
    /// The velocity unknowns: `V_1..V_S` and `v1`.
    pub(crate) const VELOCITIES: [core::ops::Range<usize>; 2] = [0..S * N, Self::V1..Self::V1 + N];
}

/// `ω_ij = b_j c_j^{i−1}`: the weight of stage `j` in the `i`-th moment of the nonholonomic
/// constraints (E6; 0-based `i = 1..S−1`).
pub(crate) fn moment_weight<const S: usize>(tab: &SparkTableau<S>, i: usize, j: usize) -> f64 {
    tab.b[j] * libm::pow(tab.c[j], (i - 1) as f64)
}

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

impl<Sys: Lagrangian<N, M, K>, const N: usize, const M: usize, const K: usize>
    Problem<'_, Sys, N, M, K>
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
        let (_, mut xbuf, iterations) = self.solve_mixed(tab)?;
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

    /// Solves the mixed step's equations: the step-start quantities, the converged unknowns
    /// (layout [`MixedLayout`]) and the Newton iterations.
    #[allow(clippy::type_complexity)]
    pub(crate) fn solve_mixed<const S: usize>(
        &self,
        tab: &SparkTableau<S>,
    ) -> Result<
        (
            StepStart<N, M>,
            <MixedLayout<N, M, K, S> as Layout>::Of<f64>,
            u32,
        ),
        Error,
    > {
        let (sys, h, options, state) = (self.sys, self.h, self.options, self.state);
        if !(tab.s_tilde == S || (tab.s_tilde + 1 == S && tab.s_tilde >= 1)) {
            return Err(Error::Unsupported {
                what: "a SPARK tableau with s̃ other than S or S − 1 in the mixed step",
            });
        }
        if !state.is_finite() {
            return Err(Error::NonFiniteState);
        }
        let (q0, v0) = (state.q, state.v);

        // Consistency of g, the hidden constraint and k at the step start.
        let gq0 = self.check_consistent()?;
        let start = StepStart::new(sys, state, gq0);

        type O<const N: usize, const M: usize, const K: usize, const S: usize> =
            Offsets<N, M, K, S>;
        let problem = DenseProblem::at_step(
            O::<N, M, K, S>::VELOCITIES,
            O::<N, M, K, S>::position_rows(tab.s_tilde),
            &q0,
            &v0,
            h,
        );
        let (xbuf, iterations) = dense_newton::solve::<MixedLayout<N, M, K, S>>(
            options,
            &problem,
            |x| {
                for range in O::<N, M, K, S>::VELOCITIES {
                    for at in range.step_by(N.max(1)) {
                        x[at..at + N].copy_from_slice(v0.as_slice());
                    }
                }
            },
            |x, r, jac| self.assemble_mixed(tab, &start, x, r, jac),
        )?;
        Ok((start, xbuf, iterations))
    }
}
