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
use crate::linalg::layout::{flat, flat_square, zero_square, zeros, Arr, Cat, Layout};
use crate::linalg::lu;
use crate::model::blocks::InputJacobian;
use crate::model::{Inputs, Lagrangian, State};
use crate::options::StepStats;
use crate::step::assembly::{add_scaled, MomentumWeights, StageEvaluations, ZeroBlocks};
use crate::step::coupled_layout::{moment_weight, system_len, MixedLayout, Offsets};
use crate::step::holonomic::Retain;
use crate::step::mixed::MixedPoint;
use crate::step::ordering::{reorder, Couplings, ORDER_FROM};
use crate::step::problem::Problem;
use crate::step::start::StepStart;
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
            let (mut xbuf, iterations) = self.solve_mixed(tab)?;
            let x = flat::<L<N, M, K, S>, f64>(&mut xbuf);
            let next = self.mixed_state(tab, x)?;
            let start = StepStart::at(self.sys, self.state);
            let jacobian = self.jacobian_at(tab, &start, x)?;
            let stats = StepStats {
                stage_iterations: iterations,
                end_iterations: 0,
                ..StepStats::default()
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
        // The model evaluated once, for the matrix and the right-hand sides.
        let pt: MixedPoint<N, M, K, S> = self.mixed_point(tab, start, x);
        self.assemble_mixed_at(tab, start, &pt, x, None, Some(&mut *jm));
        let mut pbuf = <L<N, M, K, S> as Layout>::fill(0usize);
        let perm = flat::<L<N, M, K, S>, usize>(&mut pbuf);
        // Large systems are factored within their rows' nonzero spans (`lu::factor_banded`),
        // after a reordering to a band, coordinate by coordinate (`band_order`), of the
        // holonomic system's stage block (from `ORDER_FROM` unknowns on) or of the whole
        // coupled system, in place. (`banded` is a constant: small systems compile without
        // these buffers and this path.)
        // Holonomic steps: the matrix is block lower triangular as assembled (see `Offsets`),
        // and its two diagonal blocks are factored alone (about 3x less work at S = 2).
        let leading = if K == 0 {
            O::<N, M, K, S>::stage_len(tab.s_tilde)
        } else {
            len
        };
        let mut band = BandBuffers::<L<N, M, K, S>>::new(leading);
        let (mut spans, mut order) = band.split();
        if let Some(order) = order.as_deref_mut() {
            let couplings = Couplings::<N, M, K> {
                gq0: &start.gq0,
                nodes: &pt.cons[..tab.s_tilde],
                nonholonomic: (&pt.nhs, core::slice::from_ref(&pt.nh1)),
            };
            reorder::<N, M, K, S>(jm, &couplings, tab.s_tilde, order);
        }
        let factored = if let Some(spans) = spans.as_deref_mut() {
            lu::factor_banded(jm, perm, spans, len, leading)
        } else if K > 0 {
            lu::factor_inline(jm, perm, len)
        } else if tab.s_tilde == S {
            lu::factor_lower(jm, perm, len, O::<N, M, K, S>::stage_len(S))
        } else {
            lu::factor_lower(jm, perm, len, O::<N, M, K, S>::stage_len(S - 1))
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
            zeros: ZeroBlocks::of::<Sys, N, M, K>(),
        };

        let stage_weights = |i: usize| MomentumWeights::spark_stage(tab, i);
        let end_weights = MomentumWeights::spark_end(tab);
        let start_terms = StartTerms {
            h,
            lvq0: &d0.lvq,
            hess0: &c0.hess_mu,
            p_u0: &u0.p_u,
            f_u: &core::array::from_fn(|j| us[j].f_u),
            ev: &ev,
        };
        let stage_rows: [MomentumRow<N, U>; S] = core::array::from_fn(|i| {
            start_terms.row(
                O::<N, M, K, S>::v(i),
                &pt.dyns[i].lvq,
                &us[i].p_u,
                &stage_weights(i),
            )
        });
        let end_row = [start_terms.row(O::<N, M, K, S>::V1, &pt.d1.lvq, &u1.p_u, &end_weights)];
        let st = tab.s_tilde;
        let omega = |i: usize, j: usize| moment_weight(tab, i, j);
        // ∂/∂q0_b of the constraint rows: the hidden constraint at the end, g(Q̃_j)/h, k at the
        // end and its moments at the stages.
        let constraints = |b: usize, put: &mut dyn FnMut(usize, f64)| {
            for l in 0..M {
                put(O::<N, M, K, S>::hidden_row(st) + l, pt.w1.wq[(l, b)]);
                for j in 0..st {
                    put(
                        O::<N, M, K, S>::position_row(j) + l,
                        pt.cons[j].gq[(l, b)] / h,
                    );
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
        };
        let mut cols = zeros::<Columns<L<N, M, K, S>, N, U>>();
        let out = solve_sensitivities(
            jm,
            perm,
            flat::<Columns<L<N, M, K, S>, N, U>, f64>(&mut cols),
            &Sensitivity {
                momentum: [&stage_rows, &end_row],
                lvv0: &d0.lvv,
                constraints: &constraints,
                v: core::array::from_fn(O::<N, M, K, S>::v),
                b: &tab.b,
                h,
                v1: O::<N, M, K, S>::V1,
                leading,
                order: order.as_deref().map(|order| &order[..leading]),
                spans: spans.as_deref(),
            },
        );
        if !out.is_finite() {
            return Err(Error::NonFiniteState);
        }
        Ok(out)
    }
}

/// Which step system a Jacobian differentiates, for [`stack_estimate`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum JacobianPath {
    /// The holonomic SPARK step (Lagrangian, `K = 0`; EMPRK is the same step there).
    Holonomic,
    /// The coupled holonomic + nonholonomic SPARK step (`K > 0`).
    Mixed,
    /// The EMPRK step with nonholonomic constraints.
    Emprk,
    /// The Hamiltonian and DAE step.
    Dae,
}

/// An estimate, in bytes, of the stack one `step_with_jacobian` takes for a model with `n`
/// coordinates at `S = s` on an optimized build: `(a + b s) n² + 32 KiB`. The frames are
/// dominated by dense `n × n` blocks (the model's second derivatives at every stage, the step
/// system's matrix and its `2n + u` right-hand sides). The coefficients are 1.2 times those
/// fitted to x86-64 measurements by stack painting on 3D and planar chains of 4 to 20 masses,
/// `S = 1, 2, 3` (`tests/suite/step_jacobian.rs` checks that the estimate bounds the stack).
pub(crate) const fn stack_estimate(path: JacobianPath, n: usize, s: usize) -> usize {
    let (a, b) = match path {
        JacobianPath::Holonomic => (390, 480),
        JacobianPath::Mixed => (660, 540),
        JacobianPath::Emprk => (0, 1240),
        JacobianPath::Dae => (360, 792),
    };
    (a + b * s) * n * n + (32 << 10)
}

/// A momentum-balance row block of a coupled step system and its derivatives with respect to
/// the start position (`N × N`) and the inputs (`N × U`); with respect to the start velocity it
/// is `−L_vv(t0, q0, v0)` for every such row.
pub(crate) struct MomentumRow<const N: usize, const U: usize> {
    pub row: usize,
    pub dq: SMatrix<f64, N, N>,
    pub du: SMatrix<f64, N, U>,
}

/// The step-start quantities every momentum row's derivatives need.
pub(crate) struct StartTerms<
    'a,
    'e,
    const N: usize,
    const M: usize,
    const K: usize,
    const S: usize,
    const U: usize,
> {
    pub h: f64,
    /// `L_vq(t0, q0, v0)`, `Σ μ0_k ∇²g_k(q0)`, `∂p/∂u` at the start.
    pub lvq0: &'a SMatrix<f64, N, N>,
    pub hess0: &'a SMatrix<f64, N, N>,
    pub p_u0: &'a SMatrix<f64, N, U>,
    /// `∂F_j/∂u` at the force stages.
    pub f_u: &'a [SMatrix<f64, N, U>; S],
    pub ev: &'a StageEvaluations<'e, N, M, K, S>,
}

impl<const N: usize, const M: usize, const K: usize, const S: usize, const U: usize>
    StartTerms<'_, '_, N, M, K, S, U>
{
    /// The row at `row` whose own momentum is evaluated where `L_vq = own_lvq` and
    /// `∂p/∂u = own_p_u`, with the weights `w`: `∂ρ/∂q0 = L_vq(own) − L_vq(start) + w0 Σ μ0_k
    /// ∇²g_k(q0) + (stage terms)`, `∂ρ/∂u = ∂p/∂u(own) − ∂p0/∂u − h Σ_j w_j ∂F_j/∂u`.
    pub(crate) fn row(
        &self,
        row: usize,
        own_lvq: &SMatrix<f64, N, N>,
        own_p_u: &SMatrix<f64, N, U>,
        w: &MomentumWeights<'_, S>,
    ) -> MomentumRow<N, U> {
        let mut dq = self.ev.momentum_start_coupling(w);
        if !self.ev.zeros.lvq {
            add_scaled(&mut dq, own_lvq, 1.0);
            add_scaled(&mut dq, self.lvq0, -1.0);
        }
        add_scaled(&mut dq, self.hess0, w.start);
        let mut du = *own_p_u;
        add_scaled(&mut du, self.p_u0, -1.0);
        for j in 0..S {
            add_scaled(&mut du, &self.f_u[j], -self.h * w.force[j]);
        }
        MomentumRow { row, dq, du }
    }
}

/// Writes `∂F/∂q0_b` of every constraint row of a coupled step through `put(row, value)`.
pub(crate) type ConstraintColumn<'a> = &'a dyn Fn(usize, &mut dyn FnMut(usize, f64));

/// What the sensitivity solve of a coupled step needs besides its factored matrix.
pub(crate) struct Sensitivity<'a, const N: usize, const U: usize, const S: usize> {
    /// The momentum rows (two groups: e.g. the stages and the end point).
    pub momentum: [&'a [MomentumRow<N, U>]; 2],
    /// `L_vv(t0, q0, v0)`.
    pub lvv0: &'a SMatrix<f64, N, N>,
    /// The constraint rows' `∂F/∂q0_b`.
    pub constraints: ConstraintColumn<'a>,
    /// The offsets of `V_1..V_S` and the weights of `q1 = q0 + h Σ_j b_j V_j`.
    pub v: [usize; S],
    pub b: &'a [f64; S],
    pub h: f64,
    /// The offset of `v1`.
    pub v1: usize,
    /// The factored matrix is block lower triangular with a leading block of this many rows
    /// ([`lu::factor_lower`]); the system's length when it is factored whole.
    pub leading: usize,
    /// The swaps of a symmetric reordering of the leading rows and columns applied to the
    /// matrix before it was factored ([`band_order`]), if any.
    pub order: Option<&'a [usize]>,
    /// The row spans of the factors, if they come from [`lu::factor_banded`].
    pub spans: Option<&'a [usize]>,
}

/// Holonomic step systems smaller than this factor their blocks with sizes that are constants
/// in the inlined factorization, one copy per `s̃`. With the leading block's size known only at
/// run time, the pendulum's Jacobian (9 unknowns at S = 2) took 0.74 against 0.69 µs, the
/// 4-link chain's (36 unknowns) 4.32 against 4.11 µs. Larger ones are factored within their
/// rows' nonzero spans ([`lu::factor_banded`]).
const CONSTANT_BLOCKS_BELOW: usize = 40;

/// The work buffers of the banded factorization of a step system of layout `L` (see
/// [`CONSTANT_BLOCKS_BELOW`] and [`ORDER_FROM`]): the factors' row spans, and the swaps of the
/// band order of its leading unknowns; `None` where the system is factored otherwise. (Both
/// conditions are constants: small systems compile without these buffers.)
pub(crate) struct BandBuffers<L: Layout> {
    spans: Option<<Arr<L, 4> as Layout>::Of<usize>>,
    order: Option<L::Of<usize>>,
}

impl<L: Layout> BandBuffers<L> {
    /// The buffers of a system whose leading `leading` unknowns are reordered.
    pub(crate) fn new(leading: usize) -> Self {
        let banded = L::LEN >= CONSTANT_BLOCKS_BELOW;
        Self {
            spans: banded.then(|| <Arr<L, 4> as Layout>::fill(0)),
            order: (banded && leading >= ORDER_FROM).then(|| L::fill(0)),
        }
    }

    /// The row spans and the swaps, as slices.
    pub(crate) fn split(&mut self) -> (Option<&mut [usize]>, Option<&mut [usize]>) {
        (
            self.spans.as_mut().map(flat::<Arr<L, 4>, usize>),
            self.order.as_mut().map(flat::<L, usize>),
        )
    }
}

/// A buffer for the `2N + U` right-hand sides of [`solve_sensitivities`]: `2N + U` copies of a
/// step system's layout `L`, used as the `len × (2N + U)` row-major matrix of `lu::solve_many`.
pub(crate) type Columns<L, const N: usize, const U: usize> =
    Cat<Cat<Arr<L, N>, Arr<L, N>>, Arr<L, U>>;

/// The implicit function theorem on a coupled step system: with its matrix factored in
/// `(jm, perm)`, solves `F_x dx = −F_θ` for the `2N + U` columns `θ = (q0, v0, u)` at once (in
/// the buffer `rhs`, a [`Columns`] of the system's layout, which must be zero) and maps each
/// solution to `(dq1, dv1)`.
#[inline(always)]
pub(crate) fn solve_sensitivities<const N: usize, const U: usize, const S: usize>(
    jm: &[f64],
    perm: &[usize],
    rhs: &mut [f64],
    s: &Sensitivity<'_, N, U, S>,
) -> StepJacobian<N, U> {
    let r = 2 * N + U;
    let len = rhs.len() / r;
    let mut out: StepJacobian<N, U> = StepJacobian {
        dq_dq: SMatrix::identity(),
        dq_dv: SMatrix::zeros(),
        dv_dq: SMatrix::zeros(),
        dv_dv: SMatrix::zeros(),
        dq_du: SMatrix::zeros(),
        dv_du: SMatrix::zeros(),
    };
    // −F_θ, row by row: entry (row, c) at `row * r + c` (into the zero buffer).
    for m in s.momentum[0].iter().chain(s.momentum[1].iter()) {
        for a in 0..N {
            let at = m.row + a;
            let x = &mut rhs[at * r..(at + 1) * r];
            for c in 0..N {
                x[c] = -m.dq[(a, c)];
                x[N + c] = s.lvv0[(a, c)];
            }
            for c in 0..U {
                x[2 * N + c] = -m.du[(a, c)];
            }
        }
    }
    for c in 0..N {
        (s.constraints)(c, &mut |row: usize, value: f64| {
            rhs[row * r + c] = -value;
        });
    }
    // The reordered system `(P F_x Pᵀ)(P dx) = P b`: P is the swaps in order, Pᵀ in reverse.
    if let Some(order) = s.order {
        lu::permute_rows(rhs, r, order, true);
    }
    match s.spans {
        Some(spans) => lu::solve_banded(jm, perm, spans, rhs, (len, r, s.leading)),
        None => lu::solve_many_lower(jm, perm, rhs, len, r, s.leading),
    }
    if let Some(order) = s.order {
        lu::permute_rows(rhs, r, order, false);
    }
    for c in 0..r {
        // q1 = q0 + h Σ b_j V_j, v1.
        let mut dq1 = SVector::<f64, N>::zeros();
        for j in 0..S {
            for a in 0..N {
                dq1[a] += s.h * s.b[j] * rhs[(s.v[j] + a) * r + c];
            }
        }
        let dv1 = SVector::<f64, N>::from_fn(|a, _| rhs[(s.v1 + a) * r + c]);
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
    out
}
