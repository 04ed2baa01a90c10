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

use plotters::style::{BLUE, GREEN, RED};

include!("models/plot.rs");
include!("models/cartpole.rs");

use cartpole::{closed_loop, costs, linearized, lqr, minimal, zoh, CartPole, TC};

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
    println!(
        "{:>6} {:>12} {:>12} {:>12} {:>10}",
        "t", "lean θ", "cart xc", "force u", "residual"
    );
    for s in run.iter().step_by(25) {
        println!(
            "{:>6.2} {:>12.6} {:>12.6} {:>12.6} {:>10.1e}",
            s.t, s.theta, s.xc, s.u, s.residual
        );
    }
    let angle: Vec<(f64, f64)> = run.iter().map(|s| (s.t, s.theta)).collect();
    let cart: Vec<(f64, f64)> = run.iter().map(|s| (s.t, s.xc)).collect();
    let force: Vec<(f64, f64)> = run.iter().map(|s| (s.t, s.u / 10.0)).collect();
    std::fs::create_dir_all("examples/out")?;
    plot::lines(
        "examples/out/cartpole.svg",
        "cart-pole, sampled LQR (Tc = 20 ms), from a 0.25 rad lean",
        ("t", plot::Axis::Linear),
        (
            "lean θ (rad), cart xc (m), force u / 10 (N)",
            plot::Axis::Linear,
        ),
        &[
            ("lean θ", &angle, RED),
            ("cart xc", &cart, BLUE),
            ("force u / 10", &force, GREEN),
        ],
    )?;
    println!("wrote examples/out/cartpole.svg");
    let last = run.last().ok_or("no samples")?;
    let worst = run.iter().fold(0.0f64, |m, s| m.max(s.residual));
    println!(
        "after {:.2} s: lean {:.2e} rad, cart {:.2e} m; largest constraint residual {worst:.1e}",
        last.t + TC,
        last.theta,
        last.xc
    );
    if last.theta.abs() > 1e-3 || last.xc.abs() > 1e-2 || worst > 1e-12 {
        return Err("the cart-pole was not stabilized upright on its constraint".into());
    }
    Ok(())
}
