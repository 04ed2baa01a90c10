//! The parallelogram four-bar driven through its change point (θ1 = 0, where crank, coupler and
//! rocker line up and the constraint Jacobian loses rank). There the step equations have a
//! solution on each branch of motion, close together. A step either continues the
//! parallelogram motion or, when the conditioning of its Newton matrices says rounding alone
//! could move it onto another branch, fails with `IllConditioned` (or `SingularJacobian`) and
//! leaves the state untouched; `advance_to` then retries with a smaller step and passes through.
//!
//! `cargo run --release --example four_bar`

include!("models/four_bar.rs");

use spark::{GaussLobatto, Integrator, Options, State};

/// Fixed steps of size `h` from θ1 = `a` to θ1 = −0.3; prints what happened.
fn fixed(a: f64, h: f64) {
    let mut sim = Integrator::<FourBar, GaussLobatto<2>>::new(FourBar::default(), h)
        .expect("valid step size");
    let mut s = State::new(0.0, [a, 0.0, a], [-1.0, 0.0, -1.0]);
    let e0 = sim.energy(&s);
    for _ in 0..((a + 0.3) / h).round() as usize {
        let before = s;
        if let Err(e) = sim.step(&mut s) {
            println!("    failed at θ1 = {:+.4} (state untouched): {e}", s.q[0]);
            return;
        }
        let de = (sim.energy(&s) - e0) / e0;
        if de.abs() > 1e-6 {
            println!(
                "    step from θ1 = {:+.4} jumped branch: coupler rate {:.3}, relative energy change {de:.2e}",
                before.q[0], s.v[1]
            );
            return;
        }
    }
    println!(
        "    reached θ1 = {:+.4} on the parallelogram branch",
        s.q[0]
    );
}

fn main() -> Result<(), spark::Error> {
    for (a, h) in [(0.5, 0.01), (0.5057, 0.01), (0.503, 0.001), (0.5033, 0.001)] {
        println!("fixed steps from θ1 = {a}, h = {h}:");
        fixed(a, h);
    }
    // Adaptive steps treat a failed step as a rejection and shrink the step.
    let o = Options {
        rtol: 1e-8,
        atol: 1e-8,
        ..Options::default()
    };
    let mut sim =
        Integrator::<FourBar, GaussLobatto<2>>::new(FourBar::default(), 0.01)?.with_options(o);
    let mut s = State::new(0.0, [0.5, 0.0, 0.5], [-1.0, 0.0, -1.0]);
    let e0 = sim.energy(&s);
    let stats = sim.advance_to(&mut s, 0.8)?;
    println!(
        "adaptive (rtol = atol = 1e-8) from θ1 = 0.5: θ1 = {:+.6} at t = 0.8, {} accepted, {} rejected, relative energy change {:.1e}",
        s.q[0],
        stats.accepted,
        stats.rejected,
        (sim.energy(&s) - e0) / e0
    );
    Ok(())
}
