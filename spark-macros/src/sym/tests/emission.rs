//! Structural tests of the emitted code (the macro's integration tests compile it).

use proc_macro2::{Delimiter, TokenStream, TokenTree};
use proptest::prelude::*;
use quote::{format_ident, quote};

use super::sexpr::{arena, read, tree};
use crate::sym::{emit, Arena, Id};

/// Emits `outputs` with variables `q0, q1, ..` and math module `m`; returns (lets, exprs)
/// as whitespace-free strings.
fn emit_str(a: &Arena, outputs: &[Id]) -> (String, Vec<String>) {
    let (lets, exprs) = emit_tokens(a, outputs);
    (squash(&lets), exprs.iter().map(squash).collect())
}

fn emit_tokens(a: &Arena, outputs: &[Id]) -> (TokenStream, Vec<TokenStream>) {
    let var = |i: usize| {
        let q = format_ident!("q{}", i);
        quote!(#q)
    };
    emit(a, outputs, &var, &quote!(m))
}

fn squash(t: &TokenStream) -> String {
    t.to_string().split_whitespace().collect()
}

/// (expression, emitted code with no `let`).
#[test]
fn single_expressions_read_naturally() {
    let table: &[(&str, &str)] = &[
        ("x", "q0"),
        ("2.5", "2.5_f64"),
        ("-1.5", "-1.5_f64"),
        ("1e300", "1e300_f64"),
        ("1e-7", "1e-7_f64"),
        ("3.141592653589793", "::core::f64::consts::PI"),
        ("(* 2 3.141592653589793)", "::core::f64::consts::TAU"),
        ("(^ x 2)", "q0*q0"),
        ("(^ x 3)", "q0*q0*q0"),
        ("(^ x -1)", "1.0_f64/q0"),
        ("(^ x -2)", "1.0_f64/(q0*q0)"),
        ("(- x y)", "q0-q1"),
        ("(- x)", "-q0"),
        ("(- (* 2 x))", "-2.0_f64*q0"),
        ("(- x (* 2 y))", "q0-2.0_f64*q1"),
        ("(- 1 x)", "1.0_f64-q0"),
        ("(+ x 1)", "q0+1.0_f64"),
        ("(- (- x) y)", "-q0-q1"),
        ("(- x (+ y z))", "q0-(q1+q2)"),
        ("(- (+ x y))", "-q0-q1"),
        ("(- (- x y))", "q1-q0"),
        ("(* -2 (- x y))", "-2.0_f64*(q0-q1)"),
        ("(* (+ x y) (- x y))", "(q0+q1)*(q0-q1)"),
        ("(* x (+ y z))", "q0*(q1+q2)"),
        ("(/ x y)", "q0/q1"),
        ("(/ x (* y z))", "q0/(q1*q2)"),
        ("(/ x (* y (^ z 2)))", "q0/(q1*q2*q2)"),
        ("(/ (- x) y)", "-q0/q1"),
        ("(/ -2 y)", "-2.0_f64/q1"),
        ("(/ x (+ y z))", "q0/(q1+q2)"),
        ("(/ x x)", "q0*(1.0_f64/q0)"),
        ("(* -1 y (sin x))", "-q1*m::sin(q0)"),
        ("(sin (+ x y))", "m::sin(q0+q1)"),
        ("(sqrt (- x))", "m::sqrt(-q0)"),
        ("(pow x 2.5)", "m::powf(q0,2.5_f64)"),
        ("(pow x -2.5)", "m::powf(q0,-2.5_f64)"),
        ("(atan2 y x)", "m::atan2(q1,q0)"),
        ("(ln (* x y))", "m::ln(q0*q1)"),
        ("(- x (* y (+ z w)))", "q0-q1*(q2+q3)"),
    ];
    let mut failures = Vec::new();
    for &(input, expected) in table {
        let mut a = arena();
        let e = read(&mut a, input);
        let (lets, exprs) = emit_str(&a, &[e]);
        let got = format!("{lets}{}", exprs[0]);
        if got != expected {
            failures.push(format!("{input}  →  {got}   (expected {expected})"));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn powers_use_repeated_squaring() {
    let table: &[(&str, &str, &str)] = &[
        ("(^ (sin x) 2)", "let__t0:f64=m::sin(q0);", "__t0*__t0"),
        ("(^ x 4)", "let__t0:f64=q0*q0;", "__t0*__t0"),
        ("(^ x 5)", "let__t0:f64=q0*q0;", "q0*__t0*__t0"),
        ("(^ x 6)", "let__t0:f64=q0*q0;", "__t0*__t0*__t0"),
        ("(^ x 7)", "let__t0:f64=q0*q0;", "q0*__t0*__t0*__t0"),
        (
            "(^ x 8)",
            "let__t0:f64=q0*q0;let__t1:f64=__t0*__t0;",
            "__t1*__t1",
        ),
        ("(^ x -4)", "let__t0:f64=q0*q0;", "1.0_f64/(__t0*__t0)"),
        (
            "(^ x 13)",
            "let__t0:f64=q0*q0;let__t1:f64=__t0*__t0;",
            "q0*__t1*__t1*__t1",
        ),
    ];
    let mut failures = Vec::new();
    for &(input, lets_expected, expr_expected) in table {
        let mut a = arena();
        let e = read(&mut a, input);
        let (lets, exprs) = emit_str(&a, &[e]);
        if lets != lets_expected || exprs[0] != expr_expected {
            failures.push(format!(
                "{input}  →  {lets} {}   (expected {lets_expected} {expr_expected})",
                exprs[0]
            ));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn powers_reuse_named_squares() {
    let mut a = arena();
    let p4 = read(&mut a, "(^ (sin x) 4)");
    let p2 = read(&mut a, "(^ (sin x) 2)");
    let p6 = read(&mut a, "(^ (sin x) 6)");
    let (lets, exprs) = emit_str(&a, &[p4, p2, p6]);
    assert_eq!(lets, "let__t0:f64=m::sin(q0);let__t1:f64=__t0*__t0;");
    assert_eq!(exprs, ["__t1*__t1", "__t1", "__t1*__t1*__t1"]);
    // A named square is reused as an intermediate square, and the other way round.
    let mut a = arena();
    let p2 = read(&mut a, "(^ (sin x) 2)");
    let p5 = read(&mut a, "(^ (sin x) 5)");
    let (lets, exprs) = emit_str(&a, &[p2, p2, p5]);
    assert_eq!(lets, "let__t0:f64=m::sin(q0);let__t1:f64=__t0*__t0;");
    assert_eq!(exprs, ["__t1", "__t1", "__t0*__t1*__t1"]);
}

#[test]
fn huge_exponents_stay_straight_line() {
    let mut a = arena();
    let x = a.var(0);
    let e = a.powi(x, i32::MIN);
    let (lets, exprs) = emit_str(&a, &[e]);
    assert_eq!(lets.matches("let").count(), 30);
    assert_eq!(exprs[0], "1.0_f64/(__t29*__t29)");
}

#[test]
fn shared_nodes_get_one_let() {
    // sin(x*y)^2 and its gradient: x*y once, sin(x*y) and cos(x*y) once, together.
    let mut a = arena();
    let f = read(&mut a, "(^ (sin (* x y)) 2)");
    let fx = a.diff(f, 0);
    let fy = a.diff(f, 1);
    let (lets, exprs) = emit_str(&a, &[f, fx, fy]);
    assert_eq!(
        lets,
        "let__t0:f64=q0*q1;let(__t1,__t2):(f64,f64)=m::sin_cos(__t0);"
    );
    assert_eq!(
        exprs,
        ["__t1*__t1", "2.0_f64*q1*__t1*__t2", "2.0_f64*q0*__t1*__t2"]
    );
    let all = format!("{lets}{}", exprs.concat());
    assert_eq!(all.matches("m::sin_cos(").count(), 1);
    assert_eq!(
        all.matches("m::sin(").count() + all.matches("m::cos(").count(),
        0
    );
    assert_eq!(all.matches("q0*q1").count(), 1);
}

#[test]
fn an_output_used_twice_is_named() {
    let mut a = arena();
    let s = read(&mut a, "(+ x y)");
    let (lets, exprs) = emit_str(&a, &[s, s]);
    assert_eq!(lets, "let__t0:f64=q0+q1;");
    assert_eq!(exprs, ["__t0", "__t0"]);
    // A node used once stays inline; one used twice (here by two parents) is named.
    let e = read(&mut a, "(* (sin (+ x y)) (+ x y))");
    let (lets, exprs) = emit_str(&a, &[e]);
    assert_eq!(lets, "let__t0:f64=q0+q1;");
    assert_eq!(exprs, ["__t0*m::sin(__t0)"]);
}

#[test]
fn deep_nesting_is_cut_into_lets() {
    let mut a = arena();
    let mut e = a.var(0);
    for _ in 0..100 {
        e = a.sin(e);
    }
    let (lets, exprs) = emit_str(&a, &[e]);
    assert_eq!(lets.matches("let").count(), 100 / 25);
    assert!(exprs[0].matches("m::sin(").count() <= 25);
}

/// Parenthesized groups in positions where rustc's `unused_parens` fires: a whole `let`
/// initializer, a whole output, a whole function argument, or a group directly inside
/// another group.
fn unnecessary_parens(t: &TokenStream, out: &mut Vec<String>) {
    let tokens: Vec<TokenTree> = t.clone().into_iter().collect();
    let lone_paren = |ts: &[TokenTree]| matches!(ts, [TokenTree::Group(g)] if g.delimiter() == Delimiter::Parenthesis);
    for (k, tok) in tokens.iter().enumerate() {
        if let TokenTree::Group(g) = tok {
            let inner: Vec<TokenTree> = g.stream().into_iter().collect();
            let is_call = k > 0 && matches!(tokens[k - 1], TokenTree::Ident(_));
            if is_call {
                for arg in inner.split(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == ',')) {
                    if lone_paren(arg) {
                        out.push(g.to_string());
                    }
                }
            } else if lone_paren(&inner) {
                out.push(g.to_string());
            }
            unnecessary_parens(&g.stream(), out);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 256,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Emitted code for random expressions and their derivatives parses as Rust, calls only
    /// `m::` functions, uses every `let`, and has no unnecessary parentheses or `- -`.
    #[test]
    fn emitted_code_is_well_formed(t in tree()) {
        let mut a = Arena::new();
        let e = t.build(&mut a);
        let mut outputs = vec![e];
        for v in 0..3 {
            outputs.push(a.diff(e, v));
        }
        let (lets, exprs) = emit_tokens(&a, &outputs);
        let block: TokenStream = quote!({ #lets [#(#exprs),*] });
        prop_assert!(syn::parse2::<syn::Block>(block.clone()).is_ok(), "does not parse: {}", block);
        let text = block.to_string();
        prop_assert!(!text.contains(" . "), "method call in {}", text);
        prop_assert!(!text.contains("- -"), "double negation in {}", text);
        let mut bad = Vec::new();
        for stmt in lets.to_string().split(';').filter(|s| !s.trim().is_empty()) {
            let init: TokenStream = stmt.split_once('=').map(|(_, r)| r).unwrap_or("").parse().unwrap();
            unnecessary_parens(&quote!((#init)), &mut bad);
        }
        for x in &exprs {
            unnecessary_parens(&quote!((#x)), &mut bad);
        }
        prop_assert!(bad.is_empty(), "unnecessary parentheses {:?} in {}", bad, text);
        // Every let is used after its definition.
        let squashed = squash(&block);
        for k in 0.. {
            let def = format!("let__t{k}:f64=");
            let Some(at) = squashed.find(&def) else { break };
            let name = format!("__t{k}");
            let after = &squashed[at + def.len()..];
            let used = after.match_indices(&name).any(|(i, _)| {
                !after[i + name.len()..].starts_with(|c: char| c.is_ascii_digit())
            });
            prop_assert!(used, "{} unused in {}", name, text);
        }
    }
}
