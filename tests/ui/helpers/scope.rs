// A helper is a Rust function: it sees its parameters, its own `let`s, constants and other
// helpers, never the caller's `let` bindings, loop variables, the model's names or `t`.
spark::mechanics! {
    const K: usize = 2;
    fn reads_let(a: f64) -> f64 { a + k }
    fn reads_loop_variable(a: f64) -> f64 { a * i as f64 }
    fn reads_coordinate(a: f64) -> f64 { a * y + K }
    fn reads_time(a: f64) -> f64 { a * t }
    pub struct Scoped {
        coordinates: [x[2], y],
        velocities: [v[2], vy],
        lagrangian: {
            let k = 2.0;
            0.5 * vy.powi(2) + reads_let(y) + reads_coordinate(y) + reads_time(y)
                + (0..2).map(|i| 0.5 * v[i].powi(2) + reads_loop_variable(x[i])).sum::<f64>()
        },
    }
}

fn main() {}
