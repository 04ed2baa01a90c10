//! Jay's Lagrange-d'Alembert SPARK paper, §8.2 / figure 8.2: the skate (knife edge) on an
//! inclined plane, L = ½m(v1² + v2²) + ½Iv3² + m g q1 sin β, k = cos(q3) v2 − sin(q3) v1, with
//! m = I = g = 1, β = π/2, q0 = (0, 0, 0), v0 = (0, 0, 1) (guide-papers E5).
//!
//! Prints
//! 1. the energy error of the s-stage Lobatto IIIA-B SPARK methods, s = 2, 3, 4, with h = 0.1
//!    on [0, 100] (figure 8.2; written to examples/out/lda_skate_energy.svg), with max |E − E0|
//!    and max |k| after any step;
//! 2. the convergence table of every method of 004 §7 against the closed form
//!    q3 = t, q1 = ½ sin²t, q2 = ½(t − ½ sin 2t), v = (sin t cos t, sin²t, 1) at T = 2:
//!    error max(‖q − q_exact‖₂, ‖v − v_exact‖₂) and observed orders.
//!
//! `cargo run --release --example lda_skate`

include!("models/plot.rs");
include!("models/inclined_skate.rs");

use plotters::style::{BLUE, GREEN, RED};
use spark::{
    GaussLobatto, Integrator, LobattoIIIAB, LobattoIIIABD, Method, SymplecticEulerI,
    SymplecticEulerII,
};

/// `(t, E − E0)` after every step and the largest |k| seen.
fn energy<Meth: Method>(h: f64, t_end: f64) -> Result<(Vec<(f64, f64)>, f64), spark::Error> {
    let mut sim = Integrator::<Skate, Meth>::new(Skate::default(), h)?;
    let mut s = inclined_skate_start();
    let e0 = sim.energy(&s);
    let mut out = vec![(0.0, 0.0)];
    let mut k = 0.0f64;
    for _ in 0..(t_end / h).round() as usize {
        sim.step(&mut s)?;
        out.push((s.t, sim.energy(&s) - e0));
        k = k.max(sim.constraint_residual(&s).1);
    }
    Ok((out, k))
}

fn error<Meth: Method>(h: f64, t_end: f64) -> Result<f64, spark::Error> {
    let mut sim = Integrator::<Skate, Meth>::new(Skate::default(), h)?;
    let mut s = inclined_skate_start();
    for _ in 0..(t_end / h).round() as usize {
        sim.step(&mut s)?;
    }
    let exact = inclined_skate_exact(t_end);
    Ok((s.q - exact.q).norm().max((s.v - exact.v).norm()))
}

fn row<Meth: Method>(name: &str, hs: &[f64]) -> Result<(), spark::Error> {
    let errs = hs
        .iter()
        .map(|&h| error::<Meth>(h, 2.0))
        .collect::<Result<Vec<_>, _>>()?;
    print!("{name:<16} {:>2} ", Meth::ORDER);
    for (i, e) in errs.iter().enumerate() {
        if i == 0 {
            print!(" {e:>9.2e}       ");
        } else {
            print!(" {e:>9.2e} ({:>4.2})", (errs[i - 1] / e).ln() / 2f64.ln());
        }
    }
    println!();
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("1. energy error, Lobatto IIIA-B SPARK, h = 0.1, t in [0, 100] (004 fig. 8.2)");
    let (e2, k2) = energy::<LobattoIIIAB<2>>(0.1, 100.0)?;
    let (e3, k3) = energy::<LobattoIIIAB<3>>(0.1, 100.0)?;
    let (e4, k4) = energy::<LobattoIIIAB<4>>(0.1, 100.0)?;
    for (s, e, k) in [(2, &e2, k2), (3, &e3, k3), (4, &e4, k4)] {
        let (max, _, last) = plot::tenths(e);
        println!(
            "   s = {s}: max |E - E0| = {max:.3e} (last 10% of the run: {last:.3e}), max |k| = {k:.1e}"
        );
    }
    std::fs::create_dir_all("examples/out")?;
    let path = "examples/out/lda_skate_energy.svg";
    let scaled = |e: &[(f64, f64)], f: f64| e.iter().map(|p| (p.0, p.1 * f)).collect::<Vec<_>>();
    let (s3, s4) = (scaled(&e3, 1e3), scaled(&e4, 1e7));
    plot::lines(
        path,
        "Skate (004 fig. 8.2), Lobatto IIIA-B SPARK, h = 0.1: E - E0",
        ("t", plot::Axis::Linear),
        ("E - E0 (s=3: x1e3, s=4: x1e7)", plot::Axis::Linear),
        &[
            ("s = 2", &e2, RED),
            ("s = 3 (x 1e3)", &s3, BLUE),
            ("s = 4 (x 1e7)", &s4, GREEN),
        ],
    )?;
    println!("   wrote {path}");

    let hs = [0.2, 0.1, 0.05, 0.025];
    println!("\n2. error at T = 2 against the closed form (observed order in parentheses)");
    println!(
        "{:<16} {:>2}   {:>9}        {:>9}        {:>9}        {:>9}",
        "method", "p", "h=0.2", "h=0.1", "h=0.05", "h=0.025"
    );
    row::<SymplecticEulerI>("SE-I", &hs)?;
    row::<SymplecticEulerII>("SE-II", &hs)?;
    row::<GaussLobatto<1>>("Gauss s=1", &hs)?;
    row::<GaussLobatto<2>>("Gauss s=2", &hs)?;
    row::<GaussLobatto<3>>("Gauss s=3", &hs)?;
    row::<LobattoIIIAB<2>>("IIIA-B s=2", &hs)?;
    row::<LobattoIIIAB<3>>("IIIA-B s=3", &hs)?;
    row::<LobattoIIIAB<4>>("IIIA-B s=4", &hs)?;
    row::<LobattoIIIABD<2>>("IIIA-B-D s=2", &hs)?;
    row::<LobattoIIIABD<3>>("IIIA-B-D s=3", &hs)?;
    row::<LobattoIIIABD<4>>("IIIA-B-D s=4", &hs)?;
    Ok(())
}
