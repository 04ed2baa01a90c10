//! The control inputs of a model: how many there are, and the derivatives with respect to them.

use nalgebra::SVector;

use crate::model::blocks::InputJacobian;

/// A model with `U` control inputs (`U = 0` allowed): fields of the model that a controller sets
/// between steps and that each step holds constant. `mechanics!` implements it for every
/// Lagrangian model (the inputs are its `inputs: [...]`); the step's Jacobian with respect to
/// the inputs ([`crate::Integrator::step_with_jacobian`]) needs it.
///
/// ```
/// use spark::Inputs;
///
/// spark::mechanics! {
///     pub struct Cart {
///         coordinates: [x],
///         velocities: [vx],
///         parameters: [m = 2.0],
///         inputs: [push],
///         lagrangian: 0.5 * m * vx.powi(2),
///         forces: [push],
///     }
/// }
///
/// let cart = Cart { push: 3.0, ..Cart::default() };
/// assert_eq!(Inputs::<1, 1>::inputs(&cart)[0], 3.0);
/// let q = spark::nalgebra::SVector::<f64, 1>::zeros();
/// let j = cart.input_jacobian(0.0, &q, &q);
/// assert_eq!(j.f_u[(0, 0)], 1.0); // ∂(push)/∂push
/// ```
pub trait Inputs<const N: usize, const U: usize> {
    /// The inputs' current values, in the order of `inputs: [...]`.
    fn inputs(&self) -> SVector<f64, U>;

    /// `∂p/∂u` and `∂f/∂u` at `(t, q, v)`.
    fn input_jacobian(
        &self,
        t: f64,
        q: &SVector<f64, N>,
        v: &SVector<f64, N>,
    ) -> InputJacobian<N, U>;
}
