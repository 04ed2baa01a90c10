//! Arrays, loops, constants and helper functions: the DSL's shorthand for large models,
//! rewritten into the scalar DSL before the model is built, so that every later stage (checks,
//! lowering, differentiation, emission) sees only named scalars.
//!
//! * `const N: usize = 10;` (before or after the struct): an integer constant, usable in array
//!   sizes, indices and ranges, and as a number in expressions.
//! * `fn name(a: f64, b: f64) -> f64 { ... }`: a helper, a Rust function inlined at each call
//!   (see [`helpers`]): its body sees only its parameters, its own `let` bindings, constants
//!   and other helpers, and its names never capture the caller's.
//! * `x[N]` in `coordinates`, `velocities`, `momenta`, `variables`, `multipliers`: the
//!   scalars `x[0]`, ..., `x[N-1]` (see [`element`]); `m[N] = 1.0` in `parameters`: the struct
//!   field `m: [f64; N]`, each element a parameter.
//! * `x[i]` in an expression, `i` an integer expression of literals, constants and loop
//!   variables, checked against the array's size.
//! * `(a..b).map(|i| e).sum()` (also `sum::<f64>()`, `product()`, `a..=b`): unrolled.
//! * `for i in a..b { e }` as an item of a list field (`holonomic`, `forces`, ...): one item per
//!   `i`; loops nest.
//! * `hypot(a, b)` / `a.hypot(b)`: `(a.powi(2) + b.powi(2)).sqrt()`.
//!
//! The work is bounded by what the expansion produces: every unrolled term, loop item and
//! inlined body is charged to a budget of [`MAX_NODES`] expression nodes, and a construct that
//! would exceed it is an error on its tokens (so a model cannot make the compiler hang).
//! Integer arithmetic is checked. Names the expansion makes up start with [`PREFIX`], which
//! user names may not (see [`reserved_prefix_errors`]).

use std::collections::HashMap;

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{format_ident, ToTokens};
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;
use syn::{BinOp, Expr, Ident, Lit, Pat, RangeLimits, Stmt, UnOp};

use crate::ctxt::with_help;
use crate::parse::{FieldValue, ModelInput, ParameterDecl};

#[path = "unroll/helpers.rs"]
mod helpers;

/// The start of every name the expansion makes up (elements, helper locals, [`REPORTED`]).
pub const PREFIX: &str = "__spark";

pub use crate::depth::REPORTED;

/// How deep helper calls may nest (helpers cannot recurse, so this only guards the guard).
const MAX_INLINE_DEPTH: usize = 64;

/// The most expression nodes unrolling may produce (terms of sums, loop items, inlined helper
/// bodies, array elements): a model beyond it is an error on the construct that crosses it.
pub const MAX_NODES: usize = 500_000;

/// The most elements an array may have.
pub const MAX_ARRAY: i64 = 1000;

/// The most values a range may have.
const MAX_RANGE: i64 = 100_000;

/// The name of element `k` of the array `name` inside the expansion.
pub fn element(name: &Ident, k: usize) -> Ident {
    format_ident!("{}_e_{}_{}", PREFIX, name, k, span = name.span())
}

/// How a name of the expansion is shown to users: an element as `x[3]`, a helper's local
/// under the name the user wrote.
pub fn display(name: &str) -> String {
    if let Some(rest) = name.strip_prefix("__spark_e_") {
        if let Some((base, k)) = rest.rsplit_once('_') {
            if !base.is_empty() && !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()) {
                return format!("{base}[{k}]");
            }
        }
    }
    if let Some(rest) = name.strip_prefix("__spark_h") {
        if let Some((k, local)) = rest.split_once('_') {
            if !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()) && !local.is_empty() {
                return local.to_string();
            }
        }
    }
    name.to_string()
}

/// One error per distinct user name that starts with [`PREFIX`], on its first occurrence: such
/// a name could collide with one the expansion makes up.
pub fn reserved_prefix_errors(input: &TokenStream) -> Vec<syn::Error> {
    let mut seen: Vec<String> = Vec::new();
    let mut errors = Vec::new();
    let mut stack: Vec<proc_macro2::token_stream::IntoIter> = vec![input.clone().into_iter()];
    while let Some(top) = stack.last_mut() {
        match top.next() {
            None => {
                stack.pop();
            }
            Some(TokenTree::Group(g)) => stack.push(g.stream().into_iter()),
            Some(TokenTree::Ident(id)) => {
                let s = id.to_string();
                let s = s.strip_prefix("r#").unwrap_or(&s).to_string();
                if s.starts_with(PREFIX) && !seen.contains(&s) {
                    errors.push(syn::Error::new(
                        id.span(),
                        with_help(
                            format!("`{s}` is reserved: names starting with `{PREFIX}` are used by the expansion of `mechanics!`"),
                            "choose another name",
                        ),
                    ));
                    seen.push(s);
                }
            }
            Some(_) => {}
        }
    }
    errors
}

/// What a declared name is, for messages about duplicates.
#[derive(Clone)]
struct Declared {
    span: Span,
    kind: &'static str,
    array: bool,
}

/// The kind of name declared by the list field `key`.
fn list_kind(key: &str) -> &'static str {
    match key {
        "coordinates" => "a coordinate",
        "velocities" => "a velocity",
        "momenta" => "a momentum",
        "variables" => "a variable",
        "multipliers" => "a multiplier",
        "inputs" => "an input",
        _ => "a name",
    }
}

/// The two errors of a name defined twice, as rustc's E0428 ("the name `N` is defined multiple
/// times"), one on each definition.
fn duplicate(errors: &mut Vec<syn::Error>, name: &str, first: &Declared, again: (Span, &str)) {
    errors.push(syn::Error::new(
        first.span,
        format!(
            "the name `{name}` is defined multiple times, here as {}",
            first.kind
        ),
    ));
    errors.push(syn::Error::new(
        again.0,
        with_help(
            format!(
                "the name `{name}` is defined multiple times, here as {}",
                again.1
            ),
            "constants, helpers, coordinates, velocities, parameters and inputs share one \
             namespace: rename one of them",
        ),
    ));
}

/// Rewrites `input` in place; errors go to `input.errors`.
pub fn apply(input: &mut ModelInput) {
    let mut cx = Unroller {
        ints: HashMap::new(),
        consts: HashMap::new(),
        arrays: HashMap::new(),
        failed: Default::default(),
        scalars: HashMap::new(),
        helpers: HashMap::new(),
        defs: Vec::new(),
        errors: Vec::new(),
        depth: 0,
        budget: MAX_NODES,
        exhausted: false,
    };
    // The names the model declares, as written (an array once, by its name).
    let mut names: HashMap<String, Declared> = HashMap::new();
    let mut declare = |errors: &mut Vec<syn::Error>, id: &Ident, kind, array| {
        let s = id.to_string();
        match names.get(&s) {
            // Two scalars of the model: `model::build` reports it.
            Some(first) if first.array || array => {
                duplicate(errors, &s, first, (id.span(), kind));
                false
            }
            Some(_) => true,
            None => {
                names.insert(
                    s,
                    Declared {
                        span: id.span(),
                        kind,
                        array,
                    },
                );
                true
            }
        }
    };
    for field in &mut input.fields {
        let key = field.key.to_string();
        match &mut field.value {
            FieldValue::Names(list) => {
                let kind = list_kind(&key);
                for (name, size) in list.names.iter().zip(list.sizes.iter_mut()) {
                    if !declare(&mut cx.errors, name, kind, size.is_some()) && size.is_some() {
                        // Reported: keep the scalar meaning of the name.
                        *size = None;
                    }
                    if size.is_none() {
                        cx.scalars.insert(name.to_string(), kind);
                    }
                }
            }
            FieldValue::Parameters(decls) => {
                for d in decls.iter_mut() {
                    if !declare(&mut cx.errors, &d.name, "a parameter", d.size.is_some())
                        && d.size.is_some()
                    {
                        d.size = None;
                    }
                    if d.size.is_none() {
                        cx.scalars.insert(d.name.to_string(), "a parameter");
                    }
                }
            }
            _ => {}
        }
    }
    for c in std::mem::take(&mut input.consts) {
        if !matches!(c.vis, syn::Visibility::Inherited) {
            cx.errors.push(error(
                &c.vis,
                with_help(
                    "a constant of `mechanics!` is private to the model: `pub` has no effect",
                    "remove `pub`",
                ),
            ));
        }
        let s = c.ident.to_string();
        if let Some(first) = names.get(&s) {
            duplicate(&mut cx.errors, &s, first, (c.ident.span(), "a constant"));
            continue;
        }
        let value = cx.int(&c.expr);
        names.insert(
            s.clone(),
            Declared {
                span: c.ident.span(),
                kind: "a constant",
                array: false,
            },
        );
        match value {
            Ok(v) => {
                cx.consts.insert(s, v);
            }
            Err(e) => cx.errors.push(e),
        }
    }
    helpers::define(&mut cx, std::mem::take(&mut input.helpers), &mut names);
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
                    Some(size) => match cx.array_size(&name, &size) {
                        Some(n) => {
                            cx.arrays.insert(name.to_string(), n);
                            names.extend((0..n).map(|k| element(&name, k)));
                        }
                        // Keeps the list as long as its partner (reported; all is a placeholder).
                        None if cx.exhausted => names.push(name),
                        None => {}
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
                if let Some(n) = cx.array_size(&d.name, size) {
                    cx.arrays.insert(d.name.to_string(), n);
                    out.extend((0..n).map(|k| ParameterDecl {
                        name: element(&d.name, k),
                        default: d.default.clone(),
                        size: None,
                        element: Some((d.name.clone(), k)),
                    }));
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

struct Unroller {
    /// The loop variables in scope.
    ints: HashMap<String, i64>,
    /// The integer constants.
    consts: HashMap<String, i64>,
    /// Declared arrays and their sizes.
    arrays: HashMap<String, usize>,
    /// Arrays whose declaration has an error (reported): their uses are placeholders.
    failed: std::collections::HashSet<String>,
    /// Declared scalar names and what they are, for messages about indexing them.
    scalars: HashMap<String, &'static str>,
    /// Helpers by name: their index in `defs`.
    helpers: HashMap<String, usize>,
    defs: Vec<helpers::Helper>,
    errors: Vec<syn::Error>,
    depth: usize,
    /// Expression nodes unrolling may still produce.
    budget: usize,
    /// The budget ran out (and that was reported): everything left unrolls to placeholders.
    exhausted: bool,
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

/// The expression `v`, a float literal (built directly: this runs once per unrolled term).
fn number(v: f64, span: Span) -> Expr {
    Expr::Lit(syn::ExprLit {
        attrs: Vec::new(),
        lit: Lit::Float(syn::LitFloat::new(&format!("{v:?}"), span)),
    })
}

/// The expression naming `id`.
fn path(id: Ident) -> Expr {
    Expr::Path(syn::ExprPath {
        attrs: Vec::new(),
        qself: None,
        path: id.into(),
    })
}

/// The placeholder of an expression whose error is reported.
fn reported(span: Span) -> Expr {
    path(Ident::new(REPORTED, span))
}

/// Counts expression nodes (syn's read-only visitor is not enabled: this one visits a copy).
struct Count(usize);

impl VisitMut for Count {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        self.0 += 1;
        syn::visit_mut::visit_expr_mut(self, e);
    }
}

/// The number of expression nodes of `e` (at least 1).
fn size_of(e: &Expr) -> usize {
    let mut c = Count(0);
    c.visit_expr_mut(&mut e.clone());
    c.0.max(1)
}

/// The number of expression nodes of `b` (at least 1).
fn size_of_block(b: &syn::Block) -> usize {
    let mut c = Count(0);
    c.visit_block_mut(&mut b.clone());
    c.0.max(1)
}

/// An estimate of the nodes an expression unrolls to: its own nodes, with every sum or loop
/// whose range is known here counted as its length times its body (see [`Unroller::estimate`]).
struct Estimate<'a> {
    cx: &'a Unroller,
    n: usize,
}

impl VisitMut for Estimate<'_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        self.n = self.n.saturating_add(1);
        let nested = match &*e {
            Expr::MethodCall(call) => fold_parts(call).and_then(|(range, body)| {
                let len = self.cx.range(range).ok()?.len();
                Some(len.saturating_mul(self.cx.estimate(body)))
            }),
            Expr::ForLoop(l) => self.cx.range(&l.expr).ok().map(|values| {
                let body = Expr::Block(syn::ExprBlock {
                    attrs: Vec::new(),
                    label: None,
                    block: l.body.clone(),
                });
                values.len().saturating_mul(self.cx.estimate(&body))
            }),
            _ => None,
        };
        match nested {
            Some(k) => self.n = self.n.saturating_add(k),
            None => syn::visit_mut::visit_expr_mut(self, e),
        }
    }
}

/// The range and the closure body of `(a..b).map(|i| body).sum()` (or `.product()`).
fn fold_parts(call: &syn::ExprMethodCall) -> Option<(&Expr, &Expr)> {
    if call.method != "sum" && call.method != "product" {
        return None;
    }
    let Expr::MethodCall(map) = strip(&call.receiver) else {
        return None;
    };
    if map.method != "map" || map.args.len() != 1 {
        return None;
    }
    let Expr::Closure(closure) = &map.args[0] else {
        return None;
    };
    Some((&map.receiver, &closure.body))
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

/// A smooth stand-in for `a.min(b)` / `a.max(b)`, for the `help:` of an error.
fn smooth_min_max(method: &str) -> String {
    let sign = if method == "min" { "-" } else { "+" };
    format!(
        "`{method}` has no derivative where its arguments are equal, and a model is \
         differentiated; use a smooth {method}imum such as \
         `0.5 * (a + b {sign} ((a - b).powi(2) + eps.powi(2)).sqrt())` for `a.{method}(b)`, \
         with a small parameter `eps`"
    )
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
                let s = id.to_string();
                self.ints
                    .get(&s)
                    .or_else(|| self.consts.get(&s))
                    .copied()
                    .ok_or_else(|| {
                        error(
                            id,
                            format!(
                                "`{id}` is not an integer constant or a loop variable in scope"
                            ),
                        )
                    })
            }
            Expr::Unary(u) if matches!(u.op, UnOp::Neg(_)) => self
                .int(&u.expr)?
                .checked_neg()
                .ok_or_else(|| error(e, "this integer arithmetic overflows `i64`")),
            Expr::Binary(b) => {
                let (l, r) = (self.int(&b.left)?, self.int(&b.right)?);
                if matches!(b.op, BinOp::Div(_) | BinOp::Rem(_)) && r == 0 {
                    return Err(error(e, "this integer arithmetic divides by zero"));
                }
                let v = match b.op {
                    BinOp::Add(_) => l.checked_add(r),
                    BinOp::Sub(_) => l.checked_sub(r),
                    BinOp::Mul(_) => l.checked_mul(r),
                    BinOp::Div(_) => l.checked_div(r),
                    BinOp::Rem(_) => l.checked_rem(r),
                    _ => return Err(bad()),
                };
                v.ok_or_else(|| error(e, "this integer arithmetic overflows `i64`"))
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
            RangeLimits::Closed(_) => b
                .checked_add(1)
                .ok_or_else(|| error(end, "the end of this range overflows `i64`"))?,
        };
        if b <= a {
            return Ok(Vec::new());
        }
        let len = b.checked_sub(a).unwrap_or(i64::MAX);
        if len > MAX_RANGE {
            return Err(error(
                e,
                format!(
                    "this range has more than {MAX_RANGE} values, more than a model may unroll"
                ),
            ));
        }
        Ok((a..b).collect())
    }

    /// The size of the array `name[size]`, checked (`None` after an error).
    fn array_size(&mut self, name: &Ident, size: &Expr) -> Option<usize> {
        self.failed.insert(name.to_string());
        let n = match self.int(size) {
            Ok(n) => n,
            Err(e) => {
                self.errors.push(e);
                return None;
            }
        };
        let msg = if n < 1 {
            format!("the array `{name}` has size {n}: it needs at least one element")
        } else if n > MAX_ARRAY {
            format!(
                "the array `{name}` has {n} elements, more than the {MAX_ARRAY} an array of a \
                 model may have"
            )
        } else if self.charge(n as usize, size, &format!("the array `{name}`")) {
            self.failed.remove(&name.to_string());
            return Some(n as usize);
        } else {
            return None;
        };
        self.errors.push(error(size, msg));
        if n > MAX_ARRAY {
            // The model's size is out of reach: everything else would only report
            // consequences (sums over the array, lists left empty).
            self.exhausted = true;
        }
        None
    }

    /// Takes `n` nodes from the budget; false (after reporting `what` on `at`, once) when it
    /// runs out.
    fn charge(&mut self, n: usize, at: &dyn ToTokens, what: &str) -> bool {
        if self.exhausted {
            return false;
        }
        if n <= self.budget {
            self.budget -= n;
            return true;
        }
        self.exhausted = true;
        self.errors.push(error(
            at,
            with_help(
                format!(
                    "{what} unrolls to more than {MAX_NODES} expression nodes, the most one \
                     model may expand to"
                ),
                "a model this large would take the compiler too long; use fewer terms, or \
                 compute a repeated subexpression once with `let`",
            ),
        ));
        false
    }

    /// What `e` unrolls to, estimated before unrolling it (a sum or loop whose range needs an
    /// outer loop variable counts as its tokens), so that a model far over the budget fails
    /// at once instead of after unrolling half a million nodes.
    fn estimate(&self, e: &Expr) -> usize {
        let mut est = Estimate { cx: self, n: 0 };
        est.visit_expr_mut(&mut e.clone());
        est.n
    }

    /// An error on `at` when `estimate` is over what is left of the budget.
    fn over_budget(&mut self, estimate: usize, at: &dyn ToTokens, what: &str) -> bool {
        if self.exhausted || estimate <= self.budget {
            return self.exhausted;
        }
        self.budget = 0;
        !self.charge(estimate, at, what)
    }

    /// A loop variable must not take the name of a constant (as a Rust pattern cannot).
    fn loop_variable(&mut self, var: &Ident) -> bool {
        if self.consts.contains_key(&var.to_string()) {
            self.errors.push(error(
                var,
                with_help(
                    format!("`{var}` is a constant: a loop variable cannot take its name"),
                    "choose another name for the loop variable",
                ),
            ));
            return false;
        }
        true
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
        if !self.loop_variable(&var.ident) {
            return;
        }
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
        let head = {
            let (f, p, i, e) = (&l.for_token, &l.pat, &l.in_token, &l.expr);
            quote::quote!(#f #p #i #e)
        };
        let size = size_of_block(&l.body);
        let before = out.len();
        let whole = Expr::ForLoop(l.clone());
        if self.over_budget(self.estimate(&whole), &head, "this loop") {
            out.push(reported(l.for_token.span));
            return;
        }
        for v in values {
            if self.exhausted {
                break;
            }
            self.with_int(&var.ident, v, |cx| match &inner {
                Some(nested) => cx.list_item(nested.clone(), out),
                None => {
                    if !cx.charge(size, &head, "this loop") {
                        return;
                    }
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
        if self.exhausted {
            // One placeholder for the whole loop, so that nothing counts its items.
            out.truncate(before);
            out.push(reported(l.for_token.span));
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
            let span = call.span();
            if !self.loop_variable(&var.ident) {
                return Ok(reported(span));
            }
            let values = self.range(&map.receiver)?;
            let what = if product { "this product" } else { "this sum" };
            let size = size_of(&closure.body);
            let estimate = values.len().saturating_mul(self.estimate(&closure.body));
            if self.over_budget(estimate, call, what)
                || !self.charge(values.len().saturating_mul(size), call, what)
            {
                return Ok(reported(span));
            }
            let mut terms = Vec::new();
            for v in values {
                let mut term = (*closure.body).clone();
                self.with_int(&var.ident, v, |cx| cx.visit_expr_mut(&mut term));
                if self.exhausted {
                    return Ok(reported(span));
                }
                terms.push(term);
            }
            if terms.is_empty() {
                return Ok(number(if product { 1.0 } else { 0.0 }, span));
            }
            Ok(paren(balanced(terms, product, span), span))
        })())
    }

    /// A call of a helper: `{ let a = (arg); ...; body }`, its parameters and locals renamed
    /// (see [`helpers`]) so that nothing of the caller's is captured.
    fn inline(&mut self, call: &syn::ExprCall) -> Option<syn::Result<Expr>> {
        let name = single_ident(&call.func)?.to_string();
        let k = *self.helpers.get(&name)?;
        let helper = &self.defs[k];
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
        let span = call.span();
        // Its error is reported on the helper itself.
        if helper.broken || self.exhausted {
            return Some(Ok(reported(span)));
        }
        if self.depth >= MAX_INLINE_DEPTH {
            return Some(Err(error(
                call,
                format!("helpers nest more than {MAX_INLINE_DEPTH} deep here"),
            )));
        }
        let (own, total) = (helper.own, helper.total);
        if total > self.budget {
            self.exhausted = true;
            return Some(Err(error(
                call,
                with_help(
                    format!(
                        "inlining `{name}` here produces more than {MAX_NODES} expression nodes, \
                         the most one model may expand to"
                    ),
                    "a helper is inlined at every call, so one that calls another twice doubles \
                     in size; call it once and bind the value with `let` (`let a = g(x); a + a`)",
                ),
            )));
        }
        self.charge(own, call, "this call");
        let helper = &self.defs[k];
        let params = &helper.params;
        let body = &helper.body;
        let args = call.args.iter();
        let block: Expr = syn::parse_quote_spanned!(span=> {
            #(let #params = (#args);)*
            #body
        });
        Some(Ok(block))
    }

    /// `base[index]` where `base` is not a declared array: what is wrong, precisely.
    fn index_error(&self, ix: &syn::ExprIndex) -> syn::Error {
        if let Expr::Index(inner) = strip(&ix.expr) {
            if let Some(name) = single_ident(&inner.expr) {
                if self.arrays.contains_key(&name.to_string()) {
                    return error(
                        ix,
                        with_help(
                            format!("`{name}` is an array of one dimension: it takes one index"),
                            format!("write one index, `{name}[i]`; for a grid, index a flat array with `{name}[i * M + j]`"),
                        ),
                    );
                }
            }
        }
        match single_ident(&ix.expr) {
            Some(name) => {
                let s = name.to_string();
                let what = match self.scalars.get(&s) {
                    Some(kind) => format!("`{s}` is {kind}, not an array: it cannot be indexed"),
                    None if self.ints.contains_key(&s) => {
                        format!("`{s}` is a loop variable, not an array: it cannot be indexed")
                    }
                    None if self.consts.contains_key(&s) => {
                        format!("`{s}` is a constant, not an array: it cannot be indexed")
                    }
                    None => format!("cannot index `{s}`: it is not declared as an array"),
                };
                error(
                    ix,
                    with_help(
                        what,
                        format!("an array is declared with its size, e.g. `coordinates: [{s}[3]]`"),
                    ),
                )
            }
            None => error(
                ix,
                with_help(
                    "only an array declared by name can be indexed",
                    "index an array declared as, e.g., `coordinates: [x[3]]`: `x[i]`",
                ),
            ),
        }
    }
}

impl VisitMut for Unroller {
    fn visit_local_mut(&mut self, local: &mut syn::Local) {
        let ident = match &local.pat {
            Pat::Ident(p) => Some(&p.ident),
            Pat::Type(t) => match &*t.pat {
                Pat::Ident(p) => Some(&p.ident),
                _ => None,
            },
            _ => None,
        };
        if let Some(id) = ident {
            if self.consts.contains_key(&id.to_string()) {
                self.errors.push(error(
                    id,
                    with_help(
                        format!("`{id}` is a constant: a `let` cannot rebind its name"),
                        "choose another name for the binding",
                    ),
                ));
            }
        }
        syn::visit_mut::visit_local_mut(self, local);
    }

    fn visit_expr_mut(&mut self, e: &mut Expr) {
        // Helpers inlined into each other nest deeper than the input: bounded (`depth.rs`).
        let Some(_level) = crate::depth::Entered::enter(crate::depth::MAX_EXPANDED_DEPTH) else {
            self.errors.push(crate::depth::too_deep_expanded(e));
            *e = reported(e.span());
            return;
        };
        if self.exhausted {
            *e = reported(e.span());
            return;
        }
        let failed =
            |x: &Expr| single_ident(x).is_some_and(|n| self.failed.contains(&n.to_string()));
        if failed(e) || matches!(&*e, Expr::Index(ix) if failed(&ix.expr)) {
            *e = reported(e.span());
            return;
        }
        let replacement: Option<syn::Result<Expr>> = match &*e {
            Expr::Index(ix) => Some(match single_ident(&ix.expr) {
                Some(name) if self.arrays.contains_key(&name.to_string()) => {
                    let size = self.arrays[&name.to_string()];
                    self.int(&ix.index).and_then(|k| {
                        if (0..size as i64).contains(&k) {
                            let mut id = element(name, k as usize);
                            id.set_span(ix.span());
                            Ok(path(id))
                        } else {
                            Err(error(
                                &ix.index,
                                format!("index {k} is out of range for `{name}`, which has {size} elements (0..{size})"),
                            ))
                        }
                    })
                }
                _ => Err(self.index_error(ix)),
            }),
            Expr::Path(_) => single_ident(e).and_then(|id| {
                let s = id.to_string();
                if let Some(v) = self.ints.get(&s).or_else(|| self.consts.get(&s)) {
                    return Some(Ok(number(*v as f64, id.span())));
                }
                let size = self.arrays.get(&s)?;
                Some(Err(error(
                    id,
                    format!("`{id}` is an array of {size} elements: write one element, `{id}[i]`"),
                )))
            }),
            Expr::ForLoop(l) => Some(Err(error(
                {
                    let (f, p, i, e) = (&l.for_token, &l.pat, &l.in_token, &l.expr);
                    quote::quote!(#f #p #i #e)
                },
                with_help(
                    "a `for` loop has no value, so it cannot be part of an expression",
                    "to add up terms, write `(0..N).map(|i| ...).sum::<f64>()`; a `for` loop \
                     can stand for the items of a list field, e.g. \
                     `holonomic: [for i in 0..N { ... }]`",
                ),
            ))),
            Expr::MethodCall(call) if call.method == "hypot" && call.args.len() == 1 => {
                Some(Ok(hypot(&call.receiver, &call.args[0], call.span())))
            }
            Expr::MethodCall(call)
                if (call.method == "min" || call.method == "max") && call.args.len() == 1 =>
            {
                let method = call.method.to_string();
                Some(Err(error(
                    &call.method,
                    with_help(
                        format!("`{method}` is not differentiable, so a model cannot use it"),
                        smooth_min_max(&method),
                    ),
                )))
            }
            Expr::MethodCall(call) if call.method == "clamp" => Some(Err(error(
                &call.method,
                with_help(
                    "`clamp` is not differentiable, so a model cannot use it",
                    "bound the value smoothly, e.g. with `tanh`, or model the limit as a stiff \
                     force",
                ),
            ))),
            Expr::MethodCall(call)
                if call.method == "map"
                    && matches!(strip(&call.receiver), Expr::Range(_))
                    && matches!(call.args.first(), Some(Expr::Closure(_))) =>
            {
                Some(Err(error(
                    &*e,
                    with_help(
                        "this `map` is not added up, so it has no value",
                        "add `.sum::<f64>()` (or `.product::<f64>()`) after it",
                    ),
                )))
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
                *e = reported(e.span());
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
    use super::{display, element, Unroller, MAX_NODES};
    use std::collections::HashMap;

    fn unroller() -> Unroller {
        Unroller {
            ints: HashMap::new(),
            consts: [("N".to_string(), 5)].into_iter().collect(),
            arrays: HashMap::new(),
            failed: Default::default(),
            scalars: HashMap::new(),
            helpers: HashMap::new(),
            defs: Vec::new(),
            errors: Vec::new(),
            depth: 0,
            budget: MAX_NODES,
            exhausted: false,
        }
    }

    #[test]
    fn elements_are_shown_with_their_index() {
        let x: syn::Ident = syn::parse_quote!(x);
        assert_eq!(display(&element(&x, 12).to_string()), "x[12]");
        let v: syn::Ident = syn::parse_quote!(v_x__1);
        assert_eq!(display(&element(&v, 0).to_string()), "v_x__1[0]");
        assert_eq!(display("__spark_h3_a_b"), "a_b");
        for plain in [
            "x",
            "x__",
            "__3",
            "x__a",
            "x_1",
            "x__12",
            "__spark_e_",
            "__spark_h_a",
        ] {
            assert_eq!(display(plain), plain);
        }
    }

    #[test]
    fn integer_expressions_and_ranges() {
        let mut cx = unroller();
        let e: syn::Expr = syn::parse_quote!((N - 1) * 2 % 3 + -1);
        assert_eq!(cx.int(&e).unwrap(), 1);
        let r: syn::Expr = syn::parse_quote!(1..=N);
        assert_eq!(cx.range(&r).unwrap(), vec![1, 2, 3, 4, 5]);
        let bad: syn::Expr = syn::parse_quote!(N / 0);
        assert!(cx.int(&bad).is_err());
        cx.consts.clear();
        assert!(cx.int(&e).is_err());
    }

    #[test]
    fn integer_overflow_is_an_error() {
        let cx = unroller();
        for e in [
            syn::parse_quote!(-(-9223372036854775807 - 1)),
            syn::parse_quote!(9223372036854775807 + 1),
            syn::parse_quote!((-9223372036854775807 - 1) / -1),
            syn::parse_quote!((-9223372036854775807 - 1) % -1),
            syn::parse_quote!(4294967296 * 4294967296),
        ] {
            let e: syn::Expr = e;
            assert!(cx.int(&e).is_err(), "{}", quote::quote!(#e));
        }
        for r in [
            syn::parse_quote!(0..=9223372036854775807),
            syn::parse_quote!((-9223372036854775807 - 1)..9223372036854775807),
            syn::parse_quote!(0..100001),
        ] {
            let r: syn::Expr = r;
            assert!(cx.range(&r).is_err(), "{}", quote::quote!(#r));
        }
        let empty: syn::Expr = syn::parse_quote!(5..-9223372036854775807);
        assert_eq!(cx.range(&empty).unwrap(), Vec::<i64>::new());
    }
}
