//! The charged particle on a sphere (Jay 2007, (6.2)): a Hamiltonian model through the macro.
//! Bounded Hamiltonian error at h = 0.12 (figure 6.3), constraints after every step, and the
//! Hamiltonian and Lagrangian forms giving the same trajectory to round-off.

include!("../../examples/models/charged_particle.rs");

use spark::{hamiltonian, GaussLobatto, Integrator, Method, Options, State};

/// Max |H − H0| over the first and the last tenth of `steps` steps of h = 0.12.
fn energy_error<Meth: Method>(steps: usize) -> (f64, f64) {
    let mut sim =
        Integrator::<ChargedParticle, Meth>::new(ChargedParticle::default(), 0.12).unwrap();
    let mut s = hamiltonian::State::new(0.0, q0(), P0);
    let h0 = sim.energy(&s);
    assert!((h0 - 0.480833695337456).abs() < 1e-14, "{h0}");
    let (mut first, mut last) = (0.0f64, 0.0f64);
    for k in 0..steps {
        sim.step(&mut s).unwrap();
        let (g, w) = sim.constraint_residual(&s);
        assert!(g < 1e-12 && w < 1e-12, "step {k}: {g:e} {w:e}");
        let de = (sim.energy(&s) - h0).abs();
        if k < steps / 10 {
            first = first.max(de);
        } else if k >= steps - steps / 10 {
            last = last.max(de);
        }
    }
    (first, last)
}

#[test]
fn hamiltonian_error_is_bounded_at_h_012() {
    // 20,000 steps = t in [0, 2400].
    for (s, (first, last), bound) in [
        (1, energy_error::<GaussLobatto<1>>(20_000), 5e-3),
        (2, energy_error::<GaussLobatto<2>>(20_000), 2e-5),
    ] {
        eprintln!("S={s}: max |H - H0| first tenth {first:e}, last tenth {last:e}");
        assert!(first < bound && last < bound, "S={s}: {first:e} {last:e}");
        assert!(last <= 1.5 * first, "S={s}: drift {first:e} -> {last:e}");
    }
}

/// Momenta of the Lagrangian form: p = m v + m ω (−q2, q1, 0) with m = ω = 1.
fn momenta(q: &[f64; 3], v: &[f64; 3]) -> [f64; 3] {
    [v[0] - q[1], v[1] + q[0], v[2]]
}

#[test]
fn hamiltonian_and_lagrangian_forms_agree_to_roundoff() {
    let q = q0();
    let v = [P0[0] + q[1], P0[1] - q[0], P0[2]]; // v = H_p(q0, p0) = (1.2, −1.2, 0)
    let mut sh = hamiltonian::State::new(0.0, q, P0);
    let mut sl = State::new(0.0, q, v);
    // The forms are compared, not the solvers: both Newton iterations are run past the default
    // tolerance (1e-12, relative), which alone would allow differences of that size.
    let tight = Options {
        tolerance: 1e-14,
        ..Options::default()
    };
    let mut ham =
        Integrator::<ChargedParticle, GaussLobatto<2>>::new(ChargedParticle::default(), 0.05)
            .unwrap()
            .with_options(tight);
    let mut lag =
        Integrator::<ChargedParticleL, GaussLobatto<2>>::new(ChargedParticleL::default(), 0.05)
            .unwrap()
            .with_options(tight);
    let mut worst = 0.0f64;
    for _ in 0..400 {
        ham.step(&mut sh).unwrap();
        lag.step(&mut sl).unwrap();
        let ql: [f64; 3] = sl.q.into();
        let pl = momenta(&ql, &sl.v.into());
        for i in 0..3 {
            worst = worst
                .max((sh.q[i] - ql[i]).abs())
                .max((sh.p[i] - pl[i]).abs());
        }
        let de = (ham.energy(&sh) - lag.energy(&sl)).abs();
        assert!(de < 1e-12, "{de:e}");
    }
    eprintln!("max |Hamiltonian − Lagrangian| over 400 steps: {worst:e}");
    assert!(worst < 1e-12, "{worst:e}");
}
