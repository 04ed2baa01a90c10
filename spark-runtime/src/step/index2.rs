//! The Lobatto-type methods for partitioned index-2 DAEs of paper 002 ((2.5a-c) = (2.6a-c)),
//! written for Lagrangian systems with nonholonomic constraints `k(t, q, v) = 0` only.
//!
//! Paper 002 integrates `q' = f(q, p)`, `p' = g(q, p, λ)`, `0 = φ(q, p)` with `A` = Lobatto
//! IIIA, `Â` = Lobatto IIIB and imposes the constraint at every Lobatto node `i ≥ 2` on the
//! IIIA-updated momenta `L_i = p0 + h Σ_j a_ij g(Q_j, P_j, Λ_j)`, with `Λ_1 = λ0` given and
//! `λ1 = Λ_s`. In the Lagrangian setting of this library (`p = ∇_v L`, `g = ∇_q L − k_vᵀψ`,
//! `f` = the velocity), with `T_i = t0 + c_i h`, `Q_i = q0 + h Σ_j a_ij V_j`,
//! `F_j = ∇_q L(T_j, Q_j, V_j)`, `K_j = k_v(T_j, Q_j, V_j)`, one step solves for the stage
//! velocities `V_1..V_s`, velocities `W_2..W_s` representing `L_i` and the multipliers
//! `Ψ_2..Ψ_s`:
//!
//! ```text
//! E1  ∇_vL(T_i,Q_i,V_i) − p0 − Σ_j â_ij (h F_j − K_jᵀ hΨ_j) = 0       i = 1..s   (P_i, IIIB)
//! E2  ∇_vL(T_i,Q_i,W_i) − p0 − Σ_j a_ij (h F_j − K_jᵀ hΨ_j) = 0       i = 2..s   (L_i, IIIA)
//! E3  k(T_i, Q_i, W_i) = 0                                             i = 2..s   (0 = φ(Q_i, L_i))
//! ```
//!
//! with `Ψ_1 = ψ0` fixed, and returns `q1 = Q_s = q0 + h Σ_j b_j V_j`, `v1 = W_s` (`L_s = p1` by
//! H3 and `b̂ = b`), `ψ1 = Ψ_s`. For a hyperregular `L` this is exactly 002's method applied to
//! the Hamiltonian form of the system (the Legendre map takes `P_i ↔ V_i`, `L_i ↔ W_i`).
//!
//! **The multiplier at the step start.** 002's method carries `λ` between steps (`Λ_1` = the
//! previous step's `Λ_s`), but [`State`] has no multiplier. Two entry points are therefore
//! provided:
//!
//! * [`Problem::index2_with_multiplier`] takes `ψ0` and returns `Ψ_s`: feeding each step's output into the
//!   next is 002's method exactly (start it with [`Problem::consistent_multiplier`] at `t0`, which gives
//!   002's `λ0`).
//! * [`LobattoIIIABIndex2`](crate::LobattoIIIABIndex2), the [`Method`](crate::Method) used by [`crate::Integrator`], restarts every step
//!   with `ψ0` = [`Problem::consistent_multiplier`] of `(t0, q0, v0)`: the multiplier of the index-1
//!   system `[[L_vv, Kᵀ], [K, 0]] [a; ψ] = [∇_qL − L_vq v − L_vt; −k_q v − k_t]` (the `t`
//!   derivatives by central differences, exactly zero for autonomous models). This makes the
//!   method a one-step map on `(t, q, v)`; `ψ0` is then accurate to the order of `(q0, v0)`,
//!   better than the inherited `Λ_s` (order `s` or `s − 1`), so the order `2s − 2` in `q`, `v`
//!   is kept. Measured on 002's E8 at `T = 1` (tests/suite/lobatto_index2.rs compares both
//!   variants): same orders 2, 4, 6, 8 for `s = 2..5`, with errors larger by factors
//!   ≈ 1.1, 1.9, 1.0, 1.0–1.3 than with the inherited multiplier; the last `Ψ_s` of the restart
//!   variant converges with order 2, 3, 4, ≈4 (inherited: 2, 2, 4, 4). The price is symmetry
//!   (see [`LobattoIIIABIndex2`](crate::LobattoIIIABIndex2)) and one extra `(N + K)`-sized linear solve per step.
//!   The neglected/approximated terms matter only for time-dependent models: there `L_vt` and
//!   `k_t` come from differences with about 1e-10 relative error (not tested).
//!
//! The equations are solved first by simplified Newton with a block-structured matrix (the
//! mass matrix's factors and a `K × K` Schur complement, `index2_structured`); where that does
//! not apply or converges slowly, by Newton's method with the exact Jacobian on the unknowns
//! `V_1..V_s`, `W_1..W_s`, `hΨ_1..hΨ_s` (the slots `W_1`, `hΨ_1` are pinned by the rows
//! `W_1 = v0`, `hΨ_1 = hψ0`, which keeps the buffer sizes sums of products of the const
//! generics). Scaling the multipliers by `h` keeps every block O(1) as `h → 0`.
//!
//! Sign convention: the reaction force is `−k_vᵀψ` as everywhere in this library; 002's E8
//! writes `p' = … + λ μ(q)` with `φ = μ(q) H_p`, so for `k = μ(q) v` its `λ` is `−ψ`.

// The loops index stages and components the way the paper writes its subscripts.
#![allow(clippy::needless_range_loop)]

use nalgebra::{SMatrix, SVector};

use crate::error::Error;
use crate::linalg::dense_newton::{self, add_block, DenseProblem};
use crate::linalg::layout::{flat, Arr, Cat, Layout, Scalar};
use crate::linalg::vector::all_finite;
use crate::model::blocks::{ConstraintJacobian, DynamicsJacobian, NonholonomicJacobian};
use crate::model::{Lagrangian, State};
use crate::options::StepStats;
use crate::step::assembly::{MomentumWeights, ReactionColumns, StageEvaluations, ZeroBlocks};
use crate::step::index2_structured::{Index2Unknowns, Start};
use crate::step::problem::Problem;
use crate::tableau::Index2Tableau;

/// The error for holonomic constraints.
pub(crate) const HOLONOMIC: Error = Error::Unsupported {
    what: "LobattoIIIABIndex2 on holonomic constraints (002's method is for index-2 \
           nonholonomic constraints only; use LobattoIIIAB)",
};

/// Unknowns of the Newton solve, in this order: `V_1..V_S`, `W_1..W_S`, `hΨ_1..hΨ_S`. Residual
/// rows use the same blocks: E1, (pin `W_1`, E2), (pin `hΨ_1`, E3).
type Index2Layout<const N: usize, const K: usize, const S: usize> =
    Cat<Cat<Arr<Arr<Scalar, N>, S>, Arr<Arr<Scalar, N>, S>>, Arr<Arr<Scalar, K>, S>>;

/// Number of unknowns (and equations) of the step: `S(2N + K)`.
#[doc(hidden)]
pub fn system_len<const N: usize, const K: usize, const S: usize>() -> usize {
    <Index2Layout<N, K, S> as Layout>::LEN
}

/// Offsets of the unknown blocks (0-based stage index).
struct Off<const N: usize, const K: usize, const S: usize>;

impl<const N: usize, const K: usize, const S: usize> Off<N, K, S> {
    const fn v(i: usize) -> usize {
        i * N
    }
    const fn w(i: usize) -> usize {
        (S + i) * N
    }
    const fn mu(i: usize) -> usize {
        2 * S * N + i * K
    }
}

/// Residual of E1-E3 (and the pins) at `x` and, if asked, the exact Jacobian (row-major).
impl<Sys: Lagrangian<N, M, K>, const N: usize, const M: usize, const K: usize>
    Problem<'_, Sys, N, M, K>
{
    fn assemble_index2<const S: usize>(
        &self,
        tab: &Index2Tableau<S>,
        st: &Start<N, K>,
        x: &[f64],
        r: &mut [f64],
        jac: Option<&mut [f64]>,
    ) {
        let (sys, h) = (self.sys, self.h);
        type O<const N: usize, const K: usize, const S: usize> = Off<N, K, S>;
        let len = system_len::<N, K, S>();
        let vs: [SVector<f64, N>; S] =
            core::array::from_fn(|i| SVector::from_fn(|a, _| x[O::<N, K, S>::v(i) + a]));
        let ws: [SVector<f64, N>; S] =
            core::array::from_fn(|i| SVector::from_fn(|a, _| x[O::<N, K, S>::w(i) + a]));
        let mus: [SVector<f64, K>; S] =
            core::array::from_fn(|i| SVector::from_fn(|l, _| x[O::<N, K, S>::mu(i) + l]));
        let ts: [f64; S] = core::array::from_fn(|i| st.t0 + tab.c[i] * h);
        let qs: [SVector<f64, N>; S] = core::array::from_fn(|i| {
            let mut q = st.q0;
            for j in 0..S {
                q += vs[j] * (h * tab.a[i][j]);
            }
            q
        });
        // At the stages (T_j, Q_j, V_j): forces, reactions and their derivatives.
        let dv: [DynamicsJacobian<N>; S] =
            core::array::from_fn(|j| sys.dynamics_jacobian(ts[j], &qs[j], &vs[j]));
        let nv: [NonholonomicJacobian<N, K>; S] =
            core::array::from_fn(|j| sys.nonholonomic_jacobian(ts[j], &qs[j], &vs[j], &mus[j]));
        // At the constraint points (T_i, Q_i, W_i), i ≥ 2.
        let dw: [DynamicsJacobian<N>; S] = core::array::from_fn(|i| {
            if i == 0 {
                DynamicsJacobian::default()
            } else {
                sys.dynamics_jacobian(ts[i], &qs[i], &ws[i])
            }
        });
        let nw: [NonholonomicJacobian<N, K>; S] = core::array::from_fn(|i| {
            if i == 0 {
                NonholonomicJacobian::default()
            } else {
                sys.nonholonomic_jacobian(ts[i], &qs[i], &ws[i], &SVector::zeros())
            }
        });
        // E1 and E2 are momentum-balance rows whose forces and nonholonomic reactions share their
        // weights (â_i resp. a_i): h g_j = h F_j − K_jᵀ (hΨ_j); no holonomic reactions (M = 0).
        let (gq0, mu0) = (SMatrix::<f64, M, N>::zeros(), SVector::<f64, M>::zeros());
        let cons = [ConstraintJacobian::<N, M>::default(); S];
        let no_mus = [SVector::<f64, M>::zeros(); S];
        let ev = StageEvaluations {
            h,
            a: &tab.a,
            a_bar: &tab.a,
            p0: &st.p0,
            gq0: &gq0,
            mu0: &mu0,
            dyns: &dv,
            nhs: &nv,
            nus: &mus,
            cons: &cons,
            mus: &no_mus,
            zeros: ZeroBlocks::of::<Sys, N, M, K>(),
        };
        let zero = [0.0; S];
        let weights = |row| MomentumWeights::shared(row, &zero);
        for i in 0..S {
            let e1 = ev.momentum_residual(&dv[i].p, &weights(&tab.a_hat[i]));
            r[O::<N, K, S>::v(i)..O::<N, K, S>::v(i) + N].copy_from_slice(e1.as_slice());
            let e2 = if i == 0 {
                ws[0] - st.v0
            } else {
                ev.momentum_residual(&dw[i].p, &weights(&tab.a[i]))
            };
            r[O::<N, K, S>::w(i)..O::<N, K, S>::w(i) + N].copy_from_slice(e2.as_slice());
            let e3 = if i == 0 { mus[0] - st.mu0 } else { nw[i].k };
            r[O::<N, K, S>::mu(i)..O::<N, K, S>::mu(i) + K].copy_from_slice(e3.as_slice());
        }

        let Some(jm) = jac else { return };
        jm.fill(0.0);
        let cols = ReactionColumns {
            start: None,
            lobatto: 0,
            nonholonomic: O::<N, K, S>::mu(0),
        };
        for i in 0..S {
            let own = (O::<N, K, S>::v(i), &dv[i], &tab.a[i]);
            ev.add_momentum_row(
                jm,
                len,
                O::<N, K, S>::v(i),
                own,
                &weights(&tab.a_hat[i]),
                &cols,
            );
            if i == 0 {
                // The pinned slots: W_1 = v0, hΨ_1 = hψ0.
                for a in 0..N {
                    let row = O::<N, K, S>::w(0) + a;
                    jm[row * len + row] = 1.0;
                }
                for l in 0..K {
                    let row = O::<N, K, S>::mu(0) + l;
                    jm[row * len + row] = 1.0;
                }
            } else {
                let own = (O::<N, K, S>::w(i), &dw[i], &tab.a[i]);
                ev.add_momentum_row(jm, len, O::<N, K, S>::w(i), own, &weights(&tab.a[i]), &cols);
                // E3: k(T_i, Q_i, W_i).
                add_block(
                    jm,
                    len,
                    O::<N, K, S>::mu(i),
                    O::<N, K, S>::w(i),
                    &nw[i].kv,
                    1.0,
                );
                for l in 0..S {
                    let c = h * tab.a[i][l];
                    add_block(
                        jm,
                        len,
                        O::<N, K, S>::mu(i),
                        O::<N, K, S>::v(l),
                        &nw[i].kq,
                        c,
                    );
                }
            }
        }
    }

    /// Residual and exact Jacobian of the step's equations at the flat unknown vector `x`
    /// (layout `V_1..V_S`, `W_1..W_S`, `hΨ_1..hΨ_S`; length [`system_len`]) for the start state
    /// `state` and multiplier `psi0`, for testing the Jacobian against finite differences.
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)]
    pub fn index2_residual<const S: usize>(
        &self,
        tab: &Index2Tableau<S>,
        psi0: &SVector<f64, K>,
        x: &[f64],
        r: &mut [f64],
        jac: Option<&mut [f64]>,
    ) {
        let Problem { sys, h, state, .. } = *self;
        let start = Start {
            t0: state.t,
            q0: state.q,
            v0: state.v,
            p0: sys.momentum_force(state.t, &state.q, &state.v).0,
            mu0: psi0 * h,
        };
        self.assemble_index2(tab, &start, x, r, jac);
    }

    /// The multiplier `ψ` consistent with `(t, q, v)` on a model with nonholonomic constraints
    /// only: the solution of the index-1 system
    ///
    /// ```text
    /// [[L_vv, k_vᵀ], [k_v, 0]] [a; ψ] = [∇_qL − L_vq v − L_vt; −k_q v − k_t]
    /// ```
    ///
    /// (`a = q''`). `L_vt` and `k_t` are taken by central differences in `t` with step
    /// `1e-5 (1 + |t|)` (about 1e-10 relative accuracy; exactly zero for autonomous models).
    /// For 002's E8 particle at `q0 = (1, 0, 0)`, `v0 = (0, 1, 0)` it is `ψ = −λ0 = 0`.
    ///
    /// Errors: [`Error::Unsupported`] if the model has holonomic constraints (`M > 0`),
    /// [`Error::NonFiniteState`], [`Error::SingularJacobian`] if the saddle matrix is singular.
    pub fn consistent_multiplier(&self) -> Result<SVector<f64, K>, Error> {
        let Problem { sys, state, .. } = *self;
        if M > 0 {
            return Err(HOLONOMIC);
        }
        if !state.is_finite() {
            return Err(Error::NonFiniteState);
        }
        crate::step::multipliers::lagrangian(sys, state).map(|m| m.psi)
    }

    /// One step of 002's method (2.5) with the coefficients `tab` (e.g.
    /// [`LobattoIIIABIndex2::TABLEAU`](crate::LobattoIIIABIndex2::TABLEAU)) on a model with nonholonomic constraints only, from
    /// `(state, psi0)`; returns the new state, the new multiplier `ψ1 = Ψ_S` and the cost.
    ///
    /// Calling it repeatedly with each step's `ψ1` as the next `psi0` is 002's method with the
    /// multiplier inherited between steps (start with [`Problem::consistent_multiplier`]); 002 proves order
    /// `2S − 2` in `q`, `v` and `S` (even `S`) / `S − 1` (odd `S`) in `ψ` for Lobatto IIIA-B.
    ///
    /// The state must satisfy `k(t0, q0, v0) = 0` to `options.consistency_tolerance`
    /// ([`Error::InconsistentState`] otherwise, the violation counted as a velocity). The new
    /// state satisfies `k(T_i, Q_i, W_i) = 0` at every node `i ≥ 2`, so `k(t1, q1, v1) = 0`, to
    /// Newton's tolerance. Errors ([`Error::Unsupported`] for `M > 0` or a tableau violating
    /// H1/H3, Newton failures, non-finite input) leave nothing modified.
    pub fn index2_with_multiplier<const S: usize>(
        &self,
        tab: &Index2Tableau<S>,
        psi0: &SVector<f64, K>,
    ) -> Result<(State<N>, SVector<f64, K>, StepStats), Error> {
        let (sys, h, options, state) = (self.sys, self.h, self.options, self.state);
        if M > 0 {
            return Err(HOLONOMIC);
        }
        let h1 = S >= 2 && tab.a[0].iter().all(|&x| x == 0.0);
        let h3 = S >= 2 && (0..S).all(|j| (tab.a[S - 1][j] - tab.b[j]).abs() <= 1e-14);
        if !(h1 && h3) {
            return Err(Error::Unsupported {
                what: "an index-2 tableau without S >= 2, a_1j = 0 (H1) and a_sj = b_j (H3)",
            });
        }
        if !state.is_finite() || !psi0.iter().all(|x| x.is_finite()) || !h.is_finite() || h == 0.0 {
            return Err(Error::NonFiniteState);
        }
        let (t0, q0, v0) = (state.t, state.q, state.v);
        self.check_consistent()?;
        let start = Start {
            t0,
            q0,
            v0,
            p0: sys.momentum_force(t0, &q0, &v0).0,
            mu0: psi0 * h,
        };

        type L<const N: usize, const K: usize, const S: usize> = Index2Layout<N, K, S>;
        // The structured simplified Newton first; the dense exact system (simplified, then
        // full Newton) where it does not apply or is slow.
        let (options, spent) = match self.index2_structured(tab, &start) {
            Some(Ok((x, iterations))) => {
                return self.index2_end(tab, &start, into_flat::<N, K, S>(&x), iterations)
            }
            Some(Err(
                Error::NoConvergence { iterations, .. } | Error::Diverged { iterations, .. },
            )) if options.full_newton_fallback => (options, iterations),
            Some(Err(e)) => return Err(e),
            None => (options, 0),
        };
        let problem = DenseProblem::at_step([0..2 * S * N, 0..0], 0..0, &q0, &v0, h);
        let (xbuf, iterations) = dense_newton::solve::<L<N, K, S>>(
            options,
            &problem,
            |x| {
                for i in 0..2 * S {
                    x[i * N..(i + 1) * N].copy_from_slice(v0.as_slice());
                }
                for i in 0..S {
                    x[Off::<N, K, S>::mu(i)..Off::<N, K, S>::mu(i) + K]
                        .copy_from_slice(start.mu0.as_slice());
                }
            },
            |x, r, jac| self.assemble_index2(tab, &start, x, r, jac),
        )?;
        self.index2_end(tab, &start, xbuf, iterations + spent)
    }

    /// The new state, `ψ1` and the statistics from the converged unknowns `xbuf`.
    fn index2_end<const S: usize>(
        &self,
        tab: &Index2Tableau<S>,
        start: &Start<N, K>,
        mut xbuf: <Index2Layout<N, K, S> as Layout>::Of<f64>,
        iterations: u32,
    ) -> Result<(State<N>, SVector<f64, K>, StepStats), Error> {
        let (h, t0, q0) = (self.h, start.t0, start.q0);
        let x = flat::<Index2Layout<N, K, S>, f64>(&mut xbuf);
        let mut q1 = q0;
        for j in 0..S {
            for a in 0..N {
                q1[a] += h * tab.b[j] * x[Off::<N, K, S>::v(j) + a];
            }
        }
        let v1 = SVector::<f64, N>::from_fn(|a, _| x[Off::<N, K, S>::w(S - 1) + a]);
        let psi1 = SVector::<f64, K>::from_fn(|l, _| x[Off::<N, K, S>::mu(S - 1) + l] / h);
        let next = State {
            t: t0 + h,
            q: q1,
            v: v1,
        }
        .checked()?;
        if !all_finite(&psi1) {
            return Err(Error::NonFiniteState);
        }
        Ok((
            next,
            psi1,
            StepStats {
                stage_iterations: iterations,
                end_iterations: 0,
                ..StepStats::default()
            },
        ))
    }
}

/// The structured iteration's unknowns in the flat layout of the dense solve.
fn into_flat<const N: usize, const K: usize, const S: usize>(
    x: &Index2Unknowns<N, K, S>,
) -> <Index2Layout<N, K, S> as Layout>::Of<f64> {
    type O<const N: usize, const K: usize, const S: usize> = Off<N, K, S>;
    let mut buf = <Index2Layout<N, K, S> as Layout>::fill(0.0);
    let flat_x = flat::<Index2Layout<N, K, S>, f64>(&mut buf);
    for i in 0..S {
        flat_x[O::<N, K, S>::v(i)..O::<N, K, S>::v(i) + N].copy_from_slice(x.vs[i].as_slice());
        flat_x[O::<N, K, S>::w(i)..O::<N, K, S>::w(i) + N].copy_from_slice(x.ws[i].as_slice());
        flat_x[O::<N, K, S>::mu(i)..O::<N, K, S>::mu(i) + K].copy_from_slice(x.mus[i].as_slice());
    }
    buf
}

/// The multiplier `ψ` consistent with `state`: [`Problem::consistent_multiplier`] (the start of
/// 002's method with the multiplier carried between steps).
///
/// ```
/// use spark::lobatto_index2::{consistent_multiplier, step_with_multiplier};
/// use spark::{LobattoIIIABIndex2, Options, State};
///
/// spark::mechanics! {
///     /// A particle in a quadratic well whose third velocity is tied to the others.
///     pub struct Particle {
///         coordinates: [q1, q2, q3],
///         velocities: [v1, v2, v3],
///         lagrangian: 0.5 * (v1.powi(2) + v2.powi(2) + v3.powi(2)) - 0.5 * (q1.powi(2) + q2.powi(2)),
///         nonholonomic: [v3 - q2 * v1],
///     }
/// }
///
/// let (sys, o, h) = (Particle {}, Options::default(), 0.1);
/// let mut s = State::new(0.0, [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]);
/// let mut psi = consistent_multiplier(&sys, &s).unwrap();
/// for _ in 0..10 {
///     let tab = LobattoIIIABIndex2::<3>::TABLEAU;
///     (s, psi, _) = step_with_multiplier(&tab, &sys, h, &o, &s, &psi).unwrap();
/// }
/// assert!((s.v[2] - s.q[1] * s.v[0]).abs() < 1e-12); // k = 0 at the step end
/// ```
pub fn consistent_multiplier<Sys: Lagrangian<N, 0, K>, const N: usize, const K: usize>(
    sys: &Sys,
    state: &State<N>,
) -> Result<SVector<f64, K>, Error> {
    Problem::<Sys, N, 0, K>::new(sys, 0.0, &crate::Options::default(), state)
        .consistent_multiplier()
}

/// One step of 002's method with the multiplier carried by the caller:
/// [`Problem::index2_with_multiplier`]. See [`consistent_multiplier`] for an example.
pub fn step_with_multiplier<
    Sys: Lagrangian<N, 0, K>,
    const N: usize,
    const K: usize,
    const S: usize,
>(
    tab: &Index2Tableau<S>,
    sys: &Sys,
    h: f64,
    options: &crate::Options,
    state: &State<N>,
    psi0: &SVector<f64, K>,
) -> Result<(State<N>, SVector<f64, K>, StepStats), Error> {
    Problem::<Sys, N, 0, K>::new(sys, h, options, state).index2_with_multiplier(tab, psi0)
}
