//! Helper functions of `mechanics!` behave as Rust functions (issue 28): arguments are
//! substituted hygienically (`pot(y, x)` binds `x := y` and `y := x` at once), a helper's own
//! `let` bindings never capture the caller's names, and a helper may be written after the
//! struct. Each model is compared with the same model written out by hand.

use spark::nalgebra::SVector;
use spark::{GaussLobatto, Integrator, Lagrangian, State};

spark::mechanics! {
    fn pot(x: f64, y: f64) -> f64 { x.powi(2) + 2.0 * y.powi(2) }
    /// `pot` called with its arguments swapped.
    pub struct Swapped {
        coordinates: [x, y],
        velocities: [vx, vy],
        lagrangian: 0.5 * (vx.powi(2) + vy.powi(2)) - pot(y, x),
    }
}

spark::mechanics! {
    /// `Swapped` written out: `pot(y, x) = y² + 2 x²`.
    pub struct SwappedByHand {
        coordinates: [x, y],
        velocities: [vx, vy],
        lagrangian: 0.5 * (vx.powi(2) + vy.powi(2)) - (y.powi(2) + 2.0 * x.powi(2)),
    }
}

spark::mechanics! {
    const K: usize = 3;
    /// Its own `let x` must not capture the caller's coordinate `x` in the argument.
    fn shadow(a: f64) -> f64 {
        let x = 2.0 * a;
        x + a * K
    }
    /// Calls another helper with its parameters swapped, and takes the time as a parameter
    /// named `t`.
    fn outer(a: f64, b: f64, t: f64) -> f64 { diff(b, a) * (1.0 + 0.0 * t) }
    /// The model: `shadow(x + y) = 5 (x + y)`, `outer(x, y, t) = y - 3 x`.
    pub struct Hygiene {
        coordinates: [x, y],
        velocities: [vx, vy],
        lagrangian: 0.5 * (vx.powi(2) + vy.powi(2)) - shadow(x + y).powi(2) - outer(x, y, t).powi(2),
    }
    // A helper may come after the struct, as Rust items may.
    fn diff(a: f64, b: f64) -> f64 { a - 3.0 * b }
}

spark::mechanics! {
    /// `Hygiene` written out.
    pub struct HygieneByHand {
        coordinates: [x, y],
        velocities: [vx, vy],
        lagrangian: 0.5 * (vx.powi(2) + vy.powi(2)) - (5.0 * (x + y)).powi(2) - (y - 3.0 * x).powi(2),
    }
}

fn lagrangian<M: Lagrangian<2, 0>>(m: &M, q: [f64; 2], v: [f64; 2]) -> f64 {
    m.lagrangian(0.0, &SVector::from(q), &SVector::from(v))
}

#[test]
fn swapped_arguments_bind_simultaneously() {
    // At rest at (1, 0) the energy is pot(0, 1) = 2 (not pot(1, 1) or pot(0, 0)).
    assert_eq!(-lagrangian(&Swapped::default(), [1.0, 0.0], [0.0; 2]), 2.0);
    assert_eq!(-lagrangian(&Swapped::default(), [0.0, 1.0], [0.0; 2]), 1.0);
    for (q, v) in [([0.3, -0.7], [0.1, 0.2]), ([1.5, 0.25], [-1.0, 0.5])] {
        assert_eq!(
            lagrangian(&Swapped::default(), q, v),
            lagrangian(&SwappedByHand::default(), q, v)
        );
    }
}

#[test]
fn helper_locals_do_not_capture_the_callers_names() {
    for (q, v) in [([1.0, 0.0], [0.0; 2]), ([0.3, -0.7], [0.1, 0.2])] {
        let (a, b) = (
            lagrangian(&Hygiene::default(), q, v),
            lagrangian(&HygieneByHand::default(), q, v),
        );
        assert!((a - b).abs() <= 1e-12 * b.abs().max(1.0), "{a} != {b}");
    }
    // shadow(1) = 5, outer(1, 0) = -3: L = -(25 + 9).
    assert_eq!(lagrangian(&Hygiene::default(), [1.0, 0.0], [0.0; 2]), -34.0);
}

#[test]
fn a_model_with_helpers_steps_like_the_model_written_out() {
    let mut a = State::new(0.0, [0.4, -0.2], [0.1, 0.3]);
    let mut b = a;
    let mut sa = Integrator::<Swapped, GaussLobatto<2>>::new(Swapped::default(), 0.01).unwrap();
    let mut sb =
        Integrator::<SwappedByHand, GaussLobatto<2>>::new(SwappedByHand::default(), 0.01).unwrap();
    for _ in 0..100 {
        sa.step(&mut a).unwrap();
        sb.step(&mut b).unwrap();
    }
    for i in 0..2 {
        assert!((a.q[i] - b.q[i]).abs() < 1e-12, "{:?} {:?}", a.q, b.q);
        assert!((a.v[i] - b.v[i]).abs() < 1e-12, "{:?} {:?}", a.v, b.v);
    }
}
