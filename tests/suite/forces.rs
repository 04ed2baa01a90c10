//! Open systems (issue 13): generalized forces, Rayleigh dissipation and inputs, in every
//! method, against references computed independently in minimal coordinates.
//!
//! * a damped pendulum in Cartesian coordinates driven by a time-dependent horizontal force and
//!   an input: orders 2s (GaussLobatto, EMPRK), 2S − 2 (Lobatto families), 1 (symplectic
//!   Euler), residuals below 1e-12 after every step;
//! * a knife edge with a velocity-coupled dissipation, a time-dependent thrust and a torque:
//!   orders against the reduced ODE in (x, y, φ, s, ω);
//! * the energy balance `E(t_n) − E(0) − W(t_n)` and the decay under pure damping;
//! * sampled inputs (zero-order hold) converging at order 2s to the sampled reference.

use crate::common;

use spark::{
    Emprk, GaussLobatto, Integrator, Lagrangian, LobattoIIIAB, LobattoIIIABD, LobattoIIIABIndex2,
    Method, State, SymplecticEuler, SymplecticEulerI,
};

spark::mechanics! {
    /// Unit pendulum, damped, pushed horizontally by `a cos(w t) + u`.
    struct ForcedPendulum {
        coordinates: [x, y],
        velocities: [vx, vy],
        parameters: [g = 9.81, c = 0.3, a = 0.8, w = 2.0],
        inputs: [u],
        lagrangian: 0.5 * (vx.powi(2) + vy.powi(2)) - g * y,
        forces: [a * (w * t).cos() + u, 0.0],
        dissipation: 0.5 * c * (vx.powi(2) + vy.powi(2)),
        holonomic: [x.powi(2) + y.powi(2) - 1.0],
    }
}

const TH0: f64 = 0.6;

/// θ'' = −g sin θ + (a cos(w t) + u) cos θ − c θ' for x = sin θ, y = −cos θ; the last
/// component is the work of the forces.
fn pendulum_rhs(p: &ForcedPendulum, y: &[f64; 4]) -> [f64; 4] {
    let [t, th, om, _] = *y;
    let push = p.a * (p.w * t).cos() + p.u;
    let acc = -p.g * th.sin() + push * th.cos() - p.c * om;
    // Power: push · vx − c |v|² with vx = ω cos θ, |v| = |ω|.
    [1.0, om, acc, push * om * th.cos() - p.c * om * om]
}

fn pendulum_cartesian(th: f64, om: f64) -> [f64; 4] {
    [th.sin(), -th.cos(), om * th.cos(), om * th.sin()]
}

/// (x, y, vx, vy, work) at `t_end` from θ = TH0 at rest, RK4 with 20 000 steps.
fn pendulum_reference(p: &ForcedPendulum, t_end: f64) -> ([f64; 4], f64) {
    let [_, th, om, work] =
        common::rk4(|y| pendulum_rhs(p, y), [0.0, TH0, 0.0, 0.0], t_end, 20_000);
    (pendulum_cartesian(th, om), work)
}

fn energy(p: &ForcedPendulum, s: &State<2>) -> f64 {
    0.5 * s.v.norm_squared() + p.g * s.q[1]
}

fn pendulum_start() -> State<2> {
    State::new(0.0, [TH0.sin(), -TH0.cos()], [0.0, 0.0])
}

/// Max error of (x, y, vx, vy) at `t_end`, and the energy-balance defect there; asserts the
/// residuals after every step.
fn run_pendulum<Meth: Method>(p: ForcedPendulum, h: f64, t_end: f64) -> (f64, f64) {
    let mut sim = Integrator::<ForcedPendulum, Meth>::new(p, h).unwrap();
    let mut s = pendulum_start();
    let e0 = energy(&p, &s);
    for _ in 0..(t_end / h).round() as usize {
        sim.step(&mut s).unwrap();
        let (g, gv) = sim.constraint_residual(&s);
        assert!(g < 1e-12 && gv < 1e-12, "residuals {g:e} {gv:e}");
    }
    let (exact, work) = pendulum_reference(&p, t_end);
    let got = [s.q[0], s.q[1], s.v[0], s.v[1]];
    let err = got
        .iter()
        .zip(&exact)
        .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
    (err, (energy(&p, &s) - e0 - work).abs())
}

fn pendulum() -> ForcedPendulum {
    ForcedPendulum {
        u: 0.3,
        ..ForcedPendulum::default()
    }
}

/// Orders of the state and of the energy balance (the latter fitted from `hs[balance_from..]`:
/// its error constant is smaller and its asymptotic range starts later).
fn pendulum_order<Meth: Method>(label: &str, order: f64, hs: &[f64], balance_from: usize) {
    let t_end = 2.0;
    let (errs, balance): (Vec<f64>, Vec<f64>) = hs
        .iter()
        .map(|&h| run_pendulum::<Meth>(pendulum(), h, t_end))
        .unzip();
    common::assert_order(label, order, hs, &errs);
    common::assert_order(
        &format!("{label} energy balance"),
        order,
        &hs[balance_from..],
        &balance[balance_from..],
    );
}

#[test]
fn forced_damped_pendulum_gauss_lobatto_orders_2s() {
    pendulum_order::<GaussLobatto<1>>("pendulum S=1", 2.0, &[0.04, 0.02, 0.01, 0.005], 0);
    pendulum_order::<GaussLobatto<2>>("pendulum S=2", 4.0, &[0.08, 0.04, 0.02, 0.01], 0);
    pendulum_order::<GaussLobatto<3>>("pendulum S=3", 6.0, &[0.125, 0.0625, 0.03125], 1);
}

#[test]
fn forced_damped_pendulum_other_methods() {
    pendulum_order::<Emprk<2>>("pendulum EMPRK S=2", 4.0, &[0.08, 0.04, 0.02, 0.01], 0);
    pendulum_order::<LobattoIIIAB<2>>("pendulum IIIA-B S=2", 2.0, &[0.04, 0.02, 0.01, 0.005], 0);
    pendulum_order::<LobattoIIIAB<3>>("pendulum IIIA-B S=3", 4.0, &[0.08, 0.04, 0.02, 0.01], 0);
    pendulum_order::<LobattoIIIABD<3>>("pendulum IIIA-B-D S=3", 4.0, &[0.08, 0.04, 0.02, 0.01], 0);
    // First order; the drive's and the damping's error terms partly cancel at larger h.
    pendulum_order::<SymplecticEuler>(
        "pendulum symplectic Euler",
        1.0,
        &[0.0025, 0.00125, 0.000625, 0.0003125],
        0,
    );
}

spark::mechanics! {
    /// Knife edge (a skate) with a thrust `a cos t` along its blade, a torque, and a Rayleigh
    /// dissipation coupling the translation and the rotation.
    struct ForcedSkate {
        coordinates: [x, y, phi],
        velocities: [vx, vy, om],
        parameters: [m = 1.3, j = 0.4, c = 0.5, d = 0.3, e = 0.2, a = 1.0, tau = 0.7],
        lagrangian: 0.5 * m * (vx.powi(2) + vy.powi(2)) + 0.5 * j * om.powi(2),
        forces: [a * t.cos() * phi.cos(), a * t.cos() * phi.sin(), tau * (1.0 + 0.5 * t.sin())],
        dissipation: 0.5 * c * (vx.powi(2) + vy.powi(2)) + 0.5 * d * om.powi(2) + e * vx * om,
        nonholonomic: [vx * phi.sin() - vy * phi.cos()],
    }
}

/// The skate in minimal velocities: v = s (cos φ, sin φ), virtual displacements along the blade
/// and in φ. With Q = F − ∂D/∂v:
/// m s' = a cos t − c s − e ω cos φ,  j ω' = τ (1 + sin(t)/2) − d ω − e s cos φ.
fn skate_reference(p: &ForcedSkate, s0: f64, om0: f64, phi0: f64, t_end: f64) -> [f64; 6] {
    let [_, x, y, phi, s, om] = common::rk4(
        |z: &[f64; 6]| {
            let [t, _, _, phi, s, om] = *z;
            [
                1.0,
                s * phi.cos(),
                s * phi.sin(),
                om,
                (p.a * t.cos() - p.c * s - p.e * om * phi.cos()) / p.m,
                (p.tau * (1.0 + 0.5 * t.sin()) - p.d * om - p.e * s * phi.cos()) / p.j,
            ]
        },
        [0.0, 0.0, 0.0, phi0, s0, om0],
        t_end,
        20_000,
    );
    [x, y, phi, s * phi.cos(), s * phi.sin(), om]
}

fn run_skate<Meth: Method>(h: f64, t_end: f64) -> f64 {
    let p = ForcedSkate::default();
    let (s0, om0, phi0) = (0.8, -0.5, 0.3);
    let mut sim = Integrator::<ForcedSkate, Meth>::new(p, h).unwrap();
    let mut s = State::new(
        0.0,
        [0.0, 0.0, phi0],
        [s0 * phi0.cos(), s0 * phi0.sin(), om0],
    );
    for _ in 0..(t_end / h).round() as usize {
        sim.step(&mut s).unwrap();
        let (_, k) = sim.constraint_residual(&s);
        assert!(k < 1e-12, "nonholonomic residual {k:e}");
    }
    let exact = skate_reference(&p, s0, om0, phi0, t_end);
    let got = [s.q[0], s.q[1], s.q[2], s.v[0], s.v[1], s.v[2]];
    got.iter()
        .zip(&exact)
        .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()))
}

fn skate_order<Meth: Method>(label: &str, order: f64, hs: &[f64]) {
    let errs: Vec<f64> = hs.iter().map(|&h| run_skate::<Meth>(h, 2.0)).collect();
    common::assert_order(label, order, hs, &errs);
}

#[test]
fn forced_skate_orders() {
    skate_order::<GaussLobatto<1>>("skate S=1", 2.0, &[0.04, 0.02, 0.01, 0.005]);
    skate_order::<GaussLobatto<2>>("skate S=2", 4.0, &[0.1, 0.05, 0.025, 0.0125]);
    skate_order::<GaussLobatto<3>>("skate S=3", 6.0, &[0.25, 0.125, 0.0625]);
    skate_order::<Emprk<2>>("skate EMPRK S=2", 4.0, &[0.1, 0.05, 0.025, 0.0125]);
    skate_order::<Emprk<3>>("skate EMPRK S=3", 6.0, &[0.25, 0.125, 0.0625]);
    skate_order::<LobattoIIIAB<3>>("skate IIIA-B S=3", 4.0, &[0.1, 0.05, 0.025, 0.0125]);
    skate_order::<LobattoIIIABD<3>>("skate IIIA-B-D S=3", 4.0, &[0.1, 0.05, 0.025, 0.0125]);
    skate_order::<LobattoIIIABIndex2<3>>("skate 002 S=3", 4.0, &[0.1, 0.05, 0.025, 0.0125]);
    skate_order::<SymplecticEulerI>("skate symplectic Euler I", 1.0, &[0.01, 0.005, 0.0025]);
}

#[test]
fn pure_damping_never_creates_energy() {
    // No drive: the energy may only decrease, step after step, over 10⁵ steps.
    let p = ForcedPendulum {
        a: 0.0,
        c: 0.02,
        ..ForcedPendulum::default()
    };
    let h = 0.01;
    let mut sim = Integrator::<ForcedPendulum, GaussLobatto<2>>::new(p, h).unwrap();
    let mut s = State::new(0.0, [1.2f64.sin(), -1.2f64.cos()], [0.0, 0.0]);
    let mut e = energy(&p, &s);
    let (e_start, mut worst_growth) = (e, f64::NEG_INFINITY);
    for _ in 0..100_000 {
        sim.step(&mut s).unwrap();
        let e_new = energy(&p, &s);
        worst_growth = worst_growth.max(e_new - e);
        e = e_new;
    }
    // Exact decay of the linearized motion: E ~ exp(−c t), t = 1000.
    let floor = -p.g; // the energy at rest at the bottom
    eprintln!(
        "E − E_rest: {:.3e} → {:.3e}; largest one-step growth {worst_growth:.3e}",
        e_start - floor,
        e - floor
    );
    assert!(
        worst_growth <= 1e-13,
        "energy grew by {worst_growth:e} in one step"
    );
    assert!(e - floor < 1e-6 * (e_start - floor));
}

/// Pendulum with sampled feedback u = −k (x − 0.2) − kd vx, updated every `tc`.
fn sampled_run<Meth: Method>(k: usize, periods: usize, tc: f64) -> [f64; 4] {
    let p = ForcedPendulum {
        a: 0.0,
        ..ForcedPendulum::default()
    };
    let law = |x: f64, vx: f64| -8.0 * (x - 0.2) - 2.0 * vx;
    let mut sim = Integrator::<ForcedPendulum, Meth>::new(p, tc / k as f64).unwrap();
    let mut s = pendulum_start();
    for _ in 0..periods {
        sim.system_mut().u = law(s.q[0], s.v[0]);
        for _ in 0..k {
            sim.step(&mut s).unwrap();
        }
    }
    // The same sampled law in minimal coordinates.
    let mut y = [0.0, TH0, 0.0, 0.0];
    let mut q = p;
    for _ in 0..periods {
        let [x, _, vx, _] = pendulum_cartesian(y[1], y[2]);
        q.u = law(x, vx);
        y = common::rk4(|z| pendulum_rhs(&q, z), y, tc, 2_000);
    }
    let exact = pendulum_cartesian(y[1], y[2]);
    [
        s.q[0] - exact[0],
        s.q[1] - exact[1],
        s.v[0] - exact[2],
        s.v[1] - exact[3],
    ]
}

#[test]
fn sampled_inputs_converge_at_order_2s() {
    let tc = 0.1;
    let ks = [1usize, 2, 4, 8];
    let hs: Vec<f64> = ks.iter().map(|&k| tc / k as f64).collect();
    let max = |e: [f64; 4]| e.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    let e1: Vec<f64> = ks
        .iter()
        .map(|&k| max(sampled_run::<GaussLobatto<1>>(k, 20, tc)))
        .collect();
    common::assert_order("sampled S=1", 2.0, &hs, &e1);
    let e2: Vec<f64> = ks
        .iter()
        .map(|&k| max(sampled_run::<GaussLobatto<2>>(k, 20, tc)))
        .collect();
    common::assert_order("sampled S=2", 4.0, &hs, &e2);
}

#[test]
fn model_constants_and_fields_of_inputs() {
    assert_eq!(ForcedPendulum::INPUTS, 1);
    assert_eq!(ForcedPendulum::INPUT_NAMES, ["u"]);
    assert_eq!(ForcedPendulum::PARAMETERS, 4);
    assert_eq!(ForcedPendulum::default().u, 0.0);
    assert_eq!(ForcedSkate::INPUTS, 0);
    // The force Jacobian ∂Q/∂v reaches the model's evaluation: −c I for the pendulum.
    let p = pendulum();
    let q = spark::nalgebra::SVector::<f64, 2>::new(0.3, -0.9);
    let v = spark::nalgebra::SVector::<f64, 2>::new(0.5, 0.1);
    let d = p.dynamics_jacobian(0.0, &q, &v);
    assert_eq!(
        d.fv,
        spark::nalgebra::SMatrix::<f64, 2, 2>::identity() * -p.c
    );
    assert_eq!(d.f[0], p.a + p.u - p.c * v[0]);
}

spark::mechanics! {
    /// The forced pendulum of `ForcedPendulum` in Hamiltonian form (unit mass: v = p).
    struct ForcedPendulumH {
        coordinates: [x, y],
        momenta: [px, py],
        parameters: [g = 9.81, c = 0.3, a = 0.8, w = 2.0],
        inputs: [u],
        hamiltonian: 0.5 * (px.powi(2) + py.powi(2)) + g * y,
        forces: [a * (w * t).cos() + u - c * px, -c * py],
        holonomic: [x.powi(2) + y.powi(2) - 1.0],
    }
}

fn run_hamiltonian<Meth: Method>(h: f64, t_end: f64) -> f64 {
    let p = ForcedPendulumH {
        u: 0.3,
        ..ForcedPendulumH::default()
    };
    let mut sim = Integrator::<ForcedPendulumH, Meth>::new(p, h).unwrap();
    let mut s = spark::hamiltonian::State::new(0.0, [TH0.sin(), -TH0.cos()], [0.0, 0.0]);
    for _ in 0..(t_end / h).round() as usize {
        sim.step(&mut s).unwrap();
        let (g, gv) = sim.constraint_residual(&s);
        assert!(g < 1e-12 && gv < 1e-12, "residuals {g:e} {gv:e}");
    }
    let (exact, _) = pendulum_reference(&pendulum(), t_end);
    let got = [s.q[0], s.q[1], s.p[0], s.p[1]];
    got.iter()
        .zip(&exact)
        .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()))
}

#[test]
fn forced_hamiltonian_pendulum_orders_2s() {
    for (label, order, hs, f) in [
        (
            "Hamiltonian S=1",
            2.0,
            &[0.04, 0.02, 0.01, 0.005][..],
            run_hamiltonian::<GaussLobatto<1>> as fn(f64, f64) -> f64,
        ),
        (
            "Hamiltonian S=2",
            4.0,
            &[0.08, 0.04, 0.02, 0.01],
            run_hamiltonian::<GaussLobatto<2>>,
        ),
        (
            "Hamiltonian S=3",
            6.0,
            &[0.125, 0.0625, 0.03125],
            run_hamiltonian::<GaussLobatto<3>>,
        ),
        (
            "Hamiltonian IIIA-B S=3",
            4.0,
            &[0.08, 0.04, 0.02, 0.01],
            run_hamiltonian::<LobattoIIIAB<3>>,
        ),
    ] {
        let errs: Vec<f64> = hs.iter().map(|&h| f(h, 2.0)).collect();
        common::assert_order(label, order, hs, &errs);
    }
}

#[test]
fn multipliers_give_the_reaction_forces() {
    // Pendulum: the radial balance −ω² = g cos θ + Q·e_r − 2λ with e_r = q, Q·e_r = push sin θ
    // (the damping is tangential).
    let p = pendulum();
    let (th, om, t) = (0.7f64, -1.3f64, 0.4f64);
    let [x, y, vx, vy] = pendulum_cartesian(th, om);
    let s = State::new(t, [x, y], [vx, vy]);
    let sim = Integrator::<ForcedPendulum, GaussLobatto<2>>::new(p, 0.01).unwrap();
    let lambda = sim.multipliers(&s).unwrap().lambda[0];
    let push = p.a * (p.w * t).cos() + p.u;
    let expected = 0.5 * (om * om + p.g * th.cos() + push * th.sin());
    assert!((lambda - expected).abs() < 1e-12, "{lambda} {expected}");
    // The same state in Hamiltonian form (unit mass: p = v) has the same λ.
    let ph = ForcedPendulumH {
        u: p.u,
        ..ForcedPendulumH::default()
    };
    let simh = Integrator::<ForcedPendulumH, GaussLobatto<2>>::new(ph, 0.01).unwrap();
    let sh = spark::hamiltonian::State::new(t, [x, y], [vx, vy]);
    let lh = simh.multipliers(&sh).unwrap().lambda[0];
    assert!((lh - expected).abs() < 1e-12, "{lh} {expected}");

    // Skate: the lateral balance m s ω = ψ + Q·n with n = (−sin φ, cos φ) and Q·n = e ω sin φ.
    let k = ForcedSkate::default();
    let (sp, om, phi) = (0.8f64, -0.5f64, 0.3f64);
    let s = State::new(0.2, [0.1, 0.2, phi], [sp * phi.cos(), sp * phi.sin(), om]);
    let sim = Integrator::<ForcedSkate, GaussLobatto<2>>::new(k, 0.01).unwrap();
    let psi = sim.multipliers(&s).unwrap().psi[0];
    let expected = k.m * sp * om - k.e * om * phi.sin();
    assert!((psi - expected).abs() < 1e-12, "{psi} {expected}");
}

spark::mechanics! {
    /// The thesis' two-point skate (a rigid bar with a knife edge: one holonomic and one
    /// nonholonomic constraint) with a Rayleigh dissipation on the four velocities and a
    /// time-dependent push on the first point.
    struct ForcedTwoPointSkate {
        coordinates: [q1, q2, q3, q4],
        velocities: [v1, v2, v3, v4],
        parameters: [c = 0.4, a = 0.6],
        lagrangian: 0.25 * (v1.powi(2) + v2.powi(2) + v3.powi(2) + v4.powi(2)) + 0.5 * (q1 + q3),
        forces: [a * (2.0 * t).sin(), a * t.cos(), 0.0, 0.0],
        dissipation: 0.5 * c * (v1.powi(2) + v2.powi(2) + 0.5 * v3.powi(2) + 0.5 * v4.powi(2)),
        holonomic: [0.5 * ((q3 - q1).powi(2) + (q4 - q2).powi(2) - 1.0)],
        nonholonomic: [-(q4 - q2) * (v1 + v3) + (q3 - q1) * (v2 + v4)],
    }
}

/// The state of the two-point skate after `t_end` with step `h`.
fn two_point_skate<Meth: Method>(h: f64, t_end: f64) -> [f64; 8] {
    let mut sim =
        Integrator::<ForcedTwoPointSkate, Meth>::new(ForcedTwoPointSkate::default(), h).unwrap();
    // Bar along x, moving along its blade direction (0, 1) and turning.
    let mut s = State::new(0.0, [0.0, 0.0, 1.0, 0.0], [0.2, 0.5, -0.2, 0.5]);
    sim.project(&mut s).unwrap();
    for _ in 0..(t_end / h).round() as usize {
        sim.step(&mut s).unwrap();
        let (g, w) = sim.constraint_residual(&s);
        assert!(g < 1e-12 && w < 1e-12, "residuals {g:e} {w:e}");
    }
    core::array::from_fn(|i| if i < 4 { s.q[i] } else { s.v[i - 4] })
}

/// Orders from successive halvings (no closed form for this model): the differences
/// `|y_h − y_{h/2}|` decrease like `h^p`.
fn self_convergence<Meth: Method>(label: &str, order: f64, hs: &[f64]) {
    let runs: Vec<[f64; 8]> = hs
        .iter()
        .chain([hs[hs.len() - 1] / 2.0].iter())
        .map(|&h| two_point_skate::<Meth>(h, 2.0))
        .collect();
    let diffs: Vec<f64> = runs
        .windows(2)
        .map(|w| {
            w[0].iter()
                .zip(&w[1])
                .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()))
        })
        .collect();
    common::assert_order(label, order, hs, &diffs);
}

#[test]
fn forced_mixed_model_orders_from_successive_halvings() {
    self_convergence::<GaussLobatto<1>>("two-point skate S=1", 2.0, &[0.04, 0.02, 0.01]);
    self_convergence::<GaussLobatto<2>>("two-point skate S=2", 4.0, &[0.1, 0.05, 0.025]);
    self_convergence::<LobattoIIIAB<3>>("two-point skate IIIA-B S=3", 4.0, &[0.1, 0.05, 0.025]);
}

#[test]
fn forced_skate_symplectic_euler_ii() {
    skate_order::<spark::SymplecticEulerII>(
        "skate symplectic Euler II",
        1.0,
        &[0.01, 0.005, 0.0025],
    );
}

spark::mechanics! {
    /// The forced pendulum of `ForcedPendulum` given as the DAE (2.11): `y = q`, `z = v`.
    struct ForcedPendulumDae {
        coordinates: [x, y],
        variables: [vx, vy],
        multipliers: [lam],
        parameters: [g = 9.81, c = 0.3, a = 0.8, w = 2.0],
        inputs: [u],
        v: [vx, vy],
        p: [vx, vy],
        f: [-c * vx, -g - c * vy],
        r: [-2.0 * x * lam, -2.0 * y * lam],
        forces: [a * (w * t).cos() + u, 0.0],
        holonomic: [x.powi(2) + y.powi(2) - 1.0],
    }
}

#[test]
fn dae_form_with_forces_and_inputs_matches_the_lagrangian_form() {
    let p = pendulum();
    let d = ForcedPendulumDae {
        u: p.u,
        ..ForcedPendulumDae::default()
    };
    let h = 0.02;
    let mut lag = Integrator::<ForcedPendulum, GaussLobatto<2>>::new(p, h).unwrap();
    let mut dae = Integrator::<ForcedPendulumDae, GaussLobatto<2>>::new(d, h).unwrap();
    let mut s = pendulum_start();
    let mut z = spark::dae::State::new(0.0, [TH0.sin(), -TH0.cos()], [0.0, 0.0], [0.0]);
    dae.project(&mut z).unwrap();
    let mut worst = 0.0f64;
    for _ in 0..100 {
        lag.step(&mut s).unwrap();
        dae.step(&mut z).unwrap();
        worst = worst.max((s.q - z.y).amax()).max((s.v - z.z).amax());
    }
    eprintln!("Lagrangian and DAE forms differ by at most {worst:.1e}");
    assert!(worst < 1e-10, "{worst:e}");
}
