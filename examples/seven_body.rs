//! Andrews' squeezing mechanism (thesis §8.3.4): integrates to t = 0.03 with (2,2)- and
//! (3,3)-Gauss-Lobatto SPARK and prints q beside the IVP test set's reference.
//!
//! `cargo run --release --example seven_body`

include!("models/seven_body.rs");

use spark::{GaussLobatto, Integrator, Method, State};

fn run<Meth: Method>(h: f64) -> Result<State<7>, spark::Error> {
    let mut sim = Integrator::<SevenBody, Meth>::new(SevenBody::default(), h)?;
    let mut s = State::new(0.0, Q0, [0.0; 7]);
    let steps = (0.03 / h).round() as usize;
    let mut worst = (0.0f64, 0.0f64);
    for _ in 0..steps {
        sim.step(&mut s)?;
        let (g, gv) = sim.constraint_residual(&s);
        worst = (worst.0.max(g), worst.1.max(gv));
    }
    println!(
        "  h = {h:.1e}: max |g| = {:.1e}, max |G v| = {:.1e} over {steps} steps, energy {:.6e}",
        worst.0,
        worst.1,
        sim.energy(&s)
    );
    Ok(s)
}

fn main() -> Result<(), spark::Error> {
    let names = SevenBody::COORDINATE_NAMES;
    for (label, s) in [
        ("GaussLobatto<2>, h = 1e-5", run::<GaussLobatto<2>>(1e-5)?),
        ("GaussLobatto<3>, h = 1e-4", run::<GaussLobatto<3>>(1e-4)?),
    ] {
        println!("{label}: q(0.03)");
        for i in 0..7 {
            println!(
                "  {:>8} = {:>22.15e}   reference {:>22.15e}   error {:.1e}",
                names[i],
                s.q[i],
                Q_REF[i],
                (s.q[i] - Q_REF[i]).abs()
            );
        }
    }
    Ok(())
}
