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
//! * [`step_with_multiplier`] takes `ψ0` and returns `Ψ_s`: feeding each step's output into the
//!   next is 002's method exactly (start it with [`consistent_multiplier`] at `t0`, which gives
//!   002's `λ0`).
//! * [`LobattoIIIABIndex2`], the [`Method`] used by [`crate::Integrator`], restarts every step
//!   with `ψ0` = [`consistent_multiplier`] of `(t0, q0, v0)`: the multiplier of the index-1
//!   system `[[L_vv, Kᵀ], [K, 0]] [a; ψ] = [∇_qL − L_vq v − L_vt; −k_q v − k_t]` (the `t`
//!   derivatives by central differences, exactly zero for autonomous models). This makes the
//!   method a one-step map on `(t, q, v)`; `ψ0` is then accurate to the order of `(q0, v0)`,
//!   better than the inherited `Λ_s` (order `s` or `s − 1`), so the order `2s − 2` in `q`, `v`
//!   is kept. Measured on 002's E8 at `T = 1` (tests/lobatto_index2.rs compares both
//!   variants): same orders 2, 4, 6, 8 for `s = 2..5`, with errors larger by factors
//!   ≈ 1.1, 1.9, 1.0, 1.0–1.3 than with the inherited multiplier; the last `Ψ_s` of the restart
//!   variant converges with order 2, 3, 4, ≈4 (inherited: 2, 2, 4, 4). The price is symmetry
//!   (see [`LobattoIIIABIndex2`]) and one extra `(N + K)`-sized linear solve per step.
//!   The neglected/approximated terms matter only for time-dependent models: there `L_vt` and
//!   `k_t` come from differences with about 1e-10 relative error (not tested).
//!
//! The equations are solved by one Newton iteration with the exact Jacobian on the unknowns
//! `V_1..V_s`, `W_1..W_s`, `hΨ_1..hΨ_s` (the slots `W_1`, `hΨ_1` are pinned by the rows
//! `W_1 = v0`, `hΨ_1 = hψ0`, which keeps the buffer sizes sums of products of the const
//! generics). Scaling the multipliers by `h` keeps every block O(1) as `h → 0`.
//!
//! Sign convention: the reaction force is `−k_vᵀψ` as everywhere in this library; 002's E8
//! writes `p' = … + λ μ(q)` with `φ = μ(q) H_p`, so for `k = μ(q) v` its `λ` is `−ψ`.

// The loops index stages and components the way the paper writes its subscripts.
#![allow(clippy::needless_range_loop)]

use nalgebra::{SMatrix, SVector};

use crate::dense_newton::{self, add_block, DenseProblem};
use crate::error::{Error, Phase};
use crate::integrator::{Method, Options, StepStats};
use crate::layout::{flat, flat_square, zero_square, Arr, Cat, Layout, Scalar};
use crate::lu;
use crate::methods::LobattoIIIAB;
use crate::nonholonomic::{check_consistent, Nonholonomic, NonholonomicJacobian};
use crate::odae_step::Point;
use crate::state::{all_finite, State};
use crate::system::{DynamicsJacobian, Lagrangian, Odae};
use crate::tableau::{lobatto_iiia, lobatto_iiib, lobatto_rule};

/// The coefficients of a method of 002's form (2.5): `A` (H1 `a_1j = 0`, H3 `a_sj = b_j`),
/// its symplectic conjugate `Â`, and the common nodes `c` and weights `b = b̂`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Index2Tableau<const S: usize> {
    /// Nodes `c_i` (shared by `A` and `Â`, 002's H*).
    pub c: [f64; S],
    /// Weights `b_j = b̂_j`.
    pub b: [f64; S],
    /// `A` (Lobatto IIIA): positions and the momenta `L_i` on which the constraint is imposed.
    pub a: [[f64; S]; S],
    /// `Â` (Lobatto IIIB): the stage momenta `P_i`.
    pub a_hat: [[f64; S]; S],
}

/// Lobatto IIIA-B for nonholonomic (index-2) Lagrangian systems in the form of paper 002:
/// `A` = Lobatto IIIA, `Â` = Lobatto IIIB with `S ≥ 2` stages, the constraint
/// `k(T_i, Q_i, W_i) = 0` imposed pointwise at every Lobatto node `i ≥ 2` on the IIIA-updated
/// momenta (see the [module documentation](self) for the equations).
///
/// * **Order** `2S − 2` in `q` and `v` (002, Cor 3.1; measured for `S = 2..5` in
///   tests/lobatto_index2.rs).
/// * **Symmetry**: 002's method with the multiplier carried ([`step_with_multiplier`]) is
///   symmetric as a map of `(q, v, ψ)` (stepping back with `−h` from `(q1, v1, Ψ_S)` returns
///   to the start to round-off). The [`Method`] form is **not** symmetric: its backward step
///   starts from the consistent multiplier of `(q1, v1)`, not from `Ψ_S` (measured
///   back-and-forth error 1.7e-4, 1.7e-7, 1.1e-10 for `S = 2, 3, 4` at `h = 0.2` on E8).
/// * **Preserves** `k = 0` at every Lobatto node `i ≥ 2`, in particular
///   `k(t1, q1, v1) = 0` at every step end (to Newton's tolerance).
/// * **Multiplier**: through [`crate::Integrator`] each step starts from the consistent
///   multiplier of `(t0, q0, v0)` ([`consistent_multiplier`]) instead of 002's inherited
///   `Λ_s`; [`step_with_multiplier`] is 002's method with the multiplier carried by the caller
///   (`Λ_s` then has order `S` for even `S`, `S − 1` for odd `S`).
/// * **Versus [`LobattoIIIAB`]** (Jay's Lagrange-d'Alembert Lobatto IIIA-B SPARK method):
///   same `A`, `Â` and order, but the reactions are weighted with `A` in the momenta `L_i`
///   where the constraint is imposed (SPARK: `Ã` = IIIB) and the constraint holds pointwise at
///   the nodes `2..S` on `(Q_i, W_i)` (SPARK: `S − 1` weighted moments of `k` at the stages
///   plus `k = 0` at the end). For `S = 2` both impose `k` at the step end only, but they
///   differ in the stage multiplier: here `Ψ_1` is given, in the SPARK method it is unknown.
///
/// Models with holonomic constraints are not supported ([`Error::Unsupported`]): 002's method
/// is for index-2 constraints. On unconstrained models (`M = 0`, no `k`) it is the Lobatto
/// IIIA-IIIB pair, and the step is that of [`LobattoIIIAB`] (identical equations). Hamiltonian
/// and DAE models are not supported.
///
/// ```
/// use spark_runtime::{LobattoIIIABIndex2, Method};
/// let t = LobattoIIIABIndex2::<3>::TABLEAU;
/// assert_eq!(t.a[0], [0.0; 3]); // H1: Q_1 = q0, L_1 = p0
/// assert_eq!(t.a_hat[1][2], 0.0); // H1': Λ_s enters only through L_s
/// assert_eq!(LobattoIIIABIndex2::<3>::ORDER, 4);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct LobattoIIIABIndex2<const S: usize>;

impl<const S: usize> LobattoIIIABIndex2<S> {
    /// The coefficients, computed at compile time.
    pub const TABLEAU: Index2Tableau<S> = {
        assert!(S >= 2, "LobattoIIIABIndex2<S> needs S >= 2 stages");
        let (c, b) = lobatto_rule::<S>();
        Index2Tableau {
            c,
            b,
            a: lobatto_iiia::<S>(),
            a_hat: lobatto_iiib::<S>(),
        }
    };
}

/// The error for holonomic constraints.
const HOLONOMIC: Error = Error::Unsupported {
    what: "LobattoIIIABIndex2 on holonomic constraints (002's method is for index-2 \
           nonholonomic constraints only; use LobattoIIIAB)",
};

impl<const S: usize> Method for LobattoIIIABIndex2<S> {
    const ORDER: usize = 2 * S - 2;

    fn step<Sys: Lagrangian<N, M>, const N: usize, const M: usize>(
        sys: &Sys,
        h: f64,
        options: &Options,
        state: &State<N>,
    ) -> Result<(State<N>, StepStats), Error> {
        if M > 0 {
            return Err(HOLONOMIC);
        }
        // Without constraints (2.5) is the Lobatto IIIA-IIIB pair: LobattoIIIAB's step.
        crate::spark_step::step(&LobattoIIIAB::<S>::TABLEAU, sys, h, options, state)
    }

    fn step_mixed<Sys: Nonholonomic<N, M, K>, const N: usize, const M: usize, const K: usize>(
        sys: &Sys,
        h: f64,
        options: &Options,
        state: &State<N>,
    ) -> Result<(State<N>, StepStats), Error> {
        if M > 0 {
            return Err(HOLONOMIC);
        }
        let psi0 = consistent_multiplier(sys, state)?;
        let (next, _, stats) = step_with_multiplier(&Self::TABLEAU, sys, h, options, state, &psi0)?;
        Ok((next, stats))
    }

    fn step_odae<Sys: Odae<N, M>, const N: usize, const M: usize>(
        _sys: &Sys,
        _h: f64,
        _options: &Options,
        _start: &Point<N, M>,
    ) -> Result<(Point<N, M>, StepStats), Error> {
        Err(Error::Unsupported {
            what: "LobattoIIIABIndex2 on Hamiltonian or DAE models",
        })
    }
}

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

/// Step-start data that do not depend on the unknowns.
struct Start<const N: usize, const K: usize> {
    t0: f64,
    q0: SVector<f64, N>,
    v0: SVector<f64, N>,
    p0: SVector<f64, N>,
    /// `h ψ0`.
    mu0: SVector<f64, K>,
}

/// Residual of E1-E3 (and the pins) at `x` and, if asked, the exact Jacobian (row-major).
fn assemble<
    Sys: Nonholonomic<N, M, K>,
    const N: usize,
    const M: usize,
    const K: usize,
    const S: usize,
>(
    tab: &Index2Tableau<S>,
    sys: &Sys,
    h: f64,
    st: &Start<N, K>,
    x: &[f64],
    r: &mut [f64],
    jac: Option<&mut [f64]>,
) {
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
    // h g_j = h F_j − K_jᵀ (hΨ_j).
    let hg: [SVector<f64, N>; S] =
        core::array::from_fn(|j| dv[j].f * h - nv[j].kv.transpose() * mus[j]);
    let weighted = |row: &[f64; S]| {
        let mut s = SVector::<f64, N>::zeros();
        for j in 0..S {
            s += hg[j] * row[j];
        }
        s
    };
    for i in 0..S {
        let e1 = dv[i].p - st.p0 - weighted(&tab.a_hat[i]);
        r[O::<N, K, S>::v(i)..O::<N, K, S>::v(i) + N].copy_from_slice(e1.as_slice());
        let e2 = if i == 0 {
            ws[0] - st.v0
        } else {
            dw[i].p - st.p0 - weighted(&tab.a[i])
        };
        r[O::<N, K, S>::w(i)..O::<N, K, S>::w(i) + N].copy_from_slice(e2.as_slice());
        let e3 = if i == 0 { mus[0] - st.mu0 } else { nw[i].k };
        r[O::<N, K, S>::mu(i)..O::<N, K, S>::mu(i) + K].copy_from_slice(e3.as_slice());
    }

    let Some(jm) = jac else { return };
    for e in jm.iter_mut() {
        *e = 0.0;
    }
    // ∂(h g_j)/∂V_l.
    let dhg = |j: usize, l: usize| {
        let ajl = tab.a[j][l];
        let mut m = dv[j].lqq * (h * h * ajl) - nv[j].hess_vq * (h * ajl);
        if j == l {
            m += dv[j].lvq.transpose() * h - nv[j].hess_vv;
        }
        m
    };
    for i in 0..S {
        for l in 0..S {
            // E1 and E2 rows share −Σ_j w_ij ∂(h g_j)/∂V_l with w = â resp. a.
            let mut b1 = dv[i].lvq * (h * tab.a[i][l]);
            if i == l {
                b1 += dv[i].lvv;
            }
            let mut b2 = dw[i].lvq * (h * tab.a[i][l]);
            for j in 0..S {
                let (wh, wa) = (tab.a_hat[i][j], tab.a[i][j]);
                if wh != 0.0 || (i > 0 && wa != 0.0) {
                    let d = dhg(j, l);
                    b1 -= d * wh;
                    b2 -= d * wa;
                }
            }
            add_block(jm, len, O::<N, K, S>::v(i), O::<N, K, S>::v(l), &b1, 1.0);
            // ∂/∂(hΨ_l) of −Σ_j w_ij (−K_jᵀ hΨ_j) = w_il K_lᵀ.
            let ktl = nv[l].kv.transpose();
            add_block(
                jm,
                len,
                O::<N, K, S>::v(i),
                O::<N, K, S>::mu(l),
                &ktl,
                tab.a_hat[i][l],
            );
            if i > 0 {
                add_block(jm, len, O::<N, K, S>::w(i), O::<N, K, S>::v(l), &b2, 1.0);
                add_block(
                    jm,
                    len,
                    O::<N, K, S>::w(i),
                    O::<N, K, S>::mu(l),
                    &ktl,
                    tab.a[i][l],
                );
                add_block(
                    jm,
                    len,
                    O::<N, K, S>::mu(i),
                    O::<N, K, S>::v(l),
                    &nw[i].kq,
                    h * tab.a[i][l],
                );
            }
        }
        if i == 0 {
            let id_n = SMatrix::<f64, N, N>::identity();
            let id_k = SMatrix::<f64, K, K>::identity();
            add_block(jm, len, O::<N, K, S>::w(0), O::<N, K, S>::w(0), &id_n, 1.0);
            add_block(
                jm,
                len,
                O::<N, K, S>::mu(0),
                O::<N, K, S>::mu(0),
                &id_k,
                1.0,
            );
        } else {
            add_block(
                jm,
                len,
                O::<N, K, S>::w(i),
                O::<N, K, S>::w(i),
                &dw[i].lvv,
                1.0,
            );
            add_block(
                jm,
                len,
                O::<N, K, S>::mu(i),
                O::<N, K, S>::w(i),
                &nw[i].kv,
                1.0,
            );
        }
    }
}

/// Residual and exact Jacobian of the step's equations at the flat unknown vector `x`
/// (layout `V_1..V_S`, `W_1..W_S`, `hΨ_1..hΨ_S`; length [`system_len`]) for the start state
/// `state` and multiplier `psi0`, for testing the Jacobian against finite differences.
#[doc(hidden)]
#[allow(clippy::too_many_arguments)]
pub fn residual_and_jacobian<
    Sys: Nonholonomic<N, M, K>,
    const N: usize,
    const M: usize,
    const K: usize,
    const S: usize,
>(
    tab: &Index2Tableau<S>,
    sys: &Sys,
    h: f64,
    state: &State<N>,
    psi0: &SVector<f64, K>,
    x: &[f64],
    r: &mut [f64],
    jac: Option<&mut [f64]>,
) {
    let start = Start {
        t0: state.t,
        q0: state.q,
        v0: state.v,
        p0: sys.momentum_force(state.t, &state.q, &state.v).0,
        mu0: psi0 * h,
    };
    assemble::<Sys, N, M, K, S>(tab, sys, h, &start, x, r, jac);
}

type Saddle<const N: usize, const K: usize> = Cat<Arr<Scalar, N>, Arr<Scalar, K>>;

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
pub fn consistent_multiplier<
    Sys: Nonholonomic<N, M, K>,
    const N: usize,
    const M: usize,
    const K: usize,
>(
    sys: &Sys,
    state: &State<N>,
) -> Result<SVector<f64, K>, Error> {
    if M > 0 {
        return Err(HOLONOMIC);
    }
    if !state.is_finite() {
        return Err(Error::NonFiniteState);
    }
    let (t, q, v) = (state.t, state.q, state.v);
    let zero = SVector::<f64, K>::zeros();
    let d = sys.dynamics_jacobian(t, &q, &v);
    let nh = sys.nonholonomic_jacobian(t, &q, &v, &zero);
    let dt = 1e-5 * (1.0 + t.abs());
    let (pp, _) = sys.momentum_force(t + dt, &q, &v);
    let (pm, _) = sys.momentum_force(t - dt, &q, &v);
    let lvt = (pp - pm) / (2.0 * dt);
    let kt = (sys.nonholonomic_constraints(t + dt, &q, &v)
        - sys.nonholonomic_constraints(t - dt, &q, &v))
        / (2.0 * dt);
    let top = d.f - d.lvq * v - lvt;
    let bottom = -(nh.kq * v) - kt;

    let n = <Saddle<N, K> as Layout>::LEN;
    let mut jac = zero_square::<Saddle<N, K>>();
    let mut rhs = <Saddle<N, K> as Layout>::fill(0.0);
    for a in 0..N {
        for b in 0..N {
            jac.0[a].0[b] = d.lvv[(a, b)];
        }
        for l in 0..K {
            jac.0[a].1[l] = nh.kv[(l, a)];
            jac.1[l].0[a] = nh.kv[(l, a)];
        }
        rhs.0[a] = top[a];
    }
    for l in 0..K {
        rhs.1[l] = bottom[l];
    }
    let mut perm = <Saddle<N, K> as Layout>::fill(0usize);
    {
        let jm = flat_square::<Saddle<N, K>>(&mut jac);
        let p = flat::<Saddle<N, K>, usize>(&mut perm);
        let x = flat::<Saddle<N, K>, f64>(&mut rhs);
        lu::factor(jm, p, n).map_err(|_| Error::SingularJacobian {
            phase: Phase::Stages,
        })?;
        lu::solve(jm, p, x, n);
    }
    let psi = SVector::<f64, K>::from(rhs.1);
    if psi.iter().all(|x| x.is_finite()) {
        Ok(psi)
    } else {
        Err(Error::NonFiniteState)
    }
}

/// One step of 002's method (2.5) with the coefficients `tab` (e.g.
/// [`LobattoIIIABIndex2::TABLEAU`]) on a model with nonholonomic constraints only, from
/// `(state, psi0)`; returns the new state, the new multiplier `ψ1 = Ψ_S` and the cost.
///
/// Calling it repeatedly with each step's `ψ1` as the next `psi0` is 002's method with the
/// multiplier inherited between steps (start with [`consistent_multiplier`]); 002 proves order
/// `2S − 2` in `q`, `v` and `S` (even `S`) / `S − 1` (odd `S`) in `ψ` for Lobatto IIIA-B.
///
/// The state must satisfy `k(t0, q0, v0) = 0` to `options.consistency_tolerance`
/// ([`Error::InconsistentState`] otherwise, the violation counted as a velocity). The new
/// state satisfies `k(T_i, Q_i, W_i) = 0` at every node `i ≥ 2`, so `k(t1, q1, v1) = 0`, to
/// Newton's tolerance. Errors ([`Error::Unsupported`] for `M > 0` or a tableau violating
/// H1/H3, Newton failures, non-finite input) leave nothing modified.
pub fn step_with_multiplier<
    Sys: Nonholonomic<N, M, K>,
    const N: usize,
    const M: usize,
    const K: usize,
    const S: usize,
>(
    tab: &Index2Tableau<S>,
    sys: &Sys,
    h: f64,
    options: &Options,
    state: &State<N>,
    psi0: &SVector<f64, K>,
) -> Result<(State<N>, SVector<f64, K>, StepStats), Error> {
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
    check_consistent(sys, state, options)?;
    let start = Start {
        t0,
        q0,
        v0,
        p0: sys.momentum_force(t0, &q0, &v0).0,
        mu0: psi0 * h,
    };

    type L<const N: usize, const K: usize, const S: usize> = Index2Layout<N, K, S>;
    let problem = DenseProblem::at_step(2 * S * N, &q0, &v0, h);
    let (mut xbuf, iterations) = dense_newton::solve::<L<N, K, S>>(
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
        |x, r, jac| {
            assemble::<Sys, N, M, K, S>(tab, sys, h, &start, x, r, jac);
        },
    )?;
    let x = flat::<L<N, K, S>, f64>(&mut xbuf);
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
        },
    ))
}
