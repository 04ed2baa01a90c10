//! A rigid body in 3D through `mechanics!` (issue 16): the heavy symmetric top in unit-quaternion
//! coordinates, against Euler's equations in the body frame (an independent RK4 reference), with
//! its conserved momenta checked.

use crate::common;

include!("../../examples/models/heavy_top.rs");

use spark::{GaussLobatto, Integrator, Method, State};

/// Tilted 0.5 rad about body axis 1, spinning at 15 rad/s about its axis, a little precession.
fn start() -> State<4> {
    let q = [0.25f64.cos(), 0.25f64.sin(), 0.0, 0.0];
    State::new(0.0, q, quaternion_rate(&q, &[0.0, 0.3, 15.0]))
}

/// Euler's equations `I Ω' = (I Ω) × Ω + τ`, `τ = mgl (γ2, −γ1, 0)` with `γ = Rᵀ ẑ`, and
/// `q' = ½ q ⊗ (0, Ω)`, integrated by RK4 from the same state: `q` at `t_end`.
fn reference(top: &HeavyTop, t_end: f64) -> [f64; 4] {
    let s = start();
    let q0: [f64; 4] = s.q.into();
    let w0 = body_rate(&q0, &s.v.into());
    let y0 = [q0[0], q0[1], q0[2], q0[3], w0[0], w0[1], w0[2]];
    let inertia = [top.i1, top.i1, top.i3];
    let y = common::rk4(
        |y: &[f64; 7]| {
            let q = [y[0], y[1], y[2], y[3]];
            let w = [y[4], y[5], y[6]];
            let [a, b, c, d] = q;
            let gamma = [
                2.0 * (b * d - a * c),
                2.0 * (c * d + a * b),
                a * a - b * b - c * c + d * d,
            ];
            let tau = [top.mgl * gamma[1], -top.mgl * gamma[0], 0.0];
            let m = [inertia[0] * w[0], inertia[1] * w[1], inertia[2] * w[2]];
            let cross = [
                m[1] * w[2] - m[2] * w[1],
                m[2] * w[0] - m[0] * w[2],
                m[0] * w[1] - m[1] * w[0],
            ];
            let qd = quaternion_rate(&q, &w);
            [
                qd[0],
                qd[1],
                qd[2],
                qd[3],
                (cross[0] + tau[0]) / inertia[0],
                (cross[1] + tau[1]) / inertia[1],
                (cross[2] + tau[2]) / inertia[2],
            ]
        },
        y0,
        t_end,
        200_000,
    );
    [y[0], y[1], y[2], y[3]]
}

fn top_order<Meth: Method>(label: &str, order: f64, hs: &[f64]) {
    let top = HeavyTop::default();
    let t_end = 1.0;
    let exact = reference(&top, t_end);
    let errs: Vec<f64> = hs
        .iter()
        .map(|&h| {
            let s = common::run::<HeavyTop, Meth, 4, 1, 0>(top, start(), h, t_end);
            (0..4).fold(0.0f64, |m, i| m.max((s.q[i] - exact[i]).abs()))
        })
        .collect();
    common::assert_order(label, order, hs, &errs);
}

#[test]
fn the_quaternion_top_converges_to_eulers_equations_at_order_2s() {
    top_order::<GaussLobatto<1>>("heavy top GL1", 2.0, &[0.01, 0.005, 0.0025, 0.00125]);
    top_order::<GaussLobatto<2>>("heavy top GL2", 4.0, &[0.04, 0.02, 0.01, 0.005]);
}

#[test]
fn the_top_keeps_its_energy_and_both_conserved_momenta() {
    let top = HeavyTop::default();
    let s0 = start();
    let (q0, v0): ([f64; 4], [f64; 4]) = (s0.q.into(), s0.v.into());
    let lz0 = vertical_momentum(&top, &q0, &v0);
    let l30 = top.i3 * body_rate(&q0, &v0)[2];
    let mut energy_errors = Vec::new();
    let hs = [0.02, 0.01, 0.005];
    for h in hs {
        let mut sim = Integrator::<HeavyTop, GaussLobatto<2>>::new(top, h).unwrap();
        let mut s = s0;
        let e0 = sim.energy(&s);
        let (mut de, mut dlz, mut dl3) = (0.0f64, 0.0f64, 0.0f64);
        for _ in 0..(20.0 / h).round() as usize {
            sim.step(&mut s).unwrap();
            let (q, v): ([f64; 4], [f64; 4]) = (s.q.into(), s.v.into());
            de = de.max((sim.energy(&s) - e0).abs());
            dlz = dlz.max((vertical_momentum(&top, &q, &v) - lz0).abs());
            dl3 = dl3.max((top.i3 * body_rate(&q, &v)[2] - l30).abs());
            let (g, gv) = sim.constraint_residual(&s);
            assert!(g < 1e-12 && gv < 1e-12);
        }
        eprintln!(
            "h = {h}: max |E − E0| {de:.2e} (E0 {e0:.3}), |Lz − Lz0| {dlz:.2e} (Lz0 {lz0:.3}), |L3 − L30| {dl3:.2e} (L30 {l30:.3})"
        );
        // The momenta are kept far better than the method's order: 1e-11 and below.
        assert!(
            dlz < 1e-10 && dl3 < 1e-10,
            "momenta drift: {dlz:e}, {dl3:e}"
        );
        energy_errors.push(de);
    }
    // The energy error is bounded and of order 4.
    common::assert_order("heavy top energy error, GL2", 4.0, &hs, &energy_errors);
}

include!("../../examples/models/spatial_double_pendulum.rs");

#[test]
fn the_spatial_double_pendulum_keeps_energy_and_vertical_momentum() {
    let p = SpatialDoublePendulum::default();
    let qa = [0.3f64.cos(), 0.3f64.sin(), 0.0, 0.0];
    let qb = [0.5f64.cos(), 0.0, 0.5f64.sin(), 0.0];
    let s0 = sdp_state(&p, qa, qb, [0.5, -1.0, 4.0], [1.5, 0.3, -6.0]);
    let lz0 = sdp_vertical_momentum(&p, &s0);
    let hs = [0.01, 0.005, 0.0025];
    let mut energy_errors = Vec::new();
    for h in hs {
        let mut sim = Integrator::<SpatialDoublePendulum, GaussLobatto<2>>::new(p, h).unwrap();
        let mut s = s0;
        let e0 = sim.energy(&s);
        let (mut de, mut dlz) = (0.0f64, 0.0f64);
        for _ in 0..(5.0 / h).round() as usize {
            sim.step(&mut s).unwrap();
            de = de.max((sim.energy(&s) - e0).abs());
            dlz = dlz.max((sdp_vertical_momentum(&p, &s) - lz0).abs());
            let (g, gv) = sim.constraint_residual(&s);
            assert!(g < 1e-12 && gv < 1e-12, "residuals {g:e} {gv:e}");
        }
        eprintln!(
            "spatial double pendulum, h = {h}: max |E − E0| {de:.2e} (E0 {e0:.3}), |Lz − Lz0| {dlz:.2e} (Lz0 {lz0:.3})"
        );
        assert!(dlz < 1e-10, "vertical momentum drifts: {dlz:e}");
        energy_errors.push(de);
    }
    common::assert_order(
        "spatial double pendulum energy error, GL2",
        4.0,
        &hs,
        &energy_errors,
    );
}
