//! Static equilibrium inputs (`Integrator::equilibrium_inputs`): against the statics of a
//! double pendulum worked by hand, on a closed loop (the five-bar's two motors), on an
//! underactuated cart-pole, and refusing bad configurations with nothing changed.

use spark::nalgebra::SVector;
use spark::{Dimensions, Error, GaussLobatto, Integrator, State};

use crate::control_ilqr::{at, CartPole};

include!("../../examples/models/five_bar.rs");

spark::mechanics! {
    /// A Cartesian double pendulum pushed horizontally at each mass.
    pub(crate) struct PushedPendulum {
        coordinates: [x1, y1, x2, y2],
        velocities: [u1, v1, u2, v2],
        parameters: [m1 = 1.0, m2 = 2.0, l1 = 1.0, l2 = 0.7, g = 9.81],
        inputs: [f1, f2],
        lagrangian: 0.5 * m1 * (u1.powi(2) + v1.powi(2)) + 0.5 * m2 * (u2.powi(2) + v2.powi(2))
            - m1 * g * y1 - m2 * g * y2,
        forces: [f1, 0.0, f2, 0.0],
        holonomic: [
            x1.powi(2) + y1.powi(2) - l1.powi(2),
            (x2 - x1).powi(2) + (y2 - y1).powi(2) - l2.powi(2),
        ],
    }
}

/// The double pendulum at link angles `a`, `b` from the downward vertical.
fn pendulum_at(a: f64, b: f64) -> SVector<f64, 4> {
    let (x1, y1) = (a.sin(), -a.cos());
    SVector::from([x1, y1, x1 + 0.7 * b.sin(), y1 - 0.7 * b.cos()])
}

/// Steps `sim` from rest at `q` for `steps` steps and returns the largest coordinate change.
fn drift<S: spark::Model, M: spark::Method, const N: usize>(
    sim: &mut Integrator<S, M>,
    q: &SVector<f64, N>,
    steps: usize,
) -> f64
where
    Integrator<S, M>: StepN<N>,
{
    let mut s = State {
        t: 0.0,
        q: *q,
        v: SVector::zeros(),
    };
    let mut worst = 0.0f64;
    for _ in 0..steps {
        sim.step_n(&mut s);
        worst = worst.max((s.q - q).amax());
    }
    worst
}

/// `step` for the models here, without naming their constraint counts.
trait StepN<const N: usize> {
    fn step_n(&mut self, s: &mut State<N>);
}

impl StepN<4> for Integrator<PushedPendulum, GaussLobatto<2>> {
    fn step_n(&mut self, s: &mut State<4>) {
        self.step(s).unwrap();
    }
}

impl StepN<4> for Integrator<FiveBar, GaussLobatto<2>> {
    fn step_n(&mut self, s: &mut State<4>) {
        self.step(s).unwrap();
    }
}

#[test]
fn the_double_pendulum_is_held_by_the_hand_worked_statics() {
    let p = PushedPendulum::default();
    let mut sim = Integrator::<PushedPendulum, GaussLobatto<2>>::new(p, 1e-2).unwrap();
    for (a, b) in [(0.3, -0.4), (1.1, 0.2), (-0.7, -1.2), (0.0, 0.0)] {
        let q = pendulum_at(a, b);
        let e = sim.equilibrium_inputs(0.0, &q).unwrap();
        // Link 2's tension balances m2 g and f2; link 1's balances the rest.
        let f2 = p.m2 * p.g * b.tan();
        let f1 = (p.m1 + p.m2) * p.g * a.tan() - f2;
        assert!(
            (e.u[0] - f1).abs() < 1e-9 * (1.0 + f1.abs()),
            "{a} {b}: {} vs {f1}",
            e.u[0]
        );
        assert!(
            (e.u[1] - f2).abs() < 1e-9 * (1.0 + f2.abs()),
            "{a} {b}: {} vs {f2}",
            e.u[1]
        );
        assert!(e.holds(1e-12), "{e:?}");
        assert!(e.iterations <= 3, "{e:?}");
        // The model's own inputs are untouched; with the found ones it stays still.
        assert_eq!((sim.system().f1, sim.system().f2), (0.0, 0.0));
        sim.system_mut().f1 = e.u[0];
        sim.system_mut().f2 = e.u[1];
        let moved = drift(&mut sim, &q, 100);
        assert!(moved < 1e-11, "{a} {b}: moved {moved:e} in 1 s");
        sim.system_mut().f1 = 0.0;
        sim.system_mut().f2 = 0.0;
    }
}

#[test]
fn the_five_bar_is_held_through_its_closed_loop() {
    let mut sim = Integrator::<FiveBar, GaussLobatto<2>>::new(FiveBar::default(), 1e-3).unwrap();
    // A configuration on the loop: project a guess near the assembled one.
    let mut s = State::new(0.0, [0.2, -0.1, 0.0, 0.0], [0.0; 4]);
    sim.project(&mut s).unwrap();
    let free = {
        let mut probe = s;
        sim.step(&mut probe).unwrap();
        (probe.q - s.q).amax()
    };
    let e = sim.equilibrium_inputs(0.0, &s.q).unwrap();
    assert!(e.holds(1e-12), "{e:?}");
    assert!(e.unforced > 1.0, "gravity pulls the unheld loop: {e:?}");
    sim.system_mut().set_inputs(&e.u);
    let moved = drift(&mut sim, &s.q, 500);
    assert!(
        moved < 1e-10 && moved < 1e-6 * free,
        "moved {moved:e} in 0.5 s (free {free:e} in one step)"
    );
}

#[test]
fn the_cart_pole_is_held_only_upright() {
    let mut sim = Integrator::<CartPole, GaussLobatto<2>>::new(CartPole::default(), 1e-2).unwrap();
    let up = sim.equilibrium_inputs(0.0, &at(0.0, 0.0).q).unwrap();
    assert!(up.holds(1e-12) && up.u[0].abs() < 1e-12, "{up:?}");
    // Leaning, no cart force holds the pole: the least-squares best is reported as such.
    let lean = sim.equilibrium_inputs(0.0, &at(0.3, 0.0).q).unwrap();
    assert!(!lean.holds(1e-6), "{lean:?}");
    assert!(lean.residual > 0.1, "{lean:?}");
    assert!(lean.u[0].is_finite());
}

#[test]
fn bad_configurations_are_refused_and_change_nothing() {
    let p = PushedPendulum {
        f1: 0.5,
        ..PushedPendulum::default()
    };
    let mut sim = Integrator::<PushedPendulum, GaussLobatto<2>>::new(p, 1e-2).unwrap();
    let mut q = pendulum_at(0.3, 0.1);
    q[2] = f64::NAN;
    assert!(matches!(
        sim.equilibrium_inputs(0.0, &q),
        Err(Error::NonFiniteState)
    ));
    assert!(matches!(
        sim.equilibrium_inputs(f64::INFINITY, &pendulum_at(0.3, 0.1)),
        Err(Error::NonFiniteState)
    ));
    let mut off = pendulum_at(0.3, 0.1);
    off[0] += 0.05;
    assert!(matches!(
        sim.equilibrium_inputs(0.0, &off),
        Err(Error::InconsistentState { .. })
    ));
    assert_eq!(
        *sim.system(),
        p,
        "the model's inputs are restored on every path"
    );
}
