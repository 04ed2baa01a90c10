//! How the SQP's line search backtracks ([`LineSearch`]) and how [`SqpRti::solve`] iterates
//! ([`SqpSettings`]), with their checks.
//!
//! [`SqpRti::solve`]: super::SqpRti::solve

use crate::control::error::{require, ControlError};

/// How many earlier plans the nonmonotone test compares with (Grippo, Lampariello and Lucidi,
/// 1986): a trial is accepted when it decreases the largest merit of the current plan and the
/// `MEMORY − 1` plans accepted before it, which lets a full step through near a solution
/// where the exact merit function rejects it (the Maratos effect).
pub(super) const MEMORY: usize = 5;

/// How [`SqpRti::iterate_with_line_search`](super::SqpRti::iterate_with_line_search) backtracks.
///
/// ```
/// use spark::control::sqp::LineSearch;
///
/// let search = LineSearch { shrink: 0.3, ..LineSearch::default() };
/// assert!(search.check().is_ok());
/// assert!(LineSearch { armijo: 1.0, ..search }.check().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LineSearch {
    /// Armijo's sufficient-decrease fraction `η`, in `(0, 1)` (default `1e-4`).
    pub armijo: f64,
    /// The factor the step length shrinks by after a rejected trial, in `(0, 1)` (default ½).
    pub shrink: f64,
    /// The most trials per iteration, at least 1 (default 30: lengths down to `2⁻²⁹`).
    pub trials: usize,
}

impl Default for LineSearch {
    fn default() -> Self {
        Self {
            armijo: 1e-4,
            shrink: 0.5,
            trials: 30,
        }
    }
}

impl LineSearch {
    /// `Err(InvalidArgument)` unless `0 < armijo < 1`, `0 < shrink < 1` and `trials ≥ 1`.
    pub fn check(&self) -> Result<(), ControlError> {
        require(
            self.armijo > 0.0 && self.armijo < 1.0,
            "LineSearch::armijo must be in (0, 1)",
        )?;
        require(
            self.shrink > 0.0 && self.shrink < 1.0,
            "LineSearch::shrink must be in (0, 1)",
        )?;
        require(self.trials >= 1, "LineSearch::trials must be at least 1")
    }
}

/// How [`SqpRti::solve`](super::SqpRti::solve) iterates and when it stops.
///
/// ```
/// use spark::control::sqp::SqpSettings;
///
/// let full_steps = SqpSettings { line_search: None, ..SqpSettings::default() };
/// assert!(full_steps.check().is_ok());
/// assert!(SqpSettings { step_tolerance: f64::NAN, ..full_steps }.check().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SqpSettings {
    /// The most SQP iterations, at least 1 (default 100).
    pub max_iterations: usize,
    /// Converged when the QP's step ([`SqpStats::step`](super::SqpStats::step)) is at most this (default `1e-8`)…
    pub step_tolerance: f64,
    /// …and the plan's largest defect ([`SqpStats::defect`](super::SqpStats::defect)) at most this (default `1e-10`).
    pub defect_tolerance: f64,
    /// The merit line search ([`SqpRti::iterate_with_line_search`](super::SqpRti::iterate_with_line_search); the default), or `None`
    /// for full steps ([`SqpRti::iterate`](super::SqpRti::iterate)).
    pub line_search: Option<LineSearch>,
}

impl Default for SqpSettings {
    fn default() -> Self {
        Self {
            max_iterations: 100,
            step_tolerance: 1e-8,
            defect_tolerance: 1e-10,
            line_search: Some(LineSearch::default()),
        }
    }
}

impl SqpSettings {
    /// `Err(InvalidArgument)` unless `max_iterations ≥ 1`, both tolerances are finite and not
    /// negative, and the line search passes [`LineSearch::check`].
    pub fn check(&self) -> Result<(), ControlError> {
        require(
            self.max_iterations >= 1,
            "SqpSettings::max_iterations must be at least 1",
        )?;
        let tolerance = |t: f64| t.is_finite() && t >= 0.0;
        require(
            tolerance(self.step_tolerance) && tolerance(self.defect_tolerance),
            "the tolerances of SqpSettings must be finite and not negative",
        )?;
        match &self.line_search {
            Some(search) => search.check(),
            None => Ok(()),
        }
    }
}
