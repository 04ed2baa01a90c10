// The particle of Jay's index-2 Lobatto paper (002 §4, guide E8) in Lagrangian form, with its
// initial state. Included by examples/lobatto_index2.rs and tests/suite/lobatto_index2.rs.

spark::mechanics! {
    /// 002 §4 (E8) in Lagrangian form: H = ½|p|² + ½(x² + y²), φ = p_z − y p_x.
    pub struct Particle {
        coordinates: [x, y, z],
        velocities: [vx, vy, vz],
        lagrangian: 0.5 * (vx.powi(2) + vy.powi(2) + vz.powi(2)) - 0.5 * (x.powi(2) + y.powi(2)),
        nonholonomic: [vz - y * vx],
    }
}

/// The paper's initial state q0 = (1, 0, 0), v0 = (0, 1, 0).
#[allow(dead_code)]
pub fn e8_start() -> spark::State<3> {
    spark::State::new(0.0, [1.0, 0.0, 0.0], [0.0, 1.0, 0.0])
}
