//! Simulation with error control: local error estimates, adaptive step sizes, dense output
//! and events, over any [`crate::Integrator`].
//!
//! * [`crate::Integrator::step_with_estimate`]: one step with its estimated local error
//!   (Richardson extrapolation, `estimate`).
//! * [`crate::Integrator::advance_to`]: adaptive steps to an end time under
//!   [`crate::Options::rtol`] / [`crate::Options::atol`], PI control (`controller`).
//! * [`crate::Integrator::simulate`]: the same with dense output at requested times
//!   ([`DenseStep`] for Lagrangian states, [`OdaeDense`] for Hamiltonian and DAE states) and
//!   [`Event`]s located to `1e-13 · max(1, |t|)`.
//! * [`crate::Integrator::step_reversible`]: variable steps that keep a symmetric method's
//!   energy free of drift ([`Reversible`], Hairer and Söderlind's reversible control).
//!
//! This layer sits above [`crate::integrator`]: it uses the integrator's step, its state kinds
//! ([`crate::Advance`]) and its Richardson estimate, and nothing of it imports this layer.

mod controller;
mod dense;
pub(crate) mod drive;
mod events;
pub mod reversible;

pub use dense::{DenseStep, Interpolate, OdaeDense};
pub use drive::{AdvanceStats, ErrorEstimate};
pub use events::{Direction, Event, EventOn, Report, ReportOn};
pub use reversible::Reversible;
