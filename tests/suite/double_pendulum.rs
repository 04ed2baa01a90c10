//! A double pendulum in Cartesian coordinates: order 2s against a reference computed in angles.

use crate::common;

use spark::{GaussLobatto, Integrator, Method, State};

include!("../../examples/models/double_pendulum.rs");

const SYS: DoublePendulum = DoublePendulum {
    m1: 1.0,
    m2: 2.0,
    l1: 1.0,
    l2: 0.7,
    g: 9.81,
};
const TH0: [f64; 2] = [1.0, -0.5];

/// Angles from the downward vertical; the textbook equations of motion.
fn angles_rhs(y: &[f64; 4]) -> [f64; 4] {
    let DoublePendulum { m1, m2, l1, l2, g } = SYS;
    let [a, b, wa, wb] = *y;
    let d = a - b;
    let den = 2.0 * m1 + m2 - m2 * (2.0 * d).cos();
    let aa = (-g * (2.0 * m1 + m2) * a.sin()
        - m2 * g * (a - 2.0 * b).sin()
        - 2.0 * d.sin() * m2 * (wb * wb * l2 + wa * wa * l1 * d.cos()))
        / (l1 * den);
    let bb = 2.0
        * d.sin()
        * (wa * wa * l1 * (m1 + m2) + g * (m1 + m2) * a.cos() + wb * wb * l2 * m2 * d.cos())
        / (l2 * den);
    [wa, wb, aa, bb]
}

fn cartesian(y: &[f64; 4]) -> [f64; 8] {
    let (l1, l2) = (SYS.l1, SYS.l2);
    let [a, b, wa, wb] = *y;
    let (x1, y1) = (l1 * a.sin(), -l1 * a.cos());
    let (u1, v1) = (l1 * a.cos() * wa, l1 * a.sin() * wa);
    [
        x1,
        y1,
        x1 + l2 * b.sin(),
        y1 - l2 * b.cos(),
        u1,
        v1,
        u1 + l2 * b.cos() * wb,
        v1 + l2 * b.sin() * wb,
    ]
}

fn error<Meth: Method>(h: f64, t_end: f64, exact: &[f64; 8]) -> f64 {
    let c = cartesian(&[TH0[0], TH0[1], 0.0, 0.0]);
    let mut s = State::new(0.0, [c[0], c[1], c[2], c[3]], [0.0; 4]);
    let mut sim = Integrator::<DoublePendulum, Meth>::new(SYS, h).unwrap();
    for _ in 0..(t_end / h).round() as usize {
        sim.step(&mut s).unwrap();
        let (g, gv) = sim.constraint_residual(&s);
        assert!(g < 1e-12 && gv < 1e-11, "residuals {g:e} {gv:e}");
    }
    let got: Vec<f64> = s.q.iter().chain(s.v.iter()).copied().collect();
    got.iter()
        .zip(exact)
        .fold(0.0, |m, (a, b)| m.max((a - b).abs()))
}

/// An error measurement for one method: (h, t_end, exact) -> max error.
type ErrorFn = fn(f64, f64, &[f64; 8]) -> f64;

#[test]
fn order_is_2s_for_s_1_2_3() {
    let t_end = 1.0;
    let exact = cartesian(&common::rk4(
        angles_rhs,
        [TH0[0], TH0[1], 0.0, 0.0],
        t_end,
        200_000,
    ));
    let runs: [(f64, &[f64], ErrorFn); 3] = [
        (2.0, &[0.02, 0.01, 0.005, 0.0025], error::<GaussLobatto<1>>),
        (4.0, &[0.02, 0.01, 0.005, 0.0025], error::<GaussLobatto<2>>),
        (6.0, &[0.01, 0.005, 0.0025], error::<GaussLobatto<3>>),
    ];
    for (order, hs, f) in runs {
        let errs: Vec<f64> = hs.iter().map(|&h| f(h, t_end, &exact)).collect();
        common::assert_order(
            &format!("double pendulum GaussLobatto order {order}"),
            order,
            hs,
            &errs,
        );
    }
}
