//! Error estimates, adaptive steps, dense output and events (`spark::simulate`): the estimate
//! against the true local error, the dense output's measured order, event times against a
//! closed form, and the driver's contract (end time hit exactly, rejections, errors that keep
//! the accepted work).

use crate::common;

include!("../../examples/models/seven_body.rs");
include!("../../examples/models/skate.rs");

use spark::simulate::{Direction, Event, EventOn, Report, ReportOn};
use spark::{Emprk, Error, GaussLobatto, Integrator, Method, Options, State};

include!("../../examples/models/pendulum.rs");

spark::mechanics! {
    /// The same pendulum as a Hamiltonian system.
    pub struct HamPendulum {
        coordinates: [x, y],
        momenta: [px, py],
        parameters: [g = 9.81],
        hamiltonian: 0.5 * (px.powi(2) + py.powi(2)) + g * y,
        holonomic: [x.powi(2) + y.powi(2) - 1.0],
    }
}

/// The pendulum at 60° from the downward vertical, swinging.
fn pendulum_start() -> State<2> {
    let a = 60f64.to_radians();
    State::new(0.0, [a.sin(), -a.cos()], [0.5 * a.cos(), 0.5 * a.sin()])
}

/// `max |a − b|` over coordinates and velocities.
fn dist<const N: usize>(a: &State<N>, b: &State<N>) -> f64 {
    (a.q - b.q).amax().max((a.v - b.v).amax())
}

/// The state after `h` from `s`, by `k` steps of GaussLobatto<3> (a reference).
fn reference<Sys: spark::Lagrangian<N, M, K>, const N: usize, const M: usize, const K: usize>(
    sys: Sys,
    s: &State<N>,
    h: f64,
    k: usize,
) -> State<N> {
    let mut r = *s;
    let mut f = Integrator::<Sys, GaussLobatto<3>>::new(sys, h / k as f64).unwrap();
    for _ in 0..k {
        f.step(&mut r).unwrap();
    }
    r
}

/// Ratio of the estimate to the true local error of `step_with_estimate` over `hs`.
fn ratios<Sys, Meth, const N: usize, const M: usize, const K: usize>(
    sys: Sys,
    s: &State<N>,
    hs: &[f64],
) -> Vec<f64>
where
    Sys: spark::Lagrangian<N, M, K> + Copy,
    Meth: Method,
{
    hs.iter()
        .map(|&h| {
            let mut x = *s;
            let est = Integrator::<Sys, Meth>::new(sys, h)
                .unwrap()
                .step_with_estimate(&mut x)
                .unwrap();
            let truth = dist(&x, &reference(sys, s, h, 64));
            eprintln!(
                "  h = {h:.2e}: estimate {:.3e}, true {truth:.3e}",
                est.max_abs
            );
            est.max_abs / truth
        })
        .collect()
}

fn assert_tracks(label: &str, r: &[f64]) {
    eprintln!("{label}: estimate / true local error = {r:.3?}");
    for x in r {
        assert!((0.2..=5.0).contains(x), "{label}: ratio {x}");
    }
}

#[test]
fn the_estimate_tracks_the_true_local_error_on_the_pendulum() {
    let s = pendulum_start();
    let r =
        ratios::<_, GaussLobatto<2>, 2, 1, 0>(Pendulum::default(), &s, &[0.2, 0.1, 0.05, 0.025]);
    assert_tracks("pendulum GaussLobatto<2>", &r);
    let r = ratios::<_, GaussLobatto<3>, 2, 1, 0>(Pendulum::default(), &s, &[0.4, 0.2, 0.1]);
    assert_tracks("pendulum GaussLobatto<3>", &r);
}

#[test]
fn the_estimate_tracks_the_true_local_error_on_the_seven_body_mechanism() {
    let mut s = State::new(0.0, Q0, [0.0; 7]);
    let mut sim =
        Integrator::<SevenBody, GaussLobatto<3>>::new(SevenBody::default(), 1e-5).unwrap();
    for _ in 0..500 {
        sim.step(&mut s).unwrap();
    }
    let r = ratios::<_, GaussLobatto<2>, 7, 6, 0>(SevenBody::default(), &s, &[4e-4, 2e-4, 1e-4]);
    assert_tracks("seven-body GaussLobatto<2> at t = 0.005", &r);
}

#[test]
fn the_estimate_tracks_the_true_local_error_on_the_skate() {
    let s = skate_start();
    let r = ratios::<_, GaussLobatto<2>, 4, 1, 1>(Skate::default(), &s, &[0.4, 0.2, 0.1]);
    assert_tracks("skate (holonomic + nonholonomic) GaussLobatto<2>", &r);
    let r = ratios::<_, Emprk<2>, 4, 1, 1>(Skate::default(), &s, &[0.4, 0.2, 0.1]);
    assert_tracks("skate Emprk<2>", &r);
}

/// Local error of the dense output at `θ = 0.3` of one adaptive step of size `h`.
/// `Options::fixed_step_error_limit`: with it, a fixed step returns the unchecked step's
/// result bit for bit where its estimated local error is within the limit, and fails with
/// `LocalErrorTooLarge`, the state untouched, where the step size is too large for the
/// tolerances. The estimate is the full step's local error: its ratio to the true one is near 1.
#[test]
fn fixed_steps_checked_against_the_tolerances() {
    let (tol, limit) = (1e-9, 10.0);
    let checked = Options {
        rtol: tol,
        atol: tol,
        fixed_step_error_limit: limit,
        ..Options::default()
    };
    let a = pendulum_start();
    let sim = |h: f64, o: Options| {
        Integrator::<Pendulum, GaussLobatto<2>>::new(Pendulum::default(), h)
            .unwrap()
            .with_options(o)
    };
    // h = 0.01: local errors about 1e-11, within 10 x 1e-9.
    let (mut plain, mut check) = (sim(0.01, Options::default()), sim(0.01, checked));
    let (mut s1, mut s2) = (a, a);
    for _ in 0..100 {
        plain.step(&mut s1).unwrap();
        check.step(&mut s2).unwrap();
        assert_eq!(s1, s2);
        assert_eq!(plain.last_step_stats(), check.last_step_stats());
    }
    // h = 0.2: the unchecked step is `Ok`, the checked one is refused and changes nothing.
    let mut s = a;
    sim(0.2, Options::default()).step(&mut s).unwrap();
    let truth = dist(&s, &reference(Pendulum::default(), &a, 0.2, 64));
    let mut s = a;
    match sim(0.2, checked).step(&mut s) {
        Err(Error::LocalErrorTooLarge { estimate, limit: l }) => {
            assert_eq!(l, limit);
            // In units of the tolerance (|y_i| ≤ 1 here, so between tol and 2 tol per unit).
            let ratio = estimate * tol / truth;
            eprintln!(
                "h = 0.2: estimate {estimate:.3e} x tol, true error {truth:.3e}, ratio {ratio:.3}"
            );
            assert!((0.2..=5.0).contains(&ratio), "{ratio}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(s, a);
    // Unusable settings are refused, the state untouched.
    for o in [
        Options {
            fixed_step_error_limit: 0.0,
            ..checked
        },
        Options {
            rtol: 0.0,
            atol: 0.0,
            ..checked
        },
    ] {
        let mut s = a;
        assert!(matches!(
            sim(0.01, o).step(&mut s),
            Err(Error::InvalidOptions { .. })
        ));
        assert_eq!(s, a);
    }
}

fn dense_error<Meth: Method>(h: f64) -> (f64, f64) {
    let s0 = pendulum_start();
    let loose = Options {
        rtol: 1.0,
        atol: 1.0,
        ..Options::default()
    };
    let mut sim = Integrator::<Pendulum, Meth>::new(Pendulum::default(), h)
        .unwrap()
        .with_options(loose);
    let t_out = 0.3 * h;
    let mut got = None;
    let mut s = s0;
    let stats = sim
        .simulate(&mut s, h, &[t_out], &[], |r| {
            if let Report::Output(x) = r {
                got = Some(*x);
            }
        })
        .unwrap();
    assert_eq!((stats.accepted, stats.rejected), (1, 0));
    let d = got.unwrap();
    let r = reference(Pendulum::default(), &s0, t_out, 64);
    ((d.q - r.q).amax(), (d.v - r.v).amax())
}

#[test]
fn dense_output_has_local_order_min_p_plus_1_6_in_q_and_min_p_5_in_v() {
    let errors = |hs: &[f64], gl3: bool| -> (Vec<f64>, Vec<f64>) {
        hs.iter()
            .map(|&h| {
                if gl3 {
                    dense_error::<GaussLobatto<3>>(h)
                } else {
                    dense_error::<GaussLobatto<2>>(h)
                }
            })
            .unzip()
    };
    // p = 4: q has the midpoint's local error O(h⁵); v, the interpolant's derivative, O(h⁵)/h.
    // Its slopes approach 5 from below (4.71, 4.88 here), so the bound is one-sided.
    let hs = [0.05, 0.025, 0.0125];
    let (q2, _) = errors(&hs, false);
    let (fit, local) = common::slopes(&hs, &q2);
    eprintln!("dense q, GaussLobatto<2>: errors {q2:?}, slopes {local:.3?}, fit {fit:.3}");
    assert!(local.windows(2).all(|w| w[1] > w[0]) && (4.6..5.25).contains(&fit));
    let hs = [0.1, 0.05, 0.025, 0.0125];
    let (_, v2) = errors(&hs, false);
    common::assert_order("dense v, GaussLobatto<2> (local order 4)", 4.0, &hs, &v2);
    // p = 6: the interpolation error O(h⁶) in q and O(h⁵) in v.
    let hs = [0.2, 0.1, 0.05, 0.025];
    let (q3, v3) = errors(&hs, true);
    common::assert_order("dense q, GaussLobatto<3> (local order 6)", 6.0, &hs, &q3);
    common::assert_order("dense v, GaussLobatto<3> (local order 5)", 5.0, &hs, &v3);
}

/// Complete elliptic integral of the first kind, `K(k)`, by the arithmetic-geometric mean.
fn elliptic_k(k: f64) -> f64 {
    let (mut a, mut b) = (1.0f64, (1.0 - k * k).sqrt());
    for _ in 0..30 {
        (a, b) = (0.5 * (a + b), (a * b).sqrt());
    }
    std::f64::consts::PI / (2.0 * a)
}

#[test]
fn events_are_located_to_1e_12_against_the_closed_form() {
    // Released from rest at 90°, the bob first passes below the pivot at T/4 = K(sin 45°)/√g.
    let quarter = elliptic_k(std::f64::consts::FRAC_1_SQRT_2) / 9.81f64.sqrt();
    let tight = Options {
        rtol: 1e-14,
        atol: 1e-14,
        ..Options::default()
    };
    let mut sim = Integrator::<Pendulum, GaussLobatto<3>>::new(Pendulum::default(), 0.05)
        .unwrap()
        .with_options(tight);
    let mut s = State::new(0.0, [1.0, 0.0], [0.0, 0.0]);
    let below = |s: &State<2>| s.q[0];
    let events = [Event {
        function: &below,
        direction: Direction::Falling,
        terminal: false,
    }];
    let mut times = Vec::new();
    let mut worst_value = 0.0f64;
    let stats = sim
        .simulate(&mut s, 4.0 * quarter + 0.1, &[], &events, |r| {
            if let Report::Event { index, state } = r {
                assert_eq!(index, 0);
                times.push(state.t);
                worst_value = worst_value.max(state.q[0].abs());
            }
        })
        .unwrap();
    assert_eq!(stats.event, None);
    // Falling through x = 0 at T/4 and 5T/4 (rising at 3T/4 does not count).
    eprintln!("event times {times:?}, T/4 = {quarter}, max |x| there {worst_value:e}, {stats:?}");
    assert_eq!(times.len(), 1, "{times:?}");
    assert!(
        (times[0] - quarter).abs() < 1e-12,
        "{:e}",
        times[0] - quarter
    );
    assert!(worst_value < 1e-13);
}

#[test]
fn non_terminal_events_in_both_directions_are_all_reported_in_order() {
    let mut sim = Integrator::<Pendulum, GaussLobatto<2>>::new(Pendulum::default(), 0.1)
        .unwrap()
        .with_options(Options {
            rtol: 1e-8,
            atol: 1e-8,
            ..Options::default()
        });
    let mut s = State::new(0.0, [1.0, 0.0], [0.0, 0.0]);
    let quarter = elliptic_k(std::f64::consts::FRAC_1_SQRT_2) / 9.81f64.sqrt();
    let below = |s: &State<2>| s.q[0];
    let events = [Event {
        function: &below,
        direction: Direction::Either,
        terminal: false,
    }];
    let outputs: Vec<f64> = (1..=20).map(|k| 0.5 * k as f64).collect();
    let mut seen = Vec::new();
    sim.simulate(&mut s, 10.0, &outputs, &events, |r| match r {
        Report::Output(x) => seen.push((x.t, false)),
        Report::Event { state, .. } => seen.push((state.t, true)),
    })
    .unwrap();
    let events_seen: Vec<f64> = seen.iter().filter(|x| x.1).map(|x| x.0).collect();
    // Crossings at T/4 + k T/2.
    let expected = ((10.0 - quarter) / (2.0 * quarter)).floor() as usize + 1;
    assert_eq!(events_seen.len(), expected);
    for (k, t) in events_seen.iter().enumerate() {
        assert!((t - quarter * (1 + 2 * k) as f64).abs() < 1e-6, "{k} {t}");
    }
    assert_eq!(seen.iter().filter(|x| !x.1).count(), 20);
    assert!(
        seen.windows(2).all(|w| w[0].0 < w[1].0),
        "reports out of order"
    );
    assert_eq!(s.t, 10.0);
}

#[test]
fn a_terminal_event_stops_and_the_run_resumes_after_a_reset() {
    let mut sim = Integrator::<Pendulum, GaussLobatto<2>>::new(Pendulum::default(), 0.1)
        .unwrap()
        .with_options(Options {
            rtol: 1e-10,
            atol: 1e-10,
            ..Options::default()
        });
    let mut s = pendulum_start();
    let wall = |s: &State<2>| s.q[0] - 0.3;
    let events = [Event {
        function: &wall,
        direction: Direction::Either,
        terminal: true,
    }];
    let mut hits = Vec::new();
    while s.t < 5.0 {
        let stats = sim.simulate(&mut s, 5.0, &[], &events, |_| {}).unwrap();
        if stats.event == Some(0) {
            assert!(wall(&s).abs() < 1e-12, "{:e}", wall(&s));
            let (g, gv) = sim.constraint_residual(&s);
            assert!(g < 1e-12 && gv < 1e-12);
            hits.push(s.t);
            s.v = -0.8 * s.v; // restitution: the velocity is tangent, reversing keeps it so
        }
    }
    eprintln!("impacts at {hits:?}");
    assert!(hits.len() >= 3, "{hits:?}");
    assert!(
        hits.windows(2).all(|w| w[1] - w[0] > 0.05),
        "an impact was reported twice: {hits:?}"
    );
}

#[test]
fn advance_to_lands_on_the_end_time_keeps_the_constraints_and_meets_the_tolerance() {
    let o = Options {
        rtol: 1e-9,
        atol: 1e-9,
        ..Options::default()
    };
    // The first step tries h = 1 (far too large): it is rejected, not failed.
    let mut sim = Integrator::<Pendulum, GaussLobatto<2>>::new(Pendulum::default(), 1.0)
        .unwrap()
        .with_options(o);
    let mut s = pendulum_start();
    let e0 = sim.energy(&s);
    let mut total = spark::AdvanceStats::default();
    for k in 1..=10 {
        let st = sim.advance_to(&mut s, k as f64).unwrap();
        assert_eq!(s.t, k as f64);
        let (g, gv) = sim.constraint_residual(&s);
        assert!(g < 1e-12 && gv < 1e-12);
        total.accepted += st.accepted;
        total.rejected += st.rejected;
        assert!(st.max_error <= 1.0);
    }
    assert!(total.rejected >= 1);
    let fixed = {
        let mut x = pendulum_start();
        let mut f =
            Integrator::<Pendulum, GaussLobatto<3>>::new(Pendulum::default(), 1e-3).unwrap();
        for _ in 0..10_000 {
            f.step(&mut x).unwrap();
        }
        x
    };
    let err = dist(&s, &fixed);
    eprintln!(
        "adaptive to t = 10: {total:?}, error {err:e}, energy error {:e}",
        sim.energy(&s) - e0
    );
    assert!(err < 1e-6, "{err:e}");
    // Backwards to the start.
    sim.advance_to(&mut s, 0.0).unwrap();
    assert_eq!(s.t, 0.0);
    assert!(dist(&s, &pendulum_start()) < 1e-6);
}

#[test]
fn hamiltonian_models_advance_adaptively() {
    let o = Options {
        rtol: 1e-10,
        atol: 1e-10,
        ..Options::default()
    };
    let mut sim = Integrator::<HamPendulum, GaussLobatto<2>>::new(HamPendulum::default(), 0.1)
        .unwrap()
        .with_options(o);
    let a = pendulum_start();
    let mut h = spark::hamiltonian::State::new(0.0, a.q, a.v);
    let mut l = a;
    Integrator::<Pendulum, GaussLobatto<2>>::new(Pendulum::default(), 0.1)
        .unwrap()
        .with_options(o)
        .advance_to(&mut l, 3.0)
        .unwrap();
    sim.advance_to(&mut h, 3.0).unwrap();
    assert_eq!(h.t, 3.0);
    assert!((h.q - l.q).amax() < 1e-7 && (h.p - l.v).amax() < 1e-7);
}

#[test]
fn failures_keep_the_accepted_work_and_bad_settings_are_refused() {
    let o = Options {
        rtol: 1e-9,
        atol: 1e-9,
        max_steps: 5,
        ..Options::default()
    };
    let mut sim = Integrator::<Pendulum, GaussLobatto<2>>::new(Pendulum::default(), 0.01)
        .unwrap()
        .with_options(o);
    let mut s = pendulum_start();
    match sim.advance_to(&mut s, 10.0) {
        Err(Error::TooManySteps { t }) => {
            assert_eq!(t, s.t);
            assert!(s.t > 0.0 && s.t < 10.0);
            let (g, gv) = sim.constraint_residual(&s);
            assert!(g < 1e-12 && gv < 1e-12);
        }
        other => panic!("{other:?}"),
    }
    for bad in [
        Options {
            rtol: 0.0,
            atol: 0.0,
            ..Options::default()
        },
        Options {
            rtol: f64::NAN,
            ..Options::default()
        },
        Options {
            max_step: 0.0,
            ..Options::default()
        },
        Options {
            min_step: 1.0,
            max_step: 0.5,
            ..Options::default()
        },
    ] {
        let mut sim = Integrator::<Pendulum, GaussLobatto<2>>::new(Pendulum::default(), 0.01)
            .unwrap()
            .with_options(bad);
        let before = pendulum_start();
        let mut s = before;
        assert!(matches!(
            sim.advance_to(&mut s, 1.0),
            Err(Error::InvalidOptions { .. })
        ));
        assert_eq!(s, before);
    }
    // An inconsistent start is an error, not a rejection, and the state is unchanged.
    let mut sim = Integrator::<Pendulum, GaussLobatto<2>>::new(Pendulum::default(), 0.01).unwrap();
    let before = State::new(0.0, [2.0, 0.0], [0.0, 0.0]);
    let mut s = before;
    assert!(matches!(
        sim.advance_to(&mut s, 1.0),
        Err(Error::InconsistentState { .. })
    ));
    assert_eq!(s, before);
    // A step bound the tolerance cannot live with.
    let o = Options {
        rtol: 1e-12,
        atol: 1e-12,
        min_step: 0.1,
        ..Options::default()
    };
    let mut sim = Integrator::<Pendulum, GaussLobatto<2>>::new(Pendulum::default(), 0.1)
        .unwrap()
        .with_options(o);
    let mut s = pendulum_start();
    assert!(matches!(
        sim.advance_to(&mut s, 1.0),
        Err(Error::StepSizeTooSmall { .. })
    ));
    assert_eq!(s, pendulum_start());
}

/// Max of |E − E0|/E0 over the first and the last tenth of a run of `n` samples.
fn energy_ends(samples: &[f64]) -> (f64, f64) {
    let n = samples.len() / 10;
    let max = |c: &[f64]| c.iter().fold(0.0f64, |m, x| m.max(*x));
    (max(&samples[..n]), max(&samples[samples.len() - n..]))
}

#[test]
fn reversible_steps_keep_the_energy_free_of_drift() {
    use spark::simulate::Reversible;
    // Near the separatrix: through the bottom with 99.9 % of the speed that reaches the top.
    let start = State::new(0.0, [0.0, -1.0], [0.999 * 2.0 * 9.81f64.sqrt(), 0.0]);
    let t_end = 300.0;
    let mut sim = Integrator::<Pendulum, GaussLobatto<2>>::new(Pendulum::default(), 0.01).unwrap();
    let e0 = sim.energy(&start);
    let mut s = start;
    let mut control = Reversible::new(0.06, 0.3);
    let (mut shortest, mut longest) = (f64::INFINITY, 0.0f64);
    let mut reversible = Vec::new();
    while s.t < t_end {
        let h = sim.step_reversible(&mut s, &mut control).unwrap();
        assert_eq!(h, sim.step_size());
        shortest = shortest.min(h);
        longest = longest.max(h);
        reversible.push(((sim.energy(&s) - e0) / e0).abs());
        let (g, gv) = sim.constraint_residual(&s);
        assert!(g < 1e-12 && gv < 1e-12);
    }
    // The same with error-controlled steps, sampled every 0.5.
    let o = Options {
        rtol: 1e-6,
        atol: 1e-6,
        ..Options::default()
    };
    let mut pi = Integrator::<Pendulum, GaussLobatto<2>>::new(Pendulum::default(), 0.01)
        .unwrap()
        .with_options(o);
    let mut a = start;
    let mut controlled = Vec::new();
    let mut accepted = 0;
    for k in 1..=600 {
        accepted += pi.advance_to(&mut a, 0.5 * k as f64).unwrap().accepted;
        controlled.push(((pi.energy(&a) - e0) / e0).abs());
    }
    let (r0, r1) = energy_ends(&reversible);
    let (c0, c1) = energy_ends(&controlled);
    eprintln!(
        "reversible: {} steps from {shortest:.2e} to {longest:.2e}, energy error {r0:.2e} -> {r1:.2e}; \
         error control: {} half steps, {c0:.2e} -> {c1:.2e}",
        reversible.len(),
        2 * accepted
    );
    assert!(longest > 10.0 * shortest, "the steps did not adapt");
    assert!(
        r1 < 1.5 * r0 && r1 < 1e-5,
        "energy drifted: {r0:e} -> {r1:e}"
    );
}

#[test]
fn reversible_control_rejects_bad_settings_and_keeps_the_state() {
    use spark::simulate::Reversible;
    let mut sim = Integrator::<Pendulum, GaussLobatto<2>>::new(Pendulum::default(), 0.01).unwrap();
    let mut s = State::new(0.0, [0.0, -1.0], [1.0, 0.0]);
    let before = s;
    for bad in [
        Reversible::new(0.0, 0.3),
        Reversible::new(f64::NAN, 0.3),
        Reversible::new(0.05, -1.0),
    ] {
        let mut c = bad;
        assert!(matches!(
            sim.step_reversible(&mut s, &mut c),
            Err(Error::InvalidTolerance { .. })
        ));
        assert_eq!(s, before);
        assert_eq!(format!("{c:?}"), format!("{bad:?}"));
    }
    // A step the Newton iteration cannot take (100 rad of arc per step) fails and keeps the
    // state, the control and the step size.
    let mut c = Reversible::new(100.0, 0.3);
    assert!(sim.step_reversible(&mut s, &mut c).is_err());
    assert_eq!(
        (s, c, sim.step_size()),
        (before, Reversible::new(100.0, 0.3), 0.01)
    );
}

/// Local error of the Hamiltonian pendulum's dense output at `θ = 0.3` of one adaptive step of
/// size `h` (unit mass: `p = v`, so the Lagrangian reference serves).
fn hamiltonian_dense_error<Meth: Method>(h: f64) -> (f64, f64) {
    let s0 = pendulum_start();
    let loose = Options {
        rtol: 1.0,
        atol: 1.0,
        ..Options::default()
    };
    let mut sim = Integrator::<HamPendulum, Meth>::new(HamPendulum::default(), h)
        .unwrap()
        .with_options(loose);
    let t_out = 0.3 * h;
    let mut got = None;
    let mut s = spark::hamiltonian::State::new(0.0, s0.q, s0.v);
    let stats = sim
        .simulate(&mut s, h, &[t_out], &[], |r| {
            if let ReportOn::Output(x) = r {
                got = Some(*x);
            }
        })
        .unwrap();
    assert_eq!((stats.accepted, stats.rejected), (1, 0));
    let d = got.unwrap();
    assert_eq!(d.t, t_out);
    let r = reference(Pendulum::default(), &s0, t_out, 64);
    ((d.q - r.q).amax(), (d.p - r.v).amax())
}

/// The Hamiltonian state's dense output: `q` and `p` each by quintic Hermite interpolation, with
/// `q' = H_p` and `p'` from the index-one system, so both have the local order of the
/// Lagrangian state's `q`, `min(p + 1, 6)` (the momenta are more accurate than the Lagrangian
/// interpolant's velocities, which are a derivative).
#[test]
fn hamiltonian_dense_output_has_local_order_min_p_plus_1_6_in_q_and_p() {
    let errors = |hs: &[f64], gl3: bool| -> (Vec<f64>, Vec<f64>) {
        hs.iter()
            .map(|&h| {
                if gl3 {
                    hamiltonian_dense_error::<GaussLobatto<3>>(h)
                } else {
                    hamiltonian_dense_error::<GaussLobatto<2>>(h)
                }
            })
            .unzip()
    };
    // p = 4: both carry the midpoint's local error O(h⁵); the slopes approach 5 from below
    // (q: 4.71, 4.88; p: 4.2, 4.7 from h = 0.025 on; at h = 0.05 p's components nearly cancel).
    let hs = [0.05, 0.025, 0.0125];
    let (q2, _) = errors(&hs, false);
    let (fit, _) = common::slopes(&hs, &q2);
    eprintln!("Hamiltonian dense q, GaussLobatto<2>: errors {q2:?}, fit {fit:.3}");
    assert!((4.6..5.25).contains(&fit));
    let hs = [0.025, 0.0125, 0.00625];
    let (_, p2) = errors(&hs, false);
    let (fit, local) = common::slopes(&hs, &p2);
    eprintln!(
        "Hamiltonian dense p, GaussLobatto<2>: errors {p2:?}, slopes {local:.3?}, fit {fit:.3}"
    );
    assert!(local.windows(2).all(|w| w[1] > w[0]) && (4.3..5.25).contains(&fit));
    // p = 6: the interpolation error O(h⁶) in both (p reaches it from h = 0.025 on: 5.8, 6.1;
    // 5.6 from 0.05).
    let hs = [0.025, 0.0125, 0.00625];
    let (q3, p3) = errors(&hs, true);
    common::assert_order(
        "Hamiltonian dense q, GaussLobatto<3> (local order 6)",
        6.0,
        &hs,
        &q3,
    );
    common::assert_order(
        "Hamiltonian dense p, GaussLobatto<3> (local order 6)",
        6.0,
        &hs,
        &p3,
    );
}

#[test]
fn hamiltonian_events_are_located_to_1e_12_against_the_closed_form() {
    let quarter = elliptic_k(std::f64::consts::FRAC_1_SQRT_2) / 9.81f64.sqrt();
    let tight = Options {
        rtol: 1e-14,
        atol: 1e-14,
        ..Options::default()
    };
    let mut sim = Integrator::<HamPendulum, GaussLobatto<3>>::new(HamPendulum::default(), 0.05)
        .unwrap()
        .with_options(tight);
    let mut s = spark::hamiltonian::State::new(0.0, [1.0, 0.0], [0.0, 0.0]);
    let below = |s: &spark::hamiltonian::State<2>| s.q[0];
    let events = [EventOn {
        function: &below,
        direction: Direction::Falling,
        terminal: true,
    }];
    let mut outputs = 0;
    let stats = sim
        .simulate(&mut s, 2.0 * quarter, &[0.5 * quarter], &events, |r| {
            if let ReportOn::Output(x) = r {
                // Halfway down: the interpolated state is on the circle to the dense output's
                // accuracy, and the energy is the start's.
                assert!((x.q.norm() - 1.0).abs() < 1e-9, "{x:?}");
                assert!(
                    (0.5 * x.p.norm_squared() + 9.81 * x.q[1]).abs() < 1e-8,
                    "{x:?}"
                );
                outputs += 1;
            }
        })
        .unwrap();
    eprintln!("event at {}, T/4 = {quarter}, {stats:?}", s.t);
    assert_eq!((stats.event, outputs), (Some(0), 1));
    assert!((s.t - quarter).abs() < 1e-12, "{:e}", s.t - quarter);
    assert!(s.q[0].abs() < 1e-13);
}
