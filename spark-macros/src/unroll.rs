//! Arrays, loops, constants and helper functions: the DSL's shorthand for large models,
//! rewritten into the scalar DSL before the model is built, so that every later stage (checks,
//! lowering, differentiation, emission) sees only named scalars.
//!
//! * `const N: usize = 10;` before the struct: an integer constant, usable in array sizes,
//!   indices and ranges, and as a number in expressions.
//! * `fn name(a: f64, b: f64) -> f64 { ... }` before the struct: a helper, inlined at each call
//!   as the block `{ let a = (arg); let b = (arg); body }`.
//! * `x[N]` in `coordinates`, `velocities`, `momenta`, `variables`, `multipliers`: the
//!   scalars `x[0]`, ..., `x[N-1]` (named `x__0`, ... inside the expansion); `m[N] = 1.0` in
//!   `parameters`: the struct field `m: [f64; N]`, each element a parameter.
//! * `x[i]` in an expression, `i` an integer expression of literals, constants and loop
//!   variables, checked against the array's size.
//! * `(a..b).map(|i| e).sum()` (also `sum::<f64>()`, `product()`, `a..=b`): unrolled.
//! * `for i in a..b { e }` as an item of a list field (`holonomic`, `forces`, ...): one item per
//!   `i`; loops nest.
//! * `hypot(a, b)` / `a.hypot(b)`: `(a.powi(2) + b.powi(2)).sqrt()`.

use std::collections::HashMap;

use proc_macro2::Span;
use quote::{format_ident, ToTokens};
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;
use syn::{BinOp, Expr, Ident, Lit, Pat, RangeLimits, Stmt, UnOp};

use crate::parse::{FieldValue, ModelInput, ParameterDecl};

/// The name that stands for an expression whose error `unroll` has reported: lowering turns it
/// into its placeholder, so that no later check reports the same mistake again.
pub const REPORTED: &str = "__spark_reported";

/// How deep helper calls may nest (a helper calling itself would never end).
const MAX_INLINE_DEPTH: usize = 32;

/// The name of element `k` of the array `name` inside the expansion.
pub fn element(name: &Ident, k: usize) -> Ident {
    format_ident!("{}__{}", name, k, span = name.span())
}

/// How a name of the expansion is shown to users: `x__3` as `x[3]`.
pub fn display(name: &str) -> String {
    match name.rsplit_once("__") {
        Some((base, k))
            if !base.is_empty() && !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()) =>
        {
            format!("{base}[{k}]")
        }
        _ => name.to_string(),
    }
}

/// Rewrites `input` in place; errors go to `input.errors`.
pub fn apply(input: &mut ModelInput) {
    let mut cx = Unroller {
        ints: HashMap::new(),
        arrays: HashMap::new(),
        helpers: HashMap::new(),
        errors: Vec::new(),
        depth: 0,
    };
    for c in std::mem::take(&mut input.consts) {
        match cx.int(&c.expr) {
            Ok(v) => {
                cx.ints.insert(c.ident.to_string(), v);
            }
            Err(e) => cx.errors.push(e),
        }
    }
    for f in std::mem::take(&mut input.helpers) {
        cx.helper(f);
    }
    // Declarations first: expressions need the arrays' sizes.
    for field in &mut input.fields {
        if let FieldValue::Names(list) = &mut field.value {
            let sizes = std::mem::take(&mut list.sizes);
            if sizes.iter().all(Option::is_none) {
                continue;
            }
            let mut names = Vec::new();
            for (name, size) in list.names.drain(..).zip(sizes) {
                match size {
                    None => names.push(name),
                    Some(size) => match cx.int(&size) {
                        Ok(n) if n >= 1 => {
                            let n = n as usize;
                            cx.arrays.insert(name.to_string(), n);
                            names.extend((0..n).map(|k| element(&name, k)));
                        }
                        Ok(n) => cx.errors.push(syn::Error::new_spanned(
                            &size,
                            format!(
                                "the array `{name}` has size {n}: it needs at least one element"
                            ),
                        )),
                        Err(e) => cx.errors.push(e),
                    },
                }
            }
            list.names = names;
        }
    }
    for field in &mut input.fields {
        if let FieldValue::Parameters(decls) = &mut field.value {
            let mut out = Vec::new();
            for d in decls.drain(..) {
                let Some(size) = &d.size else {
                    out.push(d);
                    continue;
                };
                match cx.int(size) {
                    Ok(n) if n >= 1 => {
                        let n = n as usize;
                        cx.arrays.insert(d.name.to_string(), n);
                        out.extend((0..n).map(|k| ParameterDecl {
                            name: element(&d.name, k),
                            default: d.default.clone(),
                            size: None,
                            element: Some((d.name.clone(), k)),
                        }));
                    }
                    Ok(n) => cx.errors.push(syn::Error::new_spanned(
                        size,
                        format!(
                            "the array `{}` has size {n}: it needs at least one element",
                            d.name
                        ),
                    )),
                    Err(e) => cx.errors.push(e),
                }
            }
            *decls = out;
        }
    }
    for field in &mut input.fields {
        match &mut field.value {
            FieldValue::Expr(e) => cx.visit_expr_mut(e),
            FieldValue::Definitions(block) => cx.visit_block_mut(block),
            FieldValue::Exprs(list) => {
                let items = std::mem::take(&mut list.exprs);
                for item in items {
                    cx.list_item(item, &mut list.exprs);
                }
            }
            FieldValue::Parameters(decls) => {
                for d in decls {
                    if let Some(e) = &mut d.default {
                        cx.visit_expr_mut(e);
                    }
                }
            }
            _ => {}
        }
    }
    input.errors.extend(cx.errors);
}

struct Helper {
    params: Vec<Ident>,
    body: syn::Block,
}

struct Unroller {
    /// Integer constants and the loop variables in scope.
    ints: HashMap<String, i64>,
    /// Declared arrays and their sizes.
    arrays: HashMap<String, usize>,
    helpers: HashMap<String, Helper>,
    errors: Vec<syn::Error>,
    depth: usize,
}

fn error(tokens: impl ToTokens, msg: impl std::fmt::Display) -> syn::Error {
    syn::Error::new_spanned(tokens, msg)
}

fn strip(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => strip(&p.expr),
        Expr::Group(g) => strip(&g.expr),
        _ => e,
    }
}

fn single_ident(e: &Expr) -> Option<&Ident> {
    match strip(e) {
        Expr::Path(p) if p.qself.is_none() => p.path.get_ident(),
        _ => None,
    }
}

fn number(v: f64, span: Span) -> Expr {
    let lit = syn::LitFloat::new(&format!("{v:?}"), span);
    syn::parse_quote_spanned!(span=> #lit)
}

/// `hypot(a, b)` as the DSL can differentiate it: `(a.powi(2) + b.powi(2)).sqrt()`.
fn hypot(a: &Expr, b: &Expr, span: Span) -> Expr {
    syn::parse_quote_spanned!(span=> ((#a).powi(2) + (#b).powi(2)).sqrt())
}

/// `(e)`.
fn paren(e: Expr, span: Span) -> Expr {
    Expr::Paren(syn::ExprParen {
        attrs: Vec::new(),
        paren_token: syn::token::Paren(span),
        expr: Box::new(e),
    })
}

/// The sum (product) of `terms` (at least one) as a balanced tree of `(a) + (b)`: a sum of
/// `n` terms nests `log2(n)` deep, so no later pass recurses deeply on it, and it is built
/// without printing and re-parsing tokens (linear time).
fn balanced(mut terms: Vec<Expr>, product: bool, span: Span) -> Expr {
    while terms.len() > 1 {
        let mut next = Vec::with_capacity(terms.len().div_ceil(2));
        let mut pairs = terms.into_iter();
        while let Some(a) = pairs.next() {
            next.push(match pairs.next() {
                Some(b) => Expr::Binary(syn::ExprBinary {
                    attrs: Vec::new(),
                    left: Box::new(paren(a, span)),
                    op: if product {
                        BinOp::Mul(syn::token::Star(span))
                    } else {
                        BinOp::Add(syn::token::Plus(span))
                    },
                    right: Box::new(paren(b, span)),
                }),
                None => a,
            });
        }
        terms = next;
    }
    terms.pop().unwrap_or_else(|| number(0.0, span))
}

impl Unroller {
    /// The value of an integer expression of literals, constants and loop variables.
    fn int(&self, e: &Expr) -> syn::Result<i64> {
        let bad = || {
            error(
                e,
                "expected an integer: a literal, a `const`, a loop variable, or `+ - * / %` of them",
            )
        };
        match strip(e) {
            Expr::Lit(l) => match &l.lit {
                Lit::Int(i) => i.base10_parse::<i64>(),
                _ => Err(bad()),
            },
            Expr::Path(_) => {
                let id = single_ident(e).ok_or_else(bad)?;
                self.ints.get(&id.to_string()).copied().ok_or_else(|| {
                    error(
                        id,
                        format!("`{id}` is not an integer constant or a loop variable in scope"),
                    )
                })
            }
            Expr::Unary(u) if matches!(u.op, UnOp::Neg(_)) => Ok(-self.int(&u.expr)?),
            Expr::Binary(b) => {
                let (l, r) = (self.int(&b.left)?, self.int(&b.right)?);
                let v = match b.op {
                    BinOp::Add(_) => l.checked_add(r),
                    BinOp::Sub(_) => l.checked_sub(r),
                    BinOp::Mul(_) => l.checked_mul(r),
                    BinOp::Div(_) => l.checked_div(r),
                    BinOp::Rem(_) => l.checked_rem(r),
                    _ => return Err(bad()),
                };
                v.ok_or_else(|| error(e, "integer overflow or division by zero"))
            }
            _ => Err(bad()),
        }
    }

    /// The integers of `a..b` or `a..=b`.
    fn range(&self, e: &Expr) -> syn::Result<Vec<i64>> {
        let Expr::Range(r) = strip(e) else {
            return Err(error(e, "expected a range such as `0..N`"));
        };
        let (Some(start), Some(end)) = (&r.start, &r.end) else {
            return Err(error(e, "a range here needs both ends, such as `0..N`"));
        };
        let (a, b) = (self.int(start)?, self.int(end)?);
        let b = match r.limits {
            RangeLimits::HalfOpen(_) => b,
            RangeLimits::Closed(_) => b + 1,
        };
        if b - a > 100_000 {
            return Err(error(e, "a range of more than 100000 values"));
        }
        Ok((a..b).collect())
    }

    fn helper(&mut self, f: syn::ItemFn) {
        let mut params = Vec::new();
        for arg in &f.sig.inputs {
            match arg {
                syn::FnArg::Typed(t) => match (&*t.pat, &*t.ty) {
                    (Pat::Ident(p), syn::Type::Path(ty)) if ty.path.is_ident("f64") => {
                        params.push(p.ident.clone());
                    }
                    _ => self
                        .errors
                        .push(error(arg, "a helper's parameters are written `name: f64`")),
                },
                syn::FnArg::Receiver(r) => self
                    .errors
                    .push(error(r, "a helper is a plain function of `f64` values")),
            }
        }
        let returns_f64 = matches!(&f.sig.output, syn::ReturnType::Type(_, ty)
            if matches!(&**ty, syn::Type::Path(p) if p.path.is_ident("f64")));
        if !returns_f64 {
            self.errors.push(error(
                &f.sig,
                format!(
                    "the helper `{}` must return `f64`: write `-> f64`",
                    f.sig.ident
                ),
            ));
        }
        self.helpers.insert(
            f.sig.ident.to_string(),
            Helper {
                params,
                body: *f.block,
            },
        );
    }

    /// Runs `f` with the loop variable `name = value` in scope.
    fn with_int<T>(&mut self, name: &Ident, value: i64, f: impl FnOnce(&mut Self) -> T) -> T {
        let old = self.ints.insert(name.to_string(), value);
        let out = f(self);
        match old {
            Some(v) => self.ints.insert(name.to_string(), v),
            None => self.ints.remove(&name.to_string()),
        };
        out
    }

    /// One item of a list field: a `for` loop becomes one item per value.
    fn list_item(&mut self, item: Expr, out: &mut Vec<Expr>) {
        let Expr::ForLoop(l) = item else {
            let mut item = item;
            self.visit_expr_mut(&mut item);
            out.push(item);
            return;
        };
        let Pat::Ident(var) = &*l.pat else {
            self.errors.push(error(
                &l.pat,
                "a loop variable is a single name, such as `i`",
            ));
            return;
        };
        let values = match self.range(&l.expr) {
            Ok(v) => v,
            Err(e) => {
                self.errors.push(e);
                return;
            }
        };
        // The body: a nested loop, or a block whose value is the item.
        let inner: Option<Expr> = match l.body.stmts.as_slice() {
            [Stmt::Expr(e @ Expr::ForLoop(_), _)] => Some(e.clone()),
            _ => None,
        };
        for v in values {
            self.with_int(&var.ident, v, |cx| match &inner {
                Some(nested) => cx.list_item(nested.clone(), out),
                None => {
                    let mut e = Expr::Block(syn::ExprBlock {
                        attrs: Vec::new(),
                        label: None,
                        block: l.body.clone(),
                    });
                    cx.visit_expr_mut(&mut e);
                    out.push(e);
                }
            });
        }
    }

    /// `(a..b).map(|i| e).sum()` and `.product()`: the unrolled sum or product.
    fn fold(&mut self, call: &syn::ExprMethodCall) -> Option<syn::Result<Expr>> {
        let product = match call.method.to_string().as_str() {
            "sum" => false,
            "product" => true,
            _ => return None,
        };
        let Expr::MethodCall(map) = strip(&call.receiver) else {
            return None;
        };
        if map.method != "map" || map.args.len() != 1 {
            return None;
        }
        let Expr::Closure(closure) = &map.args[0] else {
            return None;
        };
        Some((|| {
            let [Pat::Ident(var)] = closure.inputs.iter().collect::<Vec<_>>()[..] else {
                return Err(error(
                    &closure.inputs,
                    "the closure of a sum takes one loop variable, such as `|i|`",
                ));
            };
            let values = self.range(&map.receiver)?;
            let span = call.span();
            let mut terms = Vec::new();
            for v in values {
                let mut term = (*closure.body).clone();
                self.with_int(&var.ident, v, |cx| cx.visit_expr_mut(&mut term));
                terms.push(term);
            }
            if terms.is_empty() {
                return Ok(number(if product { 1.0 } else { 0.0 }, span));
            }
            Ok(paren(balanced(terms, product, span), span))
        })())
    }

    /// A call of a helper: `{ let a = (arg); ...; body }`.
    fn inline(&mut self, call: &syn::ExprCall) -> Option<syn::Result<Expr>> {
        let name = single_ident(&call.func)?.to_string();
        let helper = self.helpers.get(&name)?;
        if helper.params.len() != call.args.len() {
            return Some(Err(error(
                call,
                format!(
                    "the helper `{name}` takes {} argument{} but {} {} given",
                    helper.params.len(),
                    if helper.params.len() == 1 { "" } else { "s" },
                    call.args.len(),
                    if call.args.len() == 1 { "was" } else { "were" }
                ),
            )));
        }
        if self.depth >= MAX_INLINE_DEPTH {
            return Some(Err(error(
                call,
                format!(
                    "helpers nest more than {MAX_INLINE_DEPTH} deep (does `{name}` call itself?)"
                ),
            )));
        }
        if let Some(p) = helper
            .params
            .iter()
            .find(|p| self.ints.contains_key(&p.to_string()))
        {
            return Some(Err(error(
                call,
                format!("the helper `{name}` has a parameter `{p}` named like a constant or loop variable in scope here; rename one of them"),
            )));
        }
        let span = call.span();
        let params = helper.params.clone();
        let body = &helper.body;
        let args = call.args.iter();
        let block: Expr = syn::parse_quote_spanned!(span=> {
            #(let #params = (#args);)*
            #body
        });
        Some(Ok(block))
    }
}

impl VisitMut for Unroller {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        // Helpers inlined into each other nest deeper than the input: bounded (`depth.rs`).
        let Some(_level) = crate::depth::Entered::enter(crate::depth::MAX_EXPANDED_DEPTH) else {
            self.errors.push(crate::depth::too_deep_expanded(e));
            let id = Ident::new(REPORTED, e.span());
            *e = syn::parse_quote!(#id);
            return;
        };
        let replacement: Option<syn::Result<Expr>> = match &*e {
            Expr::Index(ix) => single_ident(&ix.expr).and_then(|name| {
                let size = *self.arrays.get(&name.to_string())?;
                Some(self.int(&ix.index).and_then(|k| {
                    if (0..size as i64).contains(&k) {
                        let id = element(name, k as usize);
                        let id = Ident::new(&id.to_string(), ix.span());
                        Ok(syn::parse_quote!(#id))
                    } else {
                        Err(error(
                            &ix.index,
                            format!("index {k} is out of range for `{name}`, which has {size} elements (0..{size})"),
                        ))
                    }
                }))
            }),
            Expr::Path(_) => single_ident(e).and_then(|id| {
                if let Some(v) = self.ints.get(&id.to_string()) {
                    return Some(Ok(number(*v as f64, id.span())));
                }
                let size = self.arrays.get(&id.to_string())?;
                Some(Err(error(
                    id,
                    format!("`{id}` is an array of {size} elements: write one element, `{id}[i]`"),
                )))
            }),
            Expr::MethodCall(call) if call.method == "hypot" && call.args.len() == 1 => {
                Some(Ok(hypot(&call.receiver, &call.args[0], call.span())))
            }
            Expr::MethodCall(call) => self.fold(call),
            Expr::Call(call) => match single_ident(&call.func) {
                Some(f)
                    if f == "hypot"
                        && call.args.len() == 2
                        && !self.helpers.contains_key("hypot") =>
                {
                    Some(Ok(hypot(&call.args[0], &call.args[1], call.span())))
                }
                _ => self.inline(call),
            },
            _ => None,
        };
        match replacement {
            None => syn::visit_mut::visit_expr_mut(self, e),
            Some(Err(err)) => {
                self.errors.push(err);
                // Leave the placeholder, so that lowering reports nothing more here.
                let id = Ident::new(REPORTED, e.span());
                *e = syn::parse_quote!(#id);
            }
            Some(Ok(mut new)) => {
                // The replacement may hold more to unroll (a helper's body, hypot's arguments).
                let nested = matches!(&*e, Expr::Call(_));
                if nested {
                    self.depth += 1;
                }
                // Its parts, not the expression itself again (that would rewrite a sum's
                // already unrolled terms a second time).
                syn::visit_mut::visit_expr_mut(self, &mut new);
                if nested {
                    self.depth -= 1;
                }
                *e = new;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{display, element};

    #[test]
    fn elements_are_shown_with_their_index() {
        let x: syn::Ident = syn::parse_quote!(x);
        assert_eq!(element(&x, 12).to_string(), "x__12");
        assert_eq!(display("x__12"), "x[12]");
        assert_eq!(display("v_x__0"), "v_x[0]");
        for plain in ["x", "x__", "__3", "x__a", "x_1"] {
            assert_eq!(display(plain), plain);
        }
    }

    #[test]
    fn integer_expressions_and_ranges() {
        let mut cx = super::Unroller {
            ints: [("N".to_string(), 5)].into_iter().collect(),
            arrays: Default::default(),
            helpers: Default::default(),
            errors: Vec::new(),
            depth: 0,
        };
        let e: syn::Expr = syn::parse_quote!((N - 1) * 2 % 3 + -1);
        assert_eq!(cx.int(&e).unwrap(), 1);
        let r: syn::Expr = syn::parse_quote!(1..=N);
        assert_eq!(cx.range(&r).unwrap(), vec![1, 2, 3, 4, 5]);
        let bad: syn::Expr = syn::parse_quote!(N / 0);
        assert!(cx.int(&bad).is_err());
        cx.ints.clear();
        assert!(cx.int(&e).is_err());
    }
}
