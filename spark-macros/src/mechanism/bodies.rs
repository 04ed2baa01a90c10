//! Mechanisms written in `mechanics!` itself: the `bodies`, `joints` and `gravity` fields.
//!
//! ```text
//! gravity: [0.0, 0.0, -9.81],
//! bodies: {
//!     arm: Body { mass: 1.0, com: [0.0, 0.0, -0.5], inertia: [0.1, 0.1, 0.01] },
//! },
//! joints: {
//!     shoulder: Revolute { parent: world, child: arm, axis: [0.0, 1.0, 0.0] },
//! },
//! ```
//!
//! Each item is a name and a struct literal; `Wheel` items add rolling contacts
//! ([`super::wheels`]). The values are numbers fixed when the model is
//! compiled ([`super::values`]). The items become the same [`Mechanism`] tree the URDF and
//! MJCF readers build, and [`super::install`] turns it into the model's fields, so `actuated`,
//! keyed `forces`, the constants (`BODY_NAMES`, ...) and every check work as for a file.
//! Errors are spanned on the item's tokens and name the body or joint.

use std::collections::{HashMap, HashSet};

use proc_macro2::{Span, TokenStream};

use syn::{Expr, Ident};

use super::items::{parse_items, read_bodies, read_joint, Read, Written};
use super::tree::{Body, Closure, Joint, JointKind, Mechanism, V3};
use super::values::Values;
use super::wheels::Wheel;
use super::{install, mark_invalid, xml};
use crate::parse::{FieldValue, ModelInput};

fn read_gravity(tokens: TokenStream, val: &Values) -> syn::Result<V3> {
    let e: Expr = syn::parse2(tokens)?;
    val.vec3(&e)
}

/// Orders the bodies parents first (each attached by the earliest joint whose parent is placed)
/// and builds the tree; `spans[line]` is the span of what `line` names in the tree.
fn assemble(
    w: Written,
    errors: &mut Vec<syn::Error>,
    spans: &mut Vec<Span>,
) -> Option<(Mechanism, Vec<Wheel>)> {
    let index: HashMap<String, usize> = w
        .bodies
        .iter()
        .enumerate()
        .map(|(i, b)| (b.name.to_string(), i))
        .collect();
    let before = errors.len();
    let unknown = |id: &Ident, role: &str, joint: &Ident, errors: &mut Vec<syn::Error>| {
        let mut known: Vec<String> = w.bodies.iter().map(|b| format!("`{}`", b.name)).collect();
        known.push("`world`".into());
        errors.push(syn::Error::new(
            id.span(),
            format!(
                "the joint `{joint}` names the {role} `{id}`, which is not a body\nhelp: the \
                 bodies are {}",
                known.join(", ")
            ),
        ));
    };
    // Who attaches each body.
    let mut attached_by: Vec<Option<usize>> = vec![None; w.bodies.len()];
    for (a, at) in w.attaches.iter().enumerate() {
        if let Some(p) = &at.parent {
            if !index.contains_key(&p.to_string()) {
                unknown(p, "parent", &at.name, errors);
            }
        }
        match index.get(&at.child.to_string()) {
            None => unknown(&at.child, "child", &at.name, errors),
            Some(&c) => match attached_by[c] {
                Some(first) => errors.push(syn::Error::new(
                    at.child.span(),
                    format!(
                        "the body `{}` is attached twice, by `{}` and by `{}`\nhelp: every body \
                         has one joint to its parent; close a loop with `Connect` or `Weld`",
                        at.child, w.attaches[first].name, at.name
                    ),
                )),
                None => attached_by[c] = Some(a),
            },
        }
        if at.parent.as_ref().map(ToString::to_string) == Some(at.child.to_string()) {
            errors.push(syn::Error::new(
                at.child.span(),
                format!(
                    "the joint `{}` attaches the body `{}` to itself",
                    at.name, at.child
                ),
            ));
        }
    }
    for c in &w.closes {
        for id in [&c.body1, &c.body2].into_iter().flatten() {
            if !index.contains_key(&id.to_string()) {
                unknown(id, "body", &c.name, errors);
            }
        }
    }
    for wh in &w.wheels {
        if !index.contains_key(&wh.body.to_string()) {
            unknown(&wh.body, "body", &wh.name, errors);
        }
    }
    let named_wrong = errors.len() > before;
    for (b, body) in w.bodies.iter().enumerate() {
        if attached_by[b].is_none() {
            errors.push(syn::Error::new(
                body.name.span(),
                format!(
                    "the body `{}` is attached by no joint\nhelp: attach it with a joint whose \
                     `child` is `{}` (`Fixed` welds it to its parent)",
                    body.name, body.name
                ),
            ));
        }
    }
    if named_wrong {
        return None;
    }
    // Parents first, in the joints' order.
    let mut order: Vec<usize> = Vec::new(); // attach indices
    let mut placed: Vec<Option<usize>> = vec![None; w.bodies.len()]; // tree index per body
    loop {
        let next = w.attaches.iter().enumerate().find(|(_, at)| {
            let c = index[&at.child.to_string()];
            placed[c].is_none()
                && at
                    .parent
                    .as_ref()
                    .is_none_or(|p| placed[index[&p.to_string()]].is_some())
        });
        match next {
            Some((a, at)) => {
                placed[index[&at.child.to_string()]] = Some(order.len());
                order.push(a);
            }
            None => break,
        }
    }
    if order.len() < w.attaches.len() {
        for (a, at) in w.attaches.iter().enumerate() {
            if !order.contains(&a) {
                errors.push(syn::Error::new(
                    at.name.span(),
                    format!(
                        "the joint `{}` is part of a chain of parents that never reaches \
                         `world`\nhelp: the parents of a mechanism form a tree rooted at the \
                         world; close a loop with `Connect` or `Weld`",
                        at.name
                    ),
                ));
            }
        }
        return None;
    }
    if errors.len() > before {
        return None;
    }
    let mut bodies = Vec::new();
    for &a in &order {
        let at = &w.attaches[a];
        let decl = &w.bodies[index[&at.child.to_string()]];
        let mut joints = Vec::new();
        for src in &at.joints {
            let mut j = Joint::new(src.name.clone(), spans.len() as u32, src.kind);
            j.axis = src.axis;
            j.stiffness = src.stiffness;
            j.springref = src.springref;
            j.damping = src.damping;
            j.armature = src.armature;
            joints.push(j);
        }
        spans.push(at.name.span());
        bodies.push(Body {
            name: decl.name.to_string(),
            parent: at
                .parent
                .as_ref()
                .map(|p| placed[index[&p.to_string()]].unwrap_or_else(|| unreachable!())),
            pos: at.pos,
            rot: at.rot,
            joints,
            mass: decl.mass,
            com: decl.com,
            inertia: decl.inertia,
            gravcomp: 0.0,
        });
    }
    let tree_index = |id: &Option<Ident>| {
        id.as_ref()
            .map(|id| placed[index[&id.to_string()]].unwrap_or_else(|| unreachable!()))
    };
    let closures = w
        .closes
        .iter()
        .map(|c| {
            let line = spans.len() as u32;
            spans.push(c.name.span());
            Closure {
                name: format!("the loop-closing joint `{}`", c.name),
                line,
                body1: tree_index(&c.body1),
                body2: tree_index(&c.body2),
                kind: c.kind.clone(),
            }
        })
        .collect();
    let wheels = w
        .wheels
        .iter()
        .map(|wh| Wheel {
            body: placed[index[&wh.body.to_string()]].unwrap_or_else(|| unreachable!()),
            radius: wh.radius,
            axis: wh.axis,
        })
        .collect();
    Some((
        Mechanism {
            bodies,
            closures,
            mimics: Vec::new(),
            actuators: Vec::new(),
            tendons: Vec::new(),
            gravity: w.gravity,
            medium: None,
        },
        wheels,
    ))
}

/// A configuration with no special angles, where the closures' independence is checked: a
/// mechanism written by hand is often singular at zero angles (a four-bar's links aligned).
fn generic_configuration(mech: &Mechanism) -> Vec<f64> {
    let layout = super::kinematics::Layout::of(mech);
    let mut q = vec![0.0; layout.n];
    let mut state: u64 = 0x2545_F491_4F6C_DD1D;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64 * 1.4 - 0.7
    };
    for (b, body) in mech.bodies.iter().enumerate() {
        for (j, joint) in body.joints.iter().enumerate() {
            let k = layout.first[b][j];
            let (start, len) = match joint.kind {
                JointKind::Hinge | JointKind::Slide => (k, 0),
                JointKind::Ball => (k, 4),
                JointKind::Free { .. } => (k + 3, 4),
            };
            for x in &mut q[k..k + joint.size()] {
                *x = next();
            }
            if len == 4 {
                q[start] += 1.5;
                let n = q[start..start + 4]
                    .iter()
                    .map(|x| x * x)
                    .sum::<f64>()
                    .sqrt();
                for x in &mut q[start..start + 4] {
                    *x /= n;
                }
            }
        }
    }
    q
}

fn take_tokens(input: &mut ModelInput, key: &str) -> Option<(Ident, TokenStream)> {
    let pos = input
        .fields
        .iter()
        .position(|f| f.key == key && matches!(f.value, FieldValue::Tokens(_)))?;
    let f = input.fields.remove(pos);
    match f.value {
        FieldValue::Tokens(t) => Some((f.key, t)),
        _ => None,
    }
}

/// Replaces `bodies`, `joints` and `gravity` by the model they describe; returns the items to
/// emit after the model (its constants).
pub fn desugar(input: &mut ModelInput) -> TokenStream {
    let bodies = take_tokens(input, "bodies");
    let joints = take_tokens(input, "joints");
    let gravity = take_tokens(input, "gravity");
    let key_span = bodies
        .as_ref()
        .or(joints.as_ref())
        .map_or_else(Span::call_site, |(k, _)| k.span());
    let mut errors = Vec::new();
    for k in ["urdf", "mjcf"] {
        if let Some(f) = input.fields.iter().find(|f| f.key == k) {
            errors.push(syn::Error::new(
                f.key.span(),
                format!(
                    "a mechanism comes from `bodies` and `joints` or from a file, not both\n\
                     help: remove `{k}`, or write the bodies in the file"
                ),
            ));
        }
        input.fields.retain(|f| f.key != k);
    }
    for k in super::DERIVED_FIELDS {
        if let Some(f) = input.fields.iter().find(|f| f.key == k) {
            errors.push(syn::Error::new(
                f.key.span(),
                format!(
                    "`{k}` cannot be given with `bodies` and `joints`: the mechanism defines the \
                     coordinates, velocities and energies\nhelp: remove `{k}`; add to the model \
                     with `parameters`, `inputs`, `forces`, `dissipation` or `holonomic`"
                ),
            ));
        }
        input.fields.retain(|f| f.key != k);
    }
    let params: HashSet<String> = input
        .fields
        .iter()
        .filter_map(|f| match &f.value {
            FieldValue::Parameters(p) => Some(p.iter().map(|d| d.name.to_string())),
            _ => None,
        })
        .flatten()
        .collect();
    let consts = std::mem::take(&mut input.consts);
    let mech = {
        let val = Values::new(&consts, params);
        let items = |t: Option<(Ident, TokenStream)>, errors: &mut Vec<syn::Error>| match t {
            None => Vec::new(),
            Some((_, t)) => parse_items(t).unwrap_or_else(|e| {
                errors.push(e);
                Vec::new()
            }),
        };
        let body_items = items(bodies, &mut errors);
        let joint_items = items(joints, &mut errors);
        let decls = read_bodies(&body_items, &val, &mut errors);
        let mut attaches = Vec::new();
        let mut closes = Vec::new();
        let mut wheels = Vec::new();
        let mut seen: HashMap<String, Span> = HashMap::new();
        for item in &joint_items {
            if seen
                .insert(item.name.to_string(), item.name.span())
                .is_some()
            {
                errors.push(syn::Error::new(
                    item.name.span(),
                    format!("the joint `{}` is declared twice", item.name),
                ));
                continue;
            }
            match read_joint(item, &val, &mut errors) {
                Some(Read::Attach(a)) => attaches.push(a),
                Some(Read::Close(c)) => closes.push(c),
                Some(Read::Wheel(w)) => wheels.push(w),
                None => {}
            }
        }
        let gravity = match gravity {
            None => [0.0, 0.0, -9.81],
            Some((_, t)) => read_gravity(t, &val).unwrap_or_else(|e| {
                errors.push(e);
                [0.0; 3]
            }),
        };
        // Coordinate names made from joint names (`u.1`, `p.x`) must not collide.
        let mut coords: HashMap<String, Span> = HashMap::new();
        for at in &attaches {
            for j in &at.joints {
                if coords.insert(j.name.clone(), at.name.span()).is_some() {
                    errors.push(syn::Error::new(
                        at.name.span(),
                        format!("two joints give a coordinate the name `{}`", j.name),
                    ));
                }
            }
        }
        if decls.is_empty() && errors.is_empty() {
            errors.push(syn::Error::new(
                key_span,
                "a mechanism needs at least one body",
            ));
        }
        let mut spans = vec![key_span];
        let mech = if errors.is_empty() {
            assemble(
                Written {
                    bodies: decls,
                    attaches,
                    closes,
                    wheels,
                    gravity,
                },
                &mut errors,
                &mut spans,
            )
        } else {
            None
        };
        mech.map(|m| (m, spans))
    };
    input.consts = consts;
    let has_errors = !errors.is_empty();
    input.errors.extend(errors);
    let Some(((mech, wheels), spans)) = mech.filter(|_| !has_errors) else {
        mark_invalid(input, key_span);
        return TokenStream::new();
    };
    let report = move |input: &mut ModelInput, failures: &[xml::FileError]| {
        for e in failures {
            let span = spans.get(e.line as usize).copied().unwrap_or(key_span);
            let msg = e
                .msg
                .replace(
                    "is not assembled at the file's reference configuration",
                    "can never be assembled",
                )
                .replace(
                    "is redundant at the reference configuration: its constraint rows are \
                     dependent on the other constraints there (a loop over-constrained, or \
                     closed at a singular configuration)",
                    "is redundant: its constraint rows are dependent on the other constraints \
                     at a generic configuration (the loop is over-constrained)",
                );
            input.errors.push(syn::Error::new(span, msg));
        }
    };
    let check_at = generic_configuration(&mech);
    let mut items = install(
        input,
        &mech,
        key_span,
        key_span,
        &report,
        Some(&check_at),
        &wheels,
    );
    items.extend(super::geometry::items(&input.name, &mech, None, &[]));
    items
}
