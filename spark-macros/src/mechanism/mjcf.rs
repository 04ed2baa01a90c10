//! MJCF → [`Mechanism`], as MuJoCo compiles the smooth dynamics.
//!
//! The document is first resolved by `mjcf_doc.rs` (includes, default classes, frames);
//! this reads the resolved elements:
//! - `<compiler angle eulerseq inertiafromgeom inertiagrouprange boundmass boundinertia
//!   balanceinertia settotalmass meshdir assetdir autolimits>`; `<option gravity density
//!   viscosity wind>` (fluid forces: MuJoCo's inertia-box model, `docs/fluid.md`) and
//!   `<option><flag>` (`gravity`, `actuation`, `spring`, `damper`, `equality`,
//!   `frictionloss`, `constraint` disabled remove the feature);
//! - `<worldbody>`, nested `<body pos orientation gravcomp>`; `<inertial pos orientation
//!   mass diaginertia|fullinertia>`; mass properties from `<geom>`s where a body has no
//!   `<inertial>` (primitives; meshes through `mesh.rs`);
//! - `<joint type="hinge|slide|ball|free" axis pos ref damping stiffness springref armature
//!   frictionloss springdamper range>` and `<freejoint>`;
//! - `<site>` (for `connect` and actuators); `<equality>`: `connect`, `weld` (enforced exactly), `joint`
//!   and `tendon` (the polynomial couplings, enforced exactly); `solref`/`solimp` ignored;
//! - `<tendon><fixed>` with springs, damping and friction;
//! - `<actuator>`: `motor`, `position`, `velocity`, `general` (gain and bias `fixed` or
//!   `affine`, no activation dynamics), `damper`, on joints, fixed tendons and sites (no
//!   `refsite`); `adhesion` (contacts only: an input that moves nothing); an input each.
//!
//! Ignored (no effect on these dynamics): `<visual>`, `<asset>` but meshes, `<statistic>`,
//! `<size>`, `<sensor>`, `<keyframe>`, `<custom>`, `<extension>`, `<contact>`, cameras,
//! lights, collision and material attributes, limits (ranges are exposed, not enforced).
//! Contacts and limits are not simulated.
//!
//! Errors: anything else that would change the dynamics, named with its line.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::kinematics::{self, Layout, Numeric};
use super::mesh::{self, MassSpec, MeshMass, MeshParams, Primitive};
use super::mjcf_doc::{self, AngleSettings, Doc, Node, Source};
use super::tree::{
    self, Actuator, Body, Closure, ClosureKind, Drive, Joint, JointKind, Mechanism, Medium, Tendon,
    M3, V3,
};
use super::xml::{line, numbers, tag, Errors};

/// What `<compiler>` and `<option>` set.
struct Settings {
    angles: AngleSettings,
    /// `inertiafromgeom`: "auto", "true" or "false".
    from_geom: String,
    group_range: (i64, i64),
    boundmass: f64,
    boundinertia: f64,
    balanceinertia: bool,
    settotalmass: f64,
    meshdir: PathBuf,
    fitaabb: bool,
    /// `<option><flag>` switches that remove a feature.
    no_actuation: bool,
    no_spring: bool,
    no_damper: bool,
    no_equality: bool,
    no_frictionloss: bool,
    /// `<option density viscosity wind>`: `[density, viscosity, wind x, y, z]`.
    fluid: [f64; 5],
}

struct Ctx {
    settings: Settings,
    errors: Errors,
    /// The main file's directory.
    dir: PathBuf,
    /// `<mesh>` assets by name (element ids of the document).
    meshes: HashMap<String, usize>,
    /// Mass properties of the meshes read so far (`None`: reading it failed, reported once).
    mesh_cache: HashMap<String, Option<MeshMass>>,
}

impl Ctx {
    fn nums(&mut self, node: Node, name: &str, n: usize) -> Option<Vec<f64>> {
        numbers(node, name, n, &mut self.errors)
    }

    fn num(&mut self, node: Node, name: &str, default: f64) -> f64 {
        self.nums(node, name, 1).map_or(default, |v| v[0])
    }

    fn v3(&mut self, node: Node, name: &str, default: V3) -> V3 {
        self.nums(node, name, 3)
            .map_or(default, |v| [v[0], v[1], v[2]])
    }

    fn angle(&self, x: f64) -> f64 {
        if self.settings.angles.degree {
            x.to_radians()
        } else {
            x
        }
    }

    fn orientation(&mut self, node: Node) -> M3 {
        mjcf_doc::orientation(node, &self.settings.angles, &mut self.errors)
    }
}

/// The mass properties of the `<mesh>` asset `name` (read once), or an error at `g`.
fn mesh_mass(cx: &mut Ctx, g: Node, name: &str) -> Option<MeshMass> {
    if let Some(m) = cx.mesh_cache.get(name) {
        return m.clone();
    }
    let Some(&id) = cx.meshes.get(name) else {
        cx.errors.at(
            g,
            format!("<geom mesh=\"{name}\">: no <mesh> of that name in <asset>"),
        );
        return None;
    };
    let m = g.doc.node(id);
    let result = (|| {
        let Some(file) = m.attribute("file") else {
            cx.errors.at(
                m,
                format!("<mesh name=\"{name}\">: a mesh without a `file` (inline vertices) is not supported"),
            );
            return None;
        };
        let path = cx.settings.meshdir.join(file);
        let loaded = match mesh::load(&path) {
            Ok(x) => x,
            Err(e) => {
                cx.errors.at(m, format!("<mesh file=\"{file}\">: {e}"));
                return None;
            }
        };
        let mut params = MeshParams {
            scale: cx.v3(m, "scale", [1.0; 3]),
            refpos: cx.v3(m, "refpos", [0.0; 3]),
            ..MeshParams::default()
        };
        if let Some(q) = cx.nums(m, "refquat", 4) {
            params.refquat = [q[0], q[1], q[2], q[3]];
        }
        if let Some(mode) = m.attribute("inertia") {
            match mesh::InertiaMode::parse(mode) {
                Some(x) => params.inertia = x,
                None => {
                    cx.errors.at(
                        m,
                        format!(
                            "<mesh>: `inertia=\"{mode}\"` is not convex, exact, legacy or shell"
                        ),
                    );
                    return None;
                }
            }
        }
        if let Some(v) = cx.nums(m, "maxhullvert", 1) {
            // The hull's size limit changes the volume only when the inertia is the hull's.
            if v[0] >= 0.0 && params.inertia == mesh::InertiaMode::Convex {
                cx.errors.at(m, "<mesh maxhullvert>: a limited convex hull is not supported (its volume would differ from MuJoCo's)");
                return None;
            }
        }
        match mesh::mass_properties_with(&loaded, &params) {
            Ok(x) => Some(x),
            Err(e) => {
                cx.errors.at(m, format!("<mesh file=\"{file}\">: {e}"));
                None
            }
        }
    })();
    cx.mesh_cache.insert(name.to_string(), result.clone());
    result
}

/// Mass, centre of mass and inertia about it of one geom, in the body frame.
fn geom_mass(cx: &mut Ctx, g: Node) -> Option<(f64, V3, M3)> {
    let ty = g.attribute("type").unwrap_or("sphere");
    let mut size = cx.nums(g, "size", 0).unwrap_or_default();
    if size.iter().any(|x| *x < 0.0) {
        cx.errors.at(
            g,
            format!("<geom type=\"{ty}\">: `size` must not be negative"),
        );
        return None;
    }
    let fromto = numbers(g, "fromto", 6, &mut cx.errors);
    let (mut pos, mut rot) = (cx.v3(g, "pos", [0.0; 3]), cx.orientation(g));
    let mut half = size.get(1).copied().unwrap_or(0.0);
    if let Some(ft) = &fromto {
        if matches!(ty, "capsule" | "cylinder" | "box" | "ellipsoid") {
            let a = [ft[0], ft[1], ft[2]];
            let b = [ft[3], ft[4], ft[5]];
            let d = tree::sub(b, a);
            let l = tree::norm(d);
            if l < 1e-12 {
                cx.errors.at(g, "<geom>: `fromto` has two equal points");
                return None;
            }
            pos = tree::scale(0.5, tree::add(a, b));
            rot = tree::z_to(tree::scale(1.0 / l, d));
            half = 0.5 * l;
        }
    }
    let shell = g.attribute("shellinertia") == Some("true");
    // A geom of zero mass adds nothing (MuJoCo does not compute its mesh's volume either).
    if cx.nums(g, "mass", 1).is_some_and(|m| m[0] == 0.0) {
        return Some((0.0, [0.0; 3], [[0.0; 3]; 3]));
    }
    if let Some(mname) = g.attribute("mesh") {
        if fromto.is_some() {
            cx.errors.at(
                g,
                "<geom mesh>: `fromto` cannot be used with a mesh (MuJoCo refuses it)",
            );
            return None;
        }
        let mm = mesh_mass(cx, g, mname)?;
        if ty == "mesh" {
            if shell {
                cx.errors.at(g, "<geom type=\"mesh\" shellinertia>: give the mesh asset `inertia=\"shell\"` instead, as MuJoCo requires");
                return None;
            }
            let spec = match cx.nums(g, "mass", 1) {
                Some(m) => MassSpec::Mass(m[0]),
                None => MassSpec::Density(cx.num(g, "density", 1000.0)),
            };
            let (m, c, i) = mesh::mesh_geom_mass(pos, &rot, spec, &mm);
            if m < 0.0 {
                cx.errors.at(g, "<geom>: a negative mass (or density)");
                return None;
            }
            return Some((m, c, i));
        }
        let Some(kind) = Primitive::parse(ty) else {
            cx.errors.at(
                g,
                format!("<geom type=\"{ty}\" mesh>: a {ty} cannot be fitted to a mesh"),
            );
            return None;
        };
        let fitscale = cx.num(g, "fitscale", 1.0);
        let fit = mesh::fit_primitive(kind, &mm, cx.settings.fitaabb, fitscale);
        pos = tree::add(pos, tree::mul_v(&rot, fit.pos));
        rot = tree::mul(&rot, &fit.rot);
        size = fit.size.to_vec();
        half = size[1];
    } else if ty == "mesh" {
        cx.errors
            .at(g, "<geom type=\"mesh\">: give the mesh's name in `mesh`");
        return None;
    }
    let need = |cx: &mut Ctx, k: usize| -> Option<()> {
        if size.len() < k {
            cx.errors
                .at(g, format!("<geom type=\"{ty}\">: `size` needs {k} numbers"));
            None
        } else {
            Some(())
        }
    };
    use std::f64::consts::PI;
    let (volume, unit): (f64, V3) = match ty {
        "sphere" => {
            need(cx, 1)?;
            let r = size[0];
            (4.0 / 3.0 * PI * r.powi(3), [0.4 * r * r; 3])
        }
        "capsule" => {
            need(cx, if fromto.is_some() { 1 } else { 2 })?;
            let (r, h) = (size[0], 2.0 * half);
            let v = PI * r * r * (h + 4.0 / 3.0 * r);
            // As MuJoCo: a cylinder and two hemispheres, per unit mass.
            let ms = 4.0 * r / (4.0 * r + 3.0 * h);
            let mc = 1.0 - ms;
            let sph = ms * 2.0 * r * r / 5.0;
            let side = mc * (3.0 * r * r + h * h) / 12.0 + sph + ms * h * (3.0 * r + 2.0 * h) / 8.0;
            (v, [side, side, mc * r * r / 2.0 + sph])
        }
        "cylinder" => {
            need(cx, if fromto.is_some() { 1 } else { 2 })?;
            let (r, h) = (size[0], 2.0 * half);
            let side = (3.0 * r * r + h * h) / 12.0;
            (PI * r * r * h, [side, side, r * r / 2.0])
        }
        "box" => {
            need(cx, 3)?;
            let [a, b, c] = [size[0], size[1], size[2]];
            (
                8.0 * a * b * c,
                [
                    (b * b + c * c) / 3.0,
                    (a * a + c * c) / 3.0,
                    (a * a + b * b) / 3.0,
                ],
            )
        }
        "ellipsoid" => {
            need(cx, 3)?;
            let [a, b, c] = [size[0], size[1], size[2]];
            (
                4.0 / 3.0 * PI * a * b * c,
                [
                    (b * b + c * c) / 5.0,
                    (a * a + c * c) / 5.0,
                    (a * a + b * b) / 5.0,
                ],
            )
        }
        other => {
            cx.errors.at(
                g,
                format!(
                    "<geom type=\"{other}\">: its mass properties are not supported; give the \
                     body an <inertial>, or give the geom `mass=\"0\"`"
                ),
            );
            return None;
        }
    };
    let (volume, unit) = if shell {
        let kind = Primitive::parse(ty).unwrap_or(Primitive::Sphere);
        let s3 = [
            size.first().copied().unwrap_or(0.0),
            half,
            size.get(2).copied().unwrap_or(0.0),
        ];
        let s3 = if matches!(kind, Primitive::Box | Primitive::Ellipsoid) {
            [size[0], size[1], size[2]]
        } else {
            s3
        };
        mesh::primitive_shell(kind, s3)
    } else {
        (volume, unit)
    };
    let mass = match cx.nums(g, "mass", 1) {
        Some(m) => m[0],
        None => cx.num(g, "density", 1000.0) * volume,
    };
    if mass < 0.0 {
        cx.errors.at(g, "<geom>: a negative mass (or density)");
        return None;
    }
    let inertia = tree::rotate_inertia(&rot, &tree::diag(tree::scale(mass, unit)));
    Some((mass, pos, inertia))
}

/// Sums mass properties about a common centre of mass.
fn combine(parts: &[(f64, V3, M3)]) -> (f64, V3, M3) {
    let m: f64 = parts.iter().map(|p| p.0).sum();
    if m <= 0.0 {
        return (0.0, [0.0; 3], [[0.0; 3]; 3]);
    }
    let mut c = [0.0; 3];
    for p in parts {
        c = tree::add(c, tree::scale(p.0 / m, p.1));
    }
    let mut i = [[0.0; 3]; 3];
    for p in parts {
        i = tree::add_m(&i, &p.2);
        i = tree::add_m(&i, &tree::point_inertia(p.0, tree::sub(p.1, c)));
    }
    (m, c, i)
}

/// Eigenvalues and eigenvectors (columns of the matrix) of a symmetric 3×3 matrix (Jacobi).
pub fn symmetric_eigen(a: &M3) -> (V3, M3) {
    let mut m = *a;
    let mut v = tree::IDENTITY;
    for _ in 0..64 {
        let off = m[0][1].abs() + m[0][2].abs() + m[1][2].abs();
        let scale = m[0][0].abs() + m[1][1].abs() + m[2][2].abs();
        if off <= 1e-300 || off <= f64::EPSILON * 1e-3 * scale {
            break;
        }
        for (p, q) in [(0, 1), (0, 2), (1, 2)] {
            if m[p][q] == 0.0 {
                continue;
            }
            let theta = (m[q][q] - m[p][p]) / (2.0 * m[p][q]);
            let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
            let t = if theta == 0.0 { 1.0 } else { t };
            let c = 1.0 / (t * t + 1.0).sqrt();
            let s = t * c;
            let mut r = tree::IDENTITY;
            r[p][p] = c;
            r[q][q] = c;
            r[p][q] = s;
            r[q][p] = -s;
            m = tree::mul(&tree::transpose(&r), &tree::mul(&m, &r));
            v = tree::mul(&v, &r);
        }
    }
    ([m[0][0], m[1][1], m[2][2]], v)
}

/// MuJoCo's checks and corrections of a body's inertia, in its principal axes: the bounds
/// (`boundmass`, `boundinertia`), no negative values, the triangle inequality (or its
/// balancing, `balanceinertia`).
fn check_inertia(cx: &mut Ctx, node: Node, name: &str, body: &mut Body) {
    if !(body.mass.is_finite() && body.inertia.iter().flatten().all(|x| x.is_finite())) {
        cx.errors.at(
            node,
            format!("body `{name}`: its mass or inertia is not finite"),
        );
        return;
    }
    let (mut d, v) = symmetric_eigen(&body.inertia);
    let d_file = d;
    body.mass = body.mass.max(cx.settings.boundmass);
    for x in &mut d {
        *x = x.max(cx.settings.boundinertia);
    }
    let scale = d.iter().map(|x| x.abs()).fold(0.0, f64::max);
    let tol = 1e-12 * scale;
    if body.mass < 0.0 || d.iter().any(|x| *x < -tol) {
        cx.errors.at(
            node,
            format!(
                "body `{name}`: mass and inertia must not be negative (mass {}, principal \
                 moments {:?})",
                body.mass, d
            ),
        );
        return;
    }
    if d[0] + d[1] < d[2] - tol || d[0] + d[2] < d[1] - tol || d[1] + d[2] < d[0] - tol {
        if cx.settings.balanceinertia {
            let m = (d[0] + d[1] + d[2]) / 3.0;
            d = [m; 3];
        } else {
            cx.errors.at(
                node,
                format!(
                    "body `{name}`: its principal moments of inertia {d:?} violate the triangle \
                     inequality A + B ≥ C (no rigid body has them)\nhelp: correct the inertia, \
                     or set `<compiler balanceinertia=\"true\">` as MuJoCo requires"
                ),
            );
            return;
        }
    }
    if d != d_file {
        body.inertia = tree::rotate_inertia(&v, &tree::diag(d));
    }
}

/// Body-independent state of the reader.
struct Build {
    mech: Mechanism,
    body_index: HashMap<String, usize>,
    joint_index: HashMap<String, (usize, usize)>,
    /// Sites: name → (body, position and rotation in the body frame).
    sites: HashMap<String, (Option<usize>, V3, M3)>,
    tendon_index: HashMap<String, usize>,
    joints_seen: usize,
    /// Joints with `springdamper="timeconst dampratio"`: (body, joint), the two values.
    springdampers: Vec<((usize, usize), f64, f64)>,
}

/// Reads one body (not its children); returns its child bodies.
fn read_body<'d>(
    cx: &mut Ctx,
    bd: &mut Build,
    node: Node<'d>,
    parent: Option<usize>,
) -> Vec<Node<'d>> {
    let b = bd.mech.bodies.len();
    let name = node
        .attribute("name")
        .map_or_else(|| format!("body{}", b + 1), str::to_string);
    if name == "world" {
        cx.errors.at(
            node,
            "a body cannot be named `world`: that is MuJoCo's world body",
        );
    }
    if node.attribute("mocap") == Some("true") {
        cx.errors.at(
            node,
            format!("<body name=\"{name}\">: mocap bodies are not supported"),
        );
    }
    let gravcomp = cx.num(node, "gravcomp", 0.0);
    let pos = cx.v3(node, "pos", [0.0; 3]);
    let rot = cx.orientation(node);
    let mut body = Body {
        name: name.clone(),
        parent,
        pos,
        rot,
        joints: Vec::new(),
        mass: 0.0,
        com: [0.0; 3],
        inertia: [[0.0; 3]; 3],
        gravcomp,
    };
    let mut inertial = None;
    let mut geoms = Vec::new();
    let mut children = Vec::new();
    for c in node.children() {
        let t = c.tag();
        match t {
            "inertial" => {
                if inertial.is_some() {
                    cx.errors
                        .at(c, format!("body `{name}` has a second <inertial>"));
                }
                inertial = Some(c);
            }
            "geom" => {
                if c.attribute("fluidshape") == Some("ellipsoid")
                    && cx.settings.fluid[..2] != [0.0; 2]
                {
                    cx.errors.at(c, "<geom fluidshape=\"ellipsoid\">: MuJoCo's ellipsoid fluid model is not supported (the inertia-box model, `fluidshape=\"none\"`, is)");
                }
                geoms.push(c)
            }
            "body" => children.push(c),
            "site" => {
                if let Some(s) = c.attribute("name") {
                    let p = cx.v3(c, "pos", [0.0; 3]);
                    let r = cx.orientation(c);
                    if bd.sites.insert(s.to_string(), (Some(b), p, r)).is_some() {
                        cx.errors.at(c, format!("the site `{s}` is defined twice"));
                    }
                }
            }
            "joint" | "freejoint" => read_joint(cx, bd, c, &mut body, b, parent),
            "plugin" | "composite" | "flexcomp" | "attach" | "replicate" => {
                cx.errors.at(c, format!("<{t}> in a body is not supported"));
            }
            _ => {}
        }
    }
    let from_geom = match cx.settings.from_geom.as_str() {
        "true" => true,
        "false" => false,
        _ => inertial.is_none(),
    };
    if let (Some(i), false) = (inertial, from_geom) {
        let mass = cx.num(i, "mass", 0.0);
        let ipos = cx.v3(i, "pos", [0.0; 3]);
        let irot = cx.orientation(i);
        let local = if let Some(d) = cx.nums(i, "diaginertia", 3) {
            tree::diag([d[0], d[1], d[2]])
        } else if let Some(f) = cx.nums(i, "fullinertia", 6) {
            [[f[0], f[3], f[4]], [f[3], f[1], f[5]], [f[4], f[5], f[2]]]
        } else {
            // MuJoCo's default: no rotational inertia (a point mass).
            [[0.0; 3]; 3]
        };
        if mass < 0.0 {
            cx.errors
                .at(i, format!("<inertial> of body `{name}`: negative mass"));
        }
        body.mass = mass;
        body.com = ipos;
        body.inertia = tree::rotate_inertia(&irot, &local);
    } else if from_geom {
        let (lo, hi) = cx.settings.group_range;
        let mut parts = Vec::new();
        for g in geoms {
            let group = g
                .attribute("group")
                .and_then(|x| x.trim().parse::<i64>().ok())
                .unwrap_or(0);
            if group < lo || group > hi {
                continue;
            }
            if let Some(p) = geom_mass(cx, g) {
                parts.push(p);
            }
        }
        let (m, c, i) = combine(&parts);
        body.mass = m;
        body.com = c;
        body.inertia = i;
    }
    check_inertia(cx, inertial.unwrap_or(node), &name, &mut body);
    if bd.body_index.insert(name.clone(), b).is_some() {
        cx.errors
            .at(node, format!("the body `{name}` is defined twice"));
    }
    bd.mech.bodies.push(body);
    children
}

fn read_joint(
    cx: &mut Ctx,
    bd: &mut Build,
    c: Node,
    body: &mut Body,
    b: usize,
    parent: Option<usize>,
) {
    let t = c.tag();
    let id = bd.joints_seen;
    bd.joints_seen += 1;
    let jname = c
        .attribute("name")
        .map_or_else(|| format!("joint{id}"), str::to_string);
    let ty = if t == "freejoint" {
        "free"
    } else {
        c.attribute("type").unwrap_or("hinge")
    };
    let kind = match ty {
        "hinge" => JointKind::Hinge,
        "slide" => JointKind::Slide,
        "ball" => JointKind::Ball,
        "free" => JointKind::Free { absolute: true },
        other => {
            cx.errors.at(
                c,
                format!("joint `{jname}`: type `{other}` is not supported"),
            );
            return;
        }
    };
    if matches!(kind, JointKind::Free { .. }) && (parent.is_some() || !body.joints.is_empty()) {
        cx.errors.at(
            c,
            format!("joint `{jname}`: a free joint must be the only joint of a top-level body"),
        );
    }
    let mut j = Joint::new(jname.clone(), line(c), kind);
    if t == "joint" {
        if !matches!(kind, JointKind::Free { .. }) {
            let axis = cx.v3(c, "axis", [0.0, 0.0, 1.0]);
            let n = tree::norm(axis);
            if n < 1e-12 {
                cx.errors
                    .at(c, format!("joint `{jname}`: the axis is zero"));
            } else {
                j.axis = tree::scale(1.0 / n, axis);
            }
            j.anchor = cx.v3(c, "pos", [0.0; 3]);
        }
        let hinge = kind == JointKind::Hinge;
        let ang = |cx: &Ctx, x: f64| if hinge { cx.angle(x) } else { x };
        let r = cx.num(c, "ref", 0.0);
        j.reference = ang(cx, r);
        let s = cx.num(c, "springref", 0.0);
        j.springref = ang(cx, s);
        j.damping = cx.num(c, "damping", 0.0);
        j.stiffness = cx.num(c, "stiffness", 0.0);
        j.armature = cx.num(c, "armature", 0.0);
        j.frictionloss = cx.num(c, "frictionloss", 0.0);
        if let Some(sd) = cx.nums(c, "springdamper", 2) {
            if sd[0] != 0.0 || sd[1] != 0.0 {
                if sd[0] <= 0.0 || sd[1] <= 0.0 {
                    cx.errors.at(
                        c,
                        format!("joint `{jname}`: `springdamper` values must both be positive"),
                    );
                } else if !hinge && kind != JointKind::Slide {
                    cx.errors.at(
                        c,
                        format!("joint `{jname}`: `springdamper` is supported on hinge and slide joints only"),
                    );
                } else {
                    bd.springdampers
                        .push(((b, body.joints.len()), sd[0], sd[1]));
                }
            }
        }
        let limited = c.attribute("limited").unwrap_or("auto");
        if let Some(r) = cx.nums(c, "range", 2) {
            if r[0] > r[1] {
                cx.errors.at(
                    c,
                    format!(
                        "joint `{jname}`: its range {} {} is reversed (lower above upper)",
                        r[0], r[1]
                    ),
                );
            } else if limited != "false" && (r[0] != 0.0 || r[1] != 0.0) {
                j.range = Some((ang(cx, r[0]), ang(cx, r[1])));
            }
        }
        if cx.settings.no_spring {
            j.stiffness = 0.0;
        }
        if cx.settings.no_damper {
            j.damping = 0.0;
        }
        if cx.settings.no_frictionloss {
            j.frictionloss = 0.0;
        }
        if !hinge && kind != JointKind::Slide && (j.stiffness != 0.0 || j.frictionloss != 0.0) {
            cx.errors.at(
                c,
                format!(
                    "joint `{jname}`: stiffness and frictionloss are supported on hinge and \
                     slide joints only (damping and armature on every joint)"
                ),
            );
        }
        if j.damping < 0.0 || j.stiffness < 0.0 || j.armature < 0.0 || j.frictionloss < 0.0 {
            cx.errors.at(
                c,
                format!(
                    "joint `{jname}`: damping, stiffness, armature and frictionloss must not be \
                     negative"
                ),
            );
        }
    }
    if bd
        .joint_index
        .insert(jname.clone(), (b, body.joints.len()))
        .is_some()
    {
        cx.errors.at(c, format!("joint `{jname}` is defined twice"));
    }
    body.joints.push(j);
}

/// The settings of `<compiler>` and `<option>` (every one, in order).
fn read_settings(doc: &Doc, dir: &Path, errors: &mut Errors) -> (Settings, V3) {
    let angles = mjcf_doc::angle_settings(doc, errors);
    let mut s = Settings {
        angles,
        from_geom: "auto".into(),
        group_range: (0, 5),
        boundmass: 0.0,
        boundinertia: 0.0,
        balanceinertia: false,
        settotalmass: -1.0,
        meshdir: dir.to_path_buf(),
        fitaabb: false,
        no_actuation: false,
        no_spring: false,
        no_damper: false,
        no_equality: false,
        no_frictionloss: false,
        fluid: [0.0; 5],
    };
    let mut gravity = [0.0, 0.0, -9.81];
    let root = doc.root();
    let mut assetdir = None;
    let mut meshdir = None;
    for c in root.children() {
        match c.tag() {
            "compiler" => {
                if let Some(v) = c.attribute("inertiafromgeom") {
                    if !matches!(v, "auto" | "true" | "false") {
                        errors.at(
                            c,
                            format!(
                                "<compiler>: `inertiafromgeom=\"{v}\"` is not auto, true or false"
                            ),
                        );
                    }
                    s.from_geom = v.into();
                }
                if let Some(r) = numbers(c, "inertiagrouprange", 2, errors) {
                    s.group_range = (r[0] as i64, r[1] as i64);
                }
                if let Some(v) = numbers(c, "boundmass", 1, errors) {
                    s.boundmass = v[0];
                }
                if let Some(v) = numbers(c, "boundinertia", 1, errors) {
                    s.boundinertia = v[0];
                }
                if let Some(v) = numbers(c, "settotalmass", 1, errors) {
                    s.settotalmass = v[0];
                }
                match c.attribute("balanceinertia") {
                    Some("true") => s.balanceinertia = true,
                    Some("false") | None => {}
                    Some(o) => errors.at(
                        c,
                        format!("<compiler>: `balanceinertia=\"{o}\"` is not true or false"),
                    ),
                }
                if let Some(v) = c.attribute("fitaabb") {
                    s.fitaabb = v == "true";
                }
                if let Some(d) = c.attribute("assetdir") {
                    assetdir = Some(d.to_string());
                }
                if let Some(d) = c.attribute("meshdir") {
                    meshdir = Some(d.to_string());
                }
                if c.attribute("coordinate") == Some("global") {
                    errors.at(c, "<compiler coordinate=\"global\">: global coordinates were removed from MuJoCo; write local ones");
                }
                if c.attribute("alignfree") == Some("true") {
                    errors.at(c, "<compiler alignfree=\"true\">: free bodies moved to their inertial frames are not supported");
                }
            }
            "option" => {
                if let Some(g) = numbers(c, "gravity", 3, errors) {
                    gravity = [g[0], g[1], g[2]];
                }
                for (k, at, n) in [("density", 0, 1), ("viscosity", 1, 1), ("wind", 2, 3)] {
                    if let Some(v) = numbers(c, k, n, errors).filter(|v| v.len() == n) {
                        if n == 1 && v[0] < 0.0 {
                            errors.at(c, format!("<option>: a negative `{k}`"));
                        }
                        s.fluid[at..at + n].copy_from_slice(&v);
                    }
                }
                for f in c.children().filter(|f| f.has_tag_name("flag")) {
                    let off = |k: &str| f.attribute(k) == Some("disable");
                    if off("gravity") {
                        gravity = [0.0; 3];
                    }
                    s.no_actuation |= off("actuation");
                    s.no_spring |= off("spring") || off("passive");
                    s.no_damper |= off("damper") || off("passive");
                    s.no_equality |= off("equality") || off("constraint");
                    s.no_frictionloss |= off("frictionloss") || off("constraint");
                    for k in ["override", "fwdinv"] {
                        if f.attribute(k) == Some("enable") && k == "override" {
                            // Contact override: contacts are not simulated anyway.
                        }
                    }
                }
            }
            _ => {}
        }
    }
    // meshdir: relative to assetdir's default (the model's directory) unless absolute.
    let base = match &assetdir {
        Some(a) => dir.join(a),
        None => dir.to_path_buf(),
    };
    s.meshdir = match &meshdir {
        Some(m) => dir.join(m),
        None => base,
    };
    (s, gravity)
}

/// MuJoCo's actuator parameters as the XML sets them (`mjsActuator`'s fields we use).
#[derive(Clone)]
struct ActSpec {
    gaintype: String,
    biastype: String,
    dyntype: String,
    gainprm: [f64; 10],
    biasprm: [f64; 10],
    gear: [f64; 6],
    ctrlrange: Option<(f64, f64)>,
    forcerange: Option<(f64, f64)>,
    ctrllimited: String,
    forcelimited: String,
    inheritrange: f64,
    /// The shortcut (`motor`, `position`, ...) that last set the gain and bias.
    setter: Option<String>,
}

impl ActSpec {
    fn new() -> Self {
        let mut gainprm = [0.0; 10];
        gainprm[0] = 1.0;
        Self {
            gaintype: "fixed".into(),
            biastype: "none".into(),
            dyntype: "none".into(),
            gainprm,
            biasprm: [0.0; 10],
            gear: [1.0, 0.0, 0.0, 0.0, 0.0, 0.0],
            ctrlrange: None,
            forcerange: None,
            ctrllimited: "auto".into(),
            forcelimited: "auto".into(),
            inheritrange: 0.0,
            setter: None,
        }
    }

    /// Applies one actuator element (a default or the actuator itself), as MuJoCo 4.0's reader
    /// does: the gain and bias parameters carry over from a default set by the same shortcut
    /// or by `<general>`, and start afresh otherwise (`gear` and the ranges always carry over;
    /// checked against MuJoCo 4.0.0, `tests/models/mjcf_features/README.md`).
    fn apply(&mut self, cx: &mut Ctx, e: Node) {
        let errors = &mut cx.errors;
        let tag = e.tag().to_string();
        if let Some(d) = &self.setter {
            if d != "general" && *d != tag && tag != "general" {
                let fresh = Self::new();
                self.gaintype = fresh.gaintype;
                self.biastype = fresh.biastype;
                self.dyntype = fresh.dyntype;
                self.gainprm = fresh.gainprm;
                self.biasprm = fresh.biasprm;
            }
        }
        self.setter = Some(tag);
        let fill = |dst: &mut [f64], v: Vec<f64>| {
            for (d, x) in dst.iter_mut().zip(v) {
                *d = x;
            }
        };
        for (k, dst) in [
            ("gaintype", &mut self.gaintype),
            ("biastype", &mut self.biastype),
            ("dyntype", &mut self.dyntype),
            ("ctrllimited", &mut self.ctrllimited),
            ("forcelimited", &mut self.forcelimited),
        ] {
            if let Some(v) = e.attribute(k) {
                *dst = v.to_string();
            }
        }
        if let Some(v) = numbers(e, "gainprm", 0, errors) {
            fill(&mut self.gainprm, v);
        }
        if let Some(v) = numbers(e, "biasprm", 0, errors) {
            fill(&mut self.biasprm, v);
        }
        if let Some(v) = numbers(e, "gear", 0, errors) {
            let mut g = [0.0; 6];
            fill(&mut g, v);
            self.gear = g;
        }
        if let Some(r) = numbers(e, "ctrlrange", 2, errors) {
            self.ctrlrange = Some((r[0], r[1]));
        }
        if let Some(r) = numbers(e, "forcerange", 2, errors) {
            self.forcerange = Some((r[0], r[1]));
        }
        let one = |errors: &mut Errors, k: &str| numbers(e, k, 1, errors).map(|v| v[0]);
        match e.tag() {
            "general" => {}
            "motor" => {
                self.gainprm[0] = 1.0;
                self.dyntype = "none".into();
                self.gaintype = "fixed".into();
                self.biastype = "none".into();
            }
            "position" => {
                let kp = one(errors, "kp").unwrap_or(self.gainprm[0]);
                let kv = one(errors, "kv");
                let dampratio = one(errors, "dampratio");
                let timeconst = one(errors, "timeconst");
                if let Some(r) = one(errors, "inheritrange") {
                    self.inheritrange = r;
                }
                self.gainprm[0] = kp;
                self.biasprm[1] = -kp;
                if kv.is_some() && dampratio.is_some() {
                    errors.at(e, "<position>: `kv` and `dampratio` cannot both be given");
                }
                if let Some(kv) = kv {
                    if kv < 0.0 {
                        errors.at(e, "<position>: `kv` must not be negative");
                    }
                    self.biasprm[2] = -kv;
                }
                if let Some(d) = dampratio {
                    if d < 0.0 {
                        errors.at(e, "<position>: `dampratio` must not be negative");
                    }
                    self.biasprm[2] = d;
                }
                if let Some(t) = timeconst {
                    self.dyntype = if t == 0.0 { "none" } else { "filterexact" }.into();
                }
                self.gaintype = "fixed".into();
                self.biastype = "affine".into();
            }
            "velocity" => {
                let kv = one(errors, "kv").unwrap_or(self.gainprm[0]);
                self.biasprm = [0.0; 10];
                self.gainprm[0] = kv;
                self.biasprm[2] = -kv;
                self.dyntype = "none".into();
                self.gaintype = "fixed".into();
                self.biastype = "affine".into();
            }
            "adhesion" => {
                let gain = one(errors, "gain").unwrap_or(self.gainprm[0]);
                self.gainprm = [0.0; 10];
                self.gainprm[0] = gain;
                self.biasprm = [0.0; 10];
                self.ctrllimited = "true".into();
                self.dyntype = "none".into();
                self.gaintype = "fixed".into();
                self.biastype = "none".into();
            }
            "damper" => {
                let inherited = self.gaintype == "affine";
                let kv =
                    one(errors, "kv").unwrap_or(if inherited { -self.gainprm[2] } else { 0.0 });
                self.gainprm = [0.0; 10];
                self.gainprm[2] = -kv;
                self.ctrllimited = "true".into();
                self.dyntype = "none".into();
                self.gaintype = "affine".into();
                self.biastype = "none".into();
            }
            other => {
                errors.at(
                    e,
                    format!(
                        "<{other}> actuators are not supported (supported: motor, position, \
                         velocity, damper, adhesion, general without activation dynamics)"
                    ),
                );
            }
        }
    }
}

/// Reads an MJCF file: its includes and meshes are found relative to it.
pub fn read_file(path: &Path, text: &str) -> Result<Mechanism, Errors> {
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    read_source(&Source { text, name, dir })
}

/// Reads an MJCF document from text (includes relative to the current directory).
#[cfg_attr(not(test), allow(dead_code))]
pub fn read(text: &str) -> Result<Mechanism, Errors> {
    read_source(&Source {
        text,
        name: "model.xml".into(),
        dir: PathBuf::from("."),
    })
}

fn read_source(src: &Source) -> Result<Mechanism, Errors> {
    let mut errors = Errors::default();
    let Some(doc) = mjcf_doc::load(src, &mut errors) else {
        return Err(errors);
    };
    read_doc(&doc, &src.dir, errors)
}

fn read_doc(doc: &Doc, dir: &Path, mut errors: Errors) -> Result<Mechanism, Errors> {
    let root = doc.root();
    let (settings, gravity) = read_settings(doc, dir, &mut errors);
    for c in root.children() {
        match c.tag() {
            "deformable" | "flex" => errors.at(c, format!("{} is not supported", tag(c))),
            "tendon" => {
                for t in c.children().filter(|t| t.has_tag_name("spatial")) {
                    errors.at(t, "<tendon><spatial> (a tendon through sites, wrapping around geoms) is not supported; fixed tendons are");
                }
            }
            _ => {}
        }
    }
    let mut meshes = HashMap::new();
    for a in root.children().filter(|c| c.has_tag_name("asset")) {
        for m in a.children().filter(|m| m.has_tag_name("mesh")) {
            let name = m.attribute("name").map(str::to_string).or_else(|| {
                m.attribute("file").map(|f| {
                    Path::new(f)
                        .file_stem()
                        .map(|s| s.to_string_lossy().into_owned())
                        .unwrap_or_default()
                })
            });
            if let Some(n) = name {
                if meshes.insert(n.clone(), m.id).is_some() {
                    errors.at(m, format!("the mesh `{n}` is defined twice"));
                }
            }
        }
    }
    let mut cx = Ctx {
        settings,
        errors,
        dir: dir.to_path_buf(),
        meshes,
        mesh_cache: HashMap::new(),
    };
    let mut bd = Build {
        mech: Mechanism {
            bodies: Vec::new(),
            closures: Vec::new(),
            mimics: Vec::new(),
            actuators: Vec::new(),
            tendons: Vec::new(),
            gravity,
            medium: {
                let [density, viscosity, wx, wy, wz] = cx.settings.fluid;
                let passive = !(cx.settings.no_spring && cx.settings.no_damper);
                (passive && (density > 0.0 || viscosity > 0.0)).then_some(Medium {
                    density,
                    viscosity,
                    wind: [wx, wy, wz],
                })
            },
        },
        body_index: HashMap::new(),
        joint_index: HashMap::new(),
        sites: HashMap::new(),
        tendon_index: HashMap::new(),
        joints_seen: 0,
        springdampers: Vec::new(),
    };
    // Bodies depth first in file order (MuJoCo's body and qpos order), with an explicit stack.
    let mut stack: Vec<(Node, Option<usize>)> = Vec::new();
    for w in root.children().filter(|c| c.has_tag_name("worldbody")) {
        let mut tops = Vec::new();
        for c in w.children() {
            match c.tag() {
                "body" => tops.push(c),
                "site" => {
                    if let Some(s) = c.attribute("name") {
                        let p = cx.v3(c, "pos", [0.0; 3]);
                        let r = cx.orientation(c);
                        if bd.sites.insert(s.to_string(), (None, p, r)).is_some() {
                            cx.errors.at(c, format!("the site `{s}` is defined twice"));
                        }
                    }
                }
                "joint" | "freejoint" => cx.errors.at(
                    c,
                    "a joint directly in <worldbody> moves nothing: put it in a <body>",
                ),
                "replicate" | "composite" | "flexcomp" | "attach" => {
                    cx.errors.at(c, format!("{} is not supported", tag(c)))
                }
                _ => {}
            }
        }
        for t in tops.into_iter().rev() {
            stack.push((t, None));
        }
        while let Some((n, parent)) = stack.pop() {
            let b = bd.mech.bodies.len();
            let kids = read_body(&mut cx, &mut bd, n, parent);
            for k in kids.into_iter().rev() {
                stack.push((k, Some(b)));
            }
        }
    }
    // Order the bodies parents first is already so (depth first); fix nothing else.
    read_tendons(&mut cx, &mut bd, root);
    read_equalities(&mut cx, &mut bd, root);
    read_actuators(&mut cx, &mut bd, doc, root);
    if cx.settings.settotalmass > 0.0 {
        let total: f64 = bd.mech.bodies.iter().map(|b| b.mass).sum();
        if total > 0.0 {
            let s = cx.settings.settotalmass / total;
            for b in &mut bd.mech.bodies {
                b.mass *= s;
                b.inertia = tree::scale_m(s, &b.inertia);
            }
        }
    }
    if cx.errors.list.is_empty() && !bd.springdampers.is_empty() {
        auto_spring_damper(&mut bd.mech, &bd.springdampers, &cx.settings);
    }
    let _ = &cx.dir;
    let _ = &cx.meshes;
    if cx.errors.list.is_empty() {
        Ok(bd.mech)
    } else {
        Err(cx.errors)
    }
}

/// MuJoCo's `springdamper`: a joint's stiffness and damping from a time constant `τ` and a
/// damping ratio `ζ`, with the joint's inertia `m = 1 / (M⁻¹)ₖₖ` at the reference
/// configuration (MuJoCo's `dof_invweight0`, armature included): stiffness `m / (τ ζ)²`,
/// damping `2 m / τ`.
fn auto_spring_damper(mech: &mut Mechanism, joints: &[((usize, usize), f64, f64)], s: &Settings) {
    let layout = Layout::of(mech);
    let n = layout.n;
    let q = layout.reference(mech);
    let energy = |mech: &Mechanism, v: Vec<f64>| -> f64 {
        let mut a = Numeric {
            q: q.clone(),
            v,
            g: mech.gravity,
        };
        let f = kinematics::frames(&mut a, mech, &layout);
        kinematics::energies(&mut a, mech, &layout, &f).0
    };
    let unit = |i: usize, j: usize| -> Vec<f64> {
        let mut v = vec![0.0; n];
        v[i] += 1.0;
        v[j] += 1.0;
        v
    };
    // M from the kinetic energy by polarization: M_ij = T(e_i + e_j) − T(e_i) − T(e_j).
    let diag: Vec<f64> = (0..n).map(|i| energy(mech, unit(i, i)) / 2.0).collect();
    let mut m = vec![vec![0.0; n]; n];
    for i in 0..n {
        m[i][i] = diag[i];
        for j in 0..i {
            let x = energy(mech, unit(i, j)) - diag[i] / 2.0 - diag[j] / 2.0;
            m[i][j] = x;
            m[j][i] = x;
        }
    }
    for &((b, j), timeconst, dampratio) in joints {
        let k = layout.first[b][j];
        let inv = tree::inverse_diagonal(&m, k).unwrap_or(0.0);
        let inertia = 1.0 / inv.max(1e-15);
        let joint = &mut mech.bodies[b].joints[j];
        if !s.no_spring {
            joint.stiffness = inertia / (timeconst * timeconst * dampratio * dampratio).max(1e-15);
        }
        if !s.no_damper {
            joint.damping = 2.0 * inertia / timeconst.max(1e-15);
        }
    }
}

/// The hinge/slide joint named `name`, or an error naming who asked.
fn scalar_joint(
    cx: &mut Ctx,
    bd: &Build,
    node: Node,
    who: &str,
    name: &str,
) -> Option<(usize, usize)> {
    let Some(&jp) = bd.joint_index.get(name) else {
        cx.errors
            .at(node, format!("{who}: the joint `{name}` does not exist"));
        return None;
    };
    let kind = bd.mech.bodies[jp.0].joints[jp.1].kind;
    if !matches!(kind, JointKind::Hinge | JointKind::Slide) {
        cx.errors.at(
            node,
            format!("{who}: the joint `{name}` is a ball or free joint; only hinge and slide joints are supported here"),
        );
        return None;
    }
    Some(jp)
}

fn read_tendons(cx: &mut Ctx, bd: &mut Build, root: Node) {
    for sec in root.children().filter(|c| c.has_tag_name("tendon")) {
        for t in sec.children().filter(|t| t.has_tag_name("fixed")) {
            let k = bd.mech.tendons.len();
            let name = t
                .attribute("name")
                .map_or_else(|| format!("tendon{k}"), str::to_string);
            let who = format!("tendon `{name}`");
            let mut terms = Vec::new();
            for j in t.children().filter(|j| j.has_tag_name("joint")) {
                let Some(jn) = j.attribute("joint") else {
                    cx.errors.at(j, format!("{who}: a <joint> needs `joint`"));
                    continue;
                };
                let coef = cx.num(j, "coef", 1.0);
                if let Some(jp) = scalar_joint(cx, bd, j, &who, jn) {
                    terms.push((jp, coef));
                }
            }
            let mut stiffness = cx.num(t, "stiffness", 0.0);
            let mut damping = cx.num(t, "damping", 0.0);
            let mut frictionloss = cx.num(t, "frictionloss", 0.0);
            if cx.settings.no_spring {
                stiffness = 0.0;
            }
            if cx.settings.no_damper {
                damping = 0.0;
            }
            if cx.settings.no_frictionloss {
                frictionloss = 0.0;
            }
            let sl = cx.nums(t, "springlength", 0).unwrap_or_else(|| vec![-1.0]);
            // Negative: the length at MuJoCo's `qpos_spring` (the joints' `springref`).
            let reference: f64 = terms
                .iter()
                .map(|(jp, c)| c * bd.mech.bodies[jp.0].joints[jp.1].springref)
                .sum();
            let springlength = match sl.as_slice() {
                [a] if *a < 0.0 => reference,
                [a] => *a,
                [a, b] if *a < 0.0 && *b < 0.0 => reference,
                [a, b] if a == b => *a,
                [_, _] if stiffness == 0.0 => 0.0,
                _ => {
                    cx.errors.at(t, format!("{who}: a spring with a dead band (two different `springlength`s) is not smooth and is not supported"));
                    0.0
                }
            };
            if stiffness < 0.0 || damping < 0.0 || frictionloss < 0.0 {
                cx.errors.at(
                    t,
                    format!("{who}: stiffness, damping and frictionloss must not be negative"),
                );
            }
            if cx.num(t, "armature", 0.0) != 0.0 {
                cx.errors
                    .at(t, format!("{who}: tendon `armature` is not supported"));
            }
            if terms.is_empty() {
                cx.errors.at(
                    t,
                    format!("{who}: a fixed tendon needs at least one <joint>"),
                );
            }
            if bd.tendon_index.insert(name.clone(), k).is_some() {
                cx.errors
                    .at(t, format!("the tendon `{name}` is defined twice"));
            }
            bd.mech.tendons.push(Tendon {
                name,
                line: line(t),
                terms,
                stiffness,
                springlength,
                damping,
                frictionloss,
            });
        }
    }
}

fn read_equalities(cx: &mut Ctx, bd: &mut Build, root: Node) {
    let body_ref = |cx: &mut Ctx, bd: &Build, node: Node, k: &str| -> Result<Option<usize>, ()> {
        match node.attribute(k) {
            None | Some("world") => Ok(None),
            Some(name) => match bd.body_index.get(name) {
                Some(b) => Ok(Some(*b)),
                None => {
                    cx.errors.at(
                        node,
                        format!(
                            "{} {}: `{k}` names the body `{name}`, which does not exist",
                            node.tag(),
                            node.attribute("name").map_or_else(
                                || format!("at line {}", line(node)),
                                |n| format!("`{n}`")
                            )
                        ),
                    );
                    Err(())
                }
            },
        }
    };
    for eq in root.children().filter(|c| c.has_tag_name("equality")) {
        for c in eq.children() {
            if c.attribute("active") == Some("false") || cx.settings.no_equality {
                continue;
            }
            let t = c.tag();
            let name = c.attribute("name").map_or_else(
                || format!("<{t}> at line {}", line(c)),
                |n| format!("`{n}`"),
            );
            match t {
                "connect" => {
                    let (b1, b2, a1, a2) = if let (Some(s1), Some(s2)) =
                        (c.attribute("site1"), c.attribute("site2"))
                    {
                        let look = |cx: &mut Ctx, s: &str| match bd.sites.get(s) {
                            Some(x) => Some(*x),
                            None => {
                                cx.errors.at(
                                    c,
                                    format!("connect {name}: the site `{s}` does not exist"),
                                );
                                None
                            }
                        };
                        match (look(cx, s1), look(cx, s2)) {
                            (Some((b1, p1, _)), Some((b2, p2, _))) => (b1, b2, p1, Some(p2)),
                            _ => continue,
                        }
                    } else {
                        if c.attribute("body1").is_none() {
                            cx.errors.at(c, format!("connect {name}: give `body1` (and `body2`, default the world) or `site1` and `site2`"));
                            continue;
                        }
                        let (Ok(b1), Ok(b2)) =
                            (body_ref(cx, bd, c, "body1"), body_ref(cx, bd, c, "body2"))
                        else {
                            continue;
                        };
                        let a = cx.v3(c, "anchor", [0.0; 3]);
                        (b1, b2, a, None)
                    };
                    if b1 == b2 {
                        cx.errors
                            .at(c, format!("connect {name}: both ends are on the same body"));
                        continue;
                    }
                    bd.mech.closures.push(Closure {
                        name: format!("connect {name}"),
                        line: line(c),
                        body1: b1,
                        body2: b2,
                        kind: ClosureKind::Connect {
                            anchor1: a1,
                            anchor2: a2,
                        },
                    });
                }
                "weld" => {
                    if c.attribute("site1").is_some() || c.attribute("anchor").is_some() {
                        cx.errors.at(
                            c,
                            format!(
                                "weld {name}: only `body1`, `body2` and `relpose` are supported"
                            ),
                        );
                        continue;
                    }
                    let (Ok(b1), Ok(b2)) =
                        (body_ref(cx, bd, c, "body1"), body_ref(cx, bd, c, "body2"))
                    else {
                        continue;
                    };
                    let relpose = numbers(c, "relpose", 7, &mut cx.errors).and_then(|r| {
                        // MuJoCo's default relpose "0 1 0 0 0 0 0" (a zero quaternion) means:
                        // the pose at the reference configuration.
                        let q = [r[3], r[4], r[5], r[6]];
                        (q.iter().any(|x| *x != 0.0))
                            .then(|| ([r[0], r[1], r[2]], tree::quat_matrix(q)))
                    });
                    if b1 == b2 {
                        cx.errors
                            .at(c, format!("weld {name}: both ends are on the same body"));
                        continue;
                    }
                    bd.mech.closures.push(Closure {
                        name: format!("weld {name}"),
                        line: line(c),
                        body1: b1,
                        body2: b2,
                        kind: ClosureKind::Weld { relpose },
                    });
                }
                "joint" | "tendon" => {
                    let who = format!("equality {t} {name}");
                    let (k1, k2) = if t == "joint" {
                        ("joint1", "joint2")
                    } else {
                        ("tendon1", "tendon2")
                    };
                    let Some(n1) = c.attribute(k1) else {
                        cx.errors.at(c, format!("{who}: give `{k1}`"));
                        continue;
                    };
                    let combo =
                        |cx: &mut Ctx, bd: &Build, n: &str| -> Option<Vec<((usize, usize), f64)>> {
                            if t == "joint" {
                                scalar_joint(cx, bd, c, &who, n).map(|jp| vec![(jp, 1.0)])
                            } else {
                                match bd.tendon_index.get(n) {
                                    Some(&k) => Some(bd.mech.tendons[k].terms.clone()),
                                    None => {
                                        cx.errors.at(
                                            c,
                                            format!("{who}: the fixed tendon `{n}` does not exist"),
                                        );
                                        None
                                    }
                                }
                            }
                        };
                    let Some(y) = combo(cx, bd, n1) else { continue };
                    let x = match c.attribute(k2) {
                        Some(n2) => match combo(cx, bd, n2) {
                            Some(x) => Some(x),
                            None => continue,
                        },
                        None => None,
                    };
                    let mut coef = [0.0, 1.0, 0.0, 0.0, 0.0];
                    if let Some(p) = numbers(c, "polycoef", 0, &mut cx.errors) {
                        coef = [0.0; 5];
                        for (d, v) in coef.iter_mut().zip(p) {
                            *d = v;
                        }
                    }
                    let at_ref = |v: &[((usize, usize), f64)]| -> f64 {
                        v.iter()
                            .map(|(jp, k)| k * bd.mech.bodies[jp.0].joints[jp.1].reference)
                            .sum()
                    };
                    let y0 = at_ref(&y);
                    let x0 = x.as_deref().map_or(0.0, at_ref);
                    if x.as_ref().is_some_and(|x| *x == y) {
                        cx.errors.at(c, format!("{who}: both sides are the same"));
                        continue;
                    }
                    bd.mech.closures.push(Closure {
                        name: format!("equality {t} {name}"),
                        line: line(c),
                        body1: None,
                        body2: None,
                        kind: ClosureKind::Coupling { y, x, coef, y0, x0 },
                    });
                }
                other => cx.errors.at(
                    c,
                    format!(
                        "<equality><{other}> is not supported (supported: connect, weld, joint, \
                         tendon)"
                    ),
                ),
            }
        }
    }
}

fn read_actuators(cx: &mut Ctx, bd: &mut Build, doc: &Doc, root: Node) {
    for act in root.children().filter(|c| c.has_tag_name("actuator")) {
        for c in act.children() {
            let k = bd.mech.actuators.len();
            let name = c
                .attribute("name")
                .map_or_else(|| format!("actuator{k}"), str::to_string);
            let mut spec = ActSpec::new();
            for d in doc.actuator_defaults(c.class()) {
                spec.apply(cx, d);
            }
            spec.apply(cx, c);
            let who = format!("actuator `{name}`");
            let mut drive = Drive::Joint;
            let (joint, tendon) = if let Some(jn) = c.attribute("joint") {
                match scalar_joint(cx, bd, c, &who, jn) {
                    Some(jp) => (jp, None),
                    None => continue,
                }
            } else if let Some(tn) = c.attribute("tendon") {
                match bd.tendon_index.get(tn) {
                    Some(&t) => ((0, 0), Some(t)),
                    None => {
                        cx.errors
                            .at(c, format!("{who}: the fixed tendon `{tn}` does not exist"));
                        continue;
                    }
                }
            } else if let (Some(sn), "adhesion") = (c.attribute("body"), c.tag()) {
                if !bd.body_index.contains_key(sn) {
                    cx.errors
                        .at(c, format!("{who}: the body `{sn}` does not exist"));
                    continue;
                }
                drive = Drive::Contact;
                ((0, 0), None)
            } else if let Some(sn) = c.attribute("site") {
                if let Some(r) = c.attribute("refsite") {
                    cx.errors.at(c, format!("{who}: a site transmission relative to a `refsite` (`{r}`) is not supported; without `refsite` it is"));
                    continue;
                }
                match bd.sites.get(sn) {
                    Some(&(body, pos, rot)) => {
                        drive = Drive::Site {
                            body,
                            pos,
                            rot,
                            gear: spec.gear,
                        };
                        ((0, 0), None)
                    }
                    None => {
                        cx.errors
                            .at(c, format!("{who}: the site `{sn}` does not exist"));
                        continue;
                    }
                }
            } else {
                let on = ["body", "jointinparent", "cranksite", "slidersite"]
                    .into_iter()
                    .find(|k| c.attribute(k).is_some())
                    .unwrap_or("nothing");
                cx.errors.at(
                    c,
                    format!(
                        "{who}: a transmission on `{on}` is not supported (supported: `joint`, \
                         `tendon` of a fixed tendon, `site` without `refsite`)"
                    ),
                );
                continue;
            };
            if spec.dyntype != "none" {
                cx.errors.at(c, format!("{who}: activation dynamics (`dyntype=\"{}\"`, or a `timeconst`) add a state and are not supported", spec.dyntype));
                continue;
            }
            let ok_gain = matches!(spec.gaintype.as_str(), "fixed" | "affine");
            let ok_bias = matches!(spec.biastype.as_str(), "none" | "affine");
            if !ok_gain || !ok_bias {
                cx.errors.at(c, format!("{who}: gain type `{}` and bias type `{}`: only `fixed`/`affine` gains and `none`/`affine` biases are supported", spec.gaintype, spec.biastype));
                continue;
            }
            if drive == Drive::Joint && spec.gear[1..].iter().any(|g| *g != 0.0) {
                cx.errors.at(c, format!("{who}: a `gear` of more than one number needs a site transmission, which is not supported"));
                continue;
            }
            if matches!(drive, Drive::Site { .. })
                && spec.biastype == "affine"
                && spec.biasprm[2] > 0.0
            {
                cx.errors.at(
                    c,
                    format!(
                        "{who}: `dampratio` on a site transmission is not supported (give `kv`)"
                    ),
                );
                continue;
            }
            let affine_gain = spec.gaintype == "affine";
            let bias = if spec.biastype == "affine" {
                [spec.biasprm[0], spec.biasprm[1], spec.biasprm[2]]
            } else {
                [0.0; 3]
            };
            if let Some((lo, hi)) = spec.ctrlrange {
                if lo > hi && spec.ctrllimited != "false" {
                    cx.errors
                        .at(c, format!("{who}: its `ctrlrange` {lo} {hi} is reversed"));
                    continue;
                }
            }
            if let Some((lo, hi)) = spec.forcerange {
                if lo > hi && spec.forcelimited != "false" {
                    cx.errors
                        .at(c, format!("{who}: its `forcerange` {lo} {hi} is reversed"));
                    continue;
                }
            }
            let mut ctrlrange = spec.ctrlrange.filter(|_| spec.ctrllimited != "false");
            if spec.inheritrange > 0.0 && tendon.is_none() {
                if let Some((lo, hi)) = bd.mech.bodies[joint.0].joints[joint.1].range {
                    let (mid, half) = (0.5 * (lo + hi), 0.5 * (hi - lo) * spec.inheritrange);
                    ctrlrange = Some((mid - half, mid + half));
                }
            }
            if cx.settings.no_actuation {
                continue;
            }
            bd.mech.actuators.push(Actuator {
                name,
                joint,
                tendon,
                gain_affine: if affine_gain {
                    [spec.gainprm[1], spec.gainprm[2]]
                } else {
                    [0.0; 2]
                },
                gear: spec.gear[0],
                ctrlrange,
                forcerange: spec.forcerange.filter(|_| spec.forcelimited != "false"),
                gain: spec.gainprm[0],
                bias,
                drive,
            });
        }
    }
}
