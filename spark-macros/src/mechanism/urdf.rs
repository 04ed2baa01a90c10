//! URDF → [`Mechanism`].
//!
//! Read: `<link>` with `<inertial>` (`<origin xyz rpy>`, `<mass value>`, `<inertia ixx ixy ixz
//! iyy iyz izz>`); `<joint>` of type `revolute`, `continuous` (a hinge, its coordinate the
//! angle), `prismatic` (a slide), `fixed` and `floating` (a position and a unit quaternion,
//! w first, after the joint's origin), with `<parent>`, `<child>`, `<origin xyz rpy>`, `<axis
//! xyz>` (normalized), `<dynamics damping friction>` (viscous damping; dry friction, read into
//! [`tree::Joint::frictionloss`]), `<limit lower upper effort velocity>` (exposed, not
//! enforced) and `<mimic joint multiplier offset>` (a holonomic constraint; on a fixed joint a
//! no-op). The root link is fixed to the world, or moves freely with
//! [`Options::floating_base`] (a free joint named `root_joint`, Pinocchio's
//! `JointModelFreeFlyer`).
//!
//! Order: the bodies, and so the coordinates, are the links depth first from the root, the
//! children of each link in the byte order of their joints' names: the order of Pinocchio's
//! `buildModel` (urdfdom keeps a link's child joints in a map sorted by name), so that spark's
//! coordinates are Pinocchio's `model.names[1..]`, each parent before its children.
//!
//! Ignored (they do not change the dynamics): `<visual>`, `<collision>` (their `package://`
//! and relative mesh paths are never opened: mass and inertia come from `<inertial>` alone),
//! `<material>`, `<transmission>`, `<gazebo>`, `<calibration>`, `<safety_controller>`, unknown
//! elements and attributes.
//!
//! Refused, each with its line and once (no error follows from another): a `planar` or
//! unknown joint type; a `xacro:` element (run `xacro` first); a link or joint without a name
//! or defined twice; a joint naming an unknown link, or the same link as parent and child; a
//! link with two parent joints; cycles of links; links not reachable from the root and more
//! than one root; a negative mass, a zero mass with a non-zero inertia, an inertia that is not
//! positive semi-definite or whose principal moments violate the triangle inequality, an
//! `<inertial>` without `<mass>` or `<inertia>`; non-finite numbers; `<limit lower upper>`
//! reversed; negative damping or friction; a joint mimicking itself, mimic cycles, mimicking a
//! joint that is not a moving one. Every pass is a loop over the file's elements or an
//! explicit stack: nothing recurses on the depth of the XML or of the tree.

use std::collections::HashMap;

use roxmltree::Node;

use super::tree::{self, Body, Joint, JointKind, Mechanism, Mimic, M3, V3};
use super::xml::{child, document, line, number, numbers, unit_axis, vec3, Errors};

/// How a URDF is read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// Give the root link a free joint named [`ROOT_JOINT`] (`floating_base: true`).
    pub floating_base: bool,
}

/// The name of the free joint [`Options::floating_base`] adds (Pinocchio's name for it).
pub const ROOT_JOINT: &str = "root_joint";

/// A URDF read: the mechanism, and what the conversions to Pinocchio's coordinates need.
pub struct Robot {
    /// The bodies and joints.
    pub mechanism: Mechanism,
    /// The names of the `continuous` joints: Pinocchio gives each two coordinates
    /// (`cos θ, sin θ`), spark one.
    pub continuous: Vec<String>,
}

/// The message of a xacro file.
pub const XACRO: &str = "this is a xacro file, not a URDF: run `xacro` first: \
                         `xacro robot.urdf.xacro > robot.urdf`, and give the output";

fn origin(node: Node, errors: &mut Errors) -> (V3, M3) {
    match child(node, "origin") {
        Some(o) => (
            vec3(o, "xyz", [0.0; 3], errors),
            tree::rpy(vec3(o, "rpy", [0.0; 3], errors)),
        ),
        None => ([0.0; 3], tree::IDENTITY),
    }
}

struct Link {
    name: String,
    line: u32,
    mass: f64,
    com: V3,
    inertia: M3,
}

struct UJoint<'a, 'i> {
    node: Node<'a, 'i>,
    name: String,
    /// `None`: fixed (or a type already reported).
    kind: Option<JointKind>,
    parent: Option<usize>,
    child: Option<usize>,
}

/// The eigenvalues of a symmetric 3×3 matrix, ascending (closed form).
fn eigenvalues(a: &M3) -> [f64; 3] {
    let p1 = a[0][1].powi(2) + a[0][2].powi(2) + a[1][2].powi(2);
    let mut e = if p1 == 0.0 {
        [a[0][0], a[1][1], a[2][2]]
    } else {
        let q = (a[0][0] + a[1][1] + a[2][2]) / 3.0;
        let p2 = (a[0][0] - q).powi(2) + (a[1][1] - q).powi(2) + (a[2][2] - q).powi(2) + 2.0 * p1;
        let p = (p2 / 6.0).sqrt();
        let b = |i: usize, j: usize| (a[i][j] - if i == j { q } else { 0.0 }) / p;
        let det = b(0, 0) * (b(1, 1) * b(2, 2) - b(1, 2) * b(2, 1))
            - b(0, 1) * (b(1, 0) * b(2, 2) - b(1, 2) * b(2, 0))
            + b(0, 2) * (b(1, 0) * b(2, 1) - b(1, 1) * b(2, 0));
        let phi = (det / 2.0).clamp(-1.0, 1.0).acos() / 3.0;
        let e1 = q + 2.0 * p * phi.cos();
        let e3 = q + 2.0 * p * (phi + 2.0 * std::f64::consts::PI / 3.0).cos();
        [e1, 3.0 * q - e1 - e3, e3]
    };
    e.sort_by(f64::total_cmp);
    e
}

/// Checks an inertia tensor (about the centre of mass): positive semi-definite, and its
/// principal moments `A ≤ B ≤ C` satisfy `A + B ≥ C` (relative tolerance 1e-6: the digits
/// exporters print). `None` when it is a physical inertia.
fn inertia_problem(i: &M3) -> Option<String> {
    let e = eigenvalues(i);
    let scale = e.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    if scale == 0.0 {
        return None;
    }
    if e[0] < -1e-12 * scale {
        return Some(format!(
            "is not positive semi-definite (principal moments {}, {}, {})",
            e[0], e[1], e[2]
        ));
    }
    if e[0] + e[1] < e[2] - 1e-6 * scale {
        return Some(format!(
            "violates the triangle inequality: its principal moments {}, {}, {} have {} + {} < {}, \
             which no distribution of mass gives",
            e[0], e[1], e[2], e[0], e[1], e[2]
        ));
    }
    None
}

fn link(node: Node, errors: &mut Errors) -> Link {
    let name = node.attribute("name").unwrap_or("").to_string();
    let mut out = Link {
        name,
        line: line(node),
        mass: 0.0,
        com: [0.0; 3],
        inertia: [[0.0; 3]; 3],
    };
    let Some(inertial) = child(node, "inertial") else {
        return out;
    };
    let (com, rot) = origin(inertial, errors);
    out.com = com;
    let before = errors.list.len();
    match child(inertial, "mass") {
        Some(m) => match numbers(m, "value", 1, errors) {
            Some(v) => out.mass = v[0],
            None if errors.list.len() == before => {
                errors.at(m, format!("link `{}`: <mass> needs its `value`", out.name))
            }
            None => {}
        },
        None => errors.at(
            inertial,
            format!("link `{}`: its <inertial> has no <mass>", out.name),
        ),
    }
    let mut local = [[0.0; 3]; 3];
    match child(inertial, "inertia") {
        Some(i) => {
            let g = |k: &str, e: &mut Errors| number(i, k, 0.0, e);
            let (xx, xy, xz) = (g("ixx", errors), g("ixy", errors), g("ixz", errors));
            let (yy, yz, zz) = (g("iyy", errors), g("iyz", errors), g("izz", errors));
            local = [[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]];
            out.inertia = tree::rotate_inertia(&rot, &local);
        }
        None => errors.at(
            inertial,
            format!("link `{}`: its <inertial> has no <inertia>", out.name),
        ),
    }
    if errors.list.len() > before {
        return out;
    }
    let at = child(inertial, "inertia").unwrap_or(inertial);
    if out.mass < 0.0 {
        errors.at(
            child(inertial, "mass").unwrap_or(inertial),
            format!("link `{}`: negative mass {}", out.name, out.mass),
        );
    } else if let Some(p) = inertia_problem(&local) {
        errors.at(at, format!("link `{}`: the inertia {p}", out.name));
    } else if out.mass == 0.0 && local.iter().flatten().any(|x| *x != 0.0) {
        errors.at(
            at,
            format!(
                "link `{}`: zero mass with a non-zero inertia, which no body has; give its \
                 mass, or zero inertia for a massless link",
                out.name
            ),
        );
    }
    out
}

/// The cycles of a graph in which every node has at most one successor, each once, as lists of
/// nodes (in the order of the successors, starting from the cycle's smallest node). Iterative.
fn cycles(next: &[Option<usize>]) -> Vec<Vec<usize>> {
    let n = next.len();
    // 0: unvisited; otherwise the walk that visited it (1-based).
    let mut walk = vec![0usize; n];
    let mut out = Vec::new();
    for start in 0..n {
        if walk[start] != 0 {
            continue;
        }
        let id = start + 1;
        let mut k = start;
        loop {
            if walk[k] != 0 {
                if walk[k] == id {
                    let mut cycle = vec![k];
                    let mut m = next[k].expect("on a cycle");
                    while m != k {
                        cycle.push(m);
                        m = next[m].expect("on a cycle");
                    }
                    let lo = (0..cycle.len()).min_by_key(|&i| cycle[i]).unwrap_or(0);
                    cycle.rotate_left(lo);
                    out.push(cycle);
                }
                break;
            }
            walk[k] = id;
            match next[k] {
                Some(m) => k = m,
                None => break,
            }
        }
    }
    out
}

fn quoted(names: &[&str]) -> String {
    let q: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    match q.len() {
        0 => String::new(),
        1 => q[0].clone(),
        _ => format!("{} and {}", q[..q.len() - 1].join(", "), q[q.len() - 1]),
    }
}

/// Reads a URDF document with the root link fixed to the world.
#[cfg_attr(not(test), allow(dead_code))]
pub fn read(text: &str) -> Result<Mechanism, Errors> {
    read_robot(text, Options::default()).map(|r| r.mechanism)
}

/// Reads a URDF document.
pub fn read_robot(text: &str, options: Options) -> Result<Robot, Errors> {
    let scan = super::xml_depth::scan(text);
    if let Some(l) = scan.xacro {
        let mut errors = Errors::default();
        errors.at_line(l, XACRO);
        return Err(errors);
    }
    if let Err((l, msg)) = scan.depth {
        let mut errors = Errors::default();
        errors.at_line(l, msg);
        return Err(errors);
    }
    let doc = document(text, "robot", "a URDF")?;
    let robot = doc.root_element();
    let mut errors = Errors::default();
    let mut links: Vec<Link> = Vec::new();
    let mut link_index: HashMap<String, usize> = HashMap::new();
    let mut joint_nodes: Vec<Node> = Vec::new();
    for node in robot.children().filter(|n| n.is_element()) {
        match node.tag_name().name() {
            "link" => {
                let l = link(node, &mut errors);
                if l.name.is_empty() {
                    errors.at(node, "a <link> without a `name`");
                    continue;
                }
                if let Some(&first) = link_index.get(&l.name) {
                    errors.at(
                        node,
                        format!(
                            "link `{}` is defined twice (first on line {})",
                            l.name, links[first].line
                        ),
                    );
                    continue;
                }
                link_index.insert(l.name.clone(), links.len());
                links.push(l);
            }
            "joint" => joint_nodes.push(node),
            _ => {}
        }
    }
    if links.is_empty() {
        errors.at(robot, "the robot has no <link>");
        return Err(errors);
    }
    // The joints: names, types, links.
    let mut joints: Vec<UJoint> = Vec::new();
    // Links named as a child by some joint, even one with an error: never reported as roots.
    let mut claimed = vec![false; links.len()];
    let mut joint_line: HashMap<String, u32> = HashMap::new();
    if options.floating_base {
        joint_line.insert(ROOT_JOINT.into(), 0);
    }
    for node in joint_nodes {
        let name = node.attribute("name").unwrap_or("").to_string();
        if name.is_empty() {
            errors.at(node, "a <joint> without a `name`");
            continue;
        }
        if let Some(&first) = joint_line.get(&name) {
            let msg = if first == 0 {
                format!(
                    "joint `{name}`: `floating_base: true` adds a free joint of this name to \
                     the root link; rename this joint"
                )
            } else {
                format!("joint `{name}` is defined twice (first on line {first})")
            };
            errors.at(node, msg);
            // Its child is not a second root.
            let c = child(node, "child").and_then(|c| c.attribute("link"));
            if let Some(&c) = c.and_then(|c| link_index.get(c)) {
                claimed[c] = true;
            }
            continue;
        }
        joint_line.insert(name.clone(), line(node));
        let kind = match node.attribute("type").unwrap_or("") {
            "revolute" | "continuous" => Some(JointKind::Hinge),
            "prismatic" => Some(JointKind::Slide),
            "fixed" => None,
            "floating" => Some(JointKind::Free { absolute: false }),
            other => {
                errors.at(
                    node,
                    format!(
                        "joint `{name}`: type `{other}` is not supported \
                         (supported: revolute, continuous, prismatic, fixed, floating)"
                    ),
                );
                None
            }
        };
        let mut end = |k: &str| -> Option<usize> {
            let Some(c) = child(node, k) else {
                errors.at(node, format!("joint `{name}` has no <{k}>"));
                return None;
            };
            let l = c.attribute("link").unwrap_or("");
            let found = link_index.get(l).copied();
            if found.is_none() {
                errors.at(
                    c,
                    format!("joint `{name}`: its {k} link `{l}` is not defined"),
                );
            }
            found
        };
        let (parent, child_link) = (end("parent"), end("child"));
        if let Some(c) = child_link {
            claimed[c] = true;
        }
        if let (Some(p), Some(c)) = (parent, child_link) {
            if p == c {
                errors.at(
                    node,
                    format!(
                        "joint `{name}`: link `{}` is its own parent: a joint connects two links",
                        links[p].name
                    ),
                );
                continue;
            }
        }
        joints.push(UJoint {
            node,
            name,
            kind,
            parent,
            child: child_link,
        });
    }
    // The tree: each link's joint from its parent.
    let mut parent_joint: Vec<Option<usize>> = vec![None; links.len()];
    for (ji, j) in joints.iter().enumerate() {
        let (Some(_), Some(c)) = (j.parent, j.child) else {
            continue;
        };
        if let Some(first) = parent_joint[c] {
            errors.at(
                j.node,
                format!(
                    "link `{}` has two parent joints, `{}` and `{}`: a URDF is a tree \
                     (close loops with a model from MJCF)",
                    links[c].name, joints[first].name, j.name
                ),
            );
            continue;
        }
        parent_joint[c] = Some(ji);
    }
    let parent_link: Vec<Option<usize>> = parent_joint
        .iter()
        .map(|pj| pj.and_then(|j| joints[j].parent))
        .collect();
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); links.len()];
    for (c, pj) in parent_joint.iter().enumerate() {
        if let Some(j) = *pj {
            children[joints[j].parent.expect("kept with both links")].push(c);
        }
    }
    // Cycles of links (their links have parents, so none of them is a root).
    let loops = cycles(&parent_link);
    for cycle in &loops {
        // From parent to child, starting at the smallest link.
        let mut cycle = cycle.clone();
        cycle.reverse();
        let lo = (0..cycle.len()).min_by_key(|&i| cycle[i]).unwrap_or(0);
        cycle.rotate_left(lo);
        let names: Vec<&str> = cycle.iter().map(|&l| links[l].name.as_str()).collect();
        // The joint from each link to the next.
        let js: Vec<&str> = (0..cycle.len())
            .map(|i| {
                let next = cycle[(i + 1) % cycle.len()];
                joints[parent_joint[next].expect("on a cycle")]
                    .name
                    .as_str()
            })
            .collect();
        let first = cycle
            .iter()
            .map(|&l| line(joints[parent_joint[l].expect("on a cycle")].node))
            .min()
            .unwrap_or(1);
        errors.at_line(
            first,
            format!(
                "the links {} form a cycle through the joints {}: a URDF is a tree (close \
                 loops with a model from MJCF)",
                quoted(&names),
                quoted(&js)
            ),
        );
    }
    let roots: Vec<usize> = (0..links.len()).filter(|&l| !claimed[l]).collect();
    let mut root = None;
    if roots.is_empty() {
        if loops.is_empty() && errors.list.is_empty() {
            errors.at(robot, "the robot has no root link");
        }
    } else {
        // The root: the one with children (the first in the file when several, or none, have).
        let trees: Vec<usize> = roots
            .iter()
            .copied()
            .filter(|&r| !children[r].is_empty())
            .collect();
        let main = trees.first().copied().unwrap_or(roots[0]);
        root = Some(main);
        if trees.len() > 1 {
            let names: Vec<&str> = trees.iter().map(|&r| links[r].name.as_str()).collect();
            errors.at_line(
                links[trees[1]].line,
                format!(
                    "the robot has more than one root link: {} are no joint's child; a URDF \
                     has one root, connect the others to it with a joint",
                    quoted(&names)
                ),
            );
        }
        for &r in &roots {
            if r != main && children[r].is_empty() {
                errors.at_line(
                    links[r].line,
                    format!(
                        "link `{}` is not connected to the root link `{}`: it would float \
                         unattached",
                        links[r].name, links[main].name
                    ),
                );
            }
        }
    }
    if !errors.list.is_empty() {
        return Err(errors);
    }
    let root = root.expect("a root when there is no error");
    // Depth first from the root, the children in the byte order of their joints' names.
    for c in &mut children {
        c.sort_by(|a, b| {
            let name = |l: &usize| joints[parent_joint[*l].expect("a child")].name.as_bytes();
            name(a).cmp(name(b))
        });
    }
    let mut order = Vec::with_capacity(links.len());
    let mut stack = vec![root];
    while let Some(l) = stack.pop() {
        order.push(l);
        stack.extend(children[l].iter().rev().copied());
    }
    let mut body_of: Vec<usize> = vec![usize::MAX; links.len()];
    let mut mech = Mechanism {
        bodies: Vec::new(),
        closures: Vec::new(),
        mimics: Vec::new(),
        actuators: Vec::new(),
        tendons: Vec::new(),
        gravity: [0.0, 0.0, -9.81],
        medium: None,
    };
    let mut continuous = Vec::new();
    let mut joint_pos: HashMap<String, (usize, usize)> = HashMap::new();
    // (the <mimic> element, the joint's name, its position, its line)
    let mut mimic_nodes: Vec<(Node, String, (usize, usize))> = Vec::new();
    for &l in &order {
        let link = &links[l];
        let b = mech.bodies.len();
        body_of[l] = b;
        let mut body = Body {
            name: link.name.clone(),
            parent: None,
            pos: [0.0; 3],
            rot: tree::IDENTITY,
            joints: Vec::new(),
            mass: link.mass,
            com: link.com,
            inertia: link.inertia,
            gravcomp: 0.0,
        };
        if l == root && options.floating_base {
            body.joints.push(Joint::new(
                ROOT_JOINT.into(),
                link.line,
                JointKind::Free { absolute: false },
            ));
            joint_pos.insert(ROOT_JOINT.into(), (b, 0));
        }
        if let Some(ji) = parent_joint[l] {
            let j = &joints[ji];
            let node = j.node;
            body.parent = Some(body_of[j.parent.expect("kept with both links")]);
            let (pos, rot) = origin(node, &mut errors);
            body.pos = pos;
            body.rot = rot;
            let mimic = child(node, "mimic");
            if let Some(kind) = j.kind {
                let mut joint = Joint::new(j.name.clone(), line(node), kind);
                joint.axis = match child(node, "axis") {
                    Some(a) => unit_axis(a, "xyz", [1.0, 0.0, 0.0], &mut errors),
                    None => [1.0, 0.0, 0.0],
                };
                if let Some(d) = child(node, "dynamics") {
                    joint.damping = number(d, "damping", 0.0, &mut errors);
                    joint.frictionloss = number(d, "friction", 0.0, &mut errors);
                    for (what, x) in [("damping", joint.damping), ("friction", joint.frictionloss)]
                    {
                        if x < 0.0 {
                            errors.at(d, format!("joint `{}`: negative {what} {x}", j.name));
                        }
                    }
                }
                let is_continuous = node.attribute("type") == Some("continuous");
                if is_continuous {
                    continuous.push(j.name.clone());
                }
                if let Some(lim) = child(node, "limit") {
                    let lo = numbers(lim, "lower", 1, &mut errors).map(|v| v[0]);
                    let hi = numbers(lim, "upper", 1, &mut errors).map(|v| v[0]);
                    if !is_continuous && kind != (JointKind::Free { absolute: false }) {
                        let (lo, hi) = (lo.unwrap_or(0.0), hi.unwrap_or(0.0));
                        if lo > hi {
                            errors.at(
                                lim,
                                format!(
                                    "joint `{}`: its <limit> is reversed: lower {lo} is above \
                                     upper {hi}",
                                    j.name
                                ),
                            );
                        }
                        joint.range = Some((lo, hi));
                    }
                    joint.effort = numbers(lim, "effort", 1, &mut errors).map(|v| v[0]);
                    joint.velocity = numbers(lim, "velocity", 1, &mut errors).map(|v| v[0]);
                }
                if let Some(m) = mimic {
                    if matches!(kind, JointKind::Free { .. }) {
                        errors.at(
                            m,
                            format!(
                                "joint `{}`: a floating joint cannot mimic (only a revolute, \
                                 continuous or prismatic joint can)",
                                j.name
                            ),
                        );
                    } else {
                        mimic_nodes.push((m, j.name.clone(), (b, body.joints.len())));
                    }
                }
                joint_pos.insert(j.name.clone(), (b, body.joints.len()));
                body.joints.push(joint);
            }
            // A <mimic> on a fixed joint: nothing moves, so nothing to follow.
        }
        mech.bodies.push(body);
    }
    // Mimic joints: the leader of each, self-mimicry and cycles refused.
    let index: HashMap<&str, usize> = mimic_nodes
        .iter()
        .enumerate()
        .map(|(i, m)| (m.1.as_str(), i))
        .collect();
    let mut leader: Vec<Option<usize>> = vec![None; mimic_nodes.len()];
    let mut bad = vec![false; mimic_nodes.len()];
    for (i, (m, name, _)) in mimic_nodes.iter().enumerate() {
        let l = m.attribute("joint").unwrap_or("");
        if l == name {
            errors.at(*m, format!("joint `{name}` mimics itself"));
            bad[i] = true;
        } else {
            leader[i] = index.get(l).copied();
        }
    }
    for cycle in cycles(&leader) {
        let names: Vec<&str> = cycle.iter().map(|&i| mimic_nodes[i].1.as_str()).collect();
        let mut path: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
        path.push(format!("`{}`", names[0]));
        let first = cycle
            .iter()
            .map(|&i| line(mimic_nodes[i].0))
            .min()
            .unwrap_or(1);
        errors.at_line(
            first,
            format!(
                "the joints {} mimic each other in a cycle ({}): one of them must move on its own",
                quoted(&names),
                path.join(" mimics ")
            ),
        );
        for i in cycle {
            bad[i] = true;
        }
    }
    for (i, (m, name, pos)) in mimic_nodes.into_iter().enumerate() {
        if bad[i] {
            continue;
        }
        let leader = m.attribute("joint").unwrap_or("");
        match joint_pos.get(leader) {
            Some(&lp) => {
                let k = mech.bodies[lp.0].joints[lp.1].kind;
                if !matches!(k, JointKind::Hinge | JointKind::Slide) {
                    errors.at(
                        m,
                        format!("joint `{name}` mimics `{leader}`, which has no single coordinate"),
                    );
                }
                mech.mimics.push(Mimic {
                    name: name.clone(),
                    line: line(m),
                    joint: pos,
                    leader: lp,
                    multiplier: number(m, "multiplier", 1.0, &mut errors),
                    offset: number(m, "offset", 0.0, &mut errors),
                })
            }
            None => errors.at(
                m,
                format!(
                    "joint `{name}` mimics `{leader}`, which is not a moving joint of this robot"
                ),
            ),
        }
    }
    if errors.list.is_empty() {
        Ok(Robot {
            mechanism: mech,
            continuous,
        })
    } else {
        Err(errors)
    }
}

/// What a URDF with errors would give, counted from its elements alone: for the stub of its
/// model, so that code using the model adds no errors of its own.
pub struct Estimate {
    /// Coordinates.
    pub n: usize,
    /// Holonomic rows (quaternion norms, mimic joints).
    pub m: usize,
    /// The links' names, in file order.
    pub links: Vec<String>,
    /// The moving joints, in file order: name, and `continuous` / the joint kind.
    pub joints: Vec<(String, Option<JointKind>, bool)>,
}

/// See [`Estimate`]; `None` when the file is not even XML, or nests too deep to parse.
pub fn estimate(text: &str, options: Options) -> Option<Estimate> {
    if super::xml_depth::scan(text).depth.is_err() {
        return None;
    }
    let doc = roxmltree::Document::parse(text).ok()?;
    let mut e = Estimate {
        n: 0,
        m: 0,
        links: Vec::new(),
        joints: Vec::new(),
    };
    if options.floating_base {
        e.n += 7;
        e.m += 1;
        e.joints.push((
            ROOT_JOINT.into(),
            Some(JointKind::Free { absolute: false }),
            false,
        ));
    }
    for node in doc.root_element().children().filter(|c| c.is_element()) {
        let name = node.attribute("name").unwrap_or("").to_string();
        match node.tag_name().name() {
            "link" => e.links.push(name),
            "joint" => {
                let ty = node.attribute("type").unwrap_or("");
                let kind = match ty {
                    "revolute" | "continuous" => JointKind::Hinge,
                    "prismatic" => JointKind::Slide,
                    "floating" => JointKind::Free { absolute: false },
                    _ => continue,
                };
                let size = if kind == JointKind::Hinge || kind == JointKind::Slide {
                    1
                } else {
                    e.m += 1;
                    7
                };
                e.n += size;
                if size == 1 && child(node, "mimic").is_some() {
                    e.m += 1;
                }
                e.joints.push((name, Some(kind), ty == "continuous"));
            }
            _ => {}
        }
    }
    Some(e)
}

#[cfg(test)]
#[path = "urdf_tests.rs"]
mod tests;
