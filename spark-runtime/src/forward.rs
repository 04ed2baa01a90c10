//! Forward dynamics at one state: the accelerations of a Lagrangian model, with the constraint
//! reactions, forces and inputs, as an inherent method of [`Integrator`].
//!
//! A layer beside [`crate::integrator`]: it uses the integrator's public accessors and the step
//! layer's consistency check and consistent-multiplier solve (`step::multipliers`), and nothing
//! imports it.

use nalgebra::SVector;

use crate::error::Error;
use crate::integrator::Integrator;
use crate::method::Method;
use crate::model::{Lagrangian, State};
use crate::step::multipliers::accelerations;
use crate::step::Problem;

impl<Sys, Meth: Method> Integrator<Sys, Meth> {
    /// The accelerations `a = q''` at a consistent `state`: the forward dynamics of the model
    /// with its current parameters and inputs, its forces and dissipation, and the constraint
    /// reactions, from the saddle-point system (`w = g_t + G v`, `L_vt = ∂²L/∂v∂t`)
    ///
    /// ```text
    /// [ L_vv  Gᵀ  k_vᵀ ] [a]   [ ∇_qL + Q − L_vq v − L_vt ]
    /// [ G     0   0    ] [λ] = [ −(∂w/∂q) v − ∂w/∂t       ]
    /// [ k_v   0   0    ] [ψ]   [ −k_q v − k_t             ]
    /// ```
    ///
    /// so that the motion keeps to its holonomic constraints (`d²g/dt² = 0`) and its
    /// nonholonomic ones (`dk/dt = k_v a + k_q v + k_t = 0`); [`Integrator::multipliers`]
    /// returns the `λ` and `ψ` of the same solve. Explicit time derivatives are central differences (about
    /// 1e-10 relative; exact where the model does not depend on `t`). The step size and the
    /// method play no part.
    ///
    /// Errors (the state is only read): [`Error::NonFiniteState`],
    /// [`Error::NonFiniteParameter`], [`Error::InconsistentState`] when `state` violates
    /// `g = 0`, `g_t + G v = 0` or `k = 0` beyond [`crate::Options::consistency_tolerance`]
    /// (measured as `step` measures it; [`Integrator::project`] makes a state consistent), and
    /// [`Error::SingularJacobian`] when the mass matrix is singular on the constraints' null
    /// space or the constraints are dependent at `state`.
    ///
    /// ```
    /// use spark::{GaussLobatto, Integrator, State};
    ///
    /// spark::mechanics! {
    ///     pub struct Pendulum {
    ///         coordinates: [x, y],
    ///         velocities: [vx, vy],
    ///         parameters: [g = 9.81],
    ///         lagrangian: 0.5 * (vx.powi(2) + vy.powi(2)) - g * y,
    ///         holonomic: [x.powi(2) + y.powi(2) - 1.0],
    ///     }
    /// }
    ///
    /// let sim = Integrator::<Pendulum, GaussLobatto<2>>::new(Pendulum::default(), 0.01).unwrap();
    /// // Horizontal and at rest: the mass falls freely, the rod carries nothing yet.
    /// let a = sim.acceleration(&State::new(0.0, [1.0, 0.0], [0.0, 0.0])).unwrap();
    /// assert!(a[0].abs() < 1e-12 && (a[1] + 9.81).abs() < 1e-12);
    /// // Through the bottom with speed 3: centripetal 9 towards the pivot, no tangential part.
    /// let a = sim.acceleration(&State::new(0.0, [0.0, -1.0], [3.0, 0.0])).unwrap();
    /// assert!(a[0].abs() < 1e-12 && (a[1] - 9.0).abs() < 1e-12);
    /// // Off the circle: an error, and nothing changed.
    /// assert!(matches!(
    ///     sim.acceleration(&State::new(0.0, [1.1, 0.0], [0.0, 0.0])),
    ///     Err(spark::Error::InconsistentState { .. })
    /// ));
    /// ```
    pub fn acceleration<const N: usize, const M: usize, const K: usize>(
        &self,
        state: &State<N>,
    ) -> Result<SVector<f64, N>, Error>
    where
        Sys: Lagrangian<N, M, K>,
    {
        if !state.is_finite() {
            return Err(Error::NonFiniteState);
        }
        if let Some(name) = self.system().first_non_finite_parameter() {
            return Err(Error::NonFiniteParameter { name });
        }
        // The step's own start check (the step size plays no part in it).
        Problem::<Sys, N, M, K>::new(self.system(), self.step_size(), self.options(), state)
            .check_consistent()?;
        accelerations(self.system(), state).map(|(a, _)| a)
    }
}
