//! Static equilibrium inputs: the inputs that hold a model still at a configuration (gravity
//! compensation, closed loops included), a first guess for LQR, iLQR and NMPC that users need
//! not derive by hand.

use nalgebra::{SMatrix, SVector};

use crate::control::dense::{cholesky, cholesky_solve};
use crate::error::Error;
use crate::integrator::Integrator;
use crate::method::Method;
use crate::model::{Dimensions, Model, State};

/// Gauss–Newton iterations at most.
const ITERATIONS: usize = 30;

/// Step halvings at most in one iteration's line search.
const HALVINGS: usize = 12;

/// The Levenberg term relative to the mean diagonal of `JᵀJ`: large enough to keep an input
/// that does nothing at this configuration (a zero column of `J`) at zero, small enough to leave
/// the Gauss–Newton step unchanged to round-off otherwise.
const DAMPING: f64 = 1e-12;

/// What [`Integrator::equilibrium_inputs`] found: the inputs and how still they hold the model.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Equilibrium<const U: usize> {
    /// The inputs, in the order of `inputs: [...]`.
    pub u: SVector<f64, U>,
    /// `max |q''|` at rest with these inputs: round-off when the inputs hold the configuration
    /// still; larger when no inputs can (an underactuated model away from its equilibria), and
    /// then `u` is the least-squares best.
    pub residual: f64,
    /// `max |q''|` at rest with zero inputs, for scale.
    pub unforced: f64,
    /// Gauss–Newton iterations taken (one for a model whose forces are affine in the inputs,
    /// plus one that confirms).
    pub iterations: usize,
}

impl<const U: usize> Equilibrium<U> {
    /// Whether the inputs hold the configuration still: `residual ≤ tolerance · (1 + unforced)`.
    ///
    /// ```
    /// use spark::control::equilibrium::Equilibrium;
    /// use spark::nalgebra::SVector;
    ///
    /// let e = Equilibrium { u: SVector::<f64, 1>::zeros(), residual: 1e-15, unforced: 9.81, iterations: 2 };
    /// assert!(e.holds(1e-12));
    /// ```
    pub fn holds(&self, tolerance: f64) -> bool {
        self.residual <= tolerance * (1.0 + self.unforced)
    }
}

impl<Sys: Model, Meth: Method> Integrator<Sys, Meth> {
    /// The inputs that hold the model at rest at configuration `q` at time `t`: `u` with
    /// `q''(q, v = 0, u) = 0`, where `q''` comes from the equations of motion with the
    /// constraint forces (the index-1 saddle system of [`Integrator::dynamics`]), so closed
    /// loops and nonholonomic constraints are accounted for. For a robot arm these are the
    /// gravity-compensation torques; for a closed-loop linkage, the motor torques that balance
    /// gravity and springs through the loop.
    ///
    /// Gauss–Newton on `q''(u)` from `u = 0`, its Jacobian `∂q''/∂u` by central differences,
    /// with a backtracking line search; the steps are damped by `10⁻¹²` of `JᵀJ`'s mean
    /// diagonal, so that an input with no effect stays at zero and redundant inputs give the
    /// least-norm solution. Forces affine in the inputs (motors, gears, `forces: [..]` linear in
    /// `inputs`) converge in one step. When no inputs hold the configuration (an underactuated
    /// model away from its equilibria, such as a cart-pole leaning), the result is the
    /// least-squares best and [`Equilibrium::residual`] says how far from still it is.
    ///
    /// The model's inputs are restored afterwards. Errors (nothing changed):
    /// [`Error::NonFiniteState`] for a non-finite `q` or `t`; [`Error::InconsistentState`] when
    /// `q` violates the holonomic constraints ([`Integrator::project`] makes it consistent);
    /// [`Error::NonFiniteParameter`]; [`Error::SingularJacobian`] (dependent constraints);
    /// [`Error::NonFiniteEvaluation`] when the forces overflow.
    ///
    /// ```
    /// use spark::{GaussLobatto, Integrator, State};
    ///
    /// // A pendulum driven by a torque at its pivot, in Cartesian coordinates.
    /// spark::mechanics! {
    ///     pub struct Pendulum {
    ///         coordinates: [x, y],
    ///         velocities: [vx, vy],
    ///         parameters: [g = 9.81],
    ///         inputs: [torque],
    ///         lagrangian: 0.5 * (vx.powi(2) + vy.powi(2)) - g * y,
    ///         forces: [-torque * y, torque * x],
    ///         holonomic: [x.powi(2) + y.powi(2) - 1.0],
    ///     }
    /// }
    ///
    /// let mut sim = Integrator::<Pendulum, GaussLobatto<2>>::new(Pendulum::default(), 0.01).unwrap();
    /// // Held horizontal, the torque balances g · 1 m.
    /// let q = spark::nalgebra::SVector::from([1.0, 0.0]);
    /// let hold = sim.equilibrium_inputs(0.0, &q).unwrap();
    /// assert!((hold.u[0] - 9.81).abs() < 1e-9);
    /// assert!(hold.holds(1e-12));
    /// // It stays there: one step from rest with that torque.
    /// sim.system_mut().torque = hold.u[0];
    /// let mut s = State::new(0.0, [1.0, 0.0], [0.0, 0.0]);
    /// sim.step(&mut s).unwrap();
    /// assert!((s.q[0] - 1.0).abs() < 1e-12 && s.q[1].abs() < 1e-12);
    /// ```
    pub fn equilibrium_inputs<
        const N: usize,
        const M: usize,
        const K: usize,
        const U: usize,
        const D: usize,
        const X: usize,
    >(
        &mut self,
        t: f64,
        q: &SVector<f64, N>,
    ) -> Result<Equilibrium<U>, Error>
    where
        Sys: Dimensions<N, M, K, U, D, X>,
    {
        if !t.is_finite() || q.iter().any(|x| !x.is_finite()) {
            return Err(Error::NonFiniteState);
        }
        let state = State {
            t,
            q: *q,
            v: SVector::zeros(),
        };
        let mut u = SVector::<f64, U>::zeros();
        // The first evaluation checks the state (on the manifold, finite parameters).
        let mut a = self.rest_acceleration::<N, M, K, U, D, X>(&state, &u, true)?;
        let unforced = a.amax();
        let mut iterations = 0;
        while iterations < ITERATIONS && a.amax() > 0.0 {
            iterations += 1;
            let j = self.input_sensitivity::<N, M, K, U, D, X>(&state, &u)?;
            let mut normal = j.tr_mul(&j);
            let gradient = j.tr_mul(&a);
            let mean = (0..U).map(|i| normal[(i, i)]).sum::<f64>() / U.max(1) as f64;
            if mean <= 0.0 || !mean.is_finite() {
                break; // no input moves the model here
            }
            for i in 0..U {
                normal[(i, i)] += DAMPING * mean;
            }
            let Some(l) = cholesky(&normal) else {
                break;
            };
            let step = cholesky_solve(&l, &(-gradient));
            let mut accepted = None;
            let mut alpha = 1.0;
            for _ in 0..=HALVINGS {
                let trial = u + step * alpha;
                let at = self.rest_acceleration::<N, M, K, U, D, X>(&state, &trial, false)?;
                if at.norm() < a.norm() {
                    accepted = Some((trial, at));
                    break;
                }
                alpha *= 0.5;
            }
            let Some((next, at)) = accepted else {
                break; // the least-squares minimum, to round-off
            };
            let moved = (next - u).amax();
            u = next;
            a = at;
            if moved <= 1e-15 * (1.0 + u.amax()) {
                break;
            }
        }
        Ok(Equilibrium {
            u,
            residual: a.amax(),
            unforced,
            iterations,
        })
    }

    /// `q''` at rest at `state` with inputs `u` (the model's inputs restored).
    fn rest_acceleration<
        const N: usize,
        const M: usize,
        const K: usize,
        const U: usize,
        const D: usize,
        const X: usize,
    >(
        &mut self,
        state: &State<N>,
        u: &SVector<f64, U>,
        check: bool,
    ) -> Result<SVector<f64, N>, Error>
    where
        Sys: Dimensions<N, M, K, U, D, X>,
    {
        let f = self.evaluate_dynamics::<N, M, K, U, D, X>(state, u, check)?;
        finite_at_rest(SVector::<f64, N>::from_fn(|i, _| f[N + i]))
    }

    /// `∂q''/∂u` at rest: the acceleration rows of [`Integrator::dynamics_jacobian`]'s `f_u`.
    fn input_sensitivity<
        const N: usize,
        const M: usize,
        const K: usize,
        const U: usize,
        const D: usize,
        const X: usize,
    >(
        &mut self,
        state: &State<N>,
        u: &SVector<f64, U>,
    ) -> Result<SMatrix<f64, N, U>, Error>
    where
        Sys: Dimensions<N, M, K, U, D, X>,
    {
        let f_u = self.input_differences::<N, M, K, U, D, X>(state, u)?;
        finite_at_rest(SMatrix::<f64, N, U>::from_fn(|r, c| f_u[(N + r, c)]))
    }
}

/// `x` when all its entries are finite; else the error of forces that overflow at rest.
fn finite_at_rest<const R: usize, const C: usize>(
    x: SMatrix<f64, R, C>,
) -> Result<SMatrix<f64, R, C>, Error> {
    if x.iter().all(|v| v.is_finite()) {
        Ok(x)
    } else {
        Err(Error::NonFiniteEvaluation {
            what: "the acceleration at rest (the forces overflow at these inputs)",
        })
    }
}
