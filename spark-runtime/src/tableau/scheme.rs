//! What a method is, as data: the family of step equations it uses and their coefficients.
//! The step layer reads a [`Scheme`] to choose the step for each kind of model; the method types
//! (`crate::GaussLobatto`, …) each hold one as a constant.

use crate::tableau::emprk::EmprkTableau;
use crate::tableau::index2::Index2Tableau;
use crate::tableau::spark::SparkTableau;

/// The model kinds a SPARK-family method refuses, each with the reason reported in
/// `Error::Unsupported` (`None`: supported).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Refusals {
    /// Models with holonomic constraints (`M > 0`).
    pub holonomic: Option<&'static str>,
    /// Lagrangian models with nonholonomic constraints (`K > 0`).
    pub nonholonomic: Option<&'static str>,
    /// Hamiltonian and DAE models.
    pub dae: Option<&'static str>,
}

impl Refusals {
    /// Every model kind supported.
    pub const NONE: Self = Self {
        holonomic: None,
        nonholonomic: None,
        dae: None,
    };
}

/// A method's family and coefficients.
///
/// ```
/// use spark_runtime::tableau::Scheme;
/// use spark_runtime::GaussLobatto;
/// assert!(matches!(GaussLobatto::<2>::SCHEME, Scheme::Spark { .. }));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scheme<const S: usize> {
    /// An (s, s̃)-SPARK method (Jay 2007, Definition 3.1; nonholonomic constraints as in Jay's
    /// Lagrange-d'Alembert SPARK methods): the two-phase holonomic step, the coupled mixed step
    /// (when the model has nonholonomic constraints) and the DAE step, all with `tableau`.
    Spark {
        /// The coefficients.
        tableau: SparkTableau<S>,
        /// Model kinds the method does not apply to.
        refuses: Refusals,
    },
    /// The (s,s)-Gauss-Lobatto EMPRK method (Small 2011, Definition 6.2.1): its own step on
    /// nonholonomic constraints, the SPARK steps with `tableau.spark` otherwise.
    Emprk {
        /// The coefficients.
        tableau: EmprkTableau<S>,
    },
    /// Paper 002's Lobatto IIIA-B method for index-2 (nonholonomic-only) models; without any
    /// constraint it is the SPARK step with `unconstrained`. Refuses holonomic constraints and
    /// DAE models.
    Index2 {
        /// The coefficients.
        tableau: Index2Tableau<S>,
        /// The SPARK coefficients of the same method on unconstrained models.
        unconstrained: SparkTableau<S>,
    },
}
