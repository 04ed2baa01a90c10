//! Nonlinear MPC by real-time iterations of [`Ilqr`]: every control period the horizon moves
//! on by one interval ([`Ilqr::shift`]), the previous feedback policy is rolled out from the
//! measured state ([`Ilqr::restart`]: a warm start that holds an unstable plant where a plain
//! shift of the inputs does not), then a fixed number of iLQR iterations refines it, and the
//! first input is applied.

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
    /// iLQR iterations made (the budget).
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
///     let (u, _stats) = mpc.control(&mut model, &cost, &bounds, &s).unwrap();
///     plant.system_mut().u = u[0];
///     plant.step(&mut s).unwrap();
/// }
/// assert!((s.q[0] - 0.3).abs() < 0.01, "{}", s.q[0]);
/// ```
#[derive(Clone, Copy, Debug)]
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
    /// previous policy. `sim` is the prediction model (its inputs are restored). On error the
    /// horizon may have moved on; the next call continues from it.
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
        let mut stats = NmpcStats::default();
        if self.started {
            if self.shift_next {
                self.solver.shift();
            }
            stats.steps += self.solver.restart(sim, cost, bounds, state)?;
        } else {
            self.solver.nominal.start = *state;
            self.solver.initialize(sim, cost, bounds)?;
            stats.steps += H;
            self.started = true;
        }
        self.shift_next = true;
        for _ in 0..self.iterations {
            let s = self.solver.iterate(sim, cost, bounds, &self.settings)?;
            stats.iterations += 1;
            stats.accepted += usize::from(s.accepted);
            stats.steps += s.steps;
            stats.backward_passes += s.backward_passes;
            stats.qp_iterations += s.qp_iterations;
            stats.expected_decrease = s.expected_decrease;
        }
        stats.cost = self.solver.nominal.cost;
        Ok((self.solver.nominal.controls[0], stats))
    }
}
