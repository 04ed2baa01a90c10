//! Nonlinear MPC by real-time iterations of [`Ilqr`]: every control period the horizon moves
//! on by one interval ([`Ilqr::shift`]), the previous feedback policy is rolled out from the
//! measured state ([`Ilqr::restart`]: a warm start that holds an unstable plant where a plain
//! shift of the inputs does not), then a fixed number of iLQR iterations refines it, and the
//! first input is applied.
//!
//! A control period never aborts on a numerical failure: when the warm-start rollout, a
//! linearization or a backward pass fails, [`Nmpc::control`] still returns an input (the
//! first of the best plan at hand: the shifted previous plan, or the last iterate) and reports
//! the failure in [`NmpcStats::fallback`], as acados returns a status with its input and
//! Crocoddyl a flag with its solution. `Err` is kept for invalid input (bounds, cost, settings,
//! a measured state off the manifold), which leaves the driver and the model untouched.

use nalgebra::SVector;

use crate::control::cost::Cost;
use crate::control::error::ControlError;
use crate::control::ilqr::{Bounds, Ilqr, Settings};
use crate::integrator::Integrator;
use crate::method::Method;
use crate::model::{Dimensions, Model, State};

/// What one control period's solve cost and reached.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct NmpcStats {
    /// iLQR iterations made (the budget; fewer when one failed, none when the warm start
    /// failed).
    pub iterations: usize,
    /// Of which accepted by the line search.
    pub accepted: usize,
    /// Integrator steps with Jacobian (warm-start rollout and forward passes).
    pub steps: usize,
    /// Backward passes.
    pub backward_passes: usize,
    /// Box-QP Newton iterations, summed.
    pub qp_iterations: usize,
    /// The predicted cost over the horizon after the solve.
    pub cost: f64,
    /// The decrease still predicted by the last backward pass (0 at a solution).
    pub expected_decrease: f64,
    /// `Some(e)` when this period's solve failed with `e` (the warm-start rollout, a
    /// linearization, a backward pass) and the input is a fallback: the first input of the
    /// shifted previous plan if the warm start failed (of the initial inputs in the first
    /// period), else of the plan as the last successful iteration left it. `None` when every
    /// step of the period ran. `cost` is then the cost of the plan the input comes from.
    pub fallback: Option<ControlError>,
}

/// The NMPC driver: the solver workspace (horizon `H`) and the iteration budget per period.
///
/// ```
/// use spark::control::cost::Quadratic;
/// use spark::control::ilqr::{Bounds, Settings};
/// use spark::control::nmpc::Nmpc;
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
/// // The model the controller predicts with (20 ms per interval) and the plant.
/// let mut model = Integrator::<Pendulum, GaussLobatto<2>>::new(Pendulum::default(), 0.02).unwrap();
/// let mut plant = model;
/// // Hold the bob at x = 0.3 on the circle's lower half.
/// let target = SVector::<f64, 4>::new(0.3, -(1.0f64 - 0.09).sqrt(), 0.0, 0.0);
/// let cost = Quadratic::<4, 1> {
///     q: SMatrix::from_diagonal(&SVector::from([10.0, 10.0, 0.1, 0.1])),
///     r: SMatrix::identity() * 1e-3,
///     qf: SMatrix::from_diagonal(&SVector::from([100.0, 100.0, 1.0, 1.0])),
///     x_ref: target,
///     u_ref: SVector::zeros(),
/// };
/// let bounds = Bounds::symmetric(5.0);
/// let mut s = State::new(0.0, [0.0, -1.0], [0.0, 0.0]);
/// let mut mpc = Nmpc::<2, 1, 2, 30>::new(&s, [SVector::zeros(); 30], 2, Settings::default());
/// for _ in 0..150 {
///     let (u, stats) = mpc.control(&mut model, &cost, &bounds, &s).unwrap();
///     assert_eq!(stats.fallback, None); // every period solved, none fell back
///     plant.system_mut().u = u[0];
///     plant.step(&mut s).unwrap();
/// }
/// assert!((s.q[0] - 0.3).abs() < 0.01, "{}", s.q[0]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Nmpc<const N: usize, const U: usize, const D: usize, const H: usize> {
    /// The solver, its trajectory and policy.
    pub solver: Ilqr<N, U, D, H>,
    /// iLQR iterations per control period.
    pub iterations: usize,
    /// Solver settings.
    pub settings: Settings,
    started: bool,
    /// Whether the next period moves the horizon on (not before the first period of a driver
    /// built [`Nmpc::from_solver`]).
    shift_next: bool,
}

impl<const N: usize, const U: usize, const D: usize, const H: usize> Nmpc<N, U, D, H> {
    /// A driver whose first solve starts from `state` with the inputs `controls`.
    pub fn new(
        state: &State<N>,
        controls: [SVector<f64, U>; H],
        iterations: usize,
        settings: Settings,
    ) -> Self {
        Self {
            solver: Ilqr::new(*state, controls),
            iterations,
            settings,
            started: false,
            shift_next: false,
        }
    }

    /// [`Nmpc::new`] with the sizes taken from the model of `sim` (`D` and `U` the model's,
    /// `H` the length of `controls`): no size written by hand.
    ///
    /// ```
    /// use spark::control::ilqr::Settings;
    /// use spark::control::nmpc::Nmpc;
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
    /// let s = State::new(0.0, [0.0, -1.0], [0.0, 0.0]);
    /// let mpc = Nmpc::for_model(&sim, &s, [SVector::zeros(); 40], 1, Settings::default());
    /// assert_eq!(mpc.solver.nominal.controls.len(), 40);
    /// ```
    pub fn for_model<Sys, Meth, const M: usize, const K: usize, const X: usize>(
        sim: &Integrator<Sys, Meth>,
        state: &State<N>,
        controls: [SVector<f64, U>; H],
        iterations: usize,
        settings: Settings,
    ) -> Self
    where
        Sys: Model + Dimensions<N, M, K, U, D, X>,
        Meth: Method,
    {
        let () = <Sys as Dimensions<N, M, K, U, D, X>>::CONSISTENT;
        let _ = sim;
        Self::new(state, controls, iterations, settings)
    }

    /// A driver that starts from a solved trajectory whose start is the first period's state
    /// (for example a solve to convergence before the loop starts): the first period warm-starts
    /// from it without moving the horizon.
    pub fn from_solver(solver: Ilqr<N, U, D, H>, iterations: usize, settings: Settings) -> Self {
        Self {
            solver,
            iterations,
            settings,
            started: true,
            shift_next: false,
        }
    }

    /// The input for the period starting at the measured `state`, and what it cost. The first
    /// call rolls out the initial inputs; later ones shift the horizon and warm-start with the
    /// previous policy. `sim` is the prediction model (its inputs are restored).
    ///
    /// Numerical failures do not abort the period: the input is then a fallback, reported in
    /// [`NmpcStats::fallback`] (see the module documentation), and the next call continues
    /// from the shifted plan. `Err` only for invalid input, checked before anything changes:
    /// unusable `bounds` ([`Bounds::check`]), a `cost` that fails [`Cost::check`], unusable
    /// settings ([`Settings::check`]), non-finite initial inputs (first period), a `state` that
    /// is not finite or off the constraint manifold ([`Integrator::tangent`]); the driver and
    /// `sim` are then unchanged.
    pub fn control<Sys, Meth, C, const M: usize, const K: usize, const X: usize>(
        &mut self,
        sim: &mut Integrator<Sys, Meth>,
        cost: &C,
        bounds: &Bounds<U>,
        state: &State<N>,
    ) -> Result<(SVector<f64, U>, NmpcStats), ControlError>
    where
        Sys: Model + Dimensions<N, M, K, U, D, X>,
        Meth: Method,
        C: Cost<N, U, X>,
    {
        // Invalid input: refused before anything changes.
        bounds.check()?;
        cost.check()?;
        self.settings.check()?;
        let finite = |u: &SVector<f64, U>| u.iter().all(|v| v.is_finite());
        if !self.started && !self.solver.nominal.controls.iter().all(finite) {
            return Err(ControlError::InvalidArgument {
                what: "the initial inputs of the NMPC driver must be finite",
            });
        }
        let basis = sim.tangent(state)?;

        let mut stats = NmpcStats::default();
        let warm = if self.started {
            if self.shift_next {
                self.solver.shift();
            }
            self.solver
                .restart_from(sim, cost, bounds, state, &basis)
                .map(|steps| stats.steps += steps)
        } else {
            self.solver.nominal.start = *state;
            let out = self.solver.initialize_from(sim, cost, bounds, basis);
            stats.steps += H;
            // A failed first rollout leaves the driver unstarted: the next period rolls the
            // initial inputs out again from its own state.
            self.started = out.is_ok();
            out
        };
        self.shift_next = self.started;
        match warm {
            Err(e) => stats.fallback = Some(e),
            Ok(()) => {
                for _ in 0..self.iterations {
                    let out = self
                        .solver
                        .iterate_checked(sim, cost, bounds, &self.settings);
                    let s = self.solver.stats.last;
                    stats.iterations += 1;
                    stats.accepted += usize::from(s.accepted);
                    stats.steps += s.steps;
                    stats.backward_passes += s.backward_passes;
                    stats.qp_iterations += s.qp_iterations;
                    stats.expected_decrease = s.expected_decrease;
                    if let Err(e) = out {
                        stats.fallback = Some(e);
                        break;
                    }
                }
            }
        }
        stats.cost = self.solver.nominal.cost;
        // Within the bounds already, except after a failed first rollout or when the bounds
        // changed since the plan was made.
        Ok((bounds.clamp(&self.solver.nominal.controls[0]), stats))
    }
}
