//! [`Problem`]: one step to take on a Lagrangian model. The step families add their methods to
//! it, each in its own file; `step/mod.rs` chooses among them.

use crate::model::{Lagrangian, State};
use crate::options::Options;

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
}
