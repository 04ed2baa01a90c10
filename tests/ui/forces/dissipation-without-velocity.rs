// A dissipation function that depends on no velocity adds no force.
spark::mechanics! {
    pub struct NoDamping {
        coordinates: [x],
        velocities: [vx],
        parameters: [c = 0.1],
        lagrangian: 0.5 * vx.powi(2) - 0.5 * x.powi(2),
        dissipation: 0.5 * c * x.powi(2),
    }
}

fn main() {}
