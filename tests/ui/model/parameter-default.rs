// A parameter default is a numeric literal.
spark::mechanics! {
    pub struct Spring {
        coordinates: [x],
        velocities: [vx],
        parameters: [m = 2.0 * 0.5, k = m, c = -1.5, d = 1e999],
        lagrangian: 0.5 * m * vx.powi(2) - 0.5 * k * x.powi(2) + c * d,
    }
}

fn main() {}
