// Brackets nested deeper than the limit: one spanned error, and the rest of the model is
// still checked (the unknown name in `holonomic`) and its struct exists.
spark::mechanics! {
    pub struct Deep {
        coordinates: [x, y],
        velocities: [vx, vy],
        parameters: [k = 1.0],
        lagrangian: 0.5 * (vx.powi(2) + vy.powi(2)) - k * ((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((x)))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))),
        holonomic: [x.powi(2) + y.powi(2) - r.powi(2)],
    }
}

fn main() {
    let _ = Deep { k: 2.0 };
}
