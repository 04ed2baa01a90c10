//! The state kinds an [`Integrator`](crate::Integrator) advances: the [`Advance`] and
//! [`Linearize`] traits, which map each state kind (Lagrangian, Hamiltonian, DAE) to its step
//! and to the model evaluations of the integrator's other calls.
//!
//! The lowest part of the integrator layer: it imports the step and method layers, and nothing
//! of `crate::integrator` or `crate::simulate`, which build on it.

use nalgebra::SVector;

use crate::error::Error;
use crate::linalg::vector::scaled_distance;
use crate::method::{Method, Run};
use crate::model::{dae, hamiltonian, Inputs, Lagrangian, Odae, State};
use crate::options::{Options, StepStats};
use crate::step::jacobian::StepJacobian;
use crate::step::multipliers::{self, Multipliers};
use crate::step::{self, project, start, Point, Problem};
use crate::tableau::Scheme;

/// A state an [`Integrator`](crate::Integrator) can advance for the model `Sys` with `M` holonomic and `K`
/// nonholonomic constraints: implemented for [`State`] (Lagrangian models),
/// [`crate::hamiltonian::State`] (Hamiltonian models) and [`crate::dae::State`] (models given
/// as the DAE (2.11)). Users do not call it; it is what lets one `Integrator::step` serve all
/// three state kinds.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a state of the model `{Sys}`",
    label = "this state does not match the model",
    note = "a Lagrangian model steps `spark::State::new(t, q, v)`, a Hamiltonian model `spark::hamiltonian::State::new(t, q, p)`, a DAE model `spark::dae::State::new(t, y, z, lambda)`; the arrays must have one entry per coordinate"
)]
pub trait Advance<Sys, const M: usize, const K: usize>: Sized {
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
    /// `(max |g|, max |g_t + g_y v|)`, the second also over `max |k|` (nonholonomic
    /// constraints).
    fn residual(sys: &Sys, state: &Self) -> (f64, f64);
    /// The constraint multipliers consistent with `state`.
    fn multipliers(sys: &Sys, state: &Self) -> Result<Multipliers<M, K>, Error>;
    /// [`Error::InconsistentState`] when `state` violates the constraints by more than
    /// `tolerance` (measured as a step measures its start, from `O(N + M)` evaluations), and
    /// [`Error::NonFiniteEvaluation`] when the constraints are not finite there.
    fn check_consistent(sys: &Sys, state: &Self, tolerance: f64) -> Result<(), Error>;
    /// `true` when the model's mass matrix is the same at every state (checked once per
    /// parameter set by [`Advance::check_mass`]).
    const CONSTANT_MASS: bool;
    /// [`Error::MassNotPositiveDefinite`] when the kinetic energy is not positive definite at
    /// `state` (Lagrangian models; the others always pass).
    fn check_mass(sys: &Sys, state: &Self) -> Result<(), Error>;
    /// Why a step of `h` from `state` failed, when the model's evaluations there explain it:
    /// [`Error::NonFiniteEvaluation`] for values that are not finite or beyond `1e150` (an
    /// overflow in the step's products); `None` otherwise.
    fn diagnose(sys: &Sys, h: f64, state: &Self) -> Option<Error>;
    /// Whether every component of the state is finite.
    fn all_finite(&self) -> bool;
    /// The state's time.
    fn time(&self) -> f64;
    /// Sets the state's time (the adaptive drivers land exactly on their end time).
    fn set_time(&mut self, t: f64);
    /// `max_i |a_i − b_i| / (atol + rtol · max(|a_i|, |b_i|))` over the components the
    /// adaptive drivers control: coordinates and velocities (momenta; `y` and `z` for DAE
    /// states, whose multipliers are not controlled).
    fn scaled_distance(a: &Self, b: &Self, rtol: f64, atol: f64) -> f64;
}

/// `max |x_i|`, NaN when an entry is NaN (the residuals of a NaN state are NaN, not 0).
fn nan_max_abs<const R: usize>(x: &SVector<f64, R>) -> f64 {
    x.iter().fold(0.0f64, |m, v| {
        if v.is_nan() || m.is_nan() {
            f64::NAN
        } else {
            m.max(v.abs())
        }
    })
}

/// The step of a Lagrangian model, as a visitor of the method's scheme.
struct LagrangianStep<'a, Sys, const N: usize, const M: usize, const K: usize> {
    sys: &'a Sys,
    h: f64,
    options: &'a Options,
    state: &'a State<N>,
}

impl<Sys: Lagrangian<N, M, K>, const N: usize, const M: usize, const K: usize> Run
    for LagrangianStep<'_, Sys, N, M, K>
{
    type Output = Result<(State<N>, StepStats), Error>;
    #[inline(always)]
    fn run<const S: usize>(self, scheme: &Scheme<S>) -> Self::Output {
        Problem::<Sys, N, M, K>::new(self.sys, self.h, self.options, self.state).step(scheme)
    }
}

impl<Sys: Lagrangian<N, M, K>, const N: usize, const M: usize, const K: usize> Advance<Sys, M, K>
    for State<N>
{
    #[inline]
    fn advance<Meth: Method>(
        sys: &Sys,
        h: f64,
        options: &Options,
        state: &Self,
    ) -> Result<(Self, StepStats), Error> {
        Meth::run(LagrangianStep::<Sys, N, M, K> {
            sys,
            h,
            options,
            state,
        })
    }
    fn consistent(sys: &Sys, state: &Self) -> Result<Self, Error> {
        if K == 0 {
            project::project(sys, state)
        } else {
            project::project_mixed(sys, state)
        }
    }
    fn energy(sys: &Sys, state: &Self) -> f64 {
        let (p, _) = sys.momentum_force(state.t, &state.q, &state.v);
        p.dot(&state.v) - sys.lagrangian(state.t, &state.q, &state.v)
    }
    /// From `O(N + M + K)` values: `w` without `G` ([`Lagrangian::hidden_constraint`]).
    fn residual(sys: &Sys, state: &Self) -> (f64, f64) {
        let (w, _) = sys.hidden_constraint(state.t, &state.q, &state.v);
        let g = sys.constraints(state.t, &state.q);
        let k = sys.nonholonomic_constraints(state.t, &state.q, &state.v);
        (nan_max_abs(&g), nan_max_abs(&w).max(nan_max_abs(&k)))
    }
    fn multipliers(sys: &Sys, state: &Self) -> Result<Multipliers<M, K>, Error> {
        multipliers::lagrangian(sys, state)
    }
    fn check_consistent(sys: &Sys, state: &Self, tolerance: f64) -> Result<(), Error> {
        start::check_state(sys, state, tolerance)
    }
    const CONSTANT_MASS: bool = Sys::CONSTANT_MASS;
    fn check_mass(sys: &Sys, state: &Self) -> Result<(), Error> {
        start::check_mass(sys, state)
    }
    fn diagnose(sys: &Sys, h: f64, state: &Self) -> Option<Error> {
        start::diagnose(sys, h, state)
    }
    fn all_finite(&self) -> bool {
        self.is_finite()
    }
    fn time(&self) -> f64 {
        self.t
    }
    fn set_time(&mut self, t: f64) {
        self.t = t;
    }
    fn scaled_distance(a: &Self, b: &Self, rtol: f64, atol: f64) -> f64 {
        scaled_distance(&a.q, &b.q, rtol, atol).max(scaled_distance(&a.v, &b.v, rtol, atol))
    }
}

/// A state kind whose step [`Integrator::step_with_jacobian`](crate::Integrator::step_with_jacobian) can differentiate: [`State`]
/// (Lagrangian models), [`crate::hamiltonian::State`] and [`crate::dae::State`] (the Jacobian
/// with respect to `(q, p)`, resp. `(y, z)`, in the blocks named for `(q, v)`). `U` is the
/// model's number of inputs.
pub trait Linearize<Sys, const N: usize, const M: usize, const K: usize, const U: usize>:
    Advance<Sys, M, K>
{
    /// One step of `Meth`, advanced exactly as [`Advance::advance`] does, and its Jacobian.
    fn advance_with_jacobian<Meth: Method>(
        sys: &Sys,
        h: f64,
        options: &Options,
        state: &Self,
    ) -> Result<(Self, StepStats, StepJacobian<N, U>), Error>;

    /// An estimate of the stack, in bytes, that [`Linearize::advance_with_jacobian`] takes with
    /// `Meth` (see [`Options::jacobian_stack_limit`]); `0` (unknown) by default.
    fn jacobian_stack<Meth: Method>() -> usize {
        0
    }
}

/// The stack estimate of a step Jacobian of a model with `N` coordinates, `K` nonholonomic
/// constraints (Lagrangian) or of a DAE model (`dae`), as a visitor of the method's scheme.
struct JacobianStack<const N: usize, const K: usize> {
    dae: bool,
}

impl<const N: usize, const K: usize> Run for JacobianStack<N, K> {
    type Output = usize;
    fn run<const S: usize>(self, scheme: &Scheme<S>) -> usize {
        use step::jacobian::{stack_estimate, JacobianPath};
        let path = match scheme {
            _ if self.dae => JacobianPath::Dae,
            Scheme::Emprk { .. } if K > 0 => JacobianPath::Emprk,
            _ if K > 0 => JacobianPath::Mixed,
            _ => JacobianPath::Holonomic,
        };
        stack_estimate(path, N, S)
    }
}

impl<Sys, const N: usize, const M: usize, const K: usize, const U: usize> Linearize<Sys, N, M, K, U>
    for State<N>
where
    Sys: Lagrangian<N, M, K> + Inputs<N, U>,
{
    fn advance_with_jacobian<Meth: Method>(
        sys: &Sys,
        h: f64,
        options: &Options,
        state: &Self,
    ) -> Result<(Self, StepStats, StepJacobian<N, U>), Error> {
        Meth::run(JacobianStep::<Sys, N, M, K, U> {
            sys,
            h,
            options,
            state,
        })
    }

    fn jacobian_stack<Meth: Method>() -> usize {
        Meth::run(JacobianStack::<N, K> { dae: false })
    }
}

/// The Jacobian of a DAE model's step (Hamiltonian or general), as a visitor of the method's
/// scheme.
struct DaeJacobianStep<'a, Sys, const N: usize, const M: usize, const U: usize> {
    sys: &'a Sys,
    h: f64,
    options: &'a Options,
    start: Point<N, M>,
}

impl<Sys, const N: usize, const M: usize, const U: usize> Run for DaeJacobianStep<'_, Sys, N, M, U>
where
    Sys: Odae<N, M> + Inputs<N, U>,
{
    type Output = Result<(Point<N, M>, StepStats, StepJacobian<N, U>), Error>;
    fn run<const S: usize>(self, scheme: &Scheme<S>) -> Self::Output {
        let tableau = match scheme {
            Scheme::Spark { tableau, refuses } => match refuses.dae {
                Some(what) => return Err(Error::Unsupported { what }),
                None => tableau,
            },
            Scheme::Emprk { tableau } => &tableau.spark,
            Scheme::Index2 { .. } => {
                return Err(Error::Unsupported {
                    what: "LobattoIIIABIndex2 on Hamiltonian or DAE models",
                })
            }
        };
        step::odae_jacobian::step_with_jacobian::<Sys, N, M, S, U>(
            tableau,
            self.sys,
            self.h,
            self.options,
            &self.start,
        )
    }
}

/// The Jacobian of a Lagrangian model's step, as a visitor of the method's scheme.
struct JacobianStep<'a, Sys, const N: usize, const M: usize, const K: usize, const U: usize> {
    sys: &'a Sys,
    h: f64,
    options: &'a Options,
    state: &'a State<N>,
}

impl<Sys, const N: usize, const M: usize, const K: usize, const U: usize> Run
    for JacobianStep<'_, Sys, N, M, K, U>
where
    Sys: Lagrangian<N, M, K> + Inputs<N, U>,
{
    /// The step's result and its Jacobian.
    type Output = Result<(State<N>, StepStats, StepJacobian<N, U>), Error>;
    fn run<const S: usize>(self, scheme: &Scheme<S>) -> Self::Output {
        let problem = Problem::<Sys, N, M, K>::new(self.sys, self.h, self.options, self.state);
        let tableau = match scheme {
            Scheme::Spark { tableau, refuses } => {
                if let (true, Some(what)) = (M > 0, refuses.holonomic) {
                    return Err(Error::Unsupported { what });
                }
                if let (true, Some(what)) = (K > 0, refuses.nonholonomic) {
                    return Err(Error::Unsupported { what });
                }
                tableau
            }
            Scheme::Emprk { tableau } if K == 0 => &tableau.spark,
            Scheme::Emprk { tableau } => {
                return problem
                    .emprk_with_jacobian::<S, U>(tableau)
                    .map(|(next, jacobian, stats)| (next, stats, jacobian))
            }
            Scheme::Index2 { .. } => {
                return Err(Error::Unsupported {
                    what: "step_with_jacobian of LobattoIIIABIndex2",
                })
            }
        };
        // `step` takes the same path: the two-phase step without nonholonomic constraints
        // (`Emprk` included), the coupled one with them.
        problem
            .spark_with_jacobian::<S, U>(tableau)
            .map(|(next, jacobian, stats)| (next, stats, jacobian))
    }
}

/// The step of a DAE model (Hamiltonian or general), as a visitor of the method's scheme.
struct DaeStep<'a, Sys, const N: usize, const M: usize> {
    sys: &'a Sys,
    h: f64,
    options: &'a Options,
    start: Point<N, M>,
}

impl<Sys: Odae<N, M>, const N: usize, const M: usize> Run for DaeStep<'_, Sys, N, M> {
    type Output = Result<(Point<N, M>, StepStats), Error>;
    #[inline(always)]
    fn run<const S: usize>(self, scheme: &Scheme<S>) -> Self::Output {
        step::dae::<Sys, N, M, S>(scheme, self.sys, self.h, self.options, &self.start)
    }
}

/// The two state kinds of a DAE model, as a point `(t, y, z, λ)` of the DAE (2.11).
pub(crate) trait DaePoint<const N: usize, const M: usize>: Sized {
    /// Whether the state keeps the multipliers (`from_point` uses `λ`).
    const KEEPS_MULTIPLIERS: bool;
    fn point(&self) -> Point<N, M>;
    fn from_point(p: Point<N, M>) -> Self;
}

impl<const N: usize, const M: usize> DaePoint<N, M> for hamiltonian::State<N> {
    const KEEPS_MULTIPLIERS: bool = false;
    fn point(&self) -> Point<N, M> {
        Point {
            t: self.t,
            y: self.q,
            z: self.p,
            lambda: SVector::zeros(),
        }
    }
    fn from_point(p: Point<N, M>) -> Self {
        hamiltonian::State {
            t: p.t,
            q: p.y,
            p: p.z,
        }
    }
}

impl<const N: usize, const M: usize> DaePoint<N, M> for dae::State<N, M> {
    const KEEPS_MULTIPLIERS: bool = true;
    fn point(&self) -> Point<N, M> {
        Point {
            t: self.t,
            y: self.y,
            z: self.z,
            lambda: self.lambda,
        }
    }
    /// The multiplier of a projected state is the old one (a guess for the next step).
    fn from_point(p: Point<N, M>) -> Self {
        dae::State {
            t: p.t,
            y: p.y,
            z: p.z,
            lambda: p.lambda,
        }
    }
}

/// `Advance` for a state kind of DAE models, through its [`DaePoint`] view.
macro_rules! dae_advance {
    ($state:ty) => {
        impl<Sys: Odae<N, M>, const N: usize, const M: usize> Advance<Sys, M, 0> for $state {
            fn advance<Meth: Method>(
                sys: &Sys,
                h: f64,
                options: &Options,
                state: &Self,
            ) -> Result<(Self, StepStats), Error> {
                let start: Point<N, M> = state.point();
                let (end, stats) = Meth::run(DaeStep {
                    sys,
                    h,
                    options,
                    start,
                })?;
                Ok((Self::from_point(end), stats))
            }
            fn consistent(sys: &Sys, state: &Self) -> Result<Self, Error> {
                let p: Point<N, M> = state.point();
                let (t, y, z) = project::project_odae(sys, p.t, &p.y, &p.z)?;
                Ok(Self::from_point(Point { t, y, z, ..p }))
            }
            fn energy(sys: &Sys, state: &Self) -> f64 {
                let p: Point<N, M> = state.point();
                sys.energy(p.t, &p.y, &p.z).unwrap_or(f64::NAN)
            }
            fn residual(sys: &Sys, state: &Self) -> (f64, f64) {
                let p: Point<N, M> = state.point();
                let (g, _) = sys.position_constraints(p.t, &p.y);
                let w = sys.hidden_constraint(p.t, &p.y, &p.z).w;
                (nan_max_abs(&g), nan_max_abs(&w))
            }
            fn multipliers(sys: &Sys, state: &Self) -> Result<Multipliers<M, 0>, Error> {
                Ok(Multipliers {
                    lambda: multipliers::odae(sys, &state.point())?,
                    psi: SVector::zeros(),
                })
            }
            fn check_consistent(sys: &Sys, state: &Self, tolerance: f64) -> Result<(), Error> {
                let p: Point<N, M> = state.point();
                start::check_odae_state(sys, (p.t, &p.y, &p.z), tolerance)
            }
            const CONSTANT_MASS: bool = true;
            fn check_mass(_: &Sys, _: &Self) -> Result<(), Error> {
                Ok(())
            }
            fn diagnose(sys: &Sys, h: f64, state: &Self) -> Option<Error> {
                let p: Point<N, M> = state.point();
                start::diagnose_odae(sys, h, (p.t, &p.y, &p.z))
            }
            fn all_finite(&self) -> bool {
                let p: Point<N, M> = self.point();
                p.t.is_finite()
                    && p.y
                        .iter()
                        .chain(p.z.iter())
                        .chain(p.lambda.iter())
                        .all(|x| x.is_finite())
            }
            fn time(&self) -> f64 {
                self.t
            }
            fn set_time(&mut self, t: f64) {
                self.t = t;
            }
            fn scaled_distance(a: &Self, b: &Self, rtol: f64, atol: f64) -> f64 {
                let (a, b): (Point<N, M>, Point<N, M>) = (a.point(), b.point());
                scaled_distance(&a.y, &b.y, rtol, atol).max(scaled_distance(&a.z, &b.z, rtol, atol))
            }
        }
    };
}

dae_advance!(hamiltonian::State<N>);
dae_advance!(dae::State<N, M>);

/// `Linearize` for a state kind of DAE models, through its [`DaePoint`] view.
macro_rules! dae_linearize {
    ($state:ty) => {
        impl<Sys, const N: usize, const M: usize, const U: usize> Linearize<Sys, N, M, 0, U>
            for $state
        where
            Sys: Odae<N, M> + Inputs<N, U>,
        {
            fn advance_with_jacobian<Meth: Method>(
                sys: &Sys,
                h: f64,
                options: &Options,
                state: &Self,
            ) -> Result<(Self, StepStats, StepJacobian<N, U>), Error> {
                let start: Point<N, M> = state.point();
                let (end, stats, jacobian) = Meth::run(DaeJacobianStep::<Sys, N, M, U> {
                    sys,
                    h,
                    options,
                    start,
                })?;
                Ok((Self::from_point(end), stats, jacobian))
            }

            fn jacobian_stack<Meth: Method>() -> usize {
                Meth::run(JacobianStack::<N, 0> { dae: true })
            }
        }
    };
}

dae_linearize!(hamiltonian::State<N>);
dae_linearize!(dae::State<N, M>);

/// [`Linearize::advance_with_jacobian`] out of line: its frames, which grow with the square of
/// the model's size, must not become part of [`Integrator::step_with_jacobian`](crate::Integrator::step_with_jacobian)'s, which is
/// entered before the stack check.
#[inline(never)]
pub(crate) fn advance_with_jacobian<
    Sys,
    Meth,
    St,
    const N: usize,
    const M: usize,
    const K: usize,
    const U: usize,
>(
    sys: &Sys,
    h: f64,
    options: &Options,
    state: &St,
) -> Result<(St, StepStats, StepJacobian<N, U>), Error>
where
    Meth: Method,
    St: Linearize<Sys, N, M, K, U>,
{
    St::advance_with_jacobian::<Meth>(sys, h, options, state)
}
