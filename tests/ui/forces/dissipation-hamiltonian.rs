// A Rayleigh dissipation function needs velocities: a Hamiltonian model writes its damping in
// `forces`; a force may not depend on a multiplier of the DAE form.
spark::mechanics! {
    pub struct Oscillator {
        coordinates: [x],
        momenta: [p],
        parameters: [c = 0.1],
        hamiltonian: 0.5 * (p.powi(2) + x.powi(2)),
        dissipation: 0.5 * c * p.powi(2),
    }
}

spark::mechanics! {
    pub struct Bead {
        coordinates: [x, y],
        variables: [vx, vy],
        multipliers: [lambda],
        v: [vx, vy],
        p: [vx, vy],
        f: [0.0, -1.0],
        r: [-2.0 * x * lambda, -2.0 * y * lambda],
        holonomic: [x.powi(2) + y.powi(2) - 1.0],
        forces: [-lambda * vx, 0.0],
    }
}

fn main() {}
