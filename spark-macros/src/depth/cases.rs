//! The inputs that crashed rustc (issue 28) through the whole expansion, on a thread with a
//! small stack: each expands, or gives its spanned error.
//!
//! Inside rustc the macro runs unoptimized on an 8 MiB stack; these tests run optimized
//! (`[profile.test]`), whose frames are smaller, so they use [`STACK`] = 4 MiB: enough for
//! inputs at the limits (128 nested brackets, 1024 levels once helpers are inlined), while an
//! expansion that recursed once per term or per operator on these inputs would overflow it
//! (lowering alone takes about 1 KiB per level).

use proc_macro2::TokenStream;

/// The stack of the threads the expansions run on.
pub const STACK: usize = 4 << 20;

/// Expands `make()` on a thread with [`STACK`] bytes of stack; the expansion as text.
pub fn expand_on_small_stack(make: impl FnOnce() -> TokenStream + Send + 'static) -> String {
    std::thread::Builder::new()
        .stack_size(STACK)
        .spawn(move || crate::expand::expand(make()).to_string())
        .expect("spawn")
        .join()
        .expect("the expansion neither panics nor overflows the stack")
}

/// The messages of the `compile_error!`s in an expansion.
pub fn errors(expansion: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = expansion;
    while let Some(k) = rest.find("compile_error ! {") {
        rest = &rest[k..];
        let Some(open) = rest.find('"') else { break };
        let body = &rest[open + 1..];
        // The message ends at the first unescaped quote.
        let mut end = 0;
        let bytes = body.as_bytes();
        while end < bytes.len() && !(bytes[end] == b'"' && (end == 0 || bytes[end - 1] != b'\\')) {
            end += 1;
        }
        out.push(body[..end].to_string());
        rest = &body[end..];
    }
    out
}

/// A one-coordinate model whose Lagrangian is `0.5 * vx.powi(2) - (<potential>)`.
fn model(potential: &str) -> TokenStream {
    format!(
        "pub struct M {{
            coordinates: [x],
            velocities: [vx],
            parameters: [k = 1.0],
            lagrangian: 0.5 * vx.powi(2) - ({potential}),
        }}"
    )
    .parse()
    .expect("the test model tokenizes")
}

/// Expands the model with `potential`; the error messages.
fn errors_of(potential: String) -> Vec<String> {
    errors(&expand_on_small_stack(move || model(&potential)))
}

#[test]
fn a_sum_of_1000_terms_expands() {
    let e = errors_of("k * (0..1000).map(|i| (x * i).sin()).sum::<f64>()".into());
    assert!(e.is_empty(), "{e:?}");
}

#[test]
fn a_sum_of_10000_terms_expands() {
    let e = errors_of("(0..10000).map(|i| (x * i).sin()).sum::<f64>()".into());
    assert!(e.is_empty(), "{e:?}");
}

#[test]
fn a_product_of_64_factors_expands() {
    // Products fold like sums; their derivatives grow with the square of the number of
    // factors (the product rule), so this one stays small.
    let e = errors_of("(1..=64).map(|i| 1.0 + x / i).product::<f64>()".into());
    assert!(e.is_empty(), "{e:?}");
}

#[test]
fn a_sum_with_a_cast_gives_the_cast_error() {
    // The example: `i as f64` is not DSL syntax; 1000 copies of one error (same
    // span, rustc prints it once), and nothing else.
    let e = errors_of("(0..1000).map(|i| (x * i as f64).sin()).sum::<f64>()".into());
    assert!(!e.is_empty());
    assert!(
        e.iter()
            .all(|m| m.starts_with("an `as` cast is not supported in a model")),
        "{:?}",
        &e[..1]
    );
}

#[test]
fn three_thousand_nested_parentheses_are_an_error() {
    let n = 3000;
    let e = errors_of(format!("{}x{}", "(".repeat(n), ")".repeat(n)));
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(
        e[0].starts_with("brackets nest 129 deep here; the limit is 128"),
        "{e:?}"
    );
}

#[test]
fn twenty_thousand_unary_minuses_are_an_error() {
    let e = errors_of(format!("{}x", "-".repeat(20_000)));
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(
        e[0].starts_with("this expression is nested 20007 levels deep"),
        "{e:?}"
    );
}

#[test]
fn a_chain_of_20000_additions_is_an_error() {
    let e = errors_of(["x"; 20_000].join(" + "));
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(e[0].contains("the limit is 512"), "{e:?}");
}

#[test]
fn five_thousand_copies_of_an_unknown_name_are_one_error() {
    let e = errors_of(["foo"; 5000].join(" + "));
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(e[0].contains("the limit is 512"), "{e:?}");
    // Summed, each copy is its own term, the same mistake at the same tokens: one error.
    let e = errors_of("(0..5000).map(|i| foo).sum::<f64>()".into());
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(e[0].starts_with("cannot find `foo` in this model"), "{e:?}");
    // Two different unknown names stay two errors.
    let e =
        errors_of("(0..50).map(|i| foo).sum::<f64>() + (0..50).map(|i| bar).sum::<f64>()".into());
    assert_eq!(e.len(), 2, "{e:?}");
}

#[test]
fn inputs_just_within_the_limits_expand() {
    let n = super::MAX_NESTING - 8;
    let nested = format!("{}x{}", "(".repeat(n), ")".repeat(n));
    assert_eq!(errors_of(nested), Vec::<String>::new());
    assert_eq!(
        errors_of(format!("{}x", "-".repeat(500))),
        Vec::<String>::new()
    );
    assert_eq!(errors_of(["x"; 500].join(" + ")), Vec::<String>::new());
    let calls = format!("x{}", ".sin()".repeat(240));
    assert_eq!(errors_of(calls), Vec::<String>::new());
}

#[test]
fn helpers_inlined_into_each_other_are_cut_with_an_error() {
    // 30 helpers, each 100 minuses around the previous one: 3000 levels once inlined.
    let e = errors(&expand_on_small_stack(|| {
        let mut src = String::from("fn f0(a: f64) -> f64 { a }\n");
        for j in 1..30 {
            src += &format!(
                "fn f{j}(a: f64) -> f64 {{ {} f{}(a) }}\n",
                "-".repeat(100),
                j - 1
            );
        }
        src += "pub struct M { coordinates: [x], velocities: [vx], parameters: [k = 1.0],
                lagrangian: 0.5 * vx.powi(2) - f29(x), }";
        src.parse().expect("tokenizes")
    }));
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(
        e[0].starts_with(
            "this expression nests more than 1024 levels deep once its helpers are inlined"
        ),
        "{e:?}"
    );
}
