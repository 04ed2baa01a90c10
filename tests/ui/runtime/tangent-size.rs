spark::mechanics! {
    pub struct Pendulum {
        coordinates: [x, y],
        velocities: [vx, vy],
        parameters: [m = 1.0, l = 1.0, g = 9.81],
        lagrangian: 0.5 * m * (vx.powi(2) + vy.powi(2)) - m * g * y,
        holonomic: [x.powi(2) + y.powi(2) - l.powi(2)],
    }
}

use spark::{GaussLobatto, Integrator, State, TangentBasis};

fn main() {
    let sim = Integrator::<Pendulum, GaussLobatto<2>>::new(Pendulum::default(), 0.01).unwrap();
    let s = State::new(0.0, [1.0, 0.0], [0.0, 0.0]);
    // The tangent space of a pendulum has dimension 2, not 3.
    let _t: TangentBasis<2, 3> = sim.tangent(&s).unwrap();
}
