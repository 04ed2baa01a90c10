//! The user-facing integrator: a model, a method chosen by type, a step size.

use core::marker::PhantomData;

use nalgebra::SVector;

use crate::error::Error;
use crate::nonholonomic::Nonholonomic;
use crate::odae_step::Point;
use crate::state::State;
use crate::system::{Lagrangian, Model, Odae};
use crate::{dae, hamiltonian, project};

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
    /// Solve each step's Newton systems by simplified Newton first: for holonomic Lagrangian
    /// models the iteration matrix is a block-structured approximation evaluated once per step
    /// at its start (mass matrix and constraint Jacobian there; only `N × N` and `M × M` blocks
    /// are factored); if that iteration converges slowly (rate above 1/2) or not at all, the
    /// solve is redone with full Newton and the exact Jacobian before an error is reported.
    /// Converged results agree with full Newton's to round-off. `false`: full Newton
    /// throughout. Default `true`.
    pub simplified_newton: bool,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            tolerance: 1e-12,
            max_iterations: 20,
            consistency_tolerance: 1e-8,
            simplified_newton: true,
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

    /// The same method on a Lagrangian system with nonholonomic constraints `k(t, q, v) = 0`
    /// as well (thesis of S. Small, Definition 5.2.1); methods without a nonholonomic variant
    /// return [`Error::Unsupported`].
    #[doc(hidden)]
    fn step_mixed<Sys: Nonholonomic<N, M, K>, const N: usize, const M: usize, const K: usize>(
        sys: &Sys,
        h: f64,
        options: &Options,
        state: &State<N>,
    ) -> Result<(State<N>, StepStats), Error>;

    /// The same method applied to the overdetermined DAE (2.11) (Hamiltonian and general models).
    #[doc(hidden)]
    fn step_odae<Sys: Odae<N, M>, const N: usize, const M: usize>(
        sys: &Sys,
        h: f64,
        options: &Options,
        start: &Point<N, M>,
    ) -> Result<(Point<N, M>, StepStats), Error>;
}

/// A state an [`Integrator`] can advance for the model `Sys` with `M` constraints: implemented
/// for [`State`] (Lagrangian models), [`crate::hamiltonian::State`] (Hamiltonian models) and
/// [`crate::dae::State`] (models given as the DAE (2.11)).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a state of the model `{Sys}`",
    label = "this state does not match the model",
    note = "a Lagrangian model steps `spark::State::new(t, q, v)`, a Hamiltonian model `spark::hamiltonian::State::new(t, q, p)`, a DAE model `spark::dae::State::new(t, y, z, lambda)`; the arrays must have one entry per coordinate"
)]
pub trait Advance<Sys, const M: usize>: Sized {
    /// One step of `Meth`.
    fn advance<Meth: Method>(
        sys: &Sys,
        h: f64,
        options: &Options,
        state: &Self,
    ) -> Result<(Self, StepStats), Error>;
    /// A consistent state near `state`.
    fn consistent(sys: &Sys, state: &Self) -> Result<Self, Error>;
    /// The conserved energy (NaN when the model has none).
    fn energy(sys: &Sys, state: &Self) -> f64;
    /// `(max |g|, max |g_t + g_y v|)` (and `max |k|` for nonholonomic constraints).
    fn residual(sys: &Sys, state: &Self) -> (f64, f64);
}

impl<Sys: Lagrangian<N, M>, const N: usize, const M: usize> Advance<Sys, M> for State<N> {
    fn advance<Meth: Method>(
        sys: &Sys,
        h: f64,
        options: &Options,
        state: &Self,
    ) -> Result<(Self, StepStats), Error> {
        sys.step_with::<Meth>(h, options, state)
    }
    fn consistent(sys: &Sys, state: &Self) -> Result<Self, Error> {
        sys.project_with(state)
    }
    fn energy(sys: &Sys, state: &Self) -> f64 {
        let (p, _) = sys.momentum_force(state.t, &state.q, &state.v);
        p.dot(&state.v) - sys.lagrangian(state.t, &state.q, &state.v)
    }
    fn residual(sys: &Sys, state: &Self) -> (f64, f64) {
        let w = sys
            .velocity_constraint_jacobian(state.t, &state.q, &state.v)
            .w;
        let g = sys.constraints(state.t, &state.q);
        let k = sys.nonholonomic_residual(state.t, &state.q, &state.v);
        (max_abs(&g), max_abs(&w).max(k))
    }
}

impl<Sys: Odae<N, M>, const N: usize, const M: usize> Advance<Sys, M> for hamiltonian::State<N> {
    fn advance<Meth: Method>(
        sys: &Sys,
        h: f64,
        options: &Options,
        state: &Self,
    ) -> Result<(Self, StepStats), Error> {
        let start = Point {
            t: state.t,
            y: state.q,
            z: state.p,
            lambda: SVector::zeros(),
        };
        let (end, stats) = Meth::step_odae(sys, h, options, &start)?;
        Ok((
            hamiltonian::State {
                t: end.t,
                q: end.y,
                p: end.z,
            },
            stats,
        ))
    }
    fn consistent(sys: &Sys, state: &Self) -> Result<Self, Error> {
        let (t, q, p) = project::project_odae(sys, state.t, &state.q, &state.p)?;
        Ok(hamiltonian::State { t, q, p })
    }
    fn energy(sys: &Sys, state: &Self) -> f64 {
        sys.energy(state.t, &state.q, &state.p).unwrap_or(f64::NAN)
    }
    fn residual(sys: &Sys, state: &Self) -> (f64, f64) {
        let (g, _) = sys.position_constraints(state.t, &state.q);
        let w = sys.hidden_constraint(state.t, &state.q, &state.p).w;
        (max_abs(&g), max_abs(&w))
    }
}

impl<Sys: Odae<N, M>, const N: usize, const M: usize> Advance<Sys, M> for dae::State<N, M> {
    fn advance<Meth: Method>(
        sys: &Sys,
        h: f64,
        options: &Options,
        state: &Self,
    ) -> Result<(Self, StepStats), Error> {
        let start = Point {
            t: state.t,
            y: state.y,
            z: state.z,
            lambda: state.lambda,
        };
        let (end, stats) = Meth::step_odae(sys, h, options, &start)?;
        Ok((
            dae::State {
                t: end.t,
                y: end.y,
                z: end.z,
                lambda: end.lambda,
            },
            stats,
        ))
    }
    fn consistent(sys: &Sys, state: &Self) -> Result<Self, Error> {
        let (t, y, z) = project::project_odae(sys, state.t, &state.y, &state.z)?;
        Ok(dae::State {
            t,
            y,
            z,
            lambda: state.lambda,
        })
    }
    fn energy(sys: &Sys, state: &Self) -> f64 {
        sys.energy(state.t, &state.y, &state.z).unwrap_or(f64::NAN)
    }
    fn residual(sys: &Sys, state: &Self) -> (f64, f64) {
        let (g, _) = sys.position_constraints(state.t, &state.y);
        let w = sys.hidden_constraint(state.t, &state.y, &state.z).w;
        (max_abs(&g), max_abs(&w))
    }
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
    pub fn step<St: Advance<Sys, M>, const M: usize>(
        &mut self,
        state: &mut St,
    ) -> Result<(), Error> {
        let (next, stats) = St::advance::<Meth>(&self.sys, self.h, &self.options, state)?;
        *state = next;
        self.last = stats;
        Ok(())
    }

    /// Makes `state` consistent: moves the coordinates onto `g(t, q) = 0` (least change in
    /// coordinates), then the velocities (or momenta) onto the hidden constraint
    /// `g_t + G v = 0` (for Lagrangian models with least change in kinetic energy). On error
    /// `state` is unchanged.
    pub fn project<St: Advance<Sys, M>, const M: usize>(
        &self,
        state: &mut St,
    ) -> Result<(), Error> {
        *state = St::consistent(&self.sys, state)?;
        Ok(())
    }

    /// The energy: `E = ∂L/∂v · v − L` for a Lagrangian model, `H` for a Hamiltonian one,
    /// NaN for a DAE model without one.
    pub fn energy<St: Advance<Sys, M>, const M: usize>(&self, state: &St) -> f64 {
        St::energy(&self.sys, state)
    }

    /// `(max |g(t, q)|, max |g_t + G v|)`.
    pub fn constraint_residual<St: Advance<Sys, M>, const M: usize>(
        &self,
        state: &St,
    ) -> (f64, f64) {
        St::residual(&self.sys, state)
    }
}

/// `max |x_i|` (0 for an empty vector).
pub(crate) fn max_abs<const K: usize>(x: &SVector<f64, K>) -> f64 {
    x.as_slice().iter().fold(0.0, |m, v| m.max(v.abs()))
}
