//! Delta robots from MJCF files (issue 29), through spark's generated models and its integrator
//! (`reference_data.rs` checks only the stored data):
//!
//! * `tests/models/delta.xml` (`benches/reference/delta_mjcf.py`: fifteen hinges, two welds,
//!   the forearm parallelograms as universal-universal chains): assembled at `qpos0`, its
//!   platform where the file's dimensions put it; 0.1 s of falling and swinging with the
//!   motors off (GL2, 50 steps) keeps the closure rows below 1e-13 after every step, the
//!   platform unrotated and on the three forearm spheres of an independent Delta kinematics,
//!   and the energy balance `E(T) − E(0) + ∫ d ω² dt` (the arms' joint damping) at the
//!   quadrature's accuracy;
//! * `tests/models/delta_loop.xml` (3-RUS, two `connect`s): accelerations at the 48 consistent
//!   states of `tests/data/delta_loop_dynamics.csv` against the exact constrained solution of
//!   `benches/reference/delta_loop.py` (Pinocchio's open tree and a saddle solve), and energies.

use spark::nalgebra::{Matrix3, SVector, Vector3};
use spark::{Dimensions, GaussLobatto, Integrator, State};

use crate::common::reference::{relative_error, samples, Table};

spark::mechanics! {
    /// The Delta robot of `tests/models/delta.xml`: motors `arm_{0,1,2}_motor`.
    pub struct Delta {
        mjcf: "tests/models/delta.xml",
    }
}

spark::mechanics! {
    /// The 3-RUS mechanism of `tests/models/delta_loop.xml`.
    pub struct DeltaLoop {
        mjcf: "tests/models/delta_loop.xml",
    }
}

/// `delta.xml`'s dimensions (`benches/reference/delta_mjcf.py`), metres and radians.
const R_BASE: f64 = 0.2;
const R_PLATFORM: f64 = 0.05;
const ARM: f64 = 0.2;
const FOREARM: f64 = 0.45;
const TILT: f64 = std::f64::consts::PI / 6.0;
/// The arms' joint damping in `delta.xml` (N m s); the other joints have none.
const ARM_DAMPING: f64 = 0.05;

/// Leg `i`'s outward radial direction.
fn radial(i: usize) -> Vector3<f64> {
    let phi = std::f64::consts::TAU * i as f64 / 3.0;
    Vector3::new(phi.cos(), phi.sin(), 0.0)
}

/// Leg `i`'s elbow when its arm joint is at `q`: the arm hangs `TILT + q` below the horizontal
/// (the hinge axis is the tangent `z × e_i`, so a positive angle turns the arm down).
fn elbow(i: usize, q: f64) -> Vector3<f64> {
    let b = TILT + q;
    radial(i) * (R_BASE + ARM * b.cos()) - Vector3::z() * (ARM * b.sin())
}

fn index(name: &str) -> usize {
    Delta::COORDINATE_NAMES
        .iter()
        .position(|n| *n == name)
        .unwrap_or_else(|| panic!("no joint {name}"))
}

/// The platform's centre and orientation at `q` (spark's generated `body_poses`).
fn platform(q: &SVector<f64, 15>) -> (Vector3<f64>, Matrix3<f64>) {
    let b = Delta::BODY_NAMES
        .iter()
        .position(|n| *n == "platform")
        .expect("platform body");
    Delta::body_poses(q)[b]
}

/// How far the platform at `q` is from the Delta's kinematics: the largest of its rotation's
/// distance from the identity (the forearms keep it translating) and, for each leg, the
/// distance of the platform's attachment point from the sphere of radius `FOREARM` about the
/// elbow that the leg's arm angle gives.
fn kinematic_error(q: &SVector<f64, 15>) -> f64 {
    let (centre, rotation) = platform(q);
    let mut worst = (rotation - Matrix3::identity()).amax();
    for i in 0..3 {
        let arm = q[index(&format!("arm_{i}"))];
        let rod = centre + radial(i) * R_PLATFORM - elbow(i, arm);
        worst = worst.max((rod.norm() - FOREARM).abs());
    }
    worst
}

#[test]
fn delta_file_is_assembled_with_the_platform_at_its_designed_height() {
    assert_eq!(Delta::COORDINATE_NAMES.len(), 15);
    assert_eq!(Delta::COORDINATE_NAMES[0], "arm_0");
    // Two welds, six rows each, none dropped.
    assert_eq!(Delta::HOLONOMIC_CONSTRAINTS, 12);
    assert_eq!(
        Delta::INPUT_NAMES,
        ["arm_0_motor", "arm_1_motor", "arm_2_motor"]
    );
    assert_eq!(Delta::REFERENCE_CONFIGURATION, [0.0; 15]);
    let sim = Integrator::<Delta, GaussLobatto<2>>::new(Delta::default(), 0.002).unwrap();
    let s = State::new(0.0, [0.0; 15], [0.0; 15]);
    let (g, w) = sim.constraint_residual(&s);
    assert!(g < 1e-15 && w == 0.0, "closure at qpos0: {g:e}, {w:e}");
    // The centre below the base: arm drop plus the forearm's vertical extent.
    let dr = R_BASE + ARM * TILT.cos() - R_PLATFORM;
    let height = ARM * TILT.sin() + (FOREARM * FOREARM - dr * dr).sqrt();
    let q = SVector::zeros();
    let (centre, _) = platform(&q);
    let err = (centre - Vector3::new(0.0, 0.0, -height)).amax();
    assert!(err < 1e-15, "platform at {centre:?}, want height {height}");
    assert!(kinematic_error(&q) < 1e-15, "{:e}", kinematic_error(&q));
}

#[test]
fn delta_falls_on_its_loops_with_the_energy_balanced() {
    let h = 0.002;
    let mut sim = Integrator::<Delta, GaussLobatto<2>>::new(Delta::default(), h).unwrap();
    let arms = [0, 1, 2].map(|i| index(&format!("arm_{i}")));
    // Motors off; the arms set turning unequally (projected onto the loops' tangent space),
    // so that the platform moves sideways as it falls.
    let mut v = [0.0; 15];
    v[arms[0]] = 2.0;
    v[arms[1]] = -1.0;
    let mut s = State::new(0.0, [0.0; 15], v);
    sim.project(&mut s).unwrap();
    let e0 = sim.energy(&s);
    let dissipation =
        |v: &SVector<f64, 15>| ARM_DAMPING * arms.iter().map(|&k| v[k] * v[k]).sum::<f64>();
    let (mut closure, mut kinematics, mut dissipated) = (0.0f64, 0.0f64, 0.0f64);
    // 0.1 s: it falls 3.5 cm and drifts 6 cm sideways (at 0.25 s the arms are 1.7 rad down,
    // near the straight elbow where the loops lose rank).
    for _ in 0..50 {
        let before = dissipation(&s.v);
        sim.step(&mut s).unwrap();
        dissipated += 0.5 * h * (before + dissipation(&s.v));
        closure = closure.max(sim.constraint_residual(&s).0);
        kinematics = kinematics.max(kinematic_error(&s.q));
    }
    let moved = platform(&s.q).0 - platform(&SVector::zeros()).0;
    let balance = sim.energy(&s) - e0 + dissipated;
    println!(
        "delta, 0.1 s, motors off: platform moved {moved:.3?} m, worst closure {closure:.1e} m, \
         kinematics {kinematics:.1e}, energy {e0:.4} J -> {:.4} J, dissipated {dissipated:.3e} J, \
         balance {balance:.1e} J",
        sim.energy(&s)
    );
    // It moved, and not only down: the test is not of a state at rest or of a symmetric fall.
    assert!(
        moved.z < -0.01 && moved.x.hypot(moved.y) > 0.02,
        "{moved:?}"
    );
    assert!(closure < 1e-13, "{closure:e}");
    assert!(kinematics < 1e-12, "{kinematics:e}");
    // The trapezoidal rule's error in ∫ d ω² dt, O(h²): 2e-4 of the dissipated energy here,
    // and four times less at h/2.
    assert!(
        balance.abs() < 1e-3 * dissipated,
        "{balance:e} of {dissipated:e}"
    );
}

#[test]
fn delta_loop_accelerations_match_the_exact_constrained_solution() {
    let table = Table::read("delta_loop_dynamics.csv").unwrap();
    assert_eq!(
        table.meta_words("joint_names"),
        DeltaLoop::COORDINATE_NAMES,
        "the data's coordinates are the model's, in order"
    );
    assert_eq!(DeltaLoop::HOLONOMIC_CONSTRAINTS, 6);
    let states = samples::<12, 3>(&table, "ctrl");
    assert!(states.len() >= 40, "{} states", states.len());
    let mut sim =
        Integrator::<DeltaLoop, GaussLobatto<2>>::new(DeltaLoop::default(), 0.01).unwrap();
    let (mut worst, mut kinetic, mut mujoco) = (0.0f64, 0.0f64, 0.0f64);
    let mut offsets = Vec::new();
    for (r, s) in states.iter().enumerate() {
        sim.system_mut().set_inputs(&SVector::from(s.u));
        let state = State::new(0.0, s.q, s.v);
        let a = sim.acceleration(&state).unwrap();
        let err = relative_error(a.as_slice(), &s.a);
        assert!(err < 1e-10, "state {r}: {a:?} against {:?}: {err:e}", s.a);
        worst = worst.max(err);
        let e = sim.energy(&state);
        let v = sim.energy(&State::new(0.0, s.q, [0.0; 12]));
        kinetic = kinetic.max(((e - v) - s.kinetic).abs() / s.kinetic.abs().max(1.0));
        offsets.push(v - s.potential);
        let soft: [f64; 12] = table.vector(r, "mujoco_a");
        mujoco = mujoco.max(relative_error(&soft, &s.a));
    }
    let spread = offsets
        .iter()
        .fold(0.0f64, |m, o| m.max((o - offsets[0]).abs()));
    println!(
        "delta_loop, {} states: worst relative acceleration error {worst:.1e} (MuJoCo's soft \
         loops: {mujoco:.1e}), kinetic energy {kinetic:.1e}, potential offset spread {spread:.1e}",
        states.len()
    );
    assert!(kinetic < 1e-10, "{kinetic:e}");
    assert!(spread < 1e-10, "{spread:e}");
}
