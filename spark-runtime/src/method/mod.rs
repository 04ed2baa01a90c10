//! The method types users choose as the second type parameter of [`crate::Integrator`], and the
//! [`Method`] trait that describes them.
//!
//! A method is data: its family and coefficients (a [`Scheme`]), computed at compile time. It
//! does not step anything itself; the step layer (`crate::step`) reads the scheme and picks the
//! step for the model's kind and sizes. A new method is one zero-sized type with a `SCHEME`
//! constant and a two-line [`Method`] impl.

mod emprk;
mod index2;
mod spark;

pub use emprk::Emprk;
pub use index2::LobattoIIIABIndex2;
pub use spark::{
    GaussLobatto, LobattoIIIAB, LobattoIIIABD, SymplecticEuler, SymplecticEulerI, SymplecticEulerII,
};

use crate::tableau::Scheme;

/// A one-step method: its order and its [`Scheme`].
///
/// Implemented by the method types ([`GaussLobatto`], [`Emprk`], …). A method's stage count
/// `S` is a const parameter of its scheme, which stable Rust cannot name in an associated item
/// of a trait without it; so the scheme is handed to a [`Run`] visitor instead of returned.
///
/// ```
/// use spark_runtime::{Emprk, GaussLobatto, LobattoIIIAB, Method};
/// assert_eq!(<GaussLobatto<3> as Method>::ORDER, 6);
/// assert_eq!(<LobattoIIIAB<3> as Method>::ORDER, 4);
/// assert_eq!(<Emprk<2> as Method>::ORDER, 4);
/// ```
pub trait Method {
    /// Classical order of the method on holonomically constrained Lagrangian systems.
    const ORDER: usize;

    /// Hands the method's scheme to `run`.
    fn run<R: Run>(run: R) -> R::Output;
}

/// Something to do with a method's [`Scheme`], whatever its stage count: the integrator's
/// steps, or reading the coefficients.
///
/// ```
/// use spark_runtime::tableau::Scheme;
/// use spark_runtime::{GaussLobatto, Method, Run};
///
/// /// The stage count of a method.
/// struct Stages;
/// impl Run for Stages {
///     type Output = usize;
///     fn run<const S: usize>(self, _scheme: &Scheme<S>) -> usize {
///         S
///     }
/// }
/// assert_eq!(GaussLobatto::<3>::run(Stages), 3);
/// ```
pub trait Run {
    /// What the visit returns.
    type Output;
    /// Does the work with the method's scheme.
    fn run<const S: usize>(self, scheme: &Scheme<S>) -> Self::Output;
}
