//! Unit tests of the file readers, the lowering's checks and the desugaring.

use proc_macro2::Span;
use syn::Ident;

use super::tree::{self, JointKind};
use super::{kinematics, lower, read, Format};

fn ident_list(prefix: &str, n: usize) -> Vec<Ident> {
    (0..n)
        .map(|k| Ident::new(&format!("{prefix}__{k}"), Span::call_site()))
        .collect()
}

/// The messages (with their lines) of reading and lowering `text`, empty when it is fine.
fn problems(format: Format, text: &str) -> Vec<String> {
    let mech = match read(format, text) {
        Ok(m) => m,
        Err(e) => {
            return e
                .list
                .iter()
                .map(|e| format!("{}: {}", e.line, e.msg))
                .collect()
        }
    };
    let n = kinematics::Layout::of(&mech).n;
    let g = ["gx", "gy", "gz"].map(|s| Ident::new(s, Span::call_site()));
    match lower(
        &mech,
        &ident_list("q", n),
        &ident_list("v", n),
        &g,
        Span::call_site(),
    ) {
        Ok(_) => Vec::new(),
        Err(e) => e.iter().map(|e| format!("{}: {}", e.line, e.msg)).collect(),
    }
}

fn ui_model(name: &str) -> String {
    let path = format!(
        "{}/../tests/ui/files/models/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(path).unwrap()
}

fn one_problem(format: Format, name: &str, line: u32, words: &[&str]) {
    let p = problems(format, &ui_model(name));
    assert_eq!(p.len(), 1, "{p:?}");
    assert!(p[0].starts_with(&format!("{line}: ")), "{p:?}");
    for w in words {
        assert!(p[0].contains(w), "`{w}` not in {p:?}");
    }
}

#[test]
fn malformed_xml_reports_its_line() {
    one_problem(Format::Urdf, "malformed.urdf", 6, &["malformed XML"]);
}

#[test]
fn unsupported_element_is_an_error() {
    one_problem(
        Format::Mjcf,
        "tendon.xml",
        10,
        &["<tendon><spatial>", "not supported"],
    );
}

#[test]
fn disconnected_link_is_an_error() {
    one_problem(
        Format::Urdf,
        "disconnected.urdf",
        7,
        &["`stray`", "not connected"],
    );
}

#[test]
fn loop_to_unknown_body_is_an_error() {
    one_problem(
        Format::Mjcf,
        "unknown_body.xml",
        21,
        &["`rockr`", "does not exist"],
    );
}

#[test]
fn dependent_closure_is_an_error() {
    one_problem(
        Format::Mjcf,
        "dependent.xml",
        14,
        &["connect `tip`", "redundant", "singular"],
    );
}

#[test]
fn unassembled_closure_is_an_error() {
    one_problem(
        Format::Mjcf,
        "unassembled.xml",
        21,
        &["connect `loop`", "not assembled", "0.2"],
    );
}

#[test]
fn massless_moving_body_is_an_error() {
    one_problem(
        Format::Urdf,
        "massless.urdf",
        13,
        &["joint `wrist`", "body `tip`", "mass"],
    );
}

#[test]
fn urdf_friction_is_read_as_frictionloss() {
    let urdf = |friction: &str| {
        format!(
            r#"<robot name="r"><link name="a"/>
            <link name="b"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link>
            <joint name="j" type="revolute"><parent link="a"/><child link="b"/>
            <dynamics damping="0.5" friction="{friction}"/></joint></robot>"#
        )
    };
    assert!(problems(Format::Urdf, &urdf("0")).is_empty());
    let m = read(Format::Urdf, &urdf("0.1")).unwrap();
    assert_eq!(m.bodies[1].joints[0].frictionloss, 0.1);
}

#[test]
fn urdf_joint_and_inertial() {
    let text = r#"<robot name="r">
        <link name="base"/>
        <link name="arm"><inertial>
            <origin xyz="0.1 0.2 0.3" rpy="0 0 1.5707963267948966"/>
            <mass value="2"/>
            <inertia ixx="1" ixy="0" ixz="0" iyy="2" iyz="0" izz="3"/>
        </inertial></link>
        <joint name="j 1" type="prismatic">
            <parent link="base"/><child link="arm"/>
            <origin xyz="1 0 0" rpy="0.1 0.2 0.3"/>
            <axis xyz="0 0 -3"/>
            <dynamics damping="0.25"/>
        </joint>
    </robot>"#;
    let m = read(Format::Urdf, text).unwrap();
    assert_eq!(m.bodies.len(), 2);
    let arm = &m.bodies[1];
    assert_eq!(arm.parent, Some(0));
    assert_eq!(arm.pos, [1.0, 0.0, 0.0]);
    let j = &arm.joints[0];
    assert_eq!((j.name.as_str(), j.kind), ("j 1", JointKind::Slide));
    assert_eq!(j.axis, [0.0, 0.0, -1.0]);
    assert_eq!(j.damping, 0.25);
    assert_eq!(arm.mass, 2.0);
    // The inertia rotated by 90° about z swaps the x and y moments.
    assert!((arm.inertia[0][0] - 2.0).abs() < 1e-12 && (arm.inertia[1][1] - 1.0).abs() < 1e-12);
    // rpy is Rz(y) Ry(p) Rx(r).
    let r = tree::rpy([0.1, 0.2, 0.3]);
    let expected = tree::mul(
        &tree::axis_angle([0.0, 0.0, 1.0], 0.3),
        &tree::mul(
            &tree::axis_angle([0.0, 1.0, 0.0], 0.2),
            &tree::axis_angle([1.0, 0.0, 0.0], 0.1),
        ),
    );
    assert_eq!(arm.rot, r);
    assert_eq!(r, expected);
}

#[test]
fn mjcf_angles_default_to_degrees_and_defaults_apply() {
    let text = r#"<mujoco>
        <default><joint damping="0.3"/></default>
        <worldbody><body name="b" euler="0 0 90">
            <joint name="h" ref="30" range="-45 45"/>
            <inertial mass="1" diaginertia="1 1 1"/>
        </body></worldbody></mujoco>"#;
    let m = read(Format::Mjcf, text).unwrap();
    let b = &m.bodies[0];
    assert!((b.rot[1][0] - 1.0).abs() < 1e-15 && b.rot[0][0].abs() < 1e-15);
    let j = &b.joints[0];
    assert!((j.reference - 30f64.to_radians()).abs() < 1e-15);
    assert_eq!(j.range.map(|r| r.1), Some(45f64.to_radians()));
    assert_eq!(j.damping, 0.3);
}

#[test]
fn mjcf_unnamed_joints_and_bodies_get_numbered_names() {
    let text = r#"<mujoco><worldbody>
        <body><joint/><geom size="0.1"/><body><joint type="slide"/><geom size="0.1"/></body></body>
        </worldbody></mujoco>"#;
    let m = read(Format::Mjcf, text).unwrap();
    assert_eq!(m.bodies[0].name, "body1");
    assert_eq!(m.bodies[1].joints[0].name, "joint1");
    // A sphere of radius 0.1 at density 1000.
    let mass = 1000.0 * 4.0 / 3.0 * std::f64::consts::PI * 1e-3;
    assert!((m.bodies[0].mass - mass).abs() < 1e-12);
    assert!((m.bodies[0].inertia[2][2] - 0.4 * mass * 0.01).abs() < 1e-15);
}

#[test]
fn quaternion_round_trip() {
    let q = [0.8, 0.2, -0.1, 0.3];
    let n = q.iter().map(|x: &f64| x * x).sum::<f64>().sqrt();
    let back = tree::matrix_quat(&tree::quat_matrix(q));
    for k in 0..4 {
        assert!((back[k] - q[k] / n).abs() < 1e-15);
    }
}

#[test]
fn planar_closure_drops_its_constant_row() {
    let path = format!(
        "{}/tests/mjcf/loop_closed_twice.xml",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(path).unwrap().replace(
        r#"<connect name="again" body1="rocker" body2="coupler" anchor="0 0 2"/>"#,
        "",
    );
    let mech = read(Format::Mjcf, &text).unwrap();
    let n = kinematics::Layout::of(&mech).n;
    let g = ["gx", "gy", "gz"].map(|s| Ident::new(s, Span::call_site()));
    let low = lower(
        &mech,
        &ident_list("q", n),
        &ident_list("v", n),
        &g,
        Span::call_site(),
    )
    .unwrap();
    assert_eq!(low.holonomic.len(), 2);
    assert_eq!(low.coord_names, ["crank", "coupler", "rocker"]);
}

#[test]
fn identifiers_from_file_names() {
    let s = Span::call_site();
    assert_eq!(super::identifier("elbow-joint", s), "elbow_joint");
    assert_eq!(super::identifier("2nd", s), "u_2nd");
    assert_eq!(super::identifier("type", s), "type_");
}

#[test]
fn urdf_floating_base_and_mimic_joint() {
    let text = r#"<robot name="r">
        <link name="base"><inertial><mass value="3"/><inertia ixx="1" iyy="2" izz="3" ixy="0" ixz="0" iyz="0"/></inertial></link>
        <link name="world"/>
        <link name="f1"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link>
        <link name="f2"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link>
        <joint name="float" type="floating"><parent link="world"/><child link="base"/></joint>
        <joint name="left" type="prismatic"><parent link="base"/><child link="f1"/><axis xyz="0 1 0"/></joint>
        <joint name="right" type="prismatic"><parent link="base"/><child link="f2"/><axis xyz="0 -1 0"/>
            <mimic joint="left" multiplier="2" offset="0.5"/></joint>
    </robot>"#;
    let mech = read(Format::Urdf, text).unwrap();
    let n = kinematics::Layout::of(&mech).n;
    assert_eq!(n, 9);
    let g = ["gx", "gy", "gz"].map(|s| Ident::new(s, Span::call_site()));
    let low = lower(
        &mech,
        &ident_list("q", n),
        &ident_list("v", n),
        &g,
        Span::call_site(),
    )
    .unwrap();
    // The quaternion's norm and the mimic joint.
    assert_eq!(low.holonomic.len(), 2);
    assert_eq!(
        low.coord_names,
        [
            "float.x", "float.y", "float.z", "float.qw", "float.qx", "float.qy", "float.qz",
            "left", "right"
        ]
    );
    assert_eq!(low.reference[..7], [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0]);
    let mimic = low.holonomic[1].to_string();
    assert!(mimic.contains("__mech"), "{mimic}");
}
