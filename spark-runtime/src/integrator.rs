//! The user-facing integrator: a model, a method chosen by type, a step size.

use core::marker::PhantomData;

use nalgebra::SVector;

use crate::error::Error;
use crate::project;
use crate::state::State;
use crate::system::{Lagrangian, Model};

/// Solver settings. The defaults suit problems scaled to O(1); see each field.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Options {
    /// Newton stops when the estimated remaining error of the stage velocities is below
    /// `tolerance` relative to the velocity scale of the step. Default `1e-12`.
    pub tolerance: f64,
    /// Newton iterations allowed per solve before [`Error::NoConvergence`]. Default 20.
    pub max_iterations: u32,
    /// A state whose constraint violation, measured as a distance in coordinate units relative
    /// to `1 + max|q|` (and as a speed relative to `1 + max|v|`), exceeds this is rejected by
    /// `step` with [`Error::InconsistentState`]. Default `1e-8`.
    pub consistency_tolerance: f64,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            tolerance: 1e-12,
            max_iterations: 20,
            consistency_tolerance: 1e-8,
        }
    }
}

/// What one step cost.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StepStats {
    /// Newton iterations of the stage solve.
    pub stage_iterations: u32,
    /// Newton iterations of the end-point solve.
    pub end_iterations: u32,
}

/// A one-step method for Lagrangian systems with holonomic constraints.
///
/// Implemented by the method types ([`crate::GaussLobatto`]); users choose one as the second
/// type parameter of [`Integrator`].
pub trait Method {
    /// Classical order of the method on holonomically constrained Lagrangian systems.
    const ORDER: usize;

    /// Advances `state` by `h`, returning the new state. Does not modify anything on error.
    fn step<Sys: Lagrangian<N, M>, const N: usize, const M: usize>(
        sys: &Sys,
        h: f64,
        options: &Options,
        state: &State<N>,
    ) -> Result<(State<N>, StepStats), Error>;
}

/// A model `Sys` stepped by the method `Meth` with a fixed step size.
///
/// ```
/// # use spark_runtime::{GaussLobatto, Integrator, Model};
/// # struct Free;
/// # impl Model for Free { fn first_non_finite_parameter(&self) -> Option<&'static str> { None } }
/// let sim = Integrator::<Free, GaussLobatto<2>>::new(Free, 0.01).unwrap();
/// assert_eq!(sim.step_size(), 0.01);
/// assert!(Integrator::<Free, GaussLobatto<2>>::new(Free, f64::NAN).is_err());
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Integrator<Sys, Meth> {
    sys: Sys,
    h: f64,
    options: Options,
    last: StepStats,
    method: PhantomData<Meth>,
}

fn check_step_size(h: f64) -> Result<(), Error> {
    if h.is_finite() && h != 0.0 {
        Ok(())
    } else {
        Err(Error::InvalidStepSize { h })
    }
}

impl<Sys: Model, Meth: Method> Integrator<Sys, Meth> {
    /// An integrator for `sys` with step size `h` (negative steps integrate backwards).
    ///
    /// Errors if `h` is zero or not finite, or if a parameter of `sys` is not finite.
    pub fn new(sys: Sys, h: f64) -> Result<Self, Error> {
        check_step_size(h)?;
        if let Some(name) = sys.first_non_finite_parameter() {
            return Err(Error::NonFiniteParameter { name });
        }
        Ok(Self {
            sys,
            h,
            options: Options::default(),
            last: StepStats::default(),
            method: PhantomData,
        })
    }

    /// The same integrator with other solver settings.
    pub fn with_options(mut self, options: Options) -> Self {
        self.options = options;
        self
    }

    /// The model.
    pub fn system(&self) -> &Sys {
        &self.sys
    }

    /// The step size.
    pub fn step_size(&self) -> f64 {
        self.h
    }

    /// Changes the step size; errors (and keeps the old one) if `h` is zero or not finite.
    pub fn set_step_size(&mut self, h: f64) -> Result<(), Error> {
        check_step_size(h)?;
        self.h = h;
        Ok(())
    }

    /// The solver settings.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// What the last successful step cost.
    pub fn last_step_stats(&self) -> StepStats {
        self.last
    }

    /// Advances `state` by one step. On error `state` is left exactly as it was.
    pub fn step<const N: usize, const M: usize>(
        &mut self,
        state: &mut State<N>,
    ) -> Result<(), Error>
    where
        Sys: Lagrangian<N, M>,
    {
        let (next, stats) = Meth::step(&self.sys, self.h, &self.options, state)?;
        *state = next;
        self.last = stats;
        Ok(())
    }

    /// Makes `state` consistent: moves `q` onto `g(t, q) = 0` (least change in coordinates),
    /// then `v` onto `g_t + G v = 0` (least change in kinetic energy). On error `state` is
    /// unchanged.
    pub fn project<const N: usize, const M: usize>(&self, state: &mut State<N>) -> Result<(), Error>
    where
        Sys: Lagrangian<N, M>,
    {
        *state = project::project(&self.sys, state)?;
        Ok(())
    }

    /// The energy `E = ∂L/∂v · v − L`.
    pub fn energy<const N: usize, const M: usize>(&self, state: &State<N>) -> f64
    where
        Sys: Lagrangian<N, M>,
    {
        let (p, _) = self.sys.momentum_force(state.t, &state.q, &state.v);
        p.dot(&state.v) - self.sys.lagrangian(state.t, &state.q, &state.v)
    }

    /// `(max |g(t, q)|, max |g_t + G v|)`.
    pub fn constraint_residual<const N: usize, const M: usize>(
        &self,
        state: &State<N>,
    ) -> (f64, f64)
    where
        Sys: Lagrangian<N, M>,
    {
        let w = self
            .sys
            .velocity_constraint_jacobian(state.t, &state.q, &state.v)
            .w;
        let g = self.sys.constraints(state.t, &state.q);
        (max_abs(&g), max_abs(&w))
    }
}

/// `max |x_i|` (0 for an empty vector).
pub(crate) fn max_abs<const K: usize>(x: &SVector<f64, K>) -> f64 {
    x.iter().fold(0.0, |m, v| m.max(v.abs()))
}
