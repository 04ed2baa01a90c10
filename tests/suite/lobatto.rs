//! The other holonomic families: (s, s−1)-Lobatto IIIA-B SPARK (order 2s − 2) and the natural
//! symplectic Euler SPARK method (order 1), on the Cartesian pendulum and double pendulum.

use crate::common;

use spark::{GaussLobatto, Integrator, LobattoIIIAB, Method, State, SymplecticEuler};

spark::mechanics! {
    /// Planar pendulum with an extra quartic potential, so that the force depends on position
    /// (with a constant force the Lobatto and Gauss families give identical steps).
    struct Pendulum {
        coordinates: [x, y],
        velocities: [vx, vy],
        parameters: [g = 1.0],
        lagrangian: 0.5 * (vx.powi(2) + vy.powi(2)) - g * y - 0.5 * x.powi(4),
        holonomic: [x.powi(2) + y.powi(2) - 1.0],
    }
}

fn reference(t_end: f64) -> [f64; 4] {
    // U(θ) = −cos θ + ½ sin⁴θ.
    let [th, om] = common::rk4(
        |y: &[f64; 2]| [y[1], -y[0].sin() - 2.0 * y[0].sin().powi(3) * y[0].cos()],
        [core::f64::consts::FRAC_PI_2, 0.0],
        t_end,
        20_000,
    );
    [th.sin(), -th.cos(), om * th.cos(), om * th.sin()]
}

fn error<Meth: Method>(h: f64, t_end: f64, exact: &[f64; 4]) -> f64 {
    let mut sim = Integrator::<Pendulum, Meth>::new(Pendulum::default(), h).unwrap();
    let mut s = State::new(0.0, [1.0, 0.0], [0.0, 0.0]);
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

fn check<Meth: Method>(label: &str, hs: &[f64]) {
    let exact = reference(2.0);
    let errs: Vec<f64> = hs.iter().map(|&h| error::<Meth>(h, 2.0, &exact)).collect();
    common::assert_order(label, Meth::ORDER as f64, hs, &errs);
}

#[test]
fn lobatto_iiia_b_has_order_2s_minus_2() {
    check::<LobattoIIIAB<2>>("Lobatto IIIA-B S=2 (RATTLE)", &[0.1, 0.05, 0.025, 0.0125]);
    check::<LobattoIIIAB<3>>("Lobatto IIIA-B S=3", &[0.1, 0.05, 0.025, 0.0125]);
    check::<LobattoIIIAB<4>>("Lobatto IIIA-B S=4", &[0.2, 0.1, 0.05]);
}

#[test]
fn symplectic_euler_has_order_1() {
    check::<SymplecticEuler>("symplectic Euler", &[0.02, 0.01, 0.005, 0.0025]);
}

#[test]
fn rattle_is_lobatto_iiia_b_with_two_stages() {
    // RATTLE for L = ½|v|² − U: v½ = v0 − h/2 (∇U(q0) + Gᵀ(q0)λ), q1 = q0 + h v½, g(q1) = 0,
    // v1 = v½ − h/2 (∇U(q1) + Gᵀ(q1)μ), G(q1) v1 = 0. Solved here independently by Newton on λ
    // and a linear solve for μ.
    let h = 0.1;
    let (q0, v0) = ([0.6f64, -0.8], [0.8f64, 0.6]);
    let grad_u = |q: [f64; 2]| [2.0 * q[0].powi(3), 1.0];
    let mut lam = 0.0;
    let pos = |lam: f64| {
        let gu = grad_u(q0);
        let vh = [
            v0[0] - 0.5 * h * (gu[0] + 2.0 * q0[0] * lam),
            v0[1] - 0.5 * h * (gu[1] + 2.0 * q0[1] * lam),
        ];
        ([q0[0] + h * vh[0], q0[1] + h * vh[1]], vh)
    };
    for _ in 0..50 {
        let g = |lam: f64| {
            let (q, _) = pos(lam);
            q[0] * q[0] + q[1] * q[1] - 1.0
        };
        let d = (g(lam + 1e-7) - g(lam - 1e-7)) / 2e-7;
        lam -= g(lam) / d;
    }
    let (q1, vh) = pos(lam);
    let gu1 = grad_u(q1);
    let w = [vh[0] - 0.5 * h * gu1[0], vh[1] - 0.5 * h * gu1[1]];
    // G(q1) (w − h/2 G(q1)ᵀ μ) = 0 with G = 2 q1ᵀ.
    let gw = 2.0 * (q1[0] * w[0] + q1[1] * w[1]);
    let ggt = 4.0 * (q1[0] * q1[0] + q1[1] * q1[1]);
    let mu = gw / (0.5 * h * ggt);
    let v1 = [
        w[0] - 0.5 * h * 2.0 * q1[0] * mu,
        w[1] - 0.5 * h * 2.0 * q1[1] * mu,
    ];

    let mut sim = Integrator::<Pendulum, LobattoIIIAB<2>>::new(Pendulum::default(), h).unwrap();
    let mut s = State::new(0.0, q0, v0);
    sim.step(&mut s).unwrap();
    for i in 0..2 {
        assert!((s.q[i] - q1[i]).abs() < 1e-13, "q: {:?} vs {q1:?}", s.q);
        assert!((s.v[i] - v1[i]).abs() < 1e-13, "v: {:?} vs {v1:?}", s.v);
    }
}

#[test]
fn the_families_differ_when_the_force_depends_on_position() {
    let exact = reference(2.0);
    let gl = error::<GaussLobatto<1>>(0.05, 2.0, &exact);
    let rattle = error::<LobattoIIIAB<2>>(0.05, 2.0, &exact);
    assert!((gl - rattle).abs() > 1e-3 * gl, "{gl:e} {rattle:e}");
}
