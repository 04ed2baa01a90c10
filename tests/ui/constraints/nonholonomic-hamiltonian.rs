// Nonholonomic constraints are integrated for Lagrangian models only.
spark::mechanics! {
    pub struct Rolling {
        coordinates: [x, y, theta],
        momenta: [px, py, ptheta],
        hamiltonian: 0.5 * (px.powi(2) + py.powi(2) + ptheta.powi(2)),
        nonholonomic: [px - theta.cos() * py],
    }
}

fn main() {}
