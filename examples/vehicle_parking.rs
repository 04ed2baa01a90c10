//! Parking a nonholonomic vehicle with bounded inputs: box-DDP (`spark::control::ilqr`) on a
//! model with a velocity constraint (no sideslip), linearized exactly on the 5-dimensional
//! tangent space of its state manifold (3 coordinates, 1 nonholonomic constraint:
//! D = 2·3 − 1).
//!
//! The vehicle (mass `m`, inertia `i`) is pushed along its heading by `f` and turned by the
//! torque `tau`, |f| ≤ 0.4 N, |tau| ≤ 0.35 N m. It starts at rest at the origin heading along x and
//! must park, at rest, 1.5 m ahead and 1 m to the left with the same heading (a sideways shift
//! the constraint forbids doing directly). Prints the solve, the final pose error, the bounds,
//! the constraint residual and the KKT check; exits with an error if the vehicle is not parked
//! within 1 cm and 0.01 rad.
//!
//! `cargo run --release --example vehicle_parking`

use spark::control::cost::Quadratic;
use spark::control::ilqr::{Bounds, Ilqr, Settings};
use spark::nalgebra::{SMatrix, SVector};
use spark::{GaussLobatto, Integrator, State};

spark::mechanics! {
    /// A planar vehicle that cannot slip sideways.
    pub struct Vehicle {
        coordinates: [x, y, th],
        velocities: [vx, vy, w],
        parameters: [m = 1.0, i = 0.2, c = 0.1],
        inputs: [f, tau],
        lagrangian: 0.5 * m * (vx.powi(2) + vy.powi(2)) + 0.5 * i * w.powi(2),
        forces: [f * th.cos(), f * th.sin(), tau],
        dissipation: 0.5 * c * (vx.powi(2) + vy.powi(2) + w.powi(2)),
        nonholonomic: [-th.sin() * vx + th.cos() * vy],
    }
}

const H: usize = 120;
const DT: f64 = 0.05;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut sim = Integrator::<Vehicle, GaussLobatto<2>>::new(Vehicle::default(), DT)?;
    let target = SVector::<f64, 6>::from([1.5, 1.0, 0.0, 0.0, 0.0, 0.0]);
    let cost = Quadratic::<6, 2> {
        q: SMatrix::from_diagonal(&SVector::from([0.0, 0.0, 0.0, 0.01, 0.01, 0.01])),
        r: SMatrix::from_diagonal(&SVector::from([1e-2, 1e-2])),
        qf: SMatrix::from_diagonal(&SVector::from([1e3, 1e3, 1e3, 1e2, 1e2, 1e2])),
        x_ref: target,
        u_ref: SVector::zeros(),
    };
    let bounds = Bounds {
        lo: SVector::from([-0.4, -0.35]),
        hi: SVector::from([0.4, 0.35]),
    };
    let start = State::new(0.0, [0.0; 3], [0.0; 3]);
    // A first guess that turns left a little: from rest with zero inputs every sideways
    // direction is a stationary point.
    let guess: [SVector<f64, 2>; H] =
        std::array::from_fn(|k| SVector::from([0.5, if k < H / 4 { 0.3 } else { 0.0 }]));
    let mut solver = Box::new(Ilqr::<3, 2, 5, H>::new(start, guess));
    solver.initialize(&mut sim, &cost, &bounds)?;
    let settings = Settings {
        max_iterations: 1000,
        ..Settings::default()
    };
    let t0 = std::time::Instant::now();
    let (last, iterations) = solver.solve(&mut sim, &cost, &bounds, &settings)?;
    let elapsed = t0.elapsed();
    let end = solver.nominal.state(H);
    let pose = (end.q[0] - target[0])
        .abs()
        .max((end.q[1] - target[1]).abs());
    let heading = end.q[2].abs();
    let speed = end.v.amax();
    let kkt = solver.kkt(&cost, &bounds);
    let (fmax, tmax) = solver
        .nominal
        .controls
        .iter()
        .fold((0.0f64, 0.0f64), |(a, b), u| {
            (a.max(u[0].abs()), b.max(u[1].abs()))
        });
    let residual = (0..=H)
        .map(|k| sim.constraint_residual(solver.nominal.state(k)).1)
        .fold(0.0f64, f64::max);
    println!(
        "box-DDP: {iterations} iterations, {:.1} ms, cost {:.6e}",
        elapsed.as_secs_f64() * 1e3,
        last.cost
    );
    println!(
        "parked at ({:.4}, {:.4}) m, heading {heading:.2e} rad, speed {speed:.2e}: position error {pose:.2e} m",
        end.q[0], end.q[1]
    );
    println!(
        "max |f| {fmax} N (≤ 0.4), max |tau| {tmax} N m (≤ 0.35); {} of {} inputs at a bound",
        kkt.active,
        2 * H
    );
    println!(
        "KKT: projected gradient {:.2e}, bound violation {:e}; no-slip constraint residual ≤ {residual:.1e}",
        kkt.projected_gradient, kkt.bound_violation
    );
    for k in (0..=H).step_by(20) {
        let s = solver.nominal.state(k);
        println!(
            "  t {:>4.2}  x {:>7.4}  y {:>7.4}  θ {:>7.4}",
            k as f64 * DT,
            s.q[0],
            s.q[1],
            s.q[2]
        );
    }
    if pose > 0.01 || heading > 0.01 || fmax > 0.4 || tmax > 0.35 {
        return Err("the vehicle was not parked within the bounds".into());
    }
    Ok(())
}
