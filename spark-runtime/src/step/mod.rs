//! The step families, and the choice among them.
//!
//! A method is a [`Scheme`] (data); a model is a [`Lagrangian`] or an [`Odae`] with its sizes as
//! const parameters. [`Problem::step`] (Lagrangian models) and `dae` (Hamiltonian and DAE
//! models) pick the step for the pair at compile time (the scheme is a constant and the sizes
//! are const parameters, so the choice folds away):
//!
//! | model | `Scheme::Spark` | `Scheme::Emprk` | `Scheme::Index2` |
//! |---|---|---|---|
//! | Lagrangian, `K = 0` | [`holonomic`] (two phases) | [`holonomic`] | [`holonomic`] (`M = 0` only) |
//! | Lagrangian, `K > 0` | [`mixed`] | [`emprk`] | [`index2`] (`M = 0` only) |
//! | Hamiltonian, DAE | [`odae`] | [`odae`] | refused |
//!
//! The momentum-balance rows and constraint rows that the coupled steps ([`mixed`], [`emprk`],
//! [`index2`]) and the holonomic step's exact Newton matrix share are written once, in
//! `assembly`.

pub(crate) mod assembly;
pub mod emprk;
pub(crate) mod factoring;
pub(crate) mod gradient;
pub mod holonomic;
pub mod index2;
pub mod jacobian;
pub mod local_model;
pub mod mixed;
pub mod multipliers;
pub mod odae;
pub(crate) mod odae_jacobian;
pub(crate) mod ordering;
pub(crate) mod project;
mod stage_matrix;
pub(crate) mod start;
pub mod tangent;

use crate::error::Error;
use crate::model::{Lagrangian, Odae, State};
use crate::options::{Options, StepStats};
use crate::tableau::Scheme;

pub use odae::Point;

/// One step to take on a Lagrangian model with `M` holonomic and `K` nonholonomic constraints:
/// the model, the step size, the solver settings and the start state. The step families are its
/// methods, each in its own file ([`Problem::holonomic`], [`Problem::mixed`],
/// [`Problem::emprk`], [`Problem::index2_with_multiplier`]); [`Problem::step`] chooses among
/// them. Every step leaves the start state untouched and returns the new one.
///
/// ```
/// use spark_runtime::step::Problem;
/// use spark_runtime::{GaussLobatto, Options, State};
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
/// let (sys, options) = (Pendulum::default(), Options::default());
/// let start = State::new(0.0, [1.0, 0.0], [0.0, 0.0]);
/// let problem = Problem::<_, 2, 1, 0>::new(&sys, 0.01, &options, &start);
/// let (next, _stats) = problem.holonomic(&GaussLobatto::<2>::TABLEAU).unwrap();
/// assert!((next.q.norm() - 1.0).abs() < 1e-12);
/// assert_eq!(problem.step(&GaussLobatto::<2>::SCHEME).unwrap().0, next);
/// ```
#[derive(Debug)]
pub struct Problem<'a, Sys, const N: usize, const M: usize, const K: usize> {
    /// The model.
    pub sys: &'a Sys,
    /// The step size (negative: backwards).
    pub h: f64,
    /// The solver settings.
    pub options: &'a Options,
    /// The start of the step.
    pub state: &'a State<N>,
}

impl<Sys, const N: usize, const M: usize, const K: usize> Clone for Problem<'_, Sys, N, M, K> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<Sys, const N: usize, const M: usize, const K: usize> Copy for Problem<'_, Sys, N, M, K> {}

impl<'a, Sys: Lagrangian<N, M, K>, const N: usize, const M: usize, const K: usize>
    Problem<'a, Sys, N, M, K>
{
    /// The step of size `h` from `state`.
    pub fn new(sys: &'a Sys, h: f64, options: &'a Options, state: &'a State<N>) -> Self {
        Self {
            sys,
            h,
            options,
            state,
        }
    }

    /// One step of the method `scheme`. Nothing is modified on error.
    #[inline(always)]
    pub fn step<const S: usize>(&self, scheme: &Scheme<S>) -> Result<(State<N>, StepStats), Error> {
        match scheme {
            Scheme::Spark { tableau, refuses } => {
                if let (true, Some(what)) = (M > 0, refuses.holonomic) {
                    return Err(Error::Unsupported { what });
                }
                if K == 0 {
                    self.holonomic(tableau)
                } else if let Some(what) = refuses.nonholonomic {
                    Err(Error::Unsupported { what })
                } else {
                    self.mixed(tableau)
                }
            }
            Scheme::Emprk { tableau } => {
                if K == 0 {
                    self.holonomic(&tableau.spark)
                } else {
                    self.emprk(tableau)
                }
            }
            Scheme::Index2 {
                tableau,
                unconstrained,
            } => {
                if M > 0 {
                    Err(index2::HOLONOMIC)
                } else if K == 0 {
                    // Without constraints (2.5) is the Lobatto IIIA-IIIB pair.
                    self.holonomic(unconstrained)
                } else {
                    let psi0 = self.consistent_multiplier()?;
                    self.index2_with_multiplier(tableau, &psi0)
                        .map(|(next, _, stats)| (next, stats))
                }
            }
        }
    }
}

/// One step of the method `scheme` on a model given as the DAE (2.11) (Hamiltonian and DAE
/// models). Nothing is modified on error.
#[inline(always)]
pub(crate) fn dae<Sys: Odae<N, M>, const N: usize, const M: usize, const S: usize>(
    scheme: &Scheme<S>,
    sys: &Sys,
    h: f64,
    options: &Options,
    start: &Point<N, M>,
) -> Result<(Point<N, M>, StepStats), Error> {
    match scheme {
        Scheme::Spark { tableau, refuses } => match refuses.dae {
            Some(what) => Err(Error::Unsupported { what }),
            None => odae::step(tableau, sys, h, options, start),
        },
        Scheme::Emprk { tableau } => odae::step(&tableau.spark, sys, h, options, start),
        Scheme::Index2 { .. } => Err(Error::Unsupported {
            what: "LobattoIIIABIndex2 on Hamiltonian or DAE models",
        }),
    }
}
