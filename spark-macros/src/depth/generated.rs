//! Generated inputs through the whole expansion (parse → unroll → lower → differentiate →
//! emit): random expression trees and sizes, names that collide with the coordinates,
//! velocities, parameters, constants, helpers and loop variables, garbage tokens, long
//! chains, deep nests and large sums. Every input must expand to tokens that parse as Rust
//! items (the model, or its errors and stub), without a panic or a stack overflow, on a
//! thread with the small stack of [`super::cases::STACK`], and the whole run must finish
//! (a watchdog fails it after [`WATCHDOG`]).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use proc_macro2::TokenStream;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

/// The time after which the run counts as hung (far above its normal duration).
const WATCHDOG: Duration = Duration::from_secs(600);

/// Names of every kind in the generated model, plus unknown ones.
const NAMES: &[&str] = &[
    "x",
    "y",
    "vx",
    "vy",
    "m",
    "g",
    "t",
    "N",
    "f",
    "sq",
    "i",
    "a",
    "q",
    "vq",
    "PI",
    "foo",
    "__spark_reported",
    "self",
    "sin",
];

/// Tokens that do not belong in an expression.
const GARBAGE: &[&str] = &[
    "@", "..", "as f64", "!", "?", "<", ">", "struct", "fn", "'a", "#", "$", "&", "|", "^", "%",
    "=", "==", "::", "let", "for", ";", ",", "1e400", "0x10", "\"s\"", "'c'", "true",
];

fn name() -> impl Strategy<Value = String> {
    prop::sample::select(NAMES).prop_map(String::from)
}

fn leaf() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => name(),
        2 => prop::sample::select(&["0.0", "1.5", "2", "0", "1e308", "3", "0.5", "-1.0"][..])
            .prop_map(String::from),
        1 => (prop::sample::select(&["q", "vq", "a", "x"][..]),
              prop::sample::select(&["0", "1", "2", "9", "i", "N", "N - 1", "-1"][..]))
            .prop_map(|(a, k)| format!("{a}[{k}]")),
    ]
}

/// Random expressions of the DSL (and of what is not the DSL).
fn expr() -> impl Strategy<Value = String> {
    leaf().prop_recursive(6, 48, 3, |inner| {
        prop_oneof![
            4 => (inner.clone(), prop::sample::select(&["+", "-", "*", "/"][..]), inner.clone())
                .prop_map(|(a, op, b)| format!("{a} {op} {b}")),
            2 => inner.clone().prop_map(|a| format!("-{a}")),
            2 => inner.clone().prop_map(|a| format!("({a})")),
            3 => (inner.clone(), prop::sample::select(&[
                    "sin()", "cos()", "sqrt()", "exp()", "ln()", "powi(2)", "powi(-3)",
                    "powi(0)", "powf(1.5)", "tanh()", "abs()", "atan()", "powi(i)",
                ][..]))
                .prop_map(|(a, m)| format!("({a}).{m}")),
            1 => (inner.clone(), inner.clone(), prop::sample::select(&["powf", "hypot", "atan2", "min"][..]))
                .prop_map(|(a, b, m)| format!("({a}).{m}({b})")),
            2 => (prop::sample::select(&["f", "sq", "dt", "hypot", "foo", "sin", "x"][..]),
                  prop::collection::vec(inner.clone(), 0..3))
                .prop_map(|(f, args)| format!("{f}({})", args.join(", "))),
            2 => (0usize..40, inner.clone(), prop::sample::select(&["sum::<f64>", "sum", "product"][..]),
                  prop::sample::select(&["i", "x", "k", "N"][..]))
                .prop_map(|(n, a, fold, var)| {
                    let n = if fold == "product" { n % 20 } else { n };
                    format!("(0..{n}).map(|{var}| {a}).{fold}()")
                }),
            1 => (name(), inner.clone(), inner.clone())
                .prop_map(|(n, a, b)| format!("{{ let {n} = {a}; {b} }}")),
            1 => (inner.clone(), prop::sample::select(GARBAGE), inner.clone())
                .prop_map(|(a, g, b)| format!("{a} {g} {b}")),
            // Long chains and deep nests, on both sides of the limits.
            1 => (1usize..1500, prop::sample::select(&[" + ", " * ", " - "][..]), inner.clone())
                .prop_map(|(n, op, a)| vec![format!("({a})"); n].join(op)),
            1 => (1usize..700, inner.clone()).prop_map(|(n, a)| format!("{}{a}", "-".repeat(n))),
            1 => (1usize..200, inner.clone())
                .prop_map(|(n, a)| format!("{}{a}{}", "(".repeat(n), ")".repeat(n))),
            1 => (1usize..300, inner).prop_map(|(n, a)| format!("({a}){}", ".sin()".repeat(n))),
        ]
    })
}

/// Expressions of the coordinates that are valid DSL (apart from rare domain errors).
fn valid_expr() -> impl Strategy<Value = String> {
    let leaf = prop::sample::select(
        &[
            "x", "y", "t", "m", "g", "PI", "q[0]", "q[N - 1]", "a[1]", "1.5", "2.0", "0.25",
        ][..],
    )
    .prop_map(String::from);
    leaf.prop_recursive(5, 40, 3, |inner| {
        prop_oneof![
            4 => (inner.clone(), prop::sample::select(&["+", "-", "*"][..]), inner.clone())
                .prop_map(|(a, op, b)| format!("{a} {op} {b}")),
            1 => (inner.clone(), inner.clone())
                .prop_map(|(a, b)| format!("{a} / (2.0 + ({b}).powi(2))")),
            1 => inner.clone().prop_map(|a| format!("-({a})")),
            2 => (inner.clone(), prop::sample::select(&[
                    "sin()", "cos()", "powi(2)", "powi(3)", "tanh()", "atan()", "exp()",
                ][..]))
                .prop_map(|(a, m)| format!("({a}).{m}")),
            1 => (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("sq({a}, {b})")),
            1 => inner.clone().prop_map(|a| format!("f({a})")),
            1 => (0usize..60, inner.clone())
                .prop_map(|(n, a)| format!("(0..{n}).map(|i| ({a}) * i).sum::<f64>()")),
            1 => (0usize..N_MAX, inner.clone())
                .prop_map(|(k, a)| format!("(0..N).map(|i| q[i] * ({a}) + {k}.0).sum::<f64>()")),
            1 => (inner.clone(), inner)
                .prop_map(|(a, b)| format!("{{ let z = {a}; z * ({b}) }}")),
        ]
    })
}

/// `N`, the size of the arrays, is below this.
const N_MAX: usize = 5;

/// A model that is valid DSL (it mostly expands without error).
fn valid_model() -> impl Strategy<Value = String> {
    (valid_expr(), prop::option::of(valid_expr()), 1usize..N_MAX).prop_map(
        |(potential, holonomic, n)| {
            let mut src = format!(
                "const N: usize = {n};
                fn f(b: f64) -> f64 {{ b.sin() + 2.0 * b }}
                fn sq(a: f64, b: f64) -> f64 {{ a * a + b }}
                pub struct Gen {{
                    coordinates: [x, y, q[N]],
                    velocities: [vx, vy, vq[N]],
                    parameters: [m = 1.0, g = 9.81, a[2] = 1.0],
                    lagrangian: 0.5 * m * (vx.powi(2) + vy.powi(2))
                        + 0.5 * (0..N).map(|i| vq[i].powi(2)).sum::<f64>() - ({potential}),\n"
            );
            if let Some(h) = holonomic {
                src += &format!("holonomic: [x.powi(2) + y.powi(2) - 1.0 + 0.0 * ({h})],\n");
            }
            src += "}";
            src
        },
    )
}

/// A model around hostile expressions, with declarations whose names may collide.
fn hostile_model() -> impl Strategy<Value = String> {
    (
        expr(),
        expr(),
        prop::option::of(expr()),
        name(),
        prop::option::of(name()),
        prop::option::of(name()),
        prop::option::of(name()),
        0usize..N_MAX,
    )
        .prop_map(
            |(lagrangian, body, holonomic, param, extra_coord, const_name, dup_fn, n)| {
                let mut src = format!("const N: usize = {n};\n");
                if let Some(c) = const_name {
                    src += &format!("const {c}: usize = 2;\n");
                }
                src += &format!("fn f({param}: f64) -> f64 {{ {body} }}\n");
                src += "fn sq(a: f64, b: f64) -> f64 { a * a + b }\n";
                if let Some(d) = dup_fn {
                    src += &format!("fn {d}(a: f64) -> f64 {{ a }}\n");
                }
                let (c, v) = match extra_coord {
                    Some(e) => (format!(", {e}"), format!(", v{e}")),
                    None => (String::new(), String::new()),
                };
                src += &format!(
                    "pub struct Gen {{
                        coordinates: [x, y, q[N]{c}],
                        velocities: [vx, vy, vq[N]{v}],
                        parameters: [m = 1.0, g = 9.81, a[2] = 1.0],
                        lagrangian: {lagrangian},\n"
                );
                if let Some(h) = holonomic {
                    src += &format!("holonomic: [{h}, for i in 0..N {{ q[i] - {h} }}],\n");
                }
                src += "}";
                src
            },
        )
}

/// Valid and hostile models.
fn model() -> impl Strategy<Value = String> {
    prop_oneof![valid_model(), hostile_model()]
}

/// How the generated models came out: expanded without error, with errors, with a depth
/// error of `depth.rs` among them.
static CLEAN: AtomicUsize = AtomicUsize::new(0);
static FAILED: AtomicUsize = AtomicUsize::new(0);
static TOO_DEEP: AtomicUsize = AtomicUsize::new(0);

/// One generated model through the expansion: it must give tokens that parse as items.
fn check(src: &str) -> Result<(), TestCaseError> {
    let Ok(tokens) = src.parse::<TokenStream>() else {
        // Not balanced: never handed to a macro.
        return Ok(());
    };
    let out = crate::expand::expand(tokens);
    prop_assert!(!out.is_empty(), "no output for\n{src}");
    if let Err(e) = syn::parse2::<syn::File>(out.clone()) {
        return Err(TestCaseError::fail(format!(
            "the expansion is not Rust items ({e}) for\n{src}"
        )));
    }
    let errors = super::cases::errors(&out.to_string());
    if errors.is_empty() {
        CLEAN.fetch_add(1, Ordering::Relaxed);
    } else {
        FAILED.fetch_add(1, Ordering::Relaxed);
    }
    if errors
        .iter()
        .any(|e| e.contains("deep here; the limit") || e.contains("levels deep"))
    {
        TOO_DEEP.fetch_add(1, Ordering::Relaxed);
    }
    Ok(())
}

#[test]
fn generated_models_expand_or_give_errors() {
    let (done, finished) = std::sync::mpsc::channel();
    let worker = std::thread::Builder::new()
        .stack_size(super::cases::STACK)
        .spawn(move || {
            // A fixed seed: the same inputs on every run (sums nest, so a few random draws
            // could multiply into very large models).
            let mut runner = TestRunner::new_with_rng(
                Config {
                    cases: 160,
                    failure_persistence: None,
                    ..Config::default()
                },
                TestRng::deterministic_rng(RngAlgorithm::ChaCha),
            );
            let result = runner.run(&model(), |src| check(&src));
            let _ = done.send(result.map_err(|e| e.to_string()));
        })
        .expect("spawn");
    match finished.recv_timeout(WATCHDOG) {
        Ok(result) => {
            if let Err(e) = result {
                panic!("{e}");
            }
        }
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
            panic!("the generated models did not expand within {WATCHDOG:?}")
        }
        // The worker died without reporting: a panic outside the runner's catch, or a stack
        // overflow (which aborts the process before this line).
        Err(e) => panic!("the expansion thread stopped: {e}"),
    }
    let _ = worker.join();
    let (clean, failed, deep) = (
        CLEAN.load(Ordering::Relaxed),
        FAILED.load(Ordering::Relaxed),
        TOO_DEEP.load(Ordering::Relaxed),
    );
    println!("generated models: {clean} expanded, {failed} with errors ({deep} too deep)");
    // The generator reaches every outcome.
    assert!(
        clean > 0 && failed > 0 && deep > 0,
        "{clean} / {failed} / {deep}"
    );
}
