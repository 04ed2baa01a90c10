// An undeclared name, with the nearest declared name when one is close.
spark::mechanics! {
    pub struct Pendulum {
        coordinates: [theta],
        velocities: [omega],
        parameters: [m = 1.0, l = 1.0],
        lagrangian: 0.5 * m * l.powi(2) * omga.powi(2) + m * g * l * thta.cos(),
        holonomic: [],
    }
}

spark::mechanics! {
    pub struct Spring {
        coordinates: [x],
        velocities: [vx],
        parameters: [m = 1.0, k = 1.0],
        lagrangian: 0.5 * self.m * vx.powi(2) - 0.5 * k * (x - pi).powi(2),
    }
}

fn main() {}
