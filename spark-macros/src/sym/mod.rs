//! The symbolic engine: a hash-consed expression DAG over `f64` with simplifying smart
//! constructors, symbolic differentiation, numeric evaluation and straight-line code
//! emission with common-subexpression elimination.
//!
//! * `node.rs` — [`Id`] and [`Node`] (the canonical form is documented on [`Node`]);
//! * `expr.rs` — [`Arena`]: node storage, hash-consing, queries;
//! * `simplify.rs` — the smart constructors (`add`, `mul`, `powi`, `sin`, ...) and all rewrite
//!   rules;
//! * `diff.rs` — [`Arena::diff`], one derivative rule per node kind;
//! * `eval.rs` — [`Arena::eval`] / [`Arena::eval_many`];
//! * `display.rs` — [`Arena::show`], s-expressions for tests and debugging;
//! * `emit.rs` — [`emit`], CSE and code generation.
//!
//! Variables are plain indices; the caller maps names to indices and indices to tokens.

// Goes once the macro uses the whole API (`eval`, `eval_many`, `show`, `len` are only used by
// tests so far).
#![allow(dead_code)]

mod diff;
mod display;
mod emit;
mod eval;
mod expr;
mod node;
mod simplify;

#[cfg(test)]
mod tests;

pub use emit::emit;
pub use expr::Arena;
pub use node::Id;
