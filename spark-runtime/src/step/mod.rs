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
mod coupled_iteration;
pub(crate) mod coupled_layout;
mod coupled_matrix;
mod coupled_motion;
mod coupled_scheme;
pub mod emprk;
mod emprk_layout;
mod emprk_structured;
pub(crate) mod factoring;
pub(crate) mod gradient;
pub mod holonomic;
pub mod index2;
mod index2_structured;
pub mod jacobian;
pub mod local_model;
pub mod mixed;
pub mod multipliers;
pub mod odae;
pub(crate) mod odae_jacobian;
pub(crate) mod ordering;
pub(crate) mod problem;
pub(crate) mod project;
mod stage_matrix;
pub(crate) mod start;
pub mod tangent;

use crate::error::Error;
use crate::model::{Lagrangian, Odae, State};
use crate::options::{Options, StepStats};
use crate::tableau::Scheme;

pub use odae::Point;
pub use problem::Problem;

impl<Sys: Lagrangian<N, M, K>, const N: usize, const M: usize, const K: usize>
    Problem<'_, Sys, N, M, K>
{
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

/// Asserts the orders of a predictor of the stage velocities from its largest errors at
/// h = 0.04, 0.02, 0.01, as `(linear acceleration, constant acceleration)`: about 3 and 2
/// (halving h divides them by about 8 and 4), the linear one five times smaller at least.
/// Shared by the holonomic step's and the coupled step's prediction tests.
#[cfg(test)]
pub(crate) fn assert_prediction_orders(errors: &[(f64, f64); 3]) {
    for k in 0..2 {
        let linear = (errors[k].0 / errors[k + 1].0).log2();
        let constant = (errors[k].1 / errors[k + 1].1).log2();
        assert!(
            (linear - 3.0).abs() < 0.25,
            "linear acceleration: order {linear} ({errors:?})"
        );
        assert!(
            (constant - 2.0).abs() < 0.25,
            "constant acceleration: order {constant} ({errors:?})"
        );
        assert!(errors[k].0 < 0.2 * errors[k].1, "{:?}", errors[k]);
    }
}
