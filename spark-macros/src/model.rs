//! The validated model: names resolved, expressions lowered into the symbolic arena, every
//! check done. Only a `Model` reaches code generation.

use std::collections::HashMap;

use proc_macro2::Span;
use syn::{Attribute, Expr, Ident, Visibility};

use crate::ctxt::Ctxt;
use crate::lower::{Lowerer, Scope, BINARY_FUNCTIONS, UNARY_FUNCTIONS};
use crate::parse::{FieldValue, ModelInput, ParameterDecl, FIELD_NAMES};
use crate::sym::{Arena, Id};

/// A parameter: a field of the generated struct.
pub struct Param {
    pub name: Ident,
    pub default: Option<f64>,
}

/// Symbol numbering in the arena: `t`, then coordinates, velocities, parameters, multipliers.
#[derive(Clone, Copy)]
pub struct Vars {
    pub n: usize,
    pub params: usize,
}

impl Vars {
    pub const TIME: usize = 0;
    pub fn q(&self, i: usize) -> usize {
        1 + i
    }
    pub fn v(&self, i: usize) -> usize {
        1 + self.n + i
    }
    pub fn param(&self, k: usize) -> usize {
        1 + 2 * self.n + k
    }
    /// Multiplier `k` that contracts constraint Hessians (never written by the user).
    pub fn mu(&self, k: usize) -> usize {
        1 + 2 * self.n + self.params + k
    }
}

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
    pub holonomic: Vec<Id>,
}

/// What is known about the struct even when the model has errors: enough for a stub.
pub struct Stub {
    pub attrs: Vec<Attribute>,
    pub vis: Visibility,
    pub name: Ident,
    pub params: Vec<Ident>,
}

/// The fields of the input, each taken at most once.
#[derive(Default)]
struct Fields {
    coordinates: Option<Vec<Ident>>,
    velocities: Option<Vec<Ident>>,
    parameters: Option<Vec<ParameterDecl>>,
    definitions: Option<syn::Block>,
    lagrangian: Option<Box<Expr>>,
    holonomic: Option<Vec<Expr>>,
}

fn collect_fields(cx: &mut Ctxt, input: ModelInput) -> Fields {
    let mut fields = Fields::default();
    let mut seen: HashMap<String, Ident> = HashMap::new();
    for field in input.fields {
        let key = field.key.to_string();
        if let FieldValue::Unknown = field.value {
            let list = FIELD_NAMES
                .iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", ");
            cx.error(
                field.key.span(),
                format!("unknown field `{key}`; expected one of: {list}"),
            );
            continue;
        }
        if let Some(first) = seen.get(&key) {
            cx.error(first.span(), format!("field `{key}` is given twice"));
            cx.error(field.key.span(), format!("field `{key}` is given twice"));
            continue;
        }
        seen.insert(key.clone(), field.key.clone());
        match field.value {
            FieldValue::Names(names) if key == "coordinates" => fields.coordinates = Some(names),
            FieldValue::Names(names) => fields.velocities = Some(names),
            FieldValue::Parameters(p) => fields.parameters = Some(p),
            FieldValue::Definitions(b) => fields.definitions = Some(b),
            FieldValue::Expr(e) => fields.lagrangian = Some(e),
            FieldValue::Exprs(e) => fields.holonomic = Some(e),
            FieldValue::Unknown => {}
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

/// Checks `input` and lowers it. On error, returns the errors and what a stub needs.
pub fn build(input: ModelInput) -> Result<Model, Box<(syn::Error, Stub)>> {
    let mut cx = Ctxt::default();
    let (attrs, vis, name) = (input.attrs.clone(), input.vis.clone(), input.name.clone());
    let name_span = name.span();
    let fields = collect_fields(&mut cx, input);

    let coords_given = fields.coordinates.is_some();
    let coords = fields.coordinates.unwrap_or_else(|| {
        cx.error(
            name_span,
            "missing field `coordinates`, e.g. `coordinates: [x, y]`",
        );
        Vec::new()
    });
    let vels = fields.velocities.unwrap_or_else(|| {
        cx.error(
            name_span,
            "missing field `velocities`, e.g. `velocities: [vx, vy]`",
        );
        Vec::new()
    });
    let param_decls = fields.parameters.unwrap_or_default();
    let stub = Stub {
        attrs: attrs.clone(),
        vis: vis.clone(),
        name: name.clone(),
        params: param_decls.iter().map(|p| p.name.clone()).collect(),
    };

    if coords.len() != vels.len() && !coords.is_empty() && !vels.is_empty() {
        let msg = format!(
            "{} coordinates but {} velocities: there must be one velocity per coordinate",
            coords.len(),
            vels.len()
        );
        cx.error(vels.first().map_or(name_span, |v| v.span()), msg);
    }
    if coords_given && coords.is_empty() {
        cx.error(name_span, "a model needs at least one coordinate");
    }

    // Every declared name must be unique and must not shadow `t` or a function.
    let mut declared: HashMap<String, Span> = HashMap::new();
    let all_names = coords
        .iter()
        .chain(vels.iter())
        .chain(param_decls.iter().map(|p| &p.name));
    for id in all_names {
        let s = id.to_string();
        if s == "t" {
            cx.error(id.span(), "`t` is time and cannot be declared as a name");
        } else if UNARY_FUNCTIONS.contains(&s.as_str())
            || BINARY_FUNCTIONS.contains(&s.as_str())
            || s == "PI"
        {
            cx.error(
                id.span(),
                format!(
                    "`{s}` is a built-in function or constant and cannot be declared as a name"
                ),
            );
        }
        if let Some(first) = declared.get(&s) {
            cx.error(*first, format!("`{s}` is declared twice"));
            cx.error(id.span(), format!("`{s}` is declared twice"));
        } else {
            declared.insert(s, id.span());
        }
    }

    let mut params = Vec::new();
    for p in &param_decls {
        let default = match &p.default {
            None => None,
            Some(e) => match literal_value(e) {
                Some(x) if x.is_finite() => Some(x),
                _ => {
                    cx.error_spanned(
                        e,
                        "a parameter default must be a finite numeric literal, e.g. `m = 1.0`",
                    );
                    None
                }
            },
        };
        params.push(Param {
            name: p.name.clone(),
            default,
        });
    }

    let n = coords.len();
    let vars = Vars {
        n,
        params: params.len(),
    };
    let mut arena = Arena::new();
    let mut scope = Scope::default();
    scope.bind("t".into(), arena.var(Vars::TIME));
    for (i, c) in coords.iter().enumerate() {
        scope.bind(c.to_string(), arena.var(vars.q(i)));
    }
    for (i, v) in vels.iter().enumerate() {
        scope.bind(v.to_string(), arena.var(vars.v(i)));
    }
    for (k, p) in params.iter().enumerate() {
        scope.bind(p.name.to_string(), arena.var(vars.param(k)));
    }

    let mut lower = Lowerer {
        cx: &mut cx,
        arena: &mut arena,
    };
    if let Some(block) = &fields.definitions {
        for stmt in &block.stmts {
            match stmt {
                syn::Stmt::Local(local) => {
                    let ident = match &local.pat {
                        syn::Pat::Ident(pi) => Some(pi.ident.clone()),
                        syn::Pat::Type(pt) => match &*pt.pat {
                            syn::Pat::Ident(pi) => Some(pi.ident.clone()),
                            _ => None,
                        },
                        _ => None,
                    };
                    let (Some(ident), Some(init)) = (ident, &local.init) else {
                        lower
                            .cx
                            .error_spanned(local, "a definition is `let name = expression;`");
                        continue;
                    };
                    let s = ident.to_string();
                    if let Some(first) = declared.get(&s) {
                        lower
                            .cx
                            .error(ident.span(), format!("`{s}` is already declared"));
                        let _ = first;
                    } else {
                        declared.insert(s.clone(), ident.span());
                    }
                    let value = lower.expr(&scope, &init.expr);
                    scope.bind(s, value);
                }
                other => {
                    lower.cx.error_spanned(
                        other,
                        "`definitions` holds only `let name = expression;` statements",
                    );
                }
            }
        }
    }

    let lagrangian = match &fields.lagrangian {
        Some(e) => lower.expr(&scope, e),
        None => {
            lower.cx.error(
                name_span,
                "missing field `lagrangian`, e.g. `lagrangian: 0.5 * m * vx.powi(2) - m * g * y`",
            );
            lower.arena.constant(0.0)
        }
    };
    let holonomic_exprs = fields.holonomic.unwrap_or_default();
    let holonomic: Vec<Id> = holonomic_exprs
        .iter()
        .map(|e| lower.expr(&scope, e))
        .collect();

    if !cx.has_errors() {
        check(
            &mut cx,
            &mut arena,
            &vars,
            &vels,
            lagrangian,
            &holonomic,
            &holonomic_exprs,
        );
    }
    match cx.finish() {
        Err(e) => Err(Box::new((e, stub))),
        Ok(()) => Ok(Model {
            attrs,
            vis,
            name,
            coords,
            vels,
            params,
            vars,
            arena,
            lagrangian,
            holonomic,
        }),
    }
}

/// Checks that need the lowered expressions.
fn check(
    cx: &mut Ctxt,
    arena: &mut Arena,
    vars: &Vars,
    vels: &[Ident],
    lagrangian: Id,
    holonomic: &[Id],
    exprs: &[Expr],
) {
    for (k, (&g, e)) in holonomic.iter().zip(exprs).enumerate() {
        for (i, v) in vels.iter().enumerate() {
            if arena.depends_on(g, vars.v(i)) {
                cx.error_spanned(
                    e,
                    format!(
                        "holonomic constraint {} depends on the velocity `{v}`; a holonomic \
                         constraint is a function of `t` and the coordinates only",
                        k + 1
                    ),
                );
            }
        }
        if arena.as_const(g).is_some() {
            cx.error_spanned(
                e,
                "this constraint simplifies to a constant: it constrains nothing (or nothing can satisfy it)",
            );
        }
    }
    let n = vars.n;
    if !holonomic.is_empty() && holonomic.len() >= n {
        cx.error_spanned(
            &exprs[0],
            format!(
                "{} constraints on {} coordinates leave no motion; there must be fewer constraints than coordinates",
                holonomic.len(),
                n
            ),
        );
    }
    for (i, v) in vels.iter().enumerate() {
        let d = arena.diff(lagrangian, vars.v(i));
        let dd = arena.diff(d, vars.v(i));
        if arena.as_const(dd) == Some(0.0) {
            cx.error(
                v.span(),
                format!(
                    "the Lagrangian is not regular: ∂²L/∂{v}² is zero, so `{v}` has no inertia \
                     (every velocity needs a kinetic term such as `0.5 * m * {v}.powi(2)`)"
                ),
            );
        }
    }
}
