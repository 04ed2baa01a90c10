//! Jay (2007) figure 6.3: the Hamiltonian error of the charged particle on a sphere (6.2) with
//! (1,1)- and (2,2)-Gauss-Lobatto SPARK at h = 0.12 over t ∈ [0, 2400].
//!
//! `cargo run --release --example charged_particle` (writes examples/out/charged_particle.svg)

include!("models/charged_particle.rs");
include!("models/plot.rs");

use plotters::style::{BLUE, RED};
use spark::{hamiltonian, GaussLobatto, Integrator, Method};

fn run<Meth: Method>(steps: usize) -> Result<Vec<(f64, f64)>, spark::Error> {
    let mut sim = Integrator::<ChargedParticle, Meth>::new(ChargedParticle::default(), 0.12)?;
    let mut s = hamiltonian::State::new(0.0, q0(), P0);
    let h0 = sim.energy(&s);
    let mut out = Vec::with_capacity(steps);
    let mut worst = (0.0f64, 0.0f64);
    for _ in 0..steps {
        sim.step(&mut s)?;
        let (g, w) = sim.constraint_residual(&s);
        worst = (worst.0.max(g), worst.1.max(w));
        out.push((s.t, sim.energy(&s) - h0));
    }
    let max = out.iter().fold(0.0f64, |m, p| m.max(p.1.abs()));
    let mean = out.iter().map(|p| p.1).sum::<f64>() / out.len() as f64;
    println!(
        "S = {}: H0 = {h0:.15}, max |H - H0| = {max:.3e}, mean H - H0 = {mean:.2e}, max |g| = {:.1e}, max |g_q H_p| = {:.1e}",
        Meth::ORDER / 2,
        worst.0,
        worst.1
    );
    Ok(out)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let steps = 20_000;
    let s1 = run::<GaussLobatto<1>>(steps)?;
    let s2 = run::<GaussLobatto<2>>(steps)?;
    // Plot every 10th point to keep the file small.
    let thin = |d: &[(f64, f64)]| d.iter().step_by(10).copied().collect::<Vec<_>>();
    let (t1, t2) = (thin(&s1), thin(&s2));
    std::fs::create_dir_all("examples/out")?;
    let path = "examples/out/charged_particle.svg";
    plot::lines(
        path,
        "Charged particle on a sphere, h = 0.12: H - H0",
        ("t", plot::Axis::Linear),
        ("H - H0", plot::Axis::Linear),
        &[
            ("S = 1", &t1, RED),
            (
                "S = 2 (x100)",
                &t2.iter().map(|p| (p.0, 100.0 * p.1)).collect::<Vec<_>>(),
                BLUE,
            ),
        ],
    )?;
    println!("wrote {path}");
    Ok(())
}
