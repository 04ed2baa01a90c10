// Test problem (6.1a-d) of Jay (2007) (= (23a-c) of Jay, JCAM 2007), given directly as the
// overdetermined DAE (2.11): y' = v(y, z), (p(y, z))' = f(y, z) + r(y, λ), 0 = g(y), with r
// nonlinear in λ. Exact solution y1 = z1 = e^{2t}, y2 = z2 = e^{−t}, λ = e^t.
// Included by examples/problem61.rs and tests/suite/problem61.rs.

spark::mechanics! {
    /// Test problem (6.1) of Jay (2007): a nonlinear overdetermined DAE with a known solution.
    pub struct Problem61 {
        coordinates: [y1, y2],
        variables: [z1, z2],
        multipliers: [lam],
        v: [2.0 * z1, -z2],
        p: [z1, z2],
        f: [2.0 * y1 * y2 * z1 * z2 - y1 * z1 * z2, z1 - y1 * z2.powi(3)],
        r: [y1 * y2 * lam.powi(2), -y1.sqrt() * lam],
        holonomic: [y1 * y2.powi(2) - 1.0],
    }
}
