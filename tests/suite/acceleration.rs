//! `Integrator::acceleration`: the forward dynamics at a consistent state, against accelerations
//! derived by hand in minimal coordinates (pendulum, double pendulum, cart-pole with input and
//! damping, a rheonomic pendulum, a free model in polar coordinates, the skate and the
//! nonholonomic particle), and against the integrator itself (central differences of `v` over
//! tiny steps agree to O(h²)), and a four-bar closed loop against the exact accelerations of
//! `tests/data/four_bar_dynamics.csv` (an independent sympy/numpy saddle solve).

use crate::common;

use common::reference::{samples, Table};
use spark::{Error, GaussLobatto, Integrator, Options, State};

include!("../../examples/models/pendulum.rs");
include!("../../examples/models/double_pendulum.rs");
include!("../../examples/models/skate.rs");
include!("../../examples/models/nonholonomic_particle.rs");

spark::mechanics! {
    /// The Cartesian cart-pole of `examples/models/cartpole.rs`: a cart on a rail with viscous
    /// friction `c`, pushed by `u`, carrying a point mass on a massless rod; upright is `y = l`.
    pub struct CartPole {
        coordinates: [xc, x, y],
        velocities: [vc, vx, vy],
        parameters: [mc = 1.0, m = 0.2, l = 0.5, g = 9.81, c = 0.4],
        inputs: [u],
        lagrangian: 0.5 * mc * vc.powi(2) + 0.5 * m * (vx.powi(2) + vy.powi(2)) - m * g * y,
        forces: [u, 0.0, 0.0],
        dissipation: 0.5 * c * vc.powi(2),
        holonomic: [(x - xc).powi(2) + y.powi(2) - l.powi(2)],
    }
}

spark::mechanics! {
    /// A unit pendulum hung from a support driven along x as `a sin(w t)` (rheonomic).
    pub struct DrivenSupport {
        coordinates: [x, y],
        velocities: [vx, vy],
        parameters: [a = 0.3, w = 2.0],
        lagrangian: 0.5 * (vx.powi(2) + vy.powi(2)) - y,
        holonomic: [(x - a * (w * t).sin()).powi(2) + y.powi(2) - 1.0],
    }
}

spark::mechanics! {
    /// A unit mass on a spring of stiffness k and rest length 1 in the plane, polar
    /// coordinates: no constraint, a configuration-dependent mass matrix.
    pub struct PolarSpring {
        coordinates: [r, th],
        velocities: [vr, vth],
        parameters: [k = 3.0],
        lagrangian: 0.5 * (vr.powi(2) + r.powi(2) * vth.powi(2)) - 0.5 * k * (r - 1.0).powi(2),
    }
}

/// A few angles and rates spread over the circle.
fn spread() -> impl Iterator<Item = (f64, f64)> {
    (0..9).map(|i| {
        let i = i as f64;
        (-2.9 + 0.71 * i, 1.7 * (0.9 * i).sin() - 0.4)
    })
}

fn assert_close<const N: usize>(got: &spark::nalgebra::SVector<f64, N>, want: &[f64; N], tol: f64) {
    let scale = 1.0 + want.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    for i in 0..N {
        assert!(
            (got[i] - want[i]).abs() <= tol * scale,
            "component {i}: {} against {} (all: {got:?} against {want:?})",
            got[i],
            want[i]
        );
    }
}

#[test]
fn pendulum_against_closed_form() {
    let mut p = Pendulum::default();
    (p.m, p.l, p.g) = (1.7, 0.8, 9.81);
    let sim = Integrator::<Pendulum, GaussLobatto<2>>::new(p, 0.01).unwrap();
    for (th, om) in spread() {
        // θ from hanging down: q = l (sin θ, −cos θ).
        let (s, c, l) = (th.sin(), th.cos(), p.l);
        let state = State::new(0.0, [l * s, -l * c], [l * om * c, l * om * s]);
        let alpha = -p.g / l * s;
        let want = [l * (alpha * c - om * om * s), l * (alpha * s + om * om * c)];
        assert_close(&sim.acceleration(&state).unwrap(), &want, 1e-13);
    }
}

#[test]
fn double_pendulum_against_closed_form() {
    let mut p = DoublePendulum::default();
    (p.m1, p.m2, p.l1, p.l2, p.g) = (1.3, 0.7, 0.9, 1.2, 9.81);
    let sim = Integrator::<DoublePendulum, GaussLobatto<2>>::new(p, 0.01).unwrap();
    let (m1, m2, l1, l2, g) = (p.m1, p.m2, p.l1, p.l2, p.g);
    for ((t1, w1), (t2, w2)) in spread().zip(spread().skip(3).chain(spread())) {
        // The textbook equations in the angles from the downward vertical.
        let d = t1 - t2;
        let den = 2.0 * m1 + m2 - m2 * (2.0 * d).cos();
        let a1 = (-g * (2.0 * m1 + m2) * t1.sin()
            - m2 * g * (t1 - 2.0 * t2).sin()
            - 2.0 * d.sin() * m2 * (w2 * w2 * l2 + w1 * w1 * l1 * d.cos()))
            / (l1 * den);
        let a2 = 2.0
            * d.sin()
            * (w1 * w1 * l1 * (m1 + m2) + g * (m1 + m2) * t1.cos() + w2 * w2 * l2 * m2 * d.cos())
            / (l2 * den);
        let (s1, c1, s2, c2) = (t1.sin(), t1.cos(), t2.sin(), t2.cos());
        let q = [l1 * s1, -l1 * c1, l1 * s1 + l2 * s2, -l1 * c1 - l2 * c2];
        let v = [
            l1 * w1 * c1,
            l1 * w1 * s1,
            l1 * w1 * c1 + l2 * w2 * c2,
            l1 * w1 * s1 + l2 * w2 * s2,
        ];
        let acc1 = [l1 * (a1 * c1 - w1 * w1 * s1), l1 * (a1 * s1 + w1 * w1 * c1)];
        let acc2 = [l2 * (a2 * c2 - w2 * w2 * s2), l2 * (a2 * s2 + w2 * w2 * c2)];
        let want = [acc1[0], acc1[1], acc1[0] + acc2[0], acc1[1] + acc2[1]];
        let got = sim.acceleration(&State::new(0.0, q, v)).unwrap();
        assert_close(&got, &want, 1e-12);
    }
}

#[test]
fn cart_pole_with_input_and_damping_against_minimal_coordinates() {
    let mut sim = Integrator::<CartPole, GaussLobatto<2>>::new(CartPole::default(), 0.01).unwrap();
    for (i, (th, om)) in spread().enumerate() {
        let (vc, u) = (0.3 * i as f64 - 1.1, 2.5 * (i as f64).cos());
        sim.system_mut().u = u;
        let p = *sim.system();
        // θ the lean from upright: pole at (xc + l sin θ, l cos θ). Lagrange's equations in
        // (xc, θ), solved as a 2 × 2 system by Cramer's rule:
        //   (mc + m) xc'' + m l cos θ θ'' = u − c vc + m l sin θ θ'²
        //   m l cos θ xc'' + m l² θ''      = m g l sin θ
        let (s, c, l) = (th.sin(), th.cos(), p.l);
        let (a11, a12, a21, a22) = (p.mc + p.m, p.m * l * c, p.m * l * c, p.m * l * l);
        let (b1, b2) = (u - p.c * vc + p.m * l * s * om * om, p.m * p.g * l * s);
        let det = a11 * a22 - a12 * a21;
        let xcdd = (b1 * a22 - a12 * b2) / det;
        let thdd = (a11 * b2 - a21 * b1) / det;
        let xc = 0.2 * i as f64;
        let state = State::new(
            0.0,
            [xc, xc + l * s, l * c],
            [vc, vc + l * om * c, -l * om * s],
        );
        let want = [
            xcdd,
            xcdd + l * (thdd * c - om * om * s),
            -l * (thdd * s + om * om * c),
        ];
        assert_close(&sim.acceleration(&state).unwrap(), &want, 1e-12);
    }
}

#[test]
fn rheonomic_pendulum_against_closed_form() {
    let sim =
        Integrator::<DrivenSupport, GaussLobatto<2>>::new(DrivenSupport::default(), 0.01).unwrap();
    let (a, w) = (0.3, 2.0);
    for (i, (th, om)) in spread().enumerate() {
        let t = 0.37 * i as f64;
        // x = a sin(w t) + sin θ, y = −cos θ, θ'' = −sin θ + a w² sin(w t) cos θ.
        let (s, c) = (th.sin(), th.cos());
        let state = State::new(
            t,
            [a * (w * t).sin() + s, -c],
            [a * w * (w * t).cos() + om * c, om * s],
        );
        let alpha = -s + a * w * w * (w * t).sin() * c;
        let want = [
            -a * w * w * (w * t).sin() + alpha * c - om * om * s,
            alpha * s + om * om * c,
        ];
        // The explicit time derivative is a central difference (about 1e-10 relative).
        assert_close(&sim.acceleration(&state).unwrap(), &want, 1e-8);
    }
}

#[test]
fn unconstrained_polar_spring_against_closed_form() {
    let sim =
        Integrator::<PolarSpring, GaussLobatto<2>>::new(PolarSpring::default(), 0.01).unwrap();
    for (th, om) in spread() {
        let (r, vr) = (1.0 + 0.3 * th.cos(), 0.5 * om - 0.2);
        let state = State::new(0.0, [r, th], [vr, om]);
        // r'' = r θ'² − k (r − 1), θ'' = −2 r' θ' / r.
        let want = [r * om * om - 3.0 * (r - 1.0), -2.0 * vr * om / r];
        assert_close(&sim.acceleration(&state).unwrap(), &want, 1e-13);
    }
}

#[test]
fn skate_against_its_reduced_equations() {
    // A holonomic rod length and the nonholonomic no-side-slip of its centre (M = 1, K = 1).
    let p = Skate {
        gs: 1.3,
        ..Default::default()
    };
    let sim = Integrator::<Skate, GaussLobatto<2>>::new(p, 0.01).unwrap();
    let l = p.l;
    for (i, (phi, om)) in spread().enumerate() {
        // Centre (X, Y), heading φ, speed σ along the rod: X' = σ cos φ, Y' = σ sin φ. The
        // reaction is normal to the rod and the slope's pull m·gs along +X has no torque, so
        // σ' = gs cos φ and φ'' = 0.
        let (x, y, sigma) = (0.4 * i as f64, -0.3 * i as f64, 1.2 - 0.35 * i as f64);
        let (s, c, h) = (phi.sin(), phi.cos(), 0.5 * l);
        let q = [x - h * c, y - h * s, x + h * c, y + h * s];
        let (vx, vy) = (sigma * c, sigma * s);
        let v = [
            vx + h * om * s,
            vy - h * om * c,
            vx - h * om * s,
            vy + h * om * c,
        ];
        let sd = p.gs * c;
        let (ax, ay) = (sd * c - sigma * om * s, sd * s + sigma * om * c);
        let want = [
            ax + h * om * om * c,
            ay + h * om * om * s,
            ax - h * om * om * c,
            ay - h * om * om * s,
        ];
        assert_close(
            &sim.acceleration(&State::new(0.0, q, v)).unwrap(),
            &want,
            1e-12,
        );
    }
}

#[test]
fn nonholonomic_particle_against_lagrange_d_alembert() {
    // L = ½|v|² − (q1² + q2²), k = v3 − q2 v1 (M = 0, K = 1). With v3 = q2 v1 eliminated,
    // Lagrange-d'Alembert gives (1 + q2²) v1' = −2 q1 − q2 v1 v2, v2' = −2 q2,
    // and v3' = v2 v1 + q2 v1'.
    let sim = Integrator::<Particle, GaussLobatto<2>>::new(Particle {}, 0.01).unwrap();
    for (a, b) in spread() {
        let (q1, q2, v1, v2) = (a.cos(), 0.8 * b, b - 0.3, 0.5 * a);
        let state = State::new(0.0, [q1, q2, 0.7 * a], [v1, v2, q2 * v1]);
        let a1 = (-2.0 * q1 - q2 * v1 * v2) / (1.0 + q2 * q2);
        let want = [a1, -2.0 * q2, v2 * v1 + q2 * a1];
        assert_close(&sim.acceleration(&state).unwrap(), &want, 1e-13);
    }
}

/// `max_i |(v(h) − v(−h)) / 2h − a_i|` after one step of size `h` each way from `state`.
fn central_difference_error<Sys, const N: usize, const M: usize, const K: usize>(
    sys: Sys,
    state: &State<N>,
    h: f64,
) -> f64
where
    Sys: spark::Lagrangian<N, M, K> + Copy,
{
    let options = Options {
        tolerance: 1e-15,
        ..Options::default()
    };
    let mut sim = Integrator::<Sys, GaussLobatto<3>>::new(sys, h)
        .unwrap()
        .with_options(options);
    let a = sim.acceleration(state).unwrap();
    let mut ahead = *state;
    sim.step(&mut ahead).unwrap();
    sim.set_step_size(-h).unwrap();
    let mut behind = *state;
    sim.step(&mut behind).unwrap();
    let fd = (ahead.v - behind.v) / (2.0 * h);
    (fd - a).amax()
}

#[test]
fn agrees_with_the_integrator_to_second_order() {
    let mut dp = DoublePendulum::default();
    (dp.m1, dp.m2, dp.l1, dp.l2) = (1.3, 0.7, 0.9, 1.2);
    let (t1, t2, w1, w2) = (0.7f64, -1.1f64, 0.9, -1.6);
    let dp_state = State::new(
        0.0,
        [
            dp.l1 * t1.sin(),
            -dp.l1 * t1.cos(),
            dp.l1 * t1.sin() + dp.l2 * t2.sin(),
            -dp.l1 * t1.cos() - dp.l2 * t2.cos(),
        ],
        [
            dp.l1 * w1 * t1.cos(),
            dp.l1 * w1 * t1.sin(),
            dp.l1 * w1 * t1.cos() + dp.l2 * w2 * t2.cos(),
            dp.l1 * w1 * t1.sin() + dp.l2 * w2 * t2.sin(),
        ],
    );
    let cp = CartPole {
        u: 1.5,
        ..Default::default()
    };
    let (th, om, vc) = (0.4f64, -0.8, 0.6);
    let cp_state = State::new(
        0.0,
        [0.1, 0.1 + cp.l * th.sin(), cp.l * th.cos()],
        [vc, vc + cp.l * om * th.cos(), -cp.l * om * th.sin()],
    );
    let skate_state = State::new(0.0, [-0.5, 0.0, 0.5, 0.0], [0.3, -0.5, 0.3, 0.5]);
    let hs = [4e-3, 2e-3, 1e-3];
    let cases: [(&str, [f64; 3]); 3] = [
        (
            "double pendulum",
            hs.map(|h| central_difference_error(dp, &dp_state, h)),
        ),
        (
            "cart-pole",
            hs.map(|h| central_difference_error(cp, &cp_state, h)),
        ),
        (
            "skate",
            hs.map(|h| central_difference_error(Skate::default(), &skate_state, h)),
        ),
    ];
    for (name, errs) in cases {
        println!("{name}: |fd − a| at h = {hs:?}: {errs:?}");
        assert!(errs[2] < 1e-4, "{name}: {errs:?}");
        // Second order: halving h divides the error by about 4.
        for w in errs.windows(2) {
            let ratio = w[0] / w[1];
            assert!((3.0..5.0).contains(&ratio), "{name}: ratios of {errs:?}");
        }
    }
}

#[test]
fn bad_states_are_errors() {
    let sim = Integrator::<Pendulum, GaussLobatto<2>>::new(Pendulum::default(), 0.01).unwrap();
    // Off the circle, and moving across it.
    assert!(matches!(
        sim.acceleration(&State::new(0.0, [1.01, 0.0], [0.0, 0.0])),
        Err(Error::InconsistentState { position, .. }) if position > 1e-3
    ));
    assert!(matches!(
        sim.acceleration(&State::new(0.0, [1.0, 0.0], [0.5, 0.0])),
        Err(Error::InconsistentState { velocity, .. }) if velocity > 0.1
    ));
    assert!(matches!(
        sim.acceleration(&State::new(0.0, [f64::NAN, 0.0], [0.0, 0.0])),
        Err(Error::NonFiniteState)
    ));
    // A nonholonomic violation is a velocity inconsistency too.
    let skate = Integrator::<Skate, GaussLobatto<2>>::new(Skate::default(), 0.01).unwrap();
    assert!(matches!(
        skate.acceleration(&State::new(
            0.0,
            [-0.5, 0.0, 0.5, 0.0],
            [0.0, 0.3, 0.0, 0.3]
        )),
        Err(Error::InconsistentState { .. })
    ));
    // A non-finite input.
    let mut cp = Integrator::<CartPole, GaussLobatto<2>>::new(CartPole::default(), 0.01).unwrap();
    cp.system_mut().u = f64::INFINITY;
    let s = State::new(0.0, [0.0, 0.0, 0.5], [0.0, 0.0, 0.0]);
    assert!(matches!(
        cp.acceleration(&s),
        Err(Error::NonFiniteParameter { .. })
    ));
}

spark::mechanics! {
    /// The four-bar of `tests/models/four_bar_loop.xml`, written by hand: MuJoCo's joint angles
    /// (zero at the file's assembled pose, whose absolute link angles about +y are b0, b0 + e1,
    /// b0 + e1 + e2), links in the x-z plane, gravity along −z, joint damping, a crank motor.
    pub struct FileFourBar {
        coordinates: [q0, q1, q2],
        velocities: [v0, v1, v2],
        parameters: [
            b0 = 1.0, e1 = -2.1646955236335037, e2 = 2.1488123832672015,
            la = 0.3, lb = 1.0, lr = 0.8,
            m1 = 0.5, m2 = 1.0, m3 = 0.8, c1 = 0.15, c2 = 0.5, c3 = 0.4,
            i1 = 0.004, i2 = 0.085, i3 = 0.043, d1 = 0.02, d2 = 0.03, d3 = 0.01, g = 9.81
        ],
        inputs: [u],
        definitions: {
            // Absolute angles about +y; a link along x turned by ψ points along (cos ψ, −sin ψ).
            let p1 = b0 + q0;
            let p2 = b0 + e1 + q0 + q1;
            let p3 = b0 + e1 + e2 + q0 + q1 + q2;
            let w1 = v0;
            let w2 = v0 + v1;
            let w3 = v0 + v1 + v2;
            // d/dt (cos ψ, −sin ψ) = −ψ' (sin ψ, cos ψ).
            let x1 = -c1 * p1.sin() * w1;
            let z1 = -c1 * p1.cos() * w1;
            let x2 = -la * p1.sin() * w1 - c2 * p2.sin() * w2;
            let z2 = -la * p1.cos() * w1 - c2 * p2.cos() * w2;
            let x3 = -la * p1.sin() * w1 - lb * p2.sin() * w2 - c3 * p3.sin() * w3;
            let z3 = -la * p1.cos() * w1 - lb * p2.cos() * w2 - c3 * p3.cos() * w3;
            let h1 = -c1 * p1.sin();
            let h2 = -la * p1.sin() - c2 * p2.sin();
            let h3 = -la * p1.sin() - lb * p2.sin() - c3 * p3.sin();
        },
        lagrangian: 0.5 * m1 * (x1.powi(2) + z1.powi(2))
            + 0.5 * m2 * (x2.powi(2) + z2.powi(2))
            + 0.5 * m3 * (x3.powi(2) + z3.powi(2))
            + 0.5 * (i1 * w1.powi(2) + i2 * w2.powi(2) + i3 * w3.powi(2))
            - g * (m1 * h1 + m2 * h2 + m3 * h3),
        forces: [u, 0.0, 0.0],
        dissipation: 0.5 * (d1 * v0.powi(2) + d2 * v1.powi(2) + d3 * v2.powi(2)),
        holonomic: [
            la * p1.cos() + lb * p2.cos() + lr * p3.cos() - 1.0,
            la * p1.sin() + lb * p2.sin() + lr * p3.sin(),
        ],
    }
}

#[test]
fn four_bar_loop_against_the_exact_reference_data() {
    let table = Table::read("four_bar_dynamics.csv").unwrap();
    let mut sim =
        Integrator::<FileFourBar, GaussLobatto<2>>::new(FileFourBar::default(), 0.01).unwrap();
    let (mut worst_a, mut worst_e, mut worst_mujoco) = (0.0f64, 0.0f64, 0.0f64);
    let mut worst_lambda = 0.0f64;
    for (r, s) in samples::<3, 1>(&table, "ctrl").iter().enumerate() {
        sim.system_mut().u = s.u[0];
        let state = State::new(0.0, s.q, s.v);
        let a = sim.acceleration(&state).unwrap();
        let scale = s.a.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        let err = (0..3).fold(0.0f64, |m, i| m.max((a[i] - s.a[i]).abs())) / scale;
        worst_a = worst_a.max(err);
        let e = s.kinetic + s.potential;
        worst_e = worst_e.max((sim.energy(&state) - e).abs() / (1.0 + e.abs()));
        // The same multipliers: the file's g is (tip x − 1, tip z), this model's second row is
        // −(tip z) (a link turned by ψ about +y points along (cos ψ, −sin ψ)).
        let lambda = sim.multipliers(&state).unwrap().lambda;
        let want: [f64; 2] = table.vector(r, "lambda");
        let lscale = 1.0 + want[0].abs().max(want[1].abs());
        worst_lambda = worst_lambda
            .max((lambda[0] - want[0]).abs() / lscale)
            .max((lambda[1] + want[1]).abs() / lscale);
        let mujoco: [f64; 3] = table.vector(r, "mujoco_a");
        let gap = (0..3).fold(0.0f64, |m, i| m.max((mujoco[i] - s.a[i]).abs())) / scale;
        worst_mujoco = worst_mujoco.max(gap);
    }
    println!(
        "four-bar, {} states: largest relative error of the accelerations {worst_a:.1e}, of the \
         energy {worst_e:.1e}, of the multipliers {worst_lambda:.1e} (MuJoCo's soft loop: \
         {worst_mujoco:.1e})",
        table.len()
    );
    assert!(worst_a < 1e-10, "{worst_a:e}");
    assert!(worst_e < 1e-12, "{worst_e:e}");
    assert!(worst_lambda < 1e-10, "{worst_lambda:e}");
}
