// Helpers are inlined, so they cannot recurse: one error per cycle, on the call that closes it.
spark::mechanics! {
    fn twice(a: f64) -> f64 { twice(a) + twice(a) }
    fn ping(a: f64) -> f64 { pong(a) }
    fn pong(a: f64) -> f64 { ping(a) + 1.0 }
    pub struct Recursive {
        coordinates: [x],
        velocities: [v],
        lagrangian: 0.5 * v.powi(2) - twice(x) - ping(x),
    }
}

fn main() {}
