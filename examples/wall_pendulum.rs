//! A pendulum that hits a wall: events with a state reset. The bob swings against a wall at
//! `x = 0.3`; a terminal event (`x − 0.3` rising) stops `simulate` exactly at the contact, the
//! velocity is reversed with a coefficient of restitution `e = 0.8` (it stays tangent to the
//! circle, so the state stays consistent), and the run continues. Each impact keeps the
//! potential energy and multiplies the kinetic energy by `e²`.
//!
//! Writes `examples/out/wall_pendulum.svg` (x(t) and the energy).
//!
//! `cargo run --release --example wall_pendulum`

include!("models/plot.rs");

use plotters::style::RGBColor;
use spark::simulate::{Direction, Event, Report};
use spark::{GaussLobatto, Integrator, Options, State};

include!("models/pendulum.rs");

const WALL: f64 = 0.3;
const RESTITUTION: f64 = 0.8;
const T_END: f64 = 12.0;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let o = Options {
        rtol: 1e-10,
        atol: 1e-10,
        ..Options::default()
    };
    let mut sim =
        Integrator::<Pendulum, GaussLobatto<2>>::new(Pendulum::default(), 0.01)?.with_options(o);
    // Released at rest 1.2 rad to the left of the bottom.
    let mut s = State::new(0.0, [-(1.2f64.sin()), -(1.2f64.cos())], [0.0, 0.0]);
    let contact = |s: &State<2>| s.q[0] - WALL;
    let events = [Event {
        function: &contact,
        direction: Direction::Rising,
        terminal: true,
    }];
    let outputs: Vec<f64> = (0..=1200).map(|k| T_END * k as f64 / 1200.0).collect();
    let (mut xs, mut energy) = (Vec::new(), Vec::new());
    let mut impacts = 0;
    while s.t < T_END {
        let stats = sim.simulate(&mut s, T_END, &outputs, &events, |r| {
            if let Report::Output(x) = r {
                xs.push((x.t, x.q[0]));
                energy.push((x.t, sim_energy(x)));
            }
        })?;
        if stats.event.is_none() {
            break;
        }
        impacts += 1;
        let before = sim.energy(&s);
        s.v *= -RESTITUTION;
        let after = sim.energy(&s);
        let potential = 9.81 * s.q[1];
        println!(
            "impact {impacts} at t = {:.12}: |x − wall| = {:.1e}, kinetic energy {:.6} -> {:.6} (ratio {:.12})",
            s.t,
            (s.q[0] - WALL).abs(),
            before - potential,
            after - potential,
            (after - potential) / (before - potential)
        );
    }
    std::fs::create_dir_all("examples/out")?;
    let path = "examples/out/wall_pendulum.svg";
    plot::lines(
        path,
        "Pendulum against a wall at x = 0.3, restitution 0.8: x(t) and energy/10",
        ("t", plot::Axis::Linear),
        ("x, E/10", plot::Axis::Linear),
        &[
            ("x", &xs, RGBColor(0, 90, 181)),
            (
                "energy / 10",
                &energy
                    .iter()
                    .map(|&(t, e)| (t, e / 10.0))
                    .collect::<Vec<_>>(),
                RGBColor(200, 60, 20),
            ),
        ],
    )?;
    println!("wrote {path}");
    Ok(())
}

/// The pendulum's energy `|v|²/2 + g y`.
fn sim_energy(s: &State<2>) -> f64 {
    0.5 * s.v.norm_squared() + 9.81 * s.q[1]
}
