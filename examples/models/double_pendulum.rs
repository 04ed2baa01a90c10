// The double pendulum in Cartesian coordinates, shared by examples/double_pendulum.rs and
// tests/suite/double_pendulum.rs.

spark::mechanics! {
    /// Two point masses on massless rods, Cartesian coordinates, gravity along -y.
    pub struct DoublePendulum {
        coordinates: [x1, y1, x2, y2],
        velocities: [u1, w1, u2, w2],
        parameters: [m1 = 1.0, m2 = 1.0, l1 = 1.0, l2 = 1.0, g = 9.81],
        lagrangian: 0.5 * m1 * (u1.powi(2) + w1.powi(2)) + 0.5 * m2 * (u2.powi(2) + w2.powi(2))
            - g * (m1 * y1 + m2 * y2),
        holonomic: [
            x1.powi(2) + y1.powi(2) - l1.powi(2),
            (x2 - x1).powi(2) + (y2 - y1).powi(2) - l2.powi(2),
        ],
    }
}
