// An input inside a holonomic and inside a nonholonomic constraint: a jump of the input between
// steps would leave the state off the constraint.
spark::mechanics! {
    pub struct Slider {
        coordinates: [x, y, phi],
        velocities: [vx, vy, om],
        inputs: [u, steer],
        lagrangian: 0.5 * (vx.powi(2) + vy.powi(2) + om.powi(2)),
        holonomic: [y - u * x],
        nonholonomic: [vx * (phi + steer).sin() - vy * (phi + steer).cos()],
        forces: [u, 0.0, steer],
    }
}

fn main() {}
