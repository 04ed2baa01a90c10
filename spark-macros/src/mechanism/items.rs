//! The items of `bodies` and `joints` (`name: Kind { field: value, .. }`), read into bodies,
//! tree joints, loop-closing joints and wheels, with their checks (mass, inertia, fields).

use std::collections::{HashMap, HashSet};

use proc_macro2::{Span, TokenStream};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Expr, Ident, Member, Token};

use super::tree::{self, ClosureKind, Joint, JointKind, M3, V3};
use super::values::Values;
/// One `name: Kind { field: value, .. }` item.
pub(super) struct Item {
    pub(super) name: Ident,
    pub(super) kind: Ident,
    pub(super) fields: Vec<(Ident, Expr)>,
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

pub(super) fn parse_items(tokens: TokenStream) -> syn::Result<Vec<Item>> {
    let parser = |input: syn::parse::ParseStream| {
        let content;
        syn::braced!(content in input);
        let items = Punctuated::<Item, Token![,]>::parse_terminated(&content)?;
        Ok(items.into_iter().collect())
    };
    syn::parse::Parser::parse2(parser, tokens)
}

/// The fields of one item, taken one by one; what is left is an unknown field.
pub(super) struct Fields<'i> {
    pub(super) item: &'i Item,
    pub(super) what: String,
    pub(super) taken: HashSet<String>,
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
pub(super) struct BodyDecl {
    pub(super) name: Ident,
    pub(super) mass: f64,
    pub(super) com: V3,
    pub(super) inertia: M3,
}

/// What a joint item is.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
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
pub(super) fn body_ref(e: &Expr) -> syn::Result<Option<Ident>> {
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
pub(super) struct Attach {
    pub(super) name: Ident,
    pub(super) parent: Option<Ident>,
    pub(super) child: Ident,
    pub(super) pos: V3,
    pub(super) rot: M3,
    pub(super) joints: Vec<Joint>,
}

/// A loop-closing joint.
pub(super) struct Close {
    pub(super) name: Ident,
    pub(super) body1: Option<Ident>,
    pub(super) body2: Option<Ident>,
    pub(super) kind: ClosureKind,
}

/// A wheel rolling without slip on the ground.
pub(super) struct WheelDecl {
    pub(super) name: Ident,
    pub(super) body: Ident,
    pub(super) radius: f64,
    pub(super) axis: V3,
}

/// What one joint item is.
pub(super) enum Read {
    Attach(Attach),
    Close(Close),
    Wheel(WheelDecl),
}

/// Everything the two fields say, with the spans errors need.
pub(super) struct Written {
    pub(super) bodies: Vec<BodyDecl>,
    pub(super) attaches: Vec<Attach>,
    pub(super) closes: Vec<Close>,
    pub(super) wheels: Vec<WheelDecl>,
    pub(super) gravity: V3,
}

pub(super) fn read_bodies(
    items: &[Item],
    val: &Values,
    errors: &mut Vec<syn::Error>,
) -> Vec<BodyDecl> {
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
pub(super) fn moments(e: V3) -> String {
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
pub(super) fn read_joint(item: &Item, val: &Values, errors: &mut Vec<syn::Error>) -> Option<Read> {
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
