// Dry friction written with `signum` or `abs` has no derivative where the velocity vanishes.
spark::mechanics! {
    pub struct Block {
        coordinates: [x, y],
        velocities: [vx, vy],
        parameters: [mu = 0.3],
        lagrangian: 0.5 * (vx.powi(2) + vy.powi(2)),
        forces: [-mu * vx.signum(), -mu * vy * vy.abs()],
    }
}

fn main() {}
