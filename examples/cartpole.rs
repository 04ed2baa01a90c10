//! A controlled cart-pole: the Cartesian model (cart on a rail with viscous friction, a point
//! mass on a rigid rod, the force on the cart as the input `u`) through `mechanics!`, stabilized
//! upright from a 0.25 rad lean by a sampled LQR controller (control period 20 ms, zero-order
//! hold). The gains come from the model linearized by hand in minimal coordinates
//! (`models/cartpole.rs`); `cartpole_lqr` computes them from the step's exact Jacobian instead.
//!
//! Prints the closed loop every 0.5 s and writes `examples/out/cartpole.svg` (lean, cart
//! position and force against time). Exits with an error if the pole is not upright (|θ| below
//! 1e-3 rad, cart within 1 cm of the origin) after 6 s, or a constraint residual exceeded 1e-12.
//!
//! `cargo run --release --example cartpole`

include!("models/plot.rs");
include!("models/cartpole.rs");

use cartpole::{closed_loop, costs, linearized, lqr, minimal, report, zoh, CartPole, TC};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let p = CartPole::default();
    let (a, b) = linearized(&p);
    let (ad, bd) = zoh(&a, &b, TC);
    let (q, r) = costs();
    let k = lqr(&ad, &bd, &q, r)?;
    println!(
        "LQR gain on (xc, θ, vc, ω) from the hand-linearized model, ZOH over {TC} s: {:.4} {:.4} {:.4} {:.4}",
        k[0], k[1], k[2], k[3]
    );
    let theta0 = 0.25;
    let run = closed_loop(p, theta0, 6.0, |sys, s| -(k * minimal(sys, s))[0])?;
    report(
        &run,
        "cart-pole, sampled LQR (Tc = 20 ms), from a 0.25 rad lean",
        "examples/out/cartpole.svg",
    )?;
    Ok(())
}
