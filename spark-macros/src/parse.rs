//! The surface syntax of `mechanics!`, parsed with syn. Nothing here knows any mathematics:
//! fields are kept as the user wrote them, with their spans, for `model.rs` to check.

use proc_macro2::TokenStream;
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{braced, bracketed, Attribute, Expr, Ident, Token, Visibility};

/// The names of the fields a model may have, in the order the docs list them.
pub const FIELD_NAMES: &[&str] = &[
    "coordinates",
    "velocities",
    "parameters",
    "definitions",
    "lagrangian",
    "holonomic",
];

/// `$(#[attr])* $vis struct $Name { $($field: $value),* }`
pub struct ModelInput {
    pub attrs: Vec<Attribute>,
    pub vis: Visibility,
    pub name: Ident,
    pub fields: Vec<Field>,
}

/// One `$key: $value` entry of the model body.
pub struct Field {
    pub key: Ident,
    pub value: FieldValue,
}

/// The value of a field, shaped by its key.
pub enum FieldValue {
    /// `[a, b, c]` (`coordinates`, `velocities`).
    Names(Vec<Ident>),
    /// `[m = 1.0, l]` (`parameters`).
    Parameters(Vec<ParameterDecl>),
    /// `{ let a = ...; let b = ...; }` (`definitions`).
    Definitions(syn::Block),
    /// One expression (`lagrangian`).
    Expr(Box<Expr>),
    /// `[e1, e2]` (`holonomic`).
    Exprs(Vec<Expr>),
    /// A key that is not a field: its value was skipped.
    Unknown,
}

/// `$name` or `$name = $default`.
pub struct ParameterDecl {
    pub name: Ident,
    pub default: Option<Expr>,
}

impl Parse for ParameterDecl {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let name: Ident = input.parse()?;
        let default = if input.peek(Token![=]) {
            input.parse::<Token![=]>()?;
            Some(input.parse()?)
        } else {
            None
        };
        Ok(Self { name, default })
    }
}

fn bracketed_list<T>(
    input: ParseStream,
    f: fn(ParseStream) -> syn::Result<T>,
) -> syn::Result<Vec<T>> {
    let content;
    bracketed!(content in input);
    let list = Punctuated::<T, Token![,]>::parse_terminated_with(&content, f)?;
    Ok(list.into_iter().collect())
}

impl Parse for Field {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let key: Ident = input.parse()?;
        input.parse::<Token![:]>()?;
        let value = match key.to_string().as_str() {
            "coordinates" | "velocities" => FieldValue::Names(bracketed_list(input, Ident::parse)?),
            "parameters" => FieldValue::Parameters(bracketed_list(input, ParameterDecl::parse)?),
            "definitions" => FieldValue::Definitions(input.parse()?),
            "lagrangian" => FieldValue::Expr(Box::new(input.parse()?)),
            "holonomic" => FieldValue::Exprs(bracketed_list(input, Expr::parse)?),
            _ => {
                // Skip the value up to the next top-level comma so the other fields still parse.
                while !input.is_empty() && !input.peek(Token![,]) {
                    input.parse::<proc_macro2::TokenTree>()?;
                }
                FieldValue::Unknown
            }
        };
        Ok(Self { key, value })
    }
}

impl Parse for ModelInput {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let attrs = input.call(Attribute::parse_outer)?;
        let vis: Visibility = input.parse()?;
        input.parse::<Token![struct]>()?;
        let name: Ident = input.parse()?;
        let content;
        braced!(content in input);
        let fields = Punctuated::<Field, Token![,]>::parse_terminated(&content)?;
        if !input.is_empty() {
            return Err(input.error("unexpected tokens after the model's closing brace"));
        }
        Ok(Self {
            attrs,
            vis,
            name,
            fields: fields.into_iter().collect(),
        })
    }
}

/// What to emit when the input does not even parse: the error, plus an empty struct of the
/// intended name when one can be found, so that the user's other code still type-checks.
pub fn fallback(input: TokenStream, err: syn::Error) -> TokenStream {
    let mut out = err.to_compile_error();
    if let Some((vis, name)) = find_name(input) {
        out.extend(quote::quote! {
            #[allow(dead_code)]
            #vis struct #name {}
        });
    }
    out
}

fn find_name(input: TokenStream) -> Option<(TokenStream, Ident)> {
    let mut vis = TokenStream::new();
    let mut iter = input.into_iter().peekable();
    while let Some(tt) = iter.next() {
        if let proc_macro2::TokenTree::Ident(id) = &tt {
            if id == "pub" {
                vis = quote::quote!(pub);
            }
            if id == "struct" {
                if let Some(proc_macro2::TokenTree::Ident(name)) = iter.next() {
                    return Some((vis, name));
                }
                return None;
            }
        }
    }
    None
}
