// A planar four-bar linkage in its three link angles: crank θ1 (length 1, pivot (0, 0)),
// coupler θ2 (length 2), rocker θ3 (length 1, pivot (2, 0)); ground 2: a parallelogram. Uniform
// rods of unit mass, no gravity. The loop closes with two holonomic constraints whose Jacobian
// loses rank at the change points θ1 = θ2 = θ3 = 0 (or π), where the parallelogram branch
// (θ2 = 0, θ3 = θ1) crosses the anti-parallelogram branch. Included by tests/suite/four_bar.rs and
// examples/four_bar.rs.

spark::mechanics! {
    /// The parallelogram four-bar linkage (issue 15's change-point example).
    pub struct FourBar {
        coordinates: [t1, t2, t3],
        velocities: [w1, w2, w3],
        parameters: [m = 1.0],
        definitions: {
            // Velocity of the coupler's centre: B' + (−sin θ2, cos θ2) θ2' with B = (cos θ1, sin θ1).
            let vx = -t1.sin() * w1 - t2.sin() * w2;
            let vy = t1.cos() * w1 + t2.cos() * w2;
        },
        // Crank and rocker about their pivots (I = m/3), coupler: centre plus spin (I = m·4/12).
        lagrangian: m / 6.0 * (w1.powi(2) + w3.powi(2))
            + 0.5 * m * (vx.powi(2) + vy.powi(2))
            + m / 6.0 * w2.powi(2),
        holonomic: [
            t1.cos() + 2.0 * t2.cos() - t3.cos() - 2.0,
            t1.sin() + 2.0 * t2.sin() - t3.sin(),
        ],
    }
}
