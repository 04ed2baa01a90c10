//! The validated model: names resolved, expressions lowered into the symbolic arena, every
//! check done. Only a `Model` reaches code generation.
//!
//! [`build`] never stops at the first mistake: every field, name and expression is checked,
//! errors are collected in a [`Ctxt`], and an expression with an error is lowered to the
//! placeholder [`POISON`](crate::lower::POISON) so that the checks of `check.rs` can skip it instead of reporting
//! consequences of the first error.

use std::collections::HashMap;

use proc_macro2::Span;
use syn::{Attribute, Expr, Ident, Visibility};

use crate::check;
use crate::ctxt::Ctxt;
use crate::lower::{nearest, reserved, Lowerer, Scope};
use crate::params::{Param, Stub, Vars};
use crate::parse::{ExprList, FieldValue, ModelInput, NameList, ParameterDecl, FIELD_NAMES};
use crate::sym::{Arena, Id};

// An explicit path, so that the benches that include this file by `#[path]` find it too.
#[cfg(test)]
#[path = "model/tests.rs"]
mod tests;

#[cfg(test)]
#[path = "model/hostile_tests.rs"]
mod hostile_tests;

/// A checked model, ready for differentiation and emission.
pub struct Model {
    pub attrs: Vec<Attribute>,
    pub vis: Visibility,
    pub name: Ident,
    pub coords: Vec<Ident>,
    pub vels: Vec<Ident>,
    pub params: Vec<Param>,
    pub vars: Vars,
    pub arena: Arena,
    pub lagrangian: Id,
    /// The non-conservative generalized forces `Q` (one per coordinate, `forces` minus the
    /// velocity gradient of `dissipation`), empty when the model has none.
    pub forces: Vec<Id>,
    pub holonomic: Vec<Id>,
    /// A mechanism's second derivatives by the composite-rigid-body algorithm
    /// (`crate::mechanism::composite`); `None`: differentiate the Lagrangian.
    pub composite: Option<Composite>,
    /// Nonholonomic constraints `k(t, q, v)` (Lagrangian form only).
    pub nonholonomic: Vec<Id>,
    pub form: Form,
    /// `COORDINATE_NAMES` and `VELOCITY_NAMES` when they are not the identifiers.
    pub shown_names: Option<(Vec<String>, Vec<String>)>,
    /// See [`crate::parse::ModelInput::dry_friction`].
    pub dry_friction: bool,
}

/// A mechanism's composite-rigid-body terms (`crate::mechanism::composite`), `n × n` each,
/// row-major.
pub struct Composite {
    /// `∂²L/∂v²`.
    pub mass: Vec<Id>,
    /// The bodies' `∂²L/∂v∂q`.
    pub lvq: Vec<Id>,
    /// The bodies' `∂²L/∂q²`.
    pub lqq: Vec<Id>,
    /// The bodies' `(∂²L/∂v∂q) v`.
    pub lvq_v: Vec<Id>,
    /// The rest of the Lagrangian, whose derivatives are added symbolically.
    pub rest: Id,
}

/// How the dynamics are given.
pub enum Form {
    /// `lagrangian: L(t, q, v)` (the expression is `Model::lagrangian`).
    Lagrangian,
    /// `hamiltonian: H(t, q, p)`, the momenta in the velocity slots.
    Hamiltonian(Id),
    /// `v`, `p`, `f`, `r` of the DAE (2.11), `z` in the velocity slots, `λ` in the multiplier
    /// slots.
    Dae {
        v: Vec<Id>,
        p: Vec<Id>,
        f: Vec<Id>,
        r: Vec<Id>,
    },
}

/// The fields of the input, each taken at most once.
#[derive(Default)]
struct Fields {
    coordinates: Option<NameList>,
    velocities: Option<NameList>,
    parameters: Option<Vec<ParameterDecl>>,
    inputs: Option<NameList>,
    definitions: Option<syn::Block>,
    forces: Option<ExprList>,
    dissipation: Option<Box<Expr>>,
    lagrangian: Option<Box<Expr>>,
    holonomic: Option<ExprList>,
    /// A mechanism's composite-rigid-body terms (`crate::mechanism::COMPOSITE_FIELD`).
    composite: Option<ExprList>,
    nonholonomic: Option<ExprList>,
    hamiltonian: Option<Box<Expr>>,
    multipliers: Option<NameList>,
    /// `v`, `p`, `f`, `r` of the DAE form, in that order.
    dae: [Option<ExprList>; 4],
    /// Every known key that was given, also when its value did not parse.
    keys: HashMap<String, Ident>,
}

impl Fields {
    fn given(&self, key: &str) -> bool {
        self.keys.contains_key(key)
    }
}

fn collect_fields(cx: &mut Ctxt, fields_in: Vec<crate::parse::Field>) -> Fields {
    let mut fields = Fields::default();
    for field in fields_in {
        let key = field.key.to_string();
        if let FieldValue::Unknown = field.value {
            let list = FIELD_NAMES
                .iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", ");
            let msg = format!("unknown field `{key}`");
            match nearest(&key, FIELD_NAMES.iter().copied()) {
                Some(near) => cx.error_help(
                    field.key.span(),
                    msg,
                    format!("a field with a similar name exists: `{near}`"),
                ),
                None => cx.error_help(field.key.span(), msg, format!("the fields are {list}")),
            }
            continue;
        }
        if let Some(first) = fields.keys.get(&key) {
            cx.error(
                first.span(),
                format!("duplicate field `{key}`: first given here"),
            );
            cx.error_help(
                field.key.span(),
                format!("duplicate field `{key}`: given again here"),
                "give each field once",
            );
            continue;
        }
        fields.keys.insert(key.clone(), field.key.clone());
        match field.value {
            FieldValue::Names(names) if key == "coordinates" => fields.coordinates = Some(names),
            FieldValue::Names(names) if key == "multipliers" => fields.multipliers = Some(names),
            FieldValue::Names(names) if key == "inputs" => fields.inputs = Some(names),
            // `momenta` (Hamiltonian form) and `variables` (DAE form) take the place of the
            // velocities; `form_of` rejects a model that gives more than one of them.
            FieldValue::Names(names) => fields.velocities = Some(names),
            FieldValue::Expr(e) if key == "hamiltonian" => fields.hamiltonian = Some(e),
            FieldValue::Expr(e) if key == "dissipation" => fields.dissipation = Some(e),
            FieldValue::Parameters(p) => fields.parameters = Some(p),
            FieldValue::Definitions(b) => fields.definitions = Some(b),
            FieldValue::Expr(e) => fields.lagrangian = Some(e),
            FieldValue::Exprs(e) if key == "holonomic" => fields.holonomic = Some(e),
            FieldValue::Exprs(e) if key == crate::mechanism::COMPOSITE_FIELD => {
                fields.composite = Some(e)
            }
            FieldValue::Exprs(e) if key == "forces" => fields.forces = Some(e),
            FieldValue::Exprs(e) if key == "v" => fields.dae[0] = Some(e),
            FieldValue::Exprs(e) if key == "p" => fields.dae[1] = Some(e),
            FieldValue::Exprs(e) if key == "f" => fields.dae[2] = Some(e),
            FieldValue::Exprs(e) if key == "r" => fields.dae[3] = Some(e),
            FieldValue::Exprs(e) => fields.nonholonomic = Some(e),
            FieldValue::Unknown | FieldValue::Invalid | FieldValue::Tokens(_) => {}
        }
    }
    fields
}

/// A parameter default must be a (possibly negated) numeric literal.
fn literal_value(e: &Expr) -> Option<f64> {
    match e {
        Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Float(f),
            ..
        }) => f.base10_parse().ok(),
        Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => i.base10_parse().ok(),
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => literal_value(&u.expr).map(|x| -x),
        Expr::Paren(p) => literal_value(&p.expr),
        Expr::Group(g) => literal_value(&g.expr),
        _ => None,
    }
}

/// The names declared so far (coordinates, velocities, parameters, definitions), to reject
/// duplicates and reserved names on the user's tokens.
#[derive(Default)]
struct Declared {
    names: HashMap<String, (Span, &'static str)>,
}

impl Declared {
    /// Declares `id` as a `kind` ("a coordinate", ...). False (after recording an error) when
    /// the name is reserved or already declared: such a name must not be bound to a variable.
    fn declare(
        &mut self,
        cx: &mut Ctxt,
        id: &Ident,
        kind: &'static str,
        reserved_ok: bool,
    ) -> bool {
        let s = id.to_string();
        if !reserved_ok {
            if let Some(why) = reserved(&s) {
                cx.error_help(
                    id.span(),
                    format!("`{s}` cannot be declared as {kind}: {why}"),
                    "choose another name",
                );
                return false;
            }
        }
        if let Some((first, first_kind)) = self.names.get(&s) {
            let s = crate::unroll::display(&s);
            if kind == "a definition" {
                // The `let` is the mistake: the declaration stands.
                cx.error_help(
                    id.span(),
                    format!("`{s}` is already declared, as {first_kind}: this `let` needs a name of its own"),
                    "choose another name for the definition",
                );
                return false;
            }
            cx.error(
                *first,
                format!("duplicate name `{s}`: first declared here, as {first_kind}"),
            );
            cx.error_help(
                id.span(),
                format!("duplicate name `{s}`: declared again here, as {kind}"),
                "every coordinate, velocity, parameter, input and definition needs a name of its own",
            );
            return false;
        }
        self.names.insert(s, (id.span(), kind));
        true
    }
}

/// Checks that there is one velocity per coordinate, on the names without a partner.
fn check_lengths(cx: &mut Ctxt, coords: &NameList, vels: &NameList) {
    let (nc, nv) = (coords.names.len(), vels.names.len());
    if nc == nv || nc == 0 {
        return;
    }
    let counts = format!(
        "{nc} coordinate{} but {nv} velocit{}",
        if nc == 1 { "" } else { "s" },
        if nv == 1 { "y" } else { "ies" }
    );
    let list = |names: &[Ident]| {
        names
            .iter()
            .map(|n| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    if nc > nv {
        let extra = &coords.names[nv..];
        let what = if extra.len() == 1 {
            format!("coordinate {} has no velocity", list(extra))
        } else {
            format!("coordinates {} have no velocity", list(extra))
        };
        cx.error_spanned_help(
            &quote::quote!(#(#extra)*),
            format!("{what}: {counts}"),
            "list one velocity per coordinate in `velocities`, in the same order",
        );
    } else {
        let extra = &vels.names[nc..];
        let what = if extra.len() == 1 {
            format!("velocity {} has no coordinate", list(extra))
        } else {
            format!("velocities {} have no coordinate", list(extra))
        };
        cx.error_spanned_help(
            &quote::quote!(#(#extra)*),
            format!("{what}: {counts}"),
            if extra.len() == 1 {
                "remove it, or add its coordinate to `coordinates` at the same position"
            } else {
                "remove them, or add their coordinates to `coordinates` at the same positions"
            },
        );
    }
}

/// The parameters with their defaults, which must be finite numeric literals.
fn parameters(cx: &mut Ctxt, decls: &[ParameterDecl]) -> Vec<Param> {
    let mut params = Vec::new();
    for p in decls {
        let default = match &p.default {
            None => None,
            Some(e) => match literal_value(e) {
                Some(x) if x.is_finite() => Some(x),
                Some(_) => {
                    cx.error_spanned_help(
                        e,
                        format!(
                            "the default of parameter `{}` is not a finite number",
                            p.name
                        ),
                        format!("write a finite number, e.g. `{} = 1.0`", p.name),
                    );
                    None
                }
                None => {
                    cx.error_spanned_help(
                        e,
                        format!(
                            "the default of parameter `{}` must be a numeric literal",
                            p.name
                        ),
                        format!(
                            "write a number, e.g. `{} = 1.0`; a quantity computed from \
                             parameters belongs in `definitions`",
                            p.name
                        ),
                    );
                    None
                }
            },
        };
        params.push(Param {
            name: p.name.clone(),
            default,
            input: false,
            element: p.element.clone(),
        });
    }
    params
}

/// Checks `input` and lowers it. On error, returns the errors and what a stub needs.
pub fn build(input: ModelInput) -> Result<Model, Box<(syn::Error, Stub)>> {
    let mut cx = Ctxt::default();
    // Constants and helpers were consumed by `unroll` (whose errors are among `errors`).
    let ModelInput {
        attrs,
        vis,
        name,
        fields,
        errors,
        shown_names,
        dry_friction,
        ..
    } = input;
    for e in errors {
        cx.push(e);
    }
    let name_span = name.span();
    let fields = collect_fields(&mut cx, fields);

    // Coordinates and velocities.
    let empty = |span| NameList {
        span,
        names: Vec::new(),
        sizes: Vec::new(),
    };
    if !fields.given("coordinates") {
        cx.error_help(
            name_span,
            "missing field `coordinates`",
            "list the generalized coordinates, e.g. `coordinates: [x, y],`",
        );
    }
    // The form of the dynamics decides which list takes the velocity slots.
    let is_hamiltonian = fields.given("hamiltonian");
    let is_dae = ["v", "p", "f", "r"].iter().any(|k| fields.given(k));
    let (second_key, second_kind, second_help) = if is_dae {
        (
            "variables",
            "a variable",
            "list the variables `z` of the DAE, e.g. `variables: [z1, z2],`",
        )
    } else if is_hamiltonian {
        (
            "momenta",
            "a momentum",
            "list one momentum per coordinate, e.g. `momenta: [px, py],`",
        )
    } else {
        (
            "velocities",
            "a velocity",
            "list one velocity per coordinate, e.g. `velocities: [vx, vy],`",
        )
    };
    for (key, form) in [
        ("velocities", "a Lagrangian model"),
        ("momenta", "a Hamiltonian model"),
        ("variables", "a model given as a DAE (`v`, `p`, `f`, `r`)"),
    ] {
        if key != second_key {
            if let Some(k) = fields.keys.get(key) {
                cx.error_help(
                    k.span(),
                    format!(
                        "`{key}` belongs to {form}, but this model's dynamics are given otherwise"
                    ),
                    format!("this model lists `{second_key}`"),
                );
            }
        }
    }
    for (a, b) in [
        ("lagrangian", "hamiltonian"),
        ("lagrangian", "v"),
        ("hamiltonian", "v"),
    ] {
        if let (Some(_), Some(kb)) = (fields.keys.get(a), fields.keys.get(b)) {
            cx.error_help(
                kb.span(),
                format!("a model gives its dynamics once: `{a}` and `{b}` cannot both be given"),
                "keep one form: a Lagrangian, a Hamiltonian, or the DAE fields `v`, `p`, `f`, `r`",
            );
        }
    }
    if !fields.given(second_key) {
        cx.error_help(
            name_span,
            format!("missing field `{second_key}`"),
            second_help,
        );
    }
    if let (Some(k), true) = (fields.keys.get("nonholonomic"), is_hamiltonian || is_dae) {
        cx.error_help(
            k.span(),
            "nonholonomic constraints are supported for Lagrangian models only",
            "write the model with `velocities` and a `lagrangian`",
        );
    }
    // Both lists parsed: their lengths can be compared, and the checks of `check.rs` that
    // need one velocity per coordinate can run when they agree.
    let coords_parsed = fields.coordinates.is_some();
    let both_lists = coords_parsed && fields.velocities.is_some();
    let coords = fields.coordinates.unwrap_or_else(|| empty(name_span));
    let vels = fields.velocities.unwrap_or_else(|| empty(name_span));
    if coords_parsed && coords.names.is_empty() {
        cx.error_help(
            coords.span,
            "a model needs at least one coordinate",
            "list the generalized coordinates, e.g. `coordinates: [x, y]`",
        );
    }
    if both_lists {
        check_lengths(&mut cx, &coords, &vels);
    }
    let param_decls = fields.parameters.unwrap_or_default();

    // The stub: a struct with every parameter once, whatever else is wrong.
    let mut stub_params: Vec<Param> = Vec::new();
    for p in &param_decls {
        if !stub_params.iter().any(|s| s.name == p.name) {
            let default = p
                .default
                .as_ref()
                .map(|e| literal_value(e).filter(|x| x.is_finite()).unwrap_or(0.0));
            stub_params.push(Param {
                name: p.name.clone(),
                default,
                input: false,
                element: p.element.clone(),
            });
        }
    }
    let input_names: Vec<Ident> = fields
        .inputs
        .as_ref()
        .map_or_else(Vec::new, |l| l.names.clone());
    for u in &input_names {
        if !stub_params.iter().any(|s| s.name == *u) {
            stub_params.push(Param {
                name: u.clone(),
                default: Some(0.0),
                input: true,
                element: None,
            });
        }
    }
    let stub_n = if coords_parsed {
        coords.names.len()
    } else {
        vels.names.len()
    };
    let stub_names = |list: &NameList| -> Vec<String> {
        (0..stub_n)
            .map(|i| {
                list.names
                    .get(i)
                    .map_or_else(String::new, |n| crate::unroll::display(&n.to_string()))
            })
            .collect()
    };
    let stub_holonomic = fields.holonomic.as_ref().map_or(0, |h| h.exprs.len());
    let lagrangian_form = !fields.keys.contains_key("hamiltonian")
        && !["v", "p", "f", "r"]
            .iter()
            .any(|k| fields.keys.contains_key(*k));
    let dims = (lagrangian_form
        && both_lists
        && coords.names.len() == vels.names.len()
        && !coords.names.is_empty())
    .then_some((stub_n, stub_holonomic));
    let stub = Stub {
        attrs: attrs.clone(),
        vis: vis.clone(),
        name: name.clone(),
        params: stub_params,
        coords: stub_names(&coords),
        vels: stub_names(&vels),
        holonomic: stub_holonomic,
        dims,
    };

    // Names: unique, not reserved.
    let mut declared = Declared::default();
    let coord_ok: Vec<bool> = coords
        .names
        .iter()
        .map(|c| declared.declare(&mut cx, c, "a coordinate", false))
        .collect();
    let vel_ok: Vec<bool> = vels
        .names
        .iter()
        .map(|v| declared.declare(&mut cx, v, second_kind, false))
        .collect();
    let multipliers = fields
        .multipliers
        .as_ref()
        .map_or(&[][..], |l| &l.names[..]);
    let mult_ok: Vec<bool> = multipliers
        .iter()
        .map(|l| declared.declare(&mut cx, l, "a multiplier", false))
        .collect();
    let param_ok: Vec<bool> = param_decls
        .iter()
        .map(|p| declared.declare(&mut cx, &p.name, "a parameter", false))
        .collect();
    let input_ok: Vec<bool> = input_names
        .iter()
        .map(|u| declared.declare(&mut cx, u, "an input", false))
        .collect();

    let mut params = parameters(&mut cx, &param_decls);
    let first_input = params.len();
    params.extend(input_names.iter().map(|u| Param {
        name: u.clone(),
        default: Some(0.0),
        input: true,
        element: None,
    }));

    // Symbols. With mismatched lists every name still gets its own variable (the model is
    // not emitted then).
    let n = coords.names.len().max(vels.names.len());
    let vars = Vars {
        n,
        params: params.len(),
    };
    let mut arena = Arena::new();
    let mut scope = Scope::default();
    scope.bind("t".into(), arena.var(Vars::TIME));
    // A rejected declaration binds nothing: a name declared twice keeps its first meaning and
    // a reserved name its built-in one, as a compiler ignores a duplicate item.
    for (i, (c, ok)) in coords.names.iter().zip(&coord_ok).enumerate() {
        if *ok {
            scope.bind(c.to_string(), arena.var(vars.q(i)));
        }
    }
    for (i, (v, ok)) in vels.names.iter().zip(&vel_ok).enumerate() {
        if *ok {
            scope.bind(v.to_string(), arena.var(vars.v(i)));
        }
    }
    for (k, (p, ok)) in params
        .iter()
        .zip(param_ok.iter().chain(&input_ok))
        .enumerate()
    {
        if *ok {
            scope.bind(p.name.to_string(), arena.var(vars.param(k)));
        }
    }
    for (k, (l, ok)) in multipliers.iter().zip(&mult_ok).enumerate() {
        if *ok {
            scope.bind(l.to_string(), arena.var(vars.mu(k)));
        }
    }

    let rates = (!is_hamiltonian && !is_dae).then(|| crate::lower::Rates {
        time: Vars::TIME,
        pairs: (0..n).map(|i| (vars.q(i), vars.v(i))).collect(),
    });
    let mut lower = Lowerer {
        cx: &mut cx,
        arena: &mut arena,
        rates,
    };
    if let Some(block) = &fields.definitions {
        for stmt in &block.stmts {
            match stmt {
                syn::Stmt::Local(local) => {
                    if let Some((ident, value)) = lower.local(&scope, local) {
                        if declared.declare(lower.cx, &ident, "a definition", true) {
                            scope.bind(ident.to_string(), value);
                        }
                    }
                }
                // `unroll` reported what is wrong with it.
                syn::Stmt::Expr(Expr::Path(p), _) if p.path.is_ident(crate::unroll::REPORTED) => {}
                other => {
                    lower.cx.error_spanned_help(
                        other,
                        "`definitions` holds only `let` statements",
                        "bind the value to a name: `let a = ...;`",
                    );
                }
            }
        }
    }

    let lagrangian = match &fields.lagrangian {
        Some(e) => lower.expr(&scope, e),
        None => {
            if !fields.keys.contains_key("lagrangian") && !is_hamiltonian && !is_dae {
                lower.cx.error_help(
                    name_span,
                    "missing field `lagrangian`",
                    "add the Lagrangian `L(t, q, v)`, e.g. \
                     `lagrangian: 0.5 * m * vx.powi(2) - m * g * x,`",
                );
            }
            lower.placeholder()
        }
    };
    let mut lower_list = |list: &Option<ExprList>| -> Vec<Id> {
        list.iter()
            .flat_map(|l| &l.exprs)
            .map(|e| lower.expr(&scope, e))
            .collect()
    };
    let holonomic = lower_list(&fields.holonomic);
    let composite = fields.composite.as_ref().and_then(|_| {
        let ids = lower_list(&fields.composite);
        let n = vars.n;
        (ids.len() == 3 * n * n + n + 1).then(|| {
            let (matrices, rest) = ids.split_at(3 * n * n);
            Composite {
                mass: matrices[..n * n].to_vec(),
                lvq: matrices[n * n..2 * n * n].to_vec(),
                lqq: matrices[2 * n * n..].to_vec(),
                lvq_v: rest[..n].to_vec(),
                rest: rest[n],
            }
        })
    });
    let nonholonomic = lower_list(&fields.nonholonomic);
    let force_list = lower_list(&fields.forces);
    let dae_lists: Vec<Vec<Id>> = fields.dae.iter().map(&mut lower_list).collect();
    let hamiltonian = fields.hamiltonian.as_ref().map(|e| lower.expr(&scope, e));
    let dissipation = fields.dissipation.as_ref().map(|e| lower.expr(&scope, e));
    // A model in another form has no Lagrangian: a placeholder makes the Lagrangian checks
    // (regularity) skip it.
    let lagrangian = if is_hamiltonian || is_dae {
        lower.placeholder()
    } else {
        lagrangian
    };
    let form = dae_form(
        &mut cx,
        &mut arena,
        DaeInput {
            is_dae,
            lists: &dae_lists,
            dae: &fields.dae,
            keys: &fields.keys,
            vars: &vars,
            multipliers,
            m: holonomic.len(),
            name_span,
        },
    )
    .or_else(|| hamiltonian.map(Form::Hamiltonian))
    .unwrap_or(Form::Lagrangian);

    let no_exprs: &[Expr] = &[];
    let hol_exprs = fields.holonomic.as_ref().map_or(no_exprs, |l| &l.exprs);
    let nonhol_exprs = fields.nonholonomic.as_ref().map_or(no_exprs, |l| &l.exprs);
    let lists_consistent =
        both_lists && !coords.names.is_empty() && coords.names.len() == vels.names.len();
    let problem = check::Problem {
        vars,
        coords: &coords.names,
        vels: &vels.names,
        vels_declared: &vel_ok,
        params: &params,
        lagrangian,
        holonomic: &holonomic,
        holonomic_exprs: hol_exprs,
        nonholonomic: &nonholonomic,
        nonholonomic_exprs: nonhol_exprs,
        holonomic_key: fields.keys.get("holonomic"),
        nonholonomic_key: fields.keys.get("nonholonomic"),
        lists_consistent,
    };
    check::check(&mut cx, &mut arena, &problem);
    let inputs = first_input..params.len();
    let forces = crate::forces::build(
        &mut cx,
        &mut arena,
        crate::forces::Input {
            vars,
            inputs: inputs.clone(),
            params: &params,
            forces: &force_list,
            forces_list: fields.forces.as_ref(),
            dissipation,
            dissipation_expr: fields.dissipation.as_deref(),
            keys: &fields.keys,
            lagrangian_form: !is_hamiltonian && !is_dae,
            multipliers: multipliers.len(),
            constraints: [
                (&holonomic[..], hol_exprs, "holonomic"),
                (&nonholonomic[..], nonhol_exprs, "nonholonomic"),
            ],
        },
    );

    match cx.finish() {
        Err(e) => Err(Box::new((e, stub))),
        Ok(()) => Ok(Model {
            attrs,
            vis,
            name,
            coords: coords.names,
            vels: vels.names,
            params,
            vars,
            arena,
            lagrangian,
            forces,
            holonomic,
            composite,
            nonholonomic,
            form,
            shown_names,
            dry_friction,
        }),
    }
}

/// What `dae_form` needs to know.
struct DaeInput<'a> {
    is_dae: bool,
    lists: &'a [Vec<Id>],
    dae: &'a [Option<ExprList>; 4],
    keys: &'a HashMap<String, Ident>,
    vars: &'a Vars,
    multipliers: &'a [Ident],
    m: usize,
    name_span: Span,
}

/// Checks the DAE form (`v`, `p`, `f`, `r`, each with one entry per coordinate; one multiplier
/// per holonomic constraint, appearing only in `r`) and returns it.
fn dae_form(cx: &mut Ctxt, arena: &mut Arena, d: DaeInput) -> Option<Form> {
    if !d.is_dae {
        if let Some(k) = d.keys.get("multipliers") {
            cx.error_help(
                k.span(),
                "`multipliers` belongs to a model given as a DAE (`v`, `p`, `f`, `r`)",
                "the multipliers of a Lagrangian or Hamiltonian model are implicit: remove this field",
            );
        }
        return None;
    }
    let n = d.vars.n;
    let mut ok = true;
    for (k, key) in ["v", "p", "f", "r"].iter().enumerate() {
        match (&d.dae[k], d.keys.get(*key)) {
            (Some(list), Some(ident)) if list.exprs.len() != n => {
                ok = false;
                cx.error_help(
                    ident.span(),
                    format!(
                        "`{key}` has {} entr{} but the model has {n} coordinates",
                        list.exprs.len(),
                        if list.exprs.len() == 1 { "y" } else { "ies" }
                    ),
                    format!("give one entry of `{key}` per coordinate"),
                )
            }
            (_, None) => {
                ok = false;
                cx.error_help(
                    d.name_span,
                    format!(
                        "missing field `{key}`: a model given as a DAE needs `v`, `p`, `f` and `r`"
                    ),
                    "see the DSL reference in the README (general DAE form)",
                )
            }
            (None, Some(_)) => ok = false,
            _ => {}
        }
    }
    if d.multipliers.len() != d.m {
        ok = false;
        let span = d.keys.get("multipliers").map_or(d.name_span, |k| k.span());
        cx.error_help(
            span,
            format!(
                "{} multipliers for {} holonomic constraints",
                d.multipliers.len(),
                d.m
            ),
            "list one multiplier per holonomic constraint in `multipliers`",
        );
    }
    for (k, key) in ["v", "p", "f"].iter().enumerate() {
        for (&e, expr) in d.lists[k]
            .iter()
            .zip(d.dae[k].iter().flat_map(|l| &l.exprs))
        {
            if (0..d.multipliers.len()).any(|l| arena.depends_on(e, d.vars.mu(l))) {
                ok = false;
                cx.error_spanned_help(
                    expr,
                    format!("`{key}` depends on a multiplier"),
                    "multipliers may appear only in the reaction force `r`",
                );
            }
        }
    }
    if !ok {
        return None;
    }
    Some(Form::Dae {
        v: d.lists[0].clone(),
        p: d.lists[1].clone(),
        f: d.lists[2].clone(),
        r: d.lists[3].clone(),
    })
}
