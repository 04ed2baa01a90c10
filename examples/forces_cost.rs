//! What generalized forces cost: Newton iterations and time per step of the pendulum with and
//! without a Rayleigh dissipation, and how the damping's strength slows the simplified Newton
//! iteration, whose block-structured matrix leaves out `h ∂Q/∂v` (as it leaves out `h L_vq` and
//! `h² ∂f/∂q`).
//!
//! `cargo run --release --example forces_cost`

use std::time::Instant;

use spark::{GaussLobatto, Integrator, Method, State};

spark::mechanics! {
    /// The conservative pendulum.
    struct Pendulum {
        coordinates: [x, y],
        velocities: [vx, vy],
        parameters: [g = 9.81],
        lagrangian: 0.5 * (vx.powi(2) + vy.powi(2)) - g * y,
        holonomic: [x.powi(2) + y.powi(2) - 1.0],
    }
}

spark::mechanics! {
    /// The same pendulum with the dissipation `c |v|² / 2` and a force input on `x`.
    struct Damped {
        coordinates: [x, y],
        velocities: [vx, vy],
        parameters: [g = 9.81, c = 0.3],
        inputs: [u],
        lagrangian: 0.5 * (vx.powi(2) + vy.powi(2)) - g * y,
        forces: [u, 0.0],
        dissipation: 0.5 * c * (vx.powi(2) + vy.powi(2)),
        holonomic: [x.powi(2) + y.powi(2) - 1.0],
    }
}

/// Mean Newton iterations (stage, end point) per step and the best µs per step of five runs
/// of `steps` steps from 1 rad at rest.
fn measure<Sys, Meth>(sys: Sys, h: f64, steps: usize) -> Result<(f64, f64, f64), spark::Error>
where
    Sys: spark::Lagrangian<2, 1> + Copy,
    Meth: Method,
{
    let mut best = f64::INFINITY;
    let (mut stage, mut end) = (0u64, 0u64);
    for _ in 0..5 {
        let mut sim = Integrator::<Sys, Meth>::new(sys, h)?;
        let mut s = State::new(0.0, [1f64.sin(), -1f64.cos()], [0.0, 0.0]);
        let (mut st, mut en) = (0u64, 0u64);
        let t0 = Instant::now();
        for _ in 0..steps {
            sim.step(&mut s)?;
            let stats = sim.last_step_stats();
            st += u64::from(stats.stage_iterations);
            en += u64::from(stats.end_iterations);
        }
        best = best.min(t0.elapsed().as_secs_f64() * 1e6 / steps as f64);
        std::hint::black_box(&s);
        (stage, end) = (st, en);
    }
    let n = steps as f64;
    Ok((stage as f64 / n, end as f64 / n, best))
}

fn main() -> Result<(), spark::Error> {
    let (h, steps) = (0.01, 20_000);
    println!("GaussLobatto<2>, h = {h}, {steps} steps from 1 rad at rest (best of 5 runs)");
    println!(
        "{:<28} {:>16} {:>14} {:>10}",
        "model", "stage its/step", "end its/step", "µs/step"
    );
    let (st, en, us) = measure::<Pendulum, GaussLobatto<2>>(Pendulum::default(), h, steps)?;
    println!(
        "{:<28} {st:>16.3} {en:>14.3} {us:>10.3}",
        "conservative (no forces)"
    );
    for c in [0.0, 0.3, 3.0, 30.0, 300.0] {
        let sys = Damped { g: 9.81, c, u: 0.0 };
        let (st, en, us) = measure::<Damped, GaussLobatto<2>>(sys, h, steps)?;
        println!(
            "{:<28} {st:>16.3} {en:>14.3} {us:>10.3}",
            format!("dissipation c = {c}")
        );
    }
    Ok(())
}
