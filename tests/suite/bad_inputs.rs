//! The bad-input matrix: NaN, ±∞ and huge values in the state, time, step size, options,
//! parameters, inputs, events and output lists, through every public entry point of the
//! runtime, for Lagrangian (holonomic and nonholonomic), Hamiltonian and DAE states. Each call
//! returns an `Err` of the kind that names the cause and leaves the caller's state bit for bit
//! as it was, or returns a documented `Ok` (`energy` and `constraint_residual` return NaN for a
//! NaN state; adaptive runs stopped by an event error keep their accepted steps).

use spark::simulate::{Direction, EventOn, Reversible};
use spark::{dae, hamiltonian, Error, GaussLobatto, Integrator, Options, State, SymplecticEuler};

spark::mechanics! {
    /// The Cartesian pendulum pushed sideways by the input `u`.
    struct Pendulum {
        coordinates: [x, y],
        velocities: [vx, vy],
        parameters: [m = 1.0, l = 1.0, g = 9.81],
        inputs: [u],
        lagrangian: 0.5 * m * (vx.powi(2) + vy.powi(2)) - m * g * y,
        forces: [u, 0.0],
        holonomic: [x.powi(2) + y.powi(2) - l.powi(2)],
    }
}

spark::mechanics! {
    /// A pendulum whose mass matrix depends on the position (a bead of mass `m (1 + x²)`):
    /// the mass check runs at every step.
    struct Bead {
        coordinates: [x, y],
        velocities: [vx, vy],
        parameters: [m = 1.0, g = 9.81],
        lagrangian: 0.5 * m * (1.0 + x.powi(2)) * (vx.powi(2) + vy.powi(2)) - m * g * y,
        holonomic: [x.powi(2) + y.powi(2) - 1.0],
    }
}

spark::mechanics! {
    /// A knife edge (a skate): one nonholonomic constraint.
    struct Skate {
        coordinates: [x, y, phi],
        velocities: [vx, vy, om],
        parameters: [m = 1.0, j = 0.5],
        lagrangian: 0.5 * m * (vx.powi(2) + vy.powi(2)) + 0.5 * j * om.powi(2),
        nonholonomic: [vx * phi.sin() - vy * phi.cos()],
    }
}

spark::mechanics! {
    /// The pendulum in Hamiltonian form.
    struct HPendulum {
        coordinates: [x, y],
        momenta: [px, py],
        parameters: [g = 9.81],
        hamiltonian: 0.5 * (px.powi(2) + py.powi(2)) + g * y,
        holonomic: [x.powi(2) + y.powi(2) - 1.0],
    }
}

spark::mechanics! {
    /// The pendulum as the DAE (2.11), pushed by `u`.
    struct DPendulum {
        coordinates: [x, y],
        variables: [vx, vy],
        multipliers: [lam],
        parameters: [g = 9.81],
        inputs: [u],
        v: [vx, vy],
        p: [vx, vy],
        f: [0.0, -g],
        r: [-2.0 * x * lam, -2.0 * y * lam],
        forces: [u, 0.0],
        holonomic: [x.powi(2) + y.powi(2) - 1.0],
    }
}

const BAD: [f64; 3] = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY];

/// The bits of a state, to compare states holding NaN bit for bit.
trait Bits {
    fn bits(&self) -> Vec<u64>;
}

impl<const N: usize> Bits for State<N> {
    fn bits(&self) -> Vec<u64> {
        let mut b = vec![self.t.to_bits()];
        b.extend(self.q.iter().chain(self.v.iter()).map(|x| x.to_bits()));
        b
    }
}

impl<const N: usize> Bits for hamiltonian::State<N> {
    fn bits(&self) -> Vec<u64> {
        let mut b = vec![self.t.to_bits()];
        b.extend(self.q.iter().chain(self.p.iter()).map(|x| x.to_bits()));
        b
    }
}

impl<const N: usize, const M: usize> Bits for dae::State<N, M> {
    fn bits(&self) -> Vec<u64> {
        let mut b = vec![self.t.to_bits()];
        let all = self.y.iter().chain(self.z.iter()).chain(self.lambda.iter());
        b.extend(all.map(|x| x.to_bits()));
        b
    }
}

/// `call` on a copy of `state` fails as `expected` says and leaves the copy bit for bit as it
/// was.
fn refused<St: Bits + Copy, T: std::fmt::Debug>(
    what: &str,
    state: St,
    mut call: impl FnMut(&mut St) -> Result<T, Error>,
    expected: impl Fn(&Error) -> bool,
) {
    let mut s = state;
    match call(&mut s) {
        Err(e) => {
            assert!(expected(&e), "{what}: unexpected error {e:?} ({e})");
            assert!(!e.to_string().is_empty());
        }
        Ok(v) => panic!("{what}: expected an error, got Ok({v:?})"),
    }
    assert_eq!(s.bits(), state.bits(), "{what}: the state changed on error");
}

type Pend = Integrator<Pendulum, GaussLobatto<2>>;

fn pendulum() -> Pend {
    Integrator::new(Pendulum::default(), 0.01).unwrap()
}

fn start() -> State<2> {
    State::new(0.0, [0.6, -0.8], [0.8, 0.6])
}

/// Every fixed-step and adaptive entry point of a Lagrangian pendulum integrator on `state`,
/// each expected to fail as `expected` says, leaving the state untouched.
fn every_call_refuses(what: &str, sim: &Pend, state: State<2>, expected: impl Fn(&Error) -> bool) {
    let e = &expected;
    let mut sim = *sim;
    refused(&format!("{what}: step"), state, |s| sim.step(s), e);
    refused(
        &format!("{what}: step_with_estimate"),
        state,
        |s| sim.step_with_estimate(s),
        e,
    );
    refused(
        &format!("{what}: step_with_jacobian"),
        state,
        |s| sim.step_with_jacobian(s),
        e,
    );
    refused(
        &format!("{what}: step_reversible"),
        state,
        |s| sim.step_reversible(s, &mut Reversible::new(0.05, 0.2)),
        e,
    );
    refused(
        &format!("{what}: advance_to"),
        state,
        |s| sim.advance_to(s, 0.5),
        e,
    );
    let x = |s: &State<2>| s.q[0];
    let events = [EventOn {
        function: &x,
        direction: Direction::Either,
        terminal: false,
    }];
    refused(
        &format!("{what}: simulate"),
        state,
        |s| sim.simulate(s, 0.5, &[0.1, 0.2], &events, |_| {}),
        e,
    );
}

#[test]
fn integrator_new_and_set_step_size_refuse_unusable_step_sizes() {
    for h in [0.0, -0.0, f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let r = Pend::new(Pendulum::default(), h);
        assert!(
            matches!(r, Err(Error::InvalidStepSize { .. })),
            "h = {h}: {r:?}"
        );
        let mut sim = pendulum();
        assert!(matches!(
            sim.set_step_size(h),
            Err(Error::InvalidStepSize { .. })
        ));
        assert_eq!(sim.step_size(), 0.01);
    }
    // A huge step size is a step size: documented `Ok`; the step itself then fails, the
    // state untouched, with a Newton failure or an overflow named as such.
    let mut sim = Pend::new(Pendulum::default(), 1e300).unwrap();
    refused(
        "h = 1e300",
        start(),
        |s| sim.step(s),
        |e| {
            matches!(
                e,
                Error::NonFiniteEvaluation { .. }
                    | Error::NoConvergence { .. }
                    | Error::Diverged { .. }
            )
        },
    );
    // A subnormal step does not move the time: below its resolution even at t = 0.6.
    let mut sim = Pend::new(Pendulum::default(), 1e-320).unwrap();
    let s = State::new(0.6, [0.6, -0.8], [0.8, 0.6]);
    refused(
        "h = 1e-320",
        s,
        |s| sim.step(s),
        |e| matches!(e, Error::TimeResolution { .. }),
    );
}

#[test]
fn non_finite_parameters_and_inputs_are_refused_by_every_call() {
    for bad in BAD {
        for (name, sys) in [
            (
                "m",
                Pendulum {
                    m: bad,
                    ..Pendulum::default()
                },
            ),
            (
                "g",
                Pendulum {
                    g: bad,
                    ..Pendulum::default()
                },
            ),
            (
                "u",
                Pendulum {
                    u: bad,
                    ..Pendulum::default()
                },
            ),
        ] {
            let r = Pend::new(sys, 0.01);
            assert_eq!(r.err(), Some(Error::NonFiniteParameter { name }));
            let mut sim = pendulum();
            *sim.system_mut() = sys;
            let is = |e: &Error| *e == Error::NonFiniteParameter { name };
            every_call_refuses(&format!("{name} = {bad}"), &sim, start(), is);
            refused("project", start(), |s| sim.project(s), is);
            refused("multipliers", start(), |s| sim.multipliers(s), is);
            refused(
                "tangent_basis",
                start(),
                |s| sim.tangent_basis::<2, 1, 0, 2>(s),
                is,
            );
        }
    }
}

#[test]
fn a_huge_input_is_an_overflow_not_a_singular_matrix() {
    let mut sim = pendulum();
    sim.system_mut().u = 1e300;
    let overflow = |e: &Error| matches!(e, Error::NonFiniteEvaluation { .. });
    refused("u = 1e300: step", start(), |s| sim.step(s), overflow);
    refused(
        "u = 1e300: step_with_estimate",
        start(),
        |s| sim.step_with_estimate(s),
        overflow,
    );
    refused(
        "u = 1e300: step_with_jacobian",
        start(),
        |s| sim.step_with_jacobian(s),
        overflow,
    );
    refused(
        "u = 1e300: advance_to",
        start(),
        |s| sim.advance_to(s, 1.0),
        overflow,
    );
    let msg = Error::NonFiniteEvaluation { what: "x" }.to_string();
    assert!(!msg.contains("singular"), "{msg}");
}

#[test]
fn non_finite_states_are_refused_by_every_call() {
    let sim = pendulum();
    for bad in BAD {
        for k in 0..5 {
            let mut s = start();
            match k {
                0 => s.t = bad,
                1 => s.q[0] = bad,
                2 => s.q[1] = bad,
                3 => s.v[0] = bad,
                _ => s.v[1] = bad,
            }
            let is = |e: &Error| *e == Error::NonFiniteState;
            every_call_refuses(&format!("component {k} = {bad}"), &sim, s, is);
            refused("project", s, |s| sim.project(s), is);
            refused("multipliers", s, |s| sim.multipliers(s), is);
            refused(
                "tangent_basis",
                s,
                |s| sim.tangent_basis::<2, 1, 0, 2>(s),
                is,
            );
            // Documented `Ok`: the energy and the residuals of a state that is not finite are
            // NaN (never a finite number).
            assert!(sim.energy(&s).is_nan(), "energy, component {k}");
            let (g, w) = sim.constraint_residual(&s);
            assert!(g.is_nan() && w.is_nan(), "residual, component {k}: {g} {w}");
        }
    }
}

#[test]
fn huge_states_are_refused_not_stepped() {
    let sim = pendulum();
    // Off the constraint by 1e300: inconsistent, or an overflow of the constraint.
    for big in [1e300, -1e300, f64::MAX] {
        let s = State::new(0.0, [big, -0.8], [0.8, 0.6]);
        every_call_refuses(&format!("q = {big}"), &sim, s, |e| {
            matches!(
                e,
                Error::InconsistentState { .. } | Error::NonFiniteEvaluation { .. }
            )
        });
        let mut sim = sim;
        refused(
            "multipliers",
            s,
            |s| sim.multipliers(s),
            |e| {
                matches!(
                    e,
                    Error::InconsistentState { .. } | Error::NonFiniteEvaluation { .. }
                )
            },
        );
        refused(
            "tangent_basis",
            s,
            |s| sim.tangent_basis::<2, 1, 0, 2>(s),
            |e| {
                matches!(
                    e,
                    Error::InconsistentState { .. } | Error::NonFiniteEvaluation { .. }
                )
            },
        );
        // A consistent state moving at 1e300: its step overflows.
        let fast = State::new(
            0.0,
            [0.6, -0.8],
            [0.8 * big.abs().min(1e300), 0.6 * big.abs().min(1e300)],
        );
        refused(
            "v = 1e300: step",
            fast,
            |s| sim.step(s),
            |e| {
                matches!(
                    e,
                    Error::NonFiniteEvaluation { .. }
                        | Error::InconsistentState { .. }
                        | Error::NoConvergence { .. }
                        | Error::Diverged { .. }
                )
            },
        );
    }
}

#[test]
fn a_time_that_cannot_resolve_the_step_is_an_error() {
    let sim = pendulum();
    for t in [1e300, -1e300, 1e17, f64::MAX] {
        let s = State::new(t, [0.6, -0.8], [0.8, 0.6]);
        let mut sim = sim;
        refused(
            &format!("t = {t}: step"),
            s,
            |s| sim.step(s),
            |e| matches!(e, Error::TimeResolution { .. }),
        );
        refused(
            &format!("t = {t}: step_with_jacobian"),
            s,
            |s| sim.step_with_jacobian(s),
            |e| matches!(e, Error::TimeResolution { .. }),
        );
        refused(
            &format!("t = {t}: step_with_estimate"),
            s,
            |s| sim.step_with_estimate(s),
            |e| matches!(e, Error::TimeResolution { .. }),
        );
    }
    // 64 past 1e17 is 4 ulps of t: no adaptive step can resolve it.
    let mut sim = sim;
    let s = State::new(1e17, [0.6, -0.8], [0.8, 0.6]);
    refused(
        "advance_to 1e17 + 64",
        s,
        |s| sim.advance_to(s, 1e17 + 64.0),
        |e| matches!(e, Error::TimeResolution { .. }),
    );
    // Documented `Ok`: an adaptive run to the time the state is at takes no step.
    let mut s = start();
    assert_eq!(sim.advance_to(&mut s, 0.0).unwrap().accepted, 0);
    assert_eq!(s.bits(), start().bits());
}

#[test]
fn unusable_options_are_named_by_field() {
    let d = Options::default();
    let cases: Vec<(Options, &str)> = vec![
        (
            Options {
                tolerance: 0.0,
                ..d
            },
            "tolerance",
        ),
        (
            Options {
                tolerance: -1e-12,
                ..d
            },
            "tolerance",
        ),
        (
            Options {
                tolerance: f64::NAN,
                ..d
            },
            "tolerance",
        ),
        (
            Options {
                tolerance: f64::INFINITY,
                ..d
            },
            "tolerance",
        ),
        (
            Options {
                max_iterations: 0,
                ..d
            },
            "max_iterations",
        ),
        (
            Options {
                consistency_tolerance: -1e-8,
                ..d
            },
            "consistency_tolerance",
        ),
        (
            Options {
                consistency_tolerance: f64::NAN,
                ..d
            },
            "consistency_tolerance",
        ),
        (
            Options {
                rtol: f64::NAN,
                ..d
            },
            "rtol",
        ),
        (Options { rtol: -1e-6, ..d }, "rtol"),
        (
            Options {
                atol: f64::INFINITY,
                ..d
            },
            "atol",
        ),
        (
            Options {
                min_step: f64::NAN,
                ..d
            },
            "min_step",
        ),
        (
            Options {
                min_step: -1.0,
                ..d
            },
            "min_step",
        ),
        (
            Options {
                max_step: f64::NAN,
                ..d
            },
            "max_step",
        ),
        (Options { max_step: 0.0, ..d }, "max_step"),
        (
            Options {
                fixed_step_error_limit: f64::NAN,
                ..d
            },
            "fixed_step_error_limit",
        ),
        (
            Options {
                fixed_step_error_limit: -1.0,
                ..d
            },
            "fixed_step_error_limit",
        ),
        (
            Options {
                fixed_step_error_limit: 0.0,
                ..d
            },
            "fixed_step_error_limit",
        ),
    ];
    for (o, name) in cases {
        let sim = pendulum().with_options(o);
        let is = |e: &Error| matches!(e, Error::InvalidOptions { field, .. } if *field == name);
        every_call_refuses(&format!("Options::{name}"), &sim, start(), is);
        refused("project", start(), |s| sim.project(s), is);
        refused("multipliers", start(), |s| sim.multipliers(s), is);
        refused(
            "tangent_basis",
            start(),
            |s| sim.tangent_basis::<2, 1, 0, 2>(s),
            is,
        );
        let msg = Error::InvalidOptions {
            field: name,
            requirement: "x",
        }
        .to_string();
        assert!(msg.contains(name), "{msg}");
    }
    // The adaptive drivers need a usable error scale and ordered step bounds.
    for (o, name) in [
        (
            Options {
                rtol: 0.0,
                atol: 0.0,
                ..d
            },
            "atol",
        ),
        (
            Options {
                min_step: 1.0,
                max_step: 0.5,
                ..d
            },
            "min_step",
        ),
    ] {
        let mut sim = pendulum().with_options(o);
        let is = |e: &Error| matches!(e, Error::InvalidOptions { field, .. } if *field == name);
        refused("advance_to", start(), |s| sim.advance_to(s, 1.0), is);
    }
}

#[test]
fn bad_end_times_outputs_and_events_are_refused() {
    let mut sim = pendulum();
    for t_end in BAD {
        refused(
            &format!("advance_to {t_end}"),
            start(),
            |s| sim.advance_to(s, t_end),
            |e| matches!(e, Error::InvalidTime { .. }),
        );
    }
    let none: [EventOn<'_, State<2>>; 0] = [];
    for outputs in [
        vec![0.1, f64::NAN],
        vec![f64::INFINITY],
        vec![0.3, 0.1],
        vec![0.1, 0.2, 0.15],
    ] {
        let mut reports = 0;
        refused(
            &format!("outputs {outputs:?}"),
            start(),
            |s| sim.simulate(s, 0.5, &outputs, &none, |_| reports += 1),
            |e| matches!(e, Error::InvalidTime { .. }),
        );
        assert_eq!(reports, 0, "{outputs:?}: reported before the error");
    }
    // Decreasing output times are the order of a backward run: documented `Ok`.
    let mut s = start();
    let mut times = Vec::new();
    sim.simulate(&mut s, -0.3, &[-0.1, -0.2], &none, |r| {
        if let spark::simulate::Report::Output(o) = r {
            times.push(o.t);
        }
    })
    .unwrap();
    assert_eq!(times.len(), 2);
    assert!(times[0] > times[1]);

    // An event function that is NaN everywhere: an error at the first step, state untouched.
    let nan = |_: &State<2>| f64::NAN;
    let events = [EventOn {
        function: &nan,
        direction: Direction::Either,
        terminal: false,
    }];
    refused(
        "NaN event",
        start(),
        |s| sim.simulate(s, 0.5, &[], &events, |_| {}),
        |e| matches!(e, Error::NonFiniteEvent { index: 0, .. }),
    );
    // NaN only near x = 0, where the event would cross: an error naming the event, with the
    // state at the last accepted step (consistent, finite, before the crossing).
    let holey = |s: &State<2>| {
        if s.q[0].abs() < 0.05 {
            f64::NAN
        } else {
            s.q[0]
        }
    };
    let events = [EventOn {
        function: &holey,
        direction: Direction::Either,
        terminal: false,
    }];
    let mut s = start();
    let r = sim.simulate(&mut s, 3.0, &[], &events, |_| {});
    assert!(
        matches!(r, Err(Error::NonFiniteEvent { index: 0, .. })),
        "{r:?}"
    );
    assert!(s.q[0] > 0.0 && s.t < 3.0 && s.bits().iter().all(|b| f64::from_bits(*b).is_finite()));
    let (g, w) = sim.constraint_residual(&s);
    assert!(g < 1e-12 && w < 1e-10, "{g:e} {w:e}");
}

#[test]
fn tangent_basis_and_multipliers_refuse_an_inconsistent_state() {
    let sim = pendulum();
    // |q| = 2: the constraint is violated by 3.
    for s in [
        State::new(0.0, [2.0, 0.0], [0.0, 1.0]),
        State::new(0.0, [0.6, -0.8], [1.0, 1.0]),
    ] {
        let inconsistent = |e: &Error| matches!(e, Error::InconsistentState { .. });
        refused(
            "tangent_basis",
            s,
            |s| sim.tangent_basis::<2, 1, 0, 2>(s),
            inconsistent,
        );
        refused("multipliers", s, |s| sim.multipliers(s), inconsistent);
    }
    // A consistent state passes (documented `Ok`).
    assert!(sim.tangent_basis::<2, 1, 0, 2>(&start()).is_ok());
    assert!(sim.multipliers(&start()).is_ok());
    // The tolerance is the integrator's: a looser one accepts a slightly inconsistent state.
    let near = State::new(0.0, [0.6 + 1e-6, -0.8], [0.8, 0.6]);
    assert!(sim.multipliers(&near).is_err());
    let loose = sim.with_options(Options {
        consistency_tolerance: 1e-4,
        ..Options::default()
    });
    assert!(loose.multipliers(&near).is_ok());
    assert!(loose.tangent_basis::<2, 1, 0, 2>(&near).is_ok());
}

#[test]
fn a_mass_matrix_that_is_not_positive_definite_is_refused() {
    for m in [-1.0, 0.0] {
        let mut sim = pendulum();
        sim.system_mut().m = m;
        let is = |e: &Error| matches!(e, Error::MassNotPositiveDefinite { .. });
        every_call_refuses(&format!("m = {m}"), &sim, start(), is);
        refused("project", start(), |s| sim.project(s), is);
        refused("multipliers", start(), |s| sim.multipliers(s), is);
        // Fixed through `system_mut`, the same integrator steps again.
        sim.system_mut().m = 2.0;
        let mut s = start();
        sim.step(&mut s).unwrap();
        // And a mass that turns negative after a first good step is caught too.
        sim.system_mut().m = -2.0;
        refused("m turned negative", s, |s| sim.step(s), is);
    }
    // A mass matrix that depends on the state is checked at every step.
    let mut bead = Integrator::<Bead, GaussLobatto<2>>::new(
        Bead {
            m: -1.0,
            ..Bead::default()
        },
        0.01,
    )
    .unwrap();
    refused(
        "bead m = -1",
        start(),
        |s| bead.step(s),
        |e| matches!(e, Error::MassNotPositiveDefinite { .. }),
    );
    let msg = Error::MassNotPositiveDefinite { t: 0.0 }.to_string();
    assert!(msg.contains("positive definite"), "{msg}");
}

#[test]
fn the_nonholonomic_model_refuses_bad_input_too() {
    let mut sim = Integrator::<Skate, GaussLobatto<2>>::new(Skate::default(), 0.01).unwrap();
    let good = State::new(0.0, [0.0, 0.0, 0.3], [0.3f64.cos(), 0.3f64.sin(), 0.5]);
    sim.step(&mut good.clone()).unwrap();
    for bad in BAD {
        let mut s = good;
        s.v[2] = bad;
        refused("step", s, |s| sim.step(s), |e| *e == Error::NonFiniteState);
        refused(
            "project",
            s,
            |s| sim.project(s),
            |e| *e == Error::NonFiniteState,
        );
        refused(
            "multipliers",
            s,
            |s| sim.multipliers(s),
            |e| *e == Error::NonFiniteState,
        );
        refused(
            "tangent_basis",
            s,
            |s| sim.tangent_basis::<3, 0, 1, 5>(s),
            |e| *e == Error::NonFiniteState,
        );
    }
    // Sliding sideways violates the knife edge.
    let sideways = State::new(0.0, [0.0, 0.0, 0.3], [-(0.3f64.sin()), 0.3f64.cos(), 0.0]);
    let inconsistent = |e: &Error| matches!(e, Error::InconsistentState { .. });
    refused("step", sideways, |s| sim.step(s), inconsistent);
    refused(
        "multipliers",
        sideways,
        |s| sim.multipliers(s),
        inconsistent,
    );
    refused(
        "tangent_basis",
        sideways,
        |s| sim.tangent_basis::<3, 0, 1, 5>(s),
        inconsistent,
    );
    sim.system_mut().j = -0.5;
    refused(
        "negative inertia",
        good,
        |s| sim.step(s),
        |e| matches!(e, Error::MassNotPositiveDefinite { .. }),
    );
}

#[test]
fn hamiltonian_states_refuse_bad_input() {
    let mut sim =
        Integrator::<HPendulum, GaussLobatto<2>>::new(HPendulum::default(), 0.01).unwrap();
    let good = hamiltonian::State::new(0.0, [0.6, -0.8], [0.8, 0.6]);
    sim.step(&mut good.clone()).unwrap();
    for bad in BAD {
        for k in 0..5 {
            let mut s = good;
            match k {
                0 => s.t = bad,
                1 => s.q[0] = bad,
                2 => s.q[1] = bad,
                3 => s.p[0] = bad,
                _ => s.p[1] = bad,
            }
            let is = |e: &Error| *e == Error::NonFiniteState;
            refused("step", s, |s| sim.step(s), is);
            refused("step_with_estimate", s, |s| sim.step_with_estimate(s), is);
            refused("step_with_jacobian", s, |s| sim.step_with_jacobian(s), is);
            refused("advance_to", s, |s| sim.advance_to(s, 0.5), is);
            refused("project", s, |s| sim.project(s), is);
            refused("multipliers", s, |s| sim.multipliers(s), is);
            assert!(sim.energy(&s).is_nan());
            assert!(sim.constraint_residual(&s).0.is_nan());
        }
        sim.system_mut().g = bad;
        let is = |e: &Error| *e == Error::NonFiniteParameter { name: "g" };
        refused("step", good, |s| sim.step(s), is);
        refused("project", good, |s| sim.project(s), is);
        refused("multipliers", good, |s| sim.multipliers(s), is);
        sim.system_mut().g = 9.81;
    }
    let off = hamiltonian::State::new(0.0, [2.0, 0.0], [0.0, 1.0]);
    refused(
        "multipliers",
        off,
        |s| sim.multipliers(s),
        |e| matches!(e, Error::InconsistentState { .. }),
    );
    let far = hamiltonian::State::new(1e300, [0.6, -0.8], [0.8, 0.6]);
    refused(
        "t = 1e300",
        far,
        |s| sim.step(s),
        |e| matches!(e, Error::TimeResolution { .. }),
    );
    let nan = |_: &hamiltonian::State<2>| f64::NAN;
    let events = [EventOn {
        function: &nan,
        direction: Direction::Rising,
        terminal: true,
    }];
    refused(
        "NaN event",
        good,
        |s| sim.simulate(s, 0.5, &[], &events, |_| {}),
        |e| matches!(e, Error::NonFiniteEvent { .. }),
    );
    let none: [EventOn<'_, hamiltonian::State<2>>; 0] = [];
    refused(
        "NaN output",
        good,
        |s| sim.simulate(s, 0.5, &[f64::NAN], &none, |_| {}),
        |e| matches!(e, Error::InvalidTime { .. }),
    );
}

#[test]
fn dae_states_refuse_bad_input() {
    let mut sim =
        Integrator::<DPendulum, GaussLobatto<2>>::new(DPendulum::default(), 0.01).unwrap();
    let good = dae::State::new(0.0, [0.6, -0.8], [0.8, 0.6], [0.0]);
    sim.step(&mut good.clone()).unwrap();
    for bad in BAD {
        for k in 0..4 {
            let mut s = good;
            match k {
                0 => s.t = bad,
                1 => s.y[0] = bad,
                2 => s.z[1] = bad,
                _ => s.lambda[0] = bad,
            }
            let is = |e: &Error| *e == Error::NonFiniteState;
            refused("step", s, |s| sim.step(s), is);
            refused("step_with_estimate", s, |s| sim.step_with_estimate(s), is);
            refused("step_with_jacobian", s, |s| sim.step_with_jacobian(s), is);
            refused("advance_to", s, |s| sim.advance_to(s, 0.5), is);
            refused("project", s, |s| sim.project(s), is);
            refused("multipliers", s, |s| sim.multipliers(s), is);
        }
        sim.system_mut().u = bad;
        let is = |e: &Error| *e == Error::NonFiniteParameter { name: "u" };
        refused("step", good, |s| sim.step(s), is);
        refused("project", good, |s| sim.project(s), is);
        sim.system_mut().u = 0.0;
    }
    sim.system_mut().u = 1e300;
    refused(
        "u = 1e300",
        good,
        |s| sim.step(s),
        |e| matches!(e, Error::NonFiniteEvaluation { .. }),
    );
    sim.system_mut().u = 0.0;
    let off = dae::State::new(0.0, [2.0, 0.0], [0.0, 1.0], [0.0]);
    refused(
        "multipliers",
        off,
        |s| sim.multipliers(s),
        |e| matches!(e, Error::InconsistentState { .. }),
    );
    let sim = sim.with_options(Options {
        tolerance: f64::NAN,
        ..Options::default()
    });
    let mut sim = sim;
    refused(
        "tolerance NaN",
        good,
        |s| sim.step(s),
        |e| {
            matches!(
                e,
                Error::InvalidOptions {
                    field: "tolerance",
                    ..
                }
            )
        },
    );
}

#[test]
fn the_symplectic_euler_step_refuses_like_the_others() {
    let mut sim = Integrator::<Pendulum, SymplecticEuler>::new(Pendulum::default(), 0.01).unwrap();
    let mut s = start();
    s.q[0] = f64::NAN;
    refused("step", s, |s| sim.step(s), |e| *e == Error::NonFiniteState);
    let far = State::new(1e300, [0.6, -0.8], [0.8, 0.6]);
    refused(
        "t = 1e300",
        far,
        |s| sim.step(s),
        |e| matches!(e, Error::TimeResolution { .. }),
    );
}
