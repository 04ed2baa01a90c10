// Names starting with `__spark` belong to the expansion: one clear error, no error from inside
// the generated code.
spark::mechanics! {
    pub struct Reserved {
        coordinates: [__spark_reported],
        velocities: [v],
        lagrangian: 0.5 * v.powi(2) - __spark_reported.powi(2),
    }
}

fn main() {}
