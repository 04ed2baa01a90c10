//! The Panda arm of `example-robot-data` 6.0.0 (its URDF vendored in `tests/models/panda/`, the
//! hand's fingers removed), read at compile time, under a joint-space PD controller with gravity
//! compensation: `τ = g(q) + Kp (q* − q) − Kd v`, each torque clipped to the joint's effort limit
//! from the URDF (`Panda::EFFORT_LIMITS`). The gravity torques `g(q) = ∂V/∂q` come from the
//! model's own potential energy (`Integrator::energy` at rest) by central differences. Prints the
//! joint error over time and the largest torque against its limit, and draws the joint angles
//! to `examples/out/panda_pd.svg`.
//!
//! `cargo run --release -p spark-examples --example panda_pd`

use spark::nalgebra::SVector;
use spark::{Dimensions, GaussLobatto, Integrator, State};

include!("models/plot.rs");

spark::mechanics! {
    /// The Panda arm, a torque input per joint (`actuated: all`).
    pub struct Panda {
        urdf: "../tests/models/panda/panda.urdf",
        actuated: all,
    }
}

/// Joints.
const N: usize = 7;

/// `g(q) = ∂V/∂q` by central differences of the potential energy (the energy at rest).
fn gravity(sim: &Integrator<Panda, GaussLobatto<2>>, q: &[f64; N]) -> [f64; N] {
    let d = 1e-6;
    let mut g = [0.0; N];
    for (i, gi) in g.iter_mut().enumerate() {
        let (mut up, mut down) = (*q, *q);
        up[i] += d;
        down[i] -= d;
        let v = |q: [f64; N]| sim.energy(&State::new(0.0, q, [0.0; N]));
        *gi = (v(up) - v(down)) / (2.0 * d);
    }
    g
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let h = 1e-3;
    let mut sim = Integrator::<Panda, GaussLobatto<2>>::new(Panda::default(), h)?;
    let limits = Panda::EFFORT_LIMITS.map(|l| l.unwrap_or(f64::INFINITY));
    // From the home pose to a reach forward and down.
    let start = [0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785];
    let target = [0.6, -0.2, -0.3, -1.8, 0.2, 1.9, 0.4];
    let (kp, kd) = (
        [600.0, 600.0, 600.0, 600.0, 250.0, 150.0, 50.0],
        [50.0, 50.0, 50.0, 50.0, 20.0, 20.0, 10.0],
    );
    let mut s = State::new(0.0, start, [0.0; N]);
    let mut worst_ratio = 0.0f64;
    let mut clipped = 0usize;
    let mut angles: Vec<Vec<(f64, f64)>> = vec![Vec::new(); N];
    println!("     t   max |q* − q| (rad)   max |v| (rad/s)");
    for n in 0..=4000 {
        let q: [f64; N] = s.q.into();
        let g = gravity(&sim, &q);
        let mut tau = [0.0; N];
        for i in 0..N {
            let raw = g[i] + kp[i] * (target[i] - q[i]) - kd[i] * s.v[i];
            tau[i] = raw.clamp(-limits[i], limits[i]);
            clipped += usize::from(tau[i] != raw);
            worst_ratio = worst_ratio.max(tau[i].abs() / limits[i]);
        }
        if n % 20 == 0 {
            for (i, a) in angles.iter_mut().enumerate() {
                a.push((s.t, q[i]));
            }
        }
        if n % 500 == 0 {
            let err = (0..N).fold(0.0f64, |m, i| m.max((target[i] - q[i]).abs()));
            println!("{:6.2}   {:18.3e}   {:15.3e}", s.t, err, s.v.amax());
        }
        if n == 4000 {
            break;
        }
        sim.system_mut().set_inputs(&SVector::from(tau));
        sim.step(&mut s)
            .map_err(|e| format!("step failed at t = {}: {e}", s.t))?;
    }
    let err = (0..N).fold(0.0f64, |m, i| m.max((target[i] - s.q[i]).abs()));
    println!(
        "after {:.1} s: joint error {err:.3e} rad; largest torque {:.0} % of its effort limit, \
         {clipped} joint-steps clipped to it",
        s.t,
        100.0 * worst_ratio
    );
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/out");
    std::fs::create_dir_all(dir)?;
    let colors = [
        plotters::style::RGBColor(31, 119, 180),
        plotters::style::RGBColor(255, 127, 14),
        plotters::style::RGBColor(44, 160, 44),
        plotters::style::RGBColor(214, 39, 40),
        plotters::style::RGBColor(148, 103, 189),
        plotters::style::RGBColor(140, 86, 75),
        plotters::style::RGBColor(227, 119, 194),
    ];
    let names: Vec<String> = Panda::COORDINATE_NAMES
        .iter()
        .map(|n| n.to_string())
        .collect();
    let series: Vec<_> = (0..N)
        .map(|i| (names[i].as_str(), angles[i].as_slice(), colors[i]))
        .collect();
    plot::lines(
        &format!("{dir}/panda_pd.svg"),
        "Panda from its URDF under joint-space PD + gravity compensation",
        ("t (s)", plot::Axis::Linear),
        ("joint angle (rad)", plot::Axis::Linear),
        &series,
    )?;
    Ok(())
}
