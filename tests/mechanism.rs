//! Mechanisms from model files (`urdf:` and `mjcf:` in `mechanics!`): a double pendulum from a
//! URDF against hand-written Lagrangians, a four-bar from MJCF keeping its loop closed.

use spark::{GaussLobatto, Integrator, State};

include!("../examples/models/double_pendulum.rs");

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
    assert_eq!([sys.gravity_x, sys.gravity_y, sys.gravity_z], [0.0, 0.0, -9.81]);
}
