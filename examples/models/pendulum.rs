// The planar pendulum in Cartesian coordinates (mass m on a rod of length l), shared by the
// examples and tests that include it.

spark::mechanics! {
    /// Planar pendulum in Cartesian coordinates.
    pub struct Pendulum {
        coordinates: [x, y],
        velocities: [vx, vy],
        parameters: [m = 1.0, l = 1.0, g = 9.81],
        lagrangian: 0.5 * m * (vx.powi(2) + vy.powi(2)) - m * g * y,
        holonomic: [x.powi(2) + y.powi(2) - l.powi(2)],
    }
}
