//! Code generation: the struct, its constants, and the trait impls whose bodies are the
//! straight-line derivative code produced by the symbolic engine.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, ToTokens};

use crate::model::{Form, Model};
use crate::params::{Stub, Vars};
use crate::parse::{self, ModelInput};
use crate::sym::{self, Arena, Id};

/// The whole expansion of one `mechanics!` invocation.
pub fn expand(input: TokenStream) -> TokenStream {
    // Names of the user's own (the scan's placeholders are not).
    let reserved = crate::unroll::reserved_prefix_errors(&input);
    // Too-deep parts are replaced before anything recursive sees them (`depth.rs`).
    let (input, too_deep) = crate::depth::scan(input);
    let mut parsed: ModelInput = match syn::parse2(input.clone()) {
        Ok(p) => p,
        Err(mut e) => {
            too_deep.into_iter().for_each(|d| e.combine(d));
            return fallback(input, e);
        }
    };
    parsed.errors.splice(0..0, too_deep);
    parsed.errors.extend(reserved);
    let file_items = crate::mechanism::desugar(&mut parsed);
    crate::unroll::apply(&mut parsed);
    let mut out = match crate::model::build(parsed) {
        Ok(model) => emit_model(model),
        Err(failed) => {
            let (err, stub) = *failed;
            let mut out = err.to_compile_error();
            out.extend(emit_stub(&stub));
            out
        }
    };
    out.extend(file_items);
    out
}

/// A struct with the declared parameters, so that code using the model keeps compiling while
/// the model's own errors are fixed: one error per mistake, none from the code that uses it.
///
/// It has what [`emit_header`] gives the real struct, as far as the input is known: the same
/// derives and doc attributes, `Default` under the same condition (every parameter has a
/// default; a malformed one reads as `0.0` here), and the same associated constants with the
/// counts and names that parsed (see [`Stub`]). When the sizes are known it also implements
/// the model traits, with bodies that are never compiled into a program (the expansion
/// carries the errors), so that `Integrator` code using it adds no errors of its own.
pub(crate) fn emit_stub(stub: &Stub) -> TokenStream {
    let Stub {
        attrs,
        vis,
        name,
        params,
        coords,
        vels,
        holonomic,
        dims,
    } = stub;
    let rt = quote!(::spark::__private::runtime);
    let na = quote!(::spark::__private::nalgebra);
    let traits = match dims {
        Some((n, m)) => {
            let vec_n = quote!(#na::SVector<f64, #n>);
            let vec_m = quote!(#na::SVector<f64, #m>);
            let nu = params.iter().filter(|p| p.input).count();
            let vec_u = quote!(#na::SVector<f64, #nu>);
            let (dd, xx) = ((2 * n).saturating_sub(2 * m), 2 * n);
            let body = quote!(::core::unreachable!("the model has compile errors"));
            quote! {
                #[allow(unused_variables)]
                impl #rt::Lagrangian<#n, #m> for #name {
                    fn lagrangian(&self, t: f64, q: &#vec_n, v: &#vec_n) -> f64 { #body }
                    fn momentum_force(&self, t: f64, q: &#vec_n, v: &#vec_n) -> (#vec_n, #vec_n) { #body }
                    fn dynamics_jacobian(&self, t: f64, q: &#vec_n, v: &#vec_n) -> #rt::DynamicsJacobian<#n> { #body }
                    fn constraints(&self, t: f64, q: &#vec_n) -> #vec_m { #body }
                    fn constraint_jacobian(&self, t: f64, q: &#vec_n, mu: &#vec_m) -> #rt::ConstraintJacobian<#n, #m> { #body }
                    fn velocity_constraint_jacobian(&self, t: f64, q: &#vec_n, v: &#vec_n) -> #rt::VelocityConstraintJacobian<#n, #m> { #body }
                }
                #[allow(unused_variables)]
                impl #rt::Inputs<#n, #nu> for #name {
                    fn inputs(&self) -> #vec_u { #body }
                    fn input_jacobian(&self, t: f64, q: &#vec_n, v: &#vec_n) -> #rt::InputJacobian<#n, #nu> { #body }
                }
                #[allow(unused_variables)]
                impl #rt::Dimensions<#n, #m, 0, #nu, #dd, #xx> for #name {
                    fn set_inputs(&mut self, u: &#vec_u) { #body }
                }
            }
        }
        None => quote!(),
    };

    // The struct, its `Default` and its constants, as `emit_header` writes them (the unit
    // tests in `expand/stub_tests.rs` compare the two on valid models).
    let decl = emit_struct(&StructDecl {
        attrs,
        vis,
        name,
        params,
        n: coords.len(),
        holonomic: *holonomic,
        coords,
        vels,
        stub: true,
    });

    quote! {
        #decl

        impl #rt::Model for #name {
            fn first_non_finite_parameter(&self) -> ::core::option::Option<&'static str> {
                ::core::option::Option::None
            }
        }
        #traits
    }
}

#[cfg(test)]
#[path = "expand/stub_tests.rs"]
mod stub_tests;

/// Straight-line code for a set of outputs of one generated function.
struct Body {
    lets: TokenStream,
    exprs: Vec<TokenStream>,
}

fn body(model: &Model, outputs: &[Id]) -> Body {
    let vars = model.vars;
    let params: Vec<TokenStream> = model
        .params
        .iter()
        .map(crate::params::Param::access)
        .collect();
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
            return params[k].clone();
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
pub(crate) struct Derivatives {
    pub(crate) p: Vec<Id>,
    pub(crate) f: Vec<Id>,
    pub(crate) lvv: Vec<Vec<Id>>,
    pub(crate) lvq: Vec<Vec<Id>>,
    /// `Σ_b L_{v_a q_b} v_b`.
    pub(crate) lvq_v: Vec<Id>,
    /// `∂f/∂q` for `f = ∂L/∂q + Q`.
    pub(crate) lqq: Vec<Vec<Id>>,
    /// `∂Q/∂v` (empty without forces).
    pub(crate) fv: Vec<Vec<Id>>,
    pub(crate) g: Vec<Id>,
    pub(crate) gq: Vec<Vec<Id>>,
    pub(crate) hess_mu: Vec<Vec<Id>>,
    pub(crate) w: Vec<Id>,
    pub(crate) wq: Vec<Vec<Id>>,
    /// `Σ_a ∂w_k/∂q_a v_a`.
    pub(crate) wq_v: Vec<Id>,
}

/// Up to this many coordinates the Lagrangian's gradient is taken by forward rules.
const FORWARD_UP_TO: usize = 3;

pub(crate) fn derivatives(model: &mut Model) -> Derivatives {
    let n = model.vars.n;
    let vars = model.vars;
    let ar = &mut model.arena;
    let l = model.lagrangian;
    // A mechanism's composite-rigid-body terms give the bodies' part of every second
    // derivative below and of `L_vq v`, in code that grows with the nonzeros of the tree
    // (`crate::mechanism::composite`); only the rest of its Lagrangian, the joints' and
    // springs' terms, is differentiated for them here.
    let composite = model
        .composite
        .as_ref()
        .filter(|c| c.mass.len() == n * n && c.lvq_v.len() == n);
    // ∂L/∂v and ∂L/∂q by one reverse sweep: their DAGs share every node, so the second
    // derivatives below (forward, per variable) grow with n · |L|, not n² · |L|. With at most
    // `FORWARD_UP_TO` coordinates the forward rules cost about the same and are kept, so the
    // small models' code is the one their tests were written against (the reverse sweep
    // changes round-off: see docs/performance.md, issue 29). A mechanism's bodies have their
    // own `p` and `f` by the composite terms too, but the sweep's are cheaper to evaluate
    // (body-frame velocities, constant inertias: 1766 against 2616 instructions for the
    // Panda's `momentum_force`), and they are the exact derivatives of the emitted `L`.
    let grad = if n > FORWARD_UP_TO {
        let wrt: Vec<usize> = (0..n)
            .map(|a| vars.v(a))
            .chain((0..n).map(|a| vars.q(a)))
            .collect();
        ar.gradient(l, &wrt)
    } else {
        let dv = (0..n).map(|a| ar.diff(l, vars.v(a))).collect::<Vec<_>>();
        let dq = (0..n).map(|a| ar.diff(l, vars.q(a))).collect::<Vec<_>>();
        dv.into_iter().chain(dq).collect()
    };
    let (p, f) = (grad[..n].to_vec(), grad[n..].to_vec());
    // The generalized force: ∂L/∂q plus the non-conservative forces, if any.
    let forces = &model.forces;
    let with_forces = |ar: &mut Arena, lq: &[Id]| -> Vec<Id> {
        lq.iter()
            .enumerate()
            .map(|(a, &lq)| match forces.get(a) {
                Some(&qa) => ar.add(lq, qa),
                None => lq,
            })
            .collect()
    };
    let f = with_forces(ar, &f);
    // The rest of a mechanism's Lagrangian (its joints' and springs' terms): its momentum and
    // force, whose derivatives are added to the composite terms'.
    let rest = composite.map(|c| {
        let rest_p: Vec<Id> = (0..n).map(|a| ar.diff(c.rest, vars.v(a))).collect();
        let rest_q: Vec<Id> = (0..n).map(|a| ar.diff(c.rest, vars.q(a))).collect();
        let rest_f = with_forces(ar, &rest_q);
        (c, rest_p, rest_f)
    });
    let fv: Vec<Vec<Id>> = model
        .forces
        .iter()
        .map(|&qa| (0..n).map(|b| ar.diff(qa, vars.v(b))).collect())
        .collect();
    // A mechanism's second derivatives come from its composite-rigid-body terms (only the
    // entries of the tree's sparsity, without differentiating `p` and `f`:
    // `crate::mechanism::composite`), plus those of the rest of its Lagrangian and of its
    // forces, which the symbolic engine differentiates.
    let (lvv, lvq, lqq) = match &rest {
        Some((c, rest_p, rest_f)) => {
            // The composite entry plus the rest's derivative along `wrt(b)`.
            let mut plus = |tree: &[Id], rest: &[Id], wrt: fn(&Vars, usize) -> usize| {
                (0..n)
                    .map(|a| {
                        (0..n)
                            .map(|b| {
                                let d = ar.diff(rest[a], wrt(&vars, b));
                                ar.add(tree[a * n + b], d)
                            })
                            .collect::<Vec<Id>>()
                    })
                    .collect::<Vec<_>>()
            };
            let lvq = plus(&c.lvq, rest_p, Vars::q);
            let lqq = plus(&c.lqq, rest_f, Vars::q);
            // The rest's mass matrix: the armature, a quaternion's regularization.
            let lvv = plus(&c.mass, rest_p, Vars::v);
            (lvv, lvq, lqq)
        }
        None => {
            let lvv = (0..n)
                .map(|a| (0..n).map(|b| ar.diff(p[a], vars.v(b))).collect())
                .collect();
            let lvq = (0..n)
                .map(|a| (0..n).map(|b| ar.diff(p[a], vars.q(b))).collect())
                .collect();
            let lqq = (0..n)
                .map(|a| (0..n).map(|b| ar.diff(f[a], vars.q(b))).collect())
                .collect();
            (lvv, lvq, lqq)
        }
    };
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
    // `Σ_b ∂x/∂q_b v_b` as one directional derivative along the velocities each: the functions
    // that only need these products (mass_force, hidden_constraint) never reach the blocks.
    let along_v: Vec<(usize, Id)> = (0..n).map(|b| (vars.q(b), ar.var(vars.v(b)))).collect();
    let lvq_v = match &rest {
        Some((c, rest_p, _)) => (0..n)
            .map(|a| {
                let d = ar.directional(rest_p[a], &along_v);
                ar.add(c.lvq_v[a], d)
            })
            .collect(),
        None => p.iter().map(|&pa| ar.directional(pa, &along_v)).collect(),
    };
    let wq_v = w.iter().map(|&wk| ar.directional(wk, &along_v)).collect();
    Derivatives {
        p,
        f,
        lvv,
        lvq,
        lvq_v,
        lqq,
        fv,
        g,
        gq,
        hess_mu,
        w,
        wq,
        wq_v,
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
    let mut out = emit_header(&model);
    let form = std::mem::replace(&mut model.form, Form::Lagrangian);
    out.extend(match form {
        Form::Lagrangian => emit_lagrangian(model),
        Form::Hamiltonian(h) => {
            let form = hamiltonian_form(&mut model, h);
            emit_odae(model, form)
        }
        Form::Dae { v, p, f, r } => {
            // Generalized forces add to `f`.
            let f = f
                .iter()
                .enumerate()
                .map(|(a, &fa)| match model.forces.get(a) {
                    Some(&qa) => model.arena.add(fa, qa),
                    None => fa,
                })
                .collect();
            emit_odae(
                model,
                OdaeForm {
                    v,
                    p,
                    f,
                    r,
                    energy: None,
                },
            )
        }
    });
    out
}

/// The struct, its `Default`, constants and `Model` impl: the same for every form of model.
fn emit_header(model: &Model) -> TokenStream {
    let n = model.vars.n;
    let m = model.holonomic.len();
    let name = &model.name;
    let vis = &model.vis;
    let attrs = &model.attrs;
    let rt = quote!(::spark::__private::runtime);

    let shown = |c: &syn::Ident| crate::unroll::display(&c.to_string());
    let (coords, vels): (Vec<String>, Vec<String>) = match &model.shown_names {
        Some(names) => names.clone(),
        None => (
            model.coords.iter().map(shown).collect(),
            model.vels.iter().map(shown).collect(),
        ),
    };
    let decl = emit_struct(&StructDecl {
        attrs,
        vis,
        name,
        params: &model.params,
        n,
        holonomic: m,
        coords: &coords,
        vels: &vels,
        stub: false,
    });
    let param_reads: Vec<TokenStream> = model
        .params
        .iter()
        .map(crate::params::Param::access)
        .collect();
    let param_strs: Vec<String> = model
        .params
        .iter()
        .map(crate::params::Param::shown)
        .collect();

    quote! {
        #decl

        impl #rt::Model for #name {
            fn first_non_finite_parameter(&self) -> ::core::option::Option<&'static str> {
                #( if !#param_reads.is_finite() { return ::core::option::Option::Some(#param_strs); } )*
                ::core::option::Option::None
            }
        }

    }
}

/// The `Lagrangian` impl of a model in Lagrangian form.
fn emit_lagrangian(mut model: Model) -> TokenStream {
    let d = derivatives(&mut model);
    let nh_methods = emit_nonholonomic(&mut model, &d);
    let n = model.vars.n;
    let m = model.holonomic.len();
    let rt = quote!(::spark::__private::runtime);
    let na = quote!(::spark::__private::nalgebra);
    let vec_n = quote!(#na::SVector<f64, #n>);
    let vec_m = quote!(#na::SVector<f64, #m>);
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
    let p_body = {
        let Body { lets, exprs } = body(&model, &d.p);
        quote! {
            #lets
            <#vec_n>::from([#(#exprs),*])
        }
    };
    let mut dyn_targets = vector_targets("p", &d.p);
    dyn_targets.extend(vector_targets("f", &d.f));
    dyn_targets.extend(matrix_targets("lvv", &d.lvv, true));
    dyn_targets.extend(matrix_targets("lvq", &d.lvq, false));
    // `∂f/∂q` is symmetric (a Hessian of `L`) unless non-conservative forces add to it.
    let conservative = model.forces.is_empty();
    dyn_targets.extend(matrix_targets("lqq", &d.lqq, conservative));
    dyn_targets.extend(matrix_targets("fv", &d.fv, false));
    let dyn_tail = {
        let mut t = mirror("lvv", n, &model.arena, &d.lvv);
        if conservative {
            t.extend(mirror("lqq", n, &model.arena, &d.lqq));
        }
        t
    };
    let dyn_body = filled(
        &model,
        &quote!(#rt::DynamicsJacobian<#n>),
        &dyn_targets,
        dyn_tail,
    );
    let mut mf2_targets = vector_targets("p", &d.p);
    mf2_targets.extend(vector_targets("f", &d.f));
    mf2_targets.extend(matrix_targets("lvv", &d.lvv, true));
    mf2_targets.extend(vector_targets("lvq_v", &d.lvq_v));
    let mass_body = filled(
        &model,
        &quote!(#rt::MassForce<#n>),
        &mf2_targets,
        mirror("lvv", n, &model.arena, &d.lvv),
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
    let mut cg_targets = vector_targets("g", &d.g);
    cg_targets.extend(matrix_targets("gq", &d.gq, false));
    let cg_body = filled(
        &model,
        &quote!(#rt::model::blocks::ConstraintGradient<#n, #m>),
        &cg_targets,
        quote!(),
    );
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
    // ∇_v L affine in v (L_vv free of v): the end-point equations are linear.
    let vars = model.vars;
    let lvv_roots: Vec<Id> = d.lvv.iter().flatten().copied().collect();
    let quadratic = !model
        .arena
        .any_depends_on(&lvv_roots, |i| (vars.v(0)..vars.v(0) + vars.n).contains(&i));
    // L_vv free of t, q and v (parameters allowed): the mass matrix is the same at every point.
    let constant_mass = !model
        .arena
        .any_depends_on(&lvv_roots, |i| i < vars.param(0));
    // Blocks the symbolic engine folded to zero: the runtime skips them in exact matrices.
    let all_zero = |m: &[Vec<Id>]| {
        m.iter()
            .flatten()
            .all(|&id| model.arena.as_const(id) == Some(0.0))
    };
    let (zero_lvq, zero_lqq, zero_fv) = (all_zero(&d.lvq), all_zero(&d.lqq), all_zero(&d.fv));
    // p, the hidden constraints and the nonholonomic ones free of t: no time derivatives.
    let timed: Vec<Id> =
        d.p.iter()
            .chain(&d.w)
            .chain(&model.nonholonomic)
            .copied()
            .collect();
    let autonomous = !model.arena.any_depends_on(&timed, |i| i == Vars::TIME);
    let mut hc_targets = vector_targets("w", &d.w);
    hc_targets.extend(matrix_targets("gq", &d.gq, false));
    hc_targets.extend(vector_targets("wq_v", &d.wq_v));
    let hc_body = filled(
        &model,
        &quote!(#rt::VelocityConstraint<#n, #m>),
        &hc_targets,
        quote!(),
    );
    let mut hidden_ids: Vec<Id> = d.w.clone();
    hidden_ids.extend(&d.wq_v);
    let Body {
        lets: hidden_lets,
        exprs: hidden_exprs,
    } = body(&model, &hidden_ids);
    let (hidden_w, hidden_wq_v) = hidden_exprs.split_at(d.w.len());
    let mut vc_targets = vector_targets("w", &d.w);
    vc_targets.extend(matrix_targets("wq", &d.wq, false));
    vc_targets.extend(matrix_targets("wv", &d.gq, false));
    let vc_body = filled(
        &model,
        &quote!(#rt::VelocityConstraintJacobian<#n, #m>),
        &vc_targets,
        quote!(),
    );
    let saddle_methods = emit_saddle(&mut model, &d);
    let kk = model.nonholonomic.len();
    let inputs_impl = emit_inputs(&mut model, &d.p, &d.f, &[]);
    let name = &model.name;
    // Every size the model fixes, for inference (`Dimensions`): inputs, tangent dimension
    // 2N − 2M − K (at least 0: more constraints than that is the model's own error), 2N.
    let input_fields: Vec<TokenStream> = model
        .params
        .iter()
        .filter(|p| p.input)
        .map(crate::params::Param::access)
        .collect();
    let (nu, input_index) = (input_fields.len(), 0..input_fields.len());
    let (dd, xx) = ((2 * n).saturating_sub(2 * m + kk), 2 * n);
    quote! {
        #inputs_impl
        #[automatically_derived]
        #[allow(unused_variables)]
        impl #rt::Dimensions<#n, #m, #kk, #nu, #dd, #xx> for #name {
            #[inline]
            fn set_inputs(&mut self, u: &#na::SVector<f64, #nu>) {
                #( #input_fields = u[#input_index]; )*
            }
        }
        #[automatically_derived]
        #[allow(unused_variables, clippy::all, clippy::pedantic, clippy::nursery)]
        impl #rt::Lagrangian<#n, #m, #kk> for #name {
            const QUADRATIC_IN_V: bool = #quadratic;
            const CONSTANT_MASS: bool = #constant_mass;
            const ZERO_LVQ: bool = #zero_lvq;
            const ZERO_LQQ: bool = #zero_lqq;
            const ZERO_FV: bool = #zero_fv;
            const AUTONOMOUS: bool = #autonomous;
            #nh_methods
            #saddle_methods
            #[inline]
            fn lagrangian(&self, t: f64, q: &#vec_n, v: &#vec_n) -> f64 {
                #lag_body
            }
            #[inline]
            fn momentum_force(&self, t: f64, q: &#vec_n, v: &#vec_n) -> (#vec_n, #vec_n) {
                #mf_body
            }
            #[inline]
            fn momentum(&self, t: f64, q: &#vec_n, v: &#vec_n) -> #vec_n {
                #p_body
            }
            #[inline]
            fn dynamics_jacobian(&self, t: f64, q: &#vec_n, v: &#vec_n) -> #rt::DynamicsJacobian<#n> {
                #dyn_body
            }
            #[inline]
            fn mass_force(&self, t: f64, q: &#vec_n, v: &#vec_n) -> #rt::MassForce<#n> {
                #mass_body
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
            fn constraint_gradient(&self, t: f64, q: &#vec_n) -> (#vec_m, #na::SMatrix<f64, #m, #n>) {
                let out = { #cg_body };
                (out.g, out.gq)
            }
            #[inline]
            fn velocity_constraint_jacobian(&self, t: f64, q: &#vec_n, v: &#vec_n) -> #rt::VelocityConstraintJacobian<#n, #m> {
                #vc_body
            }
            #[inline]
            fn velocity_constraint(&self, t: f64, q: &#vec_n, v: &#vec_n) -> #rt::VelocityConstraint<#n, #m> {
                #hc_body
            }
            #[inline]
            fn hidden_constraint(&self, t: f64, q: &#vec_n, v: &#vec_n) -> (#vec_m, #vec_m) {
                #hidden_lets
                (<#vec_m>::from([#(#hidden_w),*]), <#vec_m>::from([#(#hidden_wq_v),*]))
            }
        }
    }
}

/// The fewest coordinates for which a model gets the sparse saddle factorization: below it the
/// dense factors are as fast (measured on the planar chains, `examples/chain_bench.rs`).
const SPARSE_MIN_COORDINATES: usize = 8;

/// The sparsity patterns of `L_vv` (symmetrized) and `G`, and the sparse factorization's code.
type SaddlePlan = (Vec<Vec<bool>>, Vec<Vec<bool>>, crate::saddle::Emitted);

/// The [`SaddlePlan`] of a model that gets the sparse factorization (see [`emit_saddle`]).
fn saddle_plan(model: &Model, d: &Derivatives) -> Option<SaddlePlan> {
    let n = model.vars.n;
    let m = d.g.len();
    let ar = &model.arena;
    let nz = |id: Id| ar.as_const(id) != Some(0.0);
    let l_pat: Vec<Vec<bool>> = (0..n)
        .map(|i| (0..n).map(|j| nz(d.lvv[i][j]) || nz(d.lvv[j][i])).collect())
        .collect();
    let g_pat: Vec<Vec<bool>> =
        d.gq.iter()
            .map(|row| row.iter().map(|&x| nz(x)).collect())
            .collect();
    if n < SPARSE_MIN_COORDINATES || (0..n).any(|i| !l_pat[i][i]) {
        return None;
    }
    let e = crate::saddle::emit(&l_pat, &g_pat)?;
    // Without constraints only the mass matrix is factored: worth its straight-line code when
    // the factor is sparse (a tree with branches: a hand, a humanoid fixed by its pelvis), not
    // when it is dense or nearly so (a serial chain), where the dense factors do the same work.
    if m == 0 && 4 * e.slots > 3 * (n * (n + 1) / 2) {
        return None;
    }
    Some((l_pat, g_pat, e))
}

/// `Gᵀμ` symbolically (`μ` in the multiplier slots): `constraint_reaction` of a model with the
/// sparse saddle factorization.
fn holonomic_reaction(model: &mut Model, d: &Derivatives) -> Vec<Id> {
    let vars = model.vars;
    let ar = &mut model.arena;
    (0..vars.n)
        .map(|a| {
            let mut r = ar.constant(0.0);
            for (l, row) in d.gq.iter().enumerate() {
                let mu = ar.var(vars.mu(l));
                let term = ar.mul(mu, row[a]);
                r = ar.add(r, term);
            }
            r
        })
        .collect()
}

/// The `Lagrangian` saddle methods (`SPARSE_SADDLE` and the sparse factorization of
/// `crate::saddle`) of a model whose mass matrix and constraint Jacobian are sparse enough;
/// empty otherwise (the runtime's dense factors).
fn emit_saddle(model: &mut Model, d: &Derivatives) -> TokenStream {
    let n = model.vars.n;
    let m = d.g.len();
    let Some((l_pat, g_pat, e)) = saddle_plan(model, d) else {
        return quote!();
    };
    // Gᵀ mu, for `constraint_reaction`.
    let vars = model.vars;
    let reaction = holonomic_reaction(model, d);
    let lv_ids: Vec<Id> = (0..n)
        .flat_map(|i| (0..=i).map(move |j| (i, j)))
        .filter(|&(i, j)| l_pat[i][j])
        .map(|(i, j)| d.lvv[i][j])
        .collect();
    let gv_ids: Vec<Id> = (0..m)
        .flat_map(|r| (0..n).map(move |c| (r, c)))
        .filter(|&(r, c)| g_pat[r][c])
        .map(|(r, c)| d.gq[r][c])
        .collect();
    let (nl, ng) = (lv_ids.len(), gv_ids.len());
    let Body {
        lets: l_lets,
        exprs: l_exprs,
    } = body(model, &lv_ids);
    let Body {
        lets: g_lets,
        exprs: g_exprs,
    } = body(model, &gv_ids);
    let mut mf_ids: Vec<Id> = d.p.clone();
    mf_ids.extend(&d.f);
    mf_ids.extend(&d.lvq_v);
    let Body {
        lets: mf_lets,
        exprs: mf_exprs,
    } = body(model, &mf_ids);
    let (pe, rest) = mf_exprs.split_at(n);
    let (fe, le) = rest.split_at(n);
    let mut cr_ids: Vec<Id> = d.g.clone();
    cr_ids.extend(&reaction);
    let Body {
        lets: cr_lets,
        exprs: cr_exprs,
    } = body(model, &cr_ids);
    let (cr_g, cr_r) = cr_exprs.split_at(m);
    // G x (x in the velocity slots: G is free of v), for `constraint_product`; G's row norms,
    // for `constraint_row_norms`.
    let (products, norms): (Vec<Id>, Vec<Id>) = {
        let ar = &mut model.arena;
        let gx =
            d.gq.iter()
                .map(|row| {
                    let mut r = ar.constant(0.0);
                    let mut sq = ar.constant(0.0);
                    for (c, &e) in row.iter().enumerate() {
                        let x = ar.var(vars.v(c));
                        let term = ar.mul(e, x);
                        r = ar.add(r, term);
                        let e2 = ar.mul(e, e);
                        sq = ar.add(sq, e2);
                    }
                    (r, ar.sqrt(sq))
                })
                .collect::<Vec<_>>();
        gx.into_iter().unzip()
    };
    let Body {
        lets: gp_lets,
        exprs: gp_exprs,
    } = body(model, &products);
    let Body {
        lets: gn_lets,
        exprs: gn_exprs,
    } = body(model, &norms);
    let rt = quote!(::spark::__private::runtime);
    let na = quote!(::spark::__private::nalgebra);
    let vec_n = quote!(#na::SVector<f64, #n>);
    let vec_m = quote!(#na::SVector<f64, #m>);
    let store = quote!(#rt::model::saddle::SaddleStore<#n, #m>);
    let crate::saddle::Emitted {
        factor,
        mass_solve,
        schur_solve,
        g,
        g_tr,
        slots,
    } = e;
    // Dry friction: the simplified iteration can diverge where full Newton converges, so the
    // step stays on the dense factors with their full-Newton fallback at any size.
    let stiff = model.dry_friction.then(|| {
        quote!(
            const STIFF_DISSIPATION: bool = true;
        )
    });
    let factor_doc = format!(
        "Sparse `LDLᵀ` factors of `L` and `G L⁻¹ Gᵀ` and the nonzeros of `G`: {slots} of the \
         store's {} slots.",
        crate::saddle::WIDTH * (n + m)
    );
    quote! {
        const SPARSE_SADDLE: bool = true;
        #stiff
        #[inline]
        fn momentum_force_lvq_v(&self, t: f64, q: &#vec_n, v: &#vec_n) -> (#vec_n, #vec_n, #vec_n) {
            #mf_lets
            (<#vec_n>::from([#(#pe),*]), <#vec_n>::from([#(#fe),*]), <#vec_n>::from([#(#le),*]))
        }
        #[doc = #factor_doc]
        fn saddle_factor(&self, mass_at: (f64, &#vec_n, &#vec_n), g_at: (f64, &#vec_n), store: &mut #store) -> bool {
            let lv: [f64; #nl] = {
                let (t, q, v) = mass_at;
                #l_lets
                [#(#l_exprs),*]
            };
            let gv: [f64; #ng] = {
                let (t, q) = g_at;
                #g_lets
                [#(#g_exprs),*]
            };
            #factor
        }
        #[inline]
        fn constraint_reaction(&self, t: f64, q: &#vec_n, mu: &#vec_m) -> (#vec_m, #vec_n) {
            #cr_lets
            (<#vec_m>::from([#(#cr_g),*]), <#vec_n>::from([#(#cr_r),*]))
        }
        fn saddle_mass_solve(&self, store: &#store, x: &mut #vec_n) {
            #mass_solve
        }
        fn saddle_schur_solve(&self, store: &#store, x: &mut #vec_m) {
            #schur_solve
        }
        fn saddle_g(&self, store: &#store, x: &#vec_n) -> #vec_m {
            <#vec_m>::from(#g)
        }
        fn saddle_g_tr(&self, store: &#store, y: &#vec_m) -> #vec_n {
            <#vec_n>::from(#g_tr)
        }
        #[inline]
        fn constraint_product(&self, t: f64, q: &#vec_n, x: &#vec_n) -> #vec_m {
            let v = x;
            #gp_lets
            <#vec_m>::from([#(#gp_exprs),*])
        }
        fn constraint_row_norms(&self, t: f64, q: &#vec_n) -> #vec_m {
            #gn_lets
            <#vec_m>::from([#(#gn_exprs),*])
        }
    }
}

/// The `Inputs` impl of a model: the inputs' values and `∂p/∂u`, `∂f/∂u`, `∂v/∂u` (`v` empty
/// for a Lagrangian model, whose velocities are variables).
fn emit_inputs(model: &mut Model, p: &[Id], f: &[Id], v: &[Id]) -> TokenStream {
    let vars = model.vars;
    let n = vars.n;
    let inputs: Vec<(usize, syn::Ident)> = model
        .params
        .iter()
        .enumerate()
        .filter(|(_, p)| p.input)
        .map(|(k, p)| (k, p.name.clone()))
        .collect();
    let u = inputs.len();
    let ar = &mut model.arena;
    let jac = |ar: &mut Arena, e: &[Id]| -> Vec<Vec<Id>> {
        e.iter()
            .map(|&x| {
                inputs
                    .iter()
                    .map(|(k, _)| ar.diff(x, vars.param(*k)))
                    .collect()
            })
            .collect()
    };
    let p_u = jac(ar, p);
    let f_u = jac(ar, f);
    let v_u = jac(ar, v);
    let mut targets = matrix_targets("p_u", &p_u, false);
    targets.extend(matrix_targets("f_u", &f_u, false));
    targets.extend(matrix_targets("v_u", &v_u, false));
    let rt = quote!(::spark::__private::runtime);
    let na = quote!(::spark::__private::nalgebra);
    let vec_n = quote!(#na::SVector<f64, #n>);
    let body = filled(
        model,
        &quote!(#rt::InputJacobian<#n, #u>),
        &targets,
        quote!(),
    );
    let name = &model.name;
    let fields = inputs.iter().map(|(_, f)| f);
    quote! {
        #[automatically_derived]
        #[allow(unused_variables, clippy::all, clippy::pedantic, clippy::nursery)]
        impl #rt::Inputs<#n, #u> for #name {
            #[inline]
            fn inputs(&self) -> #na::SVector<f64, #u> {
                #na::SVector::<f64, #u>::from([#(self.#fields),*])
            }
            #[inline]
            fn input_jacobian(&self, t: f64, q: &#vec_n, v: &#vec_n) -> #rt::InputJacobian<#n, #u> {
                #body
            }
        }
    }
}

/// For a model with nonholonomic constraints `k(t, q, v)`: the `Lagrangian` methods that
/// evaluate them (`k`, `k_q`, `k_v`, and the second derivatives of `k_vᵀψ`, with `ψ` in the
/// multiplier slots, named `mu` in the generated function), and the fused evaluations of the
/// coupled step's iterations (`stage_terms`: `p`, `f`, `k`, `k_vᵀψ`; `end_terms`: `p`, `w`,
/// `k`, `g`, `Gᵀμ`), each one body over the shared subexpressions of its outputs. Empty for a model without
/// them (the trait's defaults are those of `K = 0`).
fn emit_nonholonomic(model: &mut Model, d: &Derivatives) -> TokenStream {
    let k_ids = model.nonholonomic.clone();
    if k_ids.is_empty() {
        return quote!();
    }
    let vars = model.vars;
    let n = vars.n;
    let kk = k_ids.len();
    let rt = quote!(::spark::__private::runtime);
    let na = quote!(::spark::__private::nalgebra);
    let vec_n = quote!(#na::SVector<f64, #n>);
    let vec_k = quote!(#na::SVector<f64, #kk>);
    let ar = &mut model.arena;
    let kq: Vec<Vec<Id>> = k_ids
        .iter()
        .map(|&k| (0..n).map(|b| ar.diff(k, vars.q(b))).collect())
        .collect();
    let kv: Vec<Vec<Id>> = k_ids
        .iter()
        .map(|&k| (0..n).map(|b| ar.diff(k, vars.v(b))).collect())
        .collect();
    let zero = ar.constant(0.0);
    let mut hess_vq = vec![vec![zero; n]; n];
    let mut hess_vv = vec![vec![zero; n]; n];
    for (l, row) in kv.iter().enumerate() {
        let psi = ar.var(vars.mu(l));
        for a in 0..n {
            for b in 0..n {
                let dq = ar.diff(row[a], vars.q(b));
                let tq = ar.mul(psi, dq);
                hess_vq[a][b] = ar.add(hess_vq[a][b], tq);
                let dv = ar.diff(row[a], vars.v(b));
                let tv = ar.mul(psi, dv);
                hess_vv[a][b] = ar.add(hess_vv[a][b], tv);
            }
        }
    }
    // `k_vᵀψ`, for `nonholonomic_reaction` (the coupled step's iterations).
    let mut reaction = vec![zero; n];
    for (l, row) in kv.iter().enumerate() {
        let psi = ar.var(vars.mu(l));
        for a in 0..n {
            let term = ar.mul(psi, row[a]);
            reaction[a] = ar.add(reaction[a], term);
        }
    }
    let mut kr_ids = k_ids.clone();
    kr_ids.extend(&reaction);
    let Body {
        lets: kr_lets,
        exprs: kr_exprs,
    } = body(model, &kr_ids);
    let (kr_k, kr_r) = kr_exprs.split_at(kk);
    // `stage_terms`: p, f, k and k_vᵀψ from one body.
    let stage_ids: Vec<Id> = d.p.iter().chain(&d.f).chain(&kr_ids).copied().collect();
    let Body {
        lets: st_lets,
        exprs: st_exprs,
    } = body(model, &stage_ids);
    let (st_p, st_rest) = st_exprs.split_at(n);
    let (st_f, st_rest) = st_rest.split_at(n);
    let (st_k, st_r) = st_rest.split_at(kk);
    // `end_terms`: p, w, k, g and Gᵀμ from one body, `Gᵀμ` as `constraint_reaction` forms it
    // (symbolically with the sparse saddle factorization, else as `Gᵀ` times `μ`). The
    // reaction's nodes are made last: the nodes above keep the ids they had without them.
    let m = d.w.len();
    let vec_m = quote!(#na::SVector<f64, #m>);
    let end_fn = {
        let sparse = saddle_plan(model, d).is_some();
        let reaction_g = if sparse {
            holonomic_reaction(model, d)
        } else {
            Vec::new()
        };
        let ar = &model.arena;
        let gq_entries: Vec<(usize, usize, Id)> = if sparse {
            Vec::new()
        } else {
            (0..m)
                .flat_map(|r| (0..n).map(move |c| (r, c)))
                .map(|(r, c)| (r, c, d.gq[r][c]))
                .filter(|&(_, _, id)| ar.as_const(id) != Some(0.0))
                .collect()
        };
        let ids: Vec<Id> =
            d.p.iter()
                .chain(&d.w)
                .chain(&k_ids)
                .chain(&d.g)
                .copied()
                .chain(reaction_g.iter().copied())
                .chain(gq_entries.iter().map(|&(_, _, id)| id))
                .collect();
        let Body { lets, exprs } = body(model, &ids);
        let (p, rest) = exprs.split_at(n);
        let (w, rest) = rest.split_at(m);
        let (k, rest) = rest.split_at(kk);
        let (g, rest) = rest.split_at(m);
        let reaction = if sparse {
            quote!(<#vec_n>::from([#(#rest),*]))
        } else {
            let (rows, cols): (Vec<usize>, Vec<usize>) =
                gq_entries.iter().map(|&(r, c, _)| (r, c)).unzip();
            quote!({
                let mut gq = <#na::SMatrix<f64, #m, #n>>::zeros();
                #( gq[(#rows, #cols)] = #rest; )*
                gq.tr_mul(mu)
            })
        };
        quote! {
            #[inline]
            fn end_terms(&self, t: f64, q: &#vec_n, v: &#vec_n, mu: &#vec_m) -> (#vec_n, #vec_m, #vec_k, #vec_m, #vec_n) {
                #lets
                (
                    <#vec_n>::from([#(#p),*]),
                    <#vec_m>::from([#(#w),*]),
                    <#vec_k>::from([#(#k),*]),
                    <#vec_m>::from([#(#g),*]),
                    #reaction,
                )
            }
        }
    };
    // `(k, k_v)`, for `nonholonomic_velocity_jacobian` (the coupled step's start).
    let kv_body = {
        let mut targets: Vec<(TokenStream, Id)> = k_ids
            .iter()
            .enumerate()
            .map(|(i, &id)| (quote!(k[#i]), id))
            .collect();
        for (r, row) in kv.iter().enumerate() {
            for (c, &id) in row.iter().enumerate() {
                targets.push((quote!(kv[(#r, #c)]), id));
            }
        }
        let ids: Vec<Id> = targets.iter().map(|(_, id)| *id).collect();
        let Body { lets, exprs } = body(model, &ids);
        let assigns = assignments(&model.arena, &targets, &exprs);
        quote! {
            #lets
            let mut k = <#vec_k>::zeros();
            let mut kv = <#na::SMatrix<f64, #kk, #n>>::zeros();
            #assigns
            (k, kv)
        }
    };
    let k_body = {
        let Body { lets, exprs } = body(model, &k_ids);
        quote! {
            #lets
            <#vec_k>::from([#(#exprs),*])
        }
    };
    let mut targets = vector_targets("k", &k_ids);
    targets.extend(matrix_targets("kq", &kq, false));
    targets.extend(matrix_targets("kv", &kv, false));
    targets.extend(matrix_targets("hess_vq", &hess_vq, false));
    targets.extend(matrix_targets("hess_vv", &hess_vv, false));
    let j_body = filled(
        model,
        &quote!(#rt::NonholonomicJacobian<#n, #kk>),
        &targets,
        quote!(),
    );
    quote! {
        #[inline]
        fn nonholonomic_constraints(&self, t: f64, q: &#vec_n, v: &#vec_n) -> #vec_k {
            #k_body
        }
        #[inline]
        fn nonholonomic_jacobian(&self, t: f64, q: &#vec_n, v: &#vec_n, mu: &#vec_k) -> #rt::NonholonomicJacobian<#n, #kk> {
            #j_body
        }
        #[inline]
        fn nonholonomic_reaction(&self, t: f64, q: &#vec_n, v: &#vec_n, mu: &#vec_k) -> (#vec_k, #vec_n) {
            #kr_lets
            (<#vec_k>::from([#(#kr_k),*]), <#vec_n>::from([#(#kr_r),*]))
        }
        #[inline]
        fn nonholonomic_velocity_jacobian(&self, t: f64, q: &#vec_n, v: &#vec_n) -> (#vec_k, #na::SMatrix<f64, #kk, #n>) {
            #kv_body
        }
        #[inline]
        fn stage_terms(&self, t: f64, q: &#vec_n, v: &#vec_n, mu: &#vec_k) -> (#vec_n, #vec_n, #vec_k, #vec_n) {
            #st_lets
            (
                <#vec_n>::from([#(#st_p),*]),
                <#vec_n>::from([#(#st_f),*]),
                <#vec_k>::from([#(#st_k),*]),
                <#vec_n>::from([#(#st_r),*]),
            )
        }
        #end_fn
    }
}

/// A model in the form of the overdetermined DAE (2.11): `y' = v`, `(p)' = f + r`, `0 = g`.
/// Symbols: `y` in the coordinate slots, `z` in the velocity slots, `λ` in the multiplier slots.
pub struct OdaeForm {
    pub v: Vec<Id>,
    pub p: Vec<Id>,
    pub f: Vec<Id>,
    pub r: Vec<Id>,
    /// A conserved quantity to report as the energy (the Hamiltonian).
    pub energy: Option<Id>,
}

/// The DAE form of a Hamiltonian `H(t, q, p)` with the momenta in the velocity slots:
/// `v = H_p`, `p = z`, `f = −H_q + Q`, `r = −Gᵀλ` (Jay 2007, §2.4; `Q` the model's forces).
pub fn hamiltonian_form(model: &mut Model, hamiltonian: Id) -> OdaeForm {
    let vars = model.vars;
    let n = vars.n;
    let ar = &mut model.arena;
    let v = (0..n).map(|a| ar.diff(hamiltonian, vars.v(a))).collect();
    let p = (0..n).map(|a| ar.var(vars.v(a))).collect();
    let f = (0..n)
        .map(|a| {
            let hq = ar.diff(hamiltonian, vars.q(a));
            let f = ar.neg(hq);
            match model.forces.get(a) {
                Some(&qa) => ar.add(f, qa),
                None => f,
            }
        })
        .collect();
    let r = reaction_of_holonomic(ar, &vars, &model.holonomic);
    OdaeForm {
        v,
        p,
        f,
        r,
        energy: Some(hamiltonian),
    }
}

/// `r = −Gᵀλ` for the holonomic constraints `g` (ideal reaction forces).
fn reaction_of_holonomic(ar: &mut Arena, vars: &Vars, g: &[Id]) -> Vec<Id> {
    let mut r = Vec::new();
    for a in 0..vars.n {
        let mut ra = ar.constant(0.0);
        for (k, &gk) in g.iter().enumerate() {
            let gka = ar.diff(gk, vars.q(a));
            let mu = ar.var(vars.mu(k));
            let term = ar.mul(gka, mu);
            ra = ar.sub(ra, term);
        }
        r.push(ra);
    }
    r
}

/// The `Odae` impl of a model given in DAE form.
fn emit_odae(mut model: Model, form: OdaeForm) -> TokenStream {
    let vars = model.vars;
    let m = model.holonomic.len();
    let name = model.name.clone();
    let n = vars.n;
    let rt = quote!(::spark::__private::runtime);
    let na = quote!(::spark::__private::nalgebra);
    let vec_n = quote!(#na::SVector<f64, #n>);
    let vec_m = quote!(#na::SVector<f64, #m>);
    let mat_mn = quote!(#na::SMatrix<f64, #m, #n>);

    let ar = &mut model.arena;
    let jac =
        |ar: &mut Arena, e: &[Id], slot: &dyn Fn(usize) -> usize, cols: usize| -> Vec<Vec<Id>> {
            e.iter()
                .map(|&x| (0..cols).map(|b| ar.diff(x, slot(b))).collect())
                .collect()
        };
    let q_slot = |b: usize| vars.q(b);
    let z_slot = |b: usize| vars.v(b);
    let l_slot = |k: usize| vars.mu(k);
    let v_y = jac(ar, &form.v, &q_slot, n);
    let v_z = jac(ar, &form.v, &z_slot, n);
    let p_y = jac(ar, &form.p, &q_slot, n);
    let p_z = jac(ar, &form.p, &z_slot, n);
    let f_y = jac(ar, &form.f, &q_slot, n);
    let f_z = jac(ar, &form.f, &z_slot, n);
    let r_y = jac(ar, &form.r, &q_slot, n);
    let r_l = jac(ar, &form.r, &l_slot, m);
    let g = model.holonomic.clone();
    let g_y = jac(ar, &g, &q_slot, n);
    let mut w = Vec::new();
    for (k, &gk) in g.iter().enumerate() {
        let mut wk = ar.diff(gk, Vars::TIME);
        for (a, &va) in form.v.iter().enumerate() {
            let term = ar.mul(g_y[k][a], va);
            wk = ar.add(wk, term);
        }
        w.push(wk);
    }
    let w_y = jac(ar, &w, &q_slot, n);
    let w_z = jac(ar, &w, &z_slot, n);

    let kin_body = {
        let ids: Vec<Id> = form
            .v
            .iter()
            .chain(&form.p)
            .chain(&form.f)
            .copied()
            .collect();
        let Body { lets, exprs } = body(&model, &ids);
        let (ve, rest) = exprs.split_at(n);
        let (pe, fe) = rest.split_at(n);
        quote! {
            #lets
            (<#vec_n>::from([#(#ve),*]), <#vec_n>::from([#(#pe),*]), <#vec_n>::from([#(#fe),*]))
        }
    };
    let mut kj = vector_targets("v", &form.v);
    kj.extend(vector_targets("p", &form.p));
    kj.extend(vector_targets("f", &form.f));
    for (field, ids) in [
        ("v_y", &v_y),
        ("v_z", &v_z),
        ("p_y", &p_y),
        ("p_z", &p_z),
        ("f_y", &f_y),
        ("f_z", &f_z),
    ] {
        kj.extend(matrix_targets(field, ids, false));
    }
    let kj_body = filled(&model, &quote!(#rt::KinematicsJacobian<#n>), &kj, quote!());
    let mut rj = vector_targets("r", &form.r);
    rj.extend(matrix_targets("r_y", &r_y, false));
    rj.extend(matrix_targets("r_l", &r_l, false));
    let rj_body = filled(
        &model,
        &quote!(#rt::ReactionJacobian<#n, #m>),
        &rj,
        quote!(),
    );
    let pc_body = {
        let mut targets = Vec::new();
        for (k, &gk) in g.iter().enumerate() {
            targets.push((quote!(out.0[#k]), gk));
        }
        targets.extend(g_y.iter().enumerate().flat_map(|(k, row)| {
            row.iter()
                .enumerate()
                .map(move |(a, &id)| (quote!(out.1[(#k, #a)]), id))
        }));
        let ids: Vec<Id> = targets.iter().map(|(_, id)| *id).collect();
        let Body { lets, exprs } = body(&model, &ids);
        let assigns = assignments(&model.arena, &targets, &exprs);
        quote! {
            #lets
            let mut out = (<#vec_m>::zeros(), <#mat_mn>::zeros());
            #assigns
            out
        }
    };
    let mut hj = vector_targets("w", &w);
    hj.extend(matrix_targets("w_y", &w_y, false));
    hj.extend(matrix_targets("w_z", &w_z, false));
    let hj_body = filled(&model, &quote!(#rt::HiddenJacobian<#n, #m>), &hj, quote!());
    let inputs_impl = emit_inputs(&mut model, &form.p, &form.f, &form.v);
    let energy_fn = match form.energy {
        Some(e) => {
            let Body { lets, exprs } = body(&model, &[e]);
            let e = &exprs[0];
            quote! {
                #[inline]
                fn energy(&self, t: f64, q: &#vec_n, v: &#vec_n) -> ::core::option::Option<f64> {
                    #lets
                    ::core::option::Option::Some(#e)
                }
            }
        }
        None => quote!(),
    };
    quote! {
        #inputs_impl
        #[automatically_derived]
        #[allow(unused_variables, clippy::all, clippy::pedantic, clippy::nursery)]
        impl #rt::Odae<#n, #m> for #name {
            #[inline]
            fn kinematics(&self, t: f64, q: &#vec_n, v: &#vec_n) -> (#vec_n, #vec_n, #vec_n) {
                #kin_body
            }
            #[inline]
            fn kinematics_jacobian(&self, t: f64, q: &#vec_n, v: &#vec_n) -> #rt::KinematicsJacobian<#n> {
                #kj_body
            }
            #[inline]
            fn reaction_jacobian(&self, t: f64, q: &#vec_n, mu: &#vec_m) -> #rt::ReactionJacobian<#n, #m> {
                #rj_body
            }
            #[inline]
            fn position_constraints(&self, t: f64, q: &#vec_n) -> (#vec_m, #mat_mn) {
                #pc_body
            }
            #[inline]
            fn hidden_constraint(&self, t: f64, q: &#vec_n, v: &#vec_n) -> #rt::HiddenJacobian<#n, #m> {
                #hj_body
            }
            #energy_fn
        }
    }
}

/// What the struct of a model (or of the stub of a model with errors) is made of.
struct StructDecl<'a> {
    attrs: &'a [syn::Attribute],
    vis: &'a syn::Visibility,
    name: &'a syn::Ident,
    /// Parameters, then inputs.
    params: &'a [crate::params::Param],
    n: usize,
    holonomic: usize,
    coords: &'a [String],
    vels: &'a [String],
    /// The stub of a model with errors (its fields may go unread).
    stub: bool,
}

/// The struct of a model, its `Default` (when every parameter has a default and the user does
/// not derive one) and its associated constants: the same for a model and for its stub.
fn emit_struct(d: &StructDecl) -> TokenStream {
    let StructDecl {
        attrs,
        vis,
        name,
        params,
        n,
        holonomic,
        coords,
        vels,
        stub,
    } = *d;
    // One struct field per scalar parameter or input, and one `[f64; N]` per parameter array
    // (its elements are consecutive): the field's name, type, doc and default value.
    let mut field_names: Vec<&syn::Ident> = Vec::new();
    let mut field_types: Vec<TokenStream> = Vec::new();
    let mut field_docs: Vec<String> = Vec::new();
    let mut field_defaults: Vec<TokenStream> = Vec::new();
    for (i, p) in params.iter().enumerate() {
        match &p.element {
            Some((_, k)) if *k > 0 => {}
            Some((base, _)) => {
                let elements: Vec<_> = params[i..]
                    .iter()
                    .take_while(|e| matches!(&e.element, Some((b, _)) if b == base))
                    .collect();
                let len = elements.len();
                let values = elements.iter().map(|e| e.default.unwrap_or(0.0));
                field_names.push(base);
                field_types.push(quote!([f64; #len]));
                field_docs.push(match p.default {
                    Some(x) => format!(
                        "Parameters `{base}[0]` .. `{base}[{}]` (default `{x:?}`).",
                        len - 1
                    ),
                    None => format!("Parameters `{base}[0]` .. `{base}[{}]`.", len - 1),
                });
                field_defaults.push(quote!([#(#values),*]));
            }
            None => {
                field_names.push(&p.name);
                field_types.push(quote!(f64));
                field_docs.push(match (p.input, p.default) {
                    (true, _) => format!(
                        "Input `{}`: held constant over each step (zero-order hold); `0.0` by default. \
                         Set it between steps with `Integrator::system_mut`.",
                        p.name
                    ),
                    (false, Some(x)) => format!("Parameter `{}` (default `{x:?}`).", p.name),
                    (false, None) => format!("Parameter `{}`.", p.name),
                });
                let value = p.default.unwrap_or(0.0);
                field_defaults.push(quote!(#value));
            }
        }
    }
    let has_doc = attrs.iter().any(|a| a.path().is_ident("doc"));
    let default_doc = if has_doc {
        quote!()
    } else {
        let text = format!("Mechanical model `{name}`, generated by `spark::mechanics!`.");
        quote!(#[doc = #text])
    };
    let user_derives_default = attrs.iter().any(|a| {
        a.path().is_ident("derive") && a.meta.to_token_stream().to_string().contains("Default")
    });
    let default_impl = if !user_derives_default && params.iter().all(|p| p.default.is_some()) {
        quote! {
            impl ::core::default::Default for #name {
                fn default() -> Self { Self { #(#field_names: #field_defaults),* } }
            }
        }
    } else {
        quote!()
    };
    let allow = if stub {
        quote!(#[allow(dead_code)])
    } else {
        quote!()
    };
    let names = |input: bool| -> Vec<String> {
        params
            .iter()
            .filter(|p| p.input == input)
            .map(crate::params::Param::shown)
            .collect()
    };
    let (param_strs, input_strs) = (names(false), names(true));
    // A name from a model file keeps its spelling (`tau_FL_HAA` for the joint `FL_HAA`): a
    // struct with such a field allows `non_snake_case` (rustc reads the lint's level for a
    // field on the struct, not on the field), any other struct lints as usual.
    let snake = if field_names
        .iter()
        .any(|f| f.to_string().chars().any(|c| c.is_ascii_uppercase()))
    {
        quote!(#[allow(non_snake_case)])
    } else {
        quote!()
    };
    let (p_count, u_count) = (param_strs.len(), input_strs.len());
    quote! {
        #(#attrs)*
        #default_doc
        #allow
        #[derive(Clone, Copy, Debug, PartialEq)]
        #snake
        #vis struct #name {
            #( #[doc = #field_docs] pub #field_names: #field_types, )*
        }

        #default_impl

        #[allow(dead_code)]
        impl #name {
            /// Number of coordinates (and of velocities).
            pub const COORDINATES: usize = #n;
            /// Number of holonomic constraints.
            pub const HOLONOMIC_CONSTRAINTS: usize = #holonomic;
            /// Number of parameters (inputs not counted).
            pub const PARAMETERS: usize = #p_count;
            /// Number of control inputs.
            pub const INPUTS: usize = #u_count;
            /// Names of the coordinates, in order.
            pub const COORDINATE_NAMES: [&'static str; #n] = [#(#coords),*];
            /// Names of the velocities, in order.
            pub const VELOCITY_NAMES: [&'static str; #n] = [#(#vels),*];
            /// Names of the parameters, in order.
            pub const PARAMETER_NAMES: [&'static str; #p_count] = [#(#param_strs),*];
            /// Names of the control inputs, in order.
            pub const INPUT_NAMES: [&'static str; #u_count] = [#(#input_strs),*];
        }
    }
}

/// What to emit when the input does not even parse: the error, plus a stub of the intended
/// name when one can be found (see [`parse::recover`]), so that the user's other code still
/// type-checks. When the body is recovered too it is checked as usual: its own errors are
/// reported along with this one, and the stub has its parameters and constants.
pub fn fallback(input: TokenStream, err: syn::Error) -> TokenStream {
    match parse::recover(input) {
        None => err.to_compile_error(),
        Some(parse::Recovered::Name(attrs, vis, name)) => {
            let mut out = err.to_compile_error();
            out.extend(emit_stub(&Stub::empty(attrs, vis, name)));
            out
        }
        Some(parse::Recovered::Model(mut model)) => {
            model.errors.insert(0, err.clone());
            match crate::model::build(model) {
                Err(failed) => {
                    let (errors, stub) = *failed;
                    let mut out = errors.to_compile_error();
                    out.extend(emit_stub(&stub));
                    out
                }
                // Not reached: the header's error is among the model's errors.
                Ok(_) => err.to_compile_error(),
            }
        }
    }
}
