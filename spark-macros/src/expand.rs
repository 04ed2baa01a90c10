//! Code generation: the struct, its constants, and the trait impls whose bodies are the
//! straight-line derivative code produced by the symbolic engine.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::model::{Model, Stub, Vars};
use crate::parse::{self, ModelInput};
use crate::sym::{self, Arena, Id};

/// The whole expansion of one `mechanics!` invocation.
pub fn expand(input: TokenStream) -> TokenStream {
    let parsed: ModelInput = match syn::parse2(input.clone()) {
        Ok(p) => p,
        Err(e) => return parse::fallback(input, e),
    };
    match crate::model::build(parsed) {
        Ok(model) => emit_model(model),
        Err(failed) => {
            let (err, stub) = *failed;
            let mut out = err.to_compile_error();
            out.extend(emit_stub(&stub));
            out
        }
    }
}

/// A struct with the declared parameters and nothing else, so that code using the model keeps
/// compiling while the model's own errors are fixed.
fn emit_stub(stub: &Stub) -> TokenStream {
    let Stub {
        attrs,
        vis,
        name,
        params,
    } = stub;
    quote! {
        #(#attrs)*
        #[allow(dead_code)]
        #[derive(Clone, Copy, Debug, PartialEq)]
        #vis struct #name { #(pub #params: f64),* }
    }
}

/// Straight-line code for a set of outputs of one generated function.
struct Body {
    lets: TokenStream,
    exprs: Vec<TokenStream>,
}

fn body(model: &Model, outputs: &[Id]) -> Body {
    let vars = model.vars;
    let params: Vec<_> = model.params.iter().map(|p| p.name.clone()).collect();
    let var_expr = move |i: usize| -> TokenStream {
        if i == Vars::TIME {
            return quote!(t);
        }
        let k = i - 1;
        if k < vars.n {
            return quote!(q[#k]);
        }
        let k = k - vars.n;
        if k < vars.n {
            return quote!(v[#k]);
        }
        let k = k - vars.n;
        if k < vars.params {
            let p = &params[k];
            return quote!(self.#p);
        }
        let k = k - vars.params;
        quote!(mu[#k])
    };
    let math = quote!(::spark::__private::math);
    let (lets, exprs) = sym::emit(&model.arena, outputs, &var_expr, &math);
    Body { lets, exprs }
}

/// `out.field[idx] = expr;` for every output that is not identically zero.
fn assignments(arena: &Arena, targets: &[(TokenStream, Id)], exprs: &[TokenStream]) -> TokenStream {
    let mut out = TokenStream::new();
    for ((target, id), e) in targets.iter().zip(exprs) {
        if arena.as_const(*id) == Some(0.0) {
            continue;
        }
        out.extend(quote!(#target = #e;));
    }
    out
}

/// The derivatives every generated function needs, computed once.
struct Derivatives {
    p: Vec<Id>,
    f: Vec<Id>,
    lvv: Vec<Vec<Id>>,
    lvq: Vec<Vec<Id>>,
    lqq: Vec<Vec<Id>>,
    g: Vec<Id>,
    gq: Vec<Vec<Id>>,
    hess_mu: Vec<Vec<Id>>,
    w: Vec<Id>,
    wq: Vec<Vec<Id>>,
}

fn derivatives(model: &mut Model) -> Derivatives {
    let n = model.vars.n;
    let vars = model.vars;
    let ar = &mut model.arena;
    let l = model.lagrangian;
    let p: Vec<Id> = (0..n).map(|a| ar.diff(l, vars.v(a))).collect();
    let f: Vec<Id> = (0..n).map(|a| ar.diff(l, vars.q(a))).collect();
    let lvv = (0..n)
        .map(|a| (0..n).map(|b| ar.diff(p[a], vars.v(b))).collect())
        .collect();
    let lvq = (0..n)
        .map(|a| (0..n).map(|b| ar.diff(p[a], vars.q(b))).collect())
        .collect();
    let lqq = (0..n)
        .map(|a| (0..n).map(|b| ar.diff(f[a], vars.q(b))).collect())
        .collect();
    let g = model.holonomic.clone();
    let gq: Vec<Vec<Id>> = g
        .iter()
        .map(|&gk| (0..n).map(|a| ar.diff(gk, vars.q(a))).collect())
        .collect();
    let zero = ar.constant(0.0);
    let mut hess_mu = vec![vec![zero; n]; n];
    for (k, row) in gq.iter().enumerate() {
        let mu = ar.var(vars.mu(k));
        for (a, out_row) in hess_mu.iter_mut().enumerate() {
            for (b, out) in out_row.iter_mut().enumerate() {
                let h = ar.diff(row[a], vars.q(b));
                let term = ar.mul(mu, h);
                *out = ar.add(*out, term);
            }
        }
    }
    let mut w = Vec::new();
    let mut wq = Vec::new();
    for (k, &gk) in g.iter().enumerate() {
        let mut wk = ar.diff(gk, Vars::TIME);
        for (a, &gka) in gq[k].iter().enumerate() {
            let v = ar.var(vars.v(a));
            let term = ar.mul(gka, v);
            wk = ar.add(wk, term);
        }
        wq.push((0..n).map(|a| ar.diff(wk, vars.q(a))).collect());
        w.push(wk);
    }
    Derivatives {
        p,
        f,
        lvv,
        lvq,
        lqq,
        g,
        gq,
        hess_mu,
        w,
        wq,
    }
}

/// Targets `out.name[i]` of a vector.
fn vector_targets(name: &str, ids: &[Id]) -> Vec<(TokenStream, Id)> {
    let field = format_ident!("{}", name);
    ids.iter()
        .enumerate()
        .map(|(i, &id)| (quote!(out.#field[#i]), id))
        .collect()
}

/// Targets `out.name[(a, b)]` of a matrix; for a symmetric one only `a <= b` is computed and the
/// mirror is copied afterwards.
fn matrix_targets(name: &str, ids: &[Vec<Id>], symmetric: bool) -> Vec<(TokenStream, Id)> {
    let field = format_ident!("{}", name);
    let mut out = Vec::new();
    for (a, row) in ids.iter().enumerate() {
        for (b, &id) in row.iter().enumerate() {
            if symmetric && b < a {
                continue;
            }
            out.push((quote!(out.#field[(#a, #b)]), id));
        }
    }
    out
}

fn mirror(name: &str, n: usize, arena: &Arena, ids: &[Vec<Id>]) -> TokenStream {
    let field = format_ident!("{}", name);
    let mut out = TokenStream::new();
    for (a, row) in ids.iter().enumerate().take(n) {
        for (b, &id) in row.iter().enumerate().take(a) {
            if arena.as_const(id) == Some(0.0) && arena.as_const(ids[b][a]) == Some(0.0) {
                continue;
            }
            out.extend(quote!(out.#field[(#a, #b)] = out.#field[(#b, #a)];));
        }
    }
    out
}

/// One function body filling `out` (a `Default` value of `out_ty`) from `targets`.
fn filled(
    model: &Model,
    out_ty: &TokenStream,
    targets: &[(TokenStream, Id)],
    tail: TokenStream,
) -> TokenStream {
    let ids: Vec<Id> = targets.iter().map(|(_, id)| *id).collect();
    let Body { lets, exprs } = body(model, &ids);
    let assigns = assignments(&model.arena, targets, &exprs);
    quote! {
        #lets
        let mut out = <#out_ty as ::core::default::Default>::default();
        #assigns
        #tail
        out
    }
}

fn emit_model(mut model: Model) -> TokenStream {
    let d = derivatives(&mut model);
    let n = model.vars.n;
    let m = model.holonomic.len();
    let name = &model.name;
    let vis = &model.vis;
    let attrs = &model.attrs;
    let rt = quote!(::spark::__private::runtime);
    let na = quote!(::spark::__private::nalgebra);
    let vec_n = quote!(#na::SVector<f64, #n>);
    let vec_m = quote!(#na::SVector<f64, #m>);

    // The struct and its inherent constants.
    let param_names: Vec<_> = model.params.iter().map(|p| p.name.clone()).collect();
    let param_docs: Vec<String> = model
        .params
        .iter()
        .map(|p| match p.default {
            Some(x) => format!("Parameter `{}` (default `{x:?}`).", p.name),
            None => format!("Parameter `{}`.", p.name),
        })
        .collect();
    let has_doc = attrs.iter().any(|a| a.path().is_ident("doc"));
    let default_doc = if has_doc {
        quote!()
    } else {
        let text = format!("Mechanical model `{name}`, generated by `spark::mechanics!`.");
        quote!(#[doc = #text])
    };
    let default_impl = if model.params.iter().all(|p| p.default.is_some()) {
        let values = model.params.iter().map(|p| p.default.unwrap_or(0.0));
        quote! {
            impl ::core::default::Default for #name {
                fn default() -> Self { Self { #(#param_names: #values),* } }
            }
        }
    } else {
        quote!()
    };
    let coord_names = model.coords.iter().map(|c| c.to_string());
    let vel_names = model.vels.iter().map(|c| c.to_string());
    let param_strs: Vec<String> = param_names.iter().map(|c| c.to_string()).collect();
    let p_count = param_strs.len();

    // Generated function bodies.
    let lag_body = {
        let Body { lets, exprs } = body(&model, &[model.lagrangian]);
        let e = &exprs[0];
        quote!(#lets #e)
    };
    let mf_body = {
        let ids: Vec<Id> = d.p.iter().chain(d.f.iter()).copied().collect();
        let Body { lets, exprs } = body(&model, &ids);
        let (pe, fe) = exprs.split_at(n);
        quote! {
            #lets
            (<#vec_n>::from([#(#pe),*]), <#vec_n>::from([#(#fe),*]))
        }
    };
    let mut dyn_targets = vector_targets("p", &d.p);
    dyn_targets.extend(vector_targets("f", &d.f));
    dyn_targets.extend(matrix_targets("lvv", &d.lvv, true));
    dyn_targets.extend(matrix_targets("lvq", &d.lvq, false));
    dyn_targets.extend(matrix_targets("lqq", &d.lqq, true));
    let dyn_tail = {
        let mut t = mirror("lvv", n, &model.arena, &d.lvv);
        t.extend(mirror("lqq", n, &model.arena, &d.lqq));
        t
    };
    let dyn_body = filled(
        &model,
        &quote!(#rt::DynamicsJacobian<#n>),
        &dyn_targets,
        dyn_tail,
    );
    let con_body = {
        let targets = vector_targets("g", &d.g);
        let ids: Vec<Id> = targets.iter().map(|(_, id)| *id).collect();
        let Body { lets, exprs } = body(&model, &ids);
        quote! {
            #lets
            <#vec_m>::from([#(#exprs),*])
        }
    };
    let mut cj_targets = vector_targets("g", &d.g);
    cj_targets.extend(matrix_targets("gq", &d.gq, false));
    cj_targets.extend(matrix_targets("hess_mu", &d.hess_mu, true));
    let cj_tail = mirror("hess_mu", n, &model.arena, &d.hess_mu);
    let cj_body = filled(
        &model,
        &quote!(#rt::ConstraintJacobian<#n, #m>),
        &cj_targets,
        cj_tail,
    );
    let mut vc_targets = vector_targets("w", &d.w);
    vc_targets.extend(matrix_targets("wq", &d.wq, false));
    vc_targets.extend(matrix_targets("wv", &d.gq, false));
    let vc_body = filled(
        &model,
        &quote!(#rt::VelocityConstraintJacobian<#n, #m>),
        &vc_targets,
        quote!(),
    );

    quote! {
        #(#attrs)*
        #default_doc
        #[derive(Clone, Copy, Debug, PartialEq)]
        #vis struct #name {
            #( #[doc = #param_docs] pub #param_names: f64, )*
        }

        #default_impl

        #[allow(dead_code)]
        impl #name {
            /// Number of coordinates (and of velocities).
            pub const COORDINATES: usize = #n;
            /// Number of holonomic constraints.
            pub const HOLONOMIC_CONSTRAINTS: usize = #m;
            /// Number of parameters.
            pub const PARAMETERS: usize = #p_count;
            /// Names of the coordinates, in order.
            pub const COORDINATE_NAMES: [&'static str; #n] = [#(#coord_names),*];
            /// Names of the velocities, in order.
            pub const VELOCITY_NAMES: [&'static str; #n] = [#(#vel_names),*];
            /// Names of the parameters, in order.
            pub const PARAMETER_NAMES: [&'static str; #p_count] = [#(#param_strs),*];
        }

        impl #rt::Model for #name {
            fn first_non_finite_parameter(&self) -> ::core::option::Option<&'static str> {
                #( if !self.#param_names.is_finite() { return ::core::option::Option::Some(#param_strs); } )*
                ::core::option::Option::None
            }
        }

        #[automatically_derived]
        #[allow(unused_variables, clippy::all, clippy::pedantic, clippy::nursery)]
        impl #rt::Lagrangian<#n, #m> for #name {
            #[inline]
            fn lagrangian(&self, t: f64, q: &#vec_n, v: &#vec_n) -> f64 {
                #lag_body
            }
            #[inline]
            fn momentum_force(&self, t: f64, q: &#vec_n, v: &#vec_n) -> (#vec_n, #vec_n) {
                #mf_body
            }
            #[inline]
            fn dynamics_jacobian(&self, t: f64, q: &#vec_n, v: &#vec_n) -> #rt::DynamicsJacobian<#n> {
                #dyn_body
            }
            #[inline]
            fn constraints(&self, t: f64, q: &#vec_n) -> #vec_m {
                #con_body
            }
            #[inline]
            fn constraint_jacobian(&self, t: f64, q: &#vec_n, mu: &#vec_m) -> #rt::ConstraintJacobian<#n, #m> {
                #cj_body
            }
            #[inline]
            fn velocity_constraint_jacobian(&self, t: f64, q: &#vec_n, v: &#vec_n) -> #rt::VelocityConstraintJacobian<#n, #m> {
                #vc_body
            }
        }
    }
}
