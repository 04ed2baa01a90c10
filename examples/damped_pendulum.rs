//! A damped pendulum: a Cartesian pendulum with the Rayleigh dissipation `D = c |v|² / 2`
//! (`dissipation` in `mechanics!`). The energy lost equals the work of the damping force,
//! `E(t) − E(0) = −W(t)` with `W(t) = ∫ c |v|² dt`. `W` is computed independently, by RK4 with a
//! 10x finer step on the minimal model `θ'' = −g sin θ − c θ'`, `W' = c θ'²`.
//!
//! Prints both every 2 s, writes `examples/out/damped_pendulum.svg` (`E − E0` and `−W` against
//! t). The difference is the method's global error: it falls 16-fold when `h` is halved (order
//! 4). Exits with an error if it exceeds 1e-6 at h = 0.01 or does not fall 12- to 20-fold, if any
//! step increases the energy by more than 1e-12, or if a constraint residual exceeds 1e-12.
//!
//! `cargo run --release --example damped_pendulum`

use plotters::style::{BLUE, RED};
use spark::{GaussLobatto, Integrator, State};

include!("models/plot.rs");

spark::mechanics! {
    /// A unit pendulum with viscous damping.
    pub struct DampedPendulum {
        coordinates: [x, y],
        velocities: [vx, vy],
        parameters: [g = 9.81, c = 0.2],
        lagrangian: 0.5 * (vx.powi(2) + vy.powi(2)) - g * y,
        dissipation: 0.5 * c * (vx.powi(2) + vy.powi(2)),
        holonomic: [x.powi(2) + y.powi(2) - 1.0],
    }
}

/// RK4 on `(θ, ω, W)` over `[0, h]` in `n` substeps.
fn rk4(p: &DampedPendulum, y: [f64; 3], h: f64, n: usize) -> [f64; 3] {
    let f = |y: &[f64; 3]| [y[1], -p.g * y[0].sin() - p.c * y[1], p.c * y[1] * y[1]];
    let dt = h / n as f64;
    let mut y = y;
    for _ in 0..n {
        let add = |a: &[f64; 3], k: &[f64; 3], s: f64| {
            [a[0] + s * k[0], a[1] + s * k[1], a[2] + s * k[2]]
        };
        let k1 = f(&y);
        let k2 = f(&add(&y, &k1, dt / 2.0));
        let k3 = f(&add(&y, &k2, dt / 2.0));
        let k4 = f(&add(&y, &k3, dt));
        for i in 0..3 {
            y[i] += dt / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
        }
    }
    y
}

/// What a run shows: the two curves and the largest gap, one-step energy growth and residual.
struct Run {
    lost: Vec<(f64, f64)>,
    work: Vec<(f64, f64)>,
    gap: f64,
    growth: f64,
    residual: f64,
}

/// The pendulum released from 2.5 rad at rest, stepped to `t_end` with step `h`; prints the
/// balance every 2 s when `print`.
fn run(p: DampedPendulum, h: f64, t_end: f64, print: bool) -> Result<Run, spark::Error> {
    let th0 = 2.5f64;
    let mut sim = Integrator::<DampedPendulum, GaussLobatto<2>>::new(p, h)?;
    let mut s = State::new(0.0, [th0.sin(), -th0.cos()], [0.0, 0.0]);
    let e0 = sim.energy(&s);
    let mut reference = [th0, 0.0, 0.0];
    let mut out = Run {
        lost: vec![(0.0, 0.0)],
        work: vec![(0.0, 0.0)],
        gap: 0.0,
        growth: f64::NEG_INFINITY,
        residual: 0.0,
    };
    let mut e_prev = e0;
    if print {
        println!(
            "{:>6} {:>14} {:>14} {:>10}",
            "t", "E(t) − E(0)", "−W(t)", "difference"
        );
    }
    let steps = (t_end / h).round() as usize;
    let every = (2.0 / h).round() as usize;
    for k in 1..=steps {
        sim.step(&mut s)?;
        reference = rk4(&p, reference, h, 10);
        let e = sim.energy(&s);
        let (g, w) = sim.constraint_residual(&s);
        out.residual = out.residual.max(g).max(w);
        out.growth = out.growth.max(e - e_prev);
        e_prev = e;
        let gap = (e - e0) + reference[2];
        out.gap = out.gap.max(gap.abs());
        out.lost.push((s.t, e - e0));
        out.work.push((s.t, -reference[2]));
        if print && k % every == 0 {
            println!(
                "{:>6.2} {:>14.9} {:>14.9} {:>10.1e}",
                s.t,
                e - e0,
                -reference[2],
                gap
            );
        }
    }
    Ok(out)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let p = DampedPendulum::default();
    let t_end = 20.0;
    let coarse = run(p, 0.01, t_end, true)?;
    let fine = run(p, 0.005, t_end, false)?;
    std::fs::create_dir_all("examples/out")?;
    plot::lines(
        "examples/out/damped_pendulum.svg",
        "damped pendulum (c = 0.2, GaussLobatto<2>, h = 0.01): energy lost = work of the damping",
        ("t", plot::Axis::Linear),
        ("energy", plot::Axis::Linear),
        &[
            ("E(t) − E(0)", &coarse.lost, RED),
            ("−W(t), RK4 on the minimal model", &coarse.work, BLUE),
        ],
    )?;
    println!("wrote examples/out/damped_pendulum.svg");
    println!(
        "max |E − E0 + W|: {:.2e} (h = 0.01), {:.2e} (h = 0.005): ratio {:.1} (order 4: 16)",
        coarse.gap,
        fine.gap,
        coarse.gap / fine.gap
    );
    println!(
        "largest one-step energy change {:.2e}; largest constraint residual {:.1e}",
        coarse.growth.max(fine.growth),
        coarse.residual.max(fine.residual)
    );
    let ratio = coarse.gap / fine.gap;
    if coarse.gap > 1e-6
        || !(12.0..20.0).contains(&ratio)
        || coarse.growth.max(fine.growth) > 1e-12
        || coarse.residual.max(fine.residual) > 1e-12
    {
        return Err("the energy balance does not hold".into());
    }
    Ok(())
}
