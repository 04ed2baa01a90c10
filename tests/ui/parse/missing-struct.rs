// A model that does not even start like a struct: the error says what the header looks like.
spark::mechanics! {
    pub Pendulum {
        coordinates: [x, y],
        velocities: [vx, vy],
        lagrangian: 0.5 * (vx.powi(2) + vy.powi(2)) - 9.81 * y,
    }
}

fn main() {}
