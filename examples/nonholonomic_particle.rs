//! Figure 8.1 of Jay's Lagrange-d'Alembert SPARK paper (004 §8.1): the energy error of the
//! nonholonomic particle, L = ½|v|² − (q1² + q2²), k = v3 − q2 v1, q0 = (1, 0, 0),
//! v0 = (0, 1, 0), with the s-stage Gauss SPARK methods (here `GaussLobatto<S>`, the mixed
//! method of Small's thesis, Definition 5.2.1) for s = 1, 2, 3, h = 0.2 on t ∈ [0, 250].
//!
//! Prints max |E − E0| and max |k| per s (the implementation guide's independent prototype:
//! 6.64e-3, 2.70e-5, 1.61e-7) and writes examples/out/nonholonomic_particle.svg.
//!
//! `cargo run --release --example nonholonomic_particle`

include!("models/plot.rs");

use plotters::style::{BLUE, GREEN, RED};
use spark::{GaussLobatto, Integrator, Method, State};

include!("models/nonholonomic_particle.rs");

const H: f64 = 0.2;
const STEPS: usize = 1250; // t_end = 250

/// `(t, E(t) − E0)` after every step, and max |E − E0|, max |k|.
type Run = (Vec<(f64, f64)>, f64, f64);

fn run<Meth: Method>() -> Result<Run, spark::Error> {
    let mut sim = Integrator::<Particle, Meth>::new(Particle {}, H)?;
    let mut s = State::new(0.0, [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]);
    let e0 = sim.energy(&s); // 1.5
    let mut out = Vec::with_capacity(STEPS);
    let (mut worst_e, mut worst_k) = (0.0f64, 0.0f64);
    for _ in 0..STEPS {
        sim.step(&mut s)?;
        let de = sim.energy(&s) - e0;
        worst_e = worst_e.max(de.abs());
        // No holonomic constraints: the second residual is max |k|.
        worst_k = worst_k.max(sim.constraint_residual(&s).1);
        out.push((s.t, de));
    }
    println!(
        "s = {}: E0 = {e0}, max |E - E0| over [0, 250] = {worst_e:.3e}, max |k| = {worst_k:.1e}",
        Meth::ORDER / 2
    );
    Ok((out, worst_e, worst_k))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("nonholonomic particle, Gauss SPARK, h = {H}, t in [0, 250]");
    let (s1, ..) = run::<GaussLobatto<1>>()?;
    let (s2, ..) = run::<GaussLobatto<2>>()?;
    let (s3, ..) = run::<GaussLobatto<3>>()?;
    println!("(guide's prototype: 6.64e-3, 2.70e-5, 1.61e-7)");
    std::fs::create_dir_all("examples/out")?;
    let path = "examples/out/nonholonomic_particle.svg";
    let abs = |d: &[(f64, f64)]| d.iter().map(|p| (p.0, p.1.abs())).collect::<Vec<_>>();
    plot::lines(
        path,
        "Nonholonomic particle (004 fig. 8.1), h = 0.2: |E(t) - E(0)|",
        ("t", plot::Axis::Linear),
        ("|E - E0|", plot::Axis::Log),
        &[
            ("s = 1", &abs(&s1), RED),
            ("s = 2", &abs(&s2), BLUE),
            ("s = 3", &abs(&s3), GREEN),
        ],
    )?;
    println!("wrote {path}");
    Ok(())
}
