//! What can go wrong in a control computation.

use crate::error::Error;

/// An error of the control layer: a step, a projection or a basis failed ([`Error`]), a
/// matrix that must be positive definite is not, or an iteration did not converge.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ControlError {
    /// A step, projection or tangent basis failed.
    Step(Error),
    /// A matrix that must be symmetric positive definite is not (an input weight `R`, the
    /// `Q_uu` of a backward pass even at the largest regularization, an innovation covariance).
    NotPositiveDefinite {
        /// Which matrix.
        what: &'static str,
    },
    /// An iteration (the Riccati equation, a line search) did not converge within its budget.
    NoConvergence {
        /// Which iteration.
        what: &'static str,
        /// How many iterations were made.
        iterations: usize,
    },
    /// An argument is not usable (bounds with `lo > hi`, a non-finite weight): the call
    /// changed nothing; `what` says which argument and what it must be.
    InvalidArgument {
        /// What is wrong, and what the argument must be.
        what: &'static str,
    },
    /// A quantity computed from valid arguments is not finite (an overflow, or a model or
    /// cost evaluation that returned NaN or ±∞ at a state the iteration reached).
    NonFinite {
        /// Which quantity.
        what: &'static str,
    },
}

impl From<Error> for ControlError {
    fn from(e: Error) -> Self {
        Self::Step(e)
    }
}

/// `Err(InvalidArgument { what })` unless `ok`.
pub(crate) fn require(ok: bool, what: &'static str) -> Result<(), ControlError> {
    if ok {
        Ok(())
    } else {
        Err(ControlError::InvalidArgument { what })
    }
}

impl core::fmt::Display for ControlError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::Step(e) => write!(f, "{e}"),
            Self::NotPositiveDefinite { what } => write!(f, "{what} is not positive definite"),
            Self::NoConvergence { what, iterations } => {
                write!(f, "{what} did not converge in {iterations} iterations")
            }
            Self::InvalidArgument { what } => write!(f, "invalid argument: {what}"),
            Self::NonFinite { what } => write!(f, "{what} is not finite"),
        }
    }
}

impl core::error::Error for ControlError {}
