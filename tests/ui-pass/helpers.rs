// Helpers as Rust functions: a parameter named `t` or like a coordinate, a `let` named like
// the caller's coordinate, a helper after the struct.
spark::mechanics! {
    fn pot(x: f64, y: f64) -> f64 { let x = x * 2.0; x.powi(2) + y.powi(2) }
    fn at(t: f64) -> f64 { t * 2.0 }
    pub struct Hygienic {
        coordinates: [x, y],
        velocities: [vx, vy],
        lagrangian: 0.5 * (vx.powi(2) + vy.powi(2)) - pot(y, x) - at(t) * later(x),
    }
    fn later(a: f64) -> f64 { a }
}

fn main() {
    let _ = Hygienic::default();
}
