// A model needs at least one coordinate.
spark::mechanics! {
    pub struct Nothing {
        coordinates: [],
        velocities: [],
        parameters: [e = 1.0],
        lagrangian: e,
    }
}

fn main() {}
