//! LQR from the step's exact Jacobian: the discrete linearization of the Cartesian cart-pole
//! (`models/cartpole.rs`: 3 coordinates, 1 constraint, 1 input) at the upright equilibrium,
//! taken from `Integrator::step_with_jacobian` over one control period (20 ms = 2 steps of
//! `GaussLobatto<2>`), reduced to the 4-dimensional tangent space of the constraint manifold with
//! `Integrator::tangent_basis`, and a discrete LQR gain from a Riccati iteration on it. The gain
//! stabilizes the nonlinear model from a 0.3 rad lean.
//!
//! The recipe: with `T` the tangent basis at the equilibrium `x0` (also the image of `x0`),
//! `A = Tᵀ J T`, `B = Tᵀ [dq_du; dv_du]`, costs moved to the reduced coordinates `z = Tᵀ (x − x0)`
//! through the map `C` from `z` to the physical `(xc, θ, vc, ω)`; the law is
//! `u = −K Tᵀ (x − x0)`. As a check, the same gain in physical coordinates (`K C⁻¹`) is compared
//! with the gain of the hand-linearized model discretized exactly (`cartpole` example): they agree
//! to the method's accuracy.
//!
//! Prints the gains and the closed loop, writes `examples/out/cartpole_lqr.svg`. Exits with an
//! error if the pole is not upright after 6 s (|θ| < 1e-3 rad, |xc| < 1 cm).
//!
//! `cargo run --release --example cartpole_lqr`

use spark::nalgebra::{SMatrix, SVector};
use spark::{GaussLobatto, Integrator, StepJacobian, TangentBasis};

include!("models/plot.rs");
include!("models/cartpole.rs");

use cartpole::{
    cartesian, closed_loop, costs, linearized, lqr, report, zoh, CartPole, M4, STEPS_PER_PERIOD,
    TC, V4,
};

/// The Jacobian of one control period at the equilibrium: the product of the steps' Jacobians
/// (the state returns to the equilibrium after each step).
fn period_jacobian(
    p: CartPole,
) -> Result<(SMatrix<f64, 6, 6>, SVector<f64, 6>, TangentBasis<3, 4>), spark::Error> {
    let mut sim = Integrator::<CartPole, GaussLobatto<2>>::new(p, TC / STEPS_PER_PERIOD as f64)?;
    let x0 = cartesian(&p, 0.0, &V4::zeros());
    let basis: TangentBasis<3, 4> = sim.tangent_basis(&x0)?;
    let mut phi = SMatrix::<f64, 6, 6>::identity();
    let mut gamma = SVector::<f64, 6>::zeros();
    let mut s = x0;
    for _ in 0..STEPS_PER_PERIOD {
        let j: StepJacobian<3, 1> = sim.step_with_jacobian(&mut s)?;
        let mut js = SMatrix::<f64, 6, 6>::zeros();
        js.fixed_view_mut::<3, 3>(0, 0).copy_from(&j.dq_dq);
        js.fixed_view_mut::<3, 3>(0, 3).copy_from(&j.dq_dv);
        js.fixed_view_mut::<3, 3>(3, 0).copy_from(&j.dv_dq);
        js.fixed_view_mut::<3, 3>(3, 3).copy_from(&j.dv_dv);
        let ju = SVector::<f64, 6>::new(
            j.dq_du[0], j.dq_du[1], j.dq_du[2], j.dv_du[0], j.dv_du[1], j.dv_du[2],
        );
        phi = js * phi;
        gamma = js * gamma + ju;
    }
    // The equilibrium is kept to round-off.
    let drift = (s.q - x0.q).amax().max((s.v - x0.v).amax());
    assert!(drift < 1e-14, "the upright state moved by {drift:e}");
    Ok((phi, gamma, basis))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let p = CartPole::default();
    let (phi, gamma, basis) = period_jacobian(p)?;
    // T (6 × 4): the tangent directions (δq; δv) as columns.
    let mut t = SMatrix::<f64, 6, 4>::zeros();
    t.fixed_view_mut::<3, 4>(0, 0).copy_from(&basis.q);
    t.fixed_view_mut::<3, 4>(3, 0).copy_from(&basis.v);
    let a: M4 = t.transpose() * phi * t;
    let b: V4 = t.transpose() * gamma;
    // C: reduced z → physical (xc, θ, vc, ω) at upright (θ = (x − xc)/l, ω = (vx − vc)/l).
    let mut phys = SMatrix::<f64, 4, 6>::zeros();
    phys[(0, 0)] = 1.0;
    phys[(1, 0)] = -1.0 / p.l;
    phys[(1, 1)] = 1.0 / p.l;
    phys[(2, 3)] = 1.0;
    phys[(3, 3)] = -1.0 / p.l;
    phys[(3, 4)] = 1.0 / p.l;
    let c: M4 = phys * t;
    let (q, r) = costs();
    let k_reduced = lqr(&a, &b, &(c.transpose() * q * c), r)?;
    let c_inv = c
        .try_inverse()
        .ok_or("the tangent basis does not span the minimal state")?;
    let k_phys = k_reduced * c_inv;
    // The reference: the hand-linearized model, discretized exactly.
    let (ac, bc) = linearized(&p);
    let (ad, bd) = zoh(&ac, &bc, TC);
    let k_hand = lqr(&ad, &bd, &q, r)?;
    let show = |k: &SMatrix<f64, 1, 4>| {
        format!(
            "{:>10.5} {:>10.5} {:>10.5} {:>10.5}",
            k[0], k[1], k[2], k[3]
        )
    };
    println!("LQR gain on (xc, θ, vc, ω), control period {TC} s:");
    println!(
        "  from the step Jacobian (2 steps of GaussLobatto<2>): {}",
        show(&k_phys)
    );
    println!(
        "  from the hand-linearized model, exact ZOH:          {}",
        show(&k_hand)
    );
    let gap = (k_phys - k_hand).amax() / k_hand.amax();
    println!("  largest relative difference: {gap:.2e}");
    let a_gap = (c * a * c_inv - ad).amax() / ad.amax();
    println!("  reduced A against the exact ZOH matrix: relative difference {a_gap:.2e}");

    let theta0 = 0.3;
    let x0 = cartesian(&p, 0.0, &V4::zeros());
    let law = |_: &CartPole, s: &spark::State<3>| {
        let dx = SVector::<f64, 6>::new(
            s.q[0] - x0.q[0],
            s.q[1] - x0.q[1],
            s.q[2] - x0.q[2],
            s.v[0] - x0.v[0],
            s.v[1] - x0.v[1],
            s.v[2] - x0.v[2],
        );
        -(k_reduced * (t.transpose() * dx))[0]
    };
    let run = closed_loop(p, theta0, 6.0, law)?;
    if gap > 1e-3 {
        return Err(
            "the gains from the step Jacobian and from the hand linearization differ".into(),
        );
    }
    report(
        &run,
        "cart-pole, LQR from the step Jacobian (Tc = 20 ms), from a 0.3 rad lean",
        "examples/out/cartpole_lqr.svg",
    )?;
    Ok(())
}
