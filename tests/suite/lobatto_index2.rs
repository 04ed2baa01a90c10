//! The Lobatto IIIA-B methods of paper 002 for nonholonomic (index-2) Lagrangian systems
//! (`spark::LobattoIIIABIndex2`, `spark::lobatto_index2`): orders on 002's experiment (E8, the
//! nonholonomic particle in a harmonic potential) against a GaussLobatto<4> reference (order 8),
//! the multiplier's order with 002's inherited multiplier and with the consistent restart the
//! `Integrator` uses, the skate of 004 against its closed form, the s = 2 step against its
//! hand-coded reduced form, symmetry, the exact Jacobian against finite differences, and the
//! error paths.
//!
//! `cargo test --release --test suite lobatto_index2:: -- --nocapture` prints the errors.

use crate::common;

use spark::lobatto_index2::{consistent_multiplier, step_with_multiplier, system_len};
use spark::nalgebra::SVector;
use spark::{Error, GaussLobatto, Integrator, LobattoIIIABIndex2, Method, Options, State};
use spark_runtime::step::Problem;

include!("../../examples/models/index2_particle.rs");

include!("../../examples/models/inclined_skate.rs");

spark::mechanics! {
    /// A test model with every second derivative nonzero: configuration-dependent mass, a
    /// gyroscopic term, and a constraint nonlinear in `v` whose `k_v` depends on `q`.
    pub struct Twisted {
        coordinates: [x, y, z],
        velocities: [vx, vy, vz],
        lagrangian: 0.5 * (1.0 + 0.5 * y.powi(2)) * vx.powi(2) + 0.5 * vy.powi(2)
            + 0.5 * vz.powi(2) + 0.3 * x * vy - 0.5 * (x.powi(2) + y.powi(2)) - 0.2 * z.powi(3),
        nonholonomic: [vz - y * vx + 0.1 * x * vx.powi(2)],
    }
}

spark::mechanics! {
    /// A holonomic model: the planar pendulum.
    pub struct Pendulum {
        coordinates: [x, y],
        velocities: [vx, vy],
        lagrangian: 0.5 * (vx.powi(2) + vy.powi(2)) - y,
        holonomic: [x.powi(2) + y.powi(2) - 1.0],
    }
}

/// 002's initial values: q0 = (1, 0, 0), p0 = v0 = (0, 1, 0) (λ0 = 0).
/// Max of the Euclidean norms of the q- and v-errors.
fn err(a: &State<3>, b: &State<3>) -> f64 {
    (a.q - b.q).norm().max((a.v - b.v).norm())
}

/// Integrates with the `Integrator` from `s0` to `t_end`, asserting |k| < 1e-12 after every step.
fn run<Sys: spark::Lagrangian<3, 0, 1>, Meth: Method>(
    sys: Sys,
    s0: State<3>,
    h: f64,
    t_end: f64,
) -> State<3> {
    // Full Newton: the GaussLobatto<4> references must be exact to round-off, below what the
    // default simplified iteration's stopping test guarantees (1e-12 relative per solve).
    let exact = Options {
        simplified_newton: false,
        ..Options::default()
    };
    let mut sim = Integrator::<Sys, Meth>::new(sys, h)
        .unwrap()
        .with_options(exact);
    let mut s = s0;
    for _ in 0..(t_end / h).round() as usize {
        sim.step(&mut s).unwrap();
        let (_, k) = sim.constraint_residual(&s);
        assert!(k < 1e-12, "t = {}: |k| = {k:e}", s.t);
    }
    s
}

/// 002's method proper: the multiplier carried from step to step (`carry`), or restarted from
/// the consistent multiplier every step (what the `Integrator` does). Returns the end state and
/// the multiplier Ψ_S of the last step; asserts |k| < 1e-12 after every step.
fn run_psi<const S: usize>(h: f64, t_end: f64, carry: bool) -> (State<3>, f64) {
    let sys = Particle {};
    // Full Newton: the errors measured here reach 1e-13 (see `run`).
    let o = Options {
        simplified_newton: false,
        ..Options::default()
    };
    let mut s = e8_start();
    let mut psi = consistent_multiplier(&sys, &s).unwrap();
    for _ in 0..(t_end / h).round() as usize {
        if !carry {
            psi = consistent_multiplier(&sys, &s).unwrap();
        }
        let (n, p, _) =
            step_with_multiplier(&LobattoIIIABIndex2::<S>::TABLEAU, &sys, h, &o, &s, &psi).unwrap();
        let k = (n.v[2] - n.q[1] * n.v[0]).abs();
        assert!(k < 1e-12, "t = {}: |k| = {k:e}", n.t);
        s = n;
        psi = p;
    }
    (s, psi[0])
}

const T_END: f64 = 1.0;

fn reference() -> State<3> {
    run::<Particle, GaussLobatto<4>>(Particle {}, e8_start(), 0.005, T_END)
}

#[test]
fn reference_is_converged() {
    let a = reference();
    let b = run::<Particle, GaussLobatto<4>>(Particle {}, e8_start(), 0.0025, T_END);
    assert!(err(&a, &b) < 1e-14, "{:e}", err(&a, &b));
}

const HS: [f64; 4] = [0.2, 0.1, 0.05, 0.025];

#[test]
fn integrator_has_order_2s_minus_2_on_e8() {
    let reference = reference();
    let e = |hs: &[f64], f: fn(f64) -> State<3>| -> Vec<f64> {
        hs.iter().map(|&h| err(&f(h), &reference)).collect()
    };
    type P = Particle;
    let f2 = |h| run::<P, LobattoIIIABIndex2<2>>(P {}, e8_start(), h, T_END);
    let f3 = |h| run::<P, LobattoIIIABIndex2<3>>(P {}, e8_start(), h, T_END);
    let f4 = |h| run::<P, LobattoIIIABIndex2<4>>(P {}, e8_start(), h, T_END);
    let f5 = |h| run::<P, LobattoIIIABIndex2<5>>(P {}, e8_start(), h, T_END);
    common::assert_order("Integrator S=2", 2.0, &HS, &e(&HS, f2));
    common::assert_order("Integrator S=3", 4.0, &HS, &e(&HS, f3));
    common::assert_order("Integrator S=4", 6.0, &HS[..3], &e(&HS[..3], f4));
    let hs5 = [0.5, 0.25, 0.125];
    common::assert_order("Integrator S=5", 8.0, &hs5, &e(&hs5, f5));
}

/// 002 with the multiplier inherited (Cor 3.1): q, v of order 2S − 2 (checked on `hs`), ψ of
/// order S (S even) or S − 1 (S odd) (checked on `hs_psi`); with the consistent restart of the
/// `Integrator`, q, v keep order 2S − 2 (the restart's Ψ_S errors are printed). `guide` holds
/// `(index into hs, q error, ψ error or 0)` of the guide's independent prototype (E8, 2 digits).
fn paper_orders<const S: usize>(
    hs: &[f64],
    hs_psi: &[f64],
    psi_order: f64,
    guide: &[(usize, f64, f64)],
) {
    let reference = reference();
    let psi_ref = consistent_multiplier(&Particle {}, &reference).unwrap()[0];
    let order = (2 * S - 2) as f64;
    for carry in [true, false] {
        let label = if carry {
            "inherited ψ"
        } else {
            "consistent ψ0"
        };
        let r: Vec<(State<3>, f64)> = hs.iter().map(|&h| run_psi::<S>(h, T_END, carry)).collect();
        let eqv: Vec<f64> = r.iter().map(|x| err(&x.0, &reference)).collect();
        common::assert_order(&format!("S={S} {label}: q, v"), order, hs, &eqv);
        let epsi: Vec<f64> = hs_psi
            .iter()
            .map(|&h| (run_psi::<S>(h, T_END, carry).1 - psi_ref).abs())
            .collect();
        if carry {
            common::assert_order(&format!("S={S} {label}: ψ"), psi_order, hs_psi, &epsi);
            for &(i, eq, el) in guide {
                let q = (r[i].0.q - reference.q).norm();
                assert!(
                    (q / eq - 1.0).abs() < 0.05,
                    "S={S}: q error {q:e} vs guide {eq:e}"
                );
                if el > 0.0 {
                    let e = (r[i].1 - psi_ref).abs();
                    assert!(
                        (e / el - 1.0).abs() < 0.05,
                        "S={S}: ψ error {e:e} vs guide {el:e}"
                    );
                }
            }
        } else {
            let (fit, _) = common::slopes(hs_psi, &epsi);
            eprintln!(
                "S={S} {label}: h = {hs_psi:?}\n  Ψ_S errors {epsi:?} (fitted slope {fit:.2})"
            );
        }
    }
}

#[test]
fn paper_method_orders_for_q_v_and_the_multiplier() {
    let guide2 = [(0, 6.9e-3, 6.2e-4), (3, 1.1e-4, 1.1e-5)];
    paper_orders::<2>(&HS, &HS, 2.0, &guide2);
    paper_orders::<3>(&HS, &HS, 2.0, &[(0, 9.0e-6, 0.0), (3, 2.2e-9, 0.0)]);
    paper_orders::<4>(&HS[1..], &HS[1..], 4.0, &[(2, 1.6e-13, 0.0)]);
    let hs5 = [1.0 / 3.0, 1.0 / 6.0, 1.0 / 12.0];
    paper_orders::<5>(&hs5, &[0.05, 0.025, 0.0125], 4.0, &[]);
}

#[test]
fn skate_against_its_closed_form() {
    let s0 = inclined_skate_start();
    let t_end = 2.0;
    let e = |f: &dyn Fn(f64) -> State<3>, hs: &[f64]| -> Vec<f64> {
        hs.iter()
            .map(|&h| err(&f(h), &inclined_skate_exact(t_end)))
            .collect()
    };
    let f2 = |h| run::<Skate, LobattoIIIABIndex2<2>>(Skate::default(), s0, h, t_end);
    let f3 = |h| run::<Skate, LobattoIIIABIndex2<3>>(Skate::default(), s0, h, t_end);
    let f4 = |h| run::<Skate, LobattoIIIABIndex2<4>>(Skate::default(), s0, h, t_end);
    common::assert_order("skate S=2", 2.0, &HS, &e(&f2, &HS));
    common::assert_order("skate S=3", 4.0, &HS, &e(&f3, &HS));
    common::assert_order("skate S=4", 6.0, &HS[..3], &e(&f4, &HS[..3]));
}

#[test]
fn general_lagrangian_and_constraint_converge() {
    // Twisted: k nonlinear in v, mass depending on q, gyroscopic term; reference Gauss S = 4.
    let sys = Twisted {};
    let mut s0 = State::new(0.0, [0.5, -0.3, 0.2], [0.4, 0.6, 0.0]);
    Integrator::<Twisted, GaussLobatto<4>>::new(sys, 0.1)
        .unwrap()
        .project(&mut s0)
        .unwrap();
    let reference = run::<Twisted, GaussLobatto<4>>(sys, s0, 0.005, T_END);
    let hs = [0.2, 0.1, 0.05];
    let e3: Vec<f64> = hs
        .iter()
        .map(|&h| {
            err(
                &run::<Twisted, LobattoIIIABIndex2<3>>(sys, s0, h, T_END),
                &reference,
            )
        })
        .collect();
    common::assert_order("Twisted S=3", 4.0, &hs, &e3);
}

#[test]
fn consistent_multiplier_matches_the_closed_form_of_e8() {
    // ψ = −λ with 002's λ = (p_x p_y − x y)/(1 + y²).
    let sys = Particle {};
    for (q, v) in [
        ([1.0, 0.0, 0.0], [0.0, 1.0, 0.0]),
        ([0.3, -0.7, 2.0], [0.4, 0.5, -0.28]),
        ([-1.2, 1.5, 0.1], [0.9, -0.2, 1.35]),
    ] {
        let s = State::new(0.0, q, v);
        let psi = consistent_multiplier(&sys, &s).unwrap()[0];
        let lambda = (v[0] * v[1] - q[0] * q[1]) / (1.0 + q[1] * q[1]);
        assert!((psi + lambda).abs() < 1e-14, "{psi} vs −{lambda}");
    }
}

// ---------------------------------------------------------------------------------------------
// S = 2 in closed form: V_1 = V_2 = v0 − (h/2)(∇U(q0) + K(q0)ᵀψ0), q1 = q0 + h V_1,
// v1 = W_2 = V_1 − (h/2)(∇U(q1) + K(q1)ᵀψ1) with K(q1) v1 = 0 (a linear projection).
// ---------------------------------------------------------------------------------------------

type V3 = SVector<f64, 3>;

fn reduced_s2(q0: &V3, v0: &V3, psi0: f64, h: f64) -> (V3, V3, f64) {
    let grad_u = |q: &V3| V3::new(q[0], q[1], 0.0);
    let kk = |q: &V3| V3::new(-q[1], 0.0, 1.0);
    let v_half = v0 - (grad_u(q0) + kk(q0) * psi0) * (0.5 * h);
    let q1 = q0 + v_half * h;
    let a = v_half - grad_u(&q1) * (0.5 * h);
    let k1 = kk(&q1);
    let half_h_psi1 = k1.dot(&a) / k1.dot(&k1);
    (q1, a - k1 * half_h_psi1, 2.0 * half_h_psi1 / h)
}

#[test]
fn s2_equals_its_reduced_form() {
    let sys = Particle {};
    let h = 0.1;
    let o = Options {
        tolerance: 1e-15,
        ..Options::default()
    };
    let tab = LobattoIIIABIndex2::<2>::TABLEAU;
    let mut sim = Integrator::<Particle, LobattoIIIABIndex2<2>>::new(sys, h)
        .unwrap()
        .with_options(o);
    let (mut s, mut si) = (e8_start(), e8_start());
    let mut psi = 0.0;
    let mut worst = 0.0f64;
    for _ in 0..50 {
        // Inherited multiplier.
        let (q1, v1, p1) = reduced_s2(&s.q, &s.v, psi, h);
        let (n, p, _) = step_with_multiplier(&tab, &sys, h, &o, &s, &SVector::from([psi])).unwrap();
        worst = worst
            .max((n.q - q1).amax())
            .max((n.v - v1).amax())
            .max(h * (p[0] - p1).abs());
        (s, psi) = (n, p[0]);
        // Consistent restart (Integrator): ψ0 = (x y − v_x v_y)/(1 + y²).
        let psi_c = (si.q[0] * si.q[1] - si.v[0] * si.v[1]) / (1.0 + si.q[1] * si.q[1]);
        let (q1, v1, _) = reduced_s2(&si.q, &si.v, psi_c, h);
        sim.step(&mut si).unwrap();
        worst = worst.max((si.q - q1).amax()).max((si.v - v1).amax());
    }
    eprintln!("S=2: max distance to the reduced form over 50 steps {worst:e}");
    assert!(worst < 1e-13, "{worst:e}");
}

#[test]
fn inherited_multiplier_makes_the_step_symmetric_the_restart_does_not() {
    // 002's method maps (q, v, ψ) symmetrically: stepping back with −h from (q1, v1, ψ1)
    // returns to (q0, v0, ψ0). The Integrator's restart from the consistent ψ is not symmetric:
    // the backward step starts from the consistent ψ(q1, v1) ≠ Ψ_S.
    let sys = Particle {};
    let o = Options {
        tolerance: 1e-15,
        ..Options::default()
    };
    let h = 0.2;
    let s = State::new(0.0, [0.3, -0.7, 2.0], [0.4, 0.5, -0.28]);
    let psi = consistent_multiplier(&sys, &s).unwrap();
    macro_rules! check {
        ($s:literal) => {{
            let tab = LobattoIIIABIndex2::<$s>::TABLEAU;
            let (s1, p1, _) = step_with_multiplier(&tab, &sys, h, &o, &s, &psi).unwrap();
            let (b, pb, _) = step_with_multiplier(&tab, &sys, -h, &o, &s1, &p1).unwrap();
            let back = err(&b, &s).max((pb - psi).amax());
            let pc = consistent_multiplier(&sys, &s1).unwrap();
            let (bc, _, _) = step_with_multiplier(&tab, &sys, -h, &o, &s1, &pc).unwrap();
            let back_c = err(&bc, &s);
            eprintln!(
                "S={}: back-and-forth {back:e} (inherited ψ), {back_c:e} (restart)",
                $s
            );
            assert!(back < 1e-14, "{back:e}");
            assert!(back_c > 1e-10, "{back_c:e}");
        }};
    }
    check!(2);
    check!(3);
    check!(4);
}

fn fd_check<Sys: spark::Lagrangian<3, 0, 1>, const S: usize>(sys: &Sys, label: &str) {
    let tab = LobattoIIIABIndex2::<S>::TABLEAU;
    let h = 0.13;
    let state = State::new(0.2, [0.5, -0.3, 0.2], [0.4, 0.6, -0.1]);
    let psi0 = SVector::from([0.37]);
    let n = system_len::<3, 1, S>();
    // An arbitrary point (not a solution) with nonzero multipliers.
    let x: Vec<f64> = (0..n)
        .map(|i| 0.3 * ((i as f64) * 1.7 + 0.4).sin())
        .collect();
    let mut r = vec![0.0; n];
    let mut jac = vec![0.0; n * n];
    Problem::<Sys, 3, 0, 1>::new(sys, h, &Options::default(), &state).index2_residual(
        &tab,
        &psi0,
        &x,
        &mut r,
        Some(&mut jac),
    );
    let mut worst = 0.0f64;
    for c in 0..n {
        let d = 1e-6;
        let (mut xp, mut xm) = (x.clone(), x.clone());
        xp[c] += d;
        xm[c] -= d;
        let (mut rp, mut rm) = (vec![0.0; n], vec![0.0; n]);
        Problem::<Sys, 3, 0, 1>::new(sys, h, &Options::default(), &state)
            .index2_residual(&tab, &psi0, &xp, &mut rp, None);
        Problem::<Sys, 3, 0, 1>::new(sys, h, &Options::default(), &state)
            .index2_residual(&tab, &psi0, &xm, &mut rm, None);
        for row in 0..n {
            let fd = (rp[row] - rm[row]) / (2.0 * d);
            let e = (fd - jac[row * n + c]).abs() / (1.0 + fd.abs());
            worst = worst.max(e);
        }
    }
    let nonzero = jac.iter().filter(|v| v.abs() > 1e-3).count();
    eprintln!("{label} S={S}: max relative Jacobian error {worst:e} ({nonzero} entries > 1e-3)");
    assert!(worst < 1e-7, "{label}: {worst:e}");
    // Not trivially passing: far more nonzero entries than the diagonal.
    assert!(nonzero > 2 * n, "{nonzero}");
}

#[test]
fn jacobian_matches_finite_differences() {
    fd_check::<Twisted, 2>(&Twisted {}, "Twisted");
    fd_check::<Twisted, 3>(&Twisted {}, "Twisted");
    fd_check::<Twisted, 4>(&Twisted {}, "Twisted");
    fd_check::<Skate, 3>(&Skate::default(), "Skate");
    fd_check::<Particle, 3>(&Particle {}, "Particle");
}

#[test]
fn errors_leave_the_state_unchanged() {
    // Holonomic constraints are not supported.
    let mut sim = Integrator::<Pendulum, LobattoIIIABIndex2<2>>::new(Pendulum {}, 0.1).unwrap();
    let mut s = State::new(0.0, [1.0, 0.0], [0.0, 0.0]);
    let before = s;
    assert!(matches!(sim.step(&mut s), Err(Error::Unsupported { .. })));
    assert_eq!(s, before);
    // An inconsistent start (k ≠ 0).
    let mut sim = Integrator::<Particle, LobattoIIIABIndex2<3>>::new(Particle {}, 0.1).unwrap();
    let mut s = State::new(0.0, [1.0, 0.5, 0.0], [1.0, 1.0, 0.0]);
    let before = s;
    assert!(matches!(
        sim.step(&mut s),
        Err(Error::InconsistentState { .. })
    ));
    assert_eq!(s, before);
    // Non-finite data.
    let mut s = State::new(0.0, [f64::NAN, 0.0, 0.0], [0.0, 1.0, 0.0]);
    assert!(sim.step(&mut s).is_err());
    let r = step_with_multiplier(
        &LobattoIIIABIndex2::<3>::TABLEAU,
        &Particle {},
        0.1,
        &Options::default(),
        &e8_start(),
        &SVector::from([f64::INFINITY]),
    );
    assert!(matches!(r, Err(Error::NonFiniteState)));
    // A tableau violating H1.
    let mut tab = LobattoIIIABIndex2::<3>::TABLEAU;
    tab.a[0][1] = 0.1;
    let r = step_with_multiplier(
        &tab,
        &Particle {},
        0.1,
        &Options::default(),
        &e8_start(),
        &SVector::zeros(),
    );
    assert!(matches!(r, Err(Error::Unsupported { .. })));
    // A huge step: Newton fails with an error, not a panic.
    let mut sim = Integrator::<Twisted, LobattoIIIABIndex2<3>>::new(Twisted {}, 50.0).unwrap();
    let mut s = State::new(0.0, [0.5, -0.3, 0.2], [0.4, 0.6, 0.0]);
    sim.project(&mut s).unwrap();
    let before = s;
    if sim.step(&mut s).is_err() {
        assert_eq!(s, before);
    }
}
