//! A differential-drive robot (`models/diff_drive.rs`: position, heading and two wheel angles;
//! three rolling constraints; two wheel torques) driven as a vehicle MPC stack would: a
//! straight run, a turn on the spot and an arc, with the torques changed between them.
//!
//! Prints after each phase the pose, the speed, the largest rolling-constraint residual
//! `max |k|` over the phase, and the energy balance: the kinetic energy gained against the
//! work of the torques minus the bearings' dissipation (`GaussLobatto<2>`, h = 0.01). The
//! work is summed by the trapezoidal rule over the steps, so the balance is off by that
//! rule's O(h²) error (a few µJ here against about 1 J of kinetic energy). The time per step
//! is measured by `chain3d -- jacobian`.
//!
//! Exits with an error if a residual exceeds 1e-10 (Newton's tolerance times the velocities)
//! or the energy balance is off by more than 1e-5 J.
//!
//! `cargo run --release --example diff_drive`

use spark::{GaussLobatto, Integrator, State};

include!("models/diff_drive.rs");

type Res<T> = Result<T, Box<dyn std::error::Error>>;

/// One phase: `steps` steps with wheel torques `(tr, tl)`; returns the largest residual and
/// the energy-balance error.
fn phase(
    sim: &mut Integrator<DiffDrive, GaussLobatto<2>>,
    s: &mut State<5>,
    (tr, tl): (f64, f64),
    steps: usize,
) -> Res<(f64, f64)> {
    (sim.system_mut().tr, sim.system_mut().tl) = (tr, tl);
    let (c, e0) = (sim.system().c, sim.energy(s));
    let mut work = 0.0;
    let mut residual: f64 = 0.0;
    for _ in 0..steps {
        let (wr0, wl0) = (s.v[3], s.v[4]);
        let h = sim.step_size();
        sim.step(s)?;
        let (wr1, wl1) = (s.v[3], s.v[4]);
        // Power of the torques minus the bearings' dissipation 2D = c (ωr² + ωl²).
        let power = |wr: f64, wl: f64| tr * wr + tl * wl - c * (wr * wr + wl * wl);
        work += 0.5 * h * (power(wr0, wl0) + power(wr1, wl1));
        residual = residual.max(sim.constraint_residual(s).1);
    }
    let balance = sim.energy(s) - e0 - work;
    Ok((residual, balance))
}

fn main() -> Res<()> {
    let robot = DiffDrive::default();
    let (r, b) = (robot.r, robot.b);
    let h = 0.01;
    let mut sim = Integrator::<DiffDrive, GaussLobatto<2>>::new(robot, h)?;
    let mut s = State::new(0.0, [0.0; 5], [0.0; 5]);
    println!("differential drive, GaussLobatto<2>, h = {h} s (r = {r} m, half track b = {b} m)");
    println!("  phase                        t (s)    x (m)    y (m)   heading  speed (m/s)  max |k|   energy balance (J)");
    let mut worst: (f64, f64) = (0.0, 0.0);
    for (name, torques, steps) in [
        ("straight, both 0.05 N m", (0.05, 0.05), 200),
        ("coast, no torque", (0.0, 0.0), 100),
        ("turn on the spot ±0.02 N m", (0.02, -0.02), 100),
        ("arc, 0.06 / 0.03 N m", (0.06, 0.03), 300),
        ("brake, both −0.04 N m", (-0.04, -0.04), 100),
    ] {
        let (res, bal) = phase(&mut sim, &mut s, torques, steps)?;
        worst = (worst.0.max(res), worst.1.max(bal.abs()));
        let speed = s.v[0].hypot(s.v[1]);
        println!(
            "  {name:<27} {:6.2} {:8.4} {:8.4} {:8.4} {speed:10.4}  {res:9.1e}  {bal:+.2e}",
            s.t, s.q[0], s.q[1], s.q[2]
        );
    }
    println!(
        "largest residual {:.1e}, largest energy-balance error {:.1e} J",
        worst.0, worst.1
    );
    if worst.0 > 1e-10 || worst.1 > 1e-5 {
        return Err(format!(
            "residual {:.1e} or energy balance {:.1e} too large",
            worst.0, worst.1
        )
        .into());
    }
    Ok(())
}
