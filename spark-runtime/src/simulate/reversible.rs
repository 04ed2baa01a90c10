//! Reversible step-size control (Hairer and Söderlind, "Explicit, time reversible, adaptive step
//! size control", SIAM J. Sci. Comput. 26, 2005): variable steps that keep a symmetric method's
//! long-time behaviour, energy without drift.
//!
//! An error-controlled step size depends on the step it controls in a non-symmetric way, and a
//! symmetric method driven by it loses its symmetry: the energy then drifts. Here the step size
//! follows a function of the state, `h = ε s(q, v)`, through a control variable `z ≈ 1/s`
//! advanced by an explicit leapfrog in a fictive time `τ` (`dt/dτ = 1/z`, `dz/dτ = G(q, v)`,
//! `G = −ṡ/s`):
//!
//! ```text
//! z_{n+1/2} = z_{n−1/2} + ε G(q_n, v_n),     h_{n+1/2} = ε / z_{n+1/2},
//! (q_{n+1}, v_{n+1}) = Φ_{h_{n+1/2}}(q_n, v_n),       z_{1/2} = 1/s(q_0, v_0) + ε G(q_0, v_0)/2.
//! ```
//!
//! The step-size function is the arc length of the motion in configuration space:
//! `s = 1/√(|v|² + c²)`, so each step covers about the distance `ε` (at most the time `ε/c`),
//! and `G = (v · a)/(|v|² + c²)` with `a = q''` the model's acceleration. `s` is even and `G`
//! odd under `v → −v` when the model is (autonomous, forces even in `v`), which is what makes
//! the whole scheme reversible when the method is symmetric.

use crate::error::Error;
use crate::integrator::{Advance, Integrator};
use crate::method::Method;
use crate::model::{Lagrangian, Model, State};
use crate::step::multipliers::accelerations;

/// The state of a reversible step-size control: its two settings and the control variable
/// carried from step to step. See [`Integrator::step_reversible`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Reversible {
    /// `ε`: the distance in configuration space one step covers (in the units of `q`).
    pub distance: f64,
    /// `c`: the speed below which steps stop growing; the longest step is `distance / c`.
    pub min_speed: f64,
    /// `z_{n−1/2}`, once the first step is taken.
    z: Option<f64>,
}

impl Reversible {
    /// A control that covers `distance` per step, with steps at most `distance / min_speed`.
    pub const fn new(distance: f64, min_speed: f64) -> Self {
        Self {
            distance,
            min_speed,
            z: None,
        }
    }

    /// Forgets the control variable: the next step starts the leapfrog afresh from the state
    /// it is given (do this after changing the state by hand, e.g. at an impact).
    pub fn restart(&mut self) {
        self.z = None;
    }

    fn check(&self) -> Result<(), Error> {
        if !(self.distance.is_finite() && self.distance > 0.0) {
            return Err(Error::InvalidTolerance {
                what: "Reversible::distance must be positive and finite",
            });
        }
        if !(self.min_speed.is_finite() && self.min_speed > 0.0) {
            return Err(Error::InvalidTolerance {
                what: "Reversible::min_speed must be positive and finite",
            });
        }
        Ok(())
    }
}

impl<Sys: Model, Meth: Method> Integrator<Sys, Meth> {
    /// One step of the reversible step-size control `control` (see [`Reversible`] and the
    /// module `spark::simulate::reversible`): the step size is `ε / z`, with the control
    /// variable `z` advanced explicitly from the model's acceleration at `state`. Returns the
    /// step size taken; [`Integrator::step_size`] reports it too. For a long run with a
    /// symmetric method (`GaussLobatto`, `LobattoIIIAB`) on an autonomous conservative model the
    /// energy error stays bounded, as with a fixed step, while the steps follow the motion.
    ///
    /// On error `state`, `control` and the integrator's step size are left as they were.
    /// Errors: those of [`Integrator::step`] (checked before the control is computed),
    /// [`Error::InvalidTolerance`] for settings that are not positive and finite or when `z`
    /// turns non-positive (`distance` too large for the motion), [`Error::SingularJacobian`]
    /// when the acceleration is not defined at `state`.
    ///
    /// ```
    /// use spark::simulate::Reversible;
    /// use spark::{GaussLobatto, Integrator, State};
    /// # spark::mechanics! {
    /// #     pub struct Pendulum {
    /// #         coordinates: [x, y],
    /// #         velocities: [vx, vy],
    /// #         parameters: [g = 9.81],
    /// #         lagrangian: 0.5 * (vx.powi(2) + vy.powi(2)) - g * y,
    /// #         holonomic: [x.powi(2) + y.powi(2) - 1.0],
    /// #     }
    /// # }
    /// let mut sim = Integrator::<Pendulum, GaussLobatto<2>>::new(Pendulum::default(), 0.01).unwrap();
    /// // Through the bottom with 99.9 % of the speed that reaches the top.
    /// let mut s = State::new(0.0, [0.0, -1.0], [0.999 * 2.0 * 9.81f64.sqrt(), 0.0]);
    /// let e0 = sim.energy(&s);
    /// let mut control = Reversible::new(0.05, 0.2);
    /// let (mut shortest, mut longest) = (f64::INFINITY, 0.0f64);
    /// while s.t < 20.0 {
    ///     let h = sim.step_reversible(&mut s, &mut control).unwrap();
    ///     shortest = shortest.min(h);
    ///     longest = longest.max(h);
    /// }
    /// assert!(longest > 10.0 * shortest);
    /// assert!((sim.energy(&s) - e0).abs() < 1e-5 * e0.abs());
    /// ```
    pub fn step_reversible<const N: usize, const M: usize, const K: usize>(
        &mut self,
        state: &mut State<N>,
        control: &mut Reversible,
    ) -> Result<f64, Error>
    where
        Sys: Lagrangian<N, M, K>,
        State<N>: Advance<Sys, M, K>,
    {
        control.check()?;
        // The step would refuse these; the control must not compute from them either.
        self.check_call(state)?;
        State::check_consistent(self.system(), state, self.options().consistency_tolerance)?;
        self.check_mass(state)?;
        let (a, _) = accelerations(self.system(), state)?;
        let c2 = control.min_speed * control.min_speed;
        let speed2 = state.v.norm_squared() + c2;
        let g = state.v.dot(&a) / speed2;
        let eps = control.distance;
        let z = match control.z {
            Some(z) => z + eps * g,
            None => crate::math::sqrt(speed2) + 0.5 * eps * g,
        };
        if !(z.is_finite() && z > 0.0) {
            return Err(Error::InvalidTolerance {
                what: "Reversible::distance is too large for this motion (the control variable turned non-positive); reduce it",
            });
        }
        let old = self.step_size();
        let h = (eps / z).copysign(old);
        self.set_step_size(h)?;
        if let Err(e) = self.step(state) {
            self.set_step_size(old)?;
            return Err(e);
        }
        control.z = Some(z);
        Ok(h)
    }
}
