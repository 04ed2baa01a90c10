// At least as many constraints as coordinates leave nothing to move.
spark::mechanics! {
    pub struct Pinned {
        coordinates: [x, y],
        velocities: [vx, vy],
        parameters: [m = 1.0, l = 1.0],
        lagrangian: 0.5 * m * (vx.powi(2) + vy.powi(2)),
        holonomic: [x.powi(2) + y.powi(2) - l.powi(2), y],
    }
}

fn main() {}
