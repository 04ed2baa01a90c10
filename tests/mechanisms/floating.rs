//! A floating-base branching URDF against Pinocchio's ABA on a free flyer (issue 40):
//! `tests/models/floating_branch.urdf` read with `floating_base: true` has Pinocchio's joints
//! in Pinocchio's order, and at the 20 states of `tests/data/floating_branch_aba.csv`
//! (written by `tests/models/floating_reference.py`) spark's `acceleration`, its state and
//! acceleration passed through `spark::convert` and nothing reordered by hand, is ABA's to a
//! relative error below 1e-10.

use spark::convert::{self, Convention, JointKind};
use spark::nalgebra::SVector;
use spark::{Dimensions, GaussLobatto, Integrator, State};

use crate::common::reference::{relative_error, Table};

spark::mechanics! {
    /// `tests/models/floating_branch.urdf` on a free flyer, a torque input per joint.
    pub struct FloatingBranch {
        urdf: "tests/models/floating_branch.urdf",
        floating_base: true,
        actuated: all,
    }
}

const N: usize = FloatingBranch::COORDINATES;

/// Sets a model's inputs, whatever its other sizes.
fn set_inputs<
    Sys: Dimensions<N, M, K, U, D, X>,
    const M: usize,
    const K: usize,
    const U: usize,
    const D: usize,
    const X: usize,
>(
    sys: &mut Sys,
    u: [f64; U],
) {
    sys.set_inputs(&SVector::from(u));
}
const PIN: Convention = Convention::Pinocchio;

#[test]
fn joints_are_pinocchios_in_pinocchios_order() {
    let table = Table::read("floating_branch_aba.csv").unwrap();
    let names: Vec<&str> = FloatingBranch::JOINT_LAYOUT
        .iter()
        .map(|j| j.name)
        .collect();
    assert_eq!(names, table.meta_words("joint_names"));
    assert_eq!(
        FloatingBranch::PINOCCHIO_SIZES,
        (table.meta_f64("nq") as usize, table.meta_f64("nv") as usize)
    );
    assert_eq!(
        convert::sizes(PIN, &FloatingBranch::JOINT_LAYOUT),
        FloatingBranch::PINOCCHIO_SIZES
    );
    assert_eq!(FloatingBranch::MUJOCO_SIZES, (13, 12));
    let kinds: Vec<JointKind> = FloatingBranch::JOINT_LAYOUT
        .iter()
        .map(|j| j.kind)
        .collect();
    assert_eq!(kinds[0], JointKind::Free);
    assert_eq!(kinds[5], JointKind::RevoluteUnbounded);
    assert_eq!(
        FloatingBranch::COORDINATE_NAMES[..7],
        [
            "root_joint.x",
            "root_joint.y",
            "root_joint.z",
            "root_joint.qw",
            "root_joint.qx",
            "root_joint.qy",
            "root_joint.qz"
        ]
    );
    // The file's spelling, upper case included.
    assert_eq!(
        FloatingBranch::INPUT_NAMES,
        [
            "tau_FL_HIP",
            "tau_FL_KNEE",
            "tau_FR_HIP",
            "tau_FR_KNEE",
            "tau_Tail",
            "tau_arm_slide"
        ]
    );
    assert_eq!(FloatingBranch::BODY_NAMES[0], "base_link");
}

#[test]
fn accelerations_equal_pinocchios_aba() {
    let table = Table::read("floating_branch_aba.csv").unwrap();
    let (nq, nv) = FloatingBranch::PINOCCHIO_SIZES;
    assert_eq!(table.len(), 20);
    let mut worst = 0.0f64;
    for row in 0..table.len() {
        let get = |prefix: &str, n: usize| -> Vec<f64> {
            (0..n)
                .map(|i| table.f64(row, &format!("{prefix}{i}")))
                .collect()
        };
        let (q_pin, v_pin, tau, a_pin) = (get("q", nq), get("v", nv), get("tau", nv), get("a", nv));
        let (mut q, mut qd) = ([0.0; N], [0.0; N]);
        convert::state_from(
            PIN,
            &FloatingBranch::JOINT_LAYOUT,
            &q_pin,
            &v_pin,
            &mut q,
            &mut qd,
        )
        .unwrap();
        // The torques: Pinocchio's velocity index of each input's joint.
        let mut inputs = [0.0; FloatingBranch::INPUTS];
        let mut iv = 0;
        for joint in &FloatingBranch::JOINT_LAYOUT {
            let name = format!("tau_{}", joint.name);
            if let Some(u) = FloatingBranch::INPUT_NAMES.iter().position(|n| *n == name) {
                inputs[u] = tau[iv];
            }
            iv += joint.kind.size(PIN).1;
        }
        let mut model = FloatingBranch::default();
        set_inputs(&mut model, inputs);
        let sim = Integrator::<FloatingBranch, GaussLobatto<2>>::new(model, 0.01).unwrap();
        let qdd = sim.acceleration(&State::new(0.0, q, qd)).unwrap();
        let mut a = vec![0.0; nv];
        convert::acceleration_to(
            PIN,
            &FloatingBranch::JOINT_LAYOUT,
            &q,
            &qd,
            qdd.as_slice(),
            &mut a,
        )
        .unwrap();
        let err = relative_error(&a, &a_pin);
        assert!(
            err < 1e-10,
            "state {row}: {a:?} against ABA's {a_pin:?}: {err:e}"
        );
        // And the other way: ABA's acceleration as spark's q̈.
        let mut from = [0.0; N];
        convert::acceleration_from(
            PIN,
            &FloatingBranch::JOINT_LAYOUT,
            &q,
            &qd,
            &a_pin,
            &mut from,
        )
        .unwrap();
        let err2 = relative_error(&from, qdd.as_slice());
        assert!(err2 < 1e-10, "state {row}: q̈ from ABA {err2:e}");
        // The state back to Pinocchio's.
        let (mut q2, mut v2) = (vec![0.0; nq], vec![0.0; nv]);
        convert::state_to(
            PIN,
            &FloatingBranch::JOINT_LAYOUT,
            &q,
            &qd,
            &mut q2,
            &mut v2,
        )
        .unwrap();
        assert!(relative_error(&q2, &q_pin) < 1e-14 && relative_error(&v2, &v_pin) < 1e-14);
        worst = worst.max(err).max(err2);
    }
    eprintln!("floating branch against ABA: worst relative error {worst:e}");
}
