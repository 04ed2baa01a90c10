//! Control on the constraint manifold, `no_std` and heap-free: linearizations as matrices on a
//! tangent basis that is continuous along a trajectory, and an optimal-control layer built on
//! them. Every size is a const parameter that the model fixes ([`crate::Dimensions`]); every
//! buffer lives in a value the caller owns.
//!
//! * [`vector`]: a state `(q, v)` as one vector of length `X = 2N`; the step's Jacobian as the
//!   matrices `Φ` (`X × X`) and `Γ` (`X × U`);
//! * [`basis`]: tangent bases as `X × D` matrices, transported from one state to the next (and
//!   across a projection) so that gains and covariances carry over;
//! * [`linearize`]: `Integrator` methods: the tangent basis without turbofish, one step with
//!   its reduced `(A, B)`, the continuous-time dynamics `f(x, u)` and their Jacobians;
//! * [`equilibrium`]: the inputs that hold a model still at a configuration (gravity
//!   compensation, closed loops included), a first guess users need not derive;
//! * [`error`]: the control layer's error, [`error::ControlError`];
//! * [`dense`]: the small dense factorizations the rest uses (Cholesky, LU inverse, polar);
//! * [`lqr`]: discrete LQR (finite-horizon Riccati recursion, the infinite-horizon gain);
//! * [`cost`]: stage and terminal costs (quadratic, or the user's own, e.g. on task-space
//!   outputs by Gauss–Newton);
//! * [`task`]: task-space costs (a body's point and orientation tracking moving targets)
//!   from the model's pose Jacobians, by Gauss–Newton;
//! * [`boxqp`]: the box-constrained QP of the backward pass (projected Newton);
//! * [`ilqr`]: iLQR / box-DDP over a horizon `H`;
//! * [`nmpc`]: the NMPC driver (shift, warm start with the previous policy, real-time
//!   iterations);
//! * [`riccati_qp`]: the stage-wise QP of multiple shooting with input bounds, by a primal
//!   active-set method on Riccati recursions (`O(H)` per iteration);
//! * [`sqp`]: NMPC by SQP real-time iterations over multiple shooting (preparation before the
//!   measurement, feedback = one QP solve, warm start by shifting);
//! * [`state_bounds`]: soft bounds on the state along an SQP plan;
//! * [`ekf`]: an extended Kalman filter on the tangent space.

pub mod basis;
pub mod boxqp;
pub mod cost;
pub mod dense;
pub mod ekf;
pub mod equilibrium;
pub mod error;
pub mod ilqr;
pub mod linearize;
pub mod lqr;
pub mod nmpc;
pub mod riccati_qp;
pub mod sqp;
pub mod state_bounds;
pub mod task;
pub mod vector;
