//! The Cartesian pendulum of thesis §8.3.1 through the macro: order 2s, residuals after every
//! step, bounded energy error over 10⁵ steps.

use crate::common;

use spark::{GaussLobatto, Integrator, Method, State};

spark::mechanics! {
    /// Planar pendulum in Cartesian coordinates (gravity along -y).
    pub struct Pendulum {
        coordinates: [x, y],
        velocities: [vx, vy],
        parameters: [m = 1.0, l = 1.0, g = 9.81],
        lagrangian: 0.5 * m * (vx.powi(2) + vy.powi(2)) - m * g * y,
        holonomic: [x.powi(2) + y.powi(2) - l.powi(2)],
    }
}

const SYS: Pendulum = Pendulum {
    m: 1.0,
    l: 1.0,
    g: 1.0,
};

/// Exact-to-round-off reference in the angle θ from the downward vertical.
fn reference(t_end: f64) -> [f64; 4] {
    let [th, om] = common::rk4(
        |y: &[f64; 2]| [y[1], -y[0].sin()],
        [core::f64::consts::FRAC_PI_2, 0.0],
        t_end,
        100_000,
    );
    [th.sin(), -th.cos(), om * th.cos(), om * th.sin()]
}

fn error<Meth: Method>(h: f64, t_end: f64, exact: &[f64; 4]) -> f64 {
    let mut sim = Integrator::<Pendulum, Meth>::new(SYS, h).unwrap();
    let mut s = State::new(0.0, [1.0, 0.0], [0.0, 0.0]);
    for _ in 0..(t_end / h).round() as usize {
        sim.step(&mut s).unwrap();
    }
    let got = [s.q[0], s.q[1], s.v[0], s.v[1]];
    got.iter()
        .zip(exact)
        .fold(0.0, |m, (a, b)| m.max((a - b).abs()))
}

/// An error measurement for one method: (h, t_end, exact) -> max error.
type ErrorFn = fn(f64, f64, &[f64; 4]) -> f64;

#[test]
fn order_is_2s_for_s_1_2_3() {
    let t_end = 2.0;
    let exact = reference(t_end);
    let runs: [(f64, &[f64], ErrorFn); 3] = [
        (2.0, &[0.1, 0.05, 0.025, 0.0125], error::<GaussLobatto<1>>),
        (4.0, &[0.2, 0.1, 0.05, 0.025], error::<GaussLobatto<2>>),
        (6.0, &[0.4, 0.2, 0.1, 0.05], error::<GaussLobatto<3>>),
    ];
    for (order, hs, f) in runs {
        let errs: Vec<f64> = hs.iter().map(|&h| f(h, t_end, &exact)).collect();
        common::assert_order(
            &format!("pendulum GaussLobatto order {order}"),
            order,
            hs,
            &errs,
        );
    }
}

fn residuals_stay_at_roundoff<Meth: Method>() {
    let mut sim = Integrator::<Pendulum, Meth>::new(Pendulum::default(), 0.05).unwrap();
    let mut s = State::new(0.0, [0.6, -0.8], [1.6, 1.2]);
    for _ in 0..400 {
        sim.step(&mut s).unwrap();
        let (g, gv) = sim.constraint_residual(&s);
        // g = x² + y² - l² is O(1) and G v is O(|v|): scale by 1 + |v|.
        let scale = 1.0 + s.v.amax();
        assert!(
            g < 1e-12 && gv < 1e-12 * scale,
            "S={}: |g| = {g:e}, |G v| = {gv:e}",
            Meth::ORDER / 2
        );
    }
}

#[test]
fn constraints_hold_after_every_step_for_s_1_to_6() {
    residuals_stay_at_roundoff::<GaussLobatto<1>>();
    residuals_stay_at_roundoff::<GaussLobatto<2>>();
    residuals_stay_at_roundoff::<GaussLobatto<3>>();
    residuals_stay_at_roundoff::<GaussLobatto<4>>();
    residuals_stay_at_roundoff::<GaussLobatto<5>>();
    residuals_stay_at_roundoff::<GaussLobatto<6>>();
}

/// Max energy error over the first and the last tenth of 10⁵ steps with h = 0.1.
fn energy_drift<Meth: Method>() -> (f64, f64) {
    let mut sim = Integrator::<Pendulum, Meth>::new(SYS, 0.1).unwrap();
    let mut s = State::new(0.0, [1.0, 0.0], [0.0, 0.0]);
    let e0 = sim.energy(&s);
    let n = 100_000;
    let (mut first, mut last) = (0.0f64, 0.0f64);
    for k in 0..n {
        sim.step(&mut s).unwrap();
        let de = (sim.energy(&s) - e0).abs();
        if k < n / 10 {
            first = first.max(de);
        } else if k >= n - n / 10 {
            last = last.max(de);
        }
    }
    (first, last)
}

#[test]
fn energy_error_is_bounded_over_1e5_steps() {
    for (s, (first, last)) in [
        (1, energy_drift::<GaussLobatto<1>>()),
        (2, energy_drift::<GaussLobatto<2>>()),
    ] {
        eprintln!("S={s}: max |E - E0| first tenth {first:e}, last tenth {last:e}");
        // No drift: the error late in the run is of the size it was early on.
        assert!(
            last <= 1.5 * first + 1e-12,
            "S={s}: energy error grows: {first:e} -> {last:e}"
        );
        assert!(
            first < if s == 1 { 1e-2 } else { 1e-4 },
            "S={s}: energy error {first:e} too large"
        );
    }
}

#[test]
fn generated_struct_has_sizes_names_and_default() {
    assert_eq!(Pendulum::COORDINATES, 2);
    assert_eq!(Pendulum::HOLONOMIC_CONSTRAINTS, 1);
    assert_eq!(Pendulum::PARAMETER_NAMES, ["m", "l", "g"]);
    assert_eq!(
        Pendulum::default(),
        Pendulum {
            m: 1.0,
            l: 1.0,
            g: 9.81
        }
    );
}
