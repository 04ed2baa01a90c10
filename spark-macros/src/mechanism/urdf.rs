//! URDF → [`Mechanism`].
//!
//! Read: `<link>` with `<inertial>` (`<origin xyz rpy>`, `<mass value>`, `<inertia ixx ixy ixz
//! iyy iyz izz>`); `<joint>` of type `revolute`, `continuous` (a hinge, its coordinate the
//! angle), `prismatic` (a slide), `fixed` and `floating` (a position and a unit quaternion,
//! w first, after the joint's origin), with `<parent>`, `<child>`, `<origin xyz rpy>`, `<axis
//! xyz>` (normalized), `<dynamics damping>` (viscous joint damping), `<limit lower upper effort
//! velocity>` (exposed, not enforced) and `<mimic joint multiplier offset>` (a holonomic
//! constraint). The root link is fixed to the world.
//!
//! Ignored (they do not change the dynamics): `<visual>`, `<collision>`, `<material>`,
//! `<transmission>`, `<gazebo>`, `<calibration>`, `<safety_controller>`, unknown elements and
//! attributes. Errors: a `planar` joint, a non-zero `friction`, a link with two parents, a
//! link not connected to the root, a joint naming an unknown link.

use std::collections::HashMap;

use roxmltree::Node;

use super::tree::{self, Body, Joint, JointKind, Mechanism, Mimic, M3, V3};
use super::xml::{child, document, line, number, numbers, unit_axis, vec3, Errors};

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
    kind: Option<JointKind>,
    parent: String,
    child: String,
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
    if let Some(inertial) = child(node, "inertial") {
        let (com, rot) = origin(inertial, errors);
        out.com = com;
        if let Some(m) = child(inertial, "mass") {
            out.mass = number(m, "value", 0.0, errors);
        }
        if let Some(i) = child(inertial, "inertia") {
            let g = |k: &str, e: &mut Errors| number(i, k, 0.0, e);
            let (xx, xy, xz) = (g("ixx", errors), g("ixy", errors), g("ixz", errors));
            let (yy, yz, zz) = (g("iyy", errors), g("iyz", errors), g("izz", errors));
            let local = [[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]];
            out.inertia = tree::rotate_inertia(&rot, &local);
        }
        if out.mass < 0.0 {
            errors.at(inertial, format!("link `{}`: negative mass", out.name));
        }
    }
    out
}

/// Reads a URDF document.
pub fn read(text: &str) -> Result<Mechanism, Errors> {
    let doc = document(text, "robot", "a URDF")?;
    let robot = doc.root_element();
    let mut errors = Errors::default();
    let mut links: Vec<Link> = Vec::new();
    let mut link_index: HashMap<String, usize> = HashMap::new();
    let mut joints: Vec<UJoint> = Vec::new();
    for node in robot.children().filter(|n| n.is_element()) {
        match node.tag_name().name() {
            "link" => {
                let l = link(node, &mut errors);
                if link_index.insert(l.name.clone(), links.len()).is_some() {
                    errors.at(node, format!("link `{}` is defined twice", l.name));
                }
                links.push(l);
            }
            "joint" => {
                let name = node.attribute("name").unwrap_or("").to_string();
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
                let of = |k: &str| {
                    child(node, k)
                        .and_then(|c| c.attribute("link"))
                        .unwrap_or("")
                        .to_string()
                };
                joints.push(UJoint {
                    node,
                    name,
                    kind,
                    parent: of("parent"),
                    child: of("child"),
                });
            }
            _ => {}
        }
    }
    if links.is_empty() {
        errors.at(robot, "the robot has no <link>");
        return Err(errors);
    }
    // The tree: each link's joint from its parent.
    let mut parent_joint: Vec<Option<usize>> = vec![None; links.len()];
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); links.len()];
    for (ji, j) in joints.iter().enumerate() {
        let p = link_index.get(&j.parent).copied();
        let c = link_index.get(&j.child).copied();
        for (what, name, idx) in [("parent", &j.parent, p), ("child", &j.child, c)] {
            if idx.is_none() {
                errors.at(
                    j.node,
                    format!(
                        "joint `{}`: its {what} link `{name}` is not defined",
                        j.name
                    ),
                );
            }
        }
        if let (Some(p), Some(c)) = (p, c) {
            if parent_joint[c].is_some() {
                errors.at(
                    j.node,
                    format!(
                        "link `{}` has two parent joints: a URDF is a tree \
                         (close loops with a model from MJCF)",
                        j.child
                    ),
                );
                continue;
            }
            parent_joint[c] = Some(ji);
            children[p].push(c);
        }
    }
    let roots: Vec<usize> = (0..links.len())
        .filter(|&l| parent_joint[l].is_none())
        .collect();
    if roots.len() > 1 {
        for &r in &roots[1..] {
            errors.at_line(
                links[r].line,
                format!(
                    "link `{}` is not connected to the root link `{}`: it would float unattached",
                    links[r].name, links[roots[0]].name
                ),
            );
        }
    }
    if roots.is_empty() {
        errors.at(robot, "the links form a cycle: a URDF has one root link");
    }
    if !errors.list.is_empty() {
        return Err(errors);
    }
    // Breadth first from the root: parents before children.
    let mut order = vec![roots[0]];
    let mut k = 0;
    while k < order.len() {
        order.extend(children[order[k]].iter().copied());
        k += 1;
    }
    let mut body_of: HashMap<usize, usize> = HashMap::new();
    let mut mech = Mechanism {
        bodies: Vec::new(),
        closures: Vec::new(),
        mimics: Vec::new(),
        actuators: Vec::new(),
        tendons: Vec::new(),
        gravity: [0.0, 0.0, -9.81],
    };
    let mut joint_pos: HashMap<String, (usize, usize)> = HashMap::new();
    let mut mimic_nodes = Vec::new();
    for &l in &order {
        let link = &links[l];
        let b = mech.bodies.len();
        body_of.insert(l, b);
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
        if let Some(ji) = parent_joint[l] {
            let j = &joints[ji];
            let node = j.node;
            body.parent = Some(body_of[&link_index[&j.parent]]);
            let (pos, rot) = origin(node, &mut errors);
            body.pos = pos;
            body.rot = rot;
            if let Some(kind) = j.kind {
                let mut joint = Joint::new(j.name.clone(), line(node), kind);
                joint.axis = match child(node, "axis") {
                    Some(a) => unit_axis(a, "xyz", [1.0, 0.0, 0.0], &mut errors),
                    None => [1.0, 0.0, 0.0],
                };
                if let Some(d) = child(node, "dynamics") {
                    joint.damping = number(d, "damping", 0.0, &mut errors);
                    let friction = number(d, "friction", 0.0, &mut errors);
                    if friction != 0.0 {
                        errors.at(
                            d,
                            format!(
                                "joint `{}`: Coulomb friction ({friction}) is not smooth and \
                                 is not supported; set it to 0 (damping is supported)",
                                j.name
                            ),
                        );
                    }
                    if joint.damping < 0.0 {
                        errors.at(d, format!("joint `{}`: negative damping", j.name));
                    }
                }
                if let Some(lim) = child(node, "limit") {
                    let lo = numbers(lim, "lower", 1, &mut errors).map(|v| v[0]);
                    let hi = numbers(lim, "upper", 1, &mut errors).map(|v| v[0]);
                    if node.attribute("type") != Some("continuous") {
                        joint.range = Some((lo.unwrap_or(0.0), hi.unwrap_or(0.0)));
                    }
                    joint.effort = numbers(lim, "effort", 1, &mut errors).map(|v| v[0]);
                    joint.velocity = numbers(lim, "velocity", 1, &mut errors).map(|v| v[0]);
                }
                if let Some(m) = child(node, "mimic") {
                    mimic_nodes.push((m, j.name.clone(), (b, 0)));
                }
                joint_pos.insert(j.name.clone(), (b, 0));
                body.joints.push(joint);
            } else if child(node, "mimic").is_some() {
                errors.at(
                    node,
                    format!("joint `{}`: only a moving joint can mimic", j.name),
                );
            }
        }
        mech.bodies.push(body);
    }
    for (m, name, pos) in mimic_nodes {
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
        Ok(mech)
    } else {
        Err(errors)
    }
}
