//! # spark
//!
//! Write a Lagrangian and its holonomic constraints in plain Rust expression syntax; the
//! [`mechanics!`] macro differentiates them symbolically at compile time and the runtime steps
//! the system with (s,s)-Gauss-Lobatto SPARK methods of order 2s, on the stack, with no heap.
//!
//! ```
//! spark::mechanics! {
//!     /// Planar pendulum in Cartesian coordinates.
//!     pub struct Pendulum {
//!         coordinates: [x, y],
//!         velocities: [vx, vy],
//!         parameters: [m = 1.0, l = 1.0, g = 9.81],
//!         lagrangian: 0.5 * m * (vx.powi(2) + vy.powi(2)) - m * g * y,
//!         holonomic: [x.powi(2) + y.powi(2) - l.powi(2)],
//!     }
//! }
//!
//! use spark::{GaussLobatto, Integrator, State};
//! # fn main() -> Result<(), spark::Error> {
//! let sys = Pendulum { m: 1.0, l: 1.0, g: 1.0 };
//! let mut sim = Integrator::<Pendulum, GaussLobatto<2>>::new(sys, 0.01)?;
//! let mut s = State::new(0.0, [1.0, 0.0], [0.0, 0.0]);
//! sim.project(&mut s)?;
//! let e0 = sim.energy(&s);
//! for _ in 0..1000 {
//!     sim.step(&mut s)?;
//! }
//! let (g, gv) = sim.constraint_residual(&s);
//! assert!(g < 1e-12 && gv < 1e-12);
//! assert!((sim.energy(&s) - e0).abs() < 1e-8);
//! # Ok(())
//! # }
//! ```
//!
//! See the README for the DSL reference, the methods and what is guaranteed.
#![no_std]

pub use spark_macros::mechanics;
pub use spark_runtime::{
    local_model, math, tableau, ConstraintJacobian, DynamicsJacobian, Emprk, Error, GaussLobatto,
    Integrator, Lagrangian, LobattoIIIAB, LobattoIIIABD, LobattoIIIABIndex2, LocalModelJacobians,
    LocalModelOde, LocalModelStats, Method, Model, Options, Phase, Rklm, SparkTableau, Srklm,
    State, StepStats, SymplecticEuler, SymplecticEulerI, SymplecticEulerII,
    VelocityConstraintJacobian,
};

/// Re-exports for the code that `mechanics!` generates. Not a public API.
#[doc(hidden)]
pub mod __private {
    pub use nalgebra;
    pub use spark_runtime as runtime;
    pub use spark_runtime::math;
}

pub use nalgebra;
pub use spark_runtime::{dae, hamiltonian, lobatto_index2, nonholonomic, state};
