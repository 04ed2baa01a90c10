// The charged particle on a sphere of Jay (2007), (6.2a,b), in Hamiltonian form and in the
// equivalent Lagrangian form (Legendre transform: p = m v + m ω (−q2, q1, 0)).
// Included by examples/charged_particle.rs and tests/suite/charged_particle.rs.

spark::mechanics! {
    /// Charged particle on a sphere in a magnetic and an electric field (Hamiltonian form).
    pub struct ChargedParticle {
        coordinates: [q1, q2, q3],
        momenta: [p1, p2, p3],
        parameters: [m = 1.0, w = 1.0, r = 1.0, e = 1.0],
        hamiltonian: ((p1 + m * w * q2).powi(2) + (p2 - m * w * q1).powi(2) + p3.powi(2)) / (2.0 * m) - e * q3,
        holonomic: [(q1.powi(2) + q2.powi(2) + q3.powi(2)).sqrt() - r],
    }
}

spark::mechanics! {
    /// The same particle in Lagrangian form: L = ½ m |v|² + m ω (q1 v2 − q2 v1) + e q3.
    pub struct ChargedParticleL {
        coordinates: [q1, q2, q3],
        velocities: [v1, v2, v3],
        parameters: [m = 1.0, w = 1.0, r = 1.0, e = 1.0],
        lagrangian: 0.5 * m * (v1.powi(2) + v2.powi(2) + v3.powi(2)) + m * w * (q1 * v2 - q2 * v1) + e * q3,
        holonomic: [(q1.powi(2) + q2.powi(2) + q3.powi(2)).sqrt() - r],
    }
}

/// Initial coordinates of (6.2): q0 = (0.2, 0.2, √0.92).
#[allow(dead_code)]
pub fn q0() -> [f64; 3] {
    [0.2, 0.2, 0.92f64.sqrt()]
}

/// Initial momenta of (6.2): p0 = (1, −1, 0).
#[allow(dead_code)]
pub const P0: [f64; 3] = [1.0, -1.0, 0.0];
