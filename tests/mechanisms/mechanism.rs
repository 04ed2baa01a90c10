//! Mechanisms from model files (`urdf:` and `mjcf:` in `mechanics!`): a double pendulum from a
//! URDF against hand-written Lagrangians, a four-bar from MJCF keeping its loop closed.

use spark::{GaussLobatto, Integrator, State};

include!("../../examples/models/double_pendulum.rs");

spark::mechanics! {
    /// The double pendulum of `tests/models/double_pendulum.urdf`.
    pub struct UrdfPendulum {
        urdf: "tests/models/double_pendulum.urdf",
    }
}

spark::mechanics! {
    /// The same pendulum by hand, in the URDF's relative joint angles: rotations about +y take
    /// (0, 0, -1) to (-sin a, 0, -cos a).
    pub struct AnglePendulum {
        coordinates: [a, b],
        velocities: [va, vb],
        parameters: [g = 9.81],
        definitions: {
            let c = a + b;
            let vc = va + vb;
            let x1 = -a.sin();
            let z1 = -a.cos();
            let u1 = -a.cos() * va;
            let w1 = a.sin() * va;
            let x2 = x1 - c.sin();
            let z2 = z1 - c.cos();
            let u2 = u1 - c.cos() * vc;
            let w2 = w1 + c.sin() * vc;
        },
        lagrangian: 0.5 * (u1.powi(2) + w1.powi(2) + u2.powi(2) + w2.powi(2)) - g * (z1 + z2) + 0.0 * x2,
    }
}

spark::mechanics! {
    /// The four-bar of `tests/models/four_bar.xml`.
    pub struct FourBar {
        mjcf: "tests/models/four_bar.xml",
    }
}

use crate::common::Rng;

#[test]
fn urdf_pendulum_energy_equals_hand_written_lagrangians() {
    let urdf =
        Integrator::<UrdfPendulum, GaussLobatto<2>>::new(UrdfPendulum::default(), 0.01).unwrap();
    let angles =
        Integrator::<AnglePendulum, GaussLobatto<2>>::new(AnglePendulum::default(), 0.01).unwrap();
    let cart = Integrator::<DoublePendulum, GaussLobatto<2>>::new(DoublePendulum::default(), 0.01)
        .unwrap();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for _ in 0..40 {
        let q = [rng.uniform(-3.0, 3.0), rng.uniform(-3.0, 3.0)];
        let v = [rng.uniform(-2.0, 2.0), rng.uniform(-2.0, 2.0)];
        let e_urdf = urdf.energy(&State::new(0.0, q, v));
        let e_angles = angles.energy(&State::new(0.0, q, v));
        // The Cartesian model swings in its x-y plane, the URDF's in x-z: y plays z.
        let (a, c) = (q[0], q[0] + q[1]);
        let (va, vc) = (v[0], v[0] + v[1]);
        let (x1, y1) = (-a.sin(), -a.cos());
        let (u1, w1) = (-a.cos() * va, a.sin() * va);
        let cq = [x1, y1, x1 - c.sin(), y1 - c.cos()];
        let cv = [u1, w1, u1 - c.cos() * vc, w1 + c.sin() * vc];
        let e_cart = cart.energy(&State::new(0.0, cq, cv));
        assert!(
            (e_urdf - e_angles).abs() < 1e-12 * e_urdf.abs().max(1.0),
            "{e_urdf} {e_angles}"
        );
        assert!(
            (e_urdf - e_cart).abs() < 1e-12 * e_urdf.abs().max(1.0),
            "{e_urdf} {e_cart}"
        );
    }
}

#[test]
fn urdf_pendulum_steps_as_the_hand_written_one() {
    let h = 0.01;
    let mut urdf =
        Integrator::<UrdfPendulum, GaussLobatto<2>>::new(UrdfPendulum::default(), h).unwrap();
    let mut angles =
        Integrator::<AnglePendulum, GaussLobatto<2>>::new(AnglePendulum::default(), h).unwrap();
    let mut s1 = State::new(0.0, [1.0, -0.5], [0.0, 0.3]);
    let mut s2 = s1;
    let e0 = urdf.energy(&s1);
    let mut worst = 0.0f64;
    for _ in 0..1000 {
        urdf.step(&mut s1).unwrap();
        angles.step(&mut s2).unwrap();
        for i in 0..2 {
            worst = worst
                .max((s1.q[i] - s2.q[i]).abs())
                .max((s1.v[i] - s2.v[i]).abs());
        }
    }
    assert!(
        worst < 1e-12,
        "largest difference over 1000 steps {worst:e}"
    );
    let drift = (urdf.energy(&s1) - e0).abs();
    assert!(drift < 1e-3, "energy drift {drift:e}");
}

/// Rotation by `t` about +y of the point (x, z) of the x-z plane.
fn rot_y(t: f64, p: [f64; 2]) -> [f64; 2] {
    [
        p[0] * t.cos() + p[1] * t.sin(),
        -p[0] * t.sin() + p[1] * t.cos(),
    ]
}

/// The loop gap of the four-bar, computed from its geometry (not from the model).
fn four_bar_gap(q: &[f64]) -> f64 {
    let b = rot_y(q[0], [0.0, 1.0]);
    let bc = rot_y(q[0] + q[1], [3.0, 1.0]);
    let c1 = [b[0] + bc[0], b[1] + bc[1]];
    let dc = rot_y(q[2], [0.0, 2.0]);
    let c2 = [3.0 + dc[0], dc[1]];
    (c1[0] - c2[0]).hypot(c1[1] - c2[1])
}

#[test]
fn mjcf_four_bar_keeps_its_loop_closed() {
    assert_eq!(FourBar::COORDINATE_NAMES, ["crank", "coupler", "rocker"]);
    // The connect's out-of-plane row is identically zero and dropped: two constraints remain.
    assert_eq!(FourBar::HOLONOMIC_CONSTRAINTS, 2);
    assert_eq!(FourBar::INPUT_NAMES, ["drive"]);
    assert_eq!(FourBar::CONTROL_RANGES, [Some((-1.0, 1.0))]);
    assert_eq!(FourBar::REFERENCE_CONFIGURATION, [0.0; 3]);
    let mut sim = Integrator::<FourBar, GaussLobatto<2>>::new(FourBar::default(), 0.01).unwrap();
    let mut s = State::new(0.0, FourBar::REFERENCE_CONFIGURATION, [2.0, 0.0, 0.0]);
    sim.project(&mut s).unwrap();
    let e0 = sim.energy(&s);
    let mut worst_gap = 0.0f64;
    let mut worst_energy = 0.0f64;
    for _ in 0..2000 {
        sim.step(&mut s).unwrap();
        let (g, gv) = sim.constraint_residual(&s);
        assert!(g < 1e-12 && gv < 1e-10, "residuals {g:e} {gv:e}");
        worst_gap = worst_gap.max(four_bar_gap(s.q.as_slice()));
        worst_energy = worst_energy.max((sim.energy(&s) - e0).abs());
    }
    assert!(worst_gap < 1e-12, "loop gap {worst_gap:e}");
    assert!(
        worst_energy < 1e-4 * e0.abs().max(1.0),
        "energy error {worst_energy:e} of {e0}"
    );
    // The crank turns (the mechanism moves, it is not stuck).
    assert!(s.q[0].abs() > 0.1);
}

#[test]
fn mjcf_motor_input_does_work() {
    let sys = FourBar {
        drive: 1.0,
        ..FourBar::default()
    };
    let mut sim = Integrator::<FourBar, GaussLobatto<2>>::new(sys, 0.01).unwrap();
    let mut s = State::new(0.0, FourBar::REFERENCE_CONFIGURATION, [0.0; 3]);
    let mut free = Integrator::<FourBar, GaussLobatto<2>>::new(FourBar::default(), 0.01).unwrap();
    let mut f = s;
    for _ in 0..50 {
        sim.step(&mut s).unwrap();
        free.step(&mut f).unwrap();
    }
    // A positive torque on the crank turns it further in the positive sense than gravity alone.
    assert!(s.q[0] > f.q[0] + 1e-3, "{} vs {}", s.q[0], f.q[0]);
}

#[test]
fn urdf_names_and_constants() {
    assert_eq!(UrdfPendulum::COORDINATE_NAMES, ["shoulder", "elbow-joint"]);
    assert_eq!(UrdfPendulum::HOLONOMIC_CONSTRAINTS, 0);
    assert_eq!(UrdfPendulum::COORDINATE_RANGES[0], Some((-3.0, 3.0)));
    assert_eq!(UrdfPendulum::COORDINATE_RANGES[1], None);
    assert_eq!(UrdfPendulum::EFFORT_LIMITS, [Some(10.0), None]);
    assert_eq!(UrdfPendulum::VELOCITY_LIMITS, [Some(5.0), None]);
    assert_eq!(UrdfPendulum::BODY_NAMES, ["base", "upper", "lower"]);
    let sys = UrdfPendulum::default();
    assert_eq!(
        [sys.gravity_x, sys.gravity_y, sys.gravity_z],
        [0.0, 0.0, -9.81]
    );
}

spark::mechanics! {
    /// `tests/models/mjcf_zoo.xml`: every supported MJCF feature of an open chain.
    pub struct Zoo {
        mjcf: "tests/models/mjcf_zoo.xml",
    }
}

/// `q̇ = ½ q ⊗ (0, ω)` for a unit quaternion `q` (w first) and a body angular velocity `ω`.
fn quaternion_rate(q: &[f64], w: &[f64]) -> [f64; 4] {
    let [a, b, c, d] = [q[0], q[1], q[2], q[3]];
    let [x, y, z] = [w[0], w[1], w[2]];
    [
        0.5 * (-b * x - c * y - d * z),
        0.5 * (a * x + c * z - d * y),
        0.5 * (a * y + d * x - b * z),
        0.5 * (a * z + b * y - c * x),
    ]
}

#[test]
fn mjcf_zoo_energy_equals_mujoco() {
    let text = include_str!("../models/mjcf_zoo_reference.csv");
    let mut lines = text.lines();
    lines.next();
    let qpos0: Vec<f64> = lines.next().unwrap()["# qpos0 ".len()..]
        .split_whitespace()
        .map(|x| x.parse().unwrap())
        .collect();
    for (a, b) in Zoo::REFERENCE_CONFIGURATION.iter().zip(&qpos0) {
        assert!((a - b).abs() < 1e-15, "{a} {b}");
    }
    assert_eq!(
        Zoo::COORDINATE_NAMES,
        [
            "h1", "s1", "h2", "ball.qw", "ball.qx", "ball.qy", "ball.qz", "h3", "float.x",
            "float.y", "float.z", "float.qw", "float.qx", "float.qy", "float.qz"
        ]
    );
    let sim = Integrator::<Zoo, GaussLobatto<2>>::new(Zoo::default(), 0.01).unwrap();
    let mut count = 0;
    for line in lines {
        let r: Vec<f64> = line.split(',').map(|x| x.parse().unwrap()).collect();
        let (qpos, qvel) = (&r[..15], &r[15..28]);
        let (pot, kin) = (r[28], r[29]);
        let mut v = [0.0; 15];
        v[..3].copy_from_slice(&qvel[..3]);
        v[3..7].copy_from_slice(&quaternion_rate(&qpos[3..7], &qvel[3..6]));
        v[7] = qvel[6];
        v[8..11].copy_from_slice(&qvel[7..10]);
        v[11..15].copy_from_slice(&quaternion_rate(&qpos[11..15], &qvel[10..13]));
        let mut q = [0.0; 15];
        q.copy_from_slice(qpos);
        let e = sim.energy(&State::new(0.0, q, v));
        let reference = pot + kin;
        assert!(
            (e - reference).abs() < 1e-10 * reference.abs().max(1.0),
            "energy {e} against MuJoCo's {reference} (potential {pot}, kinetic {kin})"
        );
        count += 1;
    }
    assert_eq!(count, 40);
}

spark::mechanics! {
    /// The URDF pendulum with a torque input per joint and a keyed damping force.
    pub struct KeyedPendulum {
        urdf: "tests/models/double_pendulum.urdf",
        actuated: all,
        forces: { "elbow-joint": -0.3 * v[1], shoulder: -0.1 * v[0].powi(3) },
    }
}

spark::mechanics! {
    /// The same forces written positionally, the torques as inputs of the DSL.
    pub struct ListedPendulum {
        urdf: "tests/models/double_pendulum.urdf",
        inputs: [u1, u2],
        forces: [u1 - 0.1 * v[0].powi(3), u2 - 0.3 * v[1]],
    }
}

#[test]
fn keyed_forces_and_actuated_joints_equal_positional_forces() {
    assert_eq!(
        KeyedPendulum::INPUT_NAMES,
        ["tau_shoulder", "tau_elbow_joint"]
    );
    let keyed = KeyedPendulum {
        tau_shoulder: 0.7,
        tau_elbow_joint: -0.4,
        ..KeyedPendulum::default()
    };
    let listed = ListedPendulum {
        u1: 0.7,
        u2: -0.4,
        ..ListedPendulum::default()
    };
    let mut a = Integrator::<KeyedPendulum, GaussLobatto<2>>::new(keyed, 0.01).unwrap();
    let mut b = Integrator::<ListedPendulum, GaussLobatto<2>>::new(listed, 0.01).unwrap();
    let mut free =
        Integrator::<UrdfPendulum, GaussLobatto<2>>::new(UrdfPendulum::default(), 0.01).unwrap();
    let (mut sa, mut sb) = (
        State::new(0.0, [0.5, 0.2], [0.0, 1.0]),
        State::new(0.0, [0.5, 0.2], [0.0, 1.0]),
    );
    let mut sf = sa;
    for _ in 0..300 {
        a.step(&mut sa).unwrap();
        b.step(&mut sb).unwrap();
        free.step(&mut sf).unwrap();
    }
    for i in 0..2 {
        assert!((sa.q[i] - sb.q[i]).abs() < 1e-13 && (sa.v[i] - sb.v[i]).abs() < 1e-13);
    }
    // The forces act: the forced run leaves the free one.
    assert!((sa.q[0] - sf.q[0]).abs() > 1e-2);
}

spark::mechanics! {
    /// `tests/models/welded.xml`: two hinged rods welded into one pendulum.
    pub struct Welded {
        mjcf: "tests/models/welded.xml",
    }
}

#[test]
fn mjcf_weld_makes_one_rigid_pendulum() {
    assert_eq!(Welded::HOLONOMIC_CONSTRAINTS, 1);
    let mut sim = Integrator::<Welded, GaussLobatto<2>>::new(Welded::default(), 0.01).unwrap();
    let mut s = State::new(0.0, [0.4, 0.4], [0.0, 0.0]);
    // The compound pendulum by hand: inertia about the pivot (y axis) and the gravity torque.
    let inertia = 0.02 + 1.0 * 0.25 + 0.05 + 2.0 * 0.64;
    let energy = |th: f64, w: f64| {
        // Rotation about +y by th takes (x, 0, z) to (x cos + z sin, .., -x sin + z cos).
        let za = -0.5 * th.sin();
        let zb = -0.8 * th.cos();
        0.5 * inertia * w * w + 9.81 * (1.0 * za + 2.0 * zb)
    };
    let e0 = energy(0.4, 0.0);
    assert!((sim.energy(&s) - e0).abs() < 1e-12);
    for _ in 0..1000 {
        sim.step(&mut s).unwrap();
        assert!((s.q[0] - s.q[1]).abs() < 1e-12, "{} {}", s.q[0], s.q[1]);
        assert!((s.v[0] - s.v[1]).abs() < 1e-10);
        assert!((energy(s.q[0], s.v[0]) - sim.energy(&s)).abs() < 1e-10);
    }
    assert!((sim.energy(&s) - e0).abs() < 1e-4);
}
