// Functions called with the wrong number of arguments, and blocks without a value.
spark::mechanics! {
    pub struct Pendulum {
        coordinates: [theta],
        velocities: [omega],
        parameters: [m = 1.0, l = 1.0, g = 9.81],
        lagrangian: {
            let ke = 0.5 * m * (l * omega).powi(2);
            let pe = -m * g * l * sin(theta, 1.0);
            ke - pe + omega.atan2() + f64::cos(theta);
        },
    }
}

fn main() {}
