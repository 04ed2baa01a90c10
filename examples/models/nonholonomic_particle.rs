// The nonholonomic particle of Jay's Lagrange-d'Alembert paper (004 §8.1).
// Included by examples/nonholonomic_particle.rs, tests/suite/nonholonomic.rs, tests/suite/emprk.rs and
// tests/suite/nonholonomic_lobatto.rs.

spark::mechanics! {
    /// The nonholonomic particle: L = ½|v|² − (q1² + q2²), k = v3 − q2 v1.
    pub struct Particle {
        coordinates: [q1, q2, q3],
        velocities: [v1, v2, v3],
        lagrangian: 0.5 * (v1.powi(2) + v2.powi(2) + v3.powi(2)) - (q1.powi(2) + q2.powi(2)),
        nonholonomic: [v3 - q2 * v1],
    }
}

/// The paper's initial state q0 = (1, 0, 0), v0 = (0, 1, 0).
#[allow(dead_code)]
pub fn particle_start() -> spark::State<3> {
    spark::State::new(0.0, [1.0, 0.0, 0.0], [0.0, 1.0, 0.0])
}
