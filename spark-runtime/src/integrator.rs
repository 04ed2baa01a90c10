//! The user-facing integrator: a model, a method chosen by type, a step size.
//!
//! The top of the runtime: it takes a state kind ([`Advance`]), hands the method's scheme to
//! the step layer (`crate::step`), and keeps the caller's state untouched on error.

use core::marker::PhantomData;

use nalgebra::SVector;

use crate::error::Error;
use crate::linalg::vector::{max_abs, scaled_distance};
use crate::method::{Method, Run};
use crate::model::{dae, hamiltonian, Inputs, Lagrangian, Model, Odae, State};
use crate::options::{Options, StepStats};
use crate::simulate::drive::check_tolerances;
use crate::simulate::estimate::checked;
use crate::step::jacobian::StepJacobian;
use crate::step::multipliers::{self, Multipliers};
use crate::step::tangent::{self, TangentBasis};
use crate::step::{self, project, Point, Problem};
use crate::tableau::Scheme;

/// A state an [`Integrator`] can advance for the model `Sys` with `M` holonomic and `K`
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
    /// The state's time.
    fn time(&self) -> f64;
    /// Sets the state's time (the adaptive drivers land exactly on their end time).
    fn set_time(&mut self, t: f64);
    /// `max_i |a_i − b_i| / (atol + rtol · max(|a_i|, |b_i|))` over the components the
    /// adaptive drivers control: coordinates and velocities (momenta; `y` and `z` for DAE
    /// states, whose multipliers are not controlled).
    fn scaled_distance(a: &Self, b: &Self, rtol: f64, atol: f64) -> f64;
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
    fn residual(sys: &Sys, state: &Self) -> (f64, f64) {
        let w = sys
            .velocity_constraint_jacobian(state.t, &state.q, &state.v)
            .w;
        let g = sys.constraints(state.t, &state.q);
        let k = sys.nonholonomic_constraints(state.t, &state.q, &state.v);
        (max_abs(&g), max_abs(&w).max(max_abs(&k)))
    }
    fn multipliers(sys: &Sys, state: &Self) -> Result<Multipliers<M, K>, Error> {
        multipliers::lagrangian(sys, state)
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

/// A state kind whose step [`Integrator::step_with_jacobian`] can differentiate: [`State`]
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
                (max_abs(&g), max_abs(&w))
            }
            fn multipliers(sys: &Sys, state: &Self) -> Result<Multipliers<M, 0>, Error> {
                Ok(Multipliers {
                    lambda: multipliers::odae(sys, &state.point())?,
                    psi: SVector::zeros(),
                })
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
/// the model's size, must not become part of [`Integrator::step_with_jacobian`]'s, which is
/// entered before the stack check.
#[inline(never)]
fn advance_with_jacobian<
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

/// A model `Sys` stepped by the method `Meth` with a fixed step size.
///
/// The model is normally generated by `spark::mechanics!`; the method is a type
/// (`GaussLobatto<S>`, …) and the step size is set at construction.
///
/// ```
/// use spark::{GaussLobatto, Integrator, State};
///
/// spark::mechanics! {
///     pub struct Pendulum {
///         coordinates: [x, y],
///         velocities: [vx, vy],
///         parameters: [m = 1.0, l = 1.0, g = 9.81],
///         lagrangian: 0.5 * m * (vx.powi(2) + vy.powi(2)) - m * g * y,
///         holonomic: [x.powi(2) + y.powi(2) - l.powi(2)],
///     }
/// }
///
/// let mut sim = Integrator::<Pendulum, GaussLobatto<2>>::new(Pendulum::default(), 0.01).unwrap();
/// let mut s = State::new(0.0, [1.0, 0.0], [0.0, 0.0]);
/// let e0 = sim.energy(&s);
/// for _ in 0..200 {
///     sim.step(&mut s).unwrap();
/// }
/// let (g, w) = sim.constraint_residual(&s);
/// assert!(g < 1e-12 && w < 1e-12); // on the constraint manifold after every step
/// let de = (sim.energy(&s) - e0).abs();
/// assert!(de < 1e-6, "{de:e}"); // small and bounded: the method is symplectic, order 4
/// assert!((s.t - 2.0).abs() < 1e-12);
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
    ///
    /// ```
    /// use spark::{Error, GaussLobatto, Integrator};
    /// # spark::mechanics! {
    /// #     pub struct Pendulum {
    /// #         coordinates: [x, y],
    /// #         velocities: [vx, vy],
    /// #         parameters: [m = 1.0, l = 1.0, g = 9.81],
    /// #         lagrangian: 0.5 * m * (vx.powi(2) + vy.powi(2)) - m * g * y,
    /// #         holonomic: [x.powi(2) + y.powi(2) - l.powi(2)],
    /// #     }
    /// # }
    /// assert!(Integrator::<Pendulum, GaussLobatto<2>>::new(Pendulum::default(), 0.01).is_ok());
    /// let bad = Pendulum { g: f64::NAN, ..Pendulum::default() };
    /// assert!(matches!(
    ///     Integrator::<Pendulum, GaussLobatto<2>>::new(bad, 0.01),
    ///     Err(Error::NonFiniteParameter { name: "g" })
    /// ));
    /// ```
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
    /// ```
    /// use spark::{GaussLobatto, Integrator, Options, State};
    /// # spark::mechanics! {
    /// #     pub struct Pendulum {
    /// #         coordinates: [x, y],
    /// #         velocities: [vx, vy],
    /// #         parameters: [m = 1.0, l = 1.0, g = 9.81],
    /// #         lagrangian: 0.5 * m * (vx.powi(2) + vy.powi(2)) - m * g * y,
    /// #         holonomic: [x.powi(2) + y.powi(2) - l.powi(2)],
    /// #     }
    /// # }
    /// let tight = Options { tolerance: 1e-14, ..Options::default() };
    /// let sim = Integrator::<Pendulum, GaussLobatto<2>>::new(Pendulum::default(), 0.01)
    ///     .unwrap()
    ///     .with_options(tight);
    /// assert_eq!(sim.options().tolerance, 1e-14);
    /// assert_eq!(sim.system().l, 1.0);
    /// ```
    pub fn with_options(mut self, options: Options) -> Self {
        self.options = options;
        self
    }

    /// The model.
    pub fn system(&self) -> &Sys {
        &self.sys
    }

    /// The model, to change its parameters between steps (a control loop sets its inputs this
    /// way). A value set to NaN or ±∞ makes the next [`Integrator::step`] fail with
    /// [`Error::NonFiniteParameter`] and leave the state untouched.
    ///
    /// ```
    /// use spark::{Error, GaussLobatto, Integrator, State};
    /// # spark::mechanics! {
    /// #     pub struct Pendulum {
    /// #         coordinates: [x, y],
    /// #         velocities: [vx, vy],
    /// #         parameters: [m = 1.0, l = 1.0, g = 9.81],
    /// #         lagrangian: 0.5 * m * (vx.powi(2) + vy.powi(2)) - m * g * y,
    /// #         holonomic: [x.powi(2) + y.powi(2) - l.powi(2)],
    /// #     }
    /// # }
    /// // (`Pendulum` as in the example of [`Integrator`].)
    /// let mut sim = Integrator::<Pendulum, GaussLobatto<2>>::new(Pendulum::default(), 0.01).unwrap();
    /// let mut s = State::new(0.0, [1.0, 0.0], [0.0, 0.0]);
    /// sim.system_mut().g = 1.62; // on the Moon from now on
    /// sim.step(&mut s).unwrap();
    /// sim.system_mut().g = f64::NAN;
    /// let before = s;
    /// assert!(matches!(sim.step(&mut s), Err(Error::NonFiniteParameter { name: "g" })));
    /// assert_eq!(s, before);
    /// ```
    pub fn system_mut(&mut self) -> &mut Sys {
        &mut self.sys
    }

    /// The step size.
    pub fn step_size(&self) -> f64 {
        self.h
    }

    /// Changes the step size; errors (and keeps the old one) if `h` is zero or not finite.
    /// ```
    /// use spark::{GaussLobatto, Integrator, Options, State};
    /// # spark::mechanics! {
    /// #     pub struct Pendulum {
    /// #         coordinates: [x, y],
    /// #         velocities: [vx, vy],
    /// #         parameters: [m = 1.0, l = 1.0, g = 9.81],
    /// #         lagrangian: 0.5 * m * (vx.powi(2) + vy.powi(2)) - m * g * y,
    /// #         holonomic: [x.powi(2) + y.powi(2) - l.powi(2)],
    /// #     }
    /// # }
    /// let mut sim = Integrator::<Pendulum, GaussLobatto<2>>::new(Pendulum::default(), 0.01).unwrap();
    /// sim.set_step_size(-0.02).unwrap(); // backwards
    /// assert!(sim.set_step_size(0.0).is_err());
    /// assert_eq!(sim.step_size(), -0.02);
    /// ```
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
    /// ```
    /// use spark::{GaussLobatto, Integrator, Options, State};
    /// # spark::mechanics! {
    /// #     pub struct Pendulum {
    /// #         coordinates: [x, y],
    /// #         velocities: [vx, vy],
    /// #         parameters: [m = 1.0, l = 1.0, g = 9.81],
    /// #         lagrangian: 0.5 * m * (vx.powi(2) + vy.powi(2)) - m * g * y,
    /// #         holonomic: [x.powi(2) + y.powi(2) - l.powi(2)],
    /// #     }
    /// # }
    /// let mut sim = Integrator::<Pendulum, GaussLobatto<2>>::new(Pendulum::default(), 0.01).unwrap();
    /// let mut s = State::new(0.0, [1.0, 0.0], [0.0, 0.0]);
    /// sim.step(&mut s).unwrap();
    /// assert!(sim.last_step_stats().stage_iterations >= 1);
    /// ```
    pub fn last_step_stats(&self) -> StepStats {
        self.last
    }

    /// Advances `state` by one step. On error `state` is left exactly as it was. Errors: the
    /// model's parameters are not all finite ([`Error::NonFiniteParameter`]), the state is not
    /// finite or not consistent, the step's Newton iteration failed (step too large, or a
    /// singular configuration: [`Error::SingularJacobian`] where rounding would otherwise put
    /// the result on another branch of the motion), or, when
    /// [`Options::fixed_step_error_limit`] is finite, the step's estimated local error exceeds
    /// it ([`Error::LocalErrorTooLarge`]; such a checked step costs three step solves).
    /// ```
    /// use spark::{GaussLobatto, Integrator, Options, State};
    /// # spark::mechanics! {
    /// #     pub struct Pendulum {
    /// #         coordinates: [x, y],
    /// #         velocities: [vx, vy],
    /// #         parameters: [m = 1.0, l = 1.0, g = 9.81],
    /// #         lagrangian: 0.5 * m * (vx.powi(2) + vy.powi(2)) - m * g * y,
    /// #         holonomic: [x.powi(2) + y.powi(2) - l.powi(2)],
    /// #     }
    /// # }
    /// let mut sim = Integrator::<Pendulum, GaussLobatto<2>>::new(Pendulum::default(), 0.01).unwrap();
    /// // Off the constraint (|q| = 2): rejected, and the state is unchanged.
    /// let mut s = State::new(0.0, [2.0, 0.0], [0.0, 0.0]);
    /// let before = s;
    /// assert!(sim.step(&mut s).is_err());
    /// assert_eq!(s, before);
    ///
    /// // Fixed steps checked against the tolerances: h = 0.5 is far too large for 1e-8.
    /// let checked = Options { rtol: 1e-8, atol: 1e-8, fixed_step_error_limit: 10.0, ..Options::default() };
    /// let mut coarse = Integrator::<Pendulum, GaussLobatto<2>>::new(Pendulum::default(), 0.5)
    ///     .unwrap()
    ///     .with_options(checked);
    /// let mut s = State::new(0.0, [0.6, -0.8], [0.8, 0.6]);
    /// let before = s;
    /// match coarse.step(&mut s) {
    ///     Err(spark::Error::LocalErrorTooLarge { estimate, limit }) => assert!(estimate > limit),
    ///     other => panic!("{other:?}"),
    /// }
    /// assert_eq!(s, before);
    /// ```
    pub fn step<St: Advance<Sys, M, K>, const M: usize, const K: usize>(
        &mut self,
        state: &mut St,
    ) -> Result<(), Error> {
        // The model may have been changed through `system_mut` since the last step.
        if let Some(name) = self.sys.first_non_finite_parameter() {
            return Err(Error::NonFiniteParameter { name });
        }
        if self.options.fixed_step_error_limit.is_finite() {
            return self.step_checked(state);
        }
        let (next, stats) = St::advance::<Meth>(&self.sys, self.h, &self.options, state)?;
        *state = next;
        self.last = stats;
        Ok(())
    }

    /// [`Integrator::step`] with [`Options::fixed_step_error_limit`] finite. Apart, and not
    /// inlined: its three states would otherwise enlarge the frame of every unchecked step
    /// (by 3 kB for the 10-mass 3D chain on the Cortex-M4F).
    #[inline(never)]
    #[cold]
    fn step_checked<St: Advance<Sys, M, K>, const M: usize, const K: usize>(
        &mut self,
        state: &mut St,
    ) -> Result<(), Error> {
        let limit = self.options.fixed_step_error_limit;
        check_tolerances(&self.options)?;
        if limit <= 0.0 {
            return Err(Error::InvalidTolerance {
                what: "fixed_step_error_limit must be positive (or infinite: unchecked)",
            });
        }
        let (next, stats, estimate) =
            checked::<Sys, St, Meth, M, K>(&self.sys, self.h, &self.options, state)?;
        // A NaN estimate fails too.
        if estimate > limit || estimate.is_nan() {
            return Err(Error::LocalErrorTooLarge { estimate, limit });
        }
        *state = next;
        self.last = stats;
        Ok(())
    }

    /// Advances `state` by one step exactly as [`Integrator::step`] does (the same code, bit for
    /// bit) and returns the Jacobian of the step map `(q, v, u) → (q⁺, v⁺)` at the start state
    /// and the model's current inputs `u` ([`StepJacobian`]: `dq_dq`, `dq_dv`, `dv_dq`,
    /// `dv_dv`, `dq_du`, `dv_du`; `U` is the number of inputs, `0` allowed).
    ///
    /// Exact, not finite differences: the implicit function theorem on the converged step
    /// equations, written as one coupled system (stages, multipliers, end point), with the
    /// model's first and second derivatives; one LU factorization of its Newton matrix and
    /// `2N + U` right-hand sides, no heap. It is the derivative of the map for any perturbation
    /// of `(q, v)`; for a constrained model, apply it to tangent directions
    /// ([`Integrator::tangent_basis`]) to linearize the motion on the constraint manifold.
    ///
    /// Methods: the SPARK family (`GaussLobatto<S>`, `LobattoIIIAB<S>`, `LobattoIIIABD<S>`,
    /// the symplectic Euler methods) on holonomic, nonholonomic and mixed Lagrangian models and
    /// on Hamiltonian and DAE models (for those the blocks are with respect to `(q, p)`, resp.
    /// `(y, z)`: `dv_*` is the momentum's row, `*_dv` its column), and `Emprk<S>`.
    /// `LobattoIIIABIndex2<S>` gives [`Error::Unsupported`]. On error `state` is unchanged.
    ///
    /// ```
    /// use spark::{GaussLobatto, Integrator, State};
    ///
    /// spark::mechanics! {
    ///     /// A damped oscillator pushed by `u`: x'' = −x − c x' + u.
    ///     pub struct Oscillator {
    ///         coordinates: [x],
    ///         velocities: [vx],
    ///         parameters: [c = 0.5],
    ///         inputs: [u],
    ///         lagrangian: 0.5 * vx.powi(2) - 0.5 * x.powi(2),
    ///         forces: [u],
    ///         dissipation: 0.5 * c * vx.powi(2),
    ///     }
    /// }
    ///
    /// let h = 0.1;
    /// let mut sim = Integrator::<Oscillator, GaussLobatto<2>>::new(Oscillator::default(), h).unwrap();
    /// let mut s = State::new(0.0, [1.0], [0.0]);
    /// let j = sim.step_with_jacobian(&mut s).unwrap();
    /// // A linear system: the step map is linear, and its Jacobian is the method's stability
    /// // matrix; for h → 0 it is I + h A with A = [[0, 1], [−1, −c]], B = [0; 1].
    /// assert!((j.dq_dv[(0, 0)] - h).abs() < 0.01);
    /// assert!((j.dv_dq[(0, 0)] + h).abs() < 0.01);
    /// assert!((j.dv_du[(0, 0)] - h).abs() < 0.01);
    /// assert!((s.t - h).abs() < 1e-15);
    /// ```
    pub fn step_with_jacobian<
        St: Linearize<Sys, N, M, K, U>,
        const N: usize,
        const M: usize,
        const K: usize,
        const U: usize,
    >(
        &mut self,
        state: &mut St,
    ) -> Result<StepJacobian<N, U>, Error> {
        if let Some(name) = self.sys.first_non_finite_parameter() {
            return Err(Error::NonFiniteParameter { name });
        }
        let (estimate, limit) = (
            St::jacobian_stack::<Meth>(),
            self.options.jacobian_stack_limit,
        );
        if estimate > limit {
            return Err(Error::JacobianTooLarge { estimate, limit });
        }
        let (next, stats, jacobian) = advance_with_jacobian::<Sys, Meth, St, N, M, K, U>(
            &self.sys,
            self.h,
            &self.options,
            state,
        )?;
        *state = next;
        self.last = stats;
        Ok(jacobian)
    }

    /// The stack, in bytes, that [`Integrator::step_with_jacobian`] is estimated to take from a
    /// state like `state` (optimized builds; see [`Options::jacobian_stack_limit`], which it is
    /// checked against).
    ///
    /// ```
    /// use spark::{GaussLobatto, Integrator, Options, State};
    ///
    /// spark::mechanics! {
    ///     pub struct Pendulum {
    ///         coordinates: [x, y],
    ///         velocities: [vx, vy],
    ///         lagrangian: 0.5 * (vx.powi(2) + vy.powi(2)) - 9.81 * y,
    ///         holonomic: [x.powi(2) + y.powi(2) - 1.0],
    ///     }
    /// }
    ///
    /// let sim = Integrator::<Pendulum, GaussLobatto<2>>::new(Pendulum::default(), 0.01).unwrap();
    /// let mut s = State::new(0.0, [1.0, 0.0], [0.0, 0.0]);
    /// let need = sim.jacobian_stack_estimate(&s);
    /// assert!(need < 64 << 10);
    /// // Below the estimate the Jacobian is refused, the state unchanged.
    /// let mut sim = sim.with_options(Options { jacobian_stack_limit: need - 1, ..Options::default() });
    /// assert!(sim.step_with_jacobian(&mut s).is_err());
    /// assert_eq!(s.t, 0.0);
    /// ```
    pub fn jacobian_stack_estimate<
        St: Linearize<Sys, N, M, K, U>,
        const N: usize,
        const M: usize,
        const K: usize,
        const U: usize,
    >(
        &self,
        _state: &St,
    ) -> usize {
        St::jacobian_stack::<Meth>()
    }

    /// An orthonormal basis of the tangent space, at `state`, of the manifold of consistent
    /// states `{ g = 0, g_t + G v = 0, k = 0 }`, of dimension `D = 2N − 2M − K` (a compile error
    /// otherwise): the directions in which a state can move and stay consistent to first order.
    ///
    /// **Minimal coordinates for LQR, MPC and estimators.** With the bases `T0` at a state `x0`
    /// and `T1` at its image `x1` (the same basis when `x0` is an equilibrium), the step's
    /// Jacobian reduced to the manifold is `A = T1ᵀ J T0` (`D × D`, with `J ξ` from
    /// [`StepJacobian::apply`] applied to the columns of `T0`) and `B = T1ᵀ [dq_du; dv_du]`
    /// (`D × U`). A reduced deviation `z = T0ᵀ (x − x0)` then evolves as `z⁺ ≈ A z + B δu`, a
    /// controllable and observable model of the right size, and a gain `K_r` computed for it acts
    /// on the full state as `δu = −K_r T0ᵀ (x − x0)` (`examples/cartpole_lqr.rs`).
    ///
    /// ```
    /// use spark::{GaussLobatto, Integrator, State};
    /// # spark::mechanics! {
    /// #     pub struct Pendulum {
    /// #         coordinates: [x, y],
    /// #         velocities: [vx, vy],
    /// #         parameters: [m = 1.0, l = 1.0, g = 9.81],
    /// #         lagrangian: 0.5 * m * (vx.powi(2) + vy.powi(2)) - m * g * y,
    /// #         holonomic: [x.powi(2) + y.powi(2) - l.powi(2)],
    /// #     }
    /// # }
    /// // (`Pendulum` as in the example of [`Integrator`].)
    /// let sim = Integrator::<Pendulum, GaussLobatto<2>>::new(Pendulum::default(), 0.01).unwrap();
    /// let s = State::new(0.0, [0.6, -0.8], [0.8, 0.6]);
    /// // N = 2, M = 1: a 2-dimensional tangent space (angle and angular velocity).
    /// let t = sim.tangent_basis::<2, 1, 0, 2>(&s).unwrap();
    /// // Each direction keeps |q| = 1 and q·v = 0 to first order.
    /// for j in 0..2 {
    ///     let (dq, dv) = (t.q.column(j), t.v.column(j));
    ///     assert!(s.q.dot(&dq).abs() < 1e-15);
    ///     assert!((s.v.dot(&dq) + s.q.dot(&dv)).abs() < 1e-15);
    /// }
    /// ```
    pub fn tangent_basis<const N: usize, const M: usize, const K: usize, const D: usize>(
        &self,
        state: &State<N>,
    ) -> Result<TangentBasis<N, D>, Error>
    where
        Sys: Lagrangian<N, M, K>,
    {
        tangent::tangent_basis::<Sys, N, M, K, D>(&self.sys, state)
    }

    /// Makes `state` consistent: moves the coordinates onto `g(t, q) = 0` (least change in
    /// coordinates), then the velocities (or momenta) onto the hidden constraint
    /// `g_t + G v = 0` and, for models with nonholonomic constraints, onto `k(t, q, v) = 0` too
    /// (for Lagrangian models with least change in kinetic energy, `g_t + G v = 0` and `k = 0`
    /// together). On error `state` is unchanged.
    ///
    /// ```
    /// use spark::{GaussLobatto, Integrator, State};
    /// # spark::mechanics! {
    /// #     pub struct Pendulum {
    /// #         coordinates: [x, y],
    /// #         velocities: [vx, vy],
    /// #         parameters: [m = 1.0, l = 1.0, g = 9.81],
    /// #         lagrangian: 0.5 * m * (vx.powi(2) + vy.powi(2)) - m * g * y,
    /// #         holonomic: [x.powi(2) + y.powi(2) - l.powi(2)],
    /// #     }
    /// # }
    /// // (`Pendulum` as in the example of [`Integrator`].)
    /// let sim = Integrator::<Pendulum, GaussLobatto<2>>::new(Pendulum::default(), 0.01).unwrap();
    /// let mut s = State::new(0.0, [1.1, 0.2], [0.3, 0.4]); // off the circle, not tangent
    /// sim.project(&mut s).unwrap();
    /// let (g, w) = sim.constraint_residual(&s);
    /// assert!(g < 1e-14 && w < 1e-14);
    /// ```
    pub fn project<St: Advance<Sys, M, K>, const M: usize, const K: usize>(
        &self,
        state: &mut St,
    ) -> Result<(), Error> {
        *state = St::consistent(&self.sys, state)?;
        Ok(())
    }

    /// The energy: `E = ∂L/∂v · v − L` for a Lagrangian model, `H` for a Hamiltonian one,
    /// NaN for a DAE model without one.
    pub fn energy<St: Advance<Sys, M, K>, const M: usize, const K: usize>(
        &self,
        state: &St,
    ) -> f64 {
        St::energy(&self.sys, state)
    }

    /// `(max |g(t, q)|, max(|g_t + G v|, |k(t, q, v)|))`: the holonomic constraints, and the
    /// hidden (velocity-level) constraints together with the nonholonomic ones. For Hamiltonian
    /// and DAE models `(max |g|, max |g_t + g_y v|)`.
    ///
    /// ```
    /// use spark::{GaussLobatto, Integrator, State};
    /// # spark::mechanics! {
    /// #     pub struct Pendulum {
    /// #         coordinates: [x, y],
    /// #         velocities: [vx, vy],
    /// #         parameters: [m = 1.0, l = 1.0, g = 9.81],
    /// #         lagrangian: 0.5 * m * (vx.powi(2) + vy.powi(2)) - m * g * y,
    /// #         holonomic: [x.powi(2) + y.powi(2) - l.powi(2)],
    /// #     }
    /// # }
    /// // (`Pendulum` as in the example of [`Integrator`].)
    /// let sim = Integrator::<Pendulum, GaussLobatto<2>>::new(Pendulum::default(), 0.01).unwrap();
    /// let s = State::new(0.0, [0.6, -0.8], [0.8, 0.6]);
    /// let (g, w) = sim.constraint_residual(&s);
    /// assert!(g < 1e-15 && w < 1e-15);
    /// assert!((sim.energy(&s) - (0.5 + 9.81 * -0.8)).abs() < 1e-12);
    /// ```
    pub fn constraint_residual<St: Advance<Sys, M, K>, const M: usize, const K: usize>(
        &self,
        state: &St,
    ) -> (f64, f64) {
        St::residual(&self.sys, state)
    }

    /// The constraint multipliers consistent with `state`: `λ` of the holonomic constraints and
    /// `ψ` of the nonholonomic ones (always empty for Hamiltonian and DAE models), solved from
    /// the equations of motion at `state` with the model's current parameters and inputs
    /// (forces included), so that the acceleration keeps the state on its constraints.
    ///
    /// **Reaction forces.** The constraints act on the coordinates with the generalized force
    /// `−G(t, q)ᵀ λ − k_v(t, q, v)ᵀ ψ` (`G = ∂g/∂q`, `k_v = ∂k/∂v`; for a Hamiltonian model
    /// `−Gᵀλ`, for a DAE model `r(t, y, λ)`). A holonomic constraint `|q|² − l² = 0` on a point
    /// mass has `G = 2qᵀ`, so the rod pulls with the force `−2 λ q` (its tension is `2 λ l`).
    /// Explicit time derivatives of the model (`∂²L/∂v∂t`, `∂w/∂t`, `∂k/∂t`) are taken by
    /// central differences (about 1e-10 relative; exact where the model does not depend on `t`).
    ///
    /// Errors: [`Error::NonFiniteState`], [`Error::NonFiniteParameter`],
    /// [`Error::SingularJacobian`] when the constraints are dependent at `state`.
    ///
    /// ```
    /// use spark::{GaussLobatto, Integrator, State};
    ///
    /// spark::mechanics! {
    ///     pub struct Pendulum {
    ///         coordinates: [x, y],
    ///         velocities: [vx, vy],
    ///         parameters: [m = 2.0, g = 9.81],
    ///         lagrangian: 0.5 * m * (vx.powi(2) + vy.powi(2)) - m * g * y,
    ///         holonomic: [x.powi(2) + y.powi(2) - 1.0],
    ///     }
    /// }
    ///
    /// let sim = Integrator::<Pendulum, GaussLobatto<2>>::new(Pendulum::default(), 0.01).unwrap();
    /// // Through the bottom with speed 3: the rod carries the weight and the centripetal force.
    /// let s = State::new(0.0, [0.0, -1.0], [3.0, 0.0]);
    /// let lambda = sim.multipliers(&s).unwrap().lambda[0];
    /// let reaction = -2.0 * lambda * s.q; // −Gᵀλ with G = (2x, 2y)
    /// let (m, g) = (2.0, 9.81);
    /// assert!((reaction[1] - (m * g + m * 3.0f64.powi(2))).abs() < 1e-9);
    /// assert!(reaction[0].abs() < 1e-12);
    /// ```
    pub fn multipliers<St: Advance<Sys, M, K>, const M: usize, const K: usize>(
        &self,
        state: &St,
    ) -> Result<Multipliers<M, K>, Error> {
        St::multipliers(&self.sys, state)
    }
}
