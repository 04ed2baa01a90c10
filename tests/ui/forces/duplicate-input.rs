// An input declared twice, and an input with the name of a parameter.
spark::mechanics! {
    pub struct Cart {
        coordinates: [x],
        velocities: [vx],
        parameters: [m = 1.0, k = 2.0],
        inputs: [u, u, k],
        lagrangian: 0.5 * m * vx.powi(2),
        forces: [u],
    }
}

fn main() {}
