//! Time of `mechanics!`'s expansion (parse, checks, differentiation, emission) for the models in
//! `examples/models/`, measured on the macro's own code outside the compiler.
//!
//! `cargo bench -p spark-macros --bench expansion`
//!
//! A proc-macro crate exports only macros, so the macro's modules are compiled into this bench
//! directly.

// The macro's own unit tests come along (and are unused) when this crate is built as a test.
#![allow(dead_code, unused_imports)]

#[path = "../src/ctxt.rs"]
mod ctxt;
#[path = "../src/expand.rs"]
mod expand;
#[path = "../src/lower.rs"]
mod lower;
#[path = "../src/model.rs"]
mod model;
#[path = "../src/parse.rs"]
mod parse;
#[path = "../src/sym/mod.rs"]
mod sym;

use std::time::Instant;

/// The tokens inside the first `mechanics! { ... }` of a Rust source file.
fn model_tokens(path: &str) -> proc_macro2::TokenStream {
    let src = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let file = syn::parse_file(&src).expect("the model file parses");
    for item in file.items {
        if let syn::Item::Macro(m) = item {
            if m.mac
                .path
                .segments
                .last()
                .is_some_and(|s| s.ident == "mechanics")
            {
                return m.mac.tokens;
            }
        }
    }
    panic!("{path}: no mechanics! invocation");
}

fn main() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/models/");
    for name in ["seven_body"] {
        let tokens = model_tokens(&format!("{root}{name}.rs"));
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
