//! Checks that need the lowered expressions: constraints (constant, in the wrong list, too
//! many, dependent) and the regularity of the Lagrangian.
//!
//! Every check skips expressions that contain the placeholder [`POISON`]: they already have an
//! error, and what they simplify to says nothing about what the user meant.

use proc_macro2::Span;
use syn::{Expr, Ident};

use crate::ctxt::Ctxt;
use crate::lower::{find_ident, show, POISON};
use crate::params::{Param, Vars};
use crate::sym::{Arena, Id};

/// What the checks look at.
pub struct Problem<'a> {
    pub vars: Vars,
    pub coords: &'a [Ident],
    pub vels: &'a [Ident],
    /// Whether each velocity was declared without error (a rejected name binds nothing).
    pub vels_declared: &'a [bool],
    pub params: &'a [Param],
    pub lagrangian: Id,
    pub holonomic: &'a [Id],
    pub holonomic_exprs: &'a [Expr],
    pub nonholonomic: &'a [Id],
    pub nonholonomic_exprs: &'a [Expr],
    pub holonomic_key: Option<&'a Ident>,
    pub nonholonomic_key: Option<&'a Ident>,
    /// One velocity per coordinate, at least one of each.
    pub lists_consistent: bool,
}

/// Runs every check of this module.
pub fn check(cx: &mut Ctxt, arena: &mut Arena, p: &Problem) {
    let hol_ok = holonomic(cx, arena, p);
    let (nonhol_ok, genuine) = nonholonomic(cx, arena, p);
    if p.lists_consistent {
        // Constraints with errors of their own are not counted: they may be meant to go.
        let valid = hol_ok.iter().chain(&nonhol_ok).filter(|ok| **ok).count();
        let counted = count(cx, p, valid);
        if counted && hol_ok.iter().chain(&nonhol_ok).all(|ok| *ok) && !genuine {
            independent(cx, arena, p);
        }
    }
    regular(cx, arena, p);
}

fn poisoned(arena: &Arena, e: Id) -> bool {
    arena.depends_on(e, POISON)
}

/// The span of the first occurrence of `name` in `e`, or of all of `e`.
fn error_at_name(cx: &mut Ctxt, e: &Expr, name: &str, msg: String, help: &str) {
    match find_ident(quote::ToTokens::to_token_stream(e), name) {
        Some(span) => cx.error_help(span, msg, help),
        None => cx.error_spanned_help(e, msg, help),
    }
}

/// A constraint that folded to a constant. `what` names what it should depend on.
fn constant_constraint(cx: &mut Ctxt, e: &Expr, c: f64, what: &str) {
    if c == 0.0 {
        cx.error_spanned_help(
            e,
            "this constraint simplifies to `0`, so it constrains nothing",
            "remove it",
        );
    } else {
        cx.error_spanned_help(
            e,
            format!(
                "this constraint simplifies to the constant `{}`, so it can never be satisfied",
                show(c)
            ),
            format!("a constraint `g = 0` must depend on {what}"),
        );
    }
}

/// Per-constraint checks of `holonomic`: whether each constraint passed.
fn holonomic(cx: &mut Ctxt, arena: &Arena, p: &Problem) -> Vec<bool> {
    p.holonomic
        .iter()
        .zip(p.holonomic_exprs)
        .map(|(&g, e)| holonomic_one(cx, arena, p, g, e))
        .collect()
}

fn holonomic_one(cx: &mut Ctxt, arena: &Arena, p: &Problem, g: Id, e: &Expr) -> bool {
    if poisoned(arena, g) {
        return false;
    }
    if let Some(c) = arena.as_const(g) {
        constant_constraint(cx, e, c, "the coordinates");
        return false;
    }
    let used: Vec<&Ident> = p
        .vels
        .iter()
        .enumerate()
        .filter(|(i, _)| arena.depends_on(g, p.vars.v(*i)))
        .map(|(_, v)| v)
        .collect();
    if let Some(first) = used.first() {
        let names: Vec<String> = used
            .iter()
            .map(|v| format!("`{}`", crate::unroll::display(&v.to_string())))
            .collect();
        let noun = if used.len() == 1 {
            "velocity"
        } else {
            "velocities"
        };
        error_at_name(
            cx,
            e,
            &first.to_string(),
            format!(
                "a holonomic constraint cannot depend on the {noun} {}",
                names.join(", ")
            ),
            "a holonomic constraint is `g(t, q) = 0`; a constraint on velocities belongs in \
             `nonholonomic: [...]`",
        );
        return false;
    }
    if !(0..p.coords.len()).any(|i| arena.depends_on(g, p.vars.q(i))) {
        cx.error_spanned_help(
            e,
            "this constraint does not depend on any coordinate, so no motion can satisfy it",
            "a holonomic constraint `g(t, q) = 0` must involve the coordinates",
        );
        return false;
    }
    true
}

/// Per-constraint checks of `nonholonomic`: whether each constraint passed, and whether any
/// genuine (velocity-dependent) one was found.
fn nonholonomic(cx: &mut Ctxt, arena: &mut Arena, p: &Problem) -> (Vec<bool>, bool) {
    let mut ok = Vec::new();
    for (&a, e) in p.nonholonomic.iter().zip(p.nonholonomic_exprs) {
        if poisoned(arena, a) {
            ok.push(false);
            continue;
        }
        if let Some(c) = arena.as_const(a) {
            constant_constraint(cx, e, c, "the velocities");
            ok.push(false);
            continue;
        }
        if !(0..p.vels.len()).any(|i| arena.depends_on(a, p.vars.v(i))) {
            cx.error_spanned_help(
                e,
                "this `nonholonomic` constraint does not depend on any velocity, so it is \
                 holonomic",
                "move it to `holonomic: [...]`",
            );
            ok.push(false);
            continue;
        }
        if integrable(arena, p, a) {
            cx.error_spanned_help(
                e,
                "this `nonholonomic` constraint is the time derivative of a function of `t` and \
                 the coordinates, so it is really holonomic",
                "write that function in `holonomic: [...]` instead: its velocity-level \
                 constraint is then imposed as well",
            );
            ok.push(false);
            continue;
        }
        ok.push(true);
    }
    let genuine = ok.iter().any(|ok| *ok);
    (ok, genuine)
}

/// Whether `k(t, q, v)` is, symbolically, `d/dt φ(t, q)` for some `φ`: affine in `v`,
/// `k = c(t, q)·v + k0(t, q)`, with the form `c·dq + k0·dt` closed (`∂c_a/∂q_b = ∂c_b/∂q_a`,
/// `∂c_a/∂t = ∂k0/∂q_a`), hence locally exact. Only differences that simplify to zero count,
/// so an undecided case is not reported.
fn integrable(arena: &mut Arena, p: &Problem, k: Id) -> bool {
    let n = p.vels.len();
    let vars = p.vars;
    let c: Vec<Id> = (0..n).map(|a| arena.diff(k, vars.v(a))).collect();
    for &ca in &c {
        for b in 0..n {
            let d = arena.diff(ca, vars.v(b));
            if arena.as_const(d) != Some(0.0) {
                return false;
            }
        }
    }
    let mut k0 = k;
    for (a, &ca) in c.iter().enumerate() {
        let va = arena.var(vars.v(a));
        let term = arena.mul(ca, va);
        k0 = arena.sub(k0, term);
    }
    let zero = |arena: &mut Arena, x: Id, y: Id| {
        let d = arena.sub(x, y);
        arena.as_const(d) == Some(0.0)
    };
    for a in 0..n {
        for b in a + 1..n {
            let dab = arena.diff(c[a], vars.q(b));
            let dba = arena.diff(c[b], vars.q(a));
            if !zero(arena, dab, dba) {
                return false;
            }
        }
        let ct = arena.diff(c[a], Vars::TIME);
        let k0q = arena.diff(k0, vars.q(a));
        if !zero(arena, ct, k0q) {
            return false;
        }
    }
    true
}

/// At least as many constraints as coordinates leave no motion. True when the count is fine.
fn count(cx: &mut Ctxt, p: &Problem, m: usize) -> bool {
    let n = p.coords.len();
    if m < n {
        return true;
    }
    let key = match (
        p.nonholonomic.is_empty(),
        p.holonomic_key,
        p.nonholonomic_key,
    ) {
        (true, Some(k), _) | (false, _, Some(k)) => k.span(),
        _ => Span::call_site(),
    };
    cx.error_help(
        key,
        format!(
            "{m} constraint{} on {n} coordinate{} leave{} no freedom of motion",
            if m == 1 { "" } else { "s" },
            if n == 1 { "" } else { "s" },
            if m == 1 { "s" } else { "" },
        ),
        "a model needs fewer independent constraints than coordinates; remove a constraint \
         or add a coordinate",
    );
    false
}

/// A small deterministic generator for the sample points of [`independent`] (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        let x = self.0.wrapping_mul(0x2545_F491_4F6C_DD1D);
        // 53 random bits in [0, 1).
        (x >> 11) as f64 / (1u64 << 53) as f64
    }

    fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.next()
    }
}

/// Number of random points at which the constraint Jacobian is evaluated.
const RANK_POINTS: usize = 8;

/// Relative size below which a Jacobian row is taken to be a combination of the rows before
/// it (after Gram-Schmidt against them).
const RANK_TOLERANCE: f64 = 1e-9;

/// For each row, whether it is (numerically) a combination of the rows before it.
fn dependent_rows(rows: &[Vec<f64>]) -> Vec<bool> {
    let mut basis: Vec<Vec<f64>> = Vec::new();
    rows.iter()
        .map(|row| {
            let norm0 = row.iter().map(|x| x * x).sum::<f64>().sqrt();
            let mut r = row.clone();
            // Two passes of modified Gram-Schmidt for stability.
            for _ in 0..2 {
                for b in &basis {
                    let d: f64 = r.iter().zip(b).map(|(x, y)| x * y).sum();
                    for (x, y) in r.iter_mut().zip(b) {
                        *x -= d * y;
                    }
                }
            }
            let norm = r.iter().map(|x| x * x).sum::<f64>().sqrt();
            if norm0 == 0.0 || norm <= RANK_TOLERANCE * norm0 {
                true
            } else {
                basis.push(r.iter().map(|x| x / norm).collect());
                false
            }
        })
        .collect()
}

/// The constraints are independent: the Jacobian `[g_q; a_v]` has full row rank somewhere.
/// Evaluated at [`RANK_POINTS`] random points (parameters at their defaults); only a
/// constraint that is dependent at every point tried is reported, so that a rank drop at a
/// special configuration is no false positive.
fn independent(cx: &mut Ctxt, arena: &mut Arena, p: &Problem) {
    let n = p.coords.len();
    let mut entries = Vec::new();
    for &g in p.holonomic {
        entries.extend((0..n).map(|a| arena.diff(g, p.vars.q(a))));
    }
    for &a in p.nonholonomic {
        entries.extend((0..n).map(|b| arena.diff(a, p.vars.v(b))));
    }
    let m = p.holonomic.len() + p.nonholonomic.len();
    if m == 0 {
        return;
    }
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut everywhere = vec![true; m];
    let mut usable = 0;
    for _ in 0..RANK_POINTS {
        let values: Vec<f64> = (0..p.vars.param(p.params.len()))
            .map(|i| {
                if i >= p.vars.param(0) {
                    let k = i - p.vars.param(0);
                    p.params[k].default.unwrap_or_else(|| rng.uniform(0.5, 1.5))
                } else {
                    rng.uniform(-1.3, 1.7)
                }
            })
            .collect();
        let jac = arena.eval_many(&entries, &|i| values.get(i).copied().unwrap_or(f64::NAN));
        if jac.iter().any(|x| !x.is_finite()) {
            continue;
        }
        usable += 1;
        let rows: Vec<Vec<f64>> = jac.chunks(n).map(<[f64]>::to_vec).collect();
        for (e, d) in everywhere.iter_mut().zip(dependent_rows(&rows)) {
            *e &= d;
        }
    }
    if usable < 2 {
        return;
    }
    let exprs = p.holonomic_exprs.iter().chain(p.nonholonomic_exprs);
    for (k, (dep, e)) in everywhere.iter().zip(exprs).enumerate() {
        if *dep {
            let msg = if k == 0 {
                "the gradient of this constraint is zero at every point tried".to_string()
            } else {
                "this constraint is not independent of the ones before it: their gradients \
                 are linearly dependent at every point tried"
                    .to_string()
            };
            cx.error_spanned_help(
                e,
                msg,
                "remove it; with dependent constraints the constraint forces are not determined",
            );
        }
    }
}

/// The Lagrangian is regular in the obvious cases: every velocity appears in it, and no row
/// of `∂²L/∂v²` is identically zero (a zero row makes the mass matrix singular everywhere).
fn regular(cx: &mut Ctxt, arena: &mut Arena, p: &Problem) {
    let l = p.lagrangian;
    if poisoned(arena, l) {
        return;
    }
    // A velocity without a coordinate has an error already.
    let nv = p.vels.len().min(p.coords.len());
    for (i, id) in p.vels.iter().enumerate().take(nv) {
        if !p.vels_declared[i] {
            continue;
        }
        let v = crate::unroll::display(&id.to_string());
        let help = format!("every velocity needs a kinetic term, e.g. `0.5 * m * {v}.powi(2)`");
        if !arena.depends_on(l, p.vars.v(i)) {
            cx.error_help(
                id.span(),
                format!(
                    "the Lagrangian does not depend on the velocity `{v}`, so its mass matrix \
                     ∂²L/∂v² is singular"
                ),
                help,
            );
            continue;
        }
        let d = arena.diff(l, p.vars.v(i));
        let row_zero = (0..nv).all(|j| {
            let dd = arena.diff(d, p.vars.v(j));
            arena.as_const(dd) == Some(0.0)
        });
        if row_zero {
            cx.error_help(
                id.span(),
                format!(
                    "the Lagrangian is linear in the velocity `{v}`, so its mass matrix \
                     ∂²L/∂v² is singular"
                ),
                help,
            );
        }
    }
}
