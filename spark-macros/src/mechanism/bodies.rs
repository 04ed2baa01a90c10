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
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Expr, Ident, Member, Token};

use super::tree::{self, Body, Closure, ClosureKind, Joint, JointKind, Mechanism, M3, V3};
use super::values::Values;
use super::wheels::Wheel;
use super::{install, mark_invalid, xml};
use crate::parse::{FieldValue, ModelInput};

/// One `name: Kind { field: value, .. }` item.
struct Item {
    name: Ident,
    kind: Ident,
    fields: Vec<(Ident, Expr)>,
}

impl syn::parse::Parse for Item {
    fn parse(input: syn::parse::ParseStream) -> syn::Result<Self> {
        let name: Ident = input.call(syn::ext::IdentExt::parse_any)?;
        input.parse::<Token![:]>()?;
        let value: Expr = input.parse()?;
        let Expr::Struct(s) = value else {
            return Err(syn::Error::new(
                value.span(),
                format!("expected a struct literal such as `Body {{ mass: 1.0 }}` for `{name}`"),
            ));
        };
        let kind = match (s.path.segments.len(), s.path.segments.first()) {
            (1, Some(seg)) if seg.arguments.is_empty() => seg.ident.clone(),
            _ => {
                return Err(syn::Error::new(
                    s.path.span(),
                    "expected the kind's name alone, such as `Revolute`",
                ))
            }
        };
        if let Some(rest) = &s.rest {
            return Err(syn::Error::new(
                rest.span(),
                "`..` has no meaning here: omitted fields take their defaults",
            ));
        }
        let mut fields = Vec::new();
        for f in s.fields {
            let Member::Named(key) = f.member else {
                return Err(syn::Error::new(f.member.span(), "expected a field name"));
            };
            if f.colon_token.is_none() {
                return Err(syn::Error::new(
                    key.span(),
                    format!("expected `{key}: value`"),
                ));
            }
            fields.push((key, f.expr));
        }
        Ok(Self { name, kind, fields })
    }
}

fn parse_items(tokens: TokenStream) -> syn::Result<Vec<Item>> {
    let parser = |input: syn::parse::ParseStream| {
        let content;
        syn::braced!(content in input);
        let items = Punctuated::<Item, Token![,]>::parse_terminated(&content)?;
        Ok(items.into_iter().collect())
    };
    syn::parse::Parser::parse2(parser, tokens)
}

/// The fields of one item, taken one by one; what is left is an unknown field.
struct Fields<'i> {
    item: &'i Item,
    what: String,
    taken: HashSet<String>,
}

impl<'i> Fields<'i> {
    fn new(item: &'i Item, what: &str, errors: &mut Vec<syn::Error>) -> Self {
        let mut seen = HashSet::new();
        for (k, _) in &item.fields {
            if !seen.insert(k.to_string()) {
                errors.push(syn::Error::new(
                    k.span(),
                    format!("{what} `{}` gives `{k}` twice", item.name),
                ));
            }
        }
        Self {
            item,
            what: what.into(),
            taken: HashSet::new(),
        }
    }

    fn get(&mut self, key: &str) -> Option<&'i Expr> {
        self.taken.insert(key.into());
        self.item
            .fields
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, e)| e)
    }

    /// Unknown fields are errors listing the kind's fields.
    fn finish(self, allowed: &[&str], errors: &mut Vec<syn::Error>) {
        for (k, _) in &self.item.fields {
            if !self.taken.contains(&k.to_string()) {
                let kind = if self.what == "the body" {
                    String::new()
                } else {
                    format!(" ({})", self.item.kind)
                };
                errors.push(syn::Error::new(
                    k.span(),
                    format!(
                        "{} `{}`{kind} has no field `{k}`\nhelp: its fields are {}",
                        self.what,
                        self.item.name,
                        allowed
                            .iter()
                            .map(|s| format!("`{s}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                ));
            }
        }
    }
}

/// A body as written.
struct BodyDecl {
    name: Ident,
    mass: f64,
    com: V3,
    inertia: M3,
}

/// What a joint item is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Revolute,
    Prismatic,
    Spherical,
    Universal,
    Planar,
    Fixed,
    Free,
    Connect,
    Weld,
    Wheel,
}

impl Kind {
    fn of(id: &Ident) -> Option<Self> {
        Some(match id.to_string().as_str() {
            "Revolute" | "Hinge" => Kind::Revolute,
            "Prismatic" | "Slide" => Kind::Prismatic,
            "Spherical" | "Ball" => Kind::Spherical,
            "Universal" => Kind::Universal,
            "Planar" => Kind::Planar,
            "Fixed" => Kind::Fixed,
            "Free" => Kind::Free,
            "Connect" => Kind::Connect,
            "Weld" => Kind::Weld,
            "Wheel" => Kind::Wheel,
            _ => return None,
        })
    }

    fn fields(self) -> &'static [&'static str] {
        match self {
            Kind::Revolute | Kind::Prismatic => &[
                "parent",
                "child",
                "origin",
                "rotation",
                "axis",
                "stiffness",
                "rest",
                "damping",
                "armature",
            ],
            Kind::Universal => &[
                "parent",
                "child",
                "origin",
                "rotation",
                "axes",
                "stiffness",
                "rest",
                "damping",
                "armature",
            ],
            Kind::Planar => &[
                "parent", "child", "origin", "rotation", "damping", "armature",
            ],
            Kind::Spherical | Kind::Fixed | Kind::Free => {
                &["parent", "child", "origin", "rotation"]
            }
            Kind::Connect => &["body1", "body2", "anchor1", "anchor2"],
            Kind::Weld => &["body1", "body2", "origin", "rotation"],
            Kind::Wheel => &["body", "radius", "axis"],
        }
    }
}

/// A body reference: `world` or a body's name.
fn body_ref(e: &Expr) -> syn::Result<Option<Ident>> {
    match e {
        Expr::Path(p) if p.path.get_ident().is_some() => {
            let id = p
                .path
                .get_ident()
                .cloned()
                .unwrap_or_else(|| unreachable!());
            Ok((id != "world").then_some(id))
        }
        _ => Err(syn::Error::new(
            e.span(),
            "expected a body's name, or `world`",
        )),
    }
}

/// A joint that attaches a child body: its tree joints (none for `Fixed`), placement and span.
struct Attach {
    name: Ident,
    parent: Option<Ident>,
    child: Ident,
    pos: V3,
    rot: M3,
    joints: Vec<Joint>,
}

/// A loop-closing joint.
struct Close {
    name: Ident,
    body1: Option<Ident>,
    body2: Option<Ident>,
    kind: ClosureKind,
}

/// A wheel rolling without slip on the ground.
struct WheelDecl {
    name: Ident,
    body: Ident,
    radius: f64,
    axis: V3,
}

/// What one joint item is.
enum Read {
    Attach(Attach),
    Close(Close),
    Wheel(WheelDecl),
}

/// Everything the two fields say, with the spans errors need.
struct Written {
    bodies: Vec<BodyDecl>,
    attaches: Vec<Attach>,
    closes: Vec<Close>,
    wheels: Vec<WheelDecl>,
    gravity: V3,
}

fn read_bodies(items: &[Item], val: &Values, errors: &mut Vec<syn::Error>) -> Vec<BodyDecl> {
    let mut out = Vec::new();
    let mut names: HashMap<String, Span> = HashMap::new();
    for item in items {
        let name = item.name.to_string();
        if name == "world" {
            errors.push(syn::Error::new(
                item.name.span(),
                "`world` is the fixed frame every mechanism hangs from: a body cannot be named so",
            ));
            continue;
        }
        if names.insert(name.clone(), item.name.span()).is_some() {
            errors.push(syn::Error::new(
                item.name.span(),
                format!("the body `{name}` is declared twice"),
            ));
            continue;
        }
        if item.kind != "Body" {
            errors.push(syn::Error::new(
                item.kind.span(),
                format!(
                    "expected `Body {{ mass, com, inertia }}` for the body `{name}`, found `{}`",
                    item.kind
                ),
            ));
            continue;
        }
        let mut f = Fields::new(item, "the body", errors);
        let mut ok = true;
        let mut take = |r: syn::Result<f64>| match r {
            Ok(x) => x,
            Err(e) => {
                errors.push(e);
                ok = false;
                0.0
            }
        };
        let mass = match f.get("mass") {
            Some(e) => {
                let m = take(val.num(e));
                if ok && m <= 0.0 {
                    errors.push(syn::Error::new_spanned(
                        e,
                        format!("the body `{name}` has mass {m}: a body's mass must be positive"),
                    ));
                    ok = false;
                }
                m
            }
            None => {
                errors.push(syn::Error::new(
                    item.kind.span(),
                    format!("the body `{name}` needs a `mass`"),
                ));
                ok = false;
                0.0
            }
        };
        let com = match f.get("com").map(|e| val.vec3(e)) {
            None => [0.0; 3],
            Some(Ok(c)) => c,
            Some(Err(e)) => {
                errors.push(e);
                ok = false;
                [0.0; 3]
            }
        };
        let inertia = match f.get("inertia") {
            None => [[0.0; 3]; 3],
            Some(e) => match val.inertia(e) {
                Ok(i) => match inertia_problem(&i) {
                    None => i,
                    Some(p) => {
                        errors.push(syn::Error::new_spanned(
                            e,
                            format!("the inertia of the body `{name}` {p}"),
                        ));
                        ok = false;
                        i
                    }
                },
                Err(e) => {
                    errors.push(e);
                    ok = false;
                    [[0.0; 3]; 3]
                }
            },
        };
        f.finish(&["mass", "com", "inertia"], errors);
        if ok {
            out.push(BodyDecl {
                name: item.name.clone(),
                mass,
                com,
                inertia,
            });
        }
    }
    out
}

/// The eigenvalues of a symmetric 3×3 matrix (cyclic Jacobi).
pub(crate) fn eigenvalues(m: &M3) -> V3 {
    let mut a = *m;
    for _ in 0..50 {
        let off = a[0][1].powi(2) + a[0][2].powi(2) + a[1][2].powi(2);
        if off < 1e-30 {
            break;
        }
        for (p, q) in [(0, 1), (0, 2), (1, 2)] {
            if a[p][q].abs() < 1e-300 {
                continue;
            }
            let theta = (a[q][q] - a[p][p]) / (2.0 * a[p][q]);
            let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
            let t = if theta == 0.0 { 1.0 } else { t };
            let c = 1.0 / (t * t + 1.0).sqrt();
            let s = t * c;
            let mut j = tree::IDENTITY;
            j[p][p] = c;
            j[q][q] = c;
            j[p][q] = s;
            j[q][p] = -s;
            a = tree::mul(&tree::transpose(&j), &tree::mul(&a, &j));
        }
    }
    [a[0][0], a[1][1], a[2][2]]
}

/// Principal moments as `a, b and c`, rounded for reading.
fn moments(e: V3) -> String {
    let r = e.map(|x| {
        let x = if x.abs() < 1e-15 { 0.0 } else { x };
        format!("{:.6}", x)
            .trim_end_matches('0')
            .trim_end_matches('.')
            .to_string()
    });
    format!("{}, {} and {}", r[0], r[1], r[2])
}

/// Why `i` is no inertia tensor: not symmetric, a negative principal moment, or principal
/// moments that break the triangle inequality.
pub(crate) fn inertia_problem(i: &M3) -> Option<String> {
    let scale = i.iter().flatten().fold(0.0f64, |m, x| m.max(x.abs()));
    let tol = 1e-12 * scale.max(1e-300);
    for (a, b) in [(0, 1), (0, 2), (1, 2)] {
        if (i[a][b] - i[b][a]).abs() > tol {
            return Some(format!(
                "is not symmetric: entry ({a}, {b}) is {} and ({b}, {a}) is {}",
                i[a][b], i[b][a]
            ));
        }
    }
    let e = eigenvalues(i);
    if e.iter().any(|x| *x < -tol) {
        return Some(format!(
            "has a negative principal moment: its principal moments are {}",
            moments(e)
        ));
    }
    let mut s = e;
    s.sort_by(f64::total_cmp);
    if s[0] + s[1] < s[2] - 1e-9 * scale {
        return Some(format!(
            "is not a rigid body's: its principal moments {} break the triangle inequality \
             (the two smaller must add up to at least the largest)",
            moments(s)
        ));
    }
    None
}

/// One joint (tree or closure) from an item; errors go to `errors`.
fn read_joint(item: &Item, val: &Values, errors: &mut Vec<syn::Error>) -> Option<Read> {
    let name = item.name.to_string();
    let Some(kind) = Kind::of(&item.kind) else {
        errors.push(syn::Error::new(
            item.kind.span(),
            format!(
                "unknown joint kind `{}` for the joint `{name}`\nhelp: the kinds are `Revolute`, \
                 `Prismatic`, `Spherical`, `Universal`, `Planar`, `Fixed`, `Free`, the \
                 loop-closing `Connect` and `Weld`, and `Wheel`",
                item.kind
            ),
        ));
        return None;
    };
    let mut f = Fields::new(item, "the joint", errors);
    let before = errors.len();
    let push = |errors: &mut Vec<syn::Error>, e: syn::Error| errors.push(e);
    let vec_or = |f: &mut Fields, errors: &mut Vec<syn::Error>, key: &str, d: V3| match f.get(key) {
        Some(e) => val.vec3(e).unwrap_or_else(|e| {
            push(errors, e);
            d
        }),
        None => d,
    };
    let num_or = |f: &mut Fields, errors: &mut Vec<syn::Error>, key: &str| match kind
        .fields()
        .contains(&key)
        .then(|| f.get(key))
        .flatten()
    {
        Some(e) => match val.num(e) {
            Ok(x) if x < 0.0 && key != "rest" => {
                errors.push(syn::Error::new_spanned(
                    e,
                    format!("the joint `{name}` has a negative `{key}`"),
                ));
                0.0
            }
            Ok(x) => x,
            Err(e) => {
                errors.push(e);
                0.0
            }
        },
        None => 0.0,
    };
    let rot_or = |f: &mut Fields, errors: &mut Vec<syn::Error>| match f.get("rotation") {
        Some(e) => val.rotation(e).unwrap_or_else(|e| {
            errors.push(e);
            tree::IDENTITY
        }),
        None => tree::IDENTITY,
    };
    let body = |f: &mut Fields, errors: &mut Vec<syn::Error>, key: &str, required: bool| match f
        .get(key)
    {
        Some(e) => body_ref(e).map_err(|e| errors.push(e)).ok(),
        None if required => {
            errors.push(syn::Error::new(
                item.kind.span(),
                format!("the joint `{name}` needs `{key}` (a body's name, or `world`)"),
            ));
            None
        }
        None => Some(None),
    };
    let out = if kind == Kind::Wheel {
        let b = body(&mut f, errors, "body", true);
        let radius = match f.get("radius") {
            Some(e) => match val.num(e) {
                Ok(r) if r > 0.0 => Some(r),
                Ok(r) => {
                    errors.push(syn::Error::new_spanned(
                        e,
                        format!("the wheel `{name}` has radius {r}: a radius must be positive"),
                    ));
                    None
                }
                Err(e) => {
                    errors.push(e);
                    None
                }
            },
            None => {
                errors.push(syn::Error::new(
                    item.kind.span(),
                    format!("the wheel `{name}` needs a `radius`"),
                ));
                None
            }
        };
        let axis = match f.get("axis") {
            Some(e) => val.unit(e).map_err(|e| errors.push(e)).ok(),
            None => {
                errors.push(syn::Error::new(
                    item.kind.span(),
                    format!("the wheel `{name}` needs its `axis` in the body's frame"),
                ));
                None
            }
        };
        match (b, radius, axis) {
            (Some(Some(body)), Some(radius), Some(axis)) => Some(Read::Wheel(WheelDecl {
                name: item.name.clone(),
                body,
                radius,
                axis,
            })),
            (Some(None), ..) => {
                errors.push(syn::Error::new(
                    item.name.span(),
                    format!("the wheel `{name}` must be fixed to a body, not to `world`"),
                ));
                None
            }
            _ => None,
        }
    } else if matches!(kind, Kind::Connect | Kind::Weld) {
        let b1 = body(&mut f, errors, "body1", true);
        let b2 = body(&mut f, errors, "body2", true);
        let ck = if kind == Kind::Connect {
            let a1 = vec_or(&mut f, errors, "anchor1", [0.0; 3]);
            let a2 = vec_or(&mut f, errors, "anchor2", [0.0; 3]);
            ClosureKind::Connect {
                anchor1: a1,
                anchor2: Some(a2),
            }
        } else {
            let p = vec_or(&mut f, errors, "origin", [0.0; 3]);
            let r = rot_or(&mut f, errors);
            ClosureKind::Weld {
                relpose: Some((p, r)),
            }
        };
        match (b1, b2) {
            (Some(body1), Some(body2)) => Some(Read::Close(Close {
                name: item.name.clone(),
                body1,
                body2,
                kind: ck,
            })),
            _ => None,
        }
    } else {
        let parent = body(&mut f, errors, "parent", true);
        let child = body(&mut f, errors, "child", true);
        let pos = vec_or(&mut f, errors, "origin", [0.0; 3]);
        let rot = rot_or(&mut f, errors);
        let mut joints = Vec::new();
        let one = |n: String, k: JointKind, axis: V3| {
            let mut j = Joint::new(n, 0, k);
            j.axis = axis;
            j
        };
        match kind {
            Kind::Revolute | Kind::Prismatic => {
                let axis = match f.get("axis") {
                    Some(e) => val
                        .unit(e)
                        .map_err(|e| errors.push(e))
                        .unwrap_or([0.0, 0.0, 1.0]),
                    None => [0.0, 0.0, 1.0],
                };
                let k = if kind == Kind::Revolute {
                    JointKind::Hinge
                } else {
                    JointKind::Slide
                };
                joints.push(one(name.clone(), k, axis));
            }
            Kind::Universal => {
                let mut axes = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
                if let Some(e) = f.get("axes") {
                    match e {
                        Expr::Array(a) if a.elems.len() == 2 => {
                            for (slot, x) in axes.iter_mut().zip(&a.elems) {
                                match val.unit(x) {
                                    Ok(u) => *slot = u,
                                    Err(e) => errors.push(e),
                                }
                            }
                            if tree::norm(tree::cross(axes[0], axes[1])) < 1e-9 {
                                errors.push(syn::Error::new(
                                    e.span(),
                                    format!(
                                        "the universal joint `{name}` needs two axes that are \
                                         not parallel"
                                    ),
                                ));
                            }
                        }
                        _ => errors.push(syn::Error::new(
                            e.span(),
                            "expected two axes `[[x1, y1, z1], [x2, y2, z2]]`: the first fixed \
                             in the parent, the second in the child",
                        )),
                    }
                }
                for (i, a) in axes.iter().enumerate() {
                    joints.push(one(format!("{name}.{}", i + 1), JointKind::Hinge, *a));
                }
            }
            Kind::Planar => {
                joints.push(one(format!("{name}.x"), JointKind::Slide, [1.0, 0.0, 0.0]));
                joints.push(one(format!("{name}.y"), JointKind::Slide, [0.0, 1.0, 0.0]));
                joints.push(one(
                    format!("{name}.angle"),
                    JointKind::Hinge,
                    [0.0, 0.0, 1.0],
                ));
            }
            Kind::Spherical => joints.push(one(name.clone(), JointKind::Ball, [0.0, 0.0, 1.0])),
            Kind::Free => joints.push(one(
                name.clone(),
                JointKind::Free { absolute: false },
                [0.0, 0.0, 1.0],
            )),
            _ => {}
        }
        let stiffness = num_or(&mut f, errors, "stiffness");
        let rest = num_or(&mut f, errors, "rest");
        let damping = num_or(&mut f, errors, "damping");
        let armature = num_or(&mut f, errors, "armature");
        for j in &mut joints {
            if matches!(j.kind, JointKind::Hinge | JointKind::Slide) {
                j.stiffness = stiffness;
                j.springref = rest;
                j.damping = damping;
                j.armature = armature;
            }
        }
        match (parent, child) {
            (Some(parent), Some(Some(child))) => Some(Read::Attach(Attach {
                name: item.name.clone(),
                parent,
                child,
                pos,
                rot,
                joints,
            })),
            (_, Some(None)) => {
                errors.push(syn::Error::new(
                    item.name.span(),
                    format!(
                        "the joint `{name}` moves `world`, which stays fixed\nhelp: a joint's \
                         `child` is the body it attaches"
                    ),
                ));
                None
            }
            _ => None,
        }
    };
    f.finish(kind.fields(), errors);
    if errors.len() > before {
        return None;
    }
    out
}

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
                kind: match &c.kind {
                    ClosureKind::Connect { anchor1, anchor2 } => ClosureKind::Connect {
                        anchor1: *anchor1,
                        anchor2: *anchor2,
                    },
                    ClosureKind::Weld { relpose } => ClosureKind::Weld { relpose: *relpose },
                },
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
            gravity: w.gravity,
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
    for k in [
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
    ] {
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
    install(
        input,
        &mech,
        key_span,
        key_span,
        &report,
        Some(&check_at),
        &wheels,
    )
}
