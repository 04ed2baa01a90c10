//! Open systems: the non-conservative generalized forces `Q` of a model (`forces` minus the
//! velocity gradient of a Rayleigh `dissipation`), and the checks on inputs and forces.
//!
//! `Q` is returned as one expression per coordinate; code generation adds it to `∂L/∂q`
//! (Lagrangian form) or to `f` (Hamiltonian and DAE forms). Checks:
//!
//! * `forces` has one entry per coordinate;
//! * `dissipation` belongs to the Lagrangian form (elsewhere the velocities are not variables);
//! * no force depends on a multiplier (DAE form);
//! * no constraint depends on an input: an input changes between steps, and a jump would
//!   leave the state off the constraint.

use std::collections::HashMap;
use std::ops::Range;

use syn::{Expr, Ident};

use crate::ctxt::Ctxt;
use crate::lower::{find_ident, POISON};
use crate::params::{Param, Vars};
use crate::parse::ExprList;
use crate::sym::{Arena, Id};

/// What [`build`] looks at.
pub struct Input<'a> {
    pub vars: Vars,
    /// The indices of the inputs among `params`.
    pub inputs: Range<usize>,
    pub params: &'a [Param],
    /// The lowered `forces` entries (empty when the field is absent).
    pub forces: &'a [Id],
    pub forces_list: Option<&'a ExprList>,
    pub dissipation: Option<Id>,
    /// The tokens of `dissipation`.
    pub dissipation_expr: Option<&'a Expr>,
    pub keys: &'a HashMap<String, Ident>,
    /// The model is in Lagrangian form (the velocity slots hold velocities).
    pub lagrangian_form: bool,
    /// The number of multipliers declared (DAE form).
    pub multipliers: usize,
    /// The holonomic and nonholonomic constraints, with their tokens and kind.
    pub constraints: [(&'a [Id], &'a [Expr], &'static str); 2],
}

/// Checks inputs and forces and returns `Q` (empty when the model has no forces).
pub fn build(cx: &mut Ctxt, arena: &mut Arena, d: Input) -> Vec<Id> {
    constraints_free_of_inputs(cx, arena, &d);
    let n = d.vars.n;
    let mut ok = true;
    if let (Some(list), Some(key)) = (d.forces_list, d.keys.get("forces")) {
        if list.exprs.len() != n {
            ok = false;
            cx.error_help(
                key.span(),
                format!(
                    "`forces` has {} entr{} but the model has {n} coordinate{}",
                    list.exprs.len(),
                    if list.exprs.len() == 1 { "y" } else { "ies" },
                    if n == 1 { "" } else { "s" },
                ),
                "give one generalized force per coordinate, in the order of `coordinates` \
                 (write `0.0` where none acts)",
            );
        }
        for (&q, e) in d.forces.iter().zip(&list.exprs) {
            if (0..d.multipliers).any(|l| arena.depends_on(q, d.vars.mu(l))) {
                ok = false;
                cx.error_spanned_help(
                    e,
                    "a generalized force cannot depend on a multiplier",
                    "multipliers may appear only in the reaction force `r`",
                );
            }
        }
    }
    if let (Some(key), false) = (d.keys.get("dissipation"), d.lagrangian_form) {
        ok = false;
        cx.error_help(
            key.span(),
            "`dissipation` belongs to a Lagrangian model: a Rayleigh function `D(t, q, v)` needs \
             the velocities as variables",
            "write the damping as generalized forces in `forces: [...]`, in terms of this \
             model's variables",
        );
    }
    if let (Some(dis), Some(e), true) = (d.dissipation, d.dissipation_expr, d.lagrangian_form) {
        let poisoned = arena.depends_on(dis, POISON);
        if !poisoned && !(0..n).any(|a| arena.depends_on(dis, d.vars.v(a))) {
            ok = false;
            cx.error_spanned_help(
                e,
                "this dissipation does not depend on any velocity, so it adds no force",
                "a Rayleigh dissipation function `D(t, q, v)` is quadratic in the velocities, \
                 e.g. `0.5 * c * vx.powi(2)`; a force that depends on the coordinates only \
                 belongs in the Lagrangian (as a potential) or in `forces: [...]`",
            );
        }
    }
    if !ok || (d.forces.is_empty() && d.dissipation.is_none()) {
        return Vec::new();
    }
    let poisoned = d.forces.iter().any(|&q| arena.depends_on(q, POISON))
        || d.dissipation.is_some_and(|e| arena.depends_on(e, POISON));
    if poisoned {
        return Vec::new();
    }
    (0..n)
        .map(|a| {
            let given = d
                .forces
                .get(a)
                .copied()
                .unwrap_or_else(|| arena.constant(0.0));
            match d.dissipation {
                Some(dis) => {
                    let dv = arena.diff(dis, d.vars.v(a));
                    arena.sub(given, dv)
                }
                None => given,
            }
        })
        .collect()
}

/// An input inside a constraint is an error on the input's first occurrence.
fn constraints_free_of_inputs(cx: &mut Ctxt, arena: &Arena, d: &Input) {
    for (ids, exprs, kind) in d.constraints {
        for (&g, e) in ids.iter().zip(exprs) {
            if arena.depends_on(g, POISON) {
                continue;
            }
            let Some(k) = d
                .inputs
                .clone()
                .find(|&k| arena.depends_on(g, d.vars.param(k)))
            else {
                continue;
            };
            let name = d.params[k].name.to_string();
            let msg = format!(
                "a {kind} constraint cannot depend on the input `{name}`: an input may jump \
                 between steps, and the state would no longer satisfy the constraint"
            );
            let help = format!(
                "make the constraint a function of `t`, or declare `{name}` in `parameters` if \
                 it is fixed while the model is stepped"
            );
            match find_ident(quote::ToTokens::to_token_stream(e), &name) {
                Some(span) => cx.error_help(span, msg, help),
                None => cx.error_spanned_help(e, msg, help),
            }
        }
    }
}
