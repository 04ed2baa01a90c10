//! The pre-scan on small inputs with small limits.

use proc_macro2::TokenStream;

use super::scan_with;

fn tokens(s: &str) -> TokenStream {
    s.parse().expect("test input tokenizes")
}

/// The scanned tokens as text, and the error messages.
fn run(s: &str, nesting: usize, depth: usize) -> (String, Vec<String>) {
    let (out, errors) = scan_with(tokens(s), nesting, depth);
    (
        out.to_string(),
        errors.iter().map(ToString::to_string).collect(),
    )
}

#[test]
fn input_within_the_limits_is_unchanged() {
    let src = "pub struct P { coordinates: [x], lagrangian: 0.5 * vx.powi(2) - (x * (1.0 + x)), }";
    let (out, errors) = run(src, 4, 12);
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(out, tokens(src).to_string());
}

#[test]
fn too_deep_brackets_become_the_placeholder() {
    let (out, errors) = run("a: ((((x)))), b: (y)", 3, 100);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].starts_with("brackets nest 4 deep here; the limit is 3"),
        "{errors:?}"
    );
    assert!(errors[0].contains("help: split the expression with `let` bindings"));
    // The fourth group keeps its delimiters around the placeholder.
    assert_eq!(out, "a : ((((__spark_reported)))) , b : (y)");
}

#[test]
fn a_long_operator_chain_is_replaced_after_its_field_name() {
    let chain = ["x"; 10].join(" + ");
    let (out, errors) = run(&format!("lagrangian: {chain}, h: [y]"), 100, 8);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].starts_with("this expression is nested 10 levels deep"),
        "{errors:?}"
    );
    assert!(errors[0].contains("the limit is 8"), "{errors:?}");
    assert_eq!(out, "lagrangian : __spark_reported , h : [y]");
}

#[test]
fn levels_of_enclosing_segments_add_up() {
    // Three levels outside (`-`, `-`, the group), three inside: 6 > 5.
    let (out, errors) = run("e: - - (- - - x)", 100, 5);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(out, "e : - - (__spark_reported)");
    // Within the limit when the outer segment is short.
    let (_, errors) = run("e: (- - - x)", 100, 5);
    assert!(errors.is_empty(), "{errors:?}");
}

#[test]
fn postfix_calls_and_casts_count() {
    let (_, errors) = run("e: f(1)(2)(3)(4)(5)(6)", 100, 5);
    assert_eq!(errors.len(), 1, "{errors:?}");
    let (_, errors) = run("e: x as f64 as f64 as f64 as f64 as f64 as f64", 100, 5);
    assert_eq!(errors.len(), 1, "{errors:?}");
}

#[test]
fn a_let_statement_keeps_its_name() {
    let (out, errors) = run("{ let a = - - - - - - x; a }", 100, 5);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(out, "{ let a = __spark_reported ; a }");
}

#[test]
fn deep_input_is_scanned_without_recursion() {
    // 100 000 nested parentheses on a 256 KiB stack: the scan itself must not recurse.
    let handle = std::thread::Builder::new()
        .stack_size(256 << 10)
        .spawn(|| {
            let n = 100_000;
            let src = format!("e: {}x{}", "(".repeat(n), ")".repeat(n));
            let input = tokens(&src);
            let (out, errors) = scan_with(input, 128, 512);
            let n_errors = errors.len();
            let text_len = out.to_string().len();
            // Dropping the deep input is the tokenizer's business; forget it here.
            (n_errors, text_len)
        })
        .expect("spawn");
    let (n_errors, _) = handle.join().expect("no stack overflow");
    assert_eq!(n_errors, 1);
}

/// The bodies of every `mechanics! { ... }` in the Rust files under `dir`, recursively
/// (`skip`: directories left out).
fn models_under(dir: &std::path::Path, skip: &[&str], out: &mut Vec<(String, TokenStream)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            if !skip.iter().any(|s| path.ends_with(s)) {
                models_under(&path, skip, out);
            }
            continue;
        }
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let Ok(src) = std::fs::read_to_string(&path) else {
            continue;
        };
        let Ok(file) = src.parse::<TokenStream>() else {
            continue;
        };
        let trees: Vec<_> = file.into_iter().collect();
        for w in trees.windows(3) {
            if let [proc_macro2::TokenTree::Ident(m), proc_macro2::TokenTree::Punct(bang), proc_macro2::TokenTree::Group(body)] =
                w
            {
                if m == "mechanics" && bang.as_char() == '!' {
                    out.push((path.display().to_string(), body.stream()));
                }
            }
        }
    }
}

#[test]
fn the_limits_accept_every_model_of_the_repository() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut models = Vec::new();
    for dir in ["examples", "tests", "src", "benches", "embedded"] {
        // `tests/ui/depth` holds the cases that exceed the limits on purpose.
        models_under(&root.join(dir), &["depth", "target"], &mut models);
    }
    assert!(models.len() > 20, "found only {} models", models.len());
    let mut deepest = (0, String::new());
    for (path, body) in models {
        let (_, errors) = super::scan(body.clone());
        assert!(errors.is_empty(), "{path}: {errors:?}");
        // The margin: every model also passes with a quarter of the limits.
        let (_, errors) = scan_with(body, super::MAX_NESTING / 4, super::MAX_DEPTH / 4);
        if !errors.is_empty() {
            deepest = (errors.len(), path);
        }
    }
    assert_eq!(deepest.0, 0, "{} is within 4x of the limits", deepest.1);
}

#[test]
fn items_of_the_top_level_are_separate_segments() {
    // Twenty helpers of four levels each (`:`, `->`, two groups) are not one 80-level segment.
    let items = "fn f(a: f64) -> f64 { a } ".repeat(20);
    let (_, errors) = run(
        &format!("{items} pub struct M {{ lagrangian: x }}"),
        100,
        10,
    );
    assert!(errors.is_empty(), "{errors:?}");
    // Inside an expression, a block does not end the segment.
    let chain = ["{ x }"; 12].join(" + ");
    let (_, errors) = run(&format!("s {{ e: {chain} }}"), 100, 10);
    assert_eq!(errors.len(), 1, "{errors:?}");
}
