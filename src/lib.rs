//! # spark
//!
//! Write a Lagrangian and its holonomic and nonholonomic constraints (or a Hamiltonian, or a
//! DAE) in plain Rust expression syntax; the
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
//! Nonholonomic (velocity) constraints go in a `nonholonomic: [...]` list next to
//! `holonomic`; the same integrator steps them with the method chosen by type:
//!
//! ```
//! spark::mechanics! {
//!     /// A particle whose velocity obeys k = v3 − q2 v1 = 0.
//!     pub struct Particle {
//!         coordinates: [q1, q2, q3],
//!         velocities: [v1, v2, v3],
//!         lagrangian: 0.5 * (v1.powi(2) + v2.powi(2) + v3.powi(2)) - (q1.powi(2) + q2.powi(2)),
//!         nonholonomic: [v3 - q2 * v1],
//!     }
//! }
//!
//! use spark::{Emprk, Integrator, LobattoIIIABD, State};
//! # fn main() -> Result<(), spark::Error> {
//! let mut gauss = Integrator::<Particle, Emprk<2>>::new(Particle {}, 0.1)?;
//! let mut lobatto = Integrator::<Particle, LobattoIIIABD<3>>::new(Particle {}, 0.1)?;
//! let mut a = State::new(0.0, [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]);
//! let mut b = a;
//! for _ in 0..100 {
//!     gauss.step(&mut a)?;
//!     lobatto.step(&mut b)?;
//! }
//! assert!(gauss.constraint_residual(&a).1 < 1e-12 && lobatto.constraint_residual(&b).1 < 1e-12);
//! # Ok(())
//! # }
//! ```
//!
//! Methods: [`GaussLobatto`] (order 2S, any mix of constraints), [`Emprk`] (order 2S),
//! [`LobattoIIIAB`] and [`LobattoIIIABD`] (order 2S − 2), [`LobattoIIIABIndex2`] (paper 002,
//! nonholonomic only), [`SymplecticEuler`], [`SymplecticEulerI`], [`SymplecticEulerII`] (order 1),
//! and [`Rklm`] / [`Srklm`] for ODEs with local models. The DSL (every field, the supported
//! functions, what is generated) is documented on [`mechanics!`]; the README lists each method's
//! properties and the tests that check every guarantee.
#![no_std]

#[doc = include_str!("dsl.md")]
pub use spark_macros::mechanics;
pub use spark_runtime::{
    local_model, math, tableau, Advance, AdvanceStats, ConstraintJacobian, DynamicsJacobian, Emprk,
    Error, ErrorEstimate, GaussLobatto, InputJacobian, Inputs, Integrator, Lagrangian, Linearize,
    LobattoIIIAB, LobattoIIIABD, LobattoIIIABIndex2, LocalModelJacobians, LocalModelOde,
    LocalModelStats, MassForce, Method, Model, Multipliers, NonholonomicJacobian, Options, Phase,
    Rklm, Run, SparkTableau, Srklm, State, StepJacobian, StepStats, SymplecticEuler,
    SymplecticEulerI, SymplecticEulerII, TangentBasis, VelocityConstraint,
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
pub use spark_runtime::model::saddle;
pub use spark_runtime::{
    control, convert, dae, geometry, hamiltonian, lobatto_index2, simulate, state, step,
};
pub use spark_runtime::{control::linearize::Linearization, Dimensions};
