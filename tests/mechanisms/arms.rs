//! Robot arms from model files against independent engines (issue 29): the Panda (its hand's
//! fingers removed) and the UR5 URDFs of `example-robot-data` against Pinocchio's ABA, and an
//! MJCF arm (hinges, a slide, rotated frames, full inertia tensors) against MuJoCo's
//! `mj_forward`, at the 48 stored states of `tests/data/` (written by
//! `benches/reference/pinocchio_arms.py` and `benches/reference/mujoco_arm.py`):
//! accelerations (`Integrator::acceleration`) to a relative error below 1e-10, kinetic energies
//! equal, potential energies equal up to a constant, and every body's pose (`body_poses`)
//! within 1e-10 of the engine's forward kinematics.

use spark::nalgebra::SVector;
use spark::{Dimensions, GaussLobatto, Integrator, State};

use crate::common::reference::{poses, relative_error, samples, Table};

spark::mechanics! {
    /// The Panda arm of `example-robot-data` 6.0.0, its fingers removed; a torque input per joint.
    pub struct Panda {
        urdf: "tests/models/panda/panda.urdf",
        actuated: all,
    }
}

spark::mechanics! {
    /// The UR5 of `example-robot-data` 6.0.0; a torque input per joint.
    pub struct Ur5 {
        urdf: "tests/models/ur5/ur5_robot.urdf",
        actuated: all,
    }
}

spark::mechanics! {
    /// `tests/models/mjcf_arm.xml`: three motors.
    pub struct MjcfArm {
        mjcf: "tests/models/mjcf_arm.xml",
    }
}

/// The tolerance of every comparison (relative to the quantity's scale).
const TOL: f64 = 1e-10;

/// Accelerations and energies of `Sys` at every state of `name_dynamics.csv`, the inputs
/// (column family `input`) set on the model first.
fn agrees<Sys, const N: usize, const U: usize, const D: usize, const X: usize>(
    sys: Sys,
    name: &str,
    input: &str,
    coordinate_names: &[&str],
) where
    Sys: Dimensions<N, 0, 0, U, D, X> + Clone,
{
    let table = Table::read(&format!("{name}_dynamics.csv")).unwrap();
    assert_eq!(table.meta_words("joint_names"), coordinate_names, "{name}");
    let states = samples::<N, U>(&table, input);
    assert!(states.len() >= 40, "{name}: {} states", states.len());
    let mut worst = 0.0f64;
    let mut kinetic = 0.0f64;
    let mut offsets = Vec::new();
    for (row, s) in states.iter().enumerate() {
        let mut model = sys.clone();
        model.set_inputs(&SVector::from(s.u));
        let sim = Integrator::<Sys, GaussLobatto<2>>::new(model, 0.01).unwrap();
        let state = State::new(0.0, s.q, s.v);
        let a = sim.acceleration(&state).unwrap();
        let err = relative_error(a.as_slice(), &s.a);
        assert!(
            err < TOL,
            "{name}, state {row}: acceleration {a:?} against {:?}: relative error {err:e}",
            s.a
        );
        worst = worst.max(err);
        // T = E(q, v) − E(q, 0); V = E(q, 0), up to a constant.
        let e = sim.energy(&state);
        let v = sim.energy(&State::new(0.0, s.q, [0.0; N]));
        let t_err = ((e - v) - s.kinetic).abs() / s.kinetic.abs().max(1.0);
        assert!(
            t_err < TOL,
            "{name}, state {row}: kinetic energy {} against {}",
            e - v,
            s.kinetic
        );
        kinetic = kinetic.max(t_err);
        offsets.push((v - s.potential, s.potential.abs().max(1.0)));
    }
    let first = offsets[0].0;
    for (row, (off, scale)) in offsets.iter().enumerate() {
        assert!(
            (off - first).abs() < TOL * scale,
            "{name}, state {row}: potential energy offset {off} differs from {first}"
        );
    }
    println!(
        "{name}: {} states, worst relative acceleration error {worst:.2e}, kinetic {kinetic:.2e}, potential offset {first}",
        states.len()
    );
}

/// Every body's pose at every state of `name_poses.csv` (a body the model does not list, the
/// MJCF world body, must be at the origin, unrotated).
fn poses_agree<const N: usize, const B: usize>(
    name: &str,
    body_names: &[&str; B],
    body_poses: impl Fn(
        &SVector<f64, N>,
    ) -> [(spark::nalgebra::Vector3<f64>, spark::nalgebra::Matrix3<f64>); B],
) {
    let dynamics = Table::read(&format!("{name}_dynamics.csv")).unwrap();
    let table = Table::read(&format!("{name}_poses.csv")).unwrap();
    let file_bodies = table.meta_words("body_names");
    for b in body_names {
        assert!(
            file_bodies.contains(b),
            "{name}: body `{b}` not in the data"
        );
    }
    let mut count = 0;
    let mut worst = 0.0f64;
    for pose in poses(&table) {
        let q: [f64; N] = dynamics.vector(pose.state, "q");
        let all = body_poses(&SVector::from(q));
        // nalgebra's arrays are column-major: the transpose's columns are the rows.
        let (p, r): ([f64; 3], [[f64; 3]; 3]) =
            match body_names.iter().position(|b| *b == pose.body) {
                Some(i) => (all[i].0.into(), all[i].1.transpose().into()),
                None => {
                    assert_eq!(pose.body, "world", "{name}: body missing from BODY_NAMES");
                    (
                        [0.0; 3],
                        [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
                    )
                }
            };
        let got = p.iter().chain(r.iter().flatten());
        let want = pose.position.iter().chain(pose.rotation.iter().flatten());
        let err = got.zip(want).fold(0.0f64, |m, (g, w)| m.max((g - w).abs()));
        assert!(
            err < TOL,
            "{name}, state {}, body {}: position {p:?} rotation {r:?} against {:?} {:?}",
            pose.state,
            pose.body,
            pose.position,
            pose.rotation
        );
        worst = worst.max(err);
        count += 1;
    }
    assert_eq!(
        count,
        dynamics.len() * file_bodies.len(),
        "{name}: every pose compared"
    );
    println!("{name}: {count} poses, worst error {worst:.2e}");
}

#[test]
fn panda_agrees_with_pinocchio() {
    assert_eq!(Panda::INPUT_NAMES.len(), 7);
    agrees::<Panda, 7, 7, 14, 14>(Panda::default(), "panda", "tau", &Panda::COORDINATE_NAMES);
}

#[test]
fn panda_body_poses_agree_with_pinocchio() {
    poses_agree::<7, 11>("panda", &Panda::BODY_NAMES, Panda::body_poses);
}

#[test]
fn ur5_agrees_with_pinocchio() {
    agrees::<Ur5, 6, 6, 12, 12>(Ur5::default(), "ur5", "tau", &Ur5::COORDINATE_NAMES);
}

#[test]
fn ur5_body_poses_agree_with_pinocchio() {
    poses_agree::<6, { Ur5::BODY_NAMES.len() }>("ur5", &Ur5::BODY_NAMES, Ur5::body_poses);
}

#[test]
fn mjcf_arm_agrees_with_mujoco() {
    assert_eq!(
        MjcfArm::MOTOR_INPUTS,
        ["lift_motor", "shoulder_motor", "elbow_motor"]
    );
    agrees::<MjcfArm, 6, 3, 12, 12>(
        MjcfArm::default(),
        "mjcf_arm",
        "ctrl",
        &MjcfArm::COORDINATE_NAMES,
    );
}

#[test]
fn mjcf_arm_body_poses_agree_with_mujoco() {
    poses_agree::<6, { MjcfArm::BODY_NAMES.len() }>(
        "mjcf_arm",
        &MjcfArm::BODY_NAMES,
        MjcfArm::body_poses,
    );
}

/// `Integrator::equilibrium_inputs` against Pinocchio's generalized gravity `g(q)` at every
/// configuration of `name_gravity.csv` (inside the joint limits): the inputs that hold the arm
/// at rest are `g(q)` to a relative error below 1e-12, and they hold it.
fn gravity_agrees<Sys, const N: usize, const D: usize, const X: usize>(
    sys: Sys,
    name: &str,
    coordinate_names: &[&str],
) where
    Sys: Dimensions<N, 0, 0, N, D, X> + Clone,
{
    let table = Table::read(&format!("{name}_gravity.csv")).unwrap();
    assert_eq!(table.meta_words("joint_names"), coordinate_names, "{name}");
    assert_eq!(table.meta_numbers("gravity"), [0.0, 0.0, -9.81]);
    assert!(table.len() >= 30, "{name}: {} configurations", table.len());
    for (key, r) in table.residuals() {
        assert!(r < 1e-12, "{name}: {key} = {r:e}");
    }
    let mut sim = Integrator::<Sys, GaussLobatto<2>>::new(sys, 0.01).unwrap();
    let mut worst = 0.0f64;
    for row in 0..table.len() {
        let q = SVector::from(table.vector::<N>(row, "q"));
        let g = table.vector::<N>(row, "g");
        let eq = sim.equilibrium_inputs(0.0, &q).unwrap();
        let err = relative_error(eq.u.as_slice(), &g);
        assert!(
            err < 1e-12,
            "{name}, configuration {row}: {:?} against g(q) = {g:?}: relative error {err:e}",
            eq.u
        );
        assert!(eq.holds(1e-9), "{name}, configuration {row}: {eq:?}");
        assert!(eq.unforced > 1.0, "{name}: gravity moves the arm unheld");
        worst = worst.max(err);
    }
    println!(
        "{name}: {} configurations, worst relative error of the holding torques {worst:.2e}",
        table.len()
    );
}

#[test]
fn equilibrium_inputs_are_pinocchios_gravity_torques() {
    gravity_agrees::<Panda, 7, 14, 14>(Panda::default(), "panda", &Panda::COORDINATE_NAMES);
    gravity_agrees::<Ur5, 6, 12, 12>(Ur5::default(), "ur5", &Ur5::COORDINATE_NAMES);
}
