// A misspelt field gets the nearest field name; an unknown one gets the list of fields.
spark::mechanics! {
    pub struct Pendulum {
        coordinates: [x, y],
        velocities: [vx, vy],
        parameters: [m = 1.0, l = 1.0, g = 9.81],
        lagrangian: 0.5 * m * (vx.powi(2) + vy.powi(2)) - m * g * y,
        holonomik: [x.powi(2) + y.powi(2) - l.powi(2)],
        mass_matrix: [[m, 0.0], [0.0, m]],
    }
}

fn main() {}
