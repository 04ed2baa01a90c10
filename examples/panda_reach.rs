//! The Panda arm of `example-robot-data` 6.0.0 (URDF read at compile time, the hand's fingers
//! removed) reaching a target pose in 2 s by box-DDP (`spark::control::ilqr::Ilqr`) under its
//! joint-torque limits from the URDF (`Panda::EFFORT_LIMITS`: 87 N·m on the first four joints,
//! 12 N·m on the wrist). 100 intervals of 20 ms, one `GaussLobatto<2>` step each with its exact
//! Jacobian; a quadratic cost on the joint error, the velocities and the torques, a heavy
//! terminal cost; the first guess holds the start pose against gravity. Prints the iterations, the final joint error and speed, how many torques end
//! on their bounds and the KKT residuals of the box-constrained problem.
//!
//! `cargo run --release -p spark-examples --example panda_reach`

use spark::control::cost::Quadratic;
use spark::control::ilqr::{Bounds, Ilqr, Settings};
use spark::nalgebra::{SMatrix, SVector};
use spark::{GaussLobatto, Integrator, State};

spark::mechanics! {
    /// The Panda arm, a torque input per joint (`actuated: all`).
    pub struct Panda {
        urdf: "../tests/models/panda/panda.urdf",
        actuated: all,
    }
}

/// Joints, inputs, tangent dimension, horizon.
const N: usize = 7;
const D: usize = 14;
const H: usize = 100;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut sim = Integrator::<Panda, GaussLobatto<2>>::new(Panda::default(), 0.02)?;
    let limits: [f64; N] = Panda::EFFORT_LIMITS.map(|l| l.unwrap_or(f64::INFINITY));
    let bounds = Bounds {
        lo: SVector::from(limits.map(|l| -l)),
        hi: SVector::from(limits),
    };
    let start = [0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785];
    let target = [0.8, 0.3, -0.4, -1.5, 0.5, 2.2, 0.2];
    let mut x_ref = SVector::<f64, D>::zeros();
    x_ref
        .fixed_rows_mut::<N>(0)
        .copy_from(&SVector::from(target));
    let mut q = SMatrix::<f64, D, D>::zeros();
    let mut qf = SMatrix::<f64, D, D>::zeros();
    for i in 0..N {
        q[(i, i)] = 1.0;
        q[(N + i, N + i)] = 0.01;
        qf[(i, i)] = 1e4;
        qf[(N + i, N + i)] = 1e3;
    }
    let cost = Quadratic::<D, N> {
        q,
        r: SMatrix::identity() * 1e-4,
        qf,
        x_ref,
        u_ref: SVector::zeros(),
    };
    // First guess: the torques that hold the start pose against gravity, `∂V/∂q` by central
    // differences of the model's potential energy (the energy at rest).
    let x0 = State::new(0.0, start, [0.0; N]);
    let hold: [f64; N] = std::array::from_fn(|i| {
        let (mut up, mut down) = (start, start);
        up[i] += 1e-6;
        down[i] -= 1e-6;
        let v = |q: [f64; N]| sim.energy(&State::new(0.0, q, [0.0; N]));
        ((v(up) - v(down)) / 2e-6).clamp(-limits[i], limits[i])
    });
    let mut plan = Box::new(Ilqr::<N, N, D, H>::new(x0, [SVector::from(hold); H]));
    plan.initialize(&mut sim, &cost, &bounds)?;
    let first = plan.nominal.cost;
    let settings = Settings {
        max_iterations: 200,
        ..Settings::default()
    };
    let started = std::time::Instant::now();
    let (last, iterations) = plan.solve(&mut sim, &cost, &bounds, &settings)?;
    let elapsed = started.elapsed();
    let end = plan.nominal.states[H - 1];
    let error = (0..N).fold(0.0f64, |m, i| m.max((target[i] - end.q[i]).abs()));
    let on_bound = plan
        .nominal
        .controls
        .iter()
        .flat_map(|u| (0..N).map(move |i| (u[i], limits[i])))
        .filter(|(u, l)| (u.abs() - l).abs() <= 1e-9 * l)
        .count();
    let over = plan
        .nominal
        .controls
        .iter()
        .flat_map(|u| (0..N).map(move |i| u[i].abs() - limits[i]))
        .fold(f64::NEG_INFINITY, f64::max);
    let kkt = plan.kkt(&cost, &bounds);
    println!(
        "box-DDP: {iterations} iterations, {:.1} ms, cost {:.6e} (from {first:.3e})",
        elapsed.as_secs_f64() * 1e3,
        last.cost
    );
    println!(
        "at t = {:.2} s: joint error {error:.3e} rad, max |v| {:.3e} rad/s",
        end.t,
        end.v.amax()
    );
    println!(
        "torques: {on_bound} of {} on their bounds, largest excess over a limit {over:.1e} N·m",
        H * N
    );
    println!(
        "KKT: projected gradient {:.2e}, free gradient {:.2e}, wrong-sign multipliers {:.2e}, bound violation {:.2e}",
        kkt.projected_gradient, kkt.free_gradient, kkt.wrong_sign, kkt.bound_violation
    );
    Ok(())
}
