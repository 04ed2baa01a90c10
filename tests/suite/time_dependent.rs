//! Explicit time dependence (none of the papers' experiments has it): a pendulum whose support
//! is driven horizontally (a rheonomic constraint, hidden constraint g_t + G v = 0), a pendulum
//! whose length follows l(t), and a Lagrangian with time-varying gravity. Each is compared with an
//! independent reference in the angle coordinate.

use crate::common;

use spark::{GaussLobatto, Integrator, Method, State};

const A: f64 = 0.3; // support amplitude
const W: f64 = 2.0; // support frequency

spark::mechanics! {
    /// Pendulum hung from a support at (A sin(W t), 0).
    struct DrivenSupport {
        coordinates: [x, y],
        velocities: [vx, vy],
        parameters: [a = 0.3, w = 2.0],
        lagrangian: 0.5 * (vx.powi(2) + vy.powi(2)) - y,
        holonomic: [(x - a * (w * t).sin()).powi(2) + y.powi(2) - 1.0],
    }
}

spark::mechanics! {
    /// Pendulum with the length l(t) = 1 + 0.2 sin(t) and gravity g(t) = 1 + 0.5 cos(t).
    struct Breathing {
        coordinates: [x, y],
        velocities: [vx, vy],
        lagrangian: 0.5 * (vx.powi(2) + vy.powi(2)) - (1.0 + 0.5 * t.cos()) * y,
        holonomic: [x.powi(2) + y.powi(2) - (1.0 + 0.2 * t.sin()).powi(2)],
    }
}

/// θ'' = -sin θ + (A W²) sin(W t) cos θ for x = A sin(W t) + sin θ, y = -cos θ (l = g = 1).
fn driven_reference(t_end: f64) -> [f64; 4] {
    let [_, th, om] = common::rk4(
        |y: &[f64; 3]| {
            [
                1.0,
                y[2],
                -y[1].sin() + A * W * W * (W * y[0]).sin() * y[1].cos(),
            ]
        },
        [0.0, 0.5, 0.0],
        t_end,
        20_000,
    );
    let (t, c) = (t_end, A * (W * t_end).sin());
    [
        c + th.sin(),
        -th.cos(),
        A * W * (W * t).cos() + om * th.cos(),
        om * th.sin(),
    ]
}

/// With r(t) = 1 + 0.2 sin t and g(t) = 1 + 0.5 cos t: (r² θ')' = -g r sin θ.
fn breathing_reference(t_end: f64) -> [f64; 4] {
    let r = |t: f64| 1.0 + 0.2 * t.sin();
    let dr = |t: f64| 0.2 * t.cos();
    let g = |t: f64| 1.0 + 0.5 * t.cos();
    let [_, th, om] = common::rk4(
        |y: &[f64; 3]| {
            [
                1.0,
                y[2],
                (-g(y[0]) * y[1].sin() - 2.0 * dr(y[0]) * y[2]) / r(y[0]),
            ]
        },
        [0.0, 0.7, 0.0],
        t_end,
        20_000,
    );
    let t = t_end;
    [
        r(t) * th.sin(),
        -r(t) * th.cos(),
        dr(t) * th.sin() + r(t) * om * th.cos(),
        -dr(t) * th.cos() + r(t) * om * th.sin(),
    ]
}

fn run<Sys, Meth>(sys: Sys, s0: State<2>, h: f64, t_end: f64, exact: &[f64; 4]) -> f64
where
    Sys: spark::Lagrangian<2, 1>,
    Meth: Method,
{
    let mut sim = Integrator::<Sys, Meth>::new(sys, h).unwrap();
    let mut s = s0;
    for _ in 0..(t_end / h).round() as usize {
        sim.step(&mut s).unwrap();
        let (g, gv) = sim.constraint_residual(&s);
        assert!(g < 1e-12 && gv < 1e-12, "{g:e} {gv:e}");
    }
    let got = [s.q[0], s.q[1], s.v[0], s.v[1]];
    got.iter()
        .zip(exact)
        .fold(0.0, |m, (a, b)| m.max((a - b).abs()))
}

fn orders<Sys: spark::Lagrangian<2, 1> + Copy>(
    label: &str,
    sys: Sys,
    s0: State<2>,
    exact: &[f64; 4],
) {
    let t_end = 2.0;
    let hs = [0.1, 0.05, 0.025, 0.0125];
    let e: Vec<f64> = hs
        .iter()
        .map(|&h| run::<Sys, GaussLobatto<1>>(sys, s0, h, t_end, exact))
        .collect();
    common::assert_order(&format!("{label} S=1"), 2.0, &hs, &e);
    let e: Vec<f64> = hs
        .iter()
        .map(|&h| run::<Sys, GaussLobatto<2>>(sys, s0, h, t_end, exact))
        .collect();
    common::assert_order(&format!("{label} S=2"), 4.0, &hs, &e);
    let hs = [0.2, 0.1, 0.05];
    let e: Vec<f64> = hs
        .iter()
        .map(|&h| run::<Sys, GaussLobatto<3>>(sys, s0, h, t_end, exact))
        .collect();
    common::assert_order(&format!("{label} S=3"), 6.0, &hs, &e);
}

#[test]
fn driven_support_converges_with_order_2s() {
    let sys = DrivenSupport { a: A, w: W };
    // θ = 0.5 at rest relative to the support, which moves with speed A W at t = 0.
    let s0 = State::new(0.0, [0.5f64.sin(), -0.5f64.cos()], [A * W, 0.0]);
    orders("driven support", sys, s0, &driven_reference(2.0));
}

#[test]
fn length_and_gravity_following_t_converge_with_order_2s() {
    // r(0) = 1, r'(0) = 0.2: radial velocity 0.2 along (sin θ, -cos θ).
    let s0 = State::new(
        0.0,
        [0.7f64.sin(), -0.7f64.cos()],
        [0.2 * 0.7f64.sin(), -0.2 * 0.7f64.cos()],
    );
    orders(
        "breathing pendulum",
        Breathing {},
        s0,
        &breathing_reference(2.0),
    );
}
