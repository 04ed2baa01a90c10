//! The structured simplified Newton iteration of the coupled holonomic + nonholonomic steps
//! (`mixed`'s SPARK step and `emprk`): from the predicted stages, corrections with the
//! factored `coupled_matrix`, the convergence test of `dense_newton::solve`, one polishing
//! iteration where the constraints are not yet at round-off, and the end state's constraints
//! checked as the next step's start checks them.

use nalgebra::SVector;

use crate::error::{Error, Phase};
use crate::linalg::newton::{attainable, rounding_floor, slow, tolerance_unit};
use crate::linalg::newton::{Monitor, Verdict, ILL_CONDITIONED};
use crate::linalg::vector::max_abs;
use crate::model::Lagrangian;
use crate::step::assembly::stage_position;
use crate::step::coupled_matrix::{Blocks, CoupledBlocks, CoupledMatrix};
use crate::step::coupled_motion::CoupledStart;
use crate::step::coupled_scheme::{Scheme, Velocities};
use crate::step::problem::Problem;
use crate::step::stage_matrix::SaddleOps;
use crate::step::start::StepStart;
use crate::tableau::SparkTableau;

/// The relative constraint violation at which a converged iterate of the structured iteration
/// ends without a polishing iteration: round-off, 64 ε.
const POLISHED: f64 = 64.0 * f64::EPSILON;

impl<'a, Sys: Lagrangian<N, M, K>, const N: usize, const M: usize, const K: usize>
    Problem<'a, Sys, N, M, K>
{
    /// The structured simplified Newton solve of a coupled step with the coefficients
    /// `scheme` and the residual `residual(it, r)`: the matrix factored at the step start
    /// (`L` at `(t0, q0, v0)`, `G` at `q0 + v0 h/2`, `K_v` at the start), then
    /// [`Problem::iterate_coupled`]. `None` when it does not apply (options, tableau) or its
    /// matrix is singular or ill-conditioned: the caller's dense solve takes over.
    #[allow(clippy::type_complexity)]
    pub(crate) fn structured_coupled<
        const S: usize,
        const E: usize,
        F: SaddleOps<N, M> + CoupledBlocks<'a, Sys, N, M, K>,
    >(
        &self,
        tab: &SparkTableau<S>,
        scheme: Scheme<S, E>,
        start: &StepStart<N, M>,
        rates: &CoupledStart<N, M, K>,
        residual: impl Fn(&Blocks<N, M, K, S, E>, &mut Blocks<N, M, K, S, E>),
    ) -> Option<Result<(Blocks<N, M, K, S, E>, u32), Error>> {
        let (sys, h, options, state) = (self.sys, self.h, self.options, self.state);
        if !options.simplified_newton || !scheme.applies(tab) {
            return None;
        }
        let (t0, q0, v0) = (state.t, state.q, state.v);
        let (tm, qm) = (t0 + 0.5 * h, q0 + v0 * (0.5 * h));
        let blocks = F::factor(sys, (t0, &q0, &v0), (tm, &qm))?;
        // Used in place: moved out of the `Option`, the matrix was copied (3.4 kB for the
        // 10-mass chain) and both copies stayed on the stack.
        let mut factored = CoupledMatrix::<N, M, K, S, E, F>::new(tab, scheme, blocks, &rates.kv);
        let matrix = factored.as_mut()?;
        // The bound of the holonomic step's end point: a Schur complement whose rounding alone
        // moves the solution by far more than the tolerance is left to the dense solve (and
        // its bound on the attainable accuracy).
        let condition = matrix.condition().max(matrix.blocks().schur_condition());
        if attainable(condition) > ILL_CONDITIONED * options.tolerance {
            return None;
        }
        Some(self.iterate_coupled(tab, start, rates, matrix, residual))
    }

    /// Simplified Newton on the step's equations, whose residual `residual(it, r)` writes
    /// block by block, with the factored structured `matrix`, from the predicted stages
    /// ([`Problem::predict`]), to `SIMPLIFIED_MARGIN` times the tolerance (the convergence
    /// test of `dense_newton::solve`). The converged iterate and the iteration count.
    pub(crate) fn iterate_coupled<const S: usize, const E: usize, F: SaddleOps<N, M>>(
        &self,
        tab: &SparkTableau<S>,
        start: &StepStart<N, M>,
        rates: &CoupledStart<N, M, K>,
        matrix: &mut CoupledMatrix<N, M, K, S, E, F>,
        residual: impl Fn(&Blocks<N, M, K, S, E>, &mut Blocks<N, M, K, S, E>),
    ) -> Result<(Blocks<N, M, K, S, E>, u32), Error> {
        let (h, options, state) = (self.h, self.options, self.state);
        let (q0, v0) = (state.q, state.v);
        let mut it = Blocks::<N, M, K, S, E>::zeros();
        it.x = Velocities::splat(v0);
        self.predict(tab, start, rates, matrix, &mut it);
        let vscale0 = max_abs(&v0);
        // The rounding level of the velocity updates, as the holonomic step has it (its
        // `position_noise`): 64 ε (|V| + (1 + |q0|)/h), the `1 +` for models whose lengths
        // are not those of `q0` (a linkage at rest at q0 = 0).
        let position_scale = (1.0 + max_abs(&q0)) / h.abs();
        let mut monitor = Monitor::new(Phase::Stages, options.max_iterations);
        let mut r = Blocks::<N, M, K, S, E>::zeros();
        // The approximate matrix converges linearly: an iterate whose updates pass the test
        // can still end the step with its constraints well above round-off (the ball on the
        // rotating table: |k| = 1.06e-12, the skate with symplectic Euler 3.7e-11). Such an
        // iterate gets one more iteration, which brings them to round-off; an iterate whose
        // constraints are at round-off (`POLISHED`) ends there (a polishing iteration at
        // every step cost 15 % of the nonholonomic chain's step). After it, the constraints
        // must meet the consistency tolerance, as the next step's start checks them.
        let consistent = options.consistency_tolerance;
        let polished = POLISHED.min(consistent);
        let mut polish = false;
        loop {
            residual(&it, &mut r);
            r.negate();
            matrix.solve(tab, &mut r);
            let mut delta = 0.0f64;
            let mut vscale = vscale0;
            for (x, dx) in it.x.iter_mut().zip(r.x.iter()) {
                *x += dx;
                delta = delta.max(max_abs(dx));
                vscale = vscale.max(max_abs(x));
            }
            for p in 0..=S {
                it.mu[p] += r.mu[p];
            }
            for j in 0..S {
                it.nu[j] += r.nu[j];
            }
            if vscale == 0.0 || polish {
                // The polishing iteration counts as one in the step's statistics.
                let iterations = monitor.iterations() + u32::from(polish);
                return if self.meets_constraints(tab, &it, matrix, consistent) {
                    Ok((it, iterations))
                } else {
                    Err(slow(Phase::Stages, iterations, monitor.last()))
                };
            }
            let unit = tolerance_unit(options.tolerance, true, vscale);
            let noise = rounding_floor(vscale, position_scale);
            if monitor.judge(delta / unit, noise / unit)? == Verdict::Converged {
                if self.meets_constraints(tab, &it, matrix, polished) {
                    return Ok((it, monitor.iterations()));
                }
                polish = true;
                continue;
            }
            if monitor.is_slow() {
                return Err(slow(Phase::Stages, monitor.iterations(), monitor.last()));
            }
        }
    }

    /// Whether the end state of the converged iterate `it` (`q1 = q0 + h Σ b_j V_j`, `v1`)
    /// meets the constraints to the relative tolerance `tol`, measured as the next step's
    /// start measures them (`check_consistent`, with `Options::consistency_tolerance`).
    /// Simplified Newton judges the velocity updates only, and near a configuration where
    /// the constraints lose rank an ill-conditioned matrix can make them small while the
    /// constraints are not met: such a step goes to the dense solve and its bound on the
    /// attainable accuracy.
    fn meets_constraints<const S: usize, const E: usize, F: SaddleOps<N, M>>(
        &self,
        tab: &SparkTableau<S>,
        it: &Blocks<N, M, K, S, E>,
        matrix: &CoupledMatrix<N, M, K, S, E, F>,
        tol: f64,
    ) -> bool {
        let (sys, h, state) = (self.sys, self.h, self.state);
        let (t1, v1) = (state.t + h, it.x.v1());
        let q1 = stage_position(&state.q, h, &tab.b, &it.x.stages);
        let (g, w) = (
            sys.constraints(t1, &q1),
            sys.hidden_constraint(t1, &q1, v1).0,
        );
        let norms = sys.constraint_row_norms(t1, &q1);
        let (mut pos, mut vel) = (0.0f64, 0.0f64);
        for l in 0..M {
            let scale = if norms[l] > 0.0 { norms[l] } else { 1.0 };
            pos = pos.max(g[l].abs() / scale);
            vel = vel.max(w[l].abs() / scale);
        }
        let k: SVector<f64, K> = sys.nonholonomic_constraints(t1, &q1, v1);
        for l in 0..K {
            let norm = matrix.kv_row_norm(l);
            vel = vel.max(k[l].abs() / if norm > 0.0 { norm } else { 1.0 });
        }
        pos <= tol * (1.0 + max_abs(&q1)) && vel <= tol * (1.0 + max_abs(v1))
    }
}
