//! iLQR / box-DDP on the constraint manifold over a horizon of `H` intervals.
//!
//! The dynamics are the integrator's step (one step per interval: choose the step size as the
//! control period), linearized exactly on tangent bases carried along the trajectory
//! ([`Integrator::linearize`]); deviations are tangent coordinates `z_k = T_kᵀ (x − x̄_k)`, so
//! the problem has the minimal dimension `D` and no index reduction. Each iteration is a
//! backward pass (Gauss–Newton: quadratic costs, linearized dynamics; the box QP of each stage
//! solved by projected Newton, [`solve_box_qp`]; `Q_uu + μ I` regularized until positive
//! definite) and a forward pass with the feedback policy and a backtracking line search on the
//! feedforward step. Near the solution the convergence is linear with a small ratio (no second
//! derivatives of the step).
//!
//! Everything lives in the [`Ilqr`] value the caller owns (two trajectories and a policy: about
//! `2H (N (2 + 4D) + D² + D U) + H U D` numbers); no call allocates.

// Stage indices follow the papers' subscripts.
#![allow(clippy::needless_range_loop)]

use nalgebra::{SMatrix, SVector};

use crate::control::boxqp::{check_box, solve_box_qp};
use crate::control::cost::Cost;
use crate::control::error::{require, ControlError};
use crate::control::vector::difference;
use crate::integrator::Integrator;
use crate::method::Method;
use crate::model::{Dimensions, Model, State};
use crate::step::tangent::TangentBasis;

/// Input bounds `lo ≤ u ≤ hi` (componentwise; ±∞ for none).
///
/// Usable bounds ([`Bounds::check`]) have no NaN, `lo_i ≤ hi_i` (equal: the input is fixed),
/// and a finite point in every interval (`lo_i < +∞`, `hi_i > −∞`). The fields are public, so
/// every solver entry point checks them first and refuses unusable bounds with
/// [`ControlError::InvalidArgument`], changing nothing; [`Bounds::new`] checks at
/// construction.
///
/// ```
/// use spark_runtime::control::ilqr::Bounds;
/// use spark_runtime::nalgebra::SVector;
/// let b = Bounds::new(SVector::from([-1.0, f64::NEG_INFINITY]), SVector::from([1.0, 2.0])).unwrap();
/// assert_eq!(b.clamp(&SVector::from([3.0, -7.0])), SVector::from([1.0, -7.0]));
/// assert!(Bounds::new(SVector::from([1.0]), SVector::from([-1.0])).is_err()); // reversed
/// assert!(Bounds::<1>::symmetric(f64::NAN).check().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bounds<const U: usize> {
    /// Lower bounds.
    pub lo: SVector<f64, U>,
    /// Upper bounds.
    pub hi: SVector<f64, U>,
}

impl<const U: usize> Bounds<U> {
    /// The bounds `lo ≤ u ≤ hi`, checked ([`Bounds::check`]).
    pub fn new(lo: SVector<f64, U>, hi: SVector<f64, U>) -> Result<Self, ControlError> {
        let b = Self { lo, hi };
        b.check()?;
        Ok(b)
    }

    /// `|u_i| ≤ limit` for every input (unchecked: a negative or NaN `limit` is refused where
    /// the bounds are used, or by [`Bounds::check`]).
    pub fn symmetric(limit: f64) -> Self {
        Self {
            lo: SVector::repeat(-limit),
            hi: SVector::repeat(limit),
        }
    }

    /// `Ok` for usable bounds (see [`Bounds`]); otherwise
    /// [`ControlError::InvalidArgument`] saying which rule an input's bounds break.
    pub fn check(&self) -> Result<(), ControlError> {
        check_box(&self.lo, &self.hi)
    }

    /// `u` clamped into the box. Never panics: an input whose bounds are unusable (NaN or
    /// `lo > hi`) comes out NaN, which the solvers refuse.
    pub fn clamp(&self, u: &SVector<f64, U>) -> SVector<f64, U> {
        SVector::from_fn(|i, _| {
            let (lo, hi) = (self.lo[i], self.hi[i]);
            if lo <= hi {
                u[i].clamp(lo, hi)
            } else {
                f64::NAN
            }
        })
    }
}

/// Solver settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Settings {
    /// Iterations of [`Ilqr::solve`].
    pub max_iterations: usize,
    /// [`Ilqr::solve`] stops when an accepted iteration lowers the cost by less than this
    /// times `1 + cost`.
    pub tolerance: f64,
    /// The smallest line-search step tried (halving from 1).
    pub min_step: f64,
    /// The largest regularization `μ` of `Q_uu + μ I` before the backward pass gives up.
    pub max_regularization: f64,
}

impl Settings {
    /// `Ok` for usable settings: `tolerance` non-negative (not NaN), `min_step` in `(0, 1]`,
    /// `max_regularization` non-negative (not NaN); otherwise
    /// [`ControlError::InvalidArgument`] naming the field.
    ///
    /// ```
    /// use spark_runtime::control::ilqr::Settings;
    /// assert!(Settings::default().check().is_ok());
    /// // A zero smallest step would halve the line search's step forever.
    /// assert!(Settings { min_step: 0.0, ..Settings::default() }.check().is_err());
    /// ```
    pub fn check(&self) -> Result<(), ControlError> {
        require(
            self.tolerance >= 0.0,
            "Settings::tolerance must be a non-negative number (the default is 1e-12)",
        )?;
        require(
            self.min_step > 0.0 && self.min_step <= 1.0,
            "Settings::min_step must be in (0, 1] (the default is 1/1024)",
        )?;
        require(
            self.max_regularization >= 0.0,
            "Settings::max_regularization must be a non-negative number (the default is 1e10)",
        )
    }
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            max_iterations: 100,
            tolerance: 1e-12,
            min_step: 1.0 / 1024.0,
            max_regularization: 1e10,
        }
    }
}

/// A trajectory over the horizon: the start `x_0`, the states `x_1 … x_H`, the tangent bases
/// at all of them (aligned along the trajectory), the inputs `u_0 … u_{H−1}` and the reduced
/// linearizations `(A_k, B_k)` of each interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Trajectory<const N: usize, const U: usize, const D: usize, const H: usize> {
    /// `x_0`.
    pub start: State<N>,
    /// The basis at `x_0`.
    pub start_basis: TangentBasis<N, D>,
    /// `x_1 … x_H` (`states[k]` is `x_{k+1}`).
    pub states: [State<N>; H],
    /// The bases at `x_1 … x_H`.
    pub bases: [TangentBasis<N, D>; H],
    /// `u_0 … u_{H−1}`.
    pub controls: [SVector<f64, U>; H],
    /// `A_k = T_{k+1}ᵀ Φ_k T_k`.
    pub a: [SMatrix<f64, D, D>; H],
    /// `B_k = T_{k+1}ᵀ Γ_k`.
    pub b: [SMatrix<f64, D, U>; H],
    /// The total cost.
    pub cost: f64,
}

impl<const N: usize, const U: usize, const D: usize, const H: usize> Trajectory<N, U, D, H> {
    fn zeroed(start: State<N>) -> Self {
        let basis = TangentBasis {
            q: SMatrix::zeros(),
            v: SMatrix::zeros(),
        };
        Self {
            start,
            start_basis: basis,
            states: [start; H],
            bases: [basis; H],
            controls: [SVector::zeros(); H],
            a: [SMatrix::zeros(); H],
            b: [SMatrix::zeros(); H],
            cost: f64::INFINITY,
        }
    }

    /// `x_k` for `0 ≤ k ≤ H`.
    pub fn state(&self, k: usize) -> &State<N> {
        if k == 0 {
            &self.start
        } else {
            &self.states[k - 1]
        }
    }

    /// The basis at `x_k` for `0 ≤ k ≤ H`.
    pub fn basis(&self, k: usize) -> &TangentBasis<N, D> {
        if k == 0 {
            &self.start_basis
        } else {
            &self.bases[k - 1]
        }
    }
}

/// The feedback policy of the last backward pass: `u_k = ū_k + α k_k + K_k T_kᵀ (x − x̄_k)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Policy<const U: usize, const D: usize, const H: usize> {
    /// The feedforward steps `k_k`.
    pub feedforward: [SVector<f64, U>; H],
    /// The gains `K_k` (`U × D`, on the tangent coordinates of the nominal trajectory).
    pub gains: [SMatrix<f64, U, D>; H],
}

/// What one iteration did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct IterationStats {
    /// Whether a line-search step lowered the cost (otherwise the trajectory is unchanged and
    /// the regularization was raised).
    pub accepted: bool,
    /// The cost after the iteration.
    pub cost: f64,
    /// The cost before.
    pub previous_cost: f64,
    /// The decrease the quadratic model predicted for the full step.
    pub expected_decrease: f64,
    /// The accepted line-search step `α` (0 if none).
    pub step: f64,
    /// `max_k |α k_k|`: the largest feedforward change of an input.
    pub feedforward: f64,
    /// The regularization `μ` the backward pass used.
    pub regularization: f64,
    /// Integrator steps with Jacobian taken (forward passes).
    pub steps: usize,
    /// Backward passes (more than one when `Q_uu` needed more regularization).
    pub backward_passes: usize,
    /// Newton iterations of the stage box QPs, summed.
    pub qp_iterations: usize,
}

/// What the last [`Ilqr::solve`] did, written on every path: also when it returns an error
/// (the budget ran out, or an iteration failed), as acados' `get_stats` and Crocoddyl's solver
/// attributes report a solve whatever its outcome. In [`Ilqr::stats`].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SolveStats {
    /// Iterations made (a failed one included).
    pub iterations: usize,
    /// Of which accepted by the line search.
    pub accepted: usize,
    /// Integrator steps with Jacobian (forward passes), summed.
    pub steps: usize,
    /// Backward passes, summed.
    pub backward_passes: usize,
    /// Box-QP Newton iterations, summed.
    pub qp_iterations: usize,
    /// Whether the convergence test was met (`solve` returned `Ok`).
    pub converged: bool,
    /// The last iteration's statistics (of a failed iteration: as far as it got).
    pub last: IterationStats,
}

/// First-order optimality of the box-constrained problem at a trajectory: with `g_k = ∂J/∂u_k`
/// (the total cost's gradient, dynamics eliminated, by the adjoint recursion on the tangent
/// space), the projected gradient `u − clamp(u − g)` vanishes exactly at a KKT point: `g_i = 0`
/// where `lo_i < u_i < hi_i`, `g_i ≤ 0` at an upper bound, `g_i ≥ 0` at a lower bound.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Kkt {
    /// `max_k |u_k − clamp(u_k − g_k)|`.
    pub projected_gradient: f64,
    /// `max_k |g_k|` over the inputs strictly inside their bounds.
    pub free_gradient: f64,
    /// The largest multiplier sign error: `max(g_i)` at an upper bound, `max(−g_i)` at a lower
    /// one (≤ 0 at a KKT point).
    pub wrong_sign: f64,
    /// The largest bound violation (0: bounds met exactly).
    pub bound_violation: f64,
    /// How many inputs sit at a bound.
    pub active: usize,
}

/// The iLQR / box-DDP solver and its workspace (see the module documentation).
///
/// Every entry point ([`Ilqr::initialize`], [`Ilqr::iterate`], [`Ilqr::solve`],
/// [`Ilqr::restart`]) first checks its arguments (the bounds, [`Cost::check`], the settings,
/// the start state: finite and on the constraint manifold) and returns
/// [`ControlError::InvalidArgument`] or [`ControlError::Step`] with the solver and the
/// integrator unchanged.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ilqr<const N: usize, const U: usize, const D: usize, const H: usize> {
    /// The current trajectory.
    pub nominal: Trajectory<N, U, D, H>,
    /// The line search's trial trajectory.
    candidate: Trajectory<N, U, D, H>,
    /// The policy of the last backward pass.
    pub policy: Policy<U, D, H>,
    /// The current regularization `μ`.
    pub regularization: f64,
    /// What the last [`Ilqr::solve`] did ([`SolveStats`]; [`Ilqr::iterate`] writes its
    /// `last` field), on every path including errors.
    pub stats: SolveStats,
}

/// The expected decrease terms `(Σ kᵀQ_u, Σ ½ kᵀQ_uu k)` of a backward pass.
type Expected = (f64, f64);

impl<const N: usize, const U: usize, const D: usize, const H: usize> Ilqr<N, U, D, H> {
    /// A solver starting at `start` with the initial inputs `controls` (a warm start, or
    /// zeros). Call [`Ilqr::initialize`] before iterating.
    pub fn new(start: State<N>, controls: [SVector<f64, U>; H]) -> Self {
        const { assert!(H >= 1, "a horizon has at least one interval") };
        let mut nominal = Trajectory::zeroed(start);
        nominal.controls = controls;
        Self {
            nominal,
            candidate: Trajectory::zeroed(start),
            policy: Policy {
                feedforward: [SVector::zeros(); H],
                gains: [SMatrix::zeros(); H],
            },
            regularization: 0.0,
            stats: SolveStats::default(),
        }
    }

    /// [`Ilqr::new`] with the sizes taken from the model of `sim`: the tangent dimension `D`
    /// (`2N − 2M − K`) and the input count `U` are the model's, the horizon `H` the length of
    /// `controls`, so no size is written by hand.
    ///
    /// ```
    /// use spark::control::ilqr::Ilqr;
    /// use spark::nalgebra::SVector;
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
    /// let sim = Integrator::<Pendulum, GaussLobatto<2>>::new(Pendulum::default(), 0.02).unwrap();
    /// let start = State::new(0.0, [0.0, -1.0], [0.0, 0.0]);
    /// let solver = Ilqr::for_model(&sim, start, [SVector::zeros(); 25]);
    /// assert_eq!(solver.policy.gains[0].shape(), (1, 2)); // U × D: one input, D = 2·2 − 2
    /// ```
    pub fn for_model<Sys, Meth, const M: usize, const K: usize, const X: usize>(
        sim: &Integrator<Sys, Meth>,
        start: State<N>,
        controls: [SVector<f64, U>; H],
    ) -> Self
    where
        Sys: Model + Dimensions<N, M, K, U, D, X>,
        Meth: Method,
    {
        let () = <Sys as Dimensions<N, M, K, U, D, X>>::CONSISTENT;
        let _ = sim;
        Self::new(start, controls)
    }

    /// The checks every entry point makes before it changes anything.
    fn check_arguments<C, const X: usize>(cost: &C, bounds: &Bounds<U>) -> Result<(), ControlError>
    where
        C: Cost<N, U, X>,
    {
        bounds.check()?;
        cost.check()
    }

    /// Rolls the nominal inputs (clamped into `bounds`) out from the start, open loop: the
    /// trajectory, its bases and linearizations, its cost. The model's inputs are restored.
    ///
    /// Errors with nothing changed: unusable bounds ([`Bounds::check`]), a cost that fails
    /// [`Cost::check`], non-finite initial inputs, a start state that is not finite or off the
    /// constraint manifold ([`Integrator::tangent`]). Errors of the rollout itself (a step
    /// failed, a cost not finite) leave a partial trajectory.
    pub fn initialize<Sys, Meth, C, const M: usize, const K: usize, const X: usize>(
        &mut self,
        sim: &mut Integrator<Sys, Meth>,
        cost: &C,
        bounds: &Bounds<U>,
    ) -> Result<(), ControlError>
    where
        Sys: Model + Dimensions<N, M, K, U, D, X>,
        Meth: Method,
        C: Cost<N, U, X>,
    {
        Self::check_arguments(cost, bounds)?;
        if !self
            .nominal
            .controls
            .iter()
            .all(|u| u.iter().all(|v| v.is_finite()))
        {
            return Err(ControlError::InvalidArgument {
                what: "the initial inputs of the solver must be finite",
            });
        }
        let basis = sim.tangent(&self.nominal.start)?;
        self.initialize_from(sim, cost, bounds, basis)
    }

    /// [`Ilqr::initialize`] after its checks, with the basis at the start.
    pub(crate) fn initialize_from<Sys, Meth, C, const M: usize, const K: usize, const X: usize>(
        &mut self,
        sim: &mut Integrator<Sys, Meth>,
        cost: &C,
        bounds: &Bounds<U>,
        basis: TangentBasis<N, D>,
    ) -> Result<(), ControlError>
    where
        Sys: Model + Dimensions<N, M, K, U, D, X>,
        Meth: Method,
        C: Cost<N, U, X>,
    {
        let saved = sim.system().inputs();
        self.nominal.start_basis = basis;
        let controls = self.nominal.controls;
        let out = rollout(sim, cost, &mut self.nominal, |k, _| {
            bounds.clamp(&controls[k])
        });
        sim.system_mut().set_inputs(&saved);
        out.map(|_| ())
    }

    /// One iteration: backward pass, then the forward pass with line search. The model's inputs
    /// are restored. Its statistics are also left in `self.stats.last`, on every path.
    ///
    /// Errors with nothing changed: unusable bounds, cost or settings, a solver not
    /// initialized ([`Ilqr::initialize`] first). Then a backward pass that failed (`Q_uu` not
    /// positive definite at the largest regularization, a non-finite cost derivative): the
    /// nominal trajectory is unchanged, the policy partly overwritten.
    pub fn iterate<Sys, Meth, C, const M: usize, const K: usize, const X: usize>(
        &mut self,
        sim: &mut Integrator<Sys, Meth>,
        cost: &C,
        bounds: &Bounds<U>,
        settings: &Settings,
    ) -> Result<IterationStats, ControlError>
    where
        Sys: Model + Dimensions<N, M, K, U, D, X>,
        Meth: Method,
        C: Cost<N, U, X>,
    {
        Self::check_arguments(cost, bounds)?;
        settings.check()?;
        self.check_initialized()?;
        self.iterate_checked(sim, cost, bounds, settings)
    }

    /// [`ControlError::InvalidArgument`] unless the nominal trajectory was rolled out.
    fn check_initialized(&self) -> Result<(), ControlError> {
        if self.nominal.cost.is_finite() {
            Ok(())
        } else {
            Err(ControlError::InvalidArgument {
                what: "the solver has no trajectory yet: call Ilqr::initialize first",
            })
        }
    }

    /// [`Ilqr::iterate`] after its checks.
    pub(crate) fn iterate_checked<Sys, Meth, C, const M: usize, const K: usize, const X: usize>(
        &mut self,
        sim: &mut Integrator<Sys, Meth>,
        cost: &C,
        bounds: &Bounds<U>,
        settings: &Settings,
    ) -> Result<IterationStats, ControlError>
    where
        Sys: Model + Dimensions<N, M, K, U, D, X>,
        Meth: Method,
        C: Cost<N, U, X>,
    {
        let mut stats = IterationStats {
            previous_cost: self.nominal.cost,
            cost: self.nominal.cost,
            ..IterationStats::default()
        };
        let out = self.iterate_into(sim, cost, bounds, settings, &mut stats);
        self.stats.last = stats;
        out.map(|()| stats)
    }

    /// The iteration, its statistics written into `stats` as it goes.
    fn iterate_into<Sys, Meth, C, const M: usize, const K: usize, const X: usize>(
        &mut self,
        sim: &mut Integrator<Sys, Meth>,
        cost: &C,
        bounds: &Bounds<U>,
        settings: &Settings,
        stats: &mut IterationStats,
    ) -> Result<(), ControlError>
    where
        Sys: Model + Dimensions<N, M, K, U, D, X>,
        Meth: Method,
        C: Cost<N, U, X>,
    {
        let (d1, d2) = loop {
            stats.backward_passes += 1;
            match self.backward::<C, X>(cost, bounds, &mut stats.qp_iterations) {
                Ok(e) => break e,
                Err(ControlError::NotPositiveDefinite { .. })
                    if self.regularization < settings.max_regularization =>
                {
                    self.regularization = (self.regularization * 10.0).max(1e-8);
                }
                Err(e) => {
                    stats.regularization = self.regularization;
                    return Err(e);
                }
            }
        };
        stats.regularization = self.regularization;
        stats.expected_decrease = -(d1 + d2);
        let saved = sim.system().inputs();
        let j0 = self.nominal.cost;
        let mut alpha = 1.0;
        while alpha >= settings.min_step {
            let (nominal, policy) = (&self.nominal, &self.policy);
            self.candidate.start = nominal.start;
            self.candidate.start_basis = nominal.start_basis;
            let law = |k: usize, x: &State<N>| {
                let z = nominal
                    .basis(k)
                    .coordinates::<X>(&difference::<N, X>(x, nominal.state(k)));
                bounds.clamp(
                    &(nominal.controls[k] + policy.feedforward[k] * alpha + policy.gains[k] * z),
                )
            };
            let tried = rollout(sim, cost, &mut self.candidate, law);
            stats.steps += match tried {
                Ok(n) => n,
                Err(_) => H,
            };
            if tried.is_ok() {
                let jc = self.candidate.cost;
                let expected = -(alpha * d1 + alpha * alpha * d2);
                let actual = j0 - jc;
                let tiny = expected <= 1e-15 * (1.0 + j0.abs());
                if jc.is_finite() && actual >= 0.0 && (actual > 1e-4 * expected || tiny) {
                    let ff = (0..H).fold(0.0f64, |m, k| m.max(self.policy.feedforward[k].amax()));
                    core::mem::swap(&mut self.nominal, &mut self.candidate);
                    self.regularization = if self.regularization > 1e-8 {
                        self.regularization / 10.0
                    } else {
                        0.0
                    };
                    stats.accepted = true;
                    stats.step = alpha;
                    stats.feedforward = ff * alpha;
                    stats.cost = jc;
                    break;
                }
            }
            alpha *= 0.5;
        }
        if !stats.accepted {
            self.regularization = (self.regularization * 10.0).max(1e-6);
        }
        sim.system_mut().set_inputs(&saved);
        Ok(())
    }

    /// Iterates until an accepted iteration lowers the cost by less than
    /// `settings.tolerance (1 + cost)` (or the expected decrease is at round-off), or
    /// `settings.max_iterations`. Returns the last iteration's statistics and the number of
    /// iterations; [`ControlError::NoConvergence`] if the budget ran out, or the error of an
    /// iteration that failed. On every path, `self.stats` ([`SolveStats`]) holds what the
    /// solve did: read it after an error as after success. Invalid arguments (as
    /// [`Ilqr::iterate`]'s) return an error before anything, `self.stats` included, changes.
    pub fn solve<Sys, Meth, C, const M: usize, const K: usize, const X: usize>(
        &mut self,
        sim: &mut Integrator<Sys, Meth>,
        cost: &C,
        bounds: &Bounds<U>,
        settings: &Settings,
    ) -> Result<(IterationStats, usize), ControlError>
    where
        Sys: Model + Dimensions<N, M, K, U, D, X>,
        Meth: Method,
        C: Cost<N, U, X>,
    {
        Self::check_arguments(cost, bounds)?;
        settings.check()?;
        self.check_initialized()?;
        self.stats = SolveStats::default();
        for it in 1..=settings.max_iterations {
            let out = self.iterate_checked(sim, cost, bounds, settings);
            let s = self.stats.last;
            self.stats.iterations = it;
            self.stats.accepted += usize::from(s.accepted);
            self.stats.steps += s.steps;
            self.stats.backward_passes += s.backward_passes;
            self.stats.qp_iterations += s.qp_iterations;
            out?;
            let decrease = s.previous_cost - s.cost;
            let converged_step = s.accepted && decrease <= settings.tolerance * (1.0 + s.cost);
            let at_round_off = s.expected_decrease <= 1e-15 * (1.0 + s.cost.abs());
            if converged_step || at_round_off {
                self.stats.converged = true;
                return Ok((s, it));
            }
        }
        Err(ControlError::NoConvergence {
            what: "iLQR",
            iterations: settings.max_iterations,
        })
    }

    /// The backward pass over the nominal trajectory with the regularization `μ`: the policy
    /// and the expected decrease terms.
    fn backward<C, const X: usize>(
        &mut self,
        cost: &C,
        bounds: &Bounds<U>,
        qp_iterations: &mut usize,
    ) -> Result<Expected, ControlError>
    where
        C: Cost<N, U, X>,
    {
        let nom = &self.nominal;
        let mu = self.regularization;
        let term = cost.terminal(nom.state(H));
        let th = nom.basis(H).matrix::<X>();
        let mut vz: SVector<f64, D> = th.tr_mul(&term.lx);
        let mut vzz: SMatrix<f64, D, D> = th.tr_mul(&(term.lxx * th));
        let (mut d1, mut d2) = (0.0, 0.0);
        for k in (0..H).rev() {
            let t = nom.basis(k).matrix::<X>();
            let u = nom.controls[k];
            let st = cost.stage(k, nom.state(k), &u);
            let (a, b) = (&nom.a[k], &nom.b[k]);
            let qz = t.tr_mul(&st.lx) + a.tr_mul(&vz);
            let qu = st.lu + b.tr_mul(&vz);
            let vzz_a = vzz * a;
            let vzz_b = vzz * b;
            let qzz = t.tr_mul(&(st.lxx * t)) + a.tr_mul(&vzz_a);
            let quu = st.luu + b.tr_mul(&vzz_b);
            let quz = st.lux * t + b.tr_mul(&vzz_a);
            let finite = |m: &[f64]| m.iter().all(|v| v.is_finite());
            if !(finite(qu.as_slice()) && finite(quu.as_slice()) && finite(quz.as_slice())) {
                return Err(ControlError::NonFinite {
                    what: "a derivative of the backward pass (the cost's gradient or Hessian, or \
                           the value function: an overflow)",
                });
            }
            let quu_reg = (quu + quu.transpose()) * 0.5 + SMatrix::<f64, U, U>::identity() * mu;
            let qp = solve_box_qp(
                &quu_reg,
                &qu,
                &(bounds.lo - u),
                &(bounds.hi - u),
                &self.policy.feedforward[k],
            )?;
            *qp_iterations += qp.iterations;
            let kk = qp.x;
            let gain = qp.free_solve(&quz);
            d1 += kk.dot(&qu);
            d2 += 0.5 * kk.dot(&(quu * kk));
            vz = qz + gain.tr_mul(&(quu * kk)) + gain.tr_mul(&qu) + quz.tr_mul(&kk);
            let v = qzz + gain.tr_mul(&(quu * gain)) + gain.tr_mul(&quz) + quz.tr_mul(&gain);
            vzz = (v + v.transpose()) * 0.5;
            self.policy.feedforward[k] = kk;
            self.policy.gains[k] = gain;
        }
        Ok((d1, d2))
    }

    /// `∂J/∂u_k` of the nominal trajectory by the adjoint recursion on the tangent space:
    /// `λ_H = T_Hᵀ ∇φ`, `g_k = ∇_u l_k + B_kᵀ λ_{k+1}`, `λ_k = T_kᵀ ∇_x l_k + A_kᵀ λ_{k+1}`.
    pub fn gradient<C, const X: usize>(&self, cost: &C) -> [SVector<f64, U>; H]
    where
        C: Cost<N, U, X>,
    {
        let nom = &self.nominal;
        let mut g = [SVector::zeros(); H];
        let mut lambda: SVector<f64, D> = nom
            .basis(H)
            .coordinates::<X>(&cost.terminal(nom.state(H)).lx);
        for k in (0..H).rev() {
            let st = cost.stage(k, nom.state(k), &nom.controls[k]);
            g[k] = st.lu + nom.b[k].tr_mul(&lambda);
            lambda = nom.basis(k).coordinates::<X>(&st.lx) + nom.a[k].tr_mul(&lambda);
        }
        g
    }

    /// The first-order optimality of the nominal trajectory ([`Kkt`]).
    pub fn kkt<C, const X: usize>(&self, cost: &C, bounds: &Bounds<U>) -> Kkt
    where
        C: Cost<N, U, X>,
    {
        let g = self.gradient::<C, X>(cost);
        let mut out = Kkt {
            projected_gradient: 0.0,
            free_gradient: 0.0,
            wrong_sign: f64::NEG_INFINITY,
            bound_violation: 0.0,
            active: 0,
        };
        for k in 0..H {
            let u = self.nominal.controls[k];
            let pg = u - bounds.clamp(&(u - g[k]));
            out.projected_gradient = out.projected_gradient.max(pg.amax());
            for i in 0..U {
                let (lo, hi) = (bounds.lo[i], bounds.hi[i]);
                out.bound_violation = out.bound_violation.max(u[i] - hi).max(lo - u[i]);
                if u[i] >= hi {
                    out.active += 1;
                    out.wrong_sign = out.wrong_sign.max(g[k][i]);
                } else if u[i] <= lo {
                    out.active += 1;
                    out.wrong_sign = out.wrong_sign.max(-g[k][i]);
                } else {
                    out.free_gradient = out.free_gradient.max(g[k][i].abs());
                }
            }
        }
        out
    }

    /// Moves the horizon one interval on (for receding-horizon control): `x_1` becomes the
    /// start, every input, state, basis, linearization and gain moves down by one, and the last
    /// interval repeats the one before. Then [`Ilqr::restart`] from the measured state.
    pub fn shift(&mut self) {
        let t = &mut self.nominal;
        t.start = t.states[0];
        t.start_basis = t.bases[0];
        let p = &mut self.policy;
        for k in 0..H - 1 {
            t.states[k] = t.states[k + 1];
            t.bases[k] = t.bases[k + 1];
            t.controls[k] = t.controls[k + 1];
            t.a[k] = t.a[k + 1];
            t.b[k] = t.b[k + 1];
            p.feedforward[k] = p.feedforward[k + 1];
            p.gains[k] = p.gains[k + 1];
        }
        if H >= 2 {
            t.controls[H - 1] = t.controls[H - 2];
            p.gains[H - 1] = p.gains[H - 2];
        }
        p.feedforward = [SVector::zeros(); H];
    }

    /// Rolls out from `start` with the current feedback policy around the nominal trajectory
    /// (`u_k = clamp(ū_k + K_k T_kᵀ (x_k − x̄_k))`, no feedforward step): the warm start of a
    /// receding-horizon solve after [`Ilqr::shift`]. The result becomes the nominal trajectory.
    /// Returns the integrator steps taken. The model's inputs are restored.
    ///
    /// Errors with nothing changed: unusable bounds or cost, a `start` that is not finite or
    /// off the constraint manifold. When the rollout fails (a step, a basis), the nominal
    /// trajectory and the policy are unchanged.
    pub fn restart<Sys, Meth, C, const M: usize, const K: usize, const X: usize>(
        &mut self,
        sim: &mut Integrator<Sys, Meth>,
        cost: &C,
        bounds: &Bounds<U>,
        start: &State<N>,
    ) -> Result<usize, ControlError>
    where
        Sys: Model + Dimensions<N, M, K, U, D, X>,
        Meth: Method,
        C: Cost<N, U, X>,
    {
        Self::check_arguments(cost, bounds)?;
        let basis = sim.tangent(start)?;
        self.restart_from(sim, cost, bounds, start, &basis)
    }

    /// [`Ilqr::restart`] after its checks, with the (unaligned) basis at `start`.
    pub(crate) fn restart_from<Sys, Meth, C, const M: usize, const K: usize, const X: usize>(
        &mut self,
        sim: &mut Integrator<Sys, Meth>,
        cost: &C,
        bounds: &Bounds<U>,
        start: &State<N>,
        basis: &TangentBasis<N, D>,
    ) -> Result<usize, ControlError>
    where
        Sys: Model + Dimensions<N, M, K, U, D, X>,
        Meth: Method,
        C: Cost<N, U, X>,
    {
        let saved = sim.system().inputs();
        self.candidate.start = *start;
        self.candidate.start_basis = basis.aligned_with(&self.nominal.start_basis)?;
        let (nominal, policy) = (&self.nominal, &self.policy);
        let law = |k: usize, x: &State<N>| {
            let z = nominal
                .basis(k)
                .coordinates::<X>(&difference::<N, X>(x, nominal.state(k)));
            bounds.clamp(&(nominal.controls[k] + policy.gains[k] * z))
        };
        let out = rollout(sim, cost, &mut self.candidate, law);
        sim.system_mut().set_inputs(&saved);
        let steps = out?;
        core::mem::swap(&mut self.nominal, &mut self.candidate);
        Ok(steps)
    }
}

/// Rolls `out` forward from its start (and start basis) with the inputs `law(k, x_k)`: states,
/// aligned bases, linearizations and the total cost. Returns the steps taken.
fn rollout<
    Sys,
    Meth,
    C,
    const N: usize,
    const M: usize,
    const K: usize,
    const U: usize,
    const D: usize,
    const X: usize,
    const H: usize,
>(
    sim: &mut Integrator<Sys, Meth>,
    cost: &C,
    out: &mut Trajectory<N, U, D, H>,
    law: impl Fn(usize, &State<N>) -> SVector<f64, U>,
) -> Result<usize, ControlError>
where
    Sys: Model + Dimensions<N, M, K, U, D, X>,
    Meth: Method,
    C: Cost<N, U, X>,
{
    let mut total = 0.0;
    let mut x = out.start;
    let mut basis = out.start_basis;
    for k in 0..H {
        let u = law(k, &x);
        if !u.iter().all(|v| v.is_finite()) {
            return Err(ControlError::InvalidArgument {
                what: "a non-finite input in a rollout",
            });
        }
        total += cost.stage(k, &x, &u).value;
        if !total.is_finite() {
            return Err(ControlError::NonFinite {
                what: "a stage cost in a rollout (check the cost's weights and targets)",
            });
        }
        sim.system_mut().set_inputs(&u);
        let lin = sim.linearize(&mut x, &basis)?;
        basis = lin.basis;
        out.controls[k] = u;
        out.states[k] = x;
        out.bases[k] = basis;
        out.a[k] = lin.a;
        out.b[k] = lin.b;
    }
    total += cost.terminal(&x).value;
    if !total.is_finite() {
        return Err(ControlError::NonFinite {
            what: "the terminal cost of a rollout (check the cost's weights and targets)",
        });
    }
    out.cost = total;
    Ok(H)
}
