//! Mechanisms from model files (`urdf: "path"` and `mjcf: "path"` in `mechanics!`) and written
//! in the macro itself (`bodies`, `joints`, `gravity`: [`bodies`]).
//!
//! The file is read at compile time (the path relative to the directory of the `Cargo.toml` of
//! the crate being compiled), turned into a tree of bodies and joints ([`tree`]), and lowered
//! to the DSL's own fields before anything else sees the model: `coordinates: [q[n]]`,
//! `velocities: [v[n]]`, the gravity parameters, a `definitions` block with one `let` per
//! kinematic intermediate ([`kinematics`], [`symbolic`]), `lagrangian: T - V`, the `holonomic`
//! rows (quaternion norms, loop closures, mimic joints), `dissipation` (joint damping),
//! `inputs` and `forces` (motors, `actuated`, keyed `forces`). Every later stage works on the
//! model unchanged. A `const _: &[u8] = include_bytes!(..)` makes the crate rebuild when the
//! file changes.

pub mod bodies;
pub mod composite;
pub mod geometry;
pub mod items;
pub mod kinematics;
pub mod mesh;
pub mod mjcf;
pub mod mjcf_doc;
pub mod poses;
pub mod symbolic;
pub mod tree;
pub mod urdf;
pub mod values;
pub mod wheels;
pub mod xml;
pub mod xml_depth;

#[cfg(test)]
mod bodies_tests;
#[cfg(test)]
mod menagerie_survey;
#[cfg(test)]
mod mesh_tests;
#[cfg(test)]
mod mjcf_tests;
#[cfg(test)]
mod tests;

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::punctuated::Punctuated;
use syn::{Expr, Ident, LitStr, Token};

use crate::parse::{ExprList, Field, FieldValue, ModelInput, NameList, ParameterDecl};
use kinematics::{Alg, Layout, Numeric};
use symbolic::Symbolic;
use tree::{Drive, JointKind, Mechanism};

/// The parameter a model with dry friction gets: the velocity scale ε of its regularized
/// friction force `−f·v/√(v² + ε²)` (m/s or rad/s).
pub const FRICTION_VELOCITY: &str = "friction_velocity";

/// Its default.
pub const FRICTION_VELOCITY_DEFAULT: f64 = 1e-3;

/// The velocity scale below which the quadratic fluid drag `c |x| x` is smoothed, as
/// `c x √(x² + ε²)` (the file's units of velocity).
pub const FLUID_VELOCITY: f64 = 1e-9;

/// Which file format.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Format {
    /// URDF.
    Urdf,
    /// MJCF (MuJoCo).
    Mjcf,
}

/// Reads a model file's text.
#[cfg_attr(not(test), allow(dead_code))]
pub fn read(format: Format, text: &str) -> Result<Mechanism, xml::Errors> {
    match format {
        Format::Urdf => urdf::read(text),
        Format::Mjcf => mjcf::read(text),
    }
}

/// The fields and items a mechanism becomes.
pub struct Lowered {
    /// One identifier per coordinate/velocity are made by `desugar`; these are the names shown.
    pub coord_names: Vec<String>,
    /// The `let` bindings.
    pub lets: Vec<TokenStream>,
    /// `T − V`.
    pub lagrangian: TokenStream,
    /// The second derivatives by the composite-rigid-body algorithm ([`composite`]); `None`
    /// for a mechanism with a ball joint or a free joint below its root (see
    /// `composite::applies`).
    pub composite: Option<Composite>,
    /// The holonomic rows.
    pub holonomic: Vec<TokenStream>,
    /// The nonholonomic rows (wheels rolling without slip).
    pub nonholonomic: Vec<TokenStream>,
    /// `½ Σ d v²`, when some joint has damping.
    pub dissipation: Option<TokenStream>,
    /// Actuators: the input identifier and the generalized force terms it adds, per
    /// coordinate.
    pub motors: Vec<(Ident, Vec<(usize, TokenStream)>)>,
    /// Some joint or tendon has dry friction: the model gets the parameter
    /// [`FRICTION_VELOCITY`].
    pub friction: bool,
    /// The reference configuration.
    pub reference: Vec<f64>,
    /// Per coordinate: range, effort and velocity limits.
    pub ranges: Vec<Option<(f64, f64)>>,
    /// See [`Lowered::ranges`].
    pub efforts: Vec<Option<f64>>,
    /// See [`Lowered::ranges`].
    pub velocities: Vec<Option<f64>>,
    /// Per motor: its control range.
    pub ctrlranges: Vec<Option<(f64, f64)>>,
    /// Per motor: its force range.
    pub forceranges: Vec<Option<(f64, f64)>>,
    /// The bodies' names.
    pub body_names: Vec<String>,
    /// The joint (hinge/slide) coordinates by joint name.
    pub joint_coordinate: Vec<(String, usize)>,
}

/// [`composite::Terms`] as tokens, with the rest of the Lagrangian they leave out.
pub struct Composite {
    /// `∂²L/∂v²`, row by row.
    pub mass: Vec<Vec<TokenStream>>,
    /// The bodies' `∂²L/∂v∂q`.
    pub lvq: Vec<Vec<TokenStream>>,
    /// The bodies' `∂²L/∂q²`.
    pub lqq: Vec<Vec<TokenStream>>,
    /// The bodies' `(∂p/∂q) v`.
    pub lvq_v: Vec<TokenStream>,
    /// The joints' and tendons' part of the Lagrangian ([`kinematics::joint_energies`]), whose
    /// second derivatives the symbolic engine adds.
    pub rest: TokenStream,
}

/// A name usable as a Rust identifier (a struct field): other characters become `_`.
pub fn identifier(name: &str, span: Span) -> Ident {
    let mut s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() || s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert_str(0, "u_");
    }
    if syn::parse_str::<Ident>(&s).is_err() {
        s.push('_');
    }
    Ident::new(&s, span)
}

/// The names of a joint's coordinates, as `COORDINATE_NAMES` shows them.
fn coordinate_names(joint: &tree::Joint) -> Vec<String> {
    let n = &joint.name;
    match joint.kind {
        JointKind::Hinge | JointKind::Slide => vec![n.clone()],
        JointKind::Ball => ["qw", "qx", "qy", "qz"]
            .iter()
            .map(|s| format!("{n}.{s}"))
            .collect(),
        JointKind::Free { .. } => ["x", "y", "z", "qw", "qx", "qy", "qz"]
            .iter()
            .map(|s| format!("{n}.{s}"))
            .collect(),
    }
}

/// Where a mechanism's checks failed: a message naming the closure or joint and its line.
pub type Failures = Vec<xml::FileError>;

/// Lowers a mechanism: the symbolic model plus the checks at the reference configuration.
#[cfg_attr(not(test), allow(dead_code))]
pub fn lower(
    mech: &Mechanism,
    q: &[Ident],
    v: &[Ident],
    g: &[Ident; 3],
    span: Span,
) -> Result<Lowered, Failures> {
    lower_checked_at(mech, q, v, g, span, None, &[])
}

/// [`lower`], with the closures' independence checked at `check_at` instead of the reference
/// configuration (a mechanism written in `mechanics!` is often singular at zero angles).
pub fn lower_checked_at(
    mech: &Mechanism,
    q: &[Ident],
    v: &[Ident],
    g: &[Ident; 3],
    span: Span,
    check_at: Option<&[f64]>,
    wheels: &[wheels::Wheel],
) -> Result<Lowered, Failures> {
    let layout = Layout::of(mech);
    let n = layout.n;
    let mut failures = Vec::new();
    if n == 0 {
        failures.push(xml::FileError {
            file: None,
            line: 1,
            msg: "nothing moves: the model has no joint with a coordinate".into(),
        });
        return Err(failures);
    }
    let reference = layout.reference(mech);
    let mut num = Numeric {
        q: reference.clone(),
        v: vec![0.0; n],
        g: mech.gravity,
    };
    let frames_num = kinematics::frames(&mut num, mech, &layout);
    let data = kinematics::closure_data(mech, &frames_num);

    let mut sym = Symbolic::new(q.to_vec(), v.to_vec(), g.clone(), span);
    // The composite-rigid-body terms where they hold (see `composite::applies`); the other
    // models keep the Hessians of their Lagrangian.
    let applies = composite::applies(mech);
    let floating = (0..mech.bodies.len()).any(|b| kinematics::floating_root(mech, b));
    let (rooted, axes) = if applies {
        kinematics::rooted_frames_and_axes(&mut sym, mech, &layout)
    } else {
        (Vec::new(), Vec::new())
    };
    // The world frames: the rooted ones unless a floating tree is seen from its root.
    let frames = if applies && !floating {
        rooted.clone()
    } else {
        kinematics::frames(&mut sym, mech, &layout)
    };
    let (tb, vb) = kinematics::body_energies(&mut sym, mech, &frames);
    let (tj, vj) = kinematics::joint_energies(&mut sym, mech, &layout);
    let t = sym.add(&tb, &tj);
    let pot = sym.add(&vb, &vj);
    let composite_terms =
        applies.then(|| composite::terms(&mut sym, mech, &layout, &rooted, &axes));
    let rest = sym.sub(&tj, &vj);
    let rows = kinematics::rows(&mut sym, mech, &layout, &frames, &data);
    let mut wheel_holonomic = Vec::new();
    let mut nonholonomic = Vec::new();
    for (i, w) in wheels.iter().enumerate() {
        let (h, nh) = wheels::rows(&mut sym, &frames[w.body], w, i);
        wheel_holonomic.push(h);
        nonholonomic.extend(nh);
    }

    // Rows that folded to constants: dropped when (numerically) zero, else the loop is open.
    let tag_name = |tag: Option<usize>| -> (String, u32) {
        match tag {
            None => ("a quaternion norm".into(), 1),
            Some(i) if i < mech.closures.len() => {
                (mech.closures[i].name.clone(), mech.closures[i].line)
            }
            Some(i) => {
                let m = &mech.mimics[i - mech.closures.len()];
                (format!("mimic joint `{}`", m.name), m.line)
            }
        }
    };
    let mut kept = Vec::new();
    for (k, (row, tag)) in rows.rows.iter().enumerate() {
        match sym.constant(row) {
            Some(c) if c.abs() < 1e-9 => {}
            Some(c) => {
                let (name, line) = tag_name(*tag);
                failures.push(xml::FileError {
                    file: None,
                    line,
                    msg: format!(
                        "{name} is not assembled at the file's reference configuration: one of \
                         its rows is the constant {}, which no motion can change",
                        if (1e-3..1e4).contains(&c.abs()) {
                            format!("{c}")
                        } else {
                            format!("{c:e}")
                        }
                    ),
                });
            }
            None => kept.push(k),
        }
    }
    // Independence of the kept rows at the reference configuration (central differences).
    let eval_rows = |q: &[f64]| -> Vec<f64> {
        let mut a = Numeric {
            q: q.to_vec(),
            v: vec![0.0; n],
            g: mech.gravity,
        };
        let f = kinematics::frames(&mut a, mech, &layout);
        kinematics::rows(&mut a, mech, &layout, &f, &data)
            .rows
            .into_iter()
            .map(|r| r.0)
            .collect()
    };
    let h = 1e-6;
    let jacobian_at = |at: &[f64]| -> Vec<Vec<f64>> {
        let mut jac = vec![vec![0.0; n]; rows.rows.len()];
        for i in 0..n {
            let (mut qp, mut qm) = (at.to_vec(), at.to_vec());
            qp[i] += h;
            qm[i] -= h;
            let (gp, gm) = (eval_rows(&qp), eval_rows(&qm));
            for (r, row) in jac.iter_mut().enumerate() {
                row[i] = (gp[r] - gm[r]) / (2.0 * h);
            }
        }
        jac
    };
    let at = check_at.map_or_else(|| reference.clone(), <[f64]>::to_vec);
    // The Jacobian there, and at three configurations away from it (a fixed pseudo-random
    // offset of every coordinate): a row dependent at all four is dependent identically (an
    // over-constrained loop written with more rows than it needs, as MuJoCo's soft
    // constraints allow): it holds wherever the others do, and is dropped. A row dependent at
    // the reference only is a loop closed at a singular configuration: an error.
    let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
    let mut offsets = Vec::new();
    for _ in 0..3 {
        let q: Vec<f64> = at
            .iter()
            .map(|x| {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                x + 0.3 * ((seed >> 11) as f64 / (1u64 << 53) as f64 - 0.5)
            })
            .collect();
        offsets.push(q);
    }
    // For a model file, each offset configuration is first brought onto the constraints
    // (damped Gauss–Newton): a loop's rows that are dependent wherever it is closed (a planar
    // loop's out-of-plane row under a spatial arm) are independent at an open configuration.
    if check_at.is_none() && !kept.is_empty() {
        for q in &mut offsets {
            if let Some(p) = assemble(q, &kept, &eval_rows, &jacobian_at) {
                *q = p;
            }
        }
    }
    let jacs: Vec<Vec<Vec<f64>>> = std::iter::once(at.clone())
        .chain(offsets)
        .map(|q| jacobian_at(&q))
        .collect();
    // Gram–Schmidt per configuration; `left` of row `k` against the basis of configuration `c`.
    let mut bases: Vec<Vec<Vec<f64>>> = vec![Vec::new(); jacs.len()];
    let residual = |jac: &[Vec<f64>], basis: &[Vec<f64>], k: usize| -> (Vec<f64>, bool) {
        let mut r = jac[k].clone();
        let size = r.iter().map(|x| x * x).sum::<f64>().sqrt();
        for b in basis {
            let d: f64 = r.iter().zip(b).map(|(x, y)| x * y).sum();
            for (x, y) in r.iter_mut().zip(b) {
                *x -= d * y;
            }
        }
        let left = r.iter().map(|x| x * x).sum::<f64>().sqrt();
        // Relative to the row, and to the largest row of the Jacobian: a row that is zero in
        // exact arithmetic comes out of the central differences as rounding noise (1e-11).
        let scale = jac
            .iter()
            .map(|row| row.iter().map(|x| x * x).sum::<f64>().sqrt())
            .fold(0.0, f64::max);
        let dependent = size == 0.0 || left <= 1e-6 * size || left <= 1e-9 * scale;
        (r.iter().map(|x| x / left).collect(), dependent)
    };
    let values_at_reference = eval_rows(&at);
    // The rank of the rows at each configuration (Gram–Schmidt in row order).
    for c in 1..jacs.len() {
        for &k in &kept {
            let (rc, depc) = residual(&jacs[c], &bases[c], k);
            if !depc {
                bases[c].push(rc);
            }
        }
    }
    let generic_rank = bases[1..].iter().map(Vec::len).max().unwrap_or(0);
    let mut reported = std::collections::HashSet::new();
    let mut independent = Vec::new();
    for &k in &kept {
        let (r0, dep0) = residual(&jacs[0], &bases[0], k);
        if !dep0 {
            bases[0].push(r0);
            independent.push(k);
        }
    }
    let full_rank_at_reference = independent.len() >= generic_rank;
    for &k in &kept {
        if independent.contains(&k) {
            continue;
        }
        // Only for model files: a mechanism written with `bodies` is checked at a generic
        // configuration already, where any dependence is an over-constrained loop. A model
        // file's row dependent at the reference while the rows have the rank there they have
        // at the (assembled) offsets is dependent identically, and dropped.
        if check_at.is_none() && full_rank_at_reference && values_at_reference[k].abs() <= 1e-6 {
            continue;
        }
        let (name, line) = tag_name(rows.rows[k].1);
        if reported.insert(name.clone()) {
            failures.push(xml::FileError {
                file: None,
                line,
                msg: if check_at.is_none() {
                    format!(
                        "{name} is redundant at the reference configuration: its constraint \
                         rows are dependent on the other constraints there, and not everywhere \
                         (a loop closed at a singular configuration)"
                    )
                } else {
                    format!(
                        "{name} is redundant at the reference configuration: its constraint \
                         rows are dependent on the other constraints there (a loop \
                         over-constrained, or closed at a singular configuration)"
                    )
                },
            });
        }
    }
    let kept = independent;
    // Every coordinate moves something with mass or inertia.
    let t_at = |vv: &[f64]| -> f64 {
        let mut a = Numeric {
            q: reference.clone(),
            v: vv.to_vec(),
            g: mech.gravity,
        };
        let f = kinematics::frames(&mut a, mech, &layout);
        kinematics::energies(&mut a, mech, &layout, &f).0
    };
    for (b, body) in mech.bodies.iter().enumerate() {
        for (j, joint) in body.joints.iter().enumerate() {
            let k0 = layout.first[b][j];
            for k in k0..k0 + joint.size() {
                let mut e = vec![0.0; n];
                e[k] = 1.0;
                if 2.0 * t_at(&e) <= 1e-12 {
                    failures.push(xml::FileError {
                        file: None,
                        line: joint.line,
                        msg: format!(
                            "joint `{}` moves body `{}`, but nothing it moves has mass or \
                             inertia: its acceleration would be undetermined",
                            joint.name, body.name
                        ),
                    });
                    break;
                }
            }
        }
    }
    if !failures.is_empty() {
        return Err(failures);
    }

    let (tt, vt) = (sym.tokens(&t), sym.tokens(&pot));
    let lagrangian = quote!(#tt - #vt);
    let mut holonomic: Vec<TokenStream> =
        kept.iter().map(|&k| sym.tokens(&rows.rows[k].0)).collect();
    holonomic.extend(wheel_holonomic);
    let mut coord_names = Vec::new();
    let mut ranges = vec![None; n];
    let mut efforts = vec![None; n];
    let mut velocities = vec![None; n];
    let mut damping = Vec::new();
    let mut joint_coordinate = Vec::new();
    for (b, body) in mech.bodies.iter().enumerate() {
        for (j, joint) in body.joints.iter().enumerate() {
            let k = layout.first[b][j];
            coord_names.extend(coordinate_names(joint));
            if joint.size() == 1 {
                ranges[k] = joint.range;
                efforts[k] = joint.effort;
                velocities[k] = joint.velocity;
                joint_coordinate.push((joint.name.clone(), k));
                if joint.damping != 0.0 {
                    let c = symbolic::number(0.5 * joint.damping, span);
                    let vk = &v[k];
                    damping.push(quote!(#c * #vk.powi(2)));
                }
            }
        }
    }
    // Damping on ball and free joints: ½ d |qvel|² over MuJoCo's dofs.
    for (b, body) in mech.bodies.iter().enumerate() {
        for (j, joint) in body.joints.iter().enumerate() {
            if joint.damping != 0.0 && joint.size() > 1 {
                let dofs = kinematics::joint_dofs(&mut sym, joint, layout.first[b][j]);
                let d = kinematics::half_square_sum(&mut sym, joint.damping, &dofs);
                damping.push(sym.tokens(&d));
            }
        }
    }
    // Dry friction: the Rayleigh function f·√(v² + ε²), whose force −f·v/√(v² + ε²) is
    // MuJoCo's `frictionloss` f in sliding, regularized over the velocity scale ε
    // (`docs/friction.md`).
    let eps = Ident::new(FRICTION_VELOCITY, span);
    let mut friction = false;
    for (b, body) in mech.bodies.iter().enumerate() {
        for (j, joint) in body.joints.iter().enumerate() {
            if joint.frictionloss != 0.0 && joint.size() == 1 {
                let k = layout.first[b][j];
                let f = symbolic::number(joint.frictionloss, span);
                let vk = &v[k];
                damping.push(quote!(#f * (#vk.powi(2) + #eps.powi(2)).sqrt()));
                friction = true;
            }
        }
    }
    // `(Σ c · x)` over a tendon's or an actuator's joints, with `x` the coordinates or the
    // velocities.
    let combination = |terms: &[((usize, usize), f64)], x: &[Ident]| -> TokenStream {
        let parts: Vec<TokenStream> = terms
            .iter()
            .map(|((b, j), c)| {
                let xk = &x[layout.first[*b][*j]];
                let c = symbolic::number(*c, span);
                quote!(#c * #xk)
            })
            .collect();
        quote!((#(#parts)+*))
    };
    let rate = |terms: &[((usize, usize), f64)]| combination(terms, v);
    let length = |terms: &[((usize, usize), f64)]| combination(terms, q);
    for t in &mech.tendons {
        if t.terms.is_empty() {
            continue;
        }
        if t.damping != 0.0 {
            let d = symbolic::number(0.5 * t.damping, span);
            let r = rate(&t.terms);
            damping.push(quote!(#d * #r.powi(2)));
        }
        if t.frictionloss != 0.0 {
            let f = symbolic::number(t.frictionloss, span);
            let r = rate(&t.terms);
            damping.push(quote!(#f * (#r.powi(2) + #eps.powi(2)).sqrt()));
            friction = true;
        }
    }
    // Fluid forces: MuJoCo's inertia-box model (`docs/fluid.md`). Each body with mass drags
    // like the box of its mass and principal moments, sides bᵢ = √(6 (Iⱼ + Iₖ − Iᵢ) / m):
    // viscous force −3π d μ u and torque −π d³ μ ω (d the mean side), and quadratic drag
    // −½ ρ bⱼ bₖ |uᵢ| uᵢ and −ρ bᵢ (bⱼ⁴ + bₖ⁴) / 64 |ωᵢ| ωᵢ, with u the centre of mass's velocity
    // relative to the wind and ω the angular velocity, in principal axes. All derive from a
    // Rayleigh function: ½ c x² for the linear terms and c |x|³ / 3 for the quadratic ones,
    // smoothed as c (x² + ε²)^{3/2} / 3 with ε = 1e-9 (the force differs from c |x| x by at
    // most c ε² / 2) so that its second derivative exists everywhere.
    let num = |x: f64| symbolic::number(x, span);
    if let Some(medium) = mech.medium {
        let eps2 = num(FLUID_VELOCITY * FLUID_VELOCITY);
        for (b, body) in mech.bodies.iter().enumerate() {
            if body.mass < 1e-15 {
                continue;
            }
            let (d, axes) = mjcf::symmetric_eigen(&body.inertia);
            let side: Vec<f64> = (0..3)
                .map(|i| {
                    let e = d[(i + 1) % 3] + d[(i + 2) % 3] - d[i];
                    (e.max(1e-15) / body.mass * 6.0).sqrt()
                })
                .collect();
            let (w, u) =
                kinematics::fluid_velocities(&mut sym, &frames[b], body.com, &axes, medium.wind);
            if medium.viscosity > 0.0 {
                let diam = (side[0] + side[1] + side[2]) / 3.0;
                let pi = std::f64::consts::PI;
                let rw =
                    kinematics::half_square_sum(&mut sym, pi * diam.powi(3) * medium.viscosity, &w);
                let ru =
                    kinematics::half_square_sum(&mut sym, 3.0 * pi * diam * medium.viscosity, &u);
                for r in [rw, ru] {
                    if sym.constant(&r) != Some(0.0) {
                        damping.push(sym.tokens(&r));
                    }
                }
            }
            if medium.density > 0.0 {
                for i in 0..3 {
                    let (j, k) = ((i + 1) % 3, (i + 2) % 3);
                    let cu = 0.5 * medium.density * side[j] * side[k];
                    let cw = medium.density * side[i] * (side[j].powi(4) + side[k].powi(4)) / 64.0;
                    for (c, x) in [(cu, &u[i]), (cw, &w[i])] {
                        if sym.constant(x).is_some() {
                            continue;
                        }
                        let (c, x) = (num(c / 3.0), sym.tokens(x));
                        damping
                            .push(quote!(#c * (#x.powi(2) + #eps2).sqrt() * (#x.powi(2) + #eps2)));
                    }
                }
            }
        }
    }
    let dissipation = (!damping.is_empty()).then(|| quote!(#(#damping)+*));
    // Actuators: force F = (g + g₁ l + g₂ l̇) u + b₀ + b₁ l + b₂ l̇ with the length l = gear · L
    // (L the joint's coordinate or the tendon's length); generalized force gear · F along L.
    let mut motors = Vec::new();
    let mut ctrlranges = Vec::new();
    let mut forceranges = Vec::new();
    let diag_mass = |k: usize| -> f64 {
        let mut e = vec![0.0; n];
        e[k] = 1.0;
        2.0 * t_at(&e)
    };
    // Column k of every frame's twist Jacobian, for the site transmissions' moment arms.
    let columns: Vec<Vec<kinematics::Frame<Symbolic>>> = if mech
        .actuators
        .iter()
        .any(|a| matches!(a.drive, Drive::Site { body: Some(_), .. }))
    {
        (0..n)
            .map(|k| {
                kinematics::frames(
                    &mut kinematics::Column { inner: &mut sym, k },
                    mech,
                    &layout,
                )
                .into_iter()
                .map(|f| kinematics::Frame {
                    p: f.p,
                    r: f.r,
                    vel: f.vel,
                    w: f.w,
                })
                .collect()
            })
            .collect()
    } else {
        Vec::new()
    };
    for a in &mech.actuators {
        let terms: Vec<((usize, usize), f64)> = match a.tendon {
            Some(t) => mech.tendons[t].terms.clone(),
            None => vec![(a.joint, 1.0)],
        };
        let u = identifier(&a.name, span);
        let gear = a.gear;
        ctrlranges.push(a.ctrlrange);
        forceranges.push(a.forcerange);
        // The moment arm of each coordinate (the generalized force per unit of actuator
        // force), the actuator's length (`None`: zero) and its rate, gear included.
        let (arms, len, ld): (Vec<(usize, TokenStream)>, Option<TokenStream>, TokenStream) =
            match a.drive {
                Drive::Contact => {
                    motors.push((u, Vec::new()));
                    continue;
                }
                Drive::Joint => (
                    terms
                        .iter()
                        .map(|((b, j), c)| (layout.first[*b][*j], num(gear * c)))
                        .collect(),
                    {
                        let (g, l) = (num(gear), length(&terms));
                        Some(quote!(#g * #l))
                    },
                    {
                        let (g, r) = (num(gear), rate(&terms));
                        quote!(#g * #r)
                    },
                ),
                Drive::Site {
                    body,
                    pos,
                    rot,
                    gear,
                } => {
                    let force = tree::mul_v(&rot, [gear[0], gear[1], gear[2]]);
                    let torque = tree::mul_v(&rot, [gear[3], gear[4], gear[5]]);
                    let mut arms = Vec::new();
                    if let Some(b) = body {
                        for (k, col) in columns.iter().enumerate() {
                            let c = kinematics::wrench_power(&mut sym, &col[b], pos, force, torque);
                            if sym.constant(&c) != Some(0.0) {
                                arms.push((k, sym.tokens(&c)));
                            }
                        }
                    }
                    let parts: Vec<TokenStream> = arms
                        .iter()
                        .map(|(k, c)| {
                            let vk = &v[*k];
                            quote!(#c * #vk)
                        })
                        .collect();
                    let ld = if parts.is_empty() {
                        quote!(0.0)
                    } else {
                        quote!((#(#parts)+*))
                    };
                    (arms, None, ld)
                }
            };
        let mut bias = a.bias;
        if bias[2] > 0.0 && a.gain == -bias[1] {
            // MuJoCo's `dampratio`: damping = dampratio · 2 √(kp · m), m the reflected
            // inertia Σ M₀[k] / moment² at the reference configuration.
            let mut m = 0.0;
            for ((b, j), c) in &terms {
                let trn = (gear * c).abs();
                if trn * trn > 1e-15 {
                    m += diag_mass(layout.first[*b][*j]) / (trn * trn);
                }
            }
            bias[2] = -bias[2] * 2.0 * (a.gain * m).sqrt();
        }
        let scaled = |c: f64, x: &TokenStream| -> TokenStream {
            let c = num(c);
            quote!(#c * #x)
        };
        let mut gain = vec![num(a.gain)];
        let mut force = Vec::new();
        if let Some(l) = &len {
            if a.gain_affine[0] != 0.0 {
                gain.push(scaled(a.gain_affine[0], l));
            }
            if bias[1] != 0.0 {
                force.push(scaled(bias[1], l));
            }
        }
        if a.gain_affine[1] != 0.0 {
            gain.push(scaled(a.gain_affine[1], &ld));
        }
        force.insert(0, quote!((#(#gain)+*) * #u));
        if bias[0] != 0.0 {
            force.push(num(bias[0]));
        }
        if bias[2] != 0.0 {
            force.push(scaled(bias[2], &ld));
        }
        let simple = a.gain_affine == [0.0; 2] && bias == [0.0; 3] && a.gain == 1.0;
        let per: Vec<(usize, TokenStream)> = arms
            .into_iter()
            .map(|(k, g)| {
                if simple {
                    (k, quote!(#g * #u))
                } else {
                    (k, quote!(#g * (#(#force)+*)))
                }
            })
            .collect();
        motors.push((u, per));
    }
    let matrix = |m: &[Vec<symbolic::Sx>]| -> Vec<Vec<TokenStream>> {
        m.iter()
            .map(|row| row.iter().map(|e| sym.tokens(e)).collect())
            .collect()
    };
    let composite = composite_terms.map(|c| Composite {
        mass: matrix(&c.mass),
        lvq: matrix(&c.lvq),
        lqq: matrix(&c.lqq),
        lvq_v: c.lvq_v.iter().map(|e| sym.tokens(e)).collect(),
        rest: sym.tokens(&rest),
    });
    Ok(Lowered {
        coord_names,
        lets: sym.lets,
        lagrangian,
        composite,
        holonomic,
        nonholonomic,
        dissipation,
        motors,
        friction,
        reference,
        ranges,
        efforts,
        velocities,
        ctrlranges,
        forceranges,
        body_names: mech.bodies.iter().map(|b| b.name.clone()).collect(),
        joint_coordinate,
    })
}

/// `q` moved onto the constraint rows `rows` of `eval` (Jacobian `jac`) by damped Gauss–Newton
/// steps `Δq = −Jᵀ (J Jᵀ + μ I)⁻¹ r`; `None` when that does not converge.
fn assemble(
    q: &[f64],
    rows: &[usize],
    eval: &dyn Fn(&[f64]) -> Vec<f64>,
    jac: &dyn Fn(&[f64]) -> Vec<Vec<f64>>,
) -> Option<Vec<f64>> {
    let mut q = q.to_vec();
    let m = rows.len();
    for _ in 0..30 {
        let all = eval(&q);
        let r: Vec<f64> = rows.iter().map(|&k| all[k]).collect();
        let size = r.iter().fold(0.0f64, |a, x| a.max(x.abs()));
        if !size.is_finite() {
            return None;
        }
        if size < 1e-12 {
            return Some(q);
        }
        let full = jac(&q);
        let j: Vec<&Vec<f64>> = rows.iter().map(|&k| &full[k]).collect();
        let mut a = vec![vec![0.0; m + 1]; m];
        for (i1, r1) in j.iter().enumerate() {
            for (i2, r2) in j.iter().enumerate() {
                a[i1][i2] = r1.iter().zip(r2.iter()).map(|(x, y)| x * y).sum();
            }
            a[i1][m] = r[i1];
        }
        let mu = 1e-12 * (0..m).map(|i| a[i][i]).fold(1e-300, f64::max);
        for (i, row) in a.iter_mut().enumerate() {
            row[i] += mu;
        }
        // Gaussian elimination with partial pivoting on [A | r].
        for c in 0..m {
            let p = (c..m).max_by(|&x, &y| a[x][c].abs().total_cmp(&a[y][c].abs()))?;
            a.swap(c, p);
            if a[c][c] == 0.0 {
                return None;
            }
            let (top, below) = a.split_at_mut(c + 1);
            let pivot = &top[c];
            for row in below {
                let f = row[c] / pivot[c];
                for (x, p) in row[c..].iter_mut().zip(&pivot[c..]) {
                    *x -= f * p;
                }
            }
        }
        let mut y = vec![0.0; m];
        for i in (0..m).rev() {
            let s: f64 = (i + 1..m).map(|k| a[i][k] * y[k]).sum();
            y[i] = (a[i][m] - s) / a[i][i];
        }
        for (x, col) in q.iter_mut().zip(0..) {
            let d: f64 = j.iter().zip(&y).map(|(row, yi)| row[col] * yi).sum();
            *x -= d;
        }
    }
    None
}

/// A key of a keyed `forces: { key: expr }`: a joint's name as an identifier or a string.
enum Key {
    Ident(Ident),
    Str(LitStr),
}

impl Key {
    fn value(&self) -> String {
        match self {
            Key::Ident(i) => i.to_string(),
            Key::Str(s) => s.value(),
        }
    }
    fn span(&self) -> Span {
        match self {
            Key::Ident(i) => i.span(),
            Key::Str(s) => s.span(),
        }
    }
}

impl syn::parse::Parse for Key {
    fn parse(input: syn::parse::ParseStream) -> syn::Result<Self> {
        if input.peek(LitStr) {
            Ok(Key::Str(input.parse()?))
        } else {
            Ok(Key::Ident(input.call(syn::ext::IdentExt::parse_any)?))
        }
    }
}

struct KeyedExpr {
    key: Key,
    expr: Expr,
}

impl syn::parse::Parse for KeyedExpr {
    fn parse(input: syn::parse::ParseStream) -> syn::Result<Self> {
        let key = input.parse()?;
        input.parse::<Token![:]>()?;
        Ok(Self {
            key,
            expr: input.parse()?,
        })
    }
}

fn parse_keyed(tokens: TokenStream) -> syn::Result<Vec<KeyedExpr>> {
    let parser = |input: syn::parse::ParseStream| {
        let content;
        syn::braced!(content in input);
        let items = Punctuated::<KeyedExpr, Token![,]>::parse_terminated(&content)?;
        Ok(items.into_iter().collect())
    };
    syn::parse::Parser::parse2(parser, tokens)
}

/// `actuated: all` or `actuated: [joint, "joint", ..]`.
enum Actuated {
    All,
    Some(Vec<Key>),
}

fn parse_actuated(tokens: TokenStream) -> syn::Result<Actuated> {
    let parser = |input: syn::parse::ParseStream| {
        if input.peek(syn::token::Bracket) {
            let content;
            syn::bracketed!(content in input);
            let items = Punctuated::<Key, Token![,]>::parse_terminated(&content)?;
            return Ok(Actuated::Some(items.into_iter().collect()));
        }
        let id: Ident = input.parse()?;
        if id != "all" {
            return Err(syn::Error::new(
                id.span(),
                "expected `all` or a list of joints such as `[shoulder, \"elbow-joint\"]`",
            ));
        }
        Ok(Actuated::All)
    };
    syn::parse::Parser::parse2(parser, tokens)
}

fn take_field(input: &mut ModelInput, key: &str) -> Option<(Ident, FieldValue)> {
    let pos = input.fields.iter().position(|f| f.key == key)?;
    let f = &mut input.fields[pos];
    let value = std::mem::replace(&mut f.value, FieldValue::Invalid);
    Some((f.key.clone(), value))
}

fn add_field(input: &mut ModelInput, key: &str, span: Span, value: FieldValue) {
    input.fields.push(Field {
        key: Ident::new(key, span),
        value,
    });
}

fn parse_expr(tokens: TokenStream) -> Expr {
    syn::parse2(tokens).expect("generated expressions parse")
}

/// Puts the mechanism's constraint `rows` before the user's rows of the list field `key`
/// (`holonomic`, `nonholonomic`), adding the field when the user wrote none.
fn prepend_rows(input: &mut ModelInput, key: &str, rows: &[TokenStream], key_span: Span) {
    let mut exprs: Vec<Expr> = rows.iter().cloned().map(parse_expr).collect();
    if exprs.is_empty() {
        return;
    }
    match input
        .fields
        .iter_mut()
        .find(|f| f.key == key)
        .map(|f| &mut f.value)
    {
        Some(FieldValue::Exprs(list)) => {
            exprs.append(&mut list.exprs);
            list.exprs = exprs;
        }
        Some(_) => {}
        None => add_field(input, key, key_span, FieldValue::Exprs(ExprList { exprs })),
    }
}

/// Replaces the file fields of `input` by the model they describe; returns the items to emit
/// after the model (the rebuild trigger and the file's constants).
pub fn desugar(input: &mut ModelInput) -> TokenStream {
    let floating = take_floating_base(input);
    let misplaced = |input: &mut ModelInput, help: &str| {
        if let Some((span, _)) = floating {
            input.errors.push(syn::Error::new(
                span,
                format!(
                    "`floating_base` belongs to a model read from a URDF file (`urdf: \
                     \"robot.urdf\"`)\nhelp: {help}"
                ),
            ));
        }
    };
    if input.fields.iter().any(|f| {
        (f.key == "bodies" || f.key == "joints") && matches!(f.value, FieldValue::Tokens(_))
    }) {
        misplaced(
            input,
            "with `bodies` and `joints`, give the root body a free joint of its own",
        );
        return bodies::desugar(input);
    }
    let files: Vec<usize> = (0..input.fields.len())
        .filter(|&i| {
            let k = input.fields[i].key.to_string();
            (k == "urdf" || k == "mjcf") && matches!(input.fields[i].value, FieldValue::Tokens(_))
        })
        .collect();
    if files.is_empty() {
        misplaced(
            input,
            "add `urdf: \"robot.urdf\"`, or remove `floating_base`",
        );
        for f in &mut input.fields {
            if let FieldValue::Tokens(t) = &f.value {
                let msg = if f.key == "gravity" {
                    "`gravity` belongs to a mechanism written with `bodies` and `joints`\nhelp: \
                     a model file sets its own gravity (MJCF `<option gravity>`, or \
                     (0, 0, -9.81) for a URDF), overridable through the parameters \
                     `gravity_x`, `gravity_y`, `gravity_z`"
                } else if f.key == "forces" {
                    "forces keyed by joint (`forces: { joint: expr }`) need a model from a file \
                     (`urdf:` or `mjcf:`)\nhelp: list one force per coordinate: `forces: [f1, f2]`"
                } else {
                    "this field needs a model from a file (`urdf:` or `mjcf:`)"
                };
                input.errors.push(syn::Error::new_spanned(t.clone(), msg));
                f.value = FieldValue::Invalid;
            }
        }
        return TokenStream::new();
    }
    if let Some(f) = input.fields.iter().find(|f| f.key == "gravity") {
        input.errors.push(syn::Error::new(
            f.key.span(),
            "`gravity` belongs to a mechanism written with `bodies` and `joints`\nhelp: a model \
             file sets its own gravity, overridable through the parameters `gravity_x`, \
             `gravity_y`, `gravity_z`",
        ));
    }
    if files.len() > 1 {
        let k = &input.fields[files[1]].key;
        input.errors.push(syn::Error::new(
            k.span(),
            "a model comes from one file: give `urdf` or `mjcf`, not both",
        ));
    }
    let field = &input.fields[files[0]];
    let format = if field.key == "urdf" {
        Format::Urdf
    } else {
        Format::Mjcf
    };
    let key_span = field.key.span();
    if format == Format::Mjcf {
        misplaced(
            input,
            "an MJCF file gives its root body a free joint itself: `<freejoint/>` in the body",
        );
    }
    let floating_base = matches!(floating, Some((_, true)));
    let field = &input.fields[files[0]];
    let FieldValue::Tokens(tokens) = &field.value else {
        unreachable!()
    };
    // From here on the model's own fields are given: an error leaves them invalid, so that the
    // pipeline reports nothing more than the file's errors.
    let lit: LitStr = match syn::parse2(tokens.clone()) {
        Ok(l) => l,
        Err(_) => {
            input.errors.push(syn::Error::new_spanned(
                tokens.clone(),
                "expected the model file's path as a string, such as `\"models/arm.urdf\"`",
            ));
            mark_invalid(input, key_span);
            return TokenStream::new();
        }
    };
    let span = lit.span();
    for k in DERIVED_FIELDS {
        if let Some(f) = input.fields.iter().find(|f| f.key == k) {
            input.errors.push(syn::Error::new(
                f.key.span(),
                format!(
                    "`{k}` cannot be given with a model file: the file defines the coordinates, \
                     velocities and energies\nhelp: remove `{k}`; add to the model with \
                     `parameters`, `inputs`, `forces`, `dissipation` or `holonomic`"
                ),
            ));
        }
        input.fields.retain(|f| f.key != k);
    }
    let dir = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".into());
    let path = std::path::Path::new(&dir).join(lit.value());
    let text = match xml::read_model_file(&path) {
        Ok(t) => t,
        Err(e) => {
            input.errors.push(syn::Error::new(
                span,
                format!(
                    "cannot read the model file `{}`: {e}\nhelp: the path is relative to the \
                     directory of the crate's `Cargo.toml`, here `{dir}`",
                    lit.value()
                ),
            ));
            mark_invalid(input, key_span);
            return TokenStream::new();
        }
    };
    let mut items = match path
        .canonicalize()
        .ok()
        .and_then(|p| p.to_str().map(String::from))
    {
        Some(abs) => quote!(
            const _: &[u8] = include_bytes!(#abs);
        ),
        None => TokenStream::new(),
    };
    let file = lit.value();
    let report = |input: &mut ModelInput, errors: &[xml::FileError]| {
        for e in errors {
            let f = e.file.as_deref().unwrap_or(&file);
            input
                .errors
                .push(syn::Error::new(span, format!("{f}:{}: {}", e.line, e.msg)));
        }
    };
    let options = urdf::Options { floating_base };
    let read_file = match format {
        Format::Urdf if file.ends_with(".xacro") => {
            let mut errors = xml::Errors::default();
            errors.at_line(1, urdf::XACRO);
            Err(errors)
        }
        Format::Urdf => urdf::read_robot(&text, options).map(|r| (r.mechanism, r.continuous)),
        Format::Mjcf => mjcf::read_file(&path, &text).map(|m| (m, Vec::new())),
    };
    let (mech, continuous) = match read_file {
        Ok(m) => m,
        Err(errors) => {
            report(input, &errors.list);
            match format {
                Format::Urdf => match urdf::estimate(&text, options) {
                    Some(e) if e.n > 0 && !file.ends_with(".xacro") => {
                        stub_fields(input, key_span, e.n);
                        items.extend(stub_items(&e, &input.name, span));
                    }
                    _ => mark_invalid(input, key_span),
                },
                Format::Mjcf => mark_invalid(input, key_span),
            }
            return items;
        }
    };
    items.extend(install(input, &mech, span, key_span, &report, None, &[]));
    items.extend(layout_items(&mech, &continuous, &input.name, span));
    items.extend(geometry::file_items(
        format,
        &path,
        &text,
        &mech,
        &input.name,
    ));
    items
}

/// Takes `floating_base: true | false` out of the fields: `Some((span, value))` when given
/// (a value other than `true` or `false` is an error, read as `false`).
fn take_floating_base(input: &mut ModelInput) -> Option<(Span, bool)> {
    let pos = input.fields.iter().position(|f| f.key == "floating_base")?;
    let f = input.fields.remove(pos);
    let span = f.key.span();
    let FieldValue::Tokens(tokens) = f.value else {
        return Some((span, false));
    };
    match syn::parse2::<syn::LitBool>(tokens.clone()) {
        Ok(b) => Some((span, b.value)),
        Err(_) => {
            input.errors.push(syn::Error::new_spanned(
                tokens,
                "`floating_base` is `true` (the root link moves freely: a free joint \
                 `root_joint`, Pinocchio's `JointModelFreeFlyer`) or `false` (fixed to the \
                 world, the default)",
            ));
            Some((span, false))
        }
    }
}

/// The fields of a model whose file has errors, sized as the file's joints would make it
/// (`n` coordinates), so that its stub has that size and code using the model reports nothing
/// more than the file's errors.
fn stub_fields(input: &mut ModelInput, key_span: Span, n: usize) {
    let size: Expr = syn::parse_quote_spanned!(key_span=> #n);
    for (key, name) in [("coordinates", "q"), ("velocities", "v")] {
        if !input.fields.iter().any(|f| f.key == key) {
            add_field(
                input,
                key,
                key_span,
                FieldValue::Names(NameList {
                    span: key_span,
                    names: vec![Ident::new(name, key_span)],
                    sizes: vec![Some(size.clone())],
                }),
            );
        }
    }
    // No constraint rows: a stub row would be a constant, reported as a mistake of its own.
    if !input.fields.iter().any(|f| f.key == "lagrangian") {
        add_field(input, "lagrangian", key_span, FieldValue::Invalid);
    }
}

/// The file's constants and `body_poses` of a URDF model with errors, sized as the file's
/// elements would make them (never evaluated: the expansion carries the errors), so that code
/// using them adds no errors of its own.
fn stub_items(e: &urdf::Estimate, name: &Ident, span: Span) -> TokenStream {
    let n = e.n;
    let nb = e.links.len();
    let links = &e.links;
    let na = quote!(::spark::__private::nalgebra);
    let none = quote!(::core::option::Option::None);
    let bodies = quote!(::spark::__private::runtime::model::bodies);
    // The joints as a mechanism of one body each, for `layout_items`.
    let mech = Mechanism {
        bodies: e
            .joints
            .iter()
            .map(|(jn, kind, _)| tree::Body {
                name: String::new(),
                parent: None,
                pos: [0.0; 3],
                rot: tree::IDENTITY,
                joints: kind
                    .map(|k| tree::Joint::new(jn.clone(), 0, k))
                    .into_iter()
                    .collect(),
                mass: 0.0,
                com: [0.0; 3],
                inertia: [[0.0; 3]; 3],
                gravcomp: 0.0,
            })
            .collect(),
        closures: Vec::new(),
        mimics: Vec::new(),
        actuators: Vec::new(),
        tendons: Vec::new(),
        gravity: [0.0; 3],
        medium: None,
    };
    let continuous: Vec<String> = e
        .joints
        .iter()
        .filter(|j| j.2)
        .map(|j| j.0.clone())
        .collect();
    let mut items = quote! {
        #[allow(dead_code, unused_variables)]
        impl #name {
            /// See the model's errors.
            pub const REFERENCE_CONFIGURATION: [f64; #n] = [0.0; #n];
            /// See the model's errors.
            pub const COORDINATE_RANGES: [::core::option::Option<(f64, f64)>; #n] = [#none; #n];
            /// See the model's errors.
            pub const EFFORT_LIMITS: [::core::option::Option<f64>; #n] = [#none; #n];
            /// See the model's errors.
            pub const VELOCITY_LIMITS: [::core::option::Option<f64>; #n] = [#none; #n];
            /// See the model's errors.
            pub const MOTOR_INPUTS: [&'static str; 0] = [];
            /// See the model's errors.
            pub const CONTROL_RANGES: [::core::option::Option<(f64, f64)>; 0] = [];
            /// See the model's errors.
            pub const BODY_NAMES: [&'static str; #nb] = [#(#links),*];
            /// See the model's errors.
            pub fn body_poses(
                q: &#na::SVector<f64, #n>,
            ) -> [(#na::Vector3<f64>, #na::Matrix3<f64>); #nb] {
                ::core::unreachable!("the model has compile errors")
            }
        }
        #[allow(unused_variables)]
        impl #bodies::Bodies<#n> for #name {
            fn body_names() -> &'static [&'static str] {
                &Self::BODY_NAMES
            }
            fn body_parents() -> &'static [::core::option::Option<usize>] {
                ::core::unreachable!("the model has compile errors")
            }
            fn velocity_bodies() -> [usize; #n] {
                ::core::unreachable!("the model has compile errors")
            }
            fn body_pose(
                q: &#na::SVector<f64, #n>,
                body: usize,
            ) -> ::core::option::Option<(#na::Vector3<f64>, #na::Matrix3<f64>)> {
                ::core::unreachable!("the model has compile errors")
            }
            fn joint_motions(
                q: &#na::SVector<f64, #n>,
                body: usize,
            ) -> ::core::option::Option<(
                [#bodies::JointMotion; #n],
                (#na::Vector3<f64>, #na::Matrix3<f64>),
            )> {
                ::core::unreachable!("the model has compile errors")
            }
        }
    };
    items.extend(layout_items(&mech, &continuous, name, span));
    items.extend(geometry::items(name, &mech, Some(&[]), &[]));
    items
}

/// `JOINT_LAYOUT` and the state sizes of Pinocchio and MuJoCo, for the conversions of
/// `spark::convert`: every joint with coordinates, in order, with its kind and its first
/// coordinate (`continuous`: the URDF's continuous joints, two coordinates in Pinocchio).
fn layout_items(mech: &Mechanism, continuous: &[String], name: &Ident, span: Span) -> TokenStream {
    let layout = Layout::of(mech);
    let conv = quote!(::spark::__private::runtime::convert);
    let mut entries = Vec::new();
    let (mut pq, mut pv, mut mq, mut mv) = (0usize, 0usize, 0usize, 0usize);
    for (b, body) in mech.bodies.iter().enumerate() {
        for (j, joint) in body.joints.iter().enumerate() {
            let (kind, p, m) = match joint.kind {
                JointKind::Hinge if continuous.contains(&joint.name) => {
                    ("RevoluteUnbounded", (2, 1), (1, 1))
                }
                JointKind::Hinge => ("Revolute", (1, 1), (1, 1)),
                JointKind::Slide => ("Prismatic", (1, 1), (1, 1)),
                JointKind::Ball => ("Ball", (4, 3), (4, 3)),
                JointKind::Free { .. } => ("Free", (7, 6), (7, 6)),
            };
            pq += p.0;
            pv += p.1;
            mq += m.0;
            mv += m.1;
            let kind = Ident::new(kind, span);
            let first = layout.first[b][j];
            let jname = &joint.name;
            entries.push(quote!(#conv::JointLayout {
                name: #jname,
                kind: #conv::JointKind::#kind,
                first: #first,
            }));
        }
    }
    let nj = entries.len();
    quote! {
        #[allow(dead_code)]
        impl #name {
            /// Every joint with coordinates, in the order of the coordinates: its name in the
            /// file, its kind and its first coordinate. What `spark::convert` needs to map
            /// this model's state to Pinocchio's and MuJoCo's and back.
            pub const JOINT_LAYOUT: [#conv::JointLayout; #nj] = [#(#entries),*];
            /// The lengths of Pinocchio's `q` and `v` for this model (`model.nq`, `model.nv`).
            pub const PINOCCHIO_SIZES: (usize, usize) = (#pq, #pv);
            /// The lengths of MuJoCo's `qpos` and `qvel` for this model (`model.nq`,
            /// `model.nv`).
            pub const MUJOCO_SIZES: (usize, usize) = (#mq, #mv);
        }
    }
}

/// Marks the model's own fields invalid (when the mechanism failed), so that the pipeline
/// reports nothing more than the mechanism's errors.
pub(crate) fn mark_invalid(input: &mut ModelInput, key_span: Span) {
    for k in ["coordinates", "velocities", "lagrangian"] {
        if !input.fields.iter().any(|f| f.key == k) {
            add_field(input, k, key_span, FieldValue::Invalid);
        }
    }
}

/// The field that carries a mechanism's composite-rigid-body terms ([`composite`]) to the
/// model: `∂²L/∂v²`, the bodies' `∂²L/∂v∂q` and `∂²L/∂q²` (`n²` entries each, row-major),
/// their `(∂p/∂q) v` (`n`), and the rest of the Lagrangian (one expression), in that order.
/// Its name has the reserved prefix, so only a mechanism can give it.
pub(crate) const COMPOSITE_FIELD: &str = "__spark_composite";

/// The fields a mechanism (a file, or `bodies` and `joints`) derives itself: writing one beside
/// it is an error.
pub(crate) const DERIVED_FIELDS: [&str; 10] = [
    "coordinates",
    "velocities",
    "lagrangian",
    "hamiltonian",
    "momenta",
    "variables",
    "v",
    "p",
    "f",
    "r",
];

/// Installs a mechanism as the model's own fields (coordinates, velocities, gravity
/// parameters, definitions, Lagrangian, holonomic rows, dissipation, inputs and forces from
/// `actuated` and keyed `forces`) and returns its constants. `span` is given to the names the
/// expansion makes, `key_span` to the fields it adds; the mechanism's failures go to `report`.
pub(crate) fn install(
    input: &mut ModelInput,
    mech: &Mechanism,
    span: Span,
    key_span: Span,
    report: &dyn Fn(&mut ModelInput, &[xml::FileError]),
    check_at: Option<&[f64]>,
    wheels: &[wheels::Wheel],
) -> TokenStream {
    let mut items = TokenStream::new();
    let n = kinematics::Layout::of(mech).n;
    let q: Vec<Ident> = (0..n)
        .map(|k| crate::unroll::element(&Ident::new("q", span), k))
        .collect();
    let v: Vec<Ident> = (0..n)
        .map(|k| crate::unroll::element(&Ident::new("v", span), k))
        .collect();
    let g = [
        Ident::new("gravity_x", span),
        Ident::new("gravity_y", span),
        Ident::new("gravity_z", span),
    ];
    let low = match lower_checked_at(mech, &q, &v, &g, span, check_at, wheels) {
        Ok(l) => l,
        Err(errors) => {
            report(input, &errors);
            mark_invalid(input, key_span);
            return items;
        }
    };
    let size: Expr = syn::parse_quote_spanned!(span=> #n);
    for (key, name) in [("coordinates", "q"), ("velocities", "v")] {
        add_field(
            input,
            key,
            key_span,
            FieldValue::Names(NameList {
                span,
                names: vec![Ident::new(name, span)],
                sizes: vec![Some(size.clone())],
            }),
        );
    }
    input.shown_names = Some((low.coord_names.clone(), low.coord_names.clone()));
    // Gravity parameters (after the user's).
    let mut gravity_params: Vec<ParameterDecl> = g
        .iter()
        .zip(mech.gravity)
        .map(|(name, x)| ParameterDecl {
            name: name.clone(),
            default: Some(parse_expr(symbolic::number(x, span))),
            size: None,
            element: None,
        })
        .collect();
    if low.friction {
        input.dry_friction = true;
        gravity_params.push(ParameterDecl {
            name: Ident::new(FRICTION_VELOCITY, span),
            default: Some(parse_expr(symbolic::number(
                FRICTION_VELOCITY_DEFAULT,
                span,
            ))),
            size: None,
            element: None,
        });
    }
    match input
        .fields
        .iter_mut()
        .find(|f| f.key == "parameters" && matches!(f.value, FieldValue::Parameters(_)))
    {
        Some(Field {
            value: FieldValue::Parameters(p),
            ..
        }) => p.extend(gravity_params),
        _ => add_field(
            input,
            "parameters",
            key_span,
            FieldValue::Parameters(gravity_params),
        ),
    }
    // Definitions: the kinematics first, then the user's.
    let lets = &low.lets;
    let mut block: syn::Block = syn::parse2(quote!({ #(#lets)* })).expect("generated lets parse");
    match take_field(input, "definitions") {
        Some((_, FieldValue::Definitions(user))) => block.stmts.extend(user.stmts),
        Some((k, other)) => {
            // Put back what was not a block (its error is already recorded).
            input.fields.retain(|f| f.key != "definitions");
            input.fields.push(Field {
                key: k,
                value: other,
            });
        }
        None => {}
    }
    input.fields.retain(|f| f.key != "definitions");
    add_field(
        input,
        "definitions",
        key_span,
        FieldValue::Definitions(block),
    );
    add_field(
        input,
        "lagrangian",
        key_span,
        FieldValue::Expr(Box::new(parse_expr(low.lagrangian.clone()))),
    );
    // The composite-rigid-body terms, in a field no user can name (`__spark` is reserved).
    if let Some(c) = &low.composite {
        let exprs = [&c.mass, &c.lvq, &c.lqq]
            .into_iter()
            .flatten()
            .flatten()
            .chain(&c.lvq_v)
            .chain([&c.rest])
            .map(|e| parse_expr(e.clone()))
            .collect();
        add_field(
            input,
            COMPOSITE_FIELD,
            key_span,
            FieldValue::Exprs(ExprList { exprs }),
        );
    }
    // Holonomic: the mechanism's rows, then the user's.
    prepend_rows(input, "holonomic", &low.holonomic, key_span);
    if let Some(d) = &low.dissipation {
        match input
            .fields
            .iter_mut()
            .find(|f| f.key == "dissipation")
            .map(|f| &mut f.value)
        {
            Some(FieldValue::Expr(e)) => {
                let user = &**e;
                **e = parse_expr(quote!(#d + (#user)));
            }
            Some(_) => {}
            None => add_field(
                input,
                "dissipation",
                key_span,
                FieldValue::Expr(Box::new(parse_expr(d.clone()))),
            ),
        }
    }
    // Nonholonomic: the wheels' rows, then the user's.
    prepend_rows(input, "nonholonomic", &low.nonholonomic, key_span);
    // Generalized forces: motors, `actuated` joints, keyed forces, the user's list.
    let mut extra: Vec<Vec<TokenStream>> = vec![Vec::new(); n];
    let mut new_inputs: Vec<Ident> = Vec::new();
    for (u, terms) in &low.motors {
        for (k, t) in terms {
            extra[*k].push(t.clone());
        }
        new_inputs.push(u.clone());
    }
    let find_joint = |input: &mut ModelInput, key: &Key| -> Option<usize> {
        let name = key.value();
        match low.joint_coordinate.iter().find(|(j, _)| *j == name) {
            Some((_, k)) => Some(*k),
            None => {
                let known: Vec<String> = low
                    .joint_coordinate
                    .iter()
                    .map(|(j, _)| format!("`{j}`"))
                    .collect();
                input.errors.push(syn::Error::new(
                    key.span(),
                    format!(
                        "the model file has no hinge or slide joint `{name}`\nhelp: its joints \
                         with one coordinate are {}",
                        known.join(", ")
                    ),
                ));
                None
            }
        }
    };
    if let Some((_, FieldValue::Tokens(t))) = take_field(input, "actuated") {
        input.fields.retain(|f| f.key != "actuated");
        match parse_actuated(t) {
            Ok(Actuated::All) => {
                for (j, k) in &low.joint_coordinate {
                    let u = identifier(&format!("tau_{j}"), span);
                    extra[*k].push(quote!(#u));
                    new_inputs.push(u);
                }
            }
            Ok(Actuated::Some(keys)) => {
                for key in keys {
                    if let Some(k) = find_joint(input, &key) {
                        let u = identifier(&format!("tau_{}", key.value()), key.span());
                        extra[k].push(quote!(#u));
                        new_inputs.push(u);
                    }
                }
            }
            Err(e) => input.errors.push(e),
        }
    }
    let keyed = input
        .fields
        .iter()
        .position(|f| f.key == "forces" && matches!(f.value, FieldValue::Tokens(_)));
    if let Some(pos) = keyed {
        let f = input.fields.remove(pos);
        let FieldValue::Tokens(t) = f.value else {
            unreachable!()
        };
        match parse_keyed(t) {
            Ok(items) => {
                let mut seen: Vec<usize> = Vec::new();
                for item in items {
                    if let Some(k) = find_joint(input, &item.key) {
                        if seen.contains(&k) {
                            input.errors.push(syn::Error::new(
                                item.key.span(),
                                format!("the joint `{}` has a force already", item.key.value()),
                            ));
                            continue;
                        }
                        seen.push(k);
                        let e = &item.expr;
                        extra[k].push(quote!((#e)));
                    }
                }
            }
            Err(e) => input.errors.push(e),
        }
    }
    if extra.iter().any(|e| !e.is_empty()) {
        let user = input
            .fields
            .iter_mut()
            .find(|f| f.key == "forces")
            .map(|f| &mut f.value);
        let mut exprs: Vec<Expr> = Vec::new();
        let mut user_list = match user {
            Some(FieldValue::Exprs(list)) => std::mem::take(&mut list.exprs),
            _ => Vec::new(),
        };
        if !user_list.is_empty() && user_list.len() != n {
            // Leave the user's list as it is: the pipeline reports its length.
            exprs = std::mem::take(&mut user_list);
        } else {
            for (k, terms) in extra.iter().enumerate() {
                let mut sum = match user_list.get(k) {
                    Some(e) => quote!((#e)),
                    None => quote!(0.0),
                };
                for t in terms {
                    sum = quote!(#sum + #t);
                }
                exprs.push(parse_expr(sum));
            }
        }
        input.fields.retain(|f| f.key != "forces");
        add_field(
            input,
            "forces",
            key_span,
            FieldValue::Exprs(ExprList { exprs }),
        );
    }
    if !new_inputs.is_empty() {
        match input
            .fields
            .iter_mut()
            .find(|f| f.key == "inputs")
            .map(|f| &mut f.value)
        {
            Some(FieldValue::Names(list)) => list.names.extend(new_inputs),
            Some(_) => {}
            None => add_field(
                input,
                "inputs",
                key_span,
                FieldValue::Names(NameList {
                    span,
                    names: new_inputs,
                    sizes: vec![None; 0],
                }),
            ),
        }
    }

    // The file's constants.
    let name = &input.name;
    let opt2 = |r: &Option<(f64, f64)>| match r {
        Some((a, b)) => quote!(::core::option::Option::Some((#a, #b))),
        None => quote!(::core::option::Option::None),
    };
    let opt1 = |r: &Option<f64>| match r {
        Some(a) => quote!(::core::option::Option::Some(#a)),
        None => quote!(::core::option::Option::None),
    };
    let reference = &low.reference;
    let ranges: Vec<_> = low.ranges.iter().map(opt2).collect();
    let efforts: Vec<_> = low.efforts.iter().map(opt1).collect();
    let vlims: Vec<_> = low.velocities.iter().map(opt1).collect();
    let ctrl: Vec<_> = low.ctrlranges.iter().map(opt2).collect();
    let force_ranges: Vec<_> = low.forceranges.iter().map(opt2).collect();
    let nm = ctrl.len();
    let bodies = &low.body_names;
    let nb = bodies.len();
    let motor_names: Vec<String> = low.motors.iter().map(|m| m.0.to_string()).collect();
    items.extend(quote! {
        // The file's numbers as written (a joint range of ±6.28318530718 is not `TAU`).
        #[allow(dead_code, clippy::approx_constant)]
        impl #name {
            /// The reference configuration: where the model file puts every body (MuJoCo's
            /// `qpos0`; zero for a URDF's joints, the identity for its quaternions).
            pub const REFERENCE_CONFIGURATION: [f64; #n] = [#(#reference),*];
            /// Per coordinate, the joint's position range from the file (not enforced).
            pub const COORDINATE_RANGES: [::core::option::Option<(f64, f64)>; #n] = [#(#ranges),*];
            /// Per coordinate, the joint's effort limit (URDF `<limit effort>`, not enforced).
            pub const EFFORT_LIMITS: [::core::option::Option<f64>; #n] = [#(#efforts),*];
            /// Per coordinate, the joint's velocity limit (URDF `<limit velocity>`, not enforced).
            pub const VELOCITY_LIMITS: [::core::option::Option<f64>; #n] = [#(#vlims),*];
            /// The inputs made from the file's motors, in order.
            pub const MOTOR_INPUTS: [&'static str; #nm] = [#(#motor_names),*];
            /// Per motor input, its `ctrlrange` (not enforced).
            pub const CONTROL_RANGES: [::core::option::Option<(f64, f64)>; #nm] = [#(#ctrl),*];
            /// Per motor input, its actuator force range `forcerange` (not enforced).
            pub const FORCE_RANGES: [::core::option::Option<(f64, f64)>; #nm] = [#(#force_ranges),*];
            /// The bodies' names, parents before children.
            pub const BODY_NAMES: [&'static str; #nb] = [#(#bodies),*];
        }
    });
    items.extend(poses::items(mech, name));
    items
}
