// A field or list item that does not parse does not hide the errors of the other fields.
spark::mechanics! {
    pub struct Pendulum {
        coordinates: [x, y],
        velocities: [vx, vy, 1.0],
        parameters: [m: f64, l = 1.0, g = 9.81],
        lagrangian: 0.5 * m * (vx.powi(2) + vy.powi(2)) - m * g * y +,
        holonomic: [x.powi(2) + y.powi(2) - lenght.powi(2)]
        nonholonomic: [],
    }
}

fn main() {
    // The parameters survive the mistakes above: the stub has all three fields.
    let _ = Pendulum { m: 1.0, l: 1.0, g: 9.81 };
}
