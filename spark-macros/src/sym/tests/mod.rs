//! Tests of the symbolic engine.
//!
//! * `sexpr.rs` — an s-expression reader (the inverse of [`Arena::show`](super::Arena::show))
//!   and a random expression tree type shared by the property tests;
//! * `simplify.rs` — one-line tables of simplifications and symbolic derivatives;
//! * `derivatives.rs` — property tests of values, first and second derivatives against
//!   num-dual's hyper-dual numbers, and of the canonical form;
//! * `emission.rs` — structural tests of the emitted code.

mod derivatives;
mod emission;
mod sexpr;
mod simplify;
