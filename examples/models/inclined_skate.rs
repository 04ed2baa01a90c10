// The skate (knife edge) on an inclined plane of Jay's Lagrange-d'Alembert SPARK paper (004
// §8.2), m = I = g = 1, β = π/2, with its initial state and closed-form solution.
// Included by examples/lda_skate.rs, tests/suite/nonholonomic_lobatto.rs and tests/suite/lobatto_index2.rs.

spark::mechanics! {
    /// 004 §8.2: skate on an inclined plane; `sin_beta` = sin β (β = π/2, so U = −q1).
    pub struct Skate {
        coordinates: [q1, q2, q3],
        velocities: [v1, v2, v3],
        parameters: [m = 1.0, inertia = 1.0, g = 1.0, sin_beta = 1.0],
        lagrangian: 0.5 * m * (v1.powi(2) + v2.powi(2)) + 0.5 * inertia * v3.powi(2)
            + m * g * sin_beta * q1,
        nonholonomic: [q3.cos() * v2 - q3.sin() * v1],
    }
}

/// The paper's initial state q0 = (0, 0, 0), v0 = (0, 0, 1).
#[allow(dead_code)]
pub fn inclined_skate_start() -> spark::State<3> {
    spark::State::new(0.0, [0.0; 3], [0.0, 0.0, 1.0])
}

/// The closed form q3 = t, q1 = ½ sin²t, q2 = ½(t − ½ sin 2t), v = (sin t cos t, sin²t, 1).
#[allow(dead_code)]
pub fn inclined_skate_exact(t: f64) -> spark::State<3> {
    let (s, c) = t.sin_cos();
    spark::State::new(
        t,
        [0.5 * s * s, 0.5 * (t - 0.5 * (2.0 * t).sin()), t],
        [s * c, s * s, 1.0],
    )
}
