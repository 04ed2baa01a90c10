//! Jay (2007) figures 6.1 and 6.2: global errors in y and z at t = 1 for test problem (6.1) with
//! (s,s)-Gauss-Lobatto SPARK, s = 1, 2, 3, against the exact solution; prints the table with the
//! observed orders and writes the log-log convergence plot.
//!
//! `cargo run --release --example problem61` (writes examples/out/problem61.svg)

include!("models/problem61.rs");
include!("models/plot.rs");

use plotters::style::{BLUE, GREEN, RED};
use spark::{dae, GaussLobatto, Integrator, Method, Options};

fn errors<Meth: Method>(h: f64) -> Result<(f64, f64, f64), spark::Error> {
    // A tight Newton tolerance, so that the table shows the method's error down to 1e-12.
    let options = Options {
        tolerance: 1e-14,
        ..Options::default()
    };
    let mut sim = Integrator::<Problem61, Meth>::new(Problem61 {}, h)?.with_options(options);
    let mut s = dae::State::new(0.0, [1.0, 1.0], [1.0, 1.0], [1.0]);
    for _ in 0..(1.0 / h).round() as usize {
        sim.step(&mut s)?;
    }
    let (a, b) = (2f64.exp(), (-1f64).exp());
    let ey = ((s.y[0] - a).powi(2) + (s.y[1] - b).powi(2)).sqrt();
    let ez = ((s.z[0] - a).powi(2) + (s.z[1] - b).powi(2)).sqrt();
    Ok((ey, ez, (s.lambda[0] - 1f64.exp()).abs()))
}

fn table<Meth: Method>(steps: &[usize]) -> Result<Vec<(f64, f64, f64)>, spark::Error> {
    println!("s = {}:", Meth::ORDER / 2);
    println!(
        "  {:>6} {:>12} {:>6} {:>12} {:>6} {:>12}",
        "1/h", "err y", "order", "err z", "order", "|Λ - λ(1)|"
    );
    let mut out: Vec<(f64, f64, f64)> = Vec::new();
    for &n in steps {
        let h = 1.0 / n as f64;
        let (ey, ez, el) = errors::<Meth>(h)?;
        let order = |prev: Option<f64>, e: f64| {
            prev.map_or(String::new(), |p| format!("{:.2}", (p / e).log2()))
        };
        let prev = out.last().copied();
        println!(
            "  {:>6} {:>12.3e} {:>6} {:>12.3e} {:>6} {:>12.1e}",
            n,
            ey,
            order(prev.map(|p| p.1), ey),
            ez,
            order(prev.map(|p| p.2), ez),
            el
        );
        out.push((h, ey, ez));
    }
    Ok(out)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let t1 = table::<GaussLobatto<1>>(&[10, 20, 40, 80, 160])?;
    let t2 = table::<GaussLobatto<2>>(&[5, 10, 20, 40, 80, 160])?;
    let t3 = table::<GaussLobatto<3>>(&[5, 10, 20, 40])?;
    let pick = |t: &[(f64, f64, f64)], z: bool| {
        t.iter()
            .map(|p| (p.0, if z { p.2 } else { p.1 }))
            .collect::<Vec<_>>()
    };
    std::fs::create_dir_all("examples/out")?;
    for (z, path) in [
        (false, "examples/out/problem61_y.svg"),
        (true, "examples/out/problem61_z.svg"),
    ] {
        let label = if z {
            "global error in z at t = 1"
        } else {
            "global error in y at t = 1"
        };
        plot::lines(
            path,
            &format!("Test problem (6.1): {label}"),
            ("h", plot::Axis::Log),
            ("error", plot::Axis::Log),
            &[
                ("s = 1", &pick(&t1, z), RED),
                ("s = 2", &pick(&t2, z), BLUE),
                ("s = 3", &pick(&t3, z), GREEN),
            ],
        )?;
        println!("wrote {path}");
    }
    Ok(())
}
