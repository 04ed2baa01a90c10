//! Swing-up and NMPC hold of the Cartesian cart-pole (`models/cartpole.rs`: 3 coordinates, one
//! holonomic constraint, one force input), with the control layer of `spark::control` on the
//! constraint manifold (no index reduction, no minimal coordinates written by hand).
//!
//! 1. **Swing-up plan**: box-DDP (`Ilqr`) over 3 s (150 intervals of 20 ms, one
//!    `GaussLobatto<2>` step each) from hanging to upright with |u| ≤ 20 N, solved to
//!    convergence; the convergence near the solution (ratios of `J − J*`) and the KKT conditions
//!    of the box-constrained problem at the solution are printed.
//! 2. **Swing-up on the plant**: the plan's feedback policy `u = clamp(ū + K Tᵀ (x − x̄))` drives
//!    the nominal plant (stepped at 5 ms); it must end within 0.01 rad of upright.
//! 3. **Hold**: NMPC by SQP real-time iterations over multiple shooting (`SqpRti`: 1 s
//!    horizon, one Gauss–Newton SQP iteration per 20 ms period, the stage QP with |u| ≤ 20 N
//!    solved by Riccati recursions; preparation before the measurement, feedback with it; warm
//!    start by shifting) holds the pole for 5 s on a perturbed plant (pole mass +10 %, cart
//!    damping +25 %); the lean must stay within 0.01 rad. Its prediction model takes one
//!    `GaussLobatto<1>` step (order 2) per interval; the same hold with the plan's order-4
//!    `GaussLobatto<2>` prediction model follows, and for comparison the iLQR real-time
//!    iterations (`Nmpc`, 2 per period, single shooting) hold from the same state.
//!
//! Writes `examples/out/cartpole_swingup.svg`. The line before the last is
//! `nmpc period: median M us, worst W us`: the SQP-RTI's preparation and feedback per period
//! (wall time, this machine). The last line printed is
//! `upright error: <E> rad, max |u|: <U> N`: E the largest |lean| over the last second of the
//! hold, U the largest |u| applied over the whole run. Exits with an error if a requirement
//! fails.
//!
//! `cargo run --release --example cartpole_swingup`

use std::time::Instant;

use spark::control::cost::Quadratic;
use spark::control::ilqr::{Bounds, Ilqr, Settings};
use spark::control::nmpc::Nmpc;
use spark::control::sqp::SqpRti;
use spark::control::vector::difference;
use spark::nalgebra::{SMatrix, SVector};
use spark::{GaussLobatto, Integrator, State};

include!("models/plot.rs");
include!("models/cartpole.rs");
include!("models/stack.rs");
include!("models/swingup.rs");

use cartpole::{minimal, CartPole, TC};
use swingup::{upright, weights, H_SWING, U_MAX};

/// The hold horizon (1 s).
const H_HOLD: usize = 50;
/// Plant steps per control period.
const PLANT_STEPS: usize = 4;

fn lean(p: &CartPole, s: &State<3>) -> f64 {
    minimal(p, s)[1]
}

/// Steps the plant over one control period with the input `u`.
fn period(
    plant: &mut Integrator<CartPole, GaussLobatto<2>>,
    s: &mut State<3>,
    u: f64,
) -> Result<(), spark::Error> {
    plant.system_mut().u = u;
    for _ in 0..PLANT_STEPS {
        plant.step(s)?;
    }
    Ok(())
}

/// A hold on the plant: the periods' wall times (the controller's call), the trace, the largest
/// |lean| (over the hold and over its last second), the largest |u|, the steps with Jacobian.
struct Hold {
    times: Vec<f64>,
    trace: Vec<(f64, f64, f64, f64)>,
    worst_lean: f64,
    last_second: f64,
    umax: f64,
    steps: usize,
    end: State<3>,
}

/// Holds for 5 s from `s` with `controller(state) -> (u, steps with Jacobian)`.
fn run_hold(
    plant: &mut Integrator<CartPole, GaussLobatto<2>>,
    mut s: State<3>,
    mut controller: impl FnMut(&State<3>) -> Result<(f64, usize), Box<dyn std::error::Error>>,
) -> Result<Hold, Box<dyn std::error::Error>> {
    let p = *plant.system();
    let periods = (5.0 / TC).round() as usize;
    let mut out = Hold {
        times: Vec::with_capacity(periods),
        trace: Vec::with_capacity(periods),
        worst_lean: 0.0,
        last_second: 0.0,
        umax: 0.0,
        steps: 0,
        end: s,
    };
    for i in 0..periods {
        let t0 = Instant::now();
        let (u, steps) = controller(&s)?;
        out.times.push(t0.elapsed().as_secs_f64());
        out.steps += steps;
        out.umax = out.umax.max(u.abs());
        let th = lean(&p, &s);
        out.worst_lean = out.worst_lean.max(th.abs());
        if i + (1.0 / TC).round() as usize >= periods {
            out.last_second = out.last_second.max(th.abs());
        }
        out.trace.push((s.t, th, s.q[0], u));
        period(plant, &mut s, u)?;
    }
    let th = lean(&p, &s);
    out.worst_lean = out.worst_lean.max(th.abs());
    out.last_second = out.last_second.max(th.abs());
    out.end = s;
    Ok(out)
}

include!("models/percentile.rs");

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let p = CartPole::default();
    let bounds = Bounds::<1>::symmetric(U_MAX);
    let mut model = Integrator::<CartPole, GaussLobatto<2>>::new(p, TC)?;
    let hanging = swingup::hanging(&p);

    // 1. The plan. From the hanging equilibrium a zero input is a stationary point of the
    //    problem (by symmetry), so the first guess pushes the cart back and forth once.
    let swing_cost = swingup::cost(&p);
    let guess: [SVector<f64, 1>; H_SWING] = std::array::from_fn(|k| {
        let t = k as f64 * TC;
        SVector::from([if t < 1.0 {
            10.0 * (2.0 * std::f64::consts::PI * t).sin()
        } else {
            0.0
        }])
    });
    let mut plan = Box::new(Ilqr::<3, 1, 4, H_SWING>::new(hanging, guess));
    plan.initialize(&mut model, &swing_cost, &bounds)?;
    let settings = Settings::default();
    let mut costs = vec![plan.nominal.cost];
    let started = Instant::now();
    let mut iterations = 0;
    for _ in 0..500 {
        let s = plan.iterate(&mut model, &swing_cost, &bounds, &settings)?;
        iterations += 1;
        if s.accepted {
            costs.push(s.cost);
            if s.previous_cost - s.cost <= 1e-13 * (1.0 + s.cost) {
                break;
            }
        } else if s.expected_decrease <= 1e-15 * (1.0 + s.cost) {
            break;
        }
    }
    let plan_time = started.elapsed();
    let j_star = *costs.last().ok_or("no cost")?;
    let kkt = plan.kkt(&swing_cost, &bounds);
    println!(
        "swing-up plan: {iterations} box-DDP iterations, {:.1} ms, cost {j_star:.6e} (from {:.3e})",
        plan_time.as_secs_f64() * 1e3,
        costs[0]
    );
    // The rate near the solution: successive ratios of J − J* while it falls from 1e-4 to 1e-10
    // of J* (below that, round-off in J).
    let gaps: Vec<f64> = costs.iter().map(|j| j - j_star).collect();
    let window: Vec<f64> = gaps
        .windows(2)
        .filter(|w| w[0] < 1e-4 * j_star && w[1] > 1e-10 * j_star)
        .map(|w| w[1] / w[0])
        .collect();
    let mut sorted = window.clone();
    sorted.sort_by(f64::total_cmp);
    let rate = sorted.get(sorted.len() / 2).copied().unwrap_or(f64::NAN);
    println!(
        "  convergence near the solution: J − J* from 1e-4 J* to 1e-10 J* in {} iterations; \
         ratio (J_(k+1) − J*) / (J_k − J*): median {rate:.3}, range {:.3} to {:.3} (linear)",
        window.len(),
        sorted.first().copied().unwrap_or(f64::NAN),
        sorted.last().copied().unwrap_or(f64::NAN)
    );
    println!(
        "  KKT at the solution: projected gradient {:.2e}, free-input gradient {:.2e}, \
         multiplier sign error {:.2e} (≤ 0), {} of {} inputs at a bound, bound violation {:e}",
        kkt.projected_gradient,
        kkt.free_gradient,
        kkt.wrong_sign,
        kkt.active,
        H_SWING,
        kkt.bound_violation
    );
    // The plan's inputs, for `python3 benches/control/casadi_swingup.py warm`.
    std::fs::create_dir_all("examples/out")?;
    let inputs: Vec<String> = plan
        .nominal
        .controls
        .iter()
        .map(|u| format!("{:e}", u[0]))
        .collect();
    std::fs::write(
        "examples/out/cartpole_swingup_plan.txt",
        inputs.join("\n") + "\n",
    )?;
    let end = plan.nominal.state(H_SWING);
    println!("  planned final lean {:.2e} rad", lean(&p, end));

    // 2. The plan's policy on the nominal plant.
    let mut plant = Integrator::<CartPole, GaussLobatto<2>>::new(p, TC / PLANT_STEPS as f64)?;
    let mut s = hanging;
    let mut umax = 0.0f64;
    let mut trace: Vec<(f64, f64, f64, f64)> = Vec::new(); // t, lean, xc, u
    for k in 0..H_SWING {
        let nom = &plan.nominal;
        let z = nom
            .basis(k)
            .coordinates::<6>(&difference::<3, 6>(&s, nom.state(k)));
        let u = bounds.clamp(&(nom.controls[k] + plan.policy.gains[k] * z))[0];
        umax = umax.max(u.abs());
        trace.push((s.t, lean(&p, &s), s.q[0], u));
        period(&mut plant, &mut s, u)?;
    }
    let swing_end = lean(&p, &s);
    println!(
        "swing-up on the plant: lean {swing_end:.2e} rad after {:.2} s (cart at {:.3} m)",
        s.t, s.q[0]
    );

    // 3. NMPC hold on the perturbed plant.
    let perturbed = CartPole {
        m: p.m * 1.1,
        c: p.c * 1.25,
        ..p
    };
    let mut plant =
        Integrator::<CartPole, GaussLobatto<2>>::new(perturbed, TC / PLANT_STEPS as f64)?;
    let hold_cost = Quadratic::<6, 1> {
        q: weights(10.0, 1.0, 0.1),
        r: SMatrix::identity() * 1e-2,
        qf: weights(100.0, 10.0, 1.0),
        x_ref: upright(p.l),
        u_ref: SVector::zeros(),
    };
    // The first period's solve to convergence (box-DDP), then one SQP real-time iteration per
    // period over multiple shooting: the preparation (linearization, Riccati factorization)
    // before the measurement, the feedback (one QP solve) with it.
    let mut first = Ilqr::<3, 1, 4, H_HOLD>::new(s, [SVector::zeros(); H_HOLD]);
    first.initialize(&mut model, &hold_cost, &bounds)?;
    first.solve(&mut model, &hold_cost, &bounds, &settings)?;
    let start = s;
    let plan0 = SqpRti::from_trajectory(&first.nominal);
    // The hold's prediction model: one `GaussLobatto<1>` step per 20 ms interval (order 2,
    // symplectic, on the manifold like the plan's `GaussLobatto<2>`); the same hold with the
    // order-4 `GaussLobatto<2>` prediction model is run after it for comparison.
    let mut prediction = Integrator::<CartPole, GaussLobatto<1>>::new(p, TC)?;
    let fresh_plant = plant;
    let mut sqp = Box::new(plan0);
    let mut feedback_times = Vec::new();
    let (mut qp_iterations, mut fallbacks) = (0usize, 0usize);
    let hold = run_hold(&mut plant, s, |s| {
        let prepared = sqp.prepare(&mut prediction, &hold_cost, &bounds)?;
        let t1 = Instant::now();
        let (u, stats) = sqp.feedback(&prediction, s)?;
        feedback_times.push(t1.elapsed().as_secs_f64());
        qp_iterations += stats.qp_iterations;
        fallbacks += usize::from(stats.fallback.is_some());
        Ok((u[0], prepared.steps))
    })?;
    s = hold.end;
    umax = umax.max(hold.umax);
    trace.extend_from_slice(&hold.trace);
    let periods = hold.times.len();
    println!(
        "NMPC hold on the perturbed plant (m +10 %, c +25 %), one SQP-RTI iteration per period, \
         GaussLobatto<1> prediction: {periods} periods, {} steps with Jacobian and {:.2} QP \
         iterations per period, {fallbacks} fallbacks; feedback (QP solve) median {:.1} us, \
         worst {:.1} us",
        hold.steps / periods,
        qp_iterations as f64 / periods as f64,
        percentile(&feedback_times, 0.5) * 1e6,
        percentile(&feedback_times, 1.0) * 1e6,
    );
    let mut order4_plant = fresh_plant;
    let mut order4 = Box::new(plan0);
    let fourth = run_hold(&mut order4_plant, start, |s| {
        let (u, stats) = order4.control(&mut model, &hold_cost, &bounds, s)?;
        Ok((u[0], stats.steps))
    })?;
    println!(
        "  with the GaussLobatto<2> prediction model instead: period median {:.0} us, worst {:.0} \
         us; largest lean {:.2e} rad, last second's {:.2e} rad",
        percentile(&fourth.times, 0.5) * 1e6,
        percentile(&fourth.times, 1.0) * 1e6,
        fourth.worst_lean,
        fourth.last_second
    );
    println!(
        "  largest lean during the hold {:.2e} rad; cart at {:.3} m",
        hold.worst_lean, s.q[0]
    );
    // For comparison, the iLQR real-time iterations (single shooting, 2 iterations per period)
    // from the same state on the same plant.
    let mut ilqr_plant = plant;
    ilqr_plant.system_mut().u = 0.0;
    let mut nmpc = Nmpc::from_solver(first, 2, settings);
    let ilqr = run_hold(&mut ilqr_plant, start, |s| {
        let (u, stats) = nmpc.control(&mut model, &hold_cost, &bounds, s)?;
        Ok((u[0], stats.steps))
    })?;
    println!(
        "  iLQR NMPC (2 iterations, single shooting) on the same hold: {} steps with Jacobian per \
         period, period median {:.0} us, worst {:.0} us; last second's lean {:.2e} rad",
        ilqr.steps / periods,
        percentile(&ilqr.times, 0.5) * 1e6,
        percentile(&ilqr.times, 1.0) * 1e6,
        ilqr.last_second
    );
    // The stack of one control period, painted in a thread of its own (x86_64, release).
    let stack_bytes = {
        let (mut sqp, mut prediction, state) = (sqp, prediction, s);
        std::thread::Builder::new()
            .stack_size(4 * stack::DEPTH)
            .spawn(move || {
                let mut run = || {
                    let out = sqp.control(&mut prediction, &hold_cost, &bounds, &state);
                    std::hint::black_box(out.is_ok());
                };
                stack::measure(&mut run)
            })?
            .join()
            .map_err(|_| "the stack measurement panicked")?
    };
    println!("  stack of one SQP-RTI period (H = {H_HOLD}): {stack_bytes} bytes (x86_64, painted)");
    let (g, w) = plant.constraint_residual(&s);
    println!("  constraint residuals at the end: {g:.1e}, {w:.1e}");

    std::fs::create_dir_all("examples/out")?;
    let lean_series: Vec<(f64, f64)> = trace.iter().map(|r| (r.0, r.1)).collect();
    let cart: Vec<(f64, f64)> = trace.iter().map(|r| (r.0, r.2)).collect();
    let force: Vec<(f64, f64)> = trace.iter().map(|r| (r.0, r.3 / 10.0)).collect();
    {
        use plotters::style::{BLUE, GREEN, RED};
        plot::lines(
            "examples/out/cartpole_swingup.svg",
            "cart-pole: box-DDP swing-up (|u| ≤ 20 N), then NMPC hold on a perturbed plant",
            ("t (s)", plot::Axis::Linear),
            ("lean (rad), cart (m), force / 10 (N)", plot::Axis::Linear),
            &[
                ("lean", &lean_series, RED),
                ("cart xc", &cart, BLUE),
                ("force u / 10", &force, GREEN),
            ],
        )?;
    }
    println!("wrote examples/out/cartpole_swingup.svg");

    if swing_end.abs() > 0.01 {
        return Err(format!("the swing-up ended {swing_end:e} rad from upright").into());
    }
    if hold.worst_lean > 0.01 {
        return Err(format!("the hold left the 0.01 rad band: {:e}", hold.worst_lean).into());
    }
    if umax > U_MAX {
        return Err(format!("an input exceeded the bound: {umax}").into());
    }
    // The period's wall time (this machine; the controller's own calls, preparation and
    // feedback, not the plant's step).
    println!(
        "nmpc period: median {:.0} us, worst {:.0} us",
        percentile(&hold.times, 0.5) * 1e6,
        percentile(&hold.times, 1.0) * 1e6
    );
    let last_second = hold.last_second;
    println!("upright error: {last_second:e} rad, max |u|: {umax} N");
    Ok(())
}
