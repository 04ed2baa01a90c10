// Constraints whose gradients are dependent everywhere (a repeated constraint, a multiple
// of another) are reported even when there are fewer than coordinates.
spark::mechanics! {
    pub struct Chain {
        coordinates: [x, y, z, w],
        velocities: [vx, vy, vz, vw],
        parameters: [m = 1.0, l = 1.0],
        lagrangian: 0.5 * m * (vx.powi(2) + vy.powi(2) + vz.powi(2) + vw.powi(2)),
        holonomic: [
            x.powi(2) + y.powi(2) - l.powi(2),
            2.0 * (x.powi(2) + y.powi(2)) - 2.0 * l.powi(2) + (z - w).sin() - (z - w).sin(),
            (x.powi(2) + y.powi(2)).sqrt() - l,
        ],
    }
}

fn main() {}
