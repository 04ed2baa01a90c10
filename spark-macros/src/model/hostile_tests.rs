//! Hostile inputs of issue 28 against the macro's names, helpers, duplicates, expansion bounds
//! and messages: each case is run through the whole expansion (`expand::expand`) in a thread
//! with a time limit, and judged by what a user would see (the `compile_error!` messages, or
//! the value of the Lagrangian the model compiles to).
//!
//! `every_hostile_case_is_handled` fails listing the cases that are not; the class counts it
//! prints are the closing table of issue 28 (`cargo test -p spark-macros --lib hostile --
//! --nocapture`).

use std::sync::mpsc;
use std::time::{Duration, Instant};

use proc_macro2::TokenStream;
use quote::{quote, ToTokens};

use crate::expand::expand;
use crate::model::build;
use crate::params::Vars;
use crate::parse::ModelInput;

/// What one expansion produced.
#[derive(Debug)]
pub(super) enum Outcome {
    /// The `compile_error!` messages (empty: the model compiled).
    Done(Vec<String>),
    Panicked(String),
    TimedOut,
}

/// The messages of the `compile_error!`s of an expansion.
pub(super) fn messages(tokens: &TokenStream) -> Vec<String> {
    let mut out = Vec::new();
    let Ok(file) = syn::parse2::<syn::File>(tokens.clone()) else {
        return vec![format!("unparsable expansion: {tokens}")];
    };
    for item in file.items {
        if let syn::Item::Macro(m) = item {
            if let Ok(lit) = m.mac.parse_body::<syn::LitStr>() {
                out.push(lit.value());
            }
        }
    }
    out
}

/// Expands `model` in a thread, within `limit`.
pub(super) fn run(model: TokenStream, limit: Duration) -> (Outcome, Duration) {
    let (tx, rx) = mpsc::channel();
    let text = model.to_string();
    let start = Instant::now();
    std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(move || {
            let model: TokenStream = text.parse().expect("tokens");
            let out = std::panic::catch_unwind(|| messages(&expand(model)));
            let _ = tx.send(match out {
                Ok(m) => Outcome::Done(m),
                Err(p) => Outcome::Panicked(
                    p.downcast_ref::<String>()
                        .cloned()
                        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                        .unwrap_or_default(),
                ),
            });
        })
        .expect("thread");
    let out = rx.recv_timeout(limit).unwrap_or(Outcome::TimedOut);
    (out, start.elapsed())
}

/// The Lagrangian of a model that builds, at `q`, `v = 0` and the parameters' defaults (or 0).
pub(super) fn lagrangian_at(model: TokenStream, q: &[f64]) -> Result<f64, Vec<String>> {
    let mut input: ModelInput = syn::parse2(model).map_err(|e| vec![e.to_string()])?;
    crate::unroll::apply(&mut input);
    let m = build(input).map_err(|f| f.0.into_iter().map(|e| e.to_string()).collect::<Vec<_>>())?;
    let vars: Vars = m.vars;
    let defaults: Vec<f64> = m.params.iter().map(|p| p.default.unwrap_or(0.0)).collect();
    Ok(m.arena.eval(m.lagrangian, &|i| {
        if i == Vars::TIME {
            0.0
        } else if i < vars.v(0) {
            q[i - 1]
        } else if i < vars.param(0) {
            0.0
        } else {
            defaults[i - vars.param(0)]
        }
    }))
}

/// One hostile input and what must happen.
struct Case {
    class: &'static str,
    name: &'static str,
    model: TokenStream,
    expect: Expect,
}

enum Expect {
    /// Exactly one error, whose message contains every string of the first list and none of
    /// the second.
    OneError(&'static [&'static str], &'static [&'static str]),
    /// At least one error; every message contains none of the strings.
    Errors(&'static [&'static str]),
    /// Errors (any number, none containing the strings), within the time limit.
    FastErrors(&'static [&'static str]),
    /// The model builds and its Lagrangian at `q` (v = 0) is the value.
    Value(&'static [f64], f64),
    /// The model builds, or fails with exactly one error containing none of the strings.
    BuildsOrOneError(&'static [&'static str]),
}

/// Messages must never show the expansion's own names.
const INTERNAL: &[&str] = &[
    "__",
    "is not supported in a model\nhelp: a model is written",
];

fn cases() -> Vec<Case> {
    let mut out = Vec::new();
    let mut add = |class, name, model: TokenStream, expect| {
        out.push(Case {
            class,
            name,
            model,
            expect,
        })
    };
    let wrong = "wrong model compiled without a word";
    add(
        wrong,
        "pot(y, x) swaps the arguments",
        quote! {
            fn pot(x: f64, y: f64) -> f64 { x.powi(2) + 2.0 * y.powi(2) }
            struct M { coordinates: [x, y], velocities: [vx, vy],
                lagrangian: 0.5 * (vx.powi(2) + vy.powi(2)) + pot(y, x) }
        },
        Expect::Value(&[1.0, 0.0], 2.0),
    );
    add(
        wrong,
        "diff(b, a) with coordinates a, b",
        quote! {
            fn diff(a: f64, b: f64) -> f64 { a - 3.0 * b }
            struct M { coordinates: [a, b], velocities: [va, vb],
                lagrangian: 0.5 * (va.powi(2) + vb.powi(2)) + diff(b, a) }
        },
        // diff(b, a) = b - 3 a at (a, b) = (1, 0): -3.
        Expect::Value(&[1.0, 0.0], -3.0),
    );
    add(
        wrong,
        "a helper's local shadows its argument's name",
        quote! {
            fn f(a: f64) -> f64 { let x = 2.0 * a; x + a }
            struct M { coordinates: [x], velocities: [vx],
                lagrangian: 0.5 * vx.powi(2) + f(x + 1.0) }
        },
        // f(2) = 4 + 2 at x = 1.
        Expect::Value(&[1.0], 6.0),
    );
    add(
        wrong,
        "a helper reads the caller's let",
        quote! {
            fn f(a: f64) -> f64 { a + k }
            struct M { coordinates: [x], velocities: [vx],
                lagrangian: { let k = 2.0; 0.5 * vx.powi(2) + f(x) } }
        },
        Expect::OneError(&["cannot find `k`"], &[]),
    );
    add(
        wrong,
        "a helper reads the caller's loop variable",
        quote! {
            fn f(a: f64) -> f64 { a * i }
            struct M { coordinates: [x[3]], velocities: [v[3]],
                lagrangian: (0..3).map(|i| 0.5 * v[i].powi(2) + f(x[i])).sum::<f64>() }
        },
        Expect::OneError(&["cannot find `i`"], &[]),
    );
    add(
        wrong,
        "a helper reads a coordinate",
        quote! {
            fn f(a: f64) -> f64 { a * y }
            struct M { coordinates: [x, y], velocities: [vx, vy],
                lagrangian: 0.5 * (vx.powi(2) + vy.powi(2)) + f(x) }
        },
        Expect::OneError(&["cannot find `y`"], &[]),
    );
    add(
        wrong,
        "a const named like a parameter",
        quote! {
            const m: usize = 3;
            struct M { coordinates: [x], velocities: [vx], parameters: [m = 1.0],
                lagrangian: 0.5 * m * vx.powi(2) }
        },
        Expect::Errors(&[]),
    );
    add(
        wrong,
        "a const named like a coordinate",
        quote! {
            const x: usize = 3;
            struct M { coordinates: [x], velocities: [vx],
                lagrangian: 0.5 * vx.powi(2) - x.powi(2) }
        },
        Expect::Errors(&[]),
    );
    add(
        wrong,
        "a const named like a helper",
        quote! {
            const f: usize = 3;
            fn f(a: f64) -> f64 { a }
            struct M { coordinates: [x], velocities: [vx],
                lagrangian: 0.5 * vx.powi(2) - f(x) }
        },
        Expect::Errors(&[]),
    );
    add(
        wrong,
        "a second const of the same name",
        quote! {
            const N: usize = 3;
            const N: usize = 2;
            struct M { coordinates: [x[N]], velocities: [v[N]],
                lagrangian: 0.5 * v[0].powi(2) }
        },
        Expect::Errors(&[]),
    );
    add(
        wrong,
        "a second fn of the same name",
        quote! {
            fn f(a: f64) -> f64 { a }
            fn f(a: f64) -> f64 { 2.0 * a }
            struct M { coordinates: [x], velocities: [vx],
                lagrangian: 0.5 * vx.powi(2) - f(x) }
        },
        Expect::Errors(&[]),
    );
    add(
        wrong,
        "coordinates: [x[2], x]",
        quote! {
            struct M { coordinates: [x[2], x], velocities: [v[2], w],
                lagrangian: 0.5 * v[0].powi(2) + 0.5 * v[1].powi(2) + 0.5 * w.powi(2) }
        },
        Expect::Errors(&[]),
    );
    add(
        wrong,
        "a generic helper",
        quote! {
            fn f<T>(a: f64) -> f64 { a }
            struct M { coordinates: [x], velocities: [vx],
                lagrangian: 0.5 * vx.powi(2) - f(x) }
        },
        Expect::OneError(&["generic"], &[]),
    );
    add(
        wrong,
        "a helper with a where clause",
        quote! {
            fn f(a: f64) -> f64 where f64: Copy { a }
            struct M { coordinates: [x], velocities: [vx],
                lagrangian: 0.5 * vx.powi(2) - f(x) }
        },
        Expect::OneError(&["where"], &[]),
    );
    add(
        wrong,
        "a dissipation that depends on no velocity",
        quote! {
            struct M { coordinates: [x], velocities: [vx], parameters: [c = 1.0],
                lagrangian: 0.5 * vx.powi(2), dissipation: 0.5 * c * x.powi(2) }
        },
        Expect::OneError(&["velocity"], &[]),
    );
    add(
        wrong,
        "a let named like a const",
        quote! {
            const K: usize = 3;
            struct M { coordinates: [x], velocities: [vx],
                lagrangian: { let K = 2.0 * x; 0.5 * vx.powi(2) - K } }
        },
        Expect::Errors(&[]),
    );

    let endless = "expansion that never ends";
    add(
        endless,
        "a helper calling itself twice",
        quote! {
            fn f(a: f64) -> f64 { f(a) + f(a) }
            struct M { coordinates: [x], velocities: [vx], lagrangian: 0.5 * vx.powi(2) - f(x) }
        },
        Expect::FastErrors(&[]),
    );
    add(
        endless,
        "two helpers calling each other",
        quote! {
            fn f(a: f64) -> f64 { g(a) }
            fn g(a: f64) -> f64 { f(a) + 1.0 }
            struct M { coordinates: [x], velocities: [vx], lagrangian: 0.5 * vx.powi(2) - f(x) }
        },
        Expect::FastErrors(&[]),
    );
    let mut chain = TokenStream::new();
    chain.extend(quote!(
        fn h0(a: f64) -> f64 {
            a.sin()
        }
    ));
    for k in 1..30usize {
        let (f, g) = (
            quote::format_ident!("h{}", k),
            quote::format_ident!("h{}", k - 1),
        );
        chain.extend(quote!(fn #f(a: f64) -> f64 { #g(a) + #g(a) }));
    }
    add(
        endless,
        "30 helpers each calling the previous twice",
        quote! {
            #chain
            struct M { coordinates: [x], velocities: [vx], lagrangian: 0.5 * vx.powi(2) - h29(x) }
        },
        Expect::FastErrors(&[]),
    );
    add(
        endless,
        "const N = 100000 arrays",
        quote! {
            const N: usize = 100000;
            struct M { coordinates: [x[N]], velocities: [v[N]],
                lagrangian: (0..N).map(|i| 0.5 * v[i].powi(2) - x[i].powi(2)).sum::<f64>() }
        },
        Expect::FastErrors(&[]),
    );
    add(
        endless,
        "1000 x 1000 nested loops",
        quote! {
            struct M { coordinates: [x[2]], velocities: [v[2]],
                lagrangian: 0.5 * v[0].powi(2) + 0.5 * v[1].powi(2),
                holonomic: [for i in 0..1000 { for j in 0..1000 { x[0] - (i * j) as f64 } }] }
        },
        Expect::FastErrors(&[]),
    );
    add(
        endless,
        "1000 x 1000 nested sums",
        quote! {
            struct M { coordinates: [x], velocities: [v],
                lagrangian: 0.5 * v.powi(2)
                    + (0..1000).map(|i| (0..1000).map(|j| x * 1.0).sum::<f64>()).sum::<f64>() }
        },
        Expect::FastErrors(&[]),
    );
    add(
        endless,
        "a const that overflows when negated",
        quote! {
            const N: usize = -(-9223372036854775807 - 1);
            struct M { coordinates: [x], velocities: [v], lagrangian: 0.5 * v.powi(2) }
        },
        Expect::FastErrors(&[]),
    );
    add(
        endless,
        "a closed range up to i64::MAX",
        quote! {
            struct M { coordinates: [x], velocities: [v],
                lagrangian: 0.5 * v.powi(2) + (0..=9223372036854775807).map(|i| x).sum::<f64>() }
        },
        Expect::FastErrors(&[]),
    );
    add(
        endless,
        "a range whose length overflows",
        quote! {
            struct M { coordinates: [x], velocities: [v],
                lagrangian: 0.5 * v.powi(2)
                    + ((-9223372036854775807 - 1)..9223372036854775807).map(|i| x).sum::<f64>() }
        },
        Expect::FastErrors(&[]),
    );
    add(
        endless,
        "an array of i64::MAX elements",
        quote! {
            struct M { coordinates: [x[9223372036854775807]], velocities: [v[1]],
                lagrangian: 0.5 * v[0].powi(2) }
        },
        Expect::FastErrors(&[]),
    );

    let confusing = "confusing errors";
    add(
        confusing,
        "a velocity element in a holonomic constraint",
        quote! {
            struct M { coordinates: [x[2]], velocities: [v[2]],
                lagrangian: 0.5 * v[0].powi(2) + 0.5 * v[1].powi(2),
                holonomic: [x[0] + v[1]] }
        },
        Expect::OneError(&["`v[1]`"], INTERNAL),
    );
    add(
        confusing,
        "a Hamiltonian with arrays and a velocity name",
        quote! {
            struct M { coordinates: [q[3]], momenta: [p[3]],
                hamiltonian: (0..3).map(|i| 0.5 * p[i].powi(2)).sum::<f64>() + v[2] }
        },
        Expect::Errors(INTERNAL),
    );
    add(
        confusing,
        "a typo near an element name",
        quote! {
            struct M { coordinates: [x[2]], velocities: [v[2]],
                lagrangian: 0.5 * v[0].powi(2) + 0.5 * v[1].powi(2) + x__0 }
        },
        Expect::OneError(&["x__0"], &["x__1", "v__"]),
    );
    add(
        confusing,
        "a coordinate named __spark_reported",
        quote! {
            struct M { coordinates: [__spark_reported], velocities: [v],
                lagrangian: 0.5 * v.powi(2) - __spark_reported.powi(2) }
        },
        // It expanded without a `compile_error!` before, and rustc then failed inside the
        // expansion (E0425 for `mu`): it must be rejected here.
        Expect::OneError(&["reserved"], &[]),
    );
    add(
        confusing,
        "a coordinate named like an element",
        quote! {
            struct M { coordinates: [x[2], x__1], velocities: [v[2], w],
                lagrangian: 0.5 * v[0].powi(2) + 0.5 * v[1].powi(2) + 0.5 * w.powi(2) - x__1 }
        },
        Expect::BuildsOrOneError(&["`x[1]`"]),
    );
    add(
        confusing,
        "a 2-D index",
        quote! {
            struct M { coordinates: [x[2]], velocities: [v[2]],
                lagrangian: 0.5 * v[0].powi(2) + 0.5 * v[1].powi(2) - x[0][1] }
        },
        Expect::OneError(&["`x`"], &["indexing is not supported"]),
    );
    add(
        confusing,
        "indexing a scalar",
        quote! {
            struct M { coordinates: [y], velocities: [vy],
                lagrangian: 0.5 * vy.powi(2) - y[0] }
        },
        Expect::OneError(&["`y`"], &["indexing is not supported"]),
    );
    add(
        confusing,
        "pub const",
        quote! {
            pub const N: usize = 2;
            struct M { coordinates: [x[N]], velocities: [v[N]],
                lagrangian: 0.5 * v[0].powi(2) + 0.5 * v[1].powi(2) }
        },
        Expect::BuildsOrOneError(&[]),
    );
    add(
        confusing,
        "pub fn",
        quote! {
            pub fn f(a: f64) -> f64 { a }
            struct M { coordinates: [x], velocities: [v],
                lagrangian: 0.5 * v.powi(2) - f(x) }
        },
        Expect::BuildsOrOneError(&[]),
    );
    add(
        confusing,
        "a missing .sum()",
        quote! {
            struct M { coordinates: [x[2]], velocities: [v[2]],
                lagrangian: (0..2).map(|i| 0.5 * v[i].powi(2)) }
        },
        Expect::OneError(&["sum"], &[]),
    );
    add(
        confusing,
        "for in a Lagrangian",
        quote! {
            struct M { coordinates: [x[2]], velocities: [v[2]],
                lagrangian: for i in 0..2 { 0.5 * v[i].powi(2) } }
        },
        Expect::OneError(&["for"], &["integer constant"]),
    );
    add(
        confusing,
        "for in definitions",
        quote! {
            struct M { coordinates: [x[2]], velocities: [v[2]],
                definitions: { for i in 0..2 { let a = v[i]; } },
                lagrangian: 0.5 * v[0].powi(2) + 0.5 * v[1].powi(2) }
        },
        Expect::OneError(&["for"], &["integer constant"]),
    );
    add(
        confusing,
        "const fn",
        quote! {
            const fn f(a: f64) -> f64 { a }
            struct M { coordinates: [x], velocities: [v],
                lagrangian: 0.5 * v.powi(2) - f(x) }
        },
        Expect::BuildsOrOneError(&[]),
    );
    add(
        confusing,
        "a helper after the struct",
        quote! {
            struct M { coordinates: [x], velocities: [v],
                lagrangian: 0.5 * v.powi(2) - f(x) }
            fn f(a: f64) -> f64 { a }
        },
        Expect::BuildsOrOneError(&[]),
    );
    add(
        confusing,
        "return in a helper",
        quote! {
            fn f(a: f64) -> f64 { return a * 2.0; }
            struct M { coordinates: [x], velocities: [v],
                lagrangian: 0.5 * v.powi(2) - f(x) }
        },
        Expect::OneError(&["last expression"], &[]),
    );
    add(
        confusing,
        "fn f(t: f64)",
        quote! {
            fn f(t: f64) -> f64 { t * 2.0 }
            struct M { coordinates: [x], velocities: [v],
                lagrangian: 0.5 * v.powi(2) - f(x) }
        },
        Expect::BuildsOrOneError(&["cannot be bound with `let`"]),
    );
    add(
        confusing,
        "vy.min(1.0)",
        quote! {
            struct M { coordinates: [y], velocities: [vy],
                lagrangian: 0.5 * vy.min(1.0).powi(2) }
        },
        Expect::OneError(&["differentiable"], &["`sin`"]),
    );
    add(
        confusing,
        "let vy shadowing a velocity",
        quote! {
            struct M { coordinates: [y], velocities: [vy],
                definitions: { let vy = 2.0 * y; },
                lagrangian: 0.5 * vy.powi(2) }
        },
        Expect::OneError(&["`vy`", "let"], &[]),
    );
    out
}

/// Whether `case` is handled; if not, why.
fn judge(case: &Case) -> Result<(), String> {
    let limit = Duration::from_secs(10);
    let fast = Duration::from_secs(3);
    let (outcome, took) = run(case.model.clone(), limit);
    let msgs = match outcome {
        Outcome::Done(m) => m,
        Outcome::Panicked(p) => return Err(format!("panicked: {p}")),
        Outcome::TimedOut => return Err(format!("no answer within {limit:?}")),
    };
    let none_of = |bad: &[&str]| -> Result<(), String> {
        for m in &msgs {
            if let Some(b) = bad.iter().find(|b| m.contains(**b)) {
                return Err(format!("a message contains {b:?}: {msgs:#?}"));
            }
        }
        Ok(())
    };
    match &case.expect {
        Expect::OneError(want, bad) => {
            if msgs.len() != 1 {
                return Err(format!("{} errors: {msgs:#?}", msgs.len()));
            }
            if let Some(w) = want.iter().find(|w| !msgs[0].contains(**w)) {
                return Err(format!("the message lacks {w:?}: {msgs:#?}"));
            }
            none_of(bad)
        }
        Expect::Errors(bad) => {
            if msgs.is_empty() {
                return Err("compiled without an error".into());
            }
            none_of(bad)
        }
        Expect::FastErrors(bad) => {
            if msgs.is_empty() {
                return Err("compiled without an error".into());
            }
            if took > fast {
                return Err(format!("took {took:?}"));
            }
            none_of(bad)
        }
        Expect::BuildsOrOneError(bad) => {
            if msgs.len() > 1 {
                return Err(format!("{} errors: {msgs:#?}", msgs.len()));
            }
            none_of(bad)
        }
        Expect::Value(q, want) => {
            if !msgs.is_empty() {
                return Err(format!("errors: {msgs:#?}"));
            }
            match lagrangian_at(case.model.clone(), q) {
                Ok(got) if (got - want).abs() <= 1e-12 * want.abs().max(1.0) => Ok(()),
                Ok(got) => Err(format!("L = {got}, want {want}")),
                Err(e) => Err(format!("errors: {e:?}")),
            }
        }
    }
}

#[test]
fn every_hostile_case_is_handled() {
    let cases = cases();
    let mut classes: Vec<(&str, usize, usize)> = Vec::new();
    let mut failures = Vec::new();
    for case in &cases {
        let start = Instant::now();
        let verdict = judge(case);
        if start.elapsed() > Duration::from_millis(500) {
            println!("hostile: {} took {:?}", case.name, start.elapsed());
        }
        match classes.iter_mut().find(|c| c.0 == case.class) {
            Some(c) => {
                c.1 += 1;
                c.2 += usize::from(verdict.is_err());
            }
            None => classes.push((case.class, 1, usize::from(verdict.is_err()))),
        }
        if let Err(why) = verdict {
            failures.push(format!("[{}] {}: {why}", case.class, case.name));
        }
    }
    for (class, n, bad) in &classes {
        println!("hostile: {class}: {n} cases, {bad} mishandled");
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases mishandled:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
    let _ = ToTokens::to_token_stream(&quote!());
}

/// Every model of the examples and of the integration tests expands without an error.
#[test]
fn the_repository_models_still_expand() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let mut files = Vec::new();
    for dir in ["examples", "examples/models", "tests"] {
        for entry in std::fs::read_dir(format!("{root}/{dir}")).expect("a directory") {
            let path = entry.expect("an entry").path();
            if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    let mut checked = 0;
    for path in files {
        let src = std::fs::read_to_string(&path).expect("a file");
        let Ok(file) = syn::parse_file(&src) else {
            continue;
        };
        let mut stack: Vec<TokenStream> = file.items.iter().map(|i| i.to_token_stream()).collect();
        while let Some(tokens) = stack.pop() {
            let trees: Vec<proc_macro2::TokenTree> = tokens.into_iter().collect();
            for (k, t) in trees.iter().enumerate() {
                if let proc_macro2::TokenTree::Group(g) = t {
                    let is_call = k >= 2
                        && matches!(&trees[k - 1], proc_macro2::TokenTree::Punct(p) if p.as_char() == '!')
                        && matches!(&trees[k - 2], proc_macro2::TokenTree::Ident(i) if i == "mechanics");
                    // `$`-metavariables: a model inside a `macro_rules!` template.
                    let template = g.stream().to_string().contains('$');
                    if is_call && !template {
                        let msgs = messages(&expand(g.stream()));
                        assert!(msgs.is_empty(), "{}: {msgs:#?}", path.display());
                        checked += 1;
                    } else {
                        stack.push(g.stream());
                    }
                }
            }
        }
    }
    println!("{checked} models expanded");
    assert!(checked > 20, "only {checked} models found");
}
