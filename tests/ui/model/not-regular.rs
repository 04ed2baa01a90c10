// A velocity that does not appear in the Lagrangian, and one that appears only linearly:
// the mass matrix ∂²L/∂v² is singular.
spark::mechanics! {
    pub struct Cart {
        coordinates: [x, y, z],
        velocities: [vx, vy, vz],
        parameters: [m = 1.0, b = 0.5],
        lagrangian: 0.5 * m * vx.powi(2) + b * x * vy,
    }
}

fn main() {}
