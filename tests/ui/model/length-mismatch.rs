// One velocity per coordinate: the names without a partner are reported.
spark::mechanics! {
    pub struct Particle {
        coordinates: [x, y, z],
        velocities: [vx, vy],
        parameters: [m = 1.0],
        lagrangian: 0.5 * m * (vx.powi(2) + vy.powi(2)),
    }
}

spark::mechanics! {
    pub struct Point {
        coordinates: [x],
        velocities: [vx, vy, vz],
        parameters: [m = 1.0],
        lagrangian: 0.5 * m * vx.powi(2),
    }
}

fn main() {}
