//! Time of `mechanics!`'s expansion (parse, checks, differentiation, emission) for the models in
//! `examples/models/` (the seven-body mechanism and the N-link chains), measured on the macro's own code outside the compiler.
//!
//! `cargo bench -p spark-macros --bench expansion`
//!
//! A proc-macro crate exports only macros, so the macro's modules are compiled into this bench
//! directly.

// The macro's own unit tests come along (and are unused) when this crate is built as a test.
#![allow(dead_code, unused_imports)]

#[path = "../src/check.rs"]
mod check;
#[path = "../src/ctxt.rs"]
mod ctxt;
#[path = "../src/expand.rs"]
mod expand;
#[path = "../src/forces.rs"]
mod forces;
#[path = "../src/lower.rs"]
mod lower;
#[path = "../src/model.rs"]
mod model;
#[path = "../src/parse.rs"]
mod parse;
#[path = "../src/sym/mod.rs"]
mod sym;
#[path = "../src/unroll.rs"]
mod unroll;

use std::time::Instant;

/// The struct name and the tokens inside every `mechanics! { ... }` of a Rust source file.
fn model_tokens(path: &str) -> Vec<(String, proc_macro2::TokenStream)> {
    let src = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let file = syn::parse_file(&src).expect("the model file parses");
    let mut out = Vec::new();
    for item in file.items {
        if let syn::Item::Macro(m) = item {
            if m.mac
                .path
                .segments
                .last()
                .is_some_and(|s| s.ident == "mechanics")
            {
                let name = m
                    .mac
                    .tokens
                    .clone()
                    .into_iter()
                    .skip_while(|t| t.to_string() != "struct")
                    .nth(1)
                    .map_or_else(|| "?".to_string(), |t| t.to_string());
                out.push((name, m.mac.tokens));
            }
        }
    }
    assert!(!out.is_empty(), "{path}: no mechanics! invocation");
    out
}

fn main() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/models/");
    // seven_body.rs: Andrews' squeezing mechanism; chain.rs: the N-link chains (N = 1 .. 16)
    // of the CasADi peer benchmark (docs/performance.md).
    for file in ["seven_body", "chain"] {
        for (name, tokens) in model_tokens(&format!("{root}{file}.rs")) {
            let mut times = Vec::new();
            let mut size = 0;
            for _ in 0..21 {
                let start = Instant::now();
                let out = expand::expand(tokens.clone());
                times.push(start.elapsed().as_secs_f64());
                size = out.to_string().len();
            }
            times.sort_by(f64::total_cmp);
            println!(
                "{name}: expansion median {:.2} ms (min {:.2} ms, max {:.2} ms over {} runs), {} characters of code",
                times[times.len() / 2] * 1e3,
                times[0] * 1e3,
                times[times.len() - 1] * 1e3,
                times.len(),
                size
            );
        }
    }
}
