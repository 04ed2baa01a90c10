// `dt(e)` is the time derivative of an expression of `t` and the coordinates: not of one with
// a velocity (that would need accelerations), not in a model without velocities, one argument.
spark::mechanics! {
    pub struct Slider {
        coordinates: [x, y],
        velocities: [vx, vy],
        parameters: [m = 1.0],
        lagrangian: 0.5 * m * (vx.powi(2) + vy.powi(2)) + dt(x * vx) + dt(x, y),
    }
}

spark::mechanics! {
    pub struct Oscillator {
        coordinates: [x],
        momenta: [p],
        hamiltonian: 0.5 * p.powi(2) + 0.5 * x.powi(2) + dt(x),
    }
}

fn main() {}
