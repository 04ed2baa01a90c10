// A holonomic constraint depends on `t` and the coordinates only.
spark::mechanics! {
    pub struct Skate {
        coordinates: [x, y, phi],
        velocities: [vx, vy, vphi],
        parameters: [m = 1.0, j = 0.1],
        lagrangian: 0.5 * m * (vx.powi(2) + vy.powi(2)) + 0.5 * j * vphi.powi(2),
        holonomic: [vx * phi.sin() - vy * phi.cos()],
    }
}

fn main() {}
