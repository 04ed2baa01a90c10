//! Time of `mechanics!`'s expansion (parse, checks, differentiation, emission) for the models in
//! `examples/models/` (the seven-body mechanism and the N-link chains), measured on the macro's own code outside the compiler.
//!
//! `cargo bench -p spark-macros --bench expansion` (everything), or
//! `cargo bench -p spark-macros --bench expansion -- sums [N ...]` (only the growth with the
//! number of terms of one sum, `(0..N).map(|i| (x * i).sin()).sum()` in a Lagrangian;
//! default N = 100, 1000, 10000).
//!
//! A proc-macro crate exports only macros, so the macro's modules are compiled into this bench
//! directly.

// The macro's own unit tests come along (and are unused) when this crate is built as a test.
#![allow(dead_code, unused_imports)]

#[path = "../src/check.rs"]
mod check;
#[path = "../src/ctxt.rs"]
mod ctxt;
#[path = "../src/depth.rs"]
mod depth;
#[path = "../src/expand.rs"]
mod expand;
#[path = "../src/forces.rs"]
mod forces;
#[path = "../src/lower.rs"]
mod lower;
#[path = "../src/mechanism/mod.rs"]
mod mechanism;
#[path = "../src/model.rs"]
mod model;
#[path = "../src/params.rs"]
mod params;
#[path = "../src/parse.rs"]
mod parse;
#[path = "../src/saddle.rs"]
mod saddle;
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

/// The 3D chain of `n` point masses written with the DSL's arrays (`examples/chain3d.rs`).
fn chain3d(n: usize) -> proc_macro2::TokenStream {
    let n = proc_macro2::Literal::usize_unsuffixed(n);
    quote::quote! {
        const N: usize = #n;
        fn norm2(a: f64, b: f64, c: f64) -> f64 { a.powi(2) + b.powi(2) + c.powi(2) }
        pub struct Chain3d {
            coordinates: [x[N], y[N], z[N]],
            velocities: [vx[N], vy[N], vz[N]],
            parameters: [g = 9.81],
            lagrangian: (0..N).map(|i| 0.5 * norm2(vx[i], vy[i], vz[i]) - g * z[i]).sum::<f64>(),
            holonomic: [
                norm2(x[0], y[0], z[0]) - 1.0,
                for i in 1..N { norm2(x[i] - x[i - 1], y[i] - y[i - 1], z[i] - z[i - 1]) - 1.0 },
            ],
        }
    }
}

/// A URDF serial chain of `n` links: revolute joints about alternating axes, rotated joint
/// frames, full inertia tensors off the joint axes (issue 29's growth measurement).
fn urdf_chain(n: usize) -> String {
    let mut s = String::from("<robot name=\"chain\">\n<link name=\"l0\"/>\n");
    for k in 1..=n {
        s +=
            &format!(
            "<link name=\"l{k}\"><inertial><origin xyz=\"0.02 0.01 0.15\" rpy=\"0.1 0.2 0.3\"/>\
             <mass value=\"1.5\"/><inertia ixx=\"0.02\" ixy=\"0.001\" ixz=\"-0.002\" iyy=\"0.025\" \
             iyz=\"0.003\" izz=\"0.015\"/></inertial></link>\n\
             <joint name=\"j{k}\" type=\"revolute\"><parent link=\"l{}\"/><child link=\"l{k}\"/>\
             <origin xyz=\"0 0.05 0.3\" rpy=\"{} 0 0.2\"/><axis xyz=\"0 0 1\"/>\
             <dynamics damping=\"0.1\"/></joint>\n",
            k - 1,
            if k % 2 == 0 { "1.5707963" } else { "-1.5707963" }
        );
    }
    s + "</robot>\n"
}

/// Issue 29's size table: `files [chainN | panda | ur5 | mjcf_arm | urdf:PATH |
/// floating:PATH (a URDF with `floating_base: true`) | mjcf:PATH ...]` (default: the Panda, the
/// UR5 and the URDF chains of 5, 10, 20, 30 links), one expansion each (the large ones take
/// seconds), with the size of each generated function.
fn files(which: &[String]) {
    let default: Vec<String> = ["panda", "ur5", "chain5", "chain10", "chain20", "chain30"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let which = if which.is_empty() {
        &default[..]
    } else {
        which
    };
    let dir = std::env::temp_dir().join(format!("spark-expansion-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let models = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/models");
    for w in which {
        let mut floating = false;
        let (key, path) = match w.as_str() {
            "panda" => ("urdf", format!("{models}/panda/panda.urdf")),
            "ur5" => ("urdf", format!("{models}/ur5/ur5_robot.urdf")),
            "mjcf_arm" => ("mjcf", format!("{models}/mjcf_arm.xml")),
            c if c.starts_with("urdf:") => ("urdf", c[5..].to_string()),
            c if c.starts_with("floating:") => {
                floating = true;
                ("urdf", c[9..].to_string())
            }
            c if c.starts_with("mjcf:") => ("mjcf", c[5..].to_string()),
            c => {
                let n: usize = c.trim_start_matches("chain").parse().expect("chainN");
                let path = dir.join(format!("chain{n}.urdf"));
                std::fs::write(&path, urdf_chain(n)).unwrap();
                ("urdf", path.to_str().unwrap().to_string())
            }
        };
        let key = quote::format_ident!("{}", key);
        let tokens = if floating {
            quote::quote!(pub struct FromFile { #key: #path, floating_base: true, })
        } else {
            quote::quote!(pub struct FromFile { #key: #path, })
        };
        let start = Instant::now();
        let out = expand::expand(tokens);
        let secs = start.elapsed().as_secs_f64();
        let text = out.to_string();
        if let Some(i) = text.find("compile_error") {
            let end = (i + 400).min(text.len());
            println!("{w}: the expansion reports an error: {}", &text[i..end]);
        }
        println!(
            "{w}: expansion {secs:.2} s, {} characters of code",
            text.len()
        );
        // The generated functions, by size.
        let mut fns: Vec<(usize, String)> = Vec::new();
        let mut rest = text.as_str();
        while let Some(i) = rest.find(" fn ") {
            rest = &rest[i + 4..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            let end = rest.find(" fn ").unwrap_or(rest.len());
            fns.push((end, name));
        }
        fns.sort_by(|a, b| b.cmp(a));
        for (size, name) in fns.iter().take(8) {
            println!("    fn {name}: {size} characters");
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// Median of `runs` expansions of `tokens`, in seconds, and the size of the code.
fn time_expansion(tokens: &proc_macro2::TokenStream, runs: usize) -> (f64, f64, f64, usize) {
    let mut times = Vec::new();
    let mut size = 0;
    for _ in 0..runs {
        let start = Instant::now();
        let out = expand::expand(tokens.clone());
        times.push(start.elapsed().as_secs_f64());
        size = out.to_string().len();
    }
    times.sort_by(f64::total_cmp);
    (
        times[times.len() / 2],
        times[0],
        times[times.len() - 1],
        size,
    )
}

/// A one-coordinate model whose Lagrangian holds a sum of `n` terms `sin(i·x)`.
fn sum_model(n: usize) -> proc_macro2::TokenStream {
    let n = proc_macro2::Literal::usize_unsuffixed(n);
    quote::quote! {
        pub struct Sum {
            coordinates: [x],
            velocities: [vx],
            parameters: [k = 1.0],
            lagrangian: 0.5 * vx.powi(2) - k * (0..#n).map(|i| (x * i).sin()).sum::<f64>(),
        }
    }
}

/// Expansion time against the number of terms of a sum (issue 28), on a thread with rustc's
/// 8 MiB stack.
fn sums(sizes: &[usize]) {
    for &n in sizes {
        let runs = if n >= 10_000 { 3 } else { 7 };
        let (median, lo, hi, size) = std::thread::Builder::new()
            .stack_size(8 << 20)
            .spawn(move || time_expansion(&sum_model(n), runs))
            .expect("spawn")
            .join()
            .expect("the expansion does not panic");
        println!(
            "sum of {n} terms: expansion median {:.1} ms (min {:.1}, max {:.1} over {runs} runs), {size} characters of code",
            median * 1e3,
            lo * 1e3,
            hi * 1e3
        );
    }
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    if args.first().map(String::as_str) == Some("sums") {
        let sizes: Vec<usize> = args[1..].iter().filter_map(|a| a.parse().ok()).collect();
        sums(if sizes.is_empty() {
            &[100, 1000, 10_000]
        } else {
            &sizes
        });
        return;
    }
    if args.first().map(String::as_str) == Some("files") {
        files(&args[1..]);
        return;
    }
    // Mechanisms from URDF files: serial chains of 5 .. 30 links, and the model files of
    // `tests/models/` (issue 29).
    let dir = std::env::temp_dir().join(format!("spark-expansion-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut files: Vec<(String, std::path::PathBuf)> = Vec::new();
    for n in [5usize, 10, 20, 30] {
        let path = dir.join(format!("chain{n}.urdf"));
        std::fs::write(&path, urdf_chain(n)).unwrap();
        files.push((format!("URDF chain of {n} links"), path));
    }
    let models = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/models");
    let mut found: Vec<_> = std::fs::read_dir(models)
        .map(|d| d.filter_map(|e| e.ok()).map(|e| e.path()).collect())
        .unwrap_or_default();
    found.sort();
    for path in found {
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        if ext == "urdf" || ext == "xml" {
            files.push((format!("{}", path.display()), path));
        }
    }
    for (label, path) in files {
        let key = if path.extension().is_some_and(|e| e == "urdf") {
            quote::format_ident!("urdf")
        } else {
            quote::format_ident!("mjcf")
        };
        let lit = path.to_str().unwrap();
        let tokens = quote::quote!(pub struct FromFile { #key: #lit, });
        let (median, lo, hi, size) = time_expansion(&tokens, 5);
        println!(
            "{label}: expansion median {:.1} ms (min {:.1}, max {:.1} over 5 runs), {size} characters of code",
            median * 1e3,
            lo * 1e3,
            hi * 1e3
        );
    }
    std::fs::remove_dir_all(&dir).ok();
    // Growth with the model's size: 3D chains written with arrays (issue 16).
    let mut points = Vec::new();
    for n in [5usize, 10, 20, 40, 80] {
        let runs = if n >= 40 { 5 } else { 11 };
        let (median, lo, hi, size) = time_expansion(&chain3d(n), runs);
        println!(
            "3D chain N = {n}: expansion median {:.1} ms (min {:.1}, max {:.1} over {runs} runs), {size} characters of code",
            median * 1e3,
            lo * 1e3,
            hi * 1e3
        );
        points.push((n as f64, median));
    }
    for w in points.windows(2) {
        let slope = (w[1].1 / w[0].1).ln() / (w[1].0 / w[0].0).ln();
        println!("  growth N = {} -> {}: exponent {slope:.2}", w[0].0, w[1].0);
    }
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/models/");
    // seven_body.rs: Andrews' squeezing mechanism; chain.rs: the N-link chains (N = 1 .. 16)
    // of the CasADi peer benchmark (docs/performance.md).
    // bicycle.rs: the Whipple bicycle (issue 16).
    for file in ["seven_body", "chain", "bicycle"] {
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
