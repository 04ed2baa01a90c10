//! The surface syntax of `mechanics!`, parsed with syn. Nothing here knows any mathematics:
//! fields are kept as the user wrote them, with their spans, for `model.rs` to check.
//!
//! Parsing recovers at field boundaries: a field whose value does not parse is recorded as
//! [`FieldValue::Invalid`] with its error, and parsing goes on after the next top-level comma.
//! Only a broken header (`struct Name { ... }` itself) stops it.

use proc_macro2::{Delimiter, Span, TokenStream, TokenTree};
use syn::parse::discouraged::Speculative;
use syn::parse::{Parse, ParseStream, Parser};
use syn::{braced, bracketed, Attribute, Expr, Ident, Token, Visibility};

use crate::ctxt::with_help;

/// The names of the fields a model may have, in the order the docs list them.
pub const FIELD_NAMES: &[&str] = &[
    "coordinates",
    "velocities",
    "parameters",
    "inputs",
    "definitions",
    "lagrangian",
    "holonomic",
    "nonholonomic",
    "forces",
    "dissipation",
    "momenta",
    "hamiltonian",
    "variables",
    "multipliers",
    "v",
    "p",
    "f",
    "r",
    "urdf",
    "mjcf",
    "actuated",
    "bodies",
    "joints",
    "gravity",
    "floating_base",
];

/// `$(#[attr])* $vis struct $Name { $($field: $value),* $(,)? }`
pub struct ModelInput {
    /// `const N: usize = ...;` items before the struct (see `unroll`).
    pub consts: Vec<syn::ItemConst>,
    /// `fn f(a: f64) -> f64 { ... }` items before the struct (see `unroll`).
    pub helpers: Vec<syn::ItemFn>,
    pub attrs: Vec<Attribute>,
    pub vis: Visibility,
    pub name: Ident,
    pub fields: Vec<Field>,
    /// Syntax errors of individual fields (the fields themselves are [`FieldValue::Invalid`]).
    pub errors: Vec<syn::Error>,
    /// The coordinates' and velocities' names as shown in `COORDINATE_NAMES` and
    /// `VELOCITY_NAMES`, when they differ from the identifiers (a model from a file).
    pub shown_names: Option<(Vec<String>, Vec<String>)>,
    /// The model has dry friction (a model file's `friction`/`frictionloss`): forces that turn
    /// over within a velocity of `friction_velocity`, which the simplified Newton matrix does
    /// not see (`Lagrangian::STIFF_DISSIPATION`).
    pub dry_friction: bool,
}

/// One `$key: $value` entry of the model body.
pub struct Field {
    pub key: Ident,
    pub value: FieldValue,
}

/// The value of a field, shaped by its key.
pub enum FieldValue {
    /// `[a, b, c]` (`coordinates`, `velocities`, `inputs`, ...).
    Names(NameList),
    /// `[m = 1.0, l]` (`parameters`).
    Parameters(Vec<ParameterDecl>),
    /// `{ let a = ...; let b = ...; }` (`definitions`).
    Definitions(syn::Block),
    /// One expression (`lagrangian`, `hamiltonian`, `dissipation`).
    Expr(Box<Expr>),
    /// `[e1, e2]` (`holonomic`, `nonholonomic`, `forces`, ...).
    Exprs(ExprList),
    /// A key that is not a field: its value was skipped.
    Unknown,
    /// A known key whose value did not parse (the error is in [`ModelInput::errors`]).
    Invalid,
    /// The tokens of a field that `mechanism` reads (`urdf`, `mjcf`, `actuated`, keyed
    /// `forces: { .. }`).
    Tokens(TokenStream),
}

/// `[$($name $([$size])?),*]`, with the span of the brackets for errors about the list as a
/// whole. `sizes[i]` is the array size written after `names[i]` (`x[N]`); `unroll` replaces
/// each array by its elements and empties `sizes`.
pub struct NameList {
    pub span: Span,
    pub names: Vec<Ident>,
    pub sizes: Vec<Option<Expr>>,
}

/// `[$($expr),*]`.
pub struct ExprList {
    pub exprs: Vec<Expr>,
}

/// `$name` or `$name = $default`.
pub struct ParameterDecl {
    pub name: Ident,
    pub default: Option<Expr>,
    /// `$name[$size]`: an array of parameters (`unroll` replaces it by its elements).
    pub size: Option<Expr>,
    /// Set by `unroll` on the elements of an array: the array's name and the index.
    pub element: Option<(Ident, usize)>,
}

impl ParameterDecl {
    /// `$name` or `$name = $default`. A type annotation (`m: f64`) is an error recorded in
    /// `errors`; the declaration is still returned, so that the name stays declared.
    fn parse_recovering(input: ParseStream, errors: &mut Vec<syn::Error>) -> syn::Result<Self> {
        let name: Ident = input.parse()?;
        let size = if input.peek(syn::token::Bracket) {
            let content;
            bracketed!(content in input);
            Some(content.parse::<Expr>()?)
        } else {
            None
        };
        if input.peek(Token![:]) {
            let colon: Token![:] = input.parse()?;
            let ty: syn::Type = input.parse()?;
            errors.push(syn::Error::new_spanned(
                quote::quote!(#colon #ty),
                with_help(
                    "a parameter takes no type annotation: every parameter is an `f64`",
                    format!("write `{name}` or `{name} = 1.0` (with a default)"),
                ),
            ));
        }
        let default = if input.peek(Token![=]) {
            input.parse::<Token![=]>()?;
            Some(input.parse()?)
        } else {
            None
        };
        Ok(Self {
            name,
            default,
            size,
            element: None,
        })
    }
}

/// `[$($item),* $(,)?]`, returning the span of the brackets and the items. An item that does
/// not parse is an error in `errors` and is skipped up to the next comma, so that one bad
/// item does not lose the others.
fn bracketed_list<T>(
    input: ParseStream,
    errors: &mut Vec<syn::Error>,
    f: impl Fn(ParseStream, &mut Vec<syn::Error>) -> syn::Result<T>,
) -> syn::Result<(Span, Vec<T>)> {
    let content;
    let bracket = bracketed!(content in input);
    let mut items = Vec::new();
    while !content.is_empty() {
        let fork = content.fork();
        match f(&fork, errors) {
            Ok(item) if fork.is_empty() || fork.peek(Token![,]) => {
                content.advance_to(&fork);
                items.push(item);
            }
            Ok(_) => {
                content.advance_to(&fork);
                errors.push(content.error("expected `,`"));
                skip_to_comma(&content);
            }
            Err(err) => {
                errors.push(err);
                skip_to_comma(&content);
            }
        }
        if !content.is_empty() {
            content.parse::<Token![,]>()?;
        }
    }
    Ok((bracket.span.join(), items))
}

impl FieldValue {
    /// Parses the value of the field `key` (an unknown key's value is skipped). Errors inside
    /// a list go to `errors`; an `Err` means the value as a whole is unusable.
    fn parse_for(
        key: &Ident,
        input: ParseStream,
        errors: &mut Vec<syn::Error>,
    ) -> syn::Result<Self> {
        Ok(match key.to_string().as_str() {
            "urdf" | "mjcf" | "actuated" | "bodies" | "joints" | "gravity" | "floating_base" => {
                FieldValue::Tokens(tokens_to_comma(input))
            }
            "forces" if input.peek(syn::token::Brace) => FieldValue::Tokens(tokens_to_comma(input)),
            "coordinates" | "velocities" | "momenta" | "variables" | "multipliers" | "inputs" => {
                let what = match key.to_string().as_str() {
                    "coordinates" => "a coordinate name such as `x`",
                    "velocities" => "a velocity name such as `vx`",
                    "momenta" => "a momentum name such as `px`",
                    "variables" => "a variable name such as `z1`",
                    "inputs" => "an input name such as `u`",
                    _ => "a multiplier name such as `lambda`",
                };
                let arrays_allowed = !matches!(key.to_string().as_str(), "inputs");
                let (span, items) = bracketed_list(input, errors, |i, _| {
                    let name = i
                        .parse::<Ident>()
                        .map_err(|e| syn::Error::new(e.span(), format!("expected {what}")))?;
                    let size = if i.peek(syn::token::Bracket) {
                        let content;
                        let brackets = bracketed!(content in i);
                        if !arrays_allowed {
                            return Err(syn::Error::new(
                                brackets.span.join(),
                                with_help(
                                    "inputs cannot be arrays",
                                    "declare each input by name: they become struct fields",
                                ),
                            ));
                        }
                        Some(content.parse::<Expr>()?)
                    } else {
                        None
                    };
                    Ok((name, size))
                })?;
                let (names, sizes) = items.into_iter().unzip();
                FieldValue::Names(NameList { span, names, sizes })
            }
            "parameters" => FieldValue::Parameters(
                bracketed_list(input, errors, ParameterDecl::parse_recovering)?.1,
            ),
            "definitions" => FieldValue::Definitions(input.parse()?),
            "lagrangian" | "hamiltonian" | "dissipation" => {
                FieldValue::Expr(Box::new(input.parse()?))
            }
            "holonomic" | "nonholonomic" | "forces" | "v" | "p" | "f" | "r" => {
                let (_, exprs) = bracketed_list(input, errors, |i, _| i.parse::<Expr>())?;
                FieldValue::Exprs(ExprList { exprs })
            }
            _ => {
                skip_to_comma(input);
                FieldValue::Unknown
            }
        })
    }
}

/// The token trees up to (not including) the next top-level comma.
fn tokens_to_comma(input: ParseStream) -> TokenStream {
    let mut out = TokenStream::new();
    while !input.is_empty() && !input.peek(Token![,]) {
        match input.parse::<TokenTree>() {
            Ok(t) => out.extend([t]),
            Err(_) => break,
        }
    }
    out
}

/// Skips token trees up to (not including) the next top-level comma.
fn skip_to_comma(input: ParseStream) {
    while !input.is_empty() && !input.peek(Token![,]) {
        if input.parse::<TokenTree>().is_err() {
            break;
        }
    }
}

/// Parses one `key: value` field, recording a syntax error in `errors` instead of failing, and
/// leaving `input` after the field (or at the next top-level comma when it is broken).
fn parse_field(input: ParseStream, errors: &mut Vec<syn::Error>) -> Option<Field> {
    let key: Ident = match input.parse() {
        Ok(key) => key,
        Err(err) => {
            errors.push(syn::Error::new(
                err.span(),
                "expected a field such as `coordinates: [x, y]`",
            ));
            skip_to_comma(input);
            return None;
        }
    };
    if let Err(err) = input.parse::<Token![:]>() {
        errors.push(syn::Error::new(
            err.span(),
            format!("expected `:` after the field name `{key}`"),
        ));
        skip_to_comma(input);
        return Some(Field {
            key,
            value: FieldValue::Invalid,
        });
    }
    let fork = input.fork();
    let mut item_errors = Vec::new();
    match FieldValue::parse_for(&key, &fork, &mut item_errors) {
        Ok(value) => {
            input.advance_to(&fork);
            errors.extend(item_errors);
            Some(Field { key, value })
        }
        Err(err) => {
            errors.extend(item_errors);
            errors.push(err);
            skip_to_comma(input);
            Some(Field {
                key,
                value: FieldValue::Invalid,
            })
        }
    }
}

/// Parses `const` and `fn` items (with their attributes and any visibility or qualifiers, which
/// `unroll` checks) up to the first token that starts neither.
fn items(
    input: ParseStream,
    consts: &mut Vec<syn::ItemConst>,
    helpers: &mut Vec<syn::ItemFn>,
) -> syn::Result<()> {
    loop {
        let fork = input.fork();
        fork.call(Attribute::parse_outer)?;
        fork.parse::<Visibility>()?;
        if fork.peek(Token![const]) && !fork.peek2(Token![fn]) && !fork.peek2(Token![unsafe]) {
            consts.push(input.parse::<syn::ItemConst>()?);
        } else if fork.peek(Token![fn])
            || fork.peek(Token![const])
            || fork.peek(Token![unsafe])
            || fork.peek(Token![async])
            || fork.peek(Token![extern])
        {
            helpers.push(input.parse::<syn::ItemFn>()?);
        } else {
            return Ok(());
        }
    }
}

impl Parse for ModelInput {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        // Constants and helpers, before the struct (or after it, as Rust items may be
        // anywhere); each may carry attributes (doc comments).
        let (mut consts, mut helpers) = (Vec::new(), Vec::new());
        items(input, &mut consts, &mut helpers)?;
        let attrs = input.call(Attribute::parse_outer)?;
        let vis: Visibility = input.parse()?;
        if !input.peek(Token![struct]) {
            return Err(input.error(with_help(
                "expected `struct`",
                "a model is written `pub struct Name { coordinates: [...], ... }`",
            )));
        }
        input.parse::<Token![struct]>()?;
        let name: Ident = input.parse()?;
        let content;
        braced!(content in input);
        let mut fields = Vec::new();
        let mut errors = Vec::new();
        while !content.is_empty() {
            let key = parse_field(&content, &mut errors).map(|f| {
                let key = f.key.clone();
                fields.push(f);
                key
            });
            if content.is_empty() {
                break;
            }
            if content.peek(Token![,]) {
                content.parse::<Token![,]>()?;
                continue;
            }
            // Tokens after a complete value: most likely a missing comma before the next field.
            let msg = match key {
                Some(key) => format!("expected `,` after the value of `{key}`"),
                None => "expected `,`".to_string(),
            };
            errors.push(content.error(msg));
            if !(content.peek(Ident) && content.peek2(Token![:])) {
                skip_to_comma(&content);
                if content.peek(Token![,]) {
                    content.parse::<Token![,]>()?;
                }
            }
        }
        if let Err(e) = items(input, &mut consts, &mut helpers) {
            errors.push(e);
            input.parse::<TokenStream>()?;
        }
        if !input.is_empty() {
            errors.push(input.error(with_help(
                "unexpected tokens after the model's closing brace",
                "one `mechanics!` defines one model; invoke the macro once per model",
            )));
            input.parse::<TokenStream>()?;
        }
        Ok(Self {
            consts,
            helpers,
            attrs,
            vis,
            name,
            fields,
            errors,
            shown_names: None,
            dry_friction: false,
        })
    }
}

/// What [`recover`] finds of a model whose header does not parse.
pub enum Recovered {
    /// Only the name and what precedes it (attributes, visibility): the stub of an empty model.
    Name(Vec<Attribute>, Visibility, Ident),
    /// The name and a body, parsed as a model of that name.
    Model(ModelInput),
}

/// The name of a model whose header does not parse: the identifier after `struct`, or, when
/// `struct` is missing, an identifier directly followed by a `{ ... }` body. The attributes and
/// visibility before it are kept when they parse; the body is the first `{ ... }` after it.
pub fn recover(input: TokenStream) -> Option<Recovered> {
    let tokens: Vec<TokenTree> = input.into_iter().collect();
    let is_body =
        |t: &TokenTree| matches!(t, TokenTree::Group(g) if g.delimiter() == Delimiter::Brace);
    let is_ident = |t: &TokenTree, s: &str| matches!(t, TokenTree::Ident(id) if id == s);
    let (head_end, name_at) = match tokens.iter().position(|t| is_ident(t, "struct")) {
        Some(i) => (i, i + 1),
        None => {
            let i = tokens.windows(2).position(|w| {
                matches!(&w[0], TokenTree::Ident(_)) && !is_ident(&w[0], "pub") && is_body(&w[1])
            })?;
            (i, i)
        }
    };
    let TokenTree::Ident(name) = tokens.get(name_at)? else {
        return None;
    };
    let head: TokenStream = tokens[..head_end].iter().cloned().collect();
    let head_parser = |input: ParseStream| {
        let attrs = input.call(Attribute::parse_outer)?;
        let vis: Visibility = input.parse()?;
        input.parse::<TokenStream>()?;
        Ok((attrs, vis))
    };
    let (attrs, vis) = head_parser
        .parse2(head)
        .unwrap_or((Vec::new(), Visibility::Inherited));
    let body = tokens[name_at + 1..].iter().find(|t| is_body(t));
    match body.map(|body| syn::parse2::<ModelInput>(quote::quote!(struct #name #body))) {
        Some(Ok(mut model)) => {
            model.attrs = attrs;
            model.vis = vis;
            Some(Recovered::Model(model))
        }
        _ => Some(Recovered::Name(attrs, vis, name.clone())),
    }
}
