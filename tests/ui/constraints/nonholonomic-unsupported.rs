// Nonholonomic constraints are parsed and checked, but not integrated yet.
spark::mechanics! {
    pub struct Skate {
        coordinates: [x, y, phi],
        velocities: [vx, vy, vphi],
        parameters: [m = 1.0, j = 0.1],
        lagrangian: 0.5 * m * (vx.powi(2) + vy.powi(2)) + 0.5 * j * vphi.powi(2),
        nonholonomic: [vx * phi.sin() - vy * phi.cos()],
    }
}

fn main() {}
