// Indexing what is not an array, or an array twice, says what is wrong.
spark::mechanics! {
    const N: usize = 2;
    pub struct Indexing {
        coordinates: [x[2], y],
        velocities: [v[2], vy],
        lagrangian: 0.5 * (v[0].powi(2) + v[1].powi(2) + vy.powi(2)) - x[0][1] - y[0] - N[1] - z[0]
            + holonomic_velocity(0.0),
        holonomic: [x[0] + v[1]],
    }
    fn holonomic_velocity(a: f64) -> f64 { a }
}

fn main() {}
