//! Globalization of the SQP over multiple shooting: a backtracking line search on the exact
//! ℓ1 merit function, and [`SqpRti::solve`], the SQP iterated to convergence.
//!
//! Along the QP's step `p = (z_1 … z_H, v_0 … v_{H−1})` the trial plan at length `α` has the
//! nodes `project(x_k + α T_k z_k)` and the inputs `u_k + α v_k` (inside their bounds, which
//! are convex). Its merit is
//!
//! ```text
//! φ_μ(α) = f(α) + μ Σ_k ‖c_k(α)‖₁,
//! ```
//!
//! `f` the cost with the state bounds' penalties and `c_k` the defect of interval `k` in the
//! coordinates of node `k + 1`'s basis. The QP's step satisfies the linearized defects, so the
//! merit's directional derivative at `α = 0` is `Dφ = ∇fᵀp − μ ‖c‖₁`. The weight `μ` is raised
//! (never lowered) to `(∇fᵀp + ½ pᵀ∇²f p) / ((1 − ρ) ‖c‖₁)` with `ρ = ½` (Nocedal and Wright,
//! *Numerical Optimization*, 2nd ed., (18.36)), which makes `Dφ ≤ −ρ μ ‖c‖₁ − ½ pᵀ∇²f p ≤ 0`
//! with the Gauss–Newton Hessian `∇²f`. A trial is accepted under Armijo's condition
//! `φ_μ(α) ≤ φ_ref + η α Dφ`, `φ_ref` the largest of `φ_μ(0)` and the merits (at the current
//! `μ`) of the last accepted plans (`settings::MEMORY` in all); otherwise `α` shrinks. A trial
//! whose rollout or projection fails is rejected like one that increases the merit.

// Stage indices follow the papers' subscripts.
#![allow(clippy::needless_range_loop)]

use nalgebra::SVector;

use super::settings::{LineSearch, SqpSettings};
use super::{SqpRti, SqpSolution, SqpStats};
use crate::control::cost::Cost;
use crate::control::error::ControlError;
use crate::control::ilqr::Bounds;
use crate::control::vector::difference;
use crate::integrator::Integrator;
use crate::method::Method;
use crate::model::{Dimensions, Model, State};

/// `ρ` of the merit weight's update: the share of `μ ‖c‖₁` the directional derivative keeps.
const RHO: f64 = 0.5;

/// The merit weight's margin over the QP's largest costate `‖λ‖∞`, above which the ℓ1 merit
/// function is exact (its minimizers are the problem's).
const MARGIN: f64 = 1.5;

impl<const N: usize, const U: usize, const D: usize, const H: usize, const S: usize>
    SqpRti<N, U, D, H, S>
{
    /// One SQP iteration with its start held, as [`SqpRti::iterate`], but globalized: the
    /// QP's step is taken at the length a backtracking line search on the ℓ1 merit function
    /// accepts (see the module documentation), and applied before this call returns
    /// ([`SqpStats::alpha`], [`SqpStats::trials`]). From a first guess far from the solution
    /// (an infeasible multiple-shooting guess, or inputs whose rollout swings far) it keeps
    /// the iteration from diverging where full steps do.
    ///
    /// When no trial decreases the merit, the plan is left as it was and
    /// [`SqpStats::fallback`] is `NoConvergence` for the line search. Errors with nothing
    /// changed as [`SqpRti::prepare`]'s, and for a `search` that fails [`LineSearch::check`].
    ///
    /// ```
    /// use spark::control::cost::Quadratic;
    /// use spark::control::ilqr::Bounds;
    /// use spark::control::sqp::{LineSearch, SqpRti};
    /// use spark::nalgebra::{SMatrix, SVector};
    /// use spark::{GaussLobatto, Integrator, State};
    ///
    /// spark::mechanics! {
    ///     /// A pendulum on a rod, pushed sideways.
    ///     pub struct Pendulum {
    ///         coordinates: [x, y],
    ///         velocities: [vx, vy],
    ///         inputs: [u],
    ///         lagrangian: 0.5 * (vx.powi(2) + vy.powi(2)) - 9.81 * y,
    ///         forces: [u, 0.0],
    ///         holonomic: [x.powi(2) + y.powi(2) - 1.0],
    ///     }
    /// }
    ///
    /// let mut model = Integrator::<Pendulum, GaussLobatto<2>>::new(Pendulum::default(), 0.02).unwrap();
    /// let cost = Quadratic::<4, 1> {
    ///     q: SMatrix::from_diagonal(&SVector::from([10.0, 10.0, 0.1, 0.1])),
    ///     r: SMatrix::identity() * 1e-3,
    ///     qf: SMatrix::from_diagonal(&SVector::from([100.0, 100.0, 1.0, 1.0])),
    ///     x_ref: SVector::from([0.3, -(1.0f64 - 0.09).sqrt(), 0.0, 0.0]),
    ///     u_ref: SVector::zeros(),
    /// };
    /// let s = State::new(0.0, [0.0, -1.0], [0.0, 0.0]);
    /// let mut mpc = SqpRti::held(&model, &s, [SVector::zeros(); 30]);
    /// let first = mpc
    ///     .iterate_with_line_search(&mut model, &cost, &Bounds::symmetric(5.0), &LineSearch::default())
    ///     .unwrap();
    /// assert_eq!(first.fallback, None);
    /// assert!(first.alpha > 0.0 && first.trials >= 1);
    /// ```
    pub fn iterate_with_line_search<Sys, Meth, C, const M: usize, const K: usize, const X: usize>(
        &mut self,
        sim: &mut Integrator<Sys, Meth>,
        cost: &C,
        bounds: &Bounds<U>,
        search: &LineSearch,
    ) -> Result<SqpStats, ControlError>
    where
        Sys: Model + Dimensions<N, M, K, U, D, X>,
        Meth: Method,
        C: Cost<N, U, X>,
    {
        search.check()?;
        let mut stats = self.iterate(sim, cost, bounds)?;
        if stats.fallback.is_some() || !self.pending {
            return Ok(stats);
        }
        let (slope, curvature, infeasibility) = self.step_model();
        let mut needed = MARGIN * self.largest_costate();
        if infeasibility > 0.0 {
            needed = needed.max((slope + 0.5 * curvature.max(0.0)) / ((1.0 - RHO) * infeasibility));
        }
        if needed.is_finite() {
            self.merit_weight = self.merit_weight.max(needed);
        }
        let mu = self.merit_weight;
        // The current plan enters the history; the reference is the largest merit in it.
        self.merit_history.rotate_right(1);
        self.merit_history[0] = Some((stats.cost, infeasibility));
        let reference = |history: &[Option<(f64, f64)>]| {
            history
                .iter()
                .flatten()
                .filter(|(f, c)| f.is_finite() && c.is_finite())
                .map(|(f, c)| f + mu * c)
                .fold(f64::NEG_INFINITY, f64::max)
        };
        let mut base = reference(&self.merit_history);
        // Round-off of the merit's evaluation (`H` stage costs and defects).
        let noise = 1e-12 * (1.0 + base.abs());
        let decrease = slope - mu * infeasibility;
        let saved = sim.system().inputs();
        let (mut nodes, mut controls) = (self.nodes, self.controls);
        let sufficient = |phi: f64, base: f64, alpha: f64| {
            phi <= base + search.armijo * alpha * decrease + noise
        };
        let (mut alpha, mut accepted, mut rebased) = (1.0, false, false);
        while stats.trials < search.trials {
            stats.trials += 1;
            let merit = self
                .trial::<Sys, Meth, C, M, K, X>(sim, cost, alpha, &mut nodes, &mut controls)
                .map(|(f, c)| f + mu * c);
            if let Some(phi) = merit {
                if sufficient(phi, base, alpha) {
                    accepted = true;
                    break;
                }
                if !rebased {
                    // The linearization's steps and the trials' may end apart by their Newton
                    // tolerance: judge the trials against the merit at α = 0 by the trials'
                    // own rollout, once.
                    rebased = true;
                    let mut n0 = self.nodes;
                    let mut c0 = self.controls;
                    if let Some((f, c)) =
                        self.trial::<Sys, Meth, C, M, K, X>(sim, cost, 0.0, &mut n0, &mut c0)
                    {
                        self.merit_history[0] = Some((f, c));
                        base = reference(&self.merit_history);
                        if sufficient(phi, base, alpha) {
                            accepted = true;
                            break;
                        }
                    }
                }
            }
            alpha *= search.shrink;
        }
        sim.system_mut().set_inputs(&saved);
        self.pending = false;
        if accepted {
            self.nodes = nodes;
            self.controls = controls;
            stats.alpha = alpha;
        } else {
            stats.alpha = 0.0;
            stats.fallback = Some(ControlError::NoConvergence {
                what: "the SQP's merit line search",
                iterations: stats.trials,
            });
        }
        Ok(stats)
    }

    /// The SQP iterated from the current plan ([`SqpRti::new`], [`SqpRti::from_nodes`],
    /// [`SqpRti::held`], or a plan being tracked) with its start held, until the QP's step and
    /// the defects are below `settings`' tolerances, an iteration fails, or
    /// [`SqpSettings::max_iterations`]. With the default settings every iteration is
    /// [`SqpRti::iterate_with_line_search`]; with `line_search: None` it is
    /// [`SqpRti::iterate`] (full steps; the last one is applied by the next call). The
    /// statistics come back on every path ([`SqpSolution`]); the control loop's
    /// [`SqpRti::prepare`] and [`SqpRti::feedback`] go on from the plan.
    ///
    /// Errors with nothing changed: `settings` that fail [`SqpSettings::check`], and
    /// [`SqpRti::prepare`]'s.
    ///
    /// ```
    /// use spark::control::cost::Quadratic;
    /// use spark::control::ilqr::Bounds;
    /// use spark::control::sqp::{SqpRti, SqpSettings};
    /// use spark::nalgebra::{SMatrix, SVector};
    /// use spark::{GaussLobatto, Integrator, State};
    ///
    /// spark::mechanics! {
    ///     /// A pendulum on a rod, pushed sideways.
    ///     pub struct Pendulum {
    ///         coordinates: [x, y],
    ///         velocities: [vx, vy],
    ///         inputs: [u],
    ///         lagrangian: 0.5 * (vx.powi(2) + vy.powi(2)) - 9.81 * y,
    ///         forces: [u, 0.0],
    ///         holonomic: [x.powi(2) + y.powi(2) - 1.0],
    ///     }
    /// }
    ///
    /// let mut model = Integrator::<Pendulum, GaussLobatto<2>>::new(Pendulum::default(), 0.02).unwrap();
    /// // Swing the bob up to the top: far from the start, slightly off the hanging rest
    /// // (the rest itself is a stationary point of the swing-up by symmetry).
    /// let cost = Quadratic::<4, 1> {
    ///     q: SMatrix::identity() * 0.01,
    ///     r: SMatrix::identity() * 1e-3,
    ///     qf: SMatrix::from_diagonal(&SVector::from([100.0, 100.0, 1.0, 1.0])),
    ///     x_ref: SVector::from([0.0, 1.0, 0.0, 0.0]),
    ///     u_ref: SVector::zeros(),
    /// };
    /// let s = State::new(0.0, [0.2_f64.sin(), -0.2_f64.cos()], [0.0, 0.0]);
    /// let mut mpc = Box::new(SqpRti::held(&model, &s, [SVector::zeros(); 100]));
    /// let out = mpc
    ///     .solve(&mut model, &cost, &Bounds::symmetric(8.0), &SqpSettings::default())
    ///     .unwrap();
    /// assert!(out.converged, "{out:?}");
    /// assert!(mpc.state(100).q[1] > 0.9, "{:?}", mpc.state(100).q);
    /// ```
    pub fn solve<Sys, Meth, C, const M: usize, const K: usize, const X: usize>(
        &mut self,
        sim: &mut Integrator<Sys, Meth>,
        cost: &C,
        bounds: &Bounds<U>,
        settings: &SqpSettings,
    ) -> Result<SqpSolution, ControlError>
    where
        Sys: Model + Dimensions<N, M, K, U, D, X>,
        Meth: Method,
        C: Cost<N, U, X>,
    {
        settings.check()?;
        let mut out = SqpSolution::default();
        for _ in 0..settings.max_iterations {
            let stats = match &settings.line_search {
                Some(search) => self.iterate_with_line_search(sim, cost, bounds, search)?,
                None => self.iterate(sim, cost, bounds)?,
            };
            out.iterations += 1;
            out.steps += stats.steps;
            out.trials += stats.trials;
            out.last = stats;
            if stats.fallback.is_some() {
                break;
            }
            if stats.step <= settings.step_tolerance && stats.defect <= settings.defect_tolerance {
                out.converged = true;
                break;
            }
        }
        Ok(out)
    }

    /// The QP's step `p` against the stage problem it solved: `(∇fᵀp, pᵀ∇²f p, ‖c‖₁)`, the
    /// state bounds' penalties included as the QP models them about `p = 0`.
    fn step_model(&self) -> (f64, f64, f64) {
        let qp = &self.qp;
        let (mut slope, mut curvature, mut infeasibility) = (0.0, 0.0, 0.0);
        for k in 0..H {
            let stage = &qp.stages[k];
            let (z, v) = (qp.state(k), &qp.v[k]);
            slope += stage.gz.dot(z) + stage.gv.dot(v);
            curvature +=
                z.dot(&(stage.q * z)) + 2.0 * v.dot(&(stage.s * z)) + v.dot(&(stage.r * v));
            infeasibility += stage.c.iter().map(|c| c.abs()).sum::<f64>();
            if S > 0 {
                // The penalties as the QP models them: the rows' statuses at `p = 0`.
                let (h, g) = qp.soft[k].penalty_at(&SVector::zeros());
                let z1 = qp.state(k + 1);
                slope += g.dot(z1);
                curvature += z1.dot(&(h * z1));
            }
        }
        let end = qp.state(H);
        slope += qp.terminal_g.dot(end);
        curvature += end.dot(&(qp.terminal_q * end));
        (slope, curvature, infeasibility)
    }

    /// `max_k ‖λ_k‖∞` over the costates of the QP's defect rows at its solution, from the
    /// stationarity of its Lagrangian in `z_k`: `λ_H = Q_H z_H + g_H`, and backwards
    /// `λ_k = Q_k z_k + S_kᵀ v_k + g_zk + A_kᵀ λ_{k+1}`, with the soft rows' gradients.
    fn largest_costate(&self) -> f64 {
        let qp = &self.qp;
        // The soft rows' gradient at node k (1 ≤ k ≤ H).
        let soft = |k: usize| {
            let z = qp.state(k);
            let (h, g) = qp.soft[k - 1].penalty_at(z);
            h * z + g
        };
        let end = qp.state(H);
        let mut lambda = qp.terminal_q * end + qp.terminal_g + soft(H);
        let mut largest = lambda.amax();
        for k in (1..H).rev() {
            let stage = &qp.stages[k];
            let z = qp.state(k);
            lambda = stage.q * z
                + stage.s.tr_mul(&qp.v[k])
                + stage.gz
                + stage.a.tr_mul(&lambda)
                + soft(k);
            largest = largest.max(lambda.amax());
        }
        largest
    }

    /// The trial plan at length `alpha` of the QP's step into `nodes` and `controls`, and its
    /// `(f, ‖c‖₁)` (the defects in the coordinates of the last preparation's bases); `None`
    /// when a projection, a step or the cost fails. Sets the inputs of `sim`.
    fn trial<Sys, Meth, C, const M: usize, const K: usize, const X: usize>(
        &self,
        sim: &mut Integrator<Sys, Meth>,
        cost: &C,
        alpha: f64,
        nodes: &mut [State<N>; H],
        controls: &mut [SVector<f64, U>; H],
    ) -> Option<(f64, f64)>
    where
        Sys: Model + Dimensions<N, M, K, U, D, X>,
        Meth: Method,
        C: Cost<N, U, X>,
    {
        for k in 1..=H {
            nodes[k - 1] = self.stepped_node::<Sys, Meth, M, K, X>(sim, k, alpha)?;
        }
        for k in 0..H {
            controls[k] = self.stepped_control(k, alpha);
        }
        let (mut f, mut c) = (0.0, 0.0);
        for k in 0..H {
            let x = if k == 0 { self.start } else { nodes[k - 1] };
            sim.system_mut().set_inputs(&controls[k]);
            let mut end = x;
            sim.step(&mut end).ok()?;
            let defect = self
                .basis(k + 1)
                .coordinates::<X>(&difference::<N, X>(&end, &nodes[k]));
            c += defect.iter().map(|d| d.abs()).sum::<f64>();
            f += cost.stage(k, &x, &controls[k]).value + self.penalty::<X>(&nodes[k]);
        }
        f += cost.terminal(&nodes[H - 1]).value;
        (f.is_finite() && c.is_finite()).then_some((f, c))
    }
}
