//! The `mechanics!` macro of spark.
//!
//! Pipeline: `depth` (an iterative pre-scan bounding the nesting) → `parse` (syn, the DSL
//! surface) → `mechanism` (a `urdf:` or `mjcf:` file's bodies and joints rewritten into the DSL's
//! own fields) → `unroll` (arrays, loops, constants and helpers
//! rewritten into named scalars) → `model` (names resolved, expressions lowered
//! into the symbolic arena, all checks) → `expand` (derivatives and straight-line code).
//! Everything below the entry point works on `proc_macro2` so it can be unit-tested.

extern crate proc_macro;

mod check;
mod ctxt;
mod depth;
mod expand;
mod forces;
mod lower;
mod mechanism;
mod model;
mod params;
mod parse;
mod saddle;
mod sym;
mod unroll;

/// Defines a mechanical model: a struct holding its parameters, and the derivative code the
/// spark runtime needs to integrate it. Use it as `spark::mechanics!`: the generated code
/// refers to the `spark` crate, whose documentation of this macro holds the full DSL reference.
#[proc_macro]
pub fn mechanics(input: proc_macro::TokenStream) -> proc_macro::TokenStream {
    expand::expand(input.into()).into()
}
