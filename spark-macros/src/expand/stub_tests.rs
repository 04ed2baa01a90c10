//! The stub that a model with errors expands to: one `compile_error!` per mistake, and a struct
//! with what the real one has (fields, derives, `Default`, constants), so that the code using
//! the model adds no errors of its own. The trybuild cases in `tests/ui/stub/` check the same
//! through rustc.

use proc_macro2::TokenStream;
use quote::{quote, ToTokens};

use crate::expand::expand;

/// The items of one expansion, as text.
#[derive(Debug, Default)]
struct Items {
    /// The messages of the `compile_error!`s.
    errors: Vec<String>,
    /// The struct, without the stub's `#[allow(dead_code)]`.
    structure: Option<String>,
    /// `impl Default`.
    default: Option<String>,
    /// The inherent impl with the constants.
    constants: Option<String>,
    /// The traits implemented, as `Name<N, M>`.
    traits: Vec<String>,
}

fn items(tokens: TokenStream) -> Items {
    let file: syn::File = syn::parse2(tokens).expect("the expansion is a list of items");
    let mut out = Items::default();
    for item in file.items {
        match item {
            syn::Item::Macro(m) => {
                let last = m.mac.path.segments.last().expect("a macro path");
                assert_eq!(last.ident, "compile_error", "{}", m.to_token_stream());
                let msg: syn::LitStr = m.mac.parse_body().expect("a message");
                out.errors.push(msg.value());
            }
            syn::Item::Struct(mut s) => {
                assert!(out.structure.is_none(), "two structs");
                s.attrs
                    .retain(|a| a.to_token_stream().to_string() != "# [allow (dead_code)]");
                out.structure = Some(s.to_token_stream().to_string());
            }
            syn::Item::Impl(i) => {
                let text = i.to_token_stream().to_string();
                match &i.trait_ {
                    None => out.constants = Some(text),
                    Some((_, path, _)) => {
                        let last = path.segments.last().expect("a trait path");
                        let name = last.to_token_stream().to_string().replace(' ', "");
                        if name == "Default" {
                            out.default = Some(text);
                        } else {
                            out.traits.push(name);
                        }
                    }
                }
            }
            other => panic!("unexpected item {}", other.to_token_stream()),
        }
    }
    out
}

/// The expansion of `mechanics! { #model }`, item by item.
fn expansion(model: TokenStream) -> Items {
    items(expand(model))
}

/// A constant of the stub's inherent impl, as text (`2usize`, `["x", "y"]`).
fn constant(items: &Items, name: &str) -> String {
    let text = items.constants.as_deref().expect("an inherent impl");
    let imp: syn::ItemImpl = syn::parse_str(text).expect("an impl");
    for item in imp.items {
        if let syn::ImplItem::Const(c) = item {
            if c.ident == name {
                let ty = c.ty.to_token_stream().to_string();
                return format!("{}: {}", c.expr.to_token_stream(), ty);
            }
        }
    }
    panic!("no constant {name} in {text}")
}

/// Valid models of every form and shape of `Default`, each to be broken by one mistake.
fn valid_models() -> Vec<TokenStream> {
    vec![
        quote! {
            /// A pendulum.
            pub struct Pendulum {
                coordinates: [x, y],
                velocities: [vx, vy],
                parameters: [m = 1.0, l = 1.5, g = -9.81],
                lagrangian: 0.5 * m * (vx.powi(2) + vy.powi(2)) - m * g * y,
                holonomic: [x.powi(2) + y.powi(2) - l.powi(2)],
            }
        },
        // No doc, private, a parameter without a default: no `Default`.
        quote! {
            struct Spring {
                coordinates: [q],
                velocities: [v],
                parameters: [m = 2, k],
                lagrangian: 0.5 * m * v.powi(2) - 0.5 * k * q.powi(2),
            }
        },
        // The user derives `Default`.
        quote! {
            #[derive(Default)]
            pub(crate) struct Free {
                coordinates: [x],
                velocities: [vx],
                parameters: [m],
                lagrangian: 0.5 * m * vx.powi(2),
            }
        },
        // No parameters: `Default` all the same; a nonholonomic constraint.
        quote! {
            pub struct KnifeEdge {
                coordinates: [x, y, phi],
                velocities: [vx, vy, vphi],
                lagrangian: 0.5 * (vx.powi(2) + vy.powi(2) + vphi.powi(2)),
                nonholonomic: [vx * phi.sin() - vy * phi.cos()],
            }
        },
        quote! {
            pub struct Hamilton {
                coordinates: [x, y],
                momenta: [px, py],
                parameters: [m = 1.0, l = 1.0],
                hamiltonian: (px.powi(2) + py.powi(2)) / (2.0 * m) + m * y,
                holonomic: [x.powi(2) + y.powi(2) - l.powi(2)],
            }
        },
        quote! {
            pub struct Dae {
                coordinates: [y1, y2],
                variables: [z1, z2],
                multipliers: [lam],
                parameters: [c = 0.5],
                v: [2.0 * z1, -z2],
                p: [z1, z2],
                f: [2.0 * y1 * y2 * z1 * z2 - y1 * z1 * z2, z1 - c * y1 * z2.powi(3)],
                r: [y1 * y2 * lam.powi(2), -y1.sqrt() * lam],
                holonomic: [y1 * y2.powi(2) - 1.0],
            }
        },
    ]
}

/// `model` with `extra` added as its last field.
fn with_field(model: &TokenStream, extra: TokenStream) -> TokenStream {
    let mut tokens: Vec<proc_macro2::TokenTree> = model.clone().into_iter().collect();
    let Some(proc_macro2::TokenTree::Group(body)) = tokens.pop() else {
        panic!("a model ends with its body")
    };
    let inner = body.stream();
    let group = proc_macro2::Group::new(body.delimiter(), quote!(#inner #extra));
    tokens.push(group.into());
    tokens.into_iter().collect()
}

#[test]
fn the_stub_has_the_real_struct_default_and_constants() {
    for model in valid_models() {
        let real = expansion(model.clone());
        assert!(real.errors.is_empty(), "{:?}\n{model}", real.errors);
        let broken = expansion(with_field(&model, quote!(lagrangain: 0.0,)));
        assert_eq!(broken.errors.len(), 1, "{:?}", broken.errors);
        assert!(broken.errors[0].starts_with("unknown field `lagrangain`"));
        assert_eq!(broken.structure, real.structure, "{model}");
        assert_eq!(broken.default, real.default, "{model}");
        assert_eq!(broken.constants, real.constants, "{model}");
    }
}

#[test]
fn the_stub_implements_the_lagrangian_trait_when_the_sizes_are_known() {
    let traits: Vec<Vec<String>> = valid_models()
        .iter()
        .map(|m| expansion(with_field(m, quote!(oops: 1,))).traits)
        .collect();
    // With the sizes known the stub also implements `Inputs` and `Dimensions`, so that code
    // written against the model adds no errors of its own.
    assert_eq!(
        traits[0],
        [
            "Model",
            "Lagrangian<2usize,1usize>",
            "Inputs<2usize,0usize>",
            "Dimensions<2usize,1usize,0,0usize,2usize,4usize>"
        ]
    );
    assert_eq!(&traits[1][..2], ["Model", "Lagrangian<1usize,0usize>"]);
    // Forms other than the Lagrangian one have no trait stubs.
    assert_eq!(traits[4], ["Model"]);
    assert_eq!(traits[5], ["Model"]);
}

#[test]
fn a_malformed_default_reads_as_zero_in_the_stub() {
    let items = expansion(quote! {
        pub struct Spring {
            coordinates: [x],
            velocities: [vx],
            parameters: [m = 2.0 * 0.5, k = -4, d = 1e999, m = 3.0],
            lagrangian: 0.5 * m * vx.powi(2) - 0.5 * k * x.powi(2) + d * x,
        }
    });
    // Two malformed defaults and the duplicate (reported on both declarations).
    assert_eq!(items.errors.len(), 4, "{:?}", items.errors);
    let default = items.default.as_deref().expect("a `Default`");
    assert!(
        default.contains("Self { m : 0f64 , k : - 4f64 , d : 0f64 }"),
        "{default}"
    );
    assert_eq!(constant(&items, "PARAMETERS"), "3usize: usize");
    assert_eq!(
        constant(&items, "PARAMETER_NAMES"),
        r#"["m" , "k" , "d"]: [& 'static str ; 3usize]"#
    );
}

#[test]
fn a_parameter_without_default_means_no_default_in_the_stub() {
    let items = expansion(quote! {
        pub struct Spring {
            coordinates: [x],
            velocities: [vx],
            parameters: [m = 1.0, k],
            lagrangian: 0.5 * m * vx.powi(2) - 0.5 * k * xx.powi(2),
        }
    });
    assert_eq!(items.errors.len(), 1, "{:?}", items.errors);
    assert!(items.default.is_none());
    assert!(items.structure.expect("a struct").contains("pub k : f64"));
}

#[test]
fn the_stub_counts_what_parsed() {
    // A constraint that does not parse, and a velocity missing.
    let items = expansion(quote! {
        pub struct Pendulum {
            coordinates: [x, y],
            velocities: [vx],
            parameters: [l = 1.0],
            lagrangian: 0.5 * vx.powi(2) - y,
            holonomic: [x.powi(2) + y.powi(2) - l.powi(2), y +],
        }
    });
    assert_eq!(items.errors.len(), 2, "{:?}", items.errors);
    assert_eq!(constant(&items, "COORDINATES"), "2usize: usize");
    assert_eq!(constant(&items, "HOLONOMIC_CONSTRAINTS"), "1usize: usize");
    assert_eq!(
        constant(&items, "COORDINATE_NAMES"),
        r#"["x" , "y"]: [& 'static str ; 2usize]"#
    );
    assert_eq!(
        constant(&items, "VELOCITY_NAMES"),
        r#"["vx" , ""]: [& 'static str ; 2usize]"#
    );
    // The lists disagree: no sizes for the traits.
    assert_eq!(items.traits, ["Model"]);

    // No coordinates: the velocities give the count.
    let items = expansion(quote! {
        pub struct Free {
            velocities: [vx, vy],
            lagrangian: 0.5 * vx.powi(2),
        }
    });
    assert_eq!(
        constant(&items, "COORDINATE_NAMES"),
        r#"["" , ""]: [& 'static str ; 2usize]"#
    );
    assert_eq!(constant(&items, "HOLONOMIC_CONSTRAINTS"), "0usize: usize");
    assert!(items.default.is_some());
}

#[test]
fn a_broken_header_keeps_the_name_and_the_body() {
    // `struct` missing: the body's own mistake is reported too.
    let items = expansion(quote! {
        /// A pendulum.
        pub Pendulum {
            coordinates: [theta],
            velocities: [omega],
            parameters: [m = 1.0],
            lagrangian: 0.5 * m * omega.powi(2) + thetaa.cos(),
        }
    });
    assert_eq!(items.errors.len(), 2, "{:?}", items.errors);
    assert!(items.errors[0].starts_with("expected `struct`"));
    assert!(items.errors[1].starts_with("cannot find `thetaa`"));
    let structure = items.structure.expect("a struct");
    assert!(
        structure.starts_with("# [doc = r\" A pendulum.\"]"),
        "{structure}"
    );
    assert!(
        structure.contains(
            "pub struct Pendulum { # [doc = \"Parameter `m` (default `1.0`).\"] pub m : f64 , }"
        ),
        "{structure}"
    );
    assert!(items.default.is_some());
    assert_eq!(
        items.traits,
        [
            "Model",
            "Lagrangian<1usize,0usize>",
            "Inputs<1usize,0usize>",
            "Dimensions<1usize,0usize,0,0usize,2usize,2usize>"
        ]
    );

    // A generic model: the body after the generics.
    let items = expansion(quote! {
        pub(crate) struct Oscillator<T> {
            coordinates: [q],
            velocities: [v],
            parameters: [k = 4.0],
            lagrangian: 0.5 * v.powi(2) - 0.5 * k * q.powi(2),
        }
    });
    assert_eq!(items.errors.len(), 1, "{:?}", items.errors);
    let structure = items.structure.as_deref().expect("a struct");
    assert!(
        structure.contains("pub (crate) struct Oscillator"),
        "{structure}"
    );
    assert_eq!(constant(&items, "PARAMETERS"), "1usize: usize");

    // No body: a stub without fields.
    let items = expansion(quote!(
        pub struct Empty;
    ));
    assert_eq!(items.errors.len(), 1, "{:?}", items.errors);
    assert!(items.default.is_some());
    assert_eq!(constant(&items, "COORDINATES"), "0usize: usize");

    // No name: the error alone.
    let items = expansion(quote!(pub struct { coordinates: [x] }));
    assert_eq!(items.errors.len(), 1, "{:?}", items.errors);
    assert!(items.structure.is_none());
}
