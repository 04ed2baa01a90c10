//! One SPARK step for Lagrangian systems with holonomic constraints, for any tableau of the
//! (s, s̃)-SPARK form of Jay (2007), Definition 3.1, with s̃ = s or s − 1 and ã_{i s̃} = 0.
//!
//! The step solves equations (4.4a-h) (the Lagrangian form) in two phases that are exactly
//! equivalent to the coupled system because the last column of Ã vanishes (4.3):
//!
//! * **stages**: unknowns `V_1..V_s` and `μ_j = hΛ_j`, `j = 0..s̃-1`; equations (4.4b) and
//!   `g(T̃_i, Q̃_i)/h = 0`, `i = 1..s̃` (4.4d);
//! * **end point**: unknowns `v_1` and `μ_s̃`; equations (4.4f) and the hidden constraint
//!   `g_t + G v_1 = 0` at `t_1` (4.4h).
//!
//! Scaling the multipliers by `h` and the position constraints by `1/h` makes every block of the
//! Newton matrix O(1), so its conditioning does not degrade as `h → 0`. The Newton matrix is the
//! exact Jacobian assembled from the model's second derivatives (full Newton). By default each
//! solve is first a simplified Newton iteration with a block-structured approximation of that
//! matrix, evaluated once per step (`stage_matrix`: mass matrix and constraint Jacobian at the step
//! start, so the stages decouple and only an N × N and an M × M matrix are factored), started from
//! an acceleration and multiplier predicted at the step start and at its midpoint and taken linear
//! in between (stage velocities O(h³) from the solution; `predict_motion`); its iterations evaluate
//! residuals only
//! (`momentum_force`, `constraint_gradient`). If it converges slowly or not at all, the solve
//! falls back to full Newton (`Options::simplified_newton`), which searches along corrections
//! that do not lower the residual (`line_search`: dry friction's near-step, `docs/friction.md`).

// The loops index stages, blocks and components the way the paper writes its subscripts.
#![allow(clippy::needless_range_loop)]

use nalgebra::{SMatrix, SVector};

use crate::error::{Error, Phase};
use crate::linalg::attainable;
use crate::linalg::layout::{flat, flat_square, zero_square, Arr, Cat, Layout, Scalar};
use crate::linalg::lu;
use crate::linalg::newton::{attainable, rounding_floor, slow, tolerance_unit, with_fallback};
use crate::linalg::newton::{Monitor, Verdict, ILL_CONDITIONED};
use crate::linalg::vector::all_finite;
use crate::linalg::vector::max_abs;
use crate::model::blocks::{ConstraintJacobian, DynamicsJacobian};
use crate::model::{Lagrangian, State};
use crate::options::Options;
use crate::options::StepStats;
use crate::step::factoring::{Dense, Factoring, Hidden, Sparse, Start};
use crate::step::gradient::Gradient;
use crate::step::problem::Problem;
use crate::step::stage_matrix::{SaddleOps, StageMatrix};
use crate::step::start::{inconsistency, within_tolerance};
use crate::tableau::SparkTableau;

/// Unknowns of the stage solve: `S` stage velocities, then `S` scaled multipliers.
type StageLayout<const N: usize, const M: usize, const S: usize> =
    Cat<Arr<Arr<Scalar, N>, S>, Arr<Arr<Scalar, M>, S>>;

/// Assembles the exact stage Newton matrix (row-major, `S(N+M)` square) at the current
/// iterate: `dyns` at the stages, `cons` at the Lobatto nodes (Hessians contracted with the
/// current multipliers), `gq0 = G(t0, q0)`.
fn assemble_stage_matrix<const N: usize, const M: usize, const S: usize>(
    tab: &SparkTableau<S>,
    h: f64,
    dyns: &[DynamicsJacobian<N>; S],
    cons: &[ConstraintJacobian<N, M>; S],
    gq0: &SMatrix<f64, M, N>,
    jm: &mut [f64],
) {
    let st = tab.s_tilde;
    let k_len = <StageLayout<N, M, S> as Layout>::LEN;
    let vcol = |k: usize, b: usize| k * N + b;
    let mcol = |j: usize, l: usize| S * N + j * M + l;
    jm.fill(0.0);
    for i in 0..S {
        if i >= st {
            for l in 0..M {
                jm[mcol(i, l) * k_len + mcol(i, l)] = 1.0;
            }
        }
        // ∂ρ_i/∂V_k.
        for k in 0..S {
            let mut block = dyns[i].lvq * (h * tab.a[i][k])
                - (dyns[k].lvq.transpose() + dyns[k].fv) * (h * tab.a_hat[i][k]);
            if i == k {
                block += dyns[i].lvv;
            }
            for j in 0..S {
                block -= dyns[j].lqq * (h * h * tab.a_hat[i][j] * tab.a[j][k]);
            }
            for j in 1..st {
                block += cons[j - 1].hess_mu * (h * tab.a_til[i][j - 1] * tab.a_bar[j - 1][k]);
            }
            for a in 0..N {
                for b in 0..N {
                    jm[vcol(i, a) * k_len + vcol(k, b)] = block[(a, b)];
                }
            }
        }
        // ∂ρ_i/∂μ_j and ∂σ_i/∂V_k.
        for j in 0..S {
            for a in 0..N {
                for l in 0..M {
                    let d = if j == 0 {
                        tab.a_til0[i] * gq0[(l, a)]
                    } else if j < st {
                        tab.a_til[i][j - 1] * cons[j - 1].gq[(l, a)]
                    } else {
                        0.0
                    };
                    jm[vcol(i, a) * k_len + mcol(j, l)] = d;
                    if i < st {
                        jm[mcol(i, l) * k_len + vcol(j, a)] = tab.a_bar[i][j] * cons[i].gq[(l, a)];
                    }
                }
            }
        }
    }
}

/// Where the stage iteration stands: stage and Lobatto-node times and positions, velocities
/// and multipliers.
struct StageIterate<'a, const N: usize, const M: usize, const S: usize> {
    times: &'a [f64; S],
    lobatto_times: &'a [f64; S],
    qs: &'a [SVector<f64, N>; S],
    qls: &'a [SVector<f64, N>; S],
    vs: &'a [SVector<f64, N>; S],
    mu: &'a [SVector<f64, M>; S],
}

/// Full Newton's correction: overwrites the negated residuals `(rv, rmu)` with the solution of
/// the exact stage matrix at `it`. Kept out of line so that its dense `S(N+M)`-square matrix
/// occupies the stack only when full Newton runs.
#[inline(never)]
fn exact_correction<
    Sys: Lagrangian<N, M, K>,
    const N: usize,
    const M: usize,
    const K: usize,
    const S: usize,
>(
    tab: &SparkTableau<S>,
    sys: &Sys,
    h: f64,
    it: &StageIterate<'_, N, M, S>,
    (t0, q0): (f64, &SVector<f64, N>),
    (rv, rmu): (&mut [SVector<f64, N>; S], &mut [SVector<f64, M>; S]),
    noise: &RowNoise<N>,
) -> Result<f64, lu::Singular> {
    let st = tab.s_tilde;
    // The step start's G, dense (a sparse model forms no M × N matrix outside this solve).
    let gq0 = sys.constraint_gradient(t0, q0).1;
    let k_len = <StageLayout<N, M, S> as Layout>::LEN;
    let dyns: [DynamicsJacobian<N>; S] =
        core::array::from_fn(|i| sys.dynamics_jacobian(it.times[i], &it.qs[i], &it.vs[i]));
    // Multiplier contracted with the Hessian of g at Lobatto node i+1 (μ_s belongs to the
    // end-point solve and never enters a stage, since ã_is = 0).
    let hessians: [ConstraintJacobian<N, M>; S] = core::array::from_fn(|i| {
        if i < st {
            let m = if i + 1 < st {
                it.mu[i + 1]
            } else {
                SVector::zeros()
            };
            sys.constraint_jacobian(it.lobatto_times[i], &it.qls[i], &m)
        } else {
            ConstraintJacobian::default()
        }
    });
    let mut rhs = <StageLayout<N, M, S> as Layout>::fill(0.0);
    for i in 0..S {
        for a in 0..N {
            rhs.0[i][a] = rv[i][a];
        }
        for l in 0..M {
            rhs.1[i][l] = rmu[i][l];
        }
    }
    let mut jac = zero_square::<StageLayout<N, M, S>>();
    let mut perm = <StageLayout<N, M, S> as Layout>::fill(0usize);
    let jm = flat_square::<StageLayout<N, M, S>>(&mut jac);
    let p = flat::<StageLayout<N, M, S>, usize>(&mut perm);
    assemble_stage_matrix(tab, h, &dyns, &hessians, &gq0, jm);
    // The rounding of each residual row, from the matrix before its factors overwrite it.
    let mut rows = <StageLayout<N, M, S> as Layout>::fill(0.0);
    let mut scale = <StageLayout<N, M, S> as Layout>::fill(0.0);
    noise.rows(it.mu, &mut scale, &mut rows, jm, st);
    lu::factor(jm, p, k_len)?;
    lu::solve(jm, p, flat::<StageLayout<N, M, S>, f64>(&mut rhs), k_len);
    for i in 0..S {
        for a in 0..N {
            rv[i][a] = rhs.0[i][a];
        }
        for l in 0..M {
            rmu[i][l] = rhs.1[i][l];
        }
    }
    // The accuracy the iteration can attain: that rounding propagated through the solve to
    // the velocities (`scale` is scratch now).
    let mut weight = <StageLayout<N, M, S> as Layout>::fill(0.0);
    for i in 0..S {
        weight.0[i] = [1.0; N];
    }
    let mut y = <StageLayout<N, M, S> as Layout>::fill(0.0);
    Ok(attainable::propagated(
        jm,
        p,
        flat::<StageLayout<N, M, S>, f64>(&mut rows),
        flat::<StageLayout<N, M, S>, f64>(&mut weight),
        flat::<StageLayout<N, M, S>, f64>(&mut y),
        flat::<StageLayout<N, M, S>, f64>(&mut scale),
    ))
}

/// Full Newton searches along corrections above this many tolerances (see
/// `StepConstants::searches`).
const SEARCH_ABOVE: f64 = 1e6;

/// The most halvings of full Newton's line search (`λ ≥ 2⁻¹⁰`).
const HALVINGS: u32 = 10;

/// The merit of a stage residual `(rv, rmu)` for the line search: `Σ (rv_ia / L_aa)² + Σ
/// rmu_il²`, with `inv_mass` the inverse mass diagonal: every row in velocity units, so that a
/// light link's rows count as much as the trunk's.
fn merit<const N: usize, const M: usize, const S: usize>(
    rv: &[SVector<f64, N>; S],
    rmu: &[SVector<f64, M>; S],
    inv_mass: &SVector<f64, N>,
) -> f64 {
    let mut sum = 0.0;
    for (r, m) in rv.iter().zip(rmu) {
        sum += r.component_mul(inv_mass).norm_squared() + m.norm_squared();
    }
    sum
}

/// What the rounding of the stage residual's rows is made of, row by row: the size of the
/// velocity unknowns and, per coordinate, the size of the momentum row's own terms (the
/// momenta, the forces times `h`, the reactions). The rounding of each row is `ε` times its
/// terms, not the largest term of the system: a robot's heavy trunk has momenta ~1e2 and its
/// fingers inertias ~1e-5, and one `ε max |p|` for every row, divided by a finger's inertia,
/// was read as an accuracy the iteration could not attain (`SingularJacobian` from 19 of 20
/// states of `tests/suite/light_links.rs`).
struct RowNoise<const N: usize> {
    /// The size of the stage velocities.
    vscale: f64,
    /// The position rows' `(1 + max|q0|)/|h|` (see [`attainable::row_rounding`]).
    position_scale: f64,
    /// Per coordinate, the sum of the sizes of its momentum rows' terms.
    terms: SVector<f64, N>,
}

impl<const N: usize> RowNoise<N> {
    /// The rounding of every row of the stage system whose matrix (not yet factored) is `jm`
    /// into `rows`, with the multipliers `mu`; `scale` is scratch.
    fn rows<const M: usize, const S: usize>(
        &self,
        mu: &[SVector<f64, M>; S],
        scale: &mut <StageLayout<N, M, S> as Layout>::Of<f64>,
        rows: &mut <StageLayout<N, M, S> as Layout>::Of<f64>,
        jm: &[f64],
        st: usize,
    ) {
        for i in 0..S {
            scale.0[i] = [self.vscale; N];
            for l in 0..M {
                scale.1[i][l] = mu[i][l].abs();
            }
        }
        let positions = S * N..S * N + st * M;
        attainable::row_rounding(
            jm,
            flat::<StageLayout<N, M, S>, f64>(scale),
            (&positions, self.position_scale),
            flat::<StageLayout<N, M, S>, f64>(rows),
        );
        for row in rows.0.iter_mut() {
            for (r, t) in row.iter_mut().zip(self.terms.iter()) {
                *r += f64::EPSILON * t;
            }
        }
    }
}

/// The converged stage solve, reduced to what the end point needs.
struct StageSolution<const N: usize, const M: usize, X, G> {
    /// What the caller keeps of the stages (see [`Keep`]).
    kept: X,
    /// The last stage velocity: the end point's starting value.
    v_last: SVector<f64, N>,
    /// The end position `q1 = Q̃_s̃`.
    q1: SVector<f64, N>,
    /// `G` at `q1`.
    gq1: G,
    /// The known part of the end-point momentum equation (4.4f): `−p0 + Σ h b_j f_j` and the
    /// reactions of the multipliers `μ_0..μ_{s̃−1}`, negated as it enters the residual.
    known: SVector<f64, N>,
    iterations: u32,
}

/// Acceleration and multiplier at the step start and at its midpoint, linear in time between
/// them: the stages' starting values. From the step start alone, the stage velocities
/// `v0 + c h a0` are O(h²) from the solution; the linear acceleration makes them O(h³) and
/// saves one simplified-Newton correction in most steps for S ≥ 2 (0.7-0.9 per step on the
/// chains of `examples/chain_bench.rs` at S = 2, h = 0.1 … 0.005).
struct Motion<const N: usize, const M: usize> {
    a0: SVector<f64, N>,
    lambda0: SVector<f64, M>,
    /// Acceleration and multiplier change per unit time.
    jerk: SVector<f64, N>,
    lambda_rate: SVector<f64, M>,
}

impl<const N: usize, const M: usize> Motion<N, M> {
    /// A constant acceleration and multiplier; `None` unless both are finite.
    fn constant(a0: SVector<f64, N>, lambda0: SVector<f64, M>) -> Option<Self> {
        (all_finite(&a0) && all_finite(&lambda0)).then(|| Self {
            a0,
            lambda0,
            jerk: SVector::zeros(),
            lambda_rate: SVector::zeros(),
        })
    }

    /// `∫₀^{c h} a(t) dt`: the predicted `V(c h) − v0`.
    fn velocity_change(&self, h: f64, c: f64) -> SVector<f64, N> {
        let t = c * h;
        (self.a0 + self.jerk * (0.5 * t)) * t
    }

    /// `h λ(c h)`: the predicted scaled multiplier at node time `c h`.
    fn impulse(&self, h: f64, c: f64) -> SVector<f64, M> {
        (self.lambda0 + self.lambda_rate * (c * h)) * h
    }
}

/// Predicts [`Motion`] with the factors of the simplified Newton matrix `approx` (mass matrix
/// at `q0`, constraint Jacobian at the predicted midpoint), by defect corrections: the saddle
/// system `L a + Gᵀλ = f − L_vq v`, `G a = −(∂w/∂q) v` (time derivatives of `∇_v L` and of the
/// hidden constraint left out, as in [`StageMatrix::predict`]) is solved with `approx`, its
/// residual with the exact `G(q0)` is corrected once, and the change of the residual between
/// the start and the predicted midpoint state gives the rate of change. Every solve reuses the
/// step's factors; the extra evaluations are `velocity_constraint` and `momentum_force` at the
/// midpoint (`mass_force` instead when the mass matrix is not constant). `None` when the start
/// prediction is not finite; a non-finite midpoint keeps the constant acceleration. One-stage
/// methods (`S = 1`) get the constant acceleration only.
/// Kept out of line: inlined, its temporaries added about 1.4 kB to the Cortex-M4 run's stack.
#[inline(never)]
fn predict_motion<
    'a,
    Sys: Lagrangian<N, M, K>,
    const N: usize,
    const M: usize,
    const K: usize,
    const S: usize,
    Fac: Factoring<'a, Sys, N, M, K, S>,
>(
    sys: &'a Sys,
    approx: &StageMatrix<N, M, S, Fac::Blocks>,
    h: f64,
    state: &State<N>,
    (f0, lvq_v0, lvv0): (
        &SVector<f64, N>,
        &SVector<f64, N>,
        Option<&SMatrix<f64, N, N>>,
    ),
    start: &Hidden<M, Fac::Gradient>,
) -> Option<Motion<N, M>> {
    let (t0, q0, v0) = (state.t, &state.q, &state.v);
    let force0 = f0 - lvq_v0;
    let (mut a0, mut lambda0) = approx.predict(&force0, &start.wq_v);
    // One-stage methods keep the constant acceleration: there the linear one saved 0.05-0.2
    // corrections per step on the chains (h = 0.01 and 0.1), less than its evaluations cost.
    if S == 1 {
        return Motion::constant(a0, lambda0);
    }
    // The matrix used G at the midpoint: one correction with G(q0).
    let (da, dl) = approx.predict(
        &(approx.blocks().g_tr_mul(&lambda0) - start.g.tr_mul(&lambda0)),
        &(start.wq_v + start.g.mul(&a0)),
    );
    a0 += da;
    lambda0 += dl;
    let constant = Motion::constant(a0, lambda0)?;
    // Residual change of the saddle system from t0 to the midpoint state, at (a0, λ0).
    let half = 0.5 * h;
    let tm = t0 + half;
    let qm = q0 + v0 * half + a0 * (0.5 * half * half);
    let vm = v0 + a0 * half;
    let force_change = if Sys::CONSTANT_MASS {
        // `L_vv` is the same at both points; `L_vq v` (gyroscopic terms) is taken as unchanged.
        sys.momentum_force(tm, &qm, &vm).1 - f0
    } else if let Some(lvv0) = lvv0 {
        let dm = sys.mass_force(tm, &qm, &vm);
        (dm.f - dm.lvq_v) - force0 - (dm.lvv - lvv0) * a0
    } else {
        // No dense mass matrix (sparse factors): the constant acceleration.
        return Some(constant);
    };
    let wm = Fac::hidden(sys, tm, &qm, &vm);
    let (g_change_a, g_change_lambda) = wm.g.change_products(&start.g, &a0, &lambda0);
    let r_force = force_change - g_change_lambda;
    let r_curvature = (wm.wq_v - start.wq_v) + g_change_a;
    let (da, dl) = approx.predict(&r_force, &r_curvature);
    let inv_half = 1.0 / half;
    let jerk = da * inv_half;
    let lambda_rate = dl * inv_half;
    if all_finite(&jerk) && all_finite(&lambda_rate) {
        Some(Motion {
            jerk,
            lambda_rate,
            ..constant
        })
    } else {
        Some(constant)
    }
}

/// `1 / |L_aa|` at `(t, q, v)`, the weights of full Newton's line search (`merit`); out of
/// line, so that the mass matrix sits in this function's frame only while it runs.
#[inline(never)]
fn inverse_mass_diagonal<Sys, const N: usize, const M: usize, const K: usize>(
    sys: &Sys,
    t: f64,
    q: &SVector<f64, N>,
    v: &SVector<f64, N>,
) -> SVector<f64, N>
where
    Sys: Lagrangian<N, M, K>,
{
    let lvv = sys.mass_force(t, q, v).lvv;
    SVector::<f64, N>::from_fn(|a, _| 1.0 / lvv[(a, a)].abs().max(f64::MIN_POSITIVE))
}

/// Whether a holonomic step may form the dense full-Newton system of its stages: always on
/// dense factors (which models with [`Lagrangian::STIFF_DISSIPATION`] step on, sparse factors
/// or not), up to [`Options::DENSE_NEWTON_LIMIT`] unknowns on sparse ones (`Factoring::SPARSE`).
/// (A constant at every call: the call sites inside the stage closure must see it as one, so
/// that the dense code is dropped where it is not allowed.)
#[inline(always)]
const fn solves_densely<const N: usize, const M: usize, const S: usize>(sparse: bool) -> bool {
    !sparse || S * (N + M) <= Options::DENSE_NEWTON_LIMIT
}

/// What a two-phase step keeps of its converged unknowns: nothing for `step` ([`Discard`], so
/// that the hot path carries no extra data), `V_1..V_s`, `μ_0..μ_{s̃−1}` (unused slots zero) and
/// the end point's `μ_s̃` for the step's Jacobian ([`Retain`]).
pub(crate) trait Keep<const N: usize, const M: usize, const S: usize> {
    type Stages;
    type End;
    fn stages(vs: &[SVector<f64, N>; S], mu: &[SVector<f64, M>; S]) -> Self::Stages;
    fn end(mu_end: &SVector<f64, M>) -> Self::End;
}

/// Keep nothing.
pub(crate) struct Discard;

impl<const N: usize, const M: usize, const S: usize> Keep<N, M, S> for Discard {
    type Stages = ();
    type End = ();
    #[inline(always)]
    fn stages(_: &[SVector<f64, N>; S], _: &[SVector<f64, M>; S]) {}
    #[inline(always)]
    fn end(_: &SVector<f64, M>) {}
}

/// Keep the stage velocities and every multiplier.
pub(crate) struct Retain;

impl<const N: usize, const M: usize, const S: usize> Keep<N, M, S> for Retain {
    type Stages = ([SVector<f64, N>; S], [SVector<f64, M>; S]);
    type End = SVector<f64, M>;
    fn stages(vs: &[SVector<f64, N>; S], mu: &[SVector<f64, M>; S]) -> Self::Stages {
        (*vs, *mu)
    }
    fn end(mu_end: &SVector<f64, M>) -> Self::End {
        *mu_end
    }
}

impl<'a, Sys: Lagrangian<N, M, K>, const N: usize, const M: usize, const K: usize>
    Problem<'a, Sys, N, M, K>
{
    /// The two-phase step of the SPARK method `tab` (the model's nonholonomic constraints, if any,
    /// are ignored: the step layer sends only `K = 0` models here); nothing is modified on error.
    #[inline]
    pub fn holonomic<const S: usize>(
        &self,
        tab: &SparkTableau<S>,
    ) -> Result<(State<N>, StepStats), Error> {
        self.holonomic_solution::<S, Discard>(tab)
            .map(|(next, stats, (), ())| (next, stats))
    }

    /// [`Problem::holonomic`], with the converged unknowns (for the step's Jacobian).
    #[allow(clippy::type_complexity)]
    pub(crate) fn holonomic_solution<const S: usize, Kp: Keep<N, M, S>>(
        &self,
        tab: &SparkTableau<S>,
    ) -> Result<(State<N>, StepStats, Kp::Stages, Kp::End), Error> {
        // A model with dry friction steps on its dense factors, with full Newton behind them at
        // any size: its simplified iteration fails at nearly every step (the matrix does not see
        // the friction's slope) and full Newton decides. On the sparse factors (tried on Talos,
        // `docs/performance.md`) the step was no faster and one of 20 states failed.
        if Sys::SPARSE_SADDLE && !Sys::STIFF_DISSIPATION {
            self.solution_with::<S, Kp, Sparse>(tab)
        } else {
            self.solution_with::<S, Kp, Dense>(tab)
        }
    }

    /// [`Problem::holonomic_solution`] with the simplified Newton matrices factored by `Fac`:
    /// the step start (consistency, the simplified matrix's factors, the predicted motion),
    /// then the stages ([`StepConstants::stages`]) and the end point ([`EndPoint::solve`]),
    /// each by simplified Newton with full Newton as its fallback (`with_fallback`).
    #[allow(clippy::type_complexity)]
    fn solution_with<const S: usize, Kp: Keep<N, M, S>, Fac: Factoring<'a, Sys, N, M, K, S>>(
        &self,
        tab: &SparkTableau<S>,
    ) -> Result<(State<N>, StepStats, Kp::Stages, Kp::End), Error> {
        let (sys, h, state) = (self.sys, self.h, self.state);
        // A model with sparse factors and a large stage system never forms the dense one: its
        // frame would dwarf the rest of the step (see `Options::DENSE_NEWTON_LIMIT`). A
        // constant after monomorphization, so the dense code is not even linked then.
        let sparse_only = Options {
            simplified_newton: true,
            full_newton_fallback: false,
            ..*self.options
        };
        let dense = solves_densely::<N, M, S>(Fac::SPARSE);
        let options = if dense { self.options } else { &sparse_only };
        if !state.is_finite() {
            return Err(Error::NonFiniteState);
        }
        let (t0, q0, v0) = (state.t, state.q, state.v);
        // Step-start quantities: reaction direction at q0, consistency, momentum.
        let start = Fac::hidden(sys, t0, &q0, &v0);
        let g0 = sys.constraints(t0, &q0);
        let violation = inconsistency(&g0, &start.w, &start.g);
        within_tolerance(violation, options.consistency_tolerance, &q0, &v0)?;
        // Simplified Newton's block-structured iteration matrix, from the step start (see
        // `stage_matrix`); `None` when it is singular (full Newton then). Borrowed, not moved
        // out: a moved `Start` was a second copy of the stage matrix on the stack.
        let q_mid = q0 + v0 * (0.5 * h);
        let simplified = options.simplified_newton;
        let mut begun = Fac::start(
            sys,
            tab,
            h,
            (t0, &q0, &v0),
            (t0 + 0.5 * h, &q_mid),
            simplified,
        );
        let Start {
            p: p0,
            f: f0,
            lvq_v: lvq_v0,
            kept,
            approx,
        } = &mut begun;
        let guess = approx.as_ref().and_then(|a| {
            let lvv0 = Fac::start_mass(kept);
            predict_motion::<Sys, N, M, K, S, Fac>(sys, a, h, state, (f0, lvq_v0, lvv0), &start)
        });
        let at = (t0, &q0, &v0);
        let step = StepConstants::<Sys, N, M, K, S, Fac>::new(self, tab, options, at, p0, &start.g);

        // Simplified Newton first (iteration matrix assembled and factored once, at the starting
        // iterate); if that iteration fails to converge, full Newton from the same start.
        let mut refactorizations = 0;
        let (stages, spent) = with_fallback(options, |simplified| {
            step.stages::<Kp>(simplified, &guess, approx, &mut refactorizations)
        })?;
        let end = step.end_point(kept, approx.as_ref());
        let (((v1, mu_end), end_iterations), end_spent) =
            with_fallback(options, |simplified| end.solve::<Kp>(simplified, &stages))?;
        let next = State {
            t: t0 + h,
            q: stages.q1,
            v: v1,
        }
        .checked()?;
        let stats = StepStats {
            stage_iterations: stages.iterations + spent,
            end_iterations: end_iterations + end_spent,
            refactorizations,
        };
        Ok((next, stats, stages.kept, mu_end))
    }
}

/// What the stage and end-point iterations of one step share, evaluated once at its start:
/// the model, the method and the options, the step start, the node times and the
/// coefficients times `h`.
struct StepConstants<
    's,
    'a,
    Sys,
    const N: usize,
    const M: usize,
    const K: usize,
    const S: usize,
    Fac,
> where
    Sys: Lagrangian<N, M, K>,
    Fac: Factoring<'a, Sys, N, M, K, S>,
{
    sys: &'a Sys,
    tab: &'s SparkTableau<S>,
    /// The step's options (simplified Newton alone where the dense system is not allowed).
    options: &'s Options,
    h: f64,
    inv_h: f64,
    t0: f64,
    q0: &'s SVector<f64, N>,
    v0: &'s SVector<f64, N>,
    /// `p0 = ∇_v L(t0, q0, v0)`.
    p0: &'s SVector<f64, N>,
    /// `G(t0, q0)`.
    gq0: &'s Fac::Gradient,
    /// Stage times `T_i = t0 + c_i h` and Lobatto-node times `T̃_i = t0 + c̃_i h`.
    times: [f64; S],
    lobatto_times: [f64; S],
    /// `h A`, `h Ā` and `h Â`, once per step.
    h_a: [[f64; S]; S],
    h_a_bar: [[f64; S]; S],
    h_a_hat: [[f64; S]; S],
    /// The position scale of the stage iteration's rounding floor, `(1 + max|q0|)/|h|`. The
    /// constraint rows g/h round at ε times the model's lengths, not at ε |q0|: without the
    /// `1 +` a linkage started from rest at q0 = 0 (the Jansen leg of `tests/models/`) had a
    /// floor of 64 ε |V| alone, its simplified updates stalled at about 4e2 times the
    /// tolerance and its first step failed without the full-Newton fallback. Full Newton uses
    /// the same `1 + |q0|` (`exact_correction`'s noise).
    position_noise: f64,
}

/// The stage iteration's unknowns and what one iteration evaluates from them, overwritten in
/// place at each iteration. Borrowed from separate arrays of the iteration's frame: as fields
/// of one value they took 3.9 kB more stack in the step of the 3D chain of N = 20.
struct StageWork<'w, const N: usize, const M: usize, const S: usize> {
    /// The stage velocities `V_i`.
    vs: &'w mut [SVector<f64, N>; S],
    /// The scaled multipliers `μ_0..μ_{s̃−1}` (unused slots zero).
    mu: &'w mut [SVector<f64, M>; S],
    /// Stage positions `Q_i` and Lobatto-node positions `Q̃_i`.
    qs: &'w mut [SVector<f64, N>; S],
    qls: &'w mut [SVector<f64, N>; S],
    /// Per Lobatto node i < s̃: g and G̃_iᵀ μ_{i+1} (the reaction of the next multiplier slot,
    /// zero past the last).
    cons: &'w mut [(SVector<f64, M>, SVector<f64, N>); S],
    /// Momentum and force at the stages.
    pf: &'w mut [(SVector<f64, N>, SVector<f64, N>); S],
    /// Reaction directions times multipliers, once per node: `G̃_jᵀ μ_j`.
    reactions: &'w mut [SVector<f64, N>; S],
    /// The negated residuals, overwritten by the Newton correction.
    rv: &'w mut [SVector<f64, N>; S],
    rmu: &'w mut [SVector<f64, M>; S],
}

/// `out[i] = q0 + Σ_j h coef_ij V_j`, written in place: arrays of vectors built by value
/// (`core::array::from_fn`) were copied element by element, a third of a step's time on the
/// 3D chain of N = 10.
#[inline(always)]
fn positions<const N: usize, const S: usize>(
    q0: &SVector<f64, N>,
    vs: &[SVector<f64, N>; S],
    h_coef: &[[f64; S]; S],
    out: &mut [SVector<f64, N>; S],
) {
    for i in 0..S {
        out[i] = *q0;
        for j in 0..S {
            out[i].axpy(h_coef[i][j], &vs[j], 1.0);
        }
    }
}

// The phases are `#[inline(always)]`: together they are the body of one iteration (the stage
// and end-point closures they replace), compiled as one frame as before.
impl<'s, 'a, Sys, const N: usize, const M: usize, const K: usize, const S: usize, Fac>
    StepConstants<'s, 'a, Sys, N, M, K, S, Fac>
where
    Sys: Lagrangian<N, M, K>,
    Fac: Factoring<'a, Sys, N, M, K, S>,
{
    /// The constants of `problem`'s step from `(t0, q0, v0)` with `tab`, momentum `p0` and `G`
    /// `gq0` at its start.
    fn new(
        problem: &Problem<'a, Sys, N, M, K>,
        tab: &'s SparkTableau<S>,
        options: &'s Options,
        (t0, q0, v0): (f64, &'s SVector<f64, N>, &'s SVector<f64, N>),
        p0: &'s SVector<f64, N>,
        gq0: &'s Fac::Gradient,
    ) -> Self {
        let h = problem.h;
        let scaled = |coef: &[[f64; S]; S]| -> [[f64; S]; S] {
            core::array::from_fn(|i| core::array::from_fn(|j| h * coef[i][j]))
        };
        let inv_h = 1.0 / h;
        Self {
            sys: problem.sys,
            tab,
            options,
            h,
            inv_h,
            t0,
            q0,
            v0,
            p0,
            gq0,
            times: core::array::from_fn(|i| t0 + tab.c[i] * h),
            lobatto_times: core::array::from_fn(|i| t0 + tab.c_lob[i] * h),
            h_a: scaled(&tab.a),
            h_a_bar: scaled(&tab.a_bar),
            h_a_hat: scaled(&tab.a_hat),
            position_noise: (1.0 + max_abs(q0)) * inv_h.abs(),
        }
    }

    /// The stage solve: equations (4.4b) and (4.4d) by simplified Newton (`simplified`, with
    /// the factored `approx`) or full Newton, from the predicted motion `guess`, to the
    /// tolerance (`SIMPLIFIED_MARGIN` times it when simplified: a linearly convergent
    /// iteration stops with about the tolerance left). A slow simplified iteration of a sparse
    /// model gets `approx` refactored at the current iterate once per step (counted in
    /// `refactorizations`; in place: a second matrix would add its store to the stack) before
    /// it fails with [`slow`], which sends [`with_fallback`] to full Newton.
    #[inline(always)]
    fn stages<Kp: Keep<N, M, S>>(
        &self,
        simplified: bool,
        guess: &Option<Motion<N, M>>,
        approx: &mut Option<StageMatrix<N, M, S, Fac::Blocks>>,
        refactorizations: &mut u32,
    ) -> Result<StageSolution<N, M, Kp::Stages, Fac::Gradient>, Error> {
        if simplified && approx.is_none() {
            return Err(slow(Phase::Stages, 0, f64::INFINITY));
        }
        let st = self.tab.s_tilde;
        let (zero_n, zero_m) = (SVector::<f64, N>::zeros(), SVector::<f64, M>::zeros());
        let (mut vs, mut mu) = ([*self.v0; S], [zero_m; S]);
        let (mut qs, mut qls, mut reactions) = ([zero_n; S], [zero_n; S], [zero_n; S]);
        let (mut cons, mut pf) = ([(zero_m, zero_n); S], [(zero_n, zero_n); S]);
        let (mut rv, mut rmu) = ([zero_n; S], [zero_m; S]);
        let mut w = StageWork {
            vs: &mut vs,
            mu: &mut mu,
            qs: &mut qs,
            qls: &mut qls,
            cons: &mut cons,
            pf: &mut pf,
            reactions: &mut reactions,
            rv: &mut rv,
            rmu: &mut rmu,
        };
        self.start_iterate(guess, &mut w);
        let mut monitor = Monitor::new(Phase::Stages, self.options.max_iterations);
        let (mut converged, mut refreshed, mut spent) = (false, false, 0);
        // Full Newton's line search weighs the momentum rows by the inverse mass diagonal. Not
        // evaluated (not even compiled) where the dense system is not allowed, and out of line
        // where it is: the `N × N` mass matrix in this inlined loop's frame made the stack of
        // every step of a large sparse model grow with `N²` (3D chain of 40 masses: 79.7 →
        // 411.6 KiB per step).
        let inv_mass = if simplified || !solves_densely::<N, M, S>(Fac::SPARSE) {
            SVector::zeros()
        } else {
            inverse_mass_diagonal::<Sys, N, M, K>(self.sys, self.t0, self.q0, self.v0)
        };
        loop {
            // Converged, the last node's g is not needed, only its G (in `converged`).
            self.evaluate_nodes(&mut w, if converged { st - 1 } else { st });
            if converged {
                return self.converged::<Kp>(&mut w, spent + monitor.iterations());
            }
            self.residual(&mut w);
            // Only full Newton searches: the simplified iteration needs no merit.
            let merit = if simplified {
                0.0
            } else {
                merit(w.rv, w.rmu, &inv_mass)
            };
            let attainable = self.correct(simplified, approx.as_ref(), &mut w, &monitor)?;
            if !simplified && self.searches(&w) && self.line_search(&mut w, &inv_mass, merit) < 1.0
            {
                self.update_damped(&mut w, &mut monitor)?;
                continue;
            }
            if self.update(&mut w, simplified, attainable, &mut monitor)? == Verdict::Converged {
                converged = true;
            } else if simplified && monitor.is_slow() {
                if !refreshed {
                    refreshed = true;
                    if self.refactor(&w, approx) {
                        *refactorizations += 1;
                        spent += monitor.iterations();
                        monitor = Monitor::new(Phase::Stages, self.options.max_iterations);
                        continue;
                    }
                }
                let iterations = spent + monitor.iterations();
                return Err(slow(Phase::Stages, iterations, monitor.last()));
            }
        }
    }

    /// Full Newton's backtracking line search on the correction in `w` from an iterate whose
    /// residual has the `merit` ([`merit`]): the largest `λ = 2⁻ᵏ` (k ≤ [`HALVINGS`]) whose
    /// iterate lowers the merit by the Armijo fraction, the correction in `w` scaled by it (the
    /// iterate and the residual buffers as on entry, the nodes evaluated at the trial).
    ///
    /// Why: a model's regularized dry friction `f v / √(v² + ε²)` (`docs/friction.md`) is
    /// nearly a step of height `2f` within `|v| ≲ ε`. Where a joint stops within the step the
    /// stage velocity's solution lies in that band, and Newton from outside it jumps between
    /// the flat sides forever: on the 50-dof Talos (light grippers, friction 1, ε = 1e-3)
    /// every one of 20 random states failed within its first five steps with full Newton's
    /// updates stuck at 0.4 (`NoConvergence` after 20 iterations).
    #[inline(always)]
    fn line_search(
        &self,
        w: &mut StageWork<'_, N, M, S>,
        inv_mass: &SVector<f64, N>,
        merit0: f64,
    ) -> f64 {
        let (vs0, mu0) = (*w.vs, *w.mu);
        let (dv, dmu) = (*w.rv, *w.rmu);
        let mut lambda = 1.0;
        for k in 0..=HALVINGS {
            for i in 0..S {
                w.vs[i] = vs0[i] + dv[i] * lambda;
                w.mu[i] = mu0[i] + dmu[i] * lambda;
            }
            self.evaluate_nodes(w, self.tab.s_tilde);
            self.residual(w);
            let trial = merit(w.rv, w.rmu, inv_mass);
            if trial <= (1.0 - 1e-4 * lambda) * merit0 || !merit0.is_finite() || k == HALVINGS {
                break;
            }
            lambda *= 0.5;
        }
        *w.vs = vs0;
        *w.mu = mu0;
        for i in 0..S {
            w.rv[i] = dv[i] * lambda;
            w.rmu[i] = dmu[i] * lambda;
        }
        lambda
    }

    /// Whether full Newton's correction in `w` is large enough for a line search: above
    /// [`SEARCH_ABOVE`] tolerances. Below it the iterate is in Newton's quadratic range (for
    /// friction, within a fraction of `ε`), and near the solution the merit is rounding
    /// noise that no halving lowers.
    #[inline(always)]
    fn searches(&self, w: &StageWork<'_, N, M, S>) -> bool {
        let delta = w.rv.iter().fold(0.0f64, |m, r| m.max(max_abs(r)));
        let vscale = w.vs.iter().fold(max_abs(self.v0), |m, v| m.max(max_abs(v)));
        let unit = tolerance_unit(self.options.tolerance, false, vscale);
        let floor = rounding_floor(vscale, self.position_noise);
        delta > SEARCH_ABOVE * unit.max(floor)
    }

    /// Adds the correction a line search shortened to the iterate in `w` and counts it
    /// ([`Monitor::damped`]).
    #[inline(always)]
    fn update_damped(
        &self,
        w: &mut StageWork<'_, N, M, S>,
        monitor: &mut Monitor,
    ) -> Result<(), Error> {
        let mut delta = 0.0f64;
        for i in 0..S {
            w.vs[i] += w.rv[i];
            delta = delta.max(max_abs(&w.rv[i]));
            w.mu[i] += w.rmu[i];
        }
        let vscale = w.vs.iter().fold(max_abs(self.v0), |m, v| m.max(max_abs(v)));
        let unit = tolerance_unit(self.options.tolerance, false, vscale.max(f64::MIN_POSITIVE));
        monitor.damped(delta / unit)
    }

    /// Writes the predicted motion's stage velocities and scaled multipliers into `w`
    /// (which holds `v0` and zero multipliers); nothing without a prediction.
    #[inline(always)]
    fn start_iterate(&self, guess: &Option<Motion<N, M>>, w: &mut StageWork<'_, N, M, S>) {
        let (tab, h) = (self.tab, self.h);
        if let Some(motion) = guess {
            for i in 0..S {
                w.vs[i] += motion.velocity_change(h, tab.c[i]);
                if i < tab.s_tilde {
                    let c = if i == 0 { 0.0 } else { tab.c_lob[i - 1] };
                    w.mu[i] = motion.impulse(h, c);
                }
            }
        }
    }

    /// The stage and Lobatto-node positions of the iterate in `w`, and `g` and the reaction
    /// `G̃ᵀ μ` at the first `nodes` Lobatto nodes.
    #[inline(always)]
    fn evaluate_nodes(&self, w: &mut StageWork<'_, N, M, S>, nodes: usize) {
        positions(self.q0, w.vs, &self.h_a, w.qs);
        positions(self.q0, w.vs, &self.h_a_bar, w.qls);
        let st = self.tab.s_tilde;
        for i in 0..nodes {
            let next = if i + 1 < st {
                w.mu[i + 1]
            } else {
                SVector::zeros()
            };
            w.cons[i] = self
                .sys
                .constraint_reaction(self.lobatto_times[i], &w.qls[i], &next);
        }
    }

    /// The negated residuals `−ρ_i` of (4.4b) and `−σ_i = −g(Q̃_i)/h` of (4.4d) at the
    /// iterate in `w` (positions and nodes evaluated), into `w.rv`, `w.rmu`; unused multiplier
    /// slots (s̃ < S) get the trivial equation μ = 0. Evaluates the momenta and forces at the
    /// stages.
    #[inline(always)]
    fn residual(&self, w: &mut StageWork<'_, N, M, S>) {
        let (tab, st) = (self.tab, self.tab.s_tilde);
        for i in 0..S {
            w.pf[i] = self.sys.momentum_force(self.times[i], &w.qs[i], &w.vs[i]);
        }
        w.reactions[0] = self.gq0.tr_mul(&w.mu[0]);
        for j in 1..st {
            w.reactions[j] = w.cons[j - 1].1;
        }
        // −ρ_i accumulated in place (no vector temporaries on the stack).
        for i in 0..S {
            let r = &mut w.rv[i];
            r.copy_from(self.p0);
            *r -= &w.pf[i].0;
            r.axpy(-tab.a_til0[i], &w.reactions[0], 1.0);
            for j in 0..S {
                r.axpy(self.h_a_hat[i][j], &w.pf[j].1, 1.0);
            }
            for j in 1..st {
                r.axpy(-tab.a_til[i][j - 1], &w.reactions[j], 1.0);
            }
            if i < st {
                w.rmu[i].copy_from(&w.cons[i].0);
                w.rmu[i] *= -self.inv_h;
            } else {
                w.rmu[i].copy_from(&w.mu[i]);
                w.rmu[i].neg_mut();
            }
        }
    }

    /// Overwrites the negated residuals in `w` with the Newton correction: with the factored
    /// `approx` when `simplified`, else with the exact stage matrix ([`exact_correction`]).
    /// Returns the accuracy the iteration can attain (0 for simplified Newton, whose matrix's
    /// conditioning is not estimated; for full Newton the rounding of the residual amplified
    /// by the matrix).
    #[inline(always)]
    fn correct(
        &self,
        simplified: bool,
        approx: Option<&StageMatrix<N, M, S, Fac::Blocks>>,
        w: &mut StageWork<'_, N, M, S>,
        monitor: &Monitor,
    ) -> Result<f64, Error> {
        if let (true, Some(approx)) = (simplified, approx) {
            approx.solve(self.tab, w.rv, w.rmu);
            return Ok(0.0);
        }
        if !solves_densely::<N, M, S>(Fac::SPARSE) {
            // Not reached (`options` asks for simplified Newton, and a missing matrix fails
            // before the iteration); spelled out so that the dense solve is dead code.
            return Err(slow(Phase::Stages, monitor.iterations(), f64::INFINITY));
        }
        // What the rounding of each row is made of: the momentum rows' own terms per
        // coordinate, the velocities' size, the constraint rows' positions.
        let h = self.h;
        let mut terms = self.p0.abs();
        for ((p, f), r) in w.pf.iter().zip(w.reactions.iter()) {
            terms += p.abs() + f.abs() * h.abs() + r.abs();
        }
        let noise = RowNoise {
            vscale: w.vs.iter().fold(max_abs(self.v0), |m, v| m.max(max_abs(v))),
            position_scale: self.position_noise,
            terms,
        };
        let stages = StageIterate {
            times: &self.times,
            lobatto_times: &self.lobatto_times,
            qs: w.qs,
            qls: w.qls,
            vs: w.vs,
            mu: w.mu,
        };
        let at = (self.t0, self.q0);
        exact_correction(
            self.tab,
            self.sys,
            h,
            &stages,
            at,
            (&mut w.rv, &mut w.rmu),
            &noise,
        )
        .map_err(|_| monitor.singular())
    }

    /// Adds the correction in `w` to the iterate and judges its size against the tolerance
    /// (relative to the largest velocity), above the rounding floor `64 ε (|V| + (1 + |q0|)/h)`
    /// and the `attainable` accuracy ([`Monitor::judge_update`]). An iterate at rest is
    /// converged.
    #[inline(always)]
    fn update(
        &self,
        w: &mut StageWork<'_, N, M, S>,
        simplified: bool,
        attainable: f64,
        monitor: &mut Monitor,
    ) -> Result<Verdict, Error> {
        let mut delta = 0.0f64;
        for i in 0..S {
            w.vs[i] += w.rv[i];
            delta = delta.max(max_abs(&w.rv[i]));
            w.mu[i] += w.rmu[i];
        }
        let vscale = w.vs.iter().fold(max_abs(self.v0), |m, v| m.max(max_abs(v)));
        if vscale == 0.0 {
            return Ok(Verdict::Converged);
        }
        let unit = tolerance_unit(self.options.tolerance, simplified, vscale);
        let floor = rounding_floor(vscale, self.position_noise);
        monitor.judge_update(delta, unit, attainable, floor)
    }

    /// Refactors the simplified matrix `approx` at the iterate in `w` (`L` at the step start,
    /// `G` at the midpoint of `q0` and the last Lobatto node; [`Factoring::refactor`]): `true`
    /// when the iteration goes on with the new factors. A singular new matrix leaves `approx`
    /// `None` (its old factors are overwritten).
    #[inline(always)]
    fn refactor(
        &self,
        w: &StageWork<'_, N, M, S>,
        approx: &mut Option<StageMatrix<N, M, S, Fac::Blocks>>,
    ) -> bool {
        let (t0, h, st) = (self.t0, self.h, self.tab.s_tilde);
        let q_mid = (*self.q0 + w.qls[st - 1]) * 0.5;
        let again = approx.as_mut().and_then(|m| {
            Fac::refactor(
                self.sys,
                (self.tab, h),
                (t0, self.q0, self.v0),
                (&self.times, &*w.qs, &*w.vs),
                (t0 + 0.5 * h, &q_mid),
                m,
            )
        });
        match again {
            Some(true) => true,
            Some(false) => {
                *approx = None;
                false
            }
            None => false,
        }
    }

    /// What the end point needs of the converged stages in `w` (positions and nodes
    /// evaluated): the forces at the stages, the reactions of the stage multipliers, `G` at
    /// `q1`; `iterations` is what the solve spent. (Always `Ok`: built in the caller's
    /// result, not moved into it.)
    #[inline(always)]
    fn converged<Kp: Keep<N, M, S>>(
        &self,
        w: &mut StageWork<'_, N, M, S>,
        iterations: u32,
    ) -> Result<StageSolution<N, M, Kp::Stages, Fac::Gradient>, Error> {
        let (tab, st) = (self.tab, self.tab.s_tilde);
        let mut known = -*self.p0;
        known.axpy(tab.b_lob0, &self.gq0.tr_mul(&w.mu[0]), 1.0);
        for j in 0..S {
            w.pf[j] = self.sys.momentum_force(self.times[j], &w.qs[j], &w.vs[j]);
            known.axpy(-self.h * tab.b[j], &w.pf[j].1, 1.0);
        }
        for j in 1..st {
            known.axpy(tab.b_lob[j - 1], &w.cons[j - 1].1, 1.0);
        }
        Ok(StageSolution {
            kept: Kp::stages(w.vs, w.mu),
            v_last: w.vs[S - 1],
            q1: w.qls[st - 1],
            gq1: Fac::gradient(self.sys, self.lobatto_times[st - 1], &w.qls[st - 1]),
            known,
            iterations,
        })
    }

    /// What the end-point iteration needs of the step, with what its start left for the end
    /// point (`kept`) and the stage matrix `approx` (whose mass-matrix factors the end point
    /// may reuse).
    #[inline(always)]
    fn end_point(
        &self,
        kept: &'s Fac::Kept,
        approx: Option<&'s StageMatrix<N, M, S, Fac::Blocks>>,
    ) -> EndPoint<'s, 'a, Sys, N, M, K, S, Fac> {
        EndPoint {
            sys: self.sys,
            tab: self.tab,
            options: self.options,
            t1: self.t0 + self.h,
            v0: self.v0,
            kept,
            approx,
        }
    }
}

/// What the end-point iteration needs of the step. (A struct of its own: with the stage
/// iteration's constants borrowed by the end point, the step of the 3D chain of N = 20 took
/// 43.4 KiB of stack instead of 43.0, `chain3d jacobian`.)
struct EndPoint<'s, 'a, Sys, const N: usize, const M: usize, const K: usize, const S: usize, Fac>
where
    Sys: Lagrangian<N, M, K>,
    Fac: Factoring<'a, Sys, N, M, K, S>,
{
    sys: &'a Sys,
    tab: &'s SparkTableau<S>,
    options: &'s Options,
    /// `t1 = t0 + h`.
    t1: f64,
    v0: &'s SVector<f64, N>,
    kept: &'s Fac::Kept,
    approx: Option<&'s StageMatrix<N, M, S, Fac::Blocks>>,
}

impl<'s, 'a, Sys, const N: usize, const M: usize, const K: usize, const S: usize, Fac>
    EndPoint<'s, 'a, Sys, N, M, K, S, Fac>
where
    Sys: Lagrangian<N, M, K>,
    Fac: Factoring<'a, Sys, N, M, K, S>,
{
    /// The end-point solve: equations (4.4f) and (4.4h) for `v1` and `μ_s̃` from the converged
    /// `stages`, by simplified (`simplified`) or full Newton with the matrix
    /// `[[L_vv, b̃ Gᵀ], [W, 0]]`, factored by eliminating the velocity block (once per solve when
    /// simplified; a mass matrix equal to the step start's is not factored again). Returns
    /// `v1`, what the caller keeps of `μ_s̃`, and the iterations.
    #[allow(clippy::type_complexity)]
    #[inline(always)]
    fn solve<Kp: Keep<N, M, S>>(
        &self,
        simplified: bool,
        stages: &StageSolution<N, M, Kp::Stages, Fac::Gradient>,
    ) -> Result<((SVector<f64, N>, Kp::End), u32), Error> {
        let (sys, t1, approx) = (self.sys, self.t1, self.approx);
        let (q1, gq1, known) = (&stages.q1, &stages.gq1, &stages.known);
        let weight = self.tab.b_lob[self.tab.s_tilde - 1];
        let mut v1 = stages.v_last;
        let mut mu_end = SVector::<f64, M>::zeros();
        let mut monitor = Monitor::new(Phase::EndPoint, self.options.max_iterations);
        let mut matrix: Option<Fac::End> = None;
        loop {
            let w = sys.hidden_constraint(t1, q1, &v1).0;
            let p = if matrix.is_none() || !simplified {
                self.end_matrix(stages, &v1, &mut matrix, &monitor)?
            } else {
                sys.momentum(t1, q1, &v1)
            };
            let rho = p + known + gq1.tr_mul(&mu_end) * weight;
            let mut dv = -rho;
            let mut dmu = -w;
            if let Some(m) = &matrix {
                Fac::end_solve(m, approx, &mut dv, &mut dmu);
            }
            v1 += dv;
            mu_end += dmu;
            let delta = max_abs(&dv);
            let condition = matrix.as_ref().map_or(1.0, Fac::end_condition);
            if Sys::QUADRATIC_IN_V && monitor.iterations() == 0 && delta.is_finite() {
                // Linear equations and the exact matrix: this one step solves them.
                return Ok(((v1, Kp::end(&mu_end)), 1));
            }
            let vscale = max_abs(&v1).max(max_abs(self.v0));
            if vscale == 0.0 {
                return Ok(((v1, Kp::end(&mu_end)), monitor.iterations()));
            }
            let unit = tolerance_unit(self.options.tolerance, simplified, vscale);
            let noise = attainable(condition) * vscale;
            if monitor.judge(delta / unit, noise / unit)? == Verdict::Converged {
                return Ok(((v1, Kp::end(&mu_end)), monitor.iterations()));
            } else if simplified && monitor.is_slow() {
                return Err(slow(Phase::EndPoint, monitor.iterations(), monitor.last()));
            }
        }
    }

    /// Factors the end-point matrix at `(t1, q1, v1)` into `matrix` ([`Factoring::end`]);
    /// returns the momentum there. Fails with [`Error::SingularJacobian`] when the matrix is
    /// singular, [`Error::IllConditioned`] when its Schur complement is too ill-conditioned to
    /// resolve the tolerance (it is
    /// built with G and W at the end point in both iterations: its conditioning bounds what
    /// either can resolve).
    #[inline(always)]
    fn end_matrix<X>(
        &self,
        stages: &StageSolution<N, M, X, Fac::Gradient>,
        v1: &SVector<f64, N>,
        matrix: &mut Option<Fac::End>,
        monitor: &Monitor,
    ) -> Result<SVector<f64, N>, Error> {
        let at = (self.t1, &stages.q1, v1);
        let weight = self.tab.b_lob[self.tab.s_tilde - 1];
        let p = Fac::end(
            self.sys,
            self.kept,
            self.approx,
            at,
            weight,
            &stages.gq1,
            matrix,
        )
        .map_err(|_| monitor.singular())?;
        let condition = matrix.as_ref().map_or(f64::INFINITY, Fac::end_condition);
        let ratio = attainable(condition) / self.options.tolerance;
        if ratio > ILL_CONDITIONED {
            return Err(monitor.ill_conditioned(ratio));
        }
        Ok(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::GaussLobatto;

    mod hand {
        include!("../../tests/models/pendulum.rs");
    }
    use hand::{reference, Pendulum};

    type V2 = SVector<f64, 2>;

    /// Cartesian velocity of the unit pendulum (g = 9.81) at time `t` from angle 0.5 (from the
    /// downward vertical) and angular velocity 1.5.
    fn exact_velocity(t: f64) -> V2 {
        let (th, om) = reference(0.5, 1.5, t, 9.81);
        V2::new(th.cos(), th.sin()) * om
    }

    /// The same pendulum declaring its constant mass matrix: the prediction then takes the
    /// cheaper branch (no mass matrix at the midpoint).
    struct ConstantMassPendulum(Pendulum);

    impl crate::model::Model for ConstantMassPendulum {
        fn first_non_finite_parameter(&self) -> Option<&'static str> {
            self.0.first_non_finite_parameter()
        }
    }

    impl Lagrangian<2, 1> for ConstantMassPendulum {
        const CONSTANT_MASS: bool = true;
        fn lagrangian(&self, t: f64, q: &V2, v: &V2) -> f64 {
            self.0.lagrangian(t, q, v)
        }
        fn momentum_force(&self, t: f64, q: &V2, v: &V2) -> (V2, V2) {
            self.0.momentum_force(t, q, v)
        }
        fn dynamics_jacobian(&self, t: f64, q: &V2, v: &V2) -> DynamicsJacobian<2> {
            self.0.dynamics_jacobian(t, q, v)
        }
        fn constraints(&self, t: f64, q: &V2) -> SVector<f64, 1> {
            self.0.constraints(t, q)
        }
        fn constraint_jacobian(
            &self,
            t: f64,
            q: &V2,
            mu: &SVector<f64, 1>,
        ) -> ConstraintJacobian<2, 1> {
            self.0.constraint_jacobian(t, q, mu)
        }
        fn velocity_constraint_jacobian(
            &self,
            t: f64,
            q: &V2,
            v: &V2,
        ) -> crate::model::blocks::VelocityConstraintJacobian<2, 1> {
            self.0.velocity_constraint_jacobian(t, q, v)
        }
    }

    /// Largest error of the predicted `V(c h) − v0` over the stage times of `GaussLobatto<2>`,
    /// with the linear acceleration and with the constant one.
    fn prediction_errors<Sys: Lagrangian<2, 1>>(sys: &Sys, h: f64) -> (f64, f64) {
        let tab = GaussLobatto::<2>::TABLEAU;
        let state = State {
            t: 0.0,
            q: V2::new(0.5f64.sin(), -0.5f64.cos()),
            v: V2::new(0.5f64.cos(), 0.5f64.sin()) * 1.5,
        };
        let d0 = sys.mass_force(0.0, &state.q, &state.v);
        let start = <Dense as Factoring<'_, Sys, 2, 1, 0, 2>>::hidden(sys, 0.0, &state.q, &state.v);
        let q_mid = state.q + state.v * (0.5 * h);
        let g_mid = sys.constraint_gradient(0.5 * h, &q_mid).1;
        let approx = StageMatrix::new(&tab, &d0.lvv, &g_mid).unwrap();
        let motion = predict_motion::<Sys, 2, 1, 0, 2, Dense>(
            sys,
            &approx,
            h,
            &state,
            (&d0.f, &d0.lvq_v, Some(&d0.lvv)),
            &start,
        )
        .unwrap();
        let (mut linear, mut constant) = (0.0f64, 0.0f64);
        for &c in &tab.c {
            let exact = exact_velocity(c * h) - state.v;
            linear = linear.max((motion.velocity_change(h, c) - exact).amax());
            constant = constant.max((motion.a0 * (c * h) - exact).amax());
        }
        (linear, constant)
    }

    fn check_third_order<Sys: Lagrangian<2, 1>>(sys: &Sys) {
        let hs = [0.04, 0.02, 0.01];
        let errors: [(f64, f64); 3] = core::array::from_fn(|k| prediction_errors(sys, hs[k]));
        crate::step::assert_prediction_orders(&errors);
    }

    /// The predicted stage velocities are O(h³) from the exact motion (O(h²) with a constant
    /// acceleration): halving h divides the error by about 8 (by 4). Both branches: mass
    /// matrix evaluated at the midpoint, and declared constant.
    #[test]
    fn predicted_stage_velocities_are_third_order() {
        let pendulum = Pendulum {
            m: 1.0,
            l: 1.0,
            g: 9.81,
        };
        check_third_order(&pendulum);
        check_third_order(&ConstantMassPendulum(pendulum));
    }
}
