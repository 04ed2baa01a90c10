// A name declared twice errors on both declarations; `t` and function names cannot be declared.
spark::mechanics! {
    pub struct Pendulum {
        coordinates: [x, y],
        velocities: [vx, t],
        parameters: [m = 1.0, l = 1.0, x = 9.81, sin],
        definitions: {
            let ke = 0.5 * m * vx.powi(2);
            let ke = ke + 0.5 * m * t.powi(2);
            let PI = 3.14;
        },
        lagrangian: ke - m * x * y,
        holonomic: [x.powi(2) + y.powi(2) - l.powi(2)],
    }
}

fn main() {}
