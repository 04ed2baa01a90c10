//! Helper functions (`fn name(a: f64, ...) -> f64 { ... }`), checked as Rust checks a function
//! and prepared for inlining.
//!
//! A helper behaves as a Rust function: its body sees its parameters, its own `let` bindings,
//! the constants and the other helpers, and nothing of the caller (the model's coordinates,
//! the caller's `let` bindings and loop variables are errors, as rustc's E0425). Inlining is
//! hygienic: every name the body binds (parameters, `let`s, closure variables) is renamed to
//! `__spark_h{k}_{name}`, `k` the helper's number, and constants are replaced by their values,
//! so that `pot(y, x)` binds `x := y` and `y := x` at once and an argument never refers to a
//! name of the body. Helpers cannot recurse (they are inlined); recursion, direct or through
//! other helpers, is one error per cycle. Each helper's inlined size is known before any
//! inlining, so that a call that would blow up the expansion fails at once.

use std::collections::HashMap;

use proc_macro2::Span;
use quote::{format_ident, ToTokens};
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;
use syn::{Expr, Ident, Pat};

use super::{duplicate, error, reported, single_ident, size_of_block, Declared, Unroller};
use crate::ctxt::with_help;

/// A helper ready to be inlined.
pub(super) struct Helper {
    /// Its parameters, renamed.
    pub params: Vec<Ident>,
    /// Its body with every local name renamed and every constant replaced by its value.
    pub body: syn::Block,
    /// It has an error of its own (reported): its calls become placeholders.
    pub broken: bool,
    /// The expression nodes of its body.
    pub own: usize,
    /// The expression nodes of its body with every call inlined (saturating).
    pub total: usize,
    /// The helpers it calls, with the spans of the calls.
    calls: Vec<(usize, Span)>,
}

/// The name of the local `name` of helper `k` inside the expansion.
fn local(k: usize, name: &Ident) -> Ident {
    format_ident!("{}_h{}_{}", super::PREFIX, k, name, span = name.span())
}

/// Checks the signature of `f`: errors for what a helper cannot be, and its parameters.
fn signature(
    errors: &mut Vec<syn::Error>,
    f: &syn::ItemFn,
    consts: &HashMap<String, i64>,
) -> Vec<Ident> {
    let sig = &f.sig;
    let name = &sig.ident;
    if !matches!(f.vis, syn::Visibility::Inherited) {
        errors.push(error(
            &f.vis,
            with_help(
                "a helper of `mechanics!` is private to the model: `pub` has no effect",
                "remove `pub`",
            ),
        ));
    }
    let qualifiers: [(&str, Option<&dyn ToTokens>); 4] = [
        ("const", sig.constness.as_ref().map(|t| t as &dyn ToTokens)),
        ("async", sig.asyncness.as_ref().map(|t| t as &dyn ToTokens)),
        ("unsafe", sig.unsafety.as_ref().map(|t| t as &dyn ToTokens)),
        ("extern", sig.abi.as_ref().map(|t| t as &dyn ToTokens)),
    ];
    for (word, token) in qualifiers {
        if let Some(token) = token {
            errors.push(error(
                token,
                with_help(
                    format!(
                        "a helper cannot be `{word}`: it is inlined into the model's expressions"
                    ),
                    format!("remove `{word}`: write `fn {name}(a: f64, ...) -> f64 {{ ... }}`"),
                ),
            ));
        }
    }
    if !sig.generics.params.is_empty() {
        let g = &sig.generics;
        let (lt, params, gt) = (&g.lt_token, &g.params, &g.gt_token);
        errors.push(error(
            quote::quote!(#lt #params #gt),
            with_help(
                "a helper cannot be generic: its parameters and its value are `f64`",
                format!("remove the generic parameters and write `fn {name}(a: f64, ...) -> f64`"),
            ),
        ));
    }
    if let Some(w) = &sig.generics.where_clause {
        errors.push(error(
            w,
            with_help(
                "a helper takes no `where` clause: its parameters and its value are `f64`",
                "remove the `where` clause",
            ),
        ));
    }
    if let Some(v) = &sig.variadic {
        errors.push(error(v, "a helper takes a fixed list of `f64` parameters"));
    }
    let mut params: Vec<Ident> = Vec::new();
    for arg in &sig.inputs {
        match arg {
            syn::FnArg::Typed(t) => match (&*t.pat, &*t.ty) {
                (Pat::Ident(p), syn::Type::Path(ty))
                    if ty.path.is_ident("f64") && p.by_ref.is_none() && p.subpat.is_none() =>
                {
                    let s = p.ident.to_string();
                    if params.contains(&p.ident) {
                        errors.push(error(
                            &p.ident,
                            format!(
                                "identifier `{s}` is bound more than once in this parameter list"
                            ),
                        ));
                    } else if consts.contains_key(&s) {
                        errors.push(error(
                            &p.ident,
                            with_help(
                                format!("`{s}` is a constant: a parameter cannot take its name"),
                                "choose another name for the parameter",
                            ),
                        ));
                    }
                    params.push(p.ident.clone());
                }
                (pat, _) => {
                    errors.push(error(arg, "a helper's parameters are written `name: f64`"));
                    // Still in scope, so that its uses add nothing.
                    if let Pat::Ident(p) = pat {
                        params.push(p.ident.clone());
                    }
                }
            },
            syn::FnArg::Receiver(r) => {
                errors.push(error(r, "a helper is a plain function of `f64` values"))
            }
        }
    }
    let returns_f64 = matches!(&sig.output, syn::ReturnType::Type(_, ty)
        if matches!(&**ty, syn::Type::Path(p) if p.path.is_ident("f64")));
    if !returns_f64 {
        errors.push(error(
            sig,
            format!("the helper `{name}` must return `f64`: write `-> f64`"),
        ));
    }
    params
}

/// Resolves the names of one helper's body.
struct Resolver<'a> {
    k: usize,
    name: &'a Ident,
    /// The user names bound at each level (parameters, `let`s, closure variables).
    scopes: Vec<Vec<String>>,
    consts: &'a HashMap<String, i64>,
    helpers: &'a HashMap<String, usize>,
    names: &'a HashMap<String, Declared>,
    errors: Vec<syn::Error>,
    calls: Vec<(usize, Span)>,
    broken: bool,
}

impl Resolver<'_> {
    fn bound(&self, name: &str) -> bool {
        self.scopes.iter().any(|s| s.iter().any(|n| n == name))
    }

    /// Binds `id` in the innermost scope and renames it.
    fn bind(&mut self, id: &mut Ident) {
        let s = id.to_string();
        if self.consts.contains_key(&s) {
            self.fail(error(
                &*id,
                with_help(
                    format!("`{s}` is a constant: a `let` cannot rebind its name"),
                    "choose another name for the binding",
                ),
            ));
        }
        if let Some(scope) = self.scopes.last_mut() {
            scope.push(s);
        }
        *id = local(self.k, id);
    }

    fn fail(&mut self, e: syn::Error) {
        self.errors.push(e);
        self.broken = true;
    }

    /// The error of a name the helper cannot see.
    fn not_found(&mut self, id: &Ident) {
        let s = id.to_string();
        let f = self.name;
        let help = if s == "t" {
            format!(
                "`t`, the time, is not visible inside a helper: pass it as an argument, \
                 `fn {f}(.., t: f64)`"
            )
        } else if let Some(d) = self.names.get(&s) {
            format!(
                "`{s}` is {} of the model, which a helper does not see: pass it as an argument",
                d.kind
            )
        } else {
            format!(
                "a helper sees only its parameters, its own `let` bindings, constants and \
                 other helpers; pass `{s}` as an argument"
            )
        };
        self.fail(error(
            id,
            with_help(format!("cannot find `{s}` in the helper `{f}`"), help),
        ));
    }
}

impl VisitMut for Resolver<'_> {
    fn visit_block_mut(&mut self, block: &mut syn::Block) {
        self.scopes.push(Vec::new());
        for stmt in &mut block.stmts {
            match stmt {
                syn::Stmt::Local(l) => {
                    if let Some(init) = &mut l.init {
                        self.visit_expr_mut(&mut init.expr);
                        if let Some((_, e)) = &mut init.diverge {
                            self.visit_expr_mut(e);
                        }
                    } else {
                        let shown = l.pat.to_token_stream();
                        self.fail(error(
                            &*l,
                            with_help(
                                "this `let` has no value",
                                format!("give it one: `let {shown} = ...;`"),
                            ),
                        ));
                    }
                    match &mut l.pat {
                        Pat::Ident(p) => self.bind(&mut p.ident),
                        Pat::Type(t) => {
                            if let Pat::Ident(p) = &mut *t.pat {
                                self.bind(&mut p.ident);
                            }
                        }
                        // Lowering reports the pattern.
                        _ => {}
                    }
                }
                syn::Stmt::Expr(e, _) => self.visit_expr_mut(e),
                // Lowering reports items and macros.
                syn::Stmt::Item(_) | syn::Stmt::Macro(_) => {}
            }
        }
        self.scopes.pop();
    }

    fn visit_expr_mut(&mut self, e: &mut Expr) {
        match e {
            Expr::Path(p) if p.qself.is_none() && p.path.get_ident().is_some() => {
                let id = p.path.segments[0].ident.clone();
                let s = id.to_string();
                if self.bound(&s) {
                    p.path.segments[0].ident = local(self.k, &id);
                } else if let Some(v) = self.consts.get(&s) {
                    // An integer literal, so that it also serves as a range bound; `i64::MIN`
                    // has no positive counterpart, hence the magnitude as a `u64`.
                    let mut mag = proc_macro2::Literal::u64_unsuffixed(v.unsigned_abs());
                    mag.set_span(id.span());
                    let lit = if *v < 0 {
                        quote::quote_spanned!(id.span()=> (-#mag))
                    } else {
                        quote::quote_spanned!(id.span()=> #mag)
                    };
                    *e = syn::parse_quote!(#lit);
                } else if s == "PI" {
                } else if self.helpers.contains_key(&s) {
                    self.fail(error(
                        &id,
                        with_help(
                            format!("`{s}` is a helper: a value needs a call"),
                            format!("call it with its arguments, `{s}(...)`"),
                        ),
                    ));
                } else {
                    self.not_found(&id);
                    *e = reported(id.span());
                }
            }
            Expr::Call(c) => {
                match single_ident(&c.func) {
                    Some(f) if !self.bound(&f.to_string()) => {
                        if let Some(&k) = self.helpers.get(&f.to_string()) {
                            self.calls.push((k, c.span()));
                        }
                    }
                    _ => self.visit_expr_mut(&mut c.func),
                }
                for a in &mut c.args {
                    self.visit_expr_mut(a);
                }
            }
            Expr::MethodCall(m) => {
                self.visit_expr_mut(&mut m.receiver);
                for a in &mut m.args {
                    self.visit_expr_mut(a);
                }
            }
            Expr::Closure(c) => {
                self.scopes.push(Vec::new());
                for p in &mut c.inputs {
                    if let Pat::Ident(p) = p {
                        self.bind(&mut p.ident);
                    }
                }
                self.visit_expr_mut(&mut c.body);
                self.scopes.pop();
            }
            Expr::Return(r) => {
                let value = match &r.expr {
                    Some(v) => format!("`{}`", v.to_token_stream()),
                    None => "the value".to_string(),
                };
                self.fail(error(
                    &*r,
                    with_help(
                        "a helper has no `return`: its value is its last expression",
                        format!("end the body with {value}, without `return` and without `;`"),
                    ),
                ));
            }
            Expr::ForLoop(l) => {
                let (f, p, i, x) = (&l.for_token, &l.pat, &l.in_token, &l.expr);
                self.fail(error(
                    quote::quote!(#f #p #i #x),
                    with_help(
                        "a `for` loop has no value, so it cannot be part of an expression",
                        "to add up terms, write `(0..N).map(|i| ...).sum::<f64>()`",
                    ),
                ));
            }
            Expr::Index(ix) => {
                self.fail(error(
                    &*ix,
                    with_help(
                        "a helper has no arrays to index: its parameters are `f64` values",
                        "pass the element itself, e.g. `f(x[i])`",
                    ),
                ));
            }
            // Lowering reports what a macro is.
            Expr::Macro(_) => {}
            _ => syn::visit_mut::visit_expr_mut(self, e),
        }
    }
}

/// Checks the helpers, prepares them for inlining and registers them in `cx`. `names` holds
/// the model's names and the constants (a helper named like one is a duplicate).
pub(super) fn define(
    cx: &mut Unroller,
    fns: Vec<syn::ItemFn>,
    names: &mut HashMap<String, Declared>,
) {
    let mut items: Vec<(syn::ItemFn, Vec<Ident>)> = Vec::new();
    for f in fns {
        let params = signature(&mut cx.errors, &f, &cx.consts);
        let s = f.sig.ident.to_string();
        if let Some(first) = names.get(&s) {
            duplicate(&mut cx.errors, &s, first, (f.sig.ident.span(), "a helper"));
            continue;
        }
        names.insert(
            s.clone(),
            Declared {
                span: f.sig.ident.span(),
                kind: "a helper",
                array: false,
            },
        );
        cx.helpers.insert(s, items.len());
        items.push((f, params));
    }
    for (k, (f, params)) in items.into_iter().enumerate() {
        let mut body = *f.block;
        let mut r = Resolver {
            k,
            name: &f.sig.ident,
            scopes: vec![params.iter().map(ToString::to_string).collect()],
            consts: &cx.consts,
            helpers: &cx.helpers,
            names,
            errors: Vec::new(),
            calls: Vec::new(),
            broken: false,
        };
        r.visit_block_mut(&mut body);
        let Resolver {
            errors,
            calls,
            broken,
            ..
        } = r;
        cx.errors.extend(errors);
        let own = size_of_block(&body);
        cx.defs.push(Helper {
            params: params.iter().map(|p| local(k, p)).collect(),
            body,
            broken,
            own,
            total: own,
            calls,
        });
    }
    let names_by_index: Vec<String> = {
        let mut v = vec![String::new(); cx.defs.len()];
        for (name, &k) in &cx.helpers {
            v[k] = name.clone();
        }
        v
    };
    recursion(cx, &names_by_index);
    totals(cx);
}

/// The helpers reachable from `k` through calls (not `k` itself unless it is on a cycle).
fn reachable(defs: &[Helper], k: usize) -> Vec<bool> {
    let mut seen = vec![false; defs.len()];
    let mut stack: Vec<usize> = defs[k].calls.iter().map(|c| c.0).collect();
    while let Some(j) = stack.pop() {
        if !seen[j] {
            seen[j] = true;
            stack.extend(defs[j].calls.iter().map(|c| c.0));
        }
    }
    seen
}

/// One error per cycle of calls (a helper that calls itself, directly or through others); its
/// helpers are marked broken.
fn recursion(cx: &mut Unroller, names: &[String]) {
    let n = cx.defs.len();
    let reach: Vec<Vec<bool>> = (0..n).map(|k| reachable(&cx.defs, k)).collect();
    let mut done = vec![false; n];
    for k in 0..n {
        if done[k] || !reach[k][k] {
            continue;
        }
        // The cycle's helpers: those that `k` reaches and that reach `k`.
        let members: Vec<usize> = (0..n).filter(|&j| reach[k][j] && reach[j][k]).collect();
        // The first call of `k` that leads back to it.
        let Some(&(_, span)) = cx.defs[k]
            .calls
            .iter()
            .find(|(j, _)| *j == k || (reach[*j][k]))
        else {
            continue;
        };
        let msg = if members.len() == 1 {
            format!("the helper `{}` calls itself", names[k])
        } else {
            let list: Vec<String> = members.iter().map(|&j| format!("`{}`", names[j])).collect();
            format!("the helpers {} call each other", list.join(", "))
        };
        cx.errors.push(syn::Error::new(
            span,
            with_help(
                msg,
                "helpers are inlined at every call, so a recursive helper would never finish \
                 expanding; write the repeated terms out, or add them up with \
                 `(0..N).map(|i| ...).sum::<f64>()`",
            ),
        ));
        for j in members {
            done[j] = true;
            cx.defs[j].broken = true;
        }
    }
}

/// Each helper's inlined size: its body plus the inlined size of every call (helpers on a
/// cycle are broken and count their body only).
fn totals(cx: &mut Unroller) {
    let n = cx.defs.len();
    let mut total: Vec<Option<usize>> = vec![None; n];
    // Depth-first, with an explicit stack; cycles are broken, and their calls count as 1.
    for start in 0..n {
        let mut stack = vec![(start, false)];
        while let Some((k, expanded)) = stack.pop() {
            if total[k].is_some() {
                continue;
            }
            let callees: Vec<usize> = if cx.defs[k].broken {
                Vec::new()
            } else {
                cx.defs[k].calls.iter().map(|c| c.0).collect()
            };
            if !expanded {
                stack.push((k, true));
                for &j in &callees {
                    if total[j].is_none() && !cx.defs[j].broken {
                        stack.push((j, false));
                    }
                }
                continue;
            }
            let t = callees.iter().fold(cx.defs[k].own, |acc, &j| {
                acc.saturating_add(total[j].unwrap_or(cx.defs[j].own))
            });
            total[k] = Some(t);
        }
    }
    for (d, t) in cx.defs.iter_mut().zip(total) {
        d.total = t.unwrap_or(d.own);
    }
}
