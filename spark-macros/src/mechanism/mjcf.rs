//! MJCF → [`Mechanism`].
//!
//! Read: `<compiler angle eulerseq inertiafromgeom>`; `<option gravity>`; the unnamed top-level
//! `<default>` (its `joint`, `geom` and `motor` attributes); `<worldbody>` and nested `<body>`
//! with `pos`, `quat`, `euler`, `axisangle`, `xyaxes`, `zaxis`; `<inertial pos (orientation)
//! mass diaginertia|fullinertia>`; `<joint type="hinge|slide|ball|free" axis pos ref damping
//! stiffness springref armature range>` and `<freejoint>`; mass properties from `<geom>`
//! (sphere, capsule, cylinder, box, ellipsoid; `size`, `fromto`, `pos`, orientation, `mass`,
//! `density`) where a body has no `<inertial>`; `<site>` (for `connect`); `<equality>` with
//! `<connect body1 body2 anchor>` or `<connect site1 site2>` and `<weld body1 body2 relpose>`
//! (holonomic constraints, enforced exactly: `solref`, `solimp` ignored; `active="false"`
//! skipped); `<actuator><motor joint gear ctrlrange>` (an input each).
//!
//! Ignored (they do not change these dynamics): `<visual>`, `<asset>`, `<statistic>`,
//! `<size>`, `<sensor>`, `<keyframe>`, `<custom>`, `<extension>`, `<contact>`, cameras,
//! lights, geoms' collision and material attributes, joint `limited`/`range` (exposed),
//! `margin`, unknown attributes. Contacts are not simulated.
//!
//! Errors: anything else that would change the dynamics (tendons, other actuators and
//! equalities, default classes, `frictionloss`, mesh geoms that would give mass, ...).

use std::collections::HashMap;

use roxmltree::Node;

use super::tree::{
    self, Actuator, Body, Closure, ClosureKind, Joint, JointKind, Mechanism, M3, V3,
};
use super::xml::{child, document, line, numbers, tag, Errors};

struct Settings {
    degree: bool,
    eulerseq: String,
    /// `inertiafromgeom`: "auto", "true" or "false".
    from_geom: String,
}

/// Attribute lookup with the top-level default class as fallback.
struct Ctx<'a, 'i> {
    settings: Settings,
    defaults: HashMap<String, Node<'a, 'i>>,
    errors: Errors,
}

impl<'a, 'i> Ctx<'a, 'i> {
    fn attr(&self, node: Node<'a, 'i>, name: &str) -> Option<(&'a str, Node<'a, 'i>)> {
        if let Some(v) = node.attribute(name) {
            return Some((v, node));
        }
        let d = self.defaults.get(node.tag_name().name())?;
        d.attribute(name).map(|v| (v, *d))
    }

    fn nums(&mut self, node: Node<'a, 'i>, name: &str, n: usize) -> Option<Vec<f64>> {
        let (_, at) = self.attr(node, name)?;
        numbers(at, name, n, &mut self.errors)
    }

    fn num(&mut self, node: Node<'a, 'i>, name: &str, default: f64) -> f64 {
        self.nums(node, name, 1).map_or(default, |v| v[0])
    }

    fn v3(&mut self, node: Node<'a, 'i>, name: &str, default: V3) -> V3 {
        self.nums(node, name, 3)
            .map_or(default, |v| [v[0], v[1], v[2]])
    }

    fn angle(&self, x: f64) -> f64 {
        if self.settings.degree {
            x.to_radians()
        } else {
            x
        }
    }

    /// The orientation of an element (`quat`, `axisangle`, `euler`, `xyaxes`, `zaxis`).
    fn orientation(&mut self, node: Node<'a, 'i>) -> M3 {
        let given: Vec<&str> = ["quat", "axisangle", "euler", "xyaxes", "zaxis"]
            .into_iter()
            .filter(|k| node.attribute(*k).is_some())
            .collect();
        if given.len() > 1 {
            self.errors.at(
                node,
                format!(
                    "{}: give one orientation, not {}",
                    tag(node),
                    given.join(" and ")
                ),
            );
        }
        if let Some(q) = numbers(node, "quat", 4, &mut self.errors) {
            let n = (q.iter().map(|x| x * x).sum::<f64>()).sqrt();
            if n < 1e-12 {
                self.errors
                    .at(node, format!("{}: `quat` is zero", tag(node)));
                return tree::IDENTITY;
            }
            return tree::quat_matrix([q[0], q[1], q[2], q[3]]);
        }
        if let Some(a) = numbers(node, "axisangle", 4, &mut self.errors) {
            let axis = [a[0], a[1], a[2]];
            let n = tree::norm(axis);
            if n < 1e-12 {
                self.errors.at(
                    node,
                    format!("{}: the axis of `axisangle` is zero", tag(node)),
                );
                return tree::IDENTITY;
            }
            return tree::axis_angle(tree::scale(1.0 / n, axis), self.angle(a[3]));
        }
        if let Some(e) = numbers(node, "euler", 3, &mut self.errors) {
            let seq: Vec<char> = self.settings.eulerseq.chars().collect();
            let mut r = tree::IDENTITY;
            for (k, c) in seq.iter().enumerate() {
                let axis = match c.to_ascii_lowercase() {
                    'x' => [1.0, 0.0, 0.0],
                    'y' => [0.0, 1.0, 0.0],
                    _ => [0.0, 0.0, 1.0],
                };
                let rk = tree::axis_angle(axis, self.angle(e[k]));
                // Lower case: rotating axes (intrinsic); upper case: fixed axes (extrinsic).
                r = if c.is_ascii_lowercase() {
                    tree::mul(&r, &rk)
                } else {
                    tree::mul(&rk, &r)
                };
            }
            return r;
        }
        if let Some(a) = numbers(node, "xyaxes", 6, &mut self.errors) {
            let x = [a[0], a[1], a[2]];
            let y = [a[3], a[4], a[5]];
            let nx = tree::norm(x);
            let x = tree::scale(1.0 / nx, x);
            let y = tree::sub(y, tree::scale(tree::dot(x, y), x));
            let ny = tree::norm(y);
            if !(nx > 1e-12 && ny > 1e-12) {
                self.errors
                    .at(node, format!("{}: `xyaxes` are degenerate", tag(node)));
                return tree::IDENTITY;
            }
            let y = tree::scale(1.0 / ny, y);
            let z = tree::cross(x, y);
            return tree::transpose(&[x, y, z]);
        }
        if let Some(z) = numbers(node, "zaxis", 3, &mut self.errors) {
            let z = [z[0], z[1], z[2]];
            let n = tree::norm(z);
            if n < 1e-12 {
                self.errors
                    .at(node, format!("{}: `zaxis` is zero", tag(node)));
                return tree::IDENTITY;
            }
            return tree::z_to(tree::scale(1.0 / n, z));
        }
        tree::IDENTITY
    }
}

/// Mass, centre of mass and inertia about it of one primitive geom, in the body frame.
fn geom_mass<'a, 'i>(cx: &mut Ctx<'a, 'i>, g: Node<'a, 'i>) -> Option<(f64, V3, M3)> {
    let ty = cx.attr(g, "type").map_or("sphere", |(v, _)| v);
    let size = cx.nums(g, "size", 0).unwrap_or_default();
    let fromto = numbers(g, "fromto", 6, &mut cx.errors);
    let need = |cx: &mut Ctx, k: usize| -> Option<()> {
        if size.len() < k {
            cx.errors
                .at(g, format!("<geom type=\"{ty}\">: `size` needs {k} numbers"));
            None
        } else {
            Some(())
        }
    };
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
                     body an <inertial>, or set the geom's `mass=\"0\"`"
                ),
            );
            return None;
        }
    };
    let mass = match cx.nums(g, "mass", 1) {
        Some(m) => m[0],
        None => cx.num(g, "density", 1000.0) * volume,
    };
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

/// Body-independent state of the reader.
struct Build {
    mech: Mechanism,
    body_index: HashMap<String, usize>,
    joint_index: HashMap<String, (usize, usize)>,
    /// Sites: name → (body, position in the body frame).
    sites: HashMap<String, (Option<usize>, V3)>,
    joints_seen: usize,
}

fn read_body<'a, 'i>(
    cx: &mut Ctx<'a, 'i>,
    bd: &mut Build,
    node: Node<'a, 'i>,
    parent: Option<usize>,
) {
    let b = bd.mech.bodies.len();
    let name = node
        .attribute("name")
        .map_or_else(|| format!("body{}", b + 1), str::to_string);
    for k in ["childclass", "class"] {
        if node.attribute(k).is_some() {
            cx.errors.at(
                node,
                format!("<body name=\"{name}\">: `{k}` (default classes) is not supported"),
            );
        }
    }
    if node.attribute("mocap") == Some("true") {
        cx.errors.at(
            node,
            format!("<body name=\"{name}\">: mocap bodies are not supported"),
        );
    }
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
        gravcomp: 0.0,
    };
    let mut inertial = None;
    let mut geoms = Vec::new();
    let mut children = Vec::new();
    for c in node.children().filter(|c| c.is_element()) {
        let t = c.tag_name().name();
        match t {
            "inertial" => inertial = Some(c),
            "geom" => geoms.push(c),
            "body" => children.push(c),
            "site" => {
                if let Some(s) = c.attribute("name") {
                    let p = cx.v3(c, "pos", [0.0; 3]);
                    bd.sites.insert(s.to_string(), (Some(b), p));
                }
            }
            "joint" | "freejoint" => {
                let id = bd.joints_seen;
                bd.joints_seen += 1;
                let jname = c
                    .attribute("name")
                    .map_or_else(|| format!("joint{id}"), str::to_string);
                let ty = if t == "freejoint" {
                    "free"
                } else {
                    cx.attr(c, "type").map_or("hinge", |(v, _)| v)
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
                        continue;
                    }
                };
                if c.attribute("class").is_some() {
                    cx.errors.at(
                        c,
                        format!("joint `{jname}`: default classes are not supported"),
                    );
                }
                if matches!(kind, JointKind::Free { .. })
                    && (parent.is_some() || !body.joints.is_empty())
                {
                    cx.errors.at(c, format!("joint `{jname}`: a free joint must be the only joint of a top-level body"));
                }
                let mut j = Joint::new(jname.clone(), line(c), kind);
                if t == "joint" {
                    let axis = cx.v3(c, "axis", [0.0, 0.0, 1.0]);
                    let n = tree::norm(axis);
                    if n < 1e-12 {
                        cx.errors
                            .at(c, format!("joint `{jname}`: the axis is zero"));
                    } else {
                        j.axis = tree::scale(1.0 / n, axis);
                    }
                    j.anchor = cx.v3(c, "pos", [0.0; 3]);
                    let hinge = kind == JointKind::Hinge;
                    let ang = |cx: &Ctx, x: f64| if hinge { cx.angle(x) } else { x };
                    let r = cx.num(c, "ref", 0.0);
                    j.reference = ang(cx, r);
                    let s = cx.num(c, "springref", 0.0);
                    j.springref = ang(cx, s);
                    j.damping = cx.num(c, "damping", 0.0);
                    j.stiffness = cx.num(c, "stiffness", 0.0);
                    j.armature = cx.num(c, "armature", 0.0);
                    if let Some(r) = cx.nums(c, "range", 2) {
                        j.range = Some((ang(cx, r[0]), ang(cx, r[1])));
                    }
                    let fl = cx.num(c, "frictionloss", 0.0);
                    if fl != 0.0 {
                        cx.errors.at(c, format!("joint `{jname}`: `frictionloss` (Coulomb friction) is not smooth and is not supported; set it to 0"));
                    }
                    if !hinge
                        && kind != JointKind::Slide
                        && (j.damping != 0.0 || j.stiffness != 0.0 || j.armature != 0.0)
                    {
                        cx.errors.at(c, format!("joint `{jname}`: damping, stiffness and armature are supported on hinge and slide joints only"));
                    }
                    if j.damping < 0.0 || j.stiffness < 0.0 || j.armature < 0.0 {
                        cx.errors.at(c, format!("joint `{jname}`: damping, stiffness and armature must not be negative"));
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
            "plugin" | "composite" | "flexcomp" | "attach" | "frame" | "replicate" => {
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
            cx.errors.at(
                i,
                format!("<inertial> of body `{name}`: give `diaginertia` or `fullinertia`"),
            );
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
        let parts: Vec<_> = geoms.iter().filter_map(|g| geom_mass(cx, *g)).collect();
        let (m, c, i) = combine(&parts);
        body.mass = m;
        body.com = c;
        body.inertia = i;
    }
    bd.body_index.insert(name.clone(), b);
    bd.mech.bodies.push(body);
    for c in children {
        read_body(cx, bd, c, Some(b));
    }
}

/// Reads an MJCF document.
pub fn read(text: &str) -> Result<Mechanism, Errors> {
    let doc = document(text, "mujoco", "an MJCF")?;
    let root = doc.root_element();
    let mut errors = Errors::default();
    let mut settings = Settings {
        degree: true,
        eulerseq: "xyz".into(),
        from_geom: "auto".into(),
    };
    let mut gravity = [0.0, 0.0, -9.81];
    let mut defaults = HashMap::new();
    for c in root.children().filter(|c| c.is_element()) {
        match c.tag_name().name() {
            "compiler" => {
                match c.attribute("angle") {
                    Some("radian") => settings.degree = false,
                    Some("degree") | None => {}
                    Some(other) => {
                        errors.at(c, format!("<compiler>: unknown angle unit `{other}`"))
                    }
                }
                if let Some(s) = c.attribute("eulerseq") {
                    if s.len() != 3 || !s.chars().all(|ch| "xyzXYZ".contains(ch)) {
                        errors.at(
                            c,
                            format!(
                                "<compiler>: `eulerseq=\"{s}\"` is not three of x, y, z, X, Y, Z"
                            ),
                        );
                    } else {
                        settings.eulerseq = s.into();
                    }
                }
                if let Some(s) = c.attribute("inertiafromgeom") {
                    settings.from_geom = s.into();
                }
                for k in [
                    "settotalmass",
                    "balanceinertia",
                    "boundmass",
                    "boundinertia",
                    "coordinate",
                ] {
                    if c.attribute(k).is_some() {
                        errors.at(c, format!("<compiler>: `{k}` changes the mass properties and is not supported"));
                    }
                }
            }
            "option" => {
                if let Some(g) = numbers(c, "gravity", 3, &mut errors) {
                    gravity = [g[0], g[1], g[2]];
                }
                for k in ["wind", "magnetic", "density", "viscosity"] {
                    if let Some(v) = numbers(c, k, 0, &mut errors) {
                        if v.iter().any(|x| *x != 0.0) && k != "magnetic" {
                            errors.at(
                                c,
                                format!("<option>: a non-zero `{k}` (a fluid) is not supported"),
                            );
                        }
                    }
                }
                if let Some(f) = child(c, "flag") {
                    if f.attribute("gravity") == Some("disable") {
                        gravity = [0.0; 3];
                    }
                }
            }
            "default" => {
                for d in c.children().filter(|d| d.is_element()) {
                    if d.tag_name().name() == "default" {
                        errors.at(d, "nested <default> classes are not supported: set the attributes on the elements");
                    } else {
                        defaults.insert(d.tag_name().name().to_string(), d);
                    }
                }
            }
            "include" => errors.at(c, "<include> is not supported: write one file"),
            "tendon" if c.children().any(|t| t.is_element()) => {
                errors.at(c, "<tendon> is not supported (tendons change the dynamics)")
            }
            "deformable" | "flex" => errors.at(c, format!("{} is not supported", tag(c))),
            _ => {}
        }
    }
    for k in [
        "general",
        "position",
        "velocity",
        "intvelocity",
        "damper",
        "cylinder",
        "muscle",
        "adhesion",
    ] {
        if defaults.contains_key(k) {
            if let Some(d) = defaults.get(k) {
                errors.at(*d, format!("<default> of <{k}> is not supported"));
            }
        }
    }
    let mut cx = Ctx {
        settings,
        defaults,
        errors,
    };
    let mut bd = Build {
        mech: Mechanism {
            bodies: Vec::new(),
            closures: Vec::new(),
            mimics: Vec::new(),
            actuators: Vec::new(),
            gravity,
        },
        body_index: HashMap::new(),
        joint_index: HashMap::new(),
        sites: HashMap::new(),
        joints_seen: 0,
    };
    if let Some(w) = child(root, "worldbody") {
        for c in w.children().filter(|c| c.is_element()) {
            match c.tag_name().name() {
                "body" => read_body(&mut cx, &mut bd, c, None),
                "site" => {
                    if let Some(s) = c.attribute("name") {
                        let p = cx.v3(c, "pos", [0.0; 3]);
                        bd.sites.insert(s.to_string(), (None, p));
                    }
                }
                "joint" | "freejoint" => cx.errors.at(
                    c,
                    "a joint directly in <worldbody> moves nothing: put it in a <body>",
                ),
                "frame" | "replicate" | "composite" | "flexcomp" | "attach" => {
                    cx.errors.at(c, format!("{} is not supported", tag(c)))
                }
                _ => {}
            }
        }
    }
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
                            node.tag_name().name(),
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
        for c in eq.children().filter(|c| c.is_element()) {
            if c.attribute("active") == Some("false") {
                continue;
            }
            let t = c.tag_name().name();
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
                        match (look(&mut cx, s1), look(&mut cx, s2)) {
                            (Some((b1, p1)), Some((b2, p2))) => (b1, b2, p1, Some(p2)),
                            _ => continue,
                        }
                    } else {
                        if c.attribute("body1").is_none() {
                            cx.errors.at(c, format!("connect {name}: give `body1` (and `body2`, default the world) or `site1` and `site2`"));
                            continue;
                        }
                        let (Ok(b1), Ok(b2)) = (
                            body_ref(&mut cx, &bd, c, "body1"),
                            body_ref(&mut cx, &bd, c, "body2"),
                        ) else {
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
                    let (Ok(b1), Ok(b2)) = (
                        body_ref(&mut cx, &bd, c, "body1"),
                        body_ref(&mut cx, &bd, c, "body2"),
                    ) else {
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
                other => cx.errors.at(
                    c,
                    format!("<equality><{other}> is not supported (supported: connect, weld)"),
                ),
            }
        }
    }
    for act in root.children().filter(|c| c.has_tag_name("actuator")) {
        for c in act.children().filter(|c| c.is_element()) {
            let t = c.tag_name().name();
            if t != "motor" {
                cx.errors.at(
                    c,
                    format!("<actuator><{t}> is not supported (supported: motor)"),
                );
                continue;
            }
            let k = bd.mech.actuators.len();
            let name = c
                .attribute("name")
                .map_or_else(|| format!("actuator{k}"), str::to_string);
            let Some(jn) = c.attribute("joint") else {
                cx.errors.at(
                    c,
                    format!("motor `{name}`: only motors on a `joint` are supported"),
                );
                continue;
            };
            let Some(&jp) = bd.joint_index.get(jn) else {
                cx.errors.at(
                    c,
                    format!("motor `{name}`: the joint `{jn}` does not exist"),
                );
                continue;
            };
            let kind = bd.mech.bodies[jp.0].joints[jp.1].kind;
            if !matches!(kind, JointKind::Hinge | JointKind::Slide) {
                cx.errors.at(
                    c,
                    format!("motor `{name}`: only hinge and slide joints can be driven"),
                );
                continue;
            }
            let gear = cx
                .nums(c, "gear", 0)
                .and_then(|g| g.first().copied())
                .unwrap_or(1.0);
            let ctrlrange = cx.nums(c, "ctrlrange", 2).map(|r| (r[0], r[1]));
            bd.mech.actuators.push(Actuator {
                name,
                joint: jp,
                gear,
                ctrlrange,
                forcerange: None,
                gain: 1.0,
                bias: [0.0; 3],
            });
        }
    }
    let _: &[Body] = &bd.mech.bodies;
    if cx.errors.list.is_empty() {
        Ok(bd.mech)
    } else {
        Err(cx.errors)
    }
}
