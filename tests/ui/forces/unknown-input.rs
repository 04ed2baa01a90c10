// A force that reads an input that was never declared.
spark::mechanics! {
    pub struct Cart {
        coordinates: [x],
        velocities: [vx],
        inputs: [push],
        lagrangian: 0.5 * vx.powi(2),
        forces: [puhs - vx],
    }
}

fn main() {}
