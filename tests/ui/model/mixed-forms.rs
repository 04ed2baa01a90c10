// The dynamics are given in exactly one form, each with its own fields.

spark::mechanics! {
    // A Hamiltonian model listing velocities instead of momenta.
    pub struct HamiltonianWithVelocities {
        coordinates: [x],
        velocities: [vx],
        hamiltonian: 0.5 * vx.powi(2) + 0.5 * x.powi(2),
    }
}

spark::mechanics! {
    // Both a Lagrangian and a Hamiltonian.
    pub struct TwoForms {
        coordinates: [x],
        momenta: [px],
        lagrangian: 0.5 * x.powi(2),
        hamiltonian: 0.5 * px.powi(2) + 0.5 * x.powi(2),
    }
}

spark::mechanics! {
    // A DAE with a missing `r`, a short `f`, and a multiplier in `v`.
    pub struct BadDae {
        coordinates: [y1, y2],
        variables: [z1, z2],
        multipliers: [lam],
        v: [z1 * lam, z2],
        p: [z1, z2],
        f: [y1],
        holonomic: [y1 - y2],
    }
}

fn main() {}
