// The ball on a rotating table of Small's thesis (§8.3.3): centre (q1, q2), rotation matrix
// Q = [[q3, q4, q5], [q6, q7, q8], [q9, q10, q11]], six holonomic constraints QᵀQ = I and two
// nonholonomic rolling constraints. The printed data are inconsistent (k2 = 3); `ball_start`
// is repair (a) of the implementation guide, v2 = −3.
// Included by examples/thesis_figures.rs, tests/suite/ball_table.rs and tests/suite/emprk.rs.

spark::mechanics! {
    /// Ball rolling on a table turning with angular speed `omega` (thesis §8.3.3). The thesis
    /// prints the rotational energy as ½ I² Σ v_i² (a typo); with I = 1 every variant agrees.
    pub struct BallTable {
        coordinates: [q1, q2, q3, q4, q5, q6, q7, q8, q9, q10, q11],
        velocities: [v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11],
        parameters: [m = 1.0, inertia = 1.0, r = 1.0, omega = 1.0],
        lagrangian: 0.5 * m * (v1.powi(2) + v2.powi(2))
            + 0.5 * inertia * (v3.powi(2) + v4.powi(2) + v5.powi(2) + v6.powi(2) + v7.powi(2)
                + v8.powi(2) + v9.powi(2) + v10.powi(2) + v11.powi(2)),
        holonomic: [
            q3.powi(2) + q6.powi(2) + q9.powi(2) - 1.0,
            q3 * q4 + q6 * q7 + q9 * q10,
            q3 * q5 + q6 * q8 + q9 * q11,
            q4.powi(2) + q7.powi(2) + q10.powi(2) - 1.0,
            q4 * q5 + q7 * q8 + q10 * q11,
            q5.powi(2) + q8.powi(2) + q11.powi(2) - 1.0,
        ],
        nonholonomic: [
            v1 - r * (v3 * q9 + v4 * q10 + v5 * q11) + omega * q2,
            v2 - r * (v9 * q6 + v10 * q7 + v11 * q8) - omega * q1,
        ],
    }
}

/// Centre (3, 0), Q = identity.
#[allow(dead_code)]
pub const BALL_Q0: [f64; 11] = [3.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0];
/// The printed velocities: spin 6 about the x-axis, centre at rest (k2 = 3: inconsistent).
#[allow(dead_code)]
pub const BALL_V0_PRINTED: [f64; 11] = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 6.0, 0.0, -6.0, 0.0];

/// Repair (a) of the printed data: v2 = −3 (consistent; λ0 = (0, 0, −1, 18, 0, 18),
/// ψ0 = (−2, 0), H0 = 40.5).
#[allow(dead_code)]
pub fn ball_start() -> spark::State<11> {
    let mut v = BALL_V0_PRINTED;
    v[1] = -3.0;
    spark::State::new(0.0, BALL_Q0, v)
}
