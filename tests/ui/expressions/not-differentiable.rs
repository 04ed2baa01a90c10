// Arguments that simplify to a constant outside the domain of a function or of its
// derivative.
spark::mechanics! {
    pub struct Pendulum {
        coordinates: [x, y],
        velocities: [vx, vy],
        parameters: [m = 1.0, l = 1.0, g = 9.81],
        lagrangian: 0.5 * m * (vx.powi(2) + vy.powi(2)) - m * g * y
            + (l - l).sqrt() * x
            + (1.0 - 3.0).ln() * y
            + 2.0.asin() * x
            + x / (l - l)
            + (-2.0).powf(x)
            + (x - x).powi(-2),
        holonomic: [x.powi(2) + y.powi(2) - l.powi(2)],
    }
}

fn main() {}
