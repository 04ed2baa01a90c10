//! The (s,s)-Gauss-Lobatto EMPRK method (Small 2011, Definition 6.2.1, §6.2.1) for Lagrangian
//! systems with holonomic constraints `g(t, q) = 0` and nonholonomic constraints
//! `k(t, q, v) = 0`: the method type [`Emprk`], its coefficients [`EmprkTableau`] and one step
//! [`step_emprk`].
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
//! The equations are solved together by Newton's method with the exact Jacobian, scaled as in
//! [`crate::mixed_step`] (multipliers times `h`, position constraints divided by `h`), so every
//! block of the Newton matrix is O(1) as `h → 0`.
//!
//! Facts (tested in `tests/emprk.rs`): for `s = 1` the equations coincide with those of the
//! SPARK step (`Ǎ = [[0,0],[½,½]]`, so E2' is SPARK's end-point equation and E5' is `k(t1) = 0`);
//! without nonholonomic constraints `(q1, v1)` coincide with the SPARK step's for every `s` (the
//! stages `Ṽ_1..Ṽ_{s−1}` then decouple); the internal Lobatto stages `(T̃_i, Q̃_i, Ṽ_i)` satisfy
//! `k = 0` (see [`step_emprk_stages`]).

// The loops index stages, blocks and components the way the thesis writes its subscripts.
#![allow(clippy::needless_range_loop)]

use nalgebra::SVector;

use crate::dense_newton::{self, add_block, DenseProblem};
use crate::error::Error;
use crate::integrator::{Method, Options, StepStats};
use crate::layout::{flat, Arr, Cat, Layout, Scalar};
use crate::methods::GaussLobatto;
use crate::nonholonomic::{check_consistent, Nonholonomic, NonholonomicJacobian, StepStart};
use crate::odae_step::{self, Point};
use crate::spark_step::{self, SparkTableau};
use crate::state::State;
use crate::system::{ConstraintJacobian, DynamicsJacobian, Lagrangian, Odae};
use crate::tableau::collocation_matrix_with_zero;

/// Coefficients of the (s,s)-Gauss-Lobatto EMPRK method: those of the (s,s)-Gauss-Lobatto SPARK
/// method plus `Ǎ`, the Lobatto IIIA matrix on the nodes `c̃_0 = 0 < c̃_1 < … < c̃_s = 1`
/// (thesis §6.2.1: `ǎ_ij = ∫_0^{c̃_i} ℓ̃_j`, `ℓ̃_j` the Lagrange basis on the Lobatto nodes).
///
/// Row `i = 0` of `Ǎ` is zero (6.6c) and is not stored; row `s` equals the Lobatto weights
/// `b̃` exactly (6.6d); the row sums are `c̃_i` (6.7e).
///
/// ```
/// use spark_runtime::Emprk;
/// let t = Emprk::<2>::TABLEAU;
/// // Lobatto IIIA with three stages: row c̃_1 = 1/2 is (5/24, 1/3, −1/24).
/// assert!((t.a_chk0[0] - 5.0 / 24.0).abs() < 1e-15);
/// assert!((t.a_chk[0][0] - 1.0 / 3.0).abs() < 1e-15);
/// assert!((t.a_chk[0][1] + 1.0 / 24.0).abs() < 1e-15);
/// assert_eq!((t.a_chk0[1], t.a_chk[1]), (t.spark.b_lob0, t.spark.b_lob));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EmprkTableau<const S: usize> {
    /// The (s,s)-Gauss-Lobatto SPARK coefficients (`A`, `b`, `c`, `Ā`, `Ã`, `b̃`, `c̃`).
    pub spark: SparkTableau<S>,
    /// `ǎ_i0`, `i = 1..s`, as `a_chk0[i-1]`.
    pub a_chk0: [f64; S],
    /// `ǎ_ij`, `i = 1..s`, `j = 1..s`, as `a_chk[i-1][j-1]`.
    pub a_chk: [[f64; S]; S],
}

/// The (s,s)-Gauss-Lobatto EMPRK method with `S` stages (Small 2011, Definition 6.2.1 and
/// §6.2.1): order `2S`, symmetric (thesis Theorem 6.2.2).
///
/// On systems with only holonomic constraints it *is* the (s,s)-Gauss-Lobatto SPARK method
/// [`GaussLobatto<S>`] (same step, same results): symplectic, variational, exact on `g = 0` and
/// `g_t + G v = 0` at every step end. It differs on models with nonholonomic constraints
/// `k(t, q, v) = 0`: it enforces `k = 0` at the end of every step *and* at the `s − 1` interior
/// Lobatto nodes of the step (SPARK enforces weighted averages of `k` at the Gauss stages
/// instead), at the price of `(S − 1)·n` extra unknowns per step (see [`step_emprk`]). Both
/// methods have order `2S` (thesis Theorems 6.5.1/6.5.2, whose proofs are omitted there;
/// measured for `S = 1, 2, 3` in `tests/emprk.rs`) and keep `g = 0`, `g_t + G v = 0` and
/// `k = 0` at every step end. Neither conserves energy exactly on nonholonomic problems, but on
/// the skate of the thesis (§8.3.2, `S = 2`, `h = 0.1`, `t ≤ 200`) EMPRK's energy error is
/// 2.9e-10 against SPARK's 7.0e-7 (`examples/thesis_figures.rs`). `S = 1` coincides with
/// `GaussLobatto<1>` on every model.
///
/// ```
/// use spark_runtime::{Emprk, GaussLobatto, Method};
/// assert_eq!(<Emprk<3> as Method>::ORDER, 6);
/// // The SPARK coefficients are those of the Gauss-Lobatto SPARK method.
/// assert_eq!(Emprk::<3>::TABLEAU.spark, GaussLobatto::<3>::TABLEAU);
/// ```
///
/// With a model generated by `spark::mechanics!` it is chosen like any other method:
/// `spark::Integrator::<Skate, spark::Emprk<2>>::new(Skate::default(), 0.1)`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Emprk<const S: usize>;

impl<const S: usize> Emprk<S> {
    /// The coefficients, computed at compile time.
    pub const TABLEAU: EmprkTableau<S> = {
        assert!(S >= 1, "Emprk<S> needs S >= 1 stages");
        let spark = GaussLobatto::<S>::TABLEAU;
        let (mut a_chk0, mut a_chk) = collocation_matrix_with_zero(&spark.c_lob, &spark.c_lob);
        // (6.6d): c̃_s = 1, so the last row is exactly the Lobatto weights.
        a_chk0[S - 1] = spark.b_lob0;
        a_chk[S - 1] = spark.b_lob;
        EmprkTableau {
            spark,
            a_chk0,
            a_chk,
        }
    };
}

impl<const S: usize> Method for Emprk<S> {
    const ORDER: usize = 2 * S;

    fn step<Sys: Lagrangian<N, M>, const N: usize, const M: usize>(
        sys: &Sys,
        h: f64,
        options: &Options,
        state: &State<N>,
    ) -> Result<(State<N>, StepStats), Error> {
        spark_step::step(&GaussLobatto::<S>::TABLEAU, sys, h, options, state)
    }

    fn step_mixed<Sys: Nonholonomic<N, M, K>, const N: usize, const M: usize, const K: usize>(
        sys: &Sys,
        h: f64,
        options: &Options,
        state: &State<N>,
    ) -> Result<(State<N>, StepStats), Error> {
        step_emprk(&Self::TABLEAU, sys, h, options, state)
    }

    fn step_odae<Sys: Odae<N, M>, const N: usize, const M: usize>(
        sys: &Sys,
        h: f64,
        options: &Options,
        start: &Point<N, M>,
    ) -> Result<(Point<N, M>, StepStats), Error> {
        odae_step::step(&GaussLobatto::<S>::TABLEAU, sys, h, options, start)
    }
}

/// Unknowns of the EMPRK solve, in this order: `V_1..V_S`, `Ṽ_1..Ṽ_S` (`Ṽ_S = v1`), `μ_0`,
/// `μ_1..μ_S`, `ν_1..ν_S`. Residual rows use the same blocks: E1, E2', E4, E3, E5'.
type EmprkLayout<const N: usize, const M: usize, const K: usize, const S: usize> = Cat<
    Cat<Arr<Arr<Scalar, N>, S>, Arr<Arr<Scalar, N>, S>>,
    Cat<Cat<Arr<Scalar, M>, Arr<Arr<Scalar, M>, S>>, Arr<Arr<Scalar, K>, S>>,
>;

/// Number of unknowns (and equations) of the EMPRK step: `2S·N + (S+1)·M + S·K`.
#[doc(hidden)]
pub fn system_len<const N: usize, const M: usize, const K: usize, const S: usize>() -> usize {
    <EmprkLayout<N, M, K, S> as Layout>::LEN
}

/// Offsets of the unknown blocks in the flat vector.
struct Offsets<const N: usize, const M: usize, const K: usize, const S: usize>;

impl<const N: usize, const M: usize, const K: usize, const S: usize> Offsets<N, M, K, S> {
    /// `V_i`, `i = 0..S-1` (0-based Gauss index).
    const fn v(i: usize) -> usize {
        i * N
    }
    /// `Ṽ_{i+1}`, `i = 0..S-1` (0-based slot of the Lobatto node `i + 1`).
    const fn vt(i: usize) -> usize {
        (S + i) * N
    }
    /// `μ_j`, `j = 0..S` (Lobatto index).
    const fn mu(j: usize) -> usize {
        2 * S * N + j * M
    }
    /// `ν_j`, `j = 0..S-1` (0-based Gauss index).
    const fn nu(j: usize) -> usize {
        2 * S * N + (S + 1) * M + j * K
    }
}

/// One momentum equation (E1 or E2'): its own stage `(T*, Q*, V*)` with
/// `Q* = q0 + h Σ_l own_l V_l`, the Gauss weights `w` of `F_j` and `K_jᵀν_j`, the Lobatto weights
/// `w0` of `μ_0` and `wl` of `μ_1..μ_S`.
struct MomentumRow<'a, const S: usize> {
    own: &'a [f64; S],
    w: &'a [f64; S],
    w0: f64,
    wl: &'a [f64; S],
}

/// Evaluates the residual `r = F(x)` of E1, E2', E3, E4, E5' at the flat unknown vector `x` and,
/// if asked, the exact Jacobian `∂F/∂x` (row-major) into `jac`. Returns the Lobatto stage
/// coordinates `Q̃_1..Q̃_S`.
fn assemble<
    Sys: Nonholonomic<N, M, K>,
    const N: usize,
    const M: usize,
    const K: usize,
    const S: usize,
>(
    et: &EmprkTableau<S>,
    sys: &Sys,
    h: f64,
    start: &StepStart<N, M>,
    x: &[f64],
    r: &mut [f64],
    jac: Option<&mut [f64]>,
) -> [SVector<f64, N>; S] {
    type O<const N: usize, const M: usize, const K: usize, const S: usize> = Offsets<N, M, K, S>;
    let tab = &et.spark;
    let len = system_len::<N, M, K, S>();
    let (t0, q0, p0, gq0) = (start.t0, start.q0, start.p0, start.gq0);
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
    let qts: [SVector<f64, N>; S] = core::array::from_fn(|i| combine(&tab.a_bar[i]));
    let tts: [f64; S] = core::array::from_fn(|i| t0 + tab.c_lob[i] * h);
    // Gauss stages: forces and nonholonomic reactions.
    let dyns: [DynamicsJacobian<N>; S] = core::array::from_fn(|i| {
        sys.dynamics_jacobian(t0 + tab.c[i] * h, &combine(&tab.a[i]), &vs[i])
    });
    let nhs: [NonholonomicJacobian<N, K>; S] = core::array::from_fn(|i| {
        sys.nonholonomic_jacobian(t0 + tab.c[i] * h, &combine(&tab.a[i]), &vs[i], &nus[i])
    });
    // Lobatto nodes j = 1..S (slot j-1): holonomic reactions and constraints, momenta and k.
    let cons: [ConstraintJacobian<N, M>; S] =
        core::array::from_fn(|j| sys.constraint_jacobian(tts[j], &qts[j], &mus[j]));
    let dlob: [DynamicsJacobian<N>; S] =
        core::array::from_fn(|i| sys.dynamics_jacobian(tts[i], &qts[i], &vts[i]));
    let klob: [NonholonomicJacobian<N, K>; S] = core::array::from_fn(|i| {
        sys.nonholonomic_jacobian(tts[i], &qts[i], &vts[i], &SVector::zeros())
    });
    let w1 = sys.velocity_constraint_jacobian(tts[S - 1], &qts[S - 1], &vts[S - 1]);

    let rows: [(MomentumRow<S>, usize, &DynamicsJacobian<N>); S] = core::array::from_fn(|i| {
        (
            MomentumRow {
                own: &tab.a[i],
                w: &tab.a_hat[i],
                w0: tab.a_til0[i],
                wl: &tab.a_til[i],
            },
            O::<N, M, K, S>::v(i),
            &dyns[i],
        )
    });
    let lrows: [(MomentumRow<S>, usize, &DynamicsJacobian<N>); S] = core::array::from_fn(|i| {
        (
            MomentumRow {
                own: &tab.a_bar[i],
                w: &tab.a_bar[i],
                w0: et.a_chk0[i],
                wl: &et.a_chk[i],
            },
            O::<N, M, K, S>::vt(i),
            &dlob[i],
        )
    });

    // E1 (rows of V_i) and E2' (rows of Ṽ_i).
    for (row, at, d) in rows.iter().chain(lrows.iter()) {
        let mut rho = d.p - p0 + gq0.transpose() * mu0 * row.w0;
        for j in 0..S {
            rho += -dyns[j].f * (h * row.w[j]) + nhs[j].kv.transpose() * nus[j] * row.w[j];
            rho += cons[j].gq.transpose() * mus[j] * row.wl[j];
        }
        r[*at..*at + N].copy_from_slice(rho.as_slice());
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
    for x in jm.iter_mut() {
        *x = 0.0;
    }
    for (row, at, d) in rows.iter().chain(lrows.iter()) {
        let at = *at;
        // Own momentum ∇_vL(T*, Q*, V*); V* is the unknown of the row's own block.
        add_block(jm, len, at, at, &d.lvv, 1.0);
        for l in 0..S {
            let mut block = d.lvq * (h * row.own[l]);
            for j in 0..S {
                if row.w[j] != 0.0 {
                    block += (dyns[j].lqq * (-h * h * tab.a[j][l])
                        + nhs[j].hess_vq * (h * tab.a[j][l]))
                        * row.w[j];
                    if j == l {
                        block += (dyns[j].lvq.transpose() * (-h) + nhs[j].hess_vv) * row.w[j];
                    }
                }
                block += cons[j].hess_mu * (h * row.wl[j] * tab.a_bar[j][l]);
            }
            add_block(jm, len, at, O::<N, M, K, S>::v(l), &block, 1.0);
        }
        add_block(
            jm,
            len,
            at,
            O::<N, M, K, S>::mu(0),
            &gq0.transpose(),
            row.w0,
        );
        for j in 0..S {
            add_block(
                jm,
                len,
                at,
                O::<N, M, K, S>::mu(j + 1),
                &cons[j].gq.transpose(),
                row.wl[j],
            );
            add_block(
                jm,
                len,
                at,
                O::<N, M, K, S>::nu(j),
                &nhs[j].kv.transpose(),
                row.w[j],
            );
        }
    }
    // E4 and E3.
    add_block(
        jm,
        len,
        O::<N, M, K, S>::mu(0),
        O::<N, M, K, S>::vt(S - 1),
        &w1.wv,
        1.0,
    );
    for l in 0..S {
        add_block(
            jm,
            len,
            O::<N, M, K, S>::mu(0),
            O::<N, M, K, S>::v(l),
            &w1.wq,
            h * tab.b[l],
        );
        for j in 0..S {
            add_block(
                jm,
                len,
                O::<N, M, K, S>::mu(j + 1),
                O::<N, M, K, S>::v(l),
                &cons[j].gq,
                tab.a_bar[j][l],
            );
        }
    }
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
pub fn residual_and_jacobian<
    Sys: Nonholonomic<N, M, K>,
    const N: usize,
    const M: usize,
    const K: usize,
    const S: usize,
>(
    tab: &EmprkTableau<S>,
    sys: &Sys,
    h: f64,
    state: &State<N>,
    x: &[f64],
    r: &mut [f64],
    jac: Option<&mut [f64]>,
) {
    let start = StepStart::at(sys, state);
    assemble::<Sys, N, M, K, S>(tab, sys, h, &start, x, r, jac);
}

/// Advances `state` by `h` with the (s,s)-Gauss-Lobatto EMPRK method `tab` (normally
/// `Emprk::<S>::TABLEAU`) on a system with holonomic and nonholonomic constraints. Nothing is
/// modified on error.
///
/// The state must be consistent: `g = 0`, `g_t + G v = 0` and `k = 0` at `t0` to
/// `options.consistency_tolerance` (otherwise [`Error::InconsistentState`], with the
/// nonholonomic violation counted as a velocity). The new state satisfies `g(t1, q1) = 0`,
/// `g_t + G v1 = 0` and `k(t1, q1, v1) = 0` to Newton's tolerance. Simplified Newton with the
/// exact Jacobian at the starting iterate, full Newton if that converges slowly
/// (`Options::simplified_newton`); the iteration count is reported in
/// `StepStats::stage_iterations`. Errors: [`Error::NonFiniteState`],
/// [`Error::InconsistentState`], [`Error::SingularJacobian`], [`Error::Diverged`],
/// [`Error::NoConvergence`] (all with `Phase::Stages`).
pub fn step_emprk<
    Sys: Nonholonomic<N, M, K>,
    const N: usize,
    const M: usize,
    const K: usize,
    const S: usize,
>(
    tab: &EmprkTableau<S>,
    sys: &Sys,
    h: f64,
    options: &Options,
    state: &State<N>,
) -> Result<(State<N>, StepStats), Error> {
    step_emprk_stages(tab, sys, h, options, state).map(|(next, _, stats)| (next, stats))
}

/// [`step_emprk`], also returning the Lobatto stages `(T̃_i, Q̃_i, Ṽ_i)`, `i = 1..S` (the last
/// one is the new state), for checking that they satisfy `k = 0`.
#[doc(hidden)]
pub fn step_emprk_stages<
    Sys: Nonholonomic<N, M, K>,
    const N: usize,
    const M: usize,
    const K: usize,
    const S: usize,
>(
    tab: &EmprkTableau<S>,
    sys: &Sys,
    h: f64,
    options: &Options,
    state: &State<N>,
) -> Result<(State<N>, [State<N>; S], StepStats), Error> {
    if !state.is_finite() {
        return Err(Error::NonFiniteState);
    }
    let (t0, q0, v0) = (state.t, state.q, state.v);

    // Consistency of g, the hidden constraint and k at the step start.
    let gq0 = check_consistent(sys, state, options)?;
    let start = StepStart::new(sys, state, gq0);

    type L<const N: usize, const M: usize, const K: usize, const S: usize> =
        EmprkLayout<N, M, K, S>;
    let problem = DenseProblem::at_step(2 * S * N, &q0, &v0, h);
    let (mut xbuf, iterations) = dense_newton::solve::<L<N, M, K, S>>(
        options,
        &problem,
        |x| {
            for i in 0..2 * S {
                x[i * N..(i + 1) * N].copy_from_slice(v0.as_slice());
            }
        },
        |x, r, jac| {
            assemble::<Sys, N, M, K, S>(tab, sys, h, &start, x, r, jac);
        },
    )?;
    let x = flat::<L<N, M, K, S>, f64>(&mut xbuf);
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
    Ok((
        next,
        stages,
        StepStats {
            stage_iterations: iterations,
            end_iterations: 0,
        },
    ))
}
