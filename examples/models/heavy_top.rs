// The heavy symmetric top in unit-quaternion coordinates q = (a, b, c, d) (scalar first), fixed at
// its tip, centre of mass at distance l on the body's symmetry axis e3. Body angular velocity
// Ω = 2 vec(q̄ ⊗ q̇). The term ½ (q · q̇)² vanishes with the hidden constraint q · q̇ = 0 and its
// time derivative, so it leaves the motion unchanged; it makes the Lagrangian regular (the kinetic
// energy alone does not depend on the component of q̇ along q). Shared by `examples/heavy_top.rs`
// and `tests/mechanisms/rigid_body.rs`.

spark::mechanics! {
    /// Ω1, the body angular velocity about body axis 1.
    fn omega1(a: f64, b: f64, c: f64, d: f64, va: f64, vb: f64, vc: f64, vd: f64) -> f64 {
        2.0 * (a * vb - va * b - (c * vd - d * vc))
    }
    /// Ω2.
    fn omega2(a: f64, b: f64, c: f64, d: f64, va: f64, vb: f64, vc: f64, vd: f64) -> f64 {
        2.0 * (a * vc - va * c - (d * vb - b * vd))
    }
    /// Ω3.
    fn omega3(a: f64, b: f64, c: f64, d: f64, va: f64, vb: f64, vc: f64, vd: f64) -> f64 {
        2.0 * (a * vd - va * d - (b * vc - c * vb))
    }
    /// A heavy symmetric top (I1 = I2 = i1, I3 = i3) on a fixed tip.
    pub struct HeavyTop {
        coordinates: [a, b, c, d],
        velocities: [va, vb, vc, vd],
        parameters: [i1 = 1.0, i3 = 0.4, mgl = 2.0],
        lagrangian: 0.5 * i1 * (omega1(a, b, c, d, va, vb, vc, vd).powi(2) + omega2(a, b, c, d, va, vb, vc, vd).powi(2))
            + 0.5 * i3 * omega3(a, b, c, d, va, vb, vc, vd).powi(2)
            + 0.5 * (a * va + b * vb + c * vc + d * vd).powi(2)
            - mgl * (a.powi(2) - b.powi(2) - c.powi(2) + d.powi(2)),
        holonomic: [a.powi(2) + b.powi(2) + c.powi(2) + d.powi(2) - 1.0],
    }
}

/// Body angular velocity Ω of the top at (q, q̇).
#[allow(dead_code)]
fn body_rate(q: &[f64; 4], v: &[f64; 4]) -> [f64; 3] {
    let [a, b, c, d] = *q;
    let [va, vb, vc, vd] = *v;
    [
        2.0 * (a * vb - va * b - (c * vd - d * vc)),
        2.0 * (a * vc - va * c - (d * vb - b * vd)),
        2.0 * (a * vd - va * d - (b * vc - c * vb)),
    ]
}

/// The vertical component of the angular momentum about the tip, (R I Ω)_z.
#[allow(dead_code)]
fn vertical_momentum(top: &HeavyTop, q: &[f64; 4], v: &[f64; 4]) -> f64 {
    let [a, b, c, d] = *q;
    let w = body_rate(q, v);
    let m = [top.i1 * w[0], top.i1 * w[1], top.i3 * w[2]];
    let row = [2.0 * (b * d - a * c), 2.0 * (c * d + a * b), a * a - b * b - c * c + d * d];
    row[0] * m[0] + row[1] * m[1] + row[2] * m[2]
}

/// q̇ = ½ q ⊗ (0, Ω): the quaternion rate of body angular velocity Ω.
#[allow(dead_code)]
fn quaternion_rate(q: &[f64; 4], w: &[f64; 3]) -> [f64; 4] {
    let [a, b, c, d] = *q;
    let [x, y, z] = *w;
    [
        0.5 * (-b * x - c * y - d * z),
        0.5 * (a * x + c * z - d * y),
        0.5 * (a * y + d * x - b * z),
        0.5 * (a * z + b * y - c * x),
    ]
}
