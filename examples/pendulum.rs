//! The main example: a Cartesian pendulum integrated with (2,2)-Gauss-Lobatto SPARK.
//!
//! Prints t, q, the energy error and the constraint residuals, and writes the energy error of
//! S = 1 and S = 2 over 10⁴ steps of h = 0.1 to `examples/out/pendulum_energy.svg`.
//!
//! `cargo run --release --example pendulum`

use plotters::style::{BLUE, RED};
use spark::{GaussLobatto, Integrator, Method, State};

include!("models/plot.rs");

include!("models/pendulum.rs");

/// Energy error `E(t) − E(0)` every step of a run of `steps` steps of size `h`.
fn energy_error<Meth: Method>(h: f64, steps: usize) -> Result<Vec<(f64, f64)>, spark::Error> {
    let sys = Pendulum {
        m: 1.0,
        l: 1.0,
        g: 1.0,
    };
    let mut sim = Integrator::<Pendulum, Meth>::new(sys, h)?;
    let mut s = State::new(0.0, [1.0, 0.0], [0.0, 0.0]);
    let e0 = sim.energy(&s);
    let mut out = Vec::with_capacity(steps);
    for _ in 0..steps {
        sim.step(&mut s)?;
        out.push((s.t, sim.energy(&s) - e0));
    }
    Ok(out)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // A short run, printed.
    let sys = Pendulum {
        m: 1.0,
        l: 1.0,
        g: 1.0,
    };
    let mut sim = Integrator::<Pendulum, GaussLobatto<2>>::new(sys, 0.01)?;
    let mut s = State::new(0.0, [1.0, 0.0], [0.0, 0.0]);
    sim.project(&mut s)?;
    let e0 = sim.energy(&s);
    println!(
        "{:>6} {:>12} {:>12} {:>12} {:>10} {:>10}",
        "t", "x", "y", "E - E0", "|g|", "|G v|"
    );
    for k in 0..=1000 {
        if k % 100 == 0 {
            let (g, gv) = sim.constraint_residual(&s);
            println!(
                "{:>6.2} {:>12.8} {:>12.8} {:>12.3e} {:>10.1e} {:>10.1e}",
                s.t,
                s.q[0],
                s.q[1],
                sim.energy(&s) - e0,
                g,
                gv
            );
        }
        if k < 1000 {
            sim.step(&mut s)?;
        }
    }

    // A long run for the plot: 10⁴ steps of h = 0.1.
    let s1 = energy_error::<GaussLobatto<1>>(0.1, 10_000)?;
    let s2 = energy_error::<GaussLobatto<2>>(0.1, 10_000)?;
    let max = |d: &[(f64, f64)]| d.iter().fold(0.0f64, |m, p| m.max(p.1.abs()));
    println!(
        "h = 0.1 over t = 1000: max |E - E0| = {:.3e} (S = 1), {:.3e} (S = 2)",
        max(&s1),
        max(&s2)
    );
    std::fs::create_dir_all("examples/out")?;
    let path = "examples/out/pendulum_energy.svg";
    let abs = |d: &[(f64, f64)]| d.iter().map(|p| (p.0, p.1.abs())).collect::<Vec<_>>();
    plot::lines(
        path,
        "Pendulum, h = 0.1: energy error |E(t) - E(0)|",
        ("t", plot::Axis::Linear),
        ("|E - E0|", plot::Axis::Log),
        &[("S = 1", &abs(&s1), RED), ("S = 2", &abs(&s2), BLUE)],
    )?;
    println!("wrote {path}");
    Ok(())
}
