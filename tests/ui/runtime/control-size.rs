spark::mechanics! {
    pub struct Cart {
        coordinates: [x],
        velocities: [vx],
        inputs: [push],
        lagrangian: 0.5 * vx.powi(2),
        forces: [push],
    }
}

use spark::control::cost::Quadratic;
use spark::control::ilqr::{Bounds, Settings};
use spark::control::nmpc::Nmpc;
use spark::nalgebra::{SMatrix, SVector};
use spark::{GaussLobatto, Integrator, State};

fn main() {
    let mut sim = Integrator::<Cart, GaussLobatto<2>>::new(Cart::default(), 0.1).unwrap();
    let s = State::new(0.0, [0.0], [0.0]);
    let cost = Quadratic::<2, 1> {
        q: SMatrix::identity(),
        r: SMatrix::identity(),
        qf: SMatrix::identity(),
        x_ref: SVector::zeros(),
        u_ref: SVector::zeros(),
    };
    // The cart's tangent space has dimension 2, not 3.
    let mut mpc = Nmpc::<1, 1, 3, 10>::new(&s, [SVector::zeros(); 10], 1, Settings::default());
    let _ = mpc.control(&mut sim, &cost, &Bounds::symmetric(1.0), &s);
}
