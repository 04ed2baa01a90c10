// Required fields that are missing are reported on the model's name.
spark::mechanics! {
    pub struct Pendulum {
        coordinates: [x, y],
        parameters: [m = 1.0, l = 1.0, g = 9.81],
        holonomic: [x.powi(2) + y.powi(2) - l.powi(2)],
    }
}

fn main() {}
