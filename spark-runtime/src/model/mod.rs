//! The model contract: what a model is (its sizes, as const parameters of its trait) and what it
//! evaluates, and the states the integrators advance. Nothing here chooses or calls a step.
//!
//! * [`Model`]: facts common to every model (parameters);
//! * [`Lagrangian`]: `L(t, q, v)` with `M` holonomic and `K` nonholonomic constraints;
//! * [`Odae`]: the overdetermined DAE (2.11) (Hamiltonian and general DAE models);
//! * [`Dimensions`]: every size a Lagrangian model fixes, for inference;
//! * [`Inputs`]: the control inputs of a model and the derivatives with respect to them;
//! * [`bodies`]: models made of bodies: world poses and their Jacobians ([`bodies::Bodies`]);
//! * [`blocks`]: the values and derivatives a model returns at one point;
//! * [`saddle`]: room for a model's own sparse factorization of a step's Newton matrix;
//! * [`State`], [`hamiltonian::State`], [`dae::State`]: the three state kinds.

pub mod blocks;
pub mod bodies;
pub mod dae;
mod dimensions;
pub mod hamiltonian;
mod inputs;
mod lagrangian;
mod odae;
pub mod saddle;
pub mod state;

pub use dimensions::Dimensions;
pub use inputs::Inputs;
pub use lagrangian::Lagrangian;
pub use odae::Odae;
pub use state::State;

/// Facts about a model that do not depend on its sizes.
///
/// ```
/// use spark_runtime::Model;
/// struct Spring { k: f64 }
/// impl Model for Spring {
///     fn first_non_finite_parameter(&self) -> Option<&'static str> {
///         (!self.k.is_finite()).then_some("k")
///     }
/// }
/// assert_eq!(Spring { k: f64::NAN }.first_non_finite_parameter(), Some("k"));
/// ```
pub trait Model {
    /// Name of the first parameter whose value is not finite, if any.
    fn first_non_finite_parameter(&self) -> Option<&'static str>;
}
