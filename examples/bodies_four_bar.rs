//! A four-bar linkage written with `bodies` and `joints` (`examples/models/bodies_four_bar.rs`):
//! the crank is given a spin and the linkage runs for 20 s under gravity. Prints the loop gap
//! (from the geometry, not from the model) and the energy error, and draws the path of a
//! coupler point to `examples/out/bodies_four_bar.svg`.
//!
//! `cargo run --release -p spark-examples --example bodies_four_bar`

include!("models/plot.rs");
include!("models/bodies_four_bar.rs");

use plotters::style::{BLUE, RED};
use spark::{GaussLobatto, Integrator, State};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let h = 0.01;
    let mut sim = Integrator::<FourBar, GaussLobatto<2>>::new(FourBar::default(), h)?;
    let mut s = State::new(0.0, four_bar_assembled(0.5), [3.0, 0.0, 0.0]);
    sim.project(&mut s)?;
    println!(
        "four-bar from bodies and joints: coordinates {:?}, {} holonomic constraints, input {:?}",
        FourBar::COORDINATE_NAMES,
        FourBar::HOLONOMIC_CONSTRAINTS,
        FourBar::INPUT_NAMES
    );
    let e0 = sim.energy(&s);
    let (mut gap, mut drift) = (0.0f64, 0.0f64);
    let mut path = Vec::new();
    let mut tip = Vec::new();
    for k in 0..2000 {
        sim.step(&mut s)?;
        gap = gap.max(four_bar_gap(s.q.as_slice()));
        drift = drift.max((sim.energy(&s) - e0).abs());
        let p = coupler_point(s.q.as_slice(), 1.5, 0.8);
        path.push((p[0], p[1]));
        let t = coupler_point(s.q.as_slice(), 0.0, 0.0);
        tip.push((t[0], t[1]));
        if k % 400 == 399 {
            println!(
                "t = {:5.2} s: crank {:+8.3} rad, loop gap {:.1e} m, |E - E0| {:.1e} J",
                s.t,
                s.q[0],
                four_bar_gap(s.q.as_slice()),
                (sim.energy(&s) - e0).abs()
            );
        }
    }
    println!(
        "over 20 s: largest loop gap {gap:.1e} m, largest energy error {drift:.1e} J of {e0:.3} J"
    );
    std::fs::create_dir_all("examples/out")?;
    let out = "examples/out/bodies_four_bar.svg";
    plot::lines(
        out,
        "Four-bar from bodies and joints: coupler point path (20 s)",
        ("x [m]", plot::Axis::Linear),
        ("z [m]", plot::Axis::Linear),
        &[
            ("coupler point (1.5, 0.8)", &path, BLUE),
            ("crank tip", &tip, RED),
        ],
    )?;
    println!("wrote {out}");
    Ok(())
}
