// A nonholonomic constraint that is exactly d/dt of a function of t and q is holonomic in
// disguise; a genuine one (the knife edge, last model) is accepted.
spark::mechanics! {
    pub struct Disguised {
        coordinates: [x, y, z],
        velocities: [vx, vy, vz],
        lagrangian: 0.5 * (vx.powi(2) + vy.powi(2) + vz.powi(2)),
        nonholonomic: [
            x * vx + y * vy,              // d/dt (x² + y²)/2
            vz - 2.0 * t,                 // d/dt (z − t²)
        ],
    }
}

spark::mechanics! {
    pub struct KnifeEdge {
        coordinates: [x, y, phi],
        velocities: [vx, vy, vphi],
        lagrangian: 0.5 * (vx.powi(2) + vy.powi(2) + vphi.powi(2)),
        nonholonomic: [vx * phi.sin() - vy * phi.cos()],
    }
}

fn main() {}
