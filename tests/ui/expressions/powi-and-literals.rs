// `powi` takes an integer literal; every literal and constant must be finite.
spark::mechanics! {
    pub struct Oscillator {
        coordinates: [x],
        velocities: [v],
        parameters: [m = 1.0, k = 1.0, n = 3.0],
        lagrangian: 0.5 * m * v.powi(2) - k * x.powi(2.0) - k * x.powi(n)
            + 1e999 * x + f64::INFINITY,
    }
}

fn main() {}
