// The skate on an inclined plane of Small's thesis (§8.3.2): a rod with two point masses m/2 at
// (q1, q2) and (q3, q4), holonomic rod length, nonholonomic "no sideways slip" of the centre.
// The thesis prints ℓ = 2 with end points 1 apart (inconsistent); the default here is ℓ = 1.
// Included by examples/skate.rs, examples/thesis_figures.rs, tests/suite/nonholonomic.rs,
// tests/suite/nonholonomic_lobatto.rs and tests/suite/emprk.rs.

spark::mechanics! {
    /// The skate (a rod with two point masses m/2) on an inclined plane; `gs` = γ sin β.
    pub struct Skate {
        coordinates: [q1, q2, q3, q4],
        velocities: [v1, v2, v3, v4],
        parameters: [m = 1.0, l = 1.0, gs = 1.0],
        lagrangian: 0.25 * m * (v1.powi(2) + v2.powi(2) + v3.powi(2) + v4.powi(2))
            + 0.5 * m * gs * (q1 + q3),
        holonomic: [0.5 * ((q3 - q1).powi(2) + (q4 - q2).powi(2) - l.powi(2))],
        nonholonomic: [-(q4 - q2) * (v1 + v3) + (q3 - q1) * (v2 + v4)],
    }
}

/// The thesis's initial state, consistent with ℓ = 1.
#[allow(dead_code)]
pub fn skate_start() -> spark::State<4> {
    spark::State::new(0.0, [-0.5, 0.0, 0.5, 0.0], [0.0, -0.5, 0.0, 0.5])
}
