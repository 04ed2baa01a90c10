//! Linear algebra and Newton bookkeeping on stack buffers: no model, no method.
//!
//! * [`lu`]: dense LU and the small factored blocks the steps eliminate with;
//! * [`layout`]: fixed-size flat buffers whose length is a sum of products of const generics;
//! * `newton`: the convergence, stall and divergence tests shared by every solve, and the
//!   simplified-then-full Newton fallback;
//! * `dense_newton`: Newton's method on one monolithic system with a dense Jacobian;
//! * `attainable`: the accuracy a Newton iteration can attain (rounding through the matrix);
//! * `saddle`: saddle-point systems `[[W, Bᵀ], [B, 0]]`.

pub(crate) mod attainable;
pub(crate) mod dense_newton;
pub mod layout;
pub mod lu;
pub(crate) mod newton;
pub(crate) mod saddle;
pub(crate) mod vector;
