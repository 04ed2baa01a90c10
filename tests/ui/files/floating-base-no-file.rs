// `floating_base` without a URDF file.
spark::mechanics! {
    pub struct Particle {
        coordinates: [x],
        velocities: [v],
        lagrangian: 0.5 * v.powi(2),
        floating_base: true,
    }
}

fn main() {}
