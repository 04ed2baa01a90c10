//! Compile-fail and compile-pass tests of the `mechanics!` diagnostics (trybuild).
//!
//! Regenerate the expected output with `TRYBUILD=overwrite cargo test --test ui`, then read
//! every changed `.stderr`: each must read like a good rustc error.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/**/*.rs");
}
