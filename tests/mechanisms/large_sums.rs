//! A Lagrangian holding a sum of 1000 terms (issue 28: such sums crashed rustc, and 500 terms
//! took 19 s to expand): the generated Lagrangian, force and stiffness against a hand
//! evaluation of the same sums, and a symplectic integration that conserves its energy.

use spark::nalgebra::SVector;
use spark::{GaussLobatto, Integrator, Lagrangian, State};

spark::mechanics! {
    /// A particle in the potential `k Σ_{i=1}^{1000} sin(i x) / i²`.
    pub struct ThousandTerms {
        coordinates: [x],
        velocities: [vx],
        parameters: [k = 1.0],
        lagrangian: 0.5 * vx.powi(2) - k * (1..=1000).map(|i| (x * i).sin() / (i * i)).sum::<f64>(),
    }
}

const TERMS: usize = 1000;

/// `(V, V', V'')` of the potential at `x`, summed by hand.
fn potential(k: f64, x: f64) -> (f64, f64, f64) {
    let (mut v, mut dv, mut ddv) = (0.0, 0.0, 0.0);
    for i in 1..=TERMS {
        let i = i as f64;
        v += (x * i).sin() / (i * i);
        dv += (x * i).cos() / i;
        ddv -= (x * i).sin();
    }
    (k * v, k * dv, k * ddv)
}

#[test]
fn the_generated_derivatives_of_a_1000_term_sum_match_a_hand_evaluation() {
    let sys = ThousandTerms { k: 1.3 };
    for (x, vx) in [(0.3, 0.7), (-1.1, 0.0), (2.5, -2.0), (0.0, 1.0)] {
        let q = SVector::<f64, 1>::new(x);
        let v = SVector::<f64, 1>::new(vx);
        let (pot, dpot, ddpot) = potential(sys.k, x);
        let l = <ThousandTerms as Lagrangian<1, 0>>::lagrangian(&sys, 0.0, &q, &v);
        let jac = <ThousandTerms as Lagrangian<1, 0>>::dynamics_jacobian(&sys, 0.0, &q, &v);
        // Sums of 1000 terms of size up to 1 (the stiffness) in another order: the rounding
        // differs by a few 1e-13 at most.
        let close = |a: f64, b: f64, what: &str| {
            assert!(
                (a - b).abs() <= 1e-12 * (1.0 + b.abs()),
                "{what} at x = {x}: generated {a}, by hand {b}"
            );
        };
        close(l, 0.5 * vx * vx - pot, "L");
        close(jac.p[0], vx, "∂L/∂v");
        close(jac.f[0], -dpot, "∂L/∂x");
        close(jac.lqq[(0, 0)], -ddpot, "∂²L/∂x²");
        close(jac.lvv[(0, 0)], 1.0, "∂²L/∂v²");
    }
}

#[test]
fn a_1000_term_model_integrates_with_bounded_energy_error() {
    let sys = ThousandTerms { k: 1.0 };
    let mut sim = Integrator::<ThousandTerms, GaussLobatto<2>>::new(sys, 1e-3).unwrap();
    let mut s = State::new(0.0, [0.3], [0.7]);
    let e0 = sim.energy(&s);
    let (pot, _, _) = potential(1.0, 0.3);
    assert!((e0 - (0.5 * 0.49 + pot)).abs() < 1e-12, "energy {e0}");
    let mut worst = 0.0f64;
    for _ in 0..2000 {
        sim.step(&mut s).unwrap();
        worst = worst.max((sim.energy(&s) - e0).abs());
    }
    // Gauss–Lobatto with s = 2 is of order 4: at h = 1e-3 the energy error is far below 1e-8
    // (stiffness up to 1000, so h·ω ≈ 0.03).
    assert!(worst < 1e-8, "energy error {worst:e}");
    assert!(s.t > 1.99, "t = {}", s.t);
}
