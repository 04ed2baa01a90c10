//! Jay's Lagrange-d'Alembert SPARK paper, §8.3 / figure 8.3: a mobile robot with fixed
//! orientation in a potential (guide-papers E6), T = ½m(v1² + v2²) + ½Iv3² + (3/2)I_ω v4²,
//! U = 10 sin q4, two nonholonomic constraints k1 = v1 − ℓ cos(q3) v4, k2 = v2 − ℓ sin(q3) v4,
//! m = I = I_ω = ℓ = 1, q0 = 0, v0 = (1, 0, 0, 1).
//!
//! Prints the energy error of the s-stage Lobatto IIIA-B-D SPARK methods, s = 2, 3, 4, with
//! h = 0.2 on [0, 150] (max |E − E0| overall and over the last 10% of the run, max |k|), and
//! writes it to examples/out/mobile_robot_energy.svg.
//!
//! `cargo run --release --example mobile_robot`

include!("models/plot.rs");

use plotters::style::{BLUE, GREEN, RED};
use spark::{Integrator, LobattoIIIABD, Method, State};

spark::mechanics! {
    /// 004 §8.3: mobile robot with fixed orientation.
    pub struct Robot {
        coordinates: [q1, q2, q3, q4],
        velocities: [v1, v2, v3, v4],
        parameters: [m = 1.0, inertia = 1.0, iw = 1.0, l = 1.0],
        lagrangian: 0.5 * m * (v1.powi(2) + v2.powi(2)) + 0.5 * inertia * v3.powi(2)
            + 1.5 * iw * v4.powi(2) - 10.0 * q4.sin(),
        nonholonomic: [v1 - l * q3.cos() * v4, v2 - l * q3.sin() * v4],
    }
}

fn energy<Meth: Method>(h: f64, t_end: f64) -> Result<(Vec<(f64, f64)>, f64), spark::Error> {
    let mut sim = Integrator::<Robot, Meth>::new(Robot::default(), h)?;
    let mut s = State::new(0.0, [0.0; 4], [1.0, 0.0, 0.0, 1.0]);
    let e0 = sim.energy(&s);
    assert_eq!(e0, 2.0);
    let mut out = vec![(0.0, 0.0)];
    let mut k = 0.0f64;
    for _ in 0..(t_end / h).round() as usize {
        sim.step(&mut s)?;
        out.push((s.t, sim.energy(&s) - e0));
        k = k.max(sim.constraint_residual(&s).1);
    }
    Ok((out, k))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("mobile robot (004 fig. 8.3), Lobatto IIIA-B-D SPARK, h = 0.2, t in [0, 150], E0 = 2");
    let (e2, k2) = energy::<LobattoIIIABD<2>>(0.2, 150.0)?;
    let (e3, k3) = energy::<LobattoIIIABD<3>>(0.2, 150.0)?;
    let (e4, k4) = energy::<LobattoIIIABD<4>>(0.2, 150.0)?;
    for (s, e, k) in [(2, &e2, k2), (3, &e3, k3), (4, &e4, k4)] {
        let (max, _, last) = plot::tenths(e);
        println!(
            "   s = {s}: max |E - E0| = {max:.3e} (last 10% of the run: {last:.3e}), max |k| = {k:.1e}"
        );
    }
    std::fs::create_dir_all("examples/out")?;
    let path = "examples/out/mobile_robot_energy.svg";
    let scaled = |e: &[(f64, f64)], f: f64| e.iter().map(|p| (p.0, p.1 * f)).collect::<Vec<_>>();
    let (s3, s4) = (scaled(&e3, 1e2), scaled(&e4, 1e5));
    plot::lines(
        path,
        "Mobile robot (004 fig. 8.3), Lobatto IIIA-B-D SPARK, h = 0.2: E - E0",
        ("t", plot::Axis::Linear),
        ("E - E0 (s=3: x1e2, s=4: x1e5)", plot::Axis::Linear),
        &[
            ("s = 2", &e2, RED),
            ("s = 3 (x 1e2)", &s3, BLUE),
            ("s = 4 (x 1e5)", &s4, GREEN),
        ],
    )?;
    println!("   wrote {path}");
    Ok(())
}
