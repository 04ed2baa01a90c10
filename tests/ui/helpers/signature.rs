// What a helper cannot be, each said once, on its own tokens; the calls add nothing.
spark::mechanics! {
    fn generic<T>(a: f64) -> f64 { a }
    fn bounded(a: f64) -> f64 where f64: Copy { a }
    const fn constant(a: f64) -> f64 { a }
    pub fn public(a: f64) -> f64 { a }
    fn returns(a: f64) -> f64 { return a * 2.0; }
    pub struct Signatures {
        coordinates: [x],
        velocities: [v],
        lagrangian: 0.5 * v.powi(2) - generic(x) - bounded(x) - constant(x) - public(x) - returns(x),
    }
}

fn main() {}
