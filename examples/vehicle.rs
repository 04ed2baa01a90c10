//! A driven nonholonomic vehicle: a knife edge (a skate, or a unicycle seen from above) that
//! cannot slide sideways, `vx sin φ − vy cos φ = 0`, driven by two inputs, a thrust `f` along
//! its heading and a steering torque `tau`, with viscous damping of the translation and the
//! rotation (`dissipation`). A path-following controller, updated every 50 ms (zero-order hold),
//! steers it onto the circle of radius 2 about the origin, counterclockwise at speed 1: the yaw
//! rate follows `s / R + k_e (r − R) − k_ψ (φ − φ_ref)` (cross-track and heading errors), the
//! thrust holds the speed, both with feed-forward of the damping.
//!
//! Prints t, x, y and the cross-track error every 2.5 s, writes `examples/out/vehicle.svg` (the
//! path driven and the circle). Exits with an error if the cross-track error after 30 s exceeds
//! 1e-3, or the nonholonomic residual exceeded 1e-12 after any step.
//!
//! `cargo run --release --example vehicle`

use std::f64::consts::PI;

use plotters::style::{BLUE, RED};
use spark::{GaussLobatto, Integrator, State};

include!("models/plot.rs");

spark::mechanics! {
    /// A knife edge of mass `m` and moment of inertia `j` with thrust and steering inputs.
    pub struct Vehicle {
        coordinates: [x, y, phi],
        velocities: [vx, vy, om],
        parameters: [m = 2.0, j = 0.3, c = 0.4, d = 0.2],
        inputs: [f, tau],
        lagrangian: 0.5 * m * (vx.powi(2) + vy.powi(2)) + 0.5 * j * om.powi(2),
        forces: [f * phi.cos(), f * phi.sin(), tau],
        dissipation: 0.5 * c * (vx.powi(2) + vy.powi(2)) + 0.5 * d * om.powi(2),
        nonholonomic: [vx * phi.sin() - vy * phi.cos()],
    }
}

/// The circle's radius and the speed asked for.
const RADIUS: f64 = 2.0;
const SPEED: f64 = 1.0;
/// The control period.
const PERIOD: f64 = 0.05;

/// An angle wrapped into (−π, π].
fn wrap(a: f64) -> f64 {
    let b = (a + PI).rem_euclid(2.0 * PI) - PI;
    if b == -PI {
        PI
    } else {
        b
    }
}

/// The controller: `(f, tau)` from the state.
fn control(p: &Vehicle, s: &State<3>) -> (f64, f64) {
    let (x, y, phi) = (s.q[0], s.q[1], s.q[2]);
    let speed = s.v[0] * phi.cos() + s.v[1] * phi.sin();
    let r = x.hypot(y);
    let cross = r - RADIUS;
    let heading = wrap(phi - (y.atan2(x) + PI / 2.0));
    let rate = speed / RADIUS + 1.5 * cross - 2.0 * heading;
    let tau = p.j * 8.0 * (rate - s.v[2]) + p.d * s.v[2];
    let f = p.m * 2.0 * (SPEED - speed) + p.c * speed;
    (f, tau)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let p = Vehicle::default();
    let h = 0.01;
    let per_period = (PERIOD / h).round() as usize;
    let mut sim = Integrator::<Vehicle, GaussLobatto<2>>::new(p, h)?;
    // Outside the circle, heading north, slowly.
    let mut s = State::new(0.0, [3.0, -1.0, PI / 2.0], [0.0, 0.3, 0.0]);
    let mut path = vec![(s.q[0], s.q[1])];
    let mut worst = 0.0f64;
    println!("{:>6} {:>10} {:>10} {:>14}", "t", "x", "y", "cross-track");
    let periods = (30.0 / PERIOD).round() as usize;
    for k in 0..periods {
        let (f, tau) = control(sim.system(), &s);
        sim.system_mut().f = f;
        sim.system_mut().tau = tau;
        for _ in 0..per_period {
            sim.step(&mut s)?;
            worst = worst.max(sim.constraint_residual(&s).1);
            path.push((s.q[0], s.q[1]));
        }
        if (k + 1) % 50 == 0 {
            let cross = s.q[0].hypot(s.q[1]) - RADIUS;
            println!(
                "{:>6.2} {:>10.5} {:>10.5} {:>14.3e}",
                s.t, s.q[0], s.q[1], cross
            );
        }
    }
    let circle: Vec<(f64, f64)> = (0..=360)
        .map(|i| {
            let a = f64::from(i) * PI / 180.0;
            (RADIUS * a.cos(), RADIUS * a.sin())
        })
        .collect();
    std::fs::create_dir_all("examples/out")?;
    plot::lines(
        "examples/out/vehicle.svg",
        "knife edge steered onto a circle (thrust and torque inputs, 50 ms control period)",
        ("x", plot::Axis::Linear),
        ("y", plot::Axis::Linear),
        &[
            ("path driven", &path, RED),
            ("reference circle", &circle, BLUE),
        ],
    )?;
    println!("wrote examples/out/vehicle.svg");
    let cross = s.q[0].hypot(s.q[1]) - RADIUS;
    println!("final cross-track error {cross:.2e}; largest nonholonomic residual {worst:.1e}");
    if cross.abs() > 1e-3 || worst > 1e-12 {
        return Err("the vehicle did not follow the circle on its constraint".into());
    }
    Ok(())
}
