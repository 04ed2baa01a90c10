// Each mistake is one error: a missing `.sum()`, a `for` loop in an expression or in
// `definitions`, and `min`, which is not differentiable.
spark::mechanics! {
    pub struct Cascades {
        coordinates: [x[2], y],
        velocities: [v[2], vy],
        definitions: {
            for i in 0..2 { let a = v[i]; }
        },
        lagrangian: (0..2).map(|i| 0.5 * v[i].powi(2))
            + for i in 0..2 { x[i] }
            + 0.5 * vy.min(1.0).powi(2) + vy.max(y),
    }
}

fn main() {}
