//! A double pendulum in Cartesian coordinates, (3,3)-Gauss-Lobatto SPARK (order 6).
//!
//! Prints the positions, the energy error and the constraint residuals along a chaotic motion.
//!
//! `cargo run --release --example double_pendulum`

use spark::{GaussLobatto, Integrator, State};

include!("models/double_pendulum.rs");

fn main() -> Result<(), spark::Error> {
    let mut sim =
        Integrator::<DoublePendulum, GaussLobatto<3>>::new(DoublePendulum::default(), 0.005)?;
    // Both rods horizontal to the right, at rest: a strongly chaotic start.
    let mut s = State::new(0.0, [1.0, 0.0, 2.0, 0.0], [0.0; 4]);
    sim.project(&mut s)?;
    let e0 = sim.energy(&s);
    println!(
        "{:>6} {:>10} {:>10} {:>10} {:>10} {:>11} {:>9} {:>9}",
        "t", "x1", "y1", "x2", "y2", "E - E0", "|g|", "|G v|"
    );
    let mut worst = (0.0f64, 0.0f64, 0.0f64);
    for k in 0..=20_000 {
        let (g, gv) = sim.constraint_residual(&s);
        let de = sim.energy(&s) - e0;
        worst = (worst.0.max(de.abs()), worst.1.max(g), worst.2.max(gv));
        if k % 1000 == 0 {
            println!(
                "{:>6.1} {:>10.6} {:>10.6} {:>10.6} {:>10.6} {:>11.3e} {:>9.1e} {:>9.1e}",
                s.t, s.q[0], s.q[1], s.q[2], s.q[3], de, g, gv
            );
        }
        if k < 20_000 {
            sim.step(&mut s)?;
        }
    }
    println!(
        "over t = 100: max |E - E0| = {:.2e}, max |g| = {:.1e}, max |G v| = {:.1e}",
        worst.0, worst.1, worst.2
    );
    Ok(())
}
