//! Energy over a long run of a pendulum close to its separatrix (it passes the bottom with
//! 99.9 % of the speed that reaches the top: slow near the top, fast at the bottom), with the
//! same method, `GaussLobatto<2>`, and three ways of choosing the steps:
//!
//! * adaptive steps with error control (`advance_to`, PI controller): the energy drifts;
//! * reversible steps (`step_reversible`, Hairer–Söderlind control on arc length): the energy
//!   error stays bounded, like a fixed step's, while the steps vary by a factor of ~30;
//! * a fixed step with the same number of steps as the reversible run.
//!
//! Writes `examples/out/reversible_energy.svg`.
//!
//! `cargo run --release --example reversible_pendulum`

include!("models/plot.rs");

use plotters::style::RGBColor;
use spark::simulate::Reversible;
use spark::{GaussLobatto, Integrator, Options, State};

include!("models/pendulum.rs");

const T_END: f64 = 1000.0;
const SAMPLES: usize = 400;

fn start() -> State<2> {
    State::new(0.0, [0.0, -1.0], [0.999 * 2.0 * 9.81f64.sqrt(), 0.0])
}

type Sim = Integrator<Pendulum, GaussLobatto<2>>;

/// |E − E0| / |E0| at SAMPLES times, for a run that advances with `advance(sim, state, t)`.
fn energy_curve(
    sim: &mut Sim,
    mut advance: impl FnMut(&mut Sim, &mut State<2>, f64) -> Result<(), spark::Error>,
) -> Result<Vec<(f64, f64)>, spark::Error> {
    let mut s = start();
    let e0 = sim.energy(&s);
    let mut curve = Vec::with_capacity(SAMPLES);
    for k in 1..=SAMPLES {
        let t = T_END * k as f64 / SAMPLES as f64;
        advance(sim, &mut s, t)?;
        curve.push((s.t, ((sim.energy(&s) - e0) / e0).abs()));
    }
    Ok(curve)
}

/// Largest value over the first and the last tenth of a curve.
fn ends(curve: &[(f64, f64)]) -> (f64, f64) {
    let n = curve.len() / 10;
    let max = |c: &[(f64, f64)]| c.iter().fold(0.0f64, |m, p| m.max(p.1));
    (max(&curve[..n]), max(&curve[curve.len() - n..]))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Error-controlled adaptive steps.
    let o = Options {
        rtol: 1e-6,
        atol: 1e-6,
        ..Options::default()
    };
    let mut sim = Sim::new(Pendulum::default(), 0.01)?.with_options(o);
    let mut adaptive_steps = 0u32;
    let adaptive = energy_curve(&mut sim, |sim, s, t| {
        adaptive_steps += sim.advance_to(s, t)?.accepted;
        Ok(())
    })?;

    // Reversible steps: stop at the first step past each sample time (the control has no
    // notion of end times; the sample is taken where the step lands).
    let mut sim = Sim::new(Pendulum::default(), 0.01)?;
    let mut control = Reversible::new(0.06, 0.3);
    let (mut reversible_steps, mut shortest, mut longest) = (0u32, f64::INFINITY, 0.0f64);
    let reversible = energy_curve(&mut sim, |sim, s, t| {
        while s.t < t {
            let h = sim.step_reversible(s, &mut control)?;
            reversible_steps += 1;
            shortest = shortest.min(h);
            longest = longest.max(h);
        }
        Ok(())
    })?;

    // A fixed step with the reversible run's number of steps.
    let h = T_END / f64::from(reversible_steps);
    let mut sim = Sim::new(Pendulum::default(), h)?;
    let fixed = energy_curve(&mut sim, |sim, s, t| {
        while s.t < t - 0.5 * h {
            sim.step(s)?;
        }
        Ok(())
    })?;

    println!("pendulum near its separatrix, GaussLobatto<2>, t in [0, {T_END}]");
    println!("relative energy error, max over the first and the last tenth of the run:");
    for (name, steps, curve) in [
        (
            "adaptive (PI, rtol = atol = 1e-6)",
            f64::from(adaptive_steps) * 2.0,
            &adaptive,
        ),
        (
            "reversible (distance 0.06, min speed 0.3)",
            f64::from(reversible_steps),
            &reversible,
        ),
        ("fixed step", T_END / h, &fixed),
    ] {
        let (first, last) = ends(curve);
        println!("  {name:<42} {steps:>8.0} steps: {first:.2e} -> {last:.2e}");
    }
    println!(
        "  (adaptive counts its two half steps per accepted step; reversible steps from {shortest:.2e} to {longest:.2e})"
    );

    std::fs::create_dir_all("examples/out")?;
    let path = "examples/out/reversible_energy.svg";
    plot::lines(
        path,
        "Pendulum near the separatrix: |E - E0|/E0, GaussLobatto<2>",
        ("t", plot::Axis::Linear),
        ("relative energy error", plot::Axis::Log),
        &[
            (
                "adaptive, error control (PI)",
                &adaptive,
                RGBColor(200, 60, 20),
            ),
            ("reversible control", &reversible, RGBColor(0, 90, 181)),
            (
                "fixed step, same number of steps",
                &fixed,
                RGBColor(90, 90, 90),
            ),
        ],
    )?;
    println!("wrote {path}");
    Ok(())
}
