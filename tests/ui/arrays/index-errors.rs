// Mistakes with arrays, loops, constants and helpers, each reported on its own tokens.
spark::mechanics! {
    const N: usize = 3;
    fn sq(a: f64) -> f64 { a * a }
    fn bad(a: f32) -> f64 { a }
    pub struct Chain {
        coordinates: [x[N], y[0]],
        velocities: [vx[N], vy[0]],
        inputs: [u[2]],
        lagrangian: (0..N).map(|i| 0.5 * sq(vx[i])).sum::<f64>() + x[N] + x[k] + x[1.5] + sq(x[0], x[1]),
        holonomic: [for i in 0..M { x[i] - 1.0 }, x - 1.0],
    }
}

fn main() {}
