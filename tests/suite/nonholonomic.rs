//! Nonholonomic constraints through the macro (thesis of S. Small, Definition 5.2.1): the
//! nonholonomic particle of Jay's Lagrange-d'Alembert paper (§8.1) and the skate on an inclined
//! plane of the thesis (§8.3.2, with ℓ = 1: the printed ℓ = 2 is inconsistent with the printed
//! initial positions). Orders 2s, |k| and the holonomic residuals after every step.

use crate::common;

use common::run;

use spark::{GaussLobatto, Integrator, Method, State, SymplecticEuler};

include!("../../examples/models/nonholonomic_particle.rs");
include!("../../examples/models/skate.rs");

fn max_diff<const N: usize>(a: &State<N>, b: &State<N>) -> f64 {
    (0..N).fold(0.0f64, |m, i| {
        m.max((a.q[i] - b.q[i]).abs()).max((a.v[i] - b.v[i]).abs())
    })
}

/// Orders against a self-computed reference (GaussLobatto<3> at a small step; the runtime's
/// own tests compare with independent references in minimal coordinates).
fn orders<
    Sys: spark::Lagrangian<N, M, K> + Copy,
    const N: usize,
    const M: usize,
    const K: usize,
>(
    label: &str,
    sys: Sys,
    s0: State<N>,
) {
    let t_end = 2.0;
    let fine = run::<Sys, GaussLobatto<3>, N, M, K>(sys, s0, 0.005, t_end);
    let hs = [0.1, 0.05, 0.025];
    let e: Vec<f64> = hs
        .iter()
        .map(|&h| {
            max_diff(
                &run::<Sys, GaussLobatto<1>, N, M, K>(sys, s0, h, t_end),
                &fine,
            )
        })
        .collect();
    common::assert_order(&format!("{label} S=1"), 2.0, &hs, &e);
    let hs = [0.2, 0.1, 0.05];
    let e: Vec<f64> = hs
        .iter()
        .map(|&h| {
            max_diff(
                &run::<Sys, GaussLobatto<2>, N, M, K>(sys, s0, h, t_end),
                &fine,
            )
        })
        .collect();
    common::assert_order(&format!("{label} S=2"), 4.0, &hs, &e);
}

#[test]
fn nonholonomic_particle_order_2s_and_constraint_kept() {
    // 004 §8.1: q0 = (1, 0, 0), v0 = (0, 1, 0); k = v3 − q2 v1 = 0.
    let s0 = State::new(0.0, [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]);
    orders("nonholonomic particle", Particle {}, s0);
}

#[test]
fn skate_order_2s_with_both_kinds_of_constraint() {
    let s0 = State::new(0.0, [-0.5, 0.0, 0.5, 0.0], [0.0, -0.5, 0.0, 0.5]);
    orders("skate", Skate::default(), s0);
}

fn energy_error<Meth: Method>() -> f64 {
    let mut sim = Integrator::<Particle, Meth>::new(Particle {}, 0.2).unwrap();
    let mut s = State::new(0.0, [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]);
    let e0 = sim.energy(&s);
    assert_eq!(e0, 1.5);
    let mut worst = 0.0f64;
    for _ in 0..1250 {
        sim.step(&mut s).unwrap();
        worst = worst.max((sim.energy(&s) - e0).abs());
    }
    worst
}

#[test]
fn energy_of_the_particle_is_bounded_as_in_figure_8_1() {
    // 004 figure 8.1: h = 0.2 on [0, 250]. The guide's independent prototype measured
    // max |E − E0| = 6.64e-3, 2.70e-5, 1.61e-7 for s = 1, 2, 3.
    for (s, e, expected) in [
        (1, energy_error::<GaussLobatto<1>>(), 6.64e-3),
        (2, energy_error::<GaussLobatto<2>>(), 2.70e-5),
        (3, energy_error::<GaussLobatto<3>>(), 1.61e-7),
    ] {
        eprintln!("S={s}: max |E - E0| over [0, 250] = {e:e}");
        assert!(
            (e / expected - 1.0).abs() < 0.01,
            "S={s}: {e:e} vs {expected:e}"
        );
    }
}

#[test]
fn project_enforces_k_and_natural_symplectic_euler_says_unsupported() {
    let mut s = State::new(0.0, [1.0, 0.5, 0.0], [1.0, 1.0, 0.0]); // k = −0.5
    let mut sim = Integrator::<Particle, GaussLobatto<1>>::new(Particle {}, 0.1).unwrap();
    assert!(matches!(
        sim.step(&mut s),
        Err(spark::Error::InconsistentState { .. })
    ));
    sim.project(&mut s).unwrap();
    let (_, w) = sim.constraint_residual(&s);
    assert!(w < 1e-14, "{w:e}");
    sim.step(&mut s).unwrap();
    // (LobattoIIIAB supports nonholonomic constraints now: tests/suite/nonholonomic_lobatto.rs.)
    let mut lob = Integrator::<Particle, SymplecticEuler>::new(Particle {}, 0.1).unwrap();
    assert!(matches!(
        lob.step(&mut s),
        Err(spark::Error::Unsupported { .. })
    ));
}
