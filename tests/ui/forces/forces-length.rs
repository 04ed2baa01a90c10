// `forces` needs one generalized force per coordinate.
spark::mechanics! {
    pub struct Cart {
        coordinates: [x, y],
        velocities: [vx, vy],
        inputs: [u],
        lagrangian: 0.5 * (vx.powi(2) + vy.powi(2)),
        forces: [u],
    }
}

fn main() {}
