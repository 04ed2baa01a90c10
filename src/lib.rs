//! # spark
//!
//! spark turns a mechanism (a robot file, bodies and joints written in Rust, or a Lagrangian
//! with its constraints) into an exact, heap-free integrator. The [`mechanics!`] macro builds
//! the model's equations and their derivatives symbolically at compile time; the runtime steps
//! them with L. O. Jay's SPARK methods: order 2s, symmetric, symplectic, on the constraint
//! manifold to round-off after every step, with the step's exact Jacobian for control. The
//! runtime is `#![no_std]` without an allocator and runs on a Cortex-M4F or M7.
//!
//! ## A robot from a file, stepped and drawn
//!
//! An MJCF or URDF file is read at compile time (the path is relative to the crate's
//! `Cargo.toml`): its joints become the coordinates (MuJoCo's `qpos`), its actuators the
//! inputs, its geoms the drawing. The `spark-viewer` crate writes what moved as one HTML file
//! that any browser plays (or, with its feature `rerun`, a Rerun recording).
//!
//! ```
//! use spark::{GaussLobatto, Integrator, State};
//!
//! spark::mechanics! {
//!     /// A four-joint arm with motors, read from an MJCF file.
//!     pub struct Arm {
//!         mjcf: "tests/models/viewer_arm.xml",
//!     }
//! }
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let mut sim = Integrator::<Arm, GaussLobatto<2>>::new(Arm::default(), 0.002)?;
//! let mut s = State::new(0.0, [0.0, 0.6, 0.9, 0.0], [0.0; 4]); // qpos, qvel
//! assert_eq!(Arm::COORDINATE_NAMES, ["yaw", "shoulder", "elbow", "wrist"]);
//! let mut movie = spark_viewer::Recording::new("arm", &Arm::GEOMETRY);
//! for n in 0..500 {
//!     if n % 5 == 0 {
//!         movie.frame(s.t, &Arm::body_poses(&s.q))?;
//!     }
//!     sim.system_mut().shoulder_motor = 0.5; // an actuator's control, by its name
//!     sim.step(&mut s)?;
//! }
//! let qacc = sim.acceleration(&s)?; // forward dynamics, as MuJoCo's mj_forward gives qacc
//! # let _ = qacc;
//! # let path = std::env::temp_dir().join(format!("spark-front-page-{}.html", std::process::id()));
//! movie.write_html(&path)?; // open it in a browser: orbit, play, scrub
//! # std::fs::remove_file(&path)?;
//! # Ok(())
//! # }
//! ```
//!
//! Of the MuJoCo Menagerie's 76 robot files, 70 are read as shipped; the accelerations agree
//! with MuJoCo's and Pinocchio's to 1e-13 or better (the README's "Robots from URDF and MJCF
//! files" has the list and the measurements; the supported elements are in [`mechanics!`]'s
//! documentation).
//!
//! ## Bodies and joints in Rust
//!
//! The same tree, written in the macro: bodies with their inertia, joints between them, and
//! loop closures (`Connect`, `Weld`) kept to round-off as holonomic constraints.
//!
//! ```
//! use spark::{GaussLobatto, Integrator, State};
//!
//! spark::mechanics! {
//!     /// A double pendulum of two rods on parallel hinges.
//!     pub struct Double {
//!         bodies: {
//!             upper: Body { mass: 1.0, com: [0.0, 0.0, -0.5], inertia: [0.08, 0.08, 0.001] },
//!             lower: Body { mass: 0.5, com: [0.0, 0.0, -0.5], inertia: [0.04, 0.04, 0.001] },
//!         },
//!         joints: {
//!             shoulder: Revolute { parent: world, child: upper, axis: [0.0, 1.0, 0.0] },
//!             elbow: Revolute { parent: upper, child: lower, origin: [0.0, 0.0, -1.0], axis: [0.0, 1.0, 0.0] },
//!         },
//!     }
//! }
//!
//! # fn main() -> Result<(), spark::Error> {
//! let mut sim = Integrator::<Double, GaussLobatto<2>>::new(Double::default(), 0.005)?;
//! let mut s = State::new(0.0, [1.0, -0.5], [0.0, 0.0]);
//! let e0 = sim.energy(&s);
//! for _ in 0..2000 {
//!     sim.step(&mut s)?;
//! }
//! assert!((sim.energy(&s) - e0).abs() < 1e-6 * e0.abs()); // no drift over 10 s
//! # Ok(())
//! # }
//! ```
//!
//! ## A Lagrangian by hand
//!
//! Any coordinates, any Lagrangian, holonomic constraints in `holonomic: [...]` and velocity
//! (nonholonomic) ones in `nonholonomic: [...]`; or a Hamiltonian, or a DAE.
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
//! Nonholonomic constraints are stepped by the method chosen by type:
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
//! ## Control
//!
//! [`control`] works on the constraint manifold with the step's exact Jacobian, heap-free:
//! [`control::lqr::dare`], box-constrained DDP ([`control::ilqr::Ilqr`]), NMPC by real-time
//! iterations ([`control::nmpc::Nmpc`], which never aborts a control period) and an EKF
//! ([`control::ekf::Ekf`]); [`Integrator::step_with_jacobian`] and [`Integrator::linearize`]
//! give the derivatives for one's own. Each module's page has a complete example.
//!
//! ## Many runs
//!
//! The `spark-ensemble` crate runs a simulation or a controller over many drawn plants or
//! parameters across the cores, with a progress bar, and writes one row per run (its status,
//! its draws, its results) to a Parquet file for pandas, polars or DuckDB.
//!
//! ## Methods
//!
//! [`GaussLobatto`] (order 2S, any mix of constraints), [`Emprk`] (order 2S),
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
pub use spark_runtime::model::bodies::{self, Bodies, BodyJacobian, JointMotion};
pub use spark_runtime::model::saddle;
pub use spark_runtime::{
    control, convert, dae, geometry, hamiltonian, lobatto_index2, simulate, state, step,
};
pub use spark_runtime::{control::linearize::Linearization, Dimensions};
