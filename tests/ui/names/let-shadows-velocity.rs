// A definition named like a velocity: the `let` is the mistake, not the declaration.
spark::mechanics! {
    pub struct Shadow {
        coordinates: [y],
        velocities: [vy],
        definitions: {
            let vy = 2.0 * y;
        },
        lagrangian: 0.5 * vy.powi(2),
    }
}

fn main() {}
