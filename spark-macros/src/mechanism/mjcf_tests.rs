//! The MJCF reader against what MuJoCo 4.0 compiles (numbers printed by `mujoco.MjModel`
//! for the files in `spark-macros/tests/mjcf/`), and its bounds on bad input.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::mjcf::{read, read_file};
use super::tree::ClosureKind;
use super::xml::read_model_file;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/mjcf")
        .join(name)
}

fn read_fixture(name: &str) -> super::tree::Mechanism {
    let path = fixture(name);
    let text = read_model_file(&path).unwrap();
    match read_file(&path, &text) {
        Ok(m) => m,
        Err(e) => panic!("{:?}", e.list),
    }
}

fn errors_of(text: &str) -> Vec<String> {
    match read(text) {
        Ok(_) => Vec::new(),
        Err(e) => e
            .list
            .into_iter()
            .map(|e| format!("{}: {}", e.line, e.msg))
            .collect(),
    }
}

#[test]
fn nested_classes_childclass_frames_and_actuator_defaults_as_mujoco() {
    // MuJoCo: dof_damping [2 3], dof_armature [0.1 0.1], gainprm [10 20], biasprm
    // [0 -10 0], [0 -20 -2], body b at (0 0 -1) with quat (√½ 0 0 √½), eq_data [0 2 0.5 0 0].
    let m = read_fixture("classes_frames.xml");
    let j1 = &m.bodies[0].joints[0];
    let j2 = &m.bodies[1].joints[0];
    assert_eq!((j1.damping, j1.armature), (2.0, 0.1));
    assert_eq!((j2.damping, j2.armature), (3.0, 0.1));
    let b = &m.bodies[1];
    assert_eq!(b.pos, [0.0, 0.0, -1.0]);
    let q = super::tree::matrix_quat(&b.rot);
    let h = 0.5f64.sqrt();
    for (x, y) in q.iter().zip([h, 0.0, 0.0, h]) {
        assert!((x - y).abs() < 1e-15, "{q:?}");
    }
    let a = &m.actuators;
    assert_eq!((a[0].gain, a[0].bias), (10.0, [0.0, -10.0, 0.0]));
    assert_eq!((a[1].gain, a[1].bias), (20.0, [0.0, -20.0, -2.0]));
    match &m.closures[0].kind {
        ClosureKind::Coupling { coef, x, .. } => {
            assert_eq!(*coef, [0.0, 2.0, 0.5, 0.0, 0.0]);
            assert!(x.is_some());
        }
        _ => panic!("expected a coupling"),
    }
}

#[test]
fn includes_are_spliced_and_cycles_refused() {
    let dir = std::env::temp_dir().join(format!("spark-mjcf-include-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("parts")).unwrap();
    std::fs::write(
        dir.join("main.xml"),
        "<mujoco>\n<include file=\"parts/defaults.xml\"/>\n<worldbody>\n<include file=\"parts/arm.xml\"/>\n</worldbody>\n</mujoco>\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("parts/defaults.xml"),
        "<mujoco><default><joint damping=\"4\"/></default></mujoco>",
    )
    .unwrap();
    // Found relative to the including file's directory (not the main file's).
    std::fs::write(dir.join("parts/arm.xml"), "<mujoco><body name=\"arm\"><joint/><geom size=\"0.1\"/></body><include file=\"more.xml\"/></mujoco>").unwrap();
    std::fs::write(
        dir.join("parts/more.xml"),
        "<mujoco><body name=\"b\"><joint/><geom size=\"0.1\"/></body></mujoco>",
    )
    .unwrap();
    let path = dir.join("main.xml");
    let m = read_file(&path, &read_model_file(&path).unwrap()).unwrap();
    assert_eq!(m.bodies.len(), 2);
    assert_eq!(m.bodies[0].joints[0].damping, 4.0);
    // A cycle.
    std::fs::write(
        dir.join("parts/more.xml"),
        "<mujoco>\n<include file=\"arm.xml\"/></mujoco>",
    )
    .unwrap();
    let Err(e) = read_file(&path, &read_model_file(&path).unwrap()) else {
        panic!("a cycle was read")
    };
    assert_eq!(e.list.len(), 1, "{:?}", e.list);
    assert!(e.list[0].msg.contains("included already"), "{:?}", e.list);
    assert_eq!(e.list[0].file.as_deref(), Some("more.xml"));
    assert_eq!(e.list[0].line, 2);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn deep_xml_is_refused_fast_without_recursion() {
    for inside in ["", "<worldbody>"] {
        let n = 100_000;
        let mut text = String::from("<mujoco>");
        text.push_str(inside);
        text.push_str(&"<a>".repeat(n));
        text.push_str(&"</a>".repeat(n));
        if !inside.is_empty() {
            text.push_str("</worldbody>");
        }
        text.push_str("</mujoco>");
        let t = Instant::now();
        // On a small thread stack: no pass may recurse on the depth.
        let text2 = text.clone();
        let e = std::thread::Builder::new()
            .stack_size(256 << 10)
            .spawn(move || errors_of(&text2))
            .unwrap()
            .join()
            .unwrap();
        assert!(t.elapsed() < Duration::from_secs(1), "{:?}", t.elapsed());
        assert_eq!(e.len(), 1, "{e:?}");
        assert!(e[0].contains("nests deeper"), "{e:?}");
    }
}

#[test]
fn only_regular_files_are_read() {
    let t = Instant::now();
    let e = read_model_file(Path::new("/dev/zero")).unwrap_err();
    assert!(e.contains("not a regular file"), "{e}");
    let e = read_model_file(&std::env::temp_dir()).unwrap_err();
    assert!(e.contains("a directory"), "{e}");
    let fifo = std::env::temp_dir().join(format!("spark-fifo-{}", std::process::id()));
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if made.is_ok_and(|s| s.success()) {
        let e = read_model_file(&fifo).unwrap_err();
        assert!(e.contains("not a regular file"), "{e}");
        std::fs::remove_file(&fifo).ok();
    }
    assert!(t.elapsed() < Duration::from_secs(1));
}

#[test]
fn unknown_class_reversed_range_and_bad_inertia_are_errors() {
    let e = errors_of(
        "<mujoco><worldbody><body><joint class=\"nope\"/><geom size=\"1\"/></body></worldbody></mujoco>",
    );
    assert!(
        e.len() == 1 && e[0].contains("class `nope` does not exist"),
        "{e:?}"
    );
    let e = errors_of(
        "<mujoco><worldbody><body><joint range=\"1 -1\"/><geom size=\"1\"/></body></worldbody></mujoco>",
    );
    assert!(e.len() == 1 && e[0].contains("reversed"), "{e:?}");
    let e = errors_of(
        "<mujoco><worldbody><body><joint/><inertial pos=\"0 0 0\" mass=\"1\" diaginertia=\"1 1 3\"/></body></worldbody></mujoco>",
    );
    assert!(e.len() == 1 && e[0].contains("triangle"), "{e:?}");
    // balanceinertia fixes it as MuJoCo does: the mean of the three.
    let m = read(
        "<mujoco><compiler balanceinertia=\"true\"/><worldbody><body><joint/><inertial pos=\"0 0 0\" mass=\"1\" diaginertia=\"1 1 3\"/></body></worldbody></mujoco>",
    )
    .unwrap();
    for k in 0..3 {
        assert!((m.bodies[0].inertia[k][k] - 5.0 / 3.0).abs() < 1e-14);
    }
    let e = errors_of(
        "<mujoco><worldbody><body><joint/><geom size=\"1\" mass=\"-1\"/></body></worldbody></mujoco>",
    );
    assert!(e.len() == 1 && e[0].contains("negative"), "{e:?}");
    let e = errors_of(
        "<mujoco><worldbody><body name=\"a\"><joint/><geom size=\"1\"/></body><body name=\"a\"><joint/><geom size=\"1\"/></body></worldbody></mujoco>",
    );
    assert!(e.len() == 1 && e[0].contains("defined twice"), "{e:?}");
    let e = errors_of(
        "<mujoco><worldbody><body name=\"world\"><joint/><geom size=\"1\"/></body></worldbody></mujoco>",
    );
    assert!(e.len() == 1 && e[0].contains("`world`"), "{e:?}");
}

#[test]
fn flags_remove_what_they_disable() {
    let m = read(
        "<mujoco><option><flag gravity=\"disable\" damper=\"disable\" actuation=\"disable\"/></option>\
         <worldbody><body><joint name=\"j\" damping=\"3\" frictionloss=\"1\"/><geom size=\"1\"/></body></worldbody>\
         <actuator><motor joint=\"j\"/></actuator></mujoco>",
    )
    .unwrap();
    assert_eq!(m.gravity, [0.0; 3]);
    assert_eq!(m.bodies[0].joints[0].damping, 0.0);
    assert_eq!(m.bodies[0].joints[0].frictionloss, 1.0);
    assert!(m.actuators.is_empty());
}

#[test]
fn a_loop_closed_twice_keeps_one_closure_of_rows() {
    // MuJoCo's soft constraints accept a loop closed by two connects; spark keeps the rows
    // of the first and drops the second's, which are dependent everywhere and hold.
    use proc_macro2::Span;
    use syn::Ident;
    let lowered = |m: &super::tree::Mechanism| {
        let n = super::kinematics::Layout::of(m).n;
        let ids = |p: &str| -> Vec<Ident> {
            (0..n)
                .map(|k| Ident::new(&format!("{p}{k}"), Span::call_site()))
                .collect()
        };
        let g = ["gx", "gy", "gz"].map(|s| Ident::new(s, Span::call_site()));
        match super::lower(m, &ids("q"), &ids("v"), &g, Span::call_site()) {
            Ok(l) => l.holonomic.len(),
            Err(e) => panic!("{e:?}"),
        }
    };
    let mut m = read_fixture("loop_closed_twice.xml");
    let twice = lowered(&m);
    m.closures.pop();
    let once = lowered(&m);
    assert_eq!(twice, once);
    assert_eq!(once, 2);
}

/// One body on a hinge `j` with a site `s`, an `<option>` and actuators.
fn with_site(option: &str, joint: &str, actuator: &str) -> String {
    format!(
        "<mujoco><option {option}/><worldbody><body name=\"b\"><joint name=\"j\" {joint}/>\
         <geom size=\"0.1\"/><site name=\"s\" pos=\"0.1 0 0\"/></body></worldbody>\
         <actuator>{actuator}</actuator></mujoco>"
    )
}

#[test]
fn fluid_sites_springdamper_and_adhesion_are_read_or_refused_by_name() {
    let m = read(&with_site(
        "density=\"1.2\" viscosity=\"2e-5\" wind=\"1 0 0\"",
        "springdamper=\"0.1 1\"",
        "<motor site=\"s\" gear=\"0 0 1 0 0 0.1\"/><adhesion body=\"b\" ctrlrange=\"0 1\"/>",
    ))
    .unwrap();
    let medium = m.medium.unwrap();
    assert_eq!(
        (medium.density, medium.viscosity, medium.wind),
        (1.2, 2e-5, [1.0, 0.0, 0.0])
    );
    let j = &m.bodies[0].joints[0];
    assert!(
        j.stiffness > 0.0 && j.damping > 0.0,
        "{} {}",
        j.stiffness,
        j.damping
    );
    // stiffness / damping = 1 / (2 τ ζ²) whatever the inertia.
    assert!((j.stiffness / j.damping - 1.0 / (2.0 * 0.1)).abs() < 1e-12);
    assert!(matches!(
        m.actuators[0].drive,
        super::tree::Drive::Site { body: Some(0), .. }
    ));
    assert_eq!(m.actuators[1].drive, super::tree::Drive::Contact);
    // No fluid without density and viscosity, or with the passive forces off.
    assert!(read(&with_site("wind=\"1 0 0\"", "", ""))
        .unwrap()
        .medium
        .is_none());
    let off = "density=\"1\"><flag passive=\"disable\"/></option><option";
    assert!(read(&with_site(off, "", "")).unwrap().medium.is_none());

    for (option, joint, actuator, what) in [
        ("density=\"-1\"", "", "", "negative `density`"),
        ("", "springdamper=\"0.1 -1\"", "", "must both be positive"),
        (
            "",
            "type=\"ball\" springdamper=\"0.1 1\"",
            "",
            "hinge and slide joints only",
        ),
        (
            "",
            "",
            "<motor site=\"nope\"/>",
            "the site `nope` does not exist",
        ),
        ("", "", "<motor site=\"s\" refsite=\"s\"/>", "`refsite`"),
        (
            "",
            "",
            "<position site=\"s\" kp=\"1\" dampratio=\"1\"/>",
            "`dampratio` on a site",
        ),
        (
            "",
            "",
            "<adhesion body=\"nope\" ctrlrange=\"0 1\"/>",
            "the body `nope` does not exist",
        ),
        ("", "", "<motor body=\"b\"/>", "transmission on `body`"),
    ] {
        let e = errors_of(&with_site(option, joint, actuator));
        assert!(e.len() == 1 && e[0].contains(what), "{what}: {e:?}");
    }
    let e = errors_of(
        "<mujoco><option density=\"1\"/><worldbody><body><joint/><geom size=\"0.1\" \
         fluidshape=\"ellipsoid\"/></body></worldbody></mujoco>",
    );
    assert!(
        e.len() == 1 && e[0].contains("ellipsoid fluid model"),
        "{e:?}"
    );
}

#[test]
fn an_error_of_a_shared_default_is_reported_once() {
    let e = errors_of(
        "<mujoco><default><motor dyntype=\"integrator\"/></default><worldbody><body>\
         <joint name=\"a\"/><joint name=\"b\" axis=\"1 0 0\"/><geom size=\"0.1\"/></body>\
         </worldbody><actuator><motor joint=\"a\"/><motor joint=\"b\"/></actuator></mujoco>",
    );
    // One error per actuator (each names its own line), none repeated.
    let mut seen = e.clone();
    seen.dedup();
    assert_eq!(seen.len(), e.len(), "{e:?}");
}
