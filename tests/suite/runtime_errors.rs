//! Bad runtime input is an error value, never a panic or a NaN state, and the caller's state is
//! exactly what it was before the failing call.

use spark::{Error, GaussLobatto, Integrator, Options, Phase, State};

spark::mechanics! {
    /// The Cartesian pendulum.
    struct Pendulum {
        coordinates: [x, y],
        velocities: [vx, vy],
        parameters: [m = 1.0, l = 1.0, g = 9.81],
        lagrangian: 0.5 * m * (vx.powi(2) + vy.powi(2)) - m * g * y,
        holonomic: [x.powi(2) + y.powi(2) - l.powi(2)],
    }
}

spark::mechanics! {
    /// A free particle on the cusp y² = x³, whose constraint gradient vanishes at the origin.
    struct Cusp {
        coordinates: [x, y],
        velocities: [vx, vy],
        lagrangian: 0.5 * (vx.powi(2) + vy.powi(2)),
        holonomic: [y.powi(2) - x.powi(3)],
    }
}

spark::mechanics! {
    /// A constraint no real point satisfies.
    struct Impossible {
        coordinates: [x, y],
        velocities: [vx, vy],
        lagrangian: 0.5 * (vx.powi(2) + vy.powi(2)),
        holonomic: [x.powi(2) + y.powi(2) + 1.0],
    }
}

#[test]
fn bad_step_sizes_and_parameters_are_refused() {
    for h in [0.0, f64::NAN, f64::INFINITY, -f64::INFINITY] {
        let r = Integrator::<Pendulum, GaussLobatto<1>>::new(Pendulum::default(), h);
        assert!(matches!(r, Err(Error::InvalidStepSize { .. })), "h = {h}");
    }
    let bad = Pendulum {
        g: f64::NAN,
        ..Pendulum::default()
    };
    let r = Integrator::<Pendulum, GaussLobatto<1>>::new(bad, 0.1);
    assert_eq!(r.err(), Some(Error::NonFiniteParameter { name: "g" }));
    let mut sim = Integrator::<Pendulum, GaussLobatto<1>>::new(Pendulum::default(), 0.1).unwrap();
    assert!(sim.set_step_size(0.0).is_err());
    assert_eq!(sim.step_size(), 0.1);
    // Negative steps integrate backwards.
    assert!(sim.set_step_size(-0.1).is_ok());
}

#[test]
fn parameters_changed_between_steps_take_effect_and_non_finite_ones_are_refused() {
    let s0 = State::new(0.0, [1.0, 0.0], [0.0, 0.0]);
    let mut a = Integrator::<Pendulum, GaussLobatto<2>>::new(Pendulum::default(), 0.01).unwrap();
    let moon = Pendulum {
        g: 1.62,
        ..Pendulum::default()
    };
    let mut b = Integrator::<Pendulum, GaussLobatto<2>>::new(moon, 0.01).unwrap();
    // Changing g through `system_mut` gives exactly the run of a model built with that g.
    a.system_mut().g = 1.62;
    let (mut sa, mut sb) = (s0, s0);
    for _ in 0..50 {
        a.step(&mut sa).unwrap();
        b.step(&mut sb).unwrap();
    }
    assert_eq!(sa, sb);
    for bad in [f64::NAN, f64::INFINITY, -f64::INFINITY] {
        a.system_mut().l = bad;
        let before = sa;
        assert_eq!(
            a.step(&mut sa),
            Err(Error::NonFiniteParameter { name: "l" })
        );
        assert_eq!(sa, before);
    }
    // Fixed again, the run goes on from the untouched state.
    a.system_mut().l = 1.0;
    a.step(&mut sa).unwrap();
    b.step(&mut sb).unwrap();
    assert_eq!(sa, sb);
}

#[test]
fn non_finite_states_are_refused_unchanged() {
    let mut sim = Integrator::<Pendulum, GaussLobatto<2>>::new(Pendulum::default(), 0.01).unwrap();
    for s0 in [
        State::new(0.0, [f64::NAN, -1.0], [0.0, 0.0]),
        State::new(0.0, [0.0, -1.0], [f64::INFINITY, 0.0]),
        State::new(f64::NAN, [0.0, -1.0], [0.0, 0.0]),
    ] {
        let mut s = s0;
        assert_eq!(sim.step(&mut s), Err(Error::NonFiniteState));
        assert!(s.q[0].to_bits() == s0.q[0].to_bits() && s.v[0].to_bits() == s0.v[0].to_bits());
        assert_eq!(sim.project(&mut s), Err(Error::NonFiniteState));
        assert!(s.q[0].to_bits() == s0.q[0].to_bits() && s.t.to_bits() == s0.t.to_bits());
    }
}

#[test]
fn inconsistent_states_are_refused_then_repaired_by_project() {
    let mut sim = Integrator::<Pendulum, GaussLobatto<2>>::new(Pendulum::default(), 0.01).unwrap();
    let mut s = State::new(0.0, [0.8, -0.8], [1.0, 0.5]);
    let before = s;
    match sim.step(&mut s) {
        Err(Error::InconsistentState { position, velocity }) => {
            assert!(position > 0.1 && velocity > 0.1, "{position} {velocity}");
        }
        other => panic!("expected InconsistentState, got {other:?}"),
    }
    assert_eq!(s, before);
    sim.project(&mut s).unwrap();
    let (g, gv) = sim.constraint_residual(&s);
    assert!(g < 1e-14 && gv < 1e-14, "{g:e} {gv:e}");
    // The projection moves q along the normal: the angle is kept.
    assert!((s.q[1] / s.q[0] + 1.0).abs() < 1e-14);
    sim.step(&mut s).unwrap();
}

#[test]
fn a_step_too_large_for_newton_is_an_error_and_loses_nothing() {
    let opts = Options {
        max_iterations: 6,
        ..Options::default()
    };
    let mut sim = Integrator::<Pendulum, GaussLobatto<3>>::new(Pendulum::default(), 3.0)
        .unwrap()
        .with_options(opts);
    let mut s = State::new(0.0, [1.0, 0.0], [0.0, -30.0]);
    let before = s;
    let r = sim.step(&mut s);
    assert!(
        matches!(
            r,
            Err(Error::NoConvergence { .. }
                | Error::Diverged { .. }
                | Error::SingularJacobian { .. }
                | Error::IllConditioned { .. })
        ),
        "{r:?}"
    );
    assert_eq!(s, before);
    let msg = r.unwrap_err().to_string();
    assert!(
        msg.contains("step size") || msg.contains("singular"),
        "{msg}"
    );
}

#[test]
fn running_into_a_singular_configuration_is_an_error_and_loses_nothing() {
    // Start on the cusp at (1, -1) moving towards the origin along the curve.
    let mut sim = Integrator::<Cusp, GaussLobatto<2>>::new(Cusp {}, 0.05).unwrap();
    let n = [-3.0f64, -2.0]; // gradient of y² - x³ at (1, -1)
    let tangent = [-n[1], n[0]]; // (2, -3) is away from the origin; use its opposite
    let speed = 1.0 / (tangent[0] * tangent[0] + tangent[1] * tangent[1]).sqrt();
    let mut s = State::new(0.0, [1.0, -1.0], [-tangent[0] * speed, -tangent[1] * speed]);
    let mut failure = None;
    for _ in 0..2000 {
        let before = s;
        match sim.step(&mut s) {
            Ok(()) => {
                let (g, gv) = sim.constraint_residual(&s);
                assert!(g < 1e-12 && gv < 1e-11, "{g:e} {gv:e} at {s:?}");
            }
            Err(e) => {
                assert_eq!(s, before, "the state changed on error");
                failure = Some((e, before));
                break;
            }
        }
    }
    let (err, at) = failure.expect("stepping through the cusp must fail");
    eprintln!("failed near q = {:?}: {err}", at.q);
    assert!(matches!(
        err,
        Error::SingularJacobian { .. }
            | Error::IllConditioned { .. }
            | Error::Diverged { .. }
            | Error::NoConvergence { .. }
    ));
    assert!(at.q.norm() < 0.2, "failed far from the cusp: {:?}", at.q);
}

#[test]
fn exactly_at_the_singular_point_the_newton_matrix_is_singular() {
    let mut sim = Integrator::<Cusp, GaussLobatto<1>>::new(Cusp {}, 0.01).unwrap();
    let mut s = State::new(0.0, [0.0, 0.0], [0.0, 0.0]);
    // At rest on the singular point everything is consistent but G = 0.
    let r = sim.step(&mut s);
    assert!(
        matches!(
            r,
            Err(Error::SingularJacobian {
                phase: Phase::Stages
            })
        ),
        "{r:?}"
    );
    assert_eq!(s, State::new(0.0, [0.0, 0.0], [0.0, 0.0]));
}

#[test]
fn project_fails_cleanly_when_no_point_satisfies_the_constraints() {
    let sim = Integrator::<Impossible, GaussLobatto<1>>::new(Impossible {}, 0.01).unwrap();
    let mut s = State::new(0.0, [0.5, 0.3], [0.0, 0.0]);
    let before = s;
    let r = sim.project(&mut s);
    assert!(r.is_err(), "{r:?}");
    assert_eq!(s, before);
    assert!(!r.unwrap_err().to_string().is_empty());
}

spark::mechanics! {
    /// The pendulum pushed sideways by an input.
    struct PushedPendulum {
        coordinates: [x, y],
        velocities: [vx, vy],
        parameters: [m = 1.0, g = 9.81],
        inputs: [u],
        lagrangian: 0.5 * m * (vx.powi(2) + vy.powi(2)) - m * g * y,
        forces: [u, 0.0],
        holonomic: [x.powi(2) + y.powi(2) - 1.0],
    }
}

/// The "wrong or questionable `Ok`" and "misleading error kind" cases of issue 28, one by one:
/// each now fails with the error that names its cause, the state untouched.
#[test]
fn issue_28_runtime_cases_fail_with_the_error_that_names_the_cause() {
    let consistent = State::new(0.0, [0.6, -0.8], [0.8, 0.6]);
    let sim = |o: Options| {
        Integrator::<Pendulum, GaussLobatto<2>>::new(Pendulum::default(), 0.01)
            .unwrap()
            .with_options(o)
    };
    let d = Options::default();
    let mut cases: Vec<(&str, Result<(), Error>, State<2>, State<2>)> = Vec::new();
    let mut run =
        |name: &'static str, mut sim: Integrator<Pendulum, GaussLobatto<2>>, s0: State<2>| {
            let mut s = s0;
            let r = sim.step(&mut s);
            cases.push((name, r, s, s0));
        };
    // step at t = 1e300: t + h == t.
    run(
        "t = 1e300",
        sim(d),
        State {
            t: 1e300,
            ..consistent
        },
    );
    run(
        "tolerance 0",
        sim(Options {
            tolerance: 0.0,
            ..d
        }),
        consistent,
    );
    run(
        "tolerance -1e-12",
        sim(Options {
            tolerance: -1e-12,
            ..d
        }),
        consistent,
    );
    run(
        "tolerance NaN",
        sim(Options {
            tolerance: f64::NAN,
            ..d
        }),
        consistent,
    );
    run(
        "consistency_tolerance -1e-8",
        sim(Options {
            consistency_tolerance: -1e-8,
            ..d
        }),
        consistent,
    );
    run(
        "fixed_step_error_limit NaN",
        sim(Options {
            fixed_step_error_limit: f64::NAN,
            ..d
        }),
        consistent,
    );
    let mut negative = sim(d);
    negative.system_mut().m = -1.0;
    run("negative mass", negative, consistent);
    let expected: [fn(&Error) -> bool; 7] = [
        |e| matches!(e, Error::TimeResolution { .. }),
        |e| {
            matches!(
                e,
                Error::InvalidOptions {
                    field: "tolerance",
                    ..
                }
            )
        },
        |e| {
            matches!(
                e,
                Error::InvalidOptions {
                    field: "tolerance",
                    ..
                }
            )
        },
        |e| {
            matches!(
                e,
                Error::InvalidOptions {
                    field: "tolerance",
                    ..
                }
            )
        },
        |e| {
            matches!(
                e,
                Error::InvalidOptions {
                    field: "consistency_tolerance",
                    ..
                }
            )
        },
        |e| {
            matches!(
                e,
                Error::InvalidOptions {
                    field: "fixed_step_error_limit",
                    ..
                }
            )
        },
        |e| matches!(e, Error::MassNotPositiveDefinite { .. }),
    ];
    for ((name, r, s, s0), ok) in cases.iter().zip(expected) {
        assert!(matches!(r, Err(e) if ok(e)), "{name}: {r:?}");
        assert_eq!(s, s0, "{name}: state changed");
    }

    // advance_to from 1e17 to 1e17 + 64: no longer `Ok` after zero steps.
    let mut s = State {
        t: 1e17,
        ..consistent
    };
    let r = sim(d).advance_to(&mut s, 1e17 + 64.0);
    assert!(matches!(r, Err(Error::TimeResolution { .. })), "{r:?}");
    assert_eq!(s.t, 1e17);

    // A NaN parameter in `project`: `NonFiniteParameter`, not `SingularJacobian`.
    let mut p = sim(d);
    p.system_mut().l = f64::NAN;
    let mut s = State::new(0.0, [1.1, 0.2], [0.3, 0.4]);
    assert_eq!(
        p.project(&mut s),
        Err(Error::NonFiniteParameter { name: "l" })
    );

    // `tangent_basis` and `multipliers` on a state off the constraint by 1.
    let off = State::new(0.0, [2.0_f64.sqrt(), 0.0], [0.0, 1.0]);
    let p = sim(d);
    assert!(matches!(
        p.multipliers(&off),
        Err(Error::InconsistentState { .. })
    ));
    assert!(matches!(
        p.tangent_basis::<2, 1, 0, 2>(&off),
        Err(Error::InconsistentState { .. })
    ));

    // An input of 1e300: an overflow, not "singular Newton matrix … lost rank".
    let mut pushed =
        Integrator::<PushedPendulum, GaussLobatto<2>>::new(PushedPendulum::default(), 0.01)
            .unwrap();
    pushed.system_mut().u = 1e300;
    let mut s = consistent;
    let r = pushed.step(&mut s);
    assert!(matches!(r, Err(Error::NonFiniteEvaluation { .. })), "{r:?}");
    assert!(!r.unwrap_err().to_string().contains("singular"));
    assert_eq!(s, consistent);
    // A NaN input in `project` and `tangent_basis`.
    pushed.system_mut().u = f64::NAN;
    assert_eq!(
        pushed.project(&mut s),
        Err(Error::NonFiniteParameter { name: "u" })
    );
    assert_eq!(
        pushed.tangent_basis::<2, 1, 0, 2>(&s).err(),
        Some(Error::NonFiniteParameter { name: "u" })
    );
}
