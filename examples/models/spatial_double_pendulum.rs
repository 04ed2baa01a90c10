// A spatial double pendulum of two rigid bodies (issue 16): body A swings about a fixed
// spherical joint at the origin, body B hangs from A's far end by a second spherical joint.
// Orientations are unit quaternions (scalar first), body B's centre of mass has Cartesian
// coordinates; the joint is three holonomic constraints. Each body's symmetry axis is its body
// axis 3; gravity acts along −z. As in `heavy_top.rs`, ½ (q · q̇)² per quaternion makes the
// Lagrangian regular and vanishes on the motion. Shared by `examples/heavy_top.rs` and
// `tests/mechanisms/rigid_body.rs`; include it after `heavy_top.rs`, whose `body_rate` and
// `quaternion_rate` it uses.

spark::mechanics! {
    /// Body angular velocity about body axis 1 of orientation q with rate v.
    fn w1(a: f64, b: f64, c: f64, d: f64, va: f64, vb: f64, vc: f64, vd: f64) -> f64 {
        2.0 * (a * vb - va * b - (c * vd - d * vc))
    }
    /// About body axis 2.
    fn w2(a: f64, b: f64, c: f64, d: f64, va: f64, vb: f64, vc: f64, vd: f64) -> f64 {
        2.0 * (a * vc - va * c - (d * vb - b * vd))
    }
    /// About body axis 3.
    fn w3(a: f64, b: f64, c: f64, d: f64, va: f64, vb: f64, vc: f64, vd: f64) -> f64 {
        2.0 * (a * vd - va * d - (b * vc - c * vb))
    }
    /// Components of the body's axis 3 in space, R(q) e3.
    fn ex(a: f64, b: f64, c: f64, d: f64) -> f64 { 2.0 * (b * d + a * c) }
    /// y component.
    fn ey(a: f64, b: f64, c: f64, d: f64) -> f64 { 2.0 * (c * d - a * b) }
    /// z component.
    fn ez(a: f64, b: f64, c: f64, d: f64) -> f64 { a * a - b * b - c * c + d * d }
    /// Two rigid bodies on spherical joints: A about the origin (inertia about the joint
    /// `ja`, `ja`, `ka`; centre of mass at `la` along its axis, far joint at `2 la`), B by its
    /// end (inertia about its centre `jb`, `jb`, `kb`; centre `lb` from the joint).
    pub struct SpatialDoublePendulum {
        coordinates: [a0, a1, a2, a3, b0, b1, b2, b3, x, y, z],
        velocities: [va0, va1, va2, va3, vb0, vb1, vb2, vb3, vx, vy, vz],
        parameters: [ma = 1.0, ja = 0.4, ka = 0.05, la = 0.5, mb = 0.8, jb = 0.1, kb = 0.04, lb = 0.4, g = 9.81],
        lagrangian: 0.5 * ja * (w1(a0, a1, a2, a3, va0, va1, va2, va3).powi(2) + w2(a0, a1, a2, a3, va0, va1, va2, va3).powi(2))
            + 0.5 * ka * w3(a0, a1, a2, a3, va0, va1, va2, va3).powi(2)
            + 0.5 * jb * (w1(b0, b1, b2, b3, vb0, vb1, vb2, vb3).powi(2) + w2(b0, b1, b2, b3, vb0, vb1, vb2, vb3).powi(2))
            + 0.5 * kb * w3(b0, b1, b2, b3, vb0, vb1, vb2, vb3).powi(2)
            + 0.5 * mb * (vx.powi(2) + vy.powi(2) + vz.powi(2))
            + 0.5 * (a0 * va0 + a1 * va1 + a2 * va2 + a3 * va3).powi(2)
            + 0.5 * (b0 * vb0 + b1 * vb1 + b2 * vb2 + b3 * vb3).powi(2)
            - ma * g * la * ez(a0, a1, a2, a3) - mb * g * z,
        holonomic: [
            a0.powi(2) + a1.powi(2) + a2.powi(2) + a3.powi(2) - 1.0,
            b0.powi(2) + b1.powi(2) + b2.powi(2) + b3.powi(2) - 1.0,
            x - 2.0 * la * ex(a0, a1, a2, a3) - lb * ex(b0, b1, b2, b3),
            y - 2.0 * la * ey(a0, a1, a2, a3) - lb * ey(b0, b1, b2, b3),
            z - 2.0 * la * ez(a0, a1, a2, a3) - lb * ez(b0, b1, b2, b3),
        ],
    }
}

/// R(q) e3.
#[allow(dead_code)]
fn axis(q: &[f64; 4]) -> [f64; 3] {
    let [a, b, c, d] = *q;
    [2.0 * (b * d + a * c), 2.0 * (c * d - a * b), a * a - b * b - c * c + d * d]
}

/// R(q) x: a body vector in space.
#[allow(dead_code)]
fn rotate(q: &[f64; 4], x: &[f64; 3]) -> [f64; 3] {
    let [a, b, c, d] = *q;
    let r = [
        [a * a + b * b - c * c - d * d, 2.0 * (b * c - a * d), 2.0 * (b * d + a * c)],
        [2.0 * (b * c + a * d), a * a - b * b + c * c - d * d, 2.0 * (c * d - a * b)],
        [2.0 * (b * d - a * c), 2.0 * (c * d + a * b), a * a - b * b - c * c + d * d],
    ];
    core::array::from_fn(|i| r[i][0] * x[0] + r[i][1] * x[1] + r[i][2] * x[2])
}

fn cross(u: &[f64; 3], v: &[f64; 3]) -> [f64; 3] {
    [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]]
}

/// A consistent state from the orientations `qa`, `qb` and body angular velocities `wa`, `wb`.
#[allow(dead_code)]
fn sdp_state(
    p: &SpatialDoublePendulum,
    qa: [f64; 4],
    qb: [f64; 4],
    wa: [f64; 3],
    wb: [f64; 3],
) -> spark::State<11> {
    let (ea, eb) = (axis(&qa), axis(&qb));
    let r: [f64; 3] = core::array::from_fn(|i| 2.0 * p.la * ea[i] + p.lb * eb[i]);
    // d/dt (R e3) = R (Ω × e3).
    let (da, db) = (
        rotate(&qa, &cross(&wa, &[0.0, 0.0, 1.0])),
        rotate(&qb, &cross(&wb, &[0.0, 0.0, 1.0])),
    );
    let rv: [f64; 3] = core::array::from_fn(|i| 2.0 * p.la * da[i] + p.lb * db[i]);
    let (va, vb) = (quaternion_rate(&qa, &wa), quaternion_rate(&qb, &wb));
    let mut q = [0.0; 11];
    let mut v = [0.0; 11];
    q[..4].copy_from_slice(&qa);
    q[4..8].copy_from_slice(&qb);
    q[8..].copy_from_slice(&r);
    v[..4].copy_from_slice(&va);
    v[4..8].copy_from_slice(&vb);
    v[8..].copy_from_slice(&rv);
    spark::State::new(0.0, q, v)
}

/// The vertical angular momentum about the fixed joint: A's `(R I Ω)_z`, B's orbital
/// `mb (r × ṙ)_z` and spin `(R I Ω)_z`.
#[allow(dead_code)]
fn sdp_vertical_momentum(p: &SpatialDoublePendulum, s: &spark::State<11>) -> f64 {
    let part = |i: usize| -> ([f64; 4], [f64; 4]) {
        (
            core::array::from_fn(|k| s.q[i + k]),
            core::array::from_fn(|k| s.v[i + k]),
        )
    };
    let ((qa, va), (qb, vb)) = (part(0), part(4));
    let (wa, wb) = (body_rate(&qa, &va), body_rate(&qb, &vb));
    let la_ = rotate(&qa, &[p.ja * wa[0], p.ja * wa[1], p.ka * wa[2]]);
    let lb_ = rotate(&qb, &[p.jb * wb[0], p.jb * wb[1], p.kb * wb[2]]);
    let orbital = p.mb * (s.q[8] * s.v[9] - s.q[9] * s.v[8]);
    la_[2] + lb_[2] + orbital
}
