//! The swing-up plan of `cartpole_swingup` (150 intervals of 20 ms, |u| ≤ 20 N) from a set of
//! first guesses, with the cost after every iteration and the time it was reached: the spark
//! side of the time-to-equal-cost comparison with CasADi + IPOPT and fatrop
//! (`benches/control/casadi_swingup.py`, docs/performance.md). Two solvers (`--method`):
//!
//! - `ddp` (the default): box-DDP (`Ilqr`);
//! - `sqp`: Gauss–Newton SQP over multiple shooting, full steps (`SqpRti::iterate`), or with
//!   `--line-search` its globalized iteration (`SqpRti::iterate_with_line_search`, the ℓ1 merit
//!   function with the default `LineSearch`).
//!
//! Reads the guesses (one per line: a name, then the 150 inputs; `#` starts a comment) from
//! `benches/control/swingup_guesses.txt` or the file given with `--guesses`, and solves from
//! each `--repeats` times (default 3).
//!
//! box-DDP stops when an accepted iteration lowers the cost by less than `1e-13 (1 + J)` or the
//! expected decrease is below `1e-15 (1 + J)`, and writes
//! - `<out>_trace.txt`: `guess repeat iteration wall cpu cost` for the rollout of the guess
//!   (iteration 0) and every iteration after it: wall-clock and thread CPU seconds since
//!   before the first rollout (CPU time from `clock_gettime`, NaN off 64-bit Linux);
//! - `<out>_plans.txt`: the final inputs from each guess, in the format of the guesses;
//! - `<out>_states.txt`: the final trajectory from each guess in minimal coordinates,
//!   `guess k xc θ vc ω` (θ the lean from upright), k = 0 … 150;
//!
//! with `<out>` = `examples/out/swingup_spark` or the `--out` argument.
//!
//! The SQP starts from each guess by single shooting (`SqpRti::new`: its first linearization
//! rolls the inputs out), and from the guess named `interpolation` also by multiple shooting
//! (`SqpRti::from_nodes`, the run `interpolation_nodes`): the guess's inputs, and the nodes of
//! IPOPT's start for that guess, the lean interpolated linearly from hanging to upright over
//! 1.5 s at constant rate, then upright at rest (cart at rest at the origin), mapped to the
//! Cartesian state with its consistent velocities. It stops when the QP's step is below
//! `1e-9` and the largest shooting defect below `1e-11` (converged), when an iteration falls
//! back (a failed linearization or QP: diverged), or after 200 iterations, and writes
//! - `<out>_trace.txt`: `guess repeat iteration wall cpu cost defect step qp alpha trials`: row
//!   `i` is the `i`-th call of `iterate`, with the cost and largest defect of the plan it
//!   linearized (the guess after `i` steps; row 0 is the rollout or the nodes of the guess), the largest entry
//!   of its QP step, the QP's active-set iterations, the fraction of the step taken and the
//!   line search's trials (1 and 0 for full steps), timed at the end of the call (so a cost
//!   is counted as reached once its QP is solved too);
//! - `<out>_plans.txt`: the final inputs from each start;
//!
//! with `<out>` = `examples/out/swingup_sqp` or the `--out` argument. Both print per start the
//! iterations, the final cost and the median solve time.
//!
//! `cargo run --release -p spark-examples --example cartpole_swingup_bench [-- --method sqp]`

use std::fmt::Write as _;
use std::time::Instant;

use spark::control::ilqr::{Bounds, Ilqr, Settings};
use spark::control::sqp::{LineSearch, SqpRti};
use spark::nalgebra::SVector;
use spark::{GaussLobatto, Integrator, State};

// `models/cartpole.rs` draws its runs with `plot`.
include!("models/plot.rs");
include!("models/cartpole.rs");
include!("models/swingup.rs");

use cartpole::{CartPole, TC};
use swingup::{H_SWING, U_MAX};

/// Iteration budget per box-DDP solve.
const MAX_ITERATIONS: usize = 1000;
/// Iteration budget per SQP solve.
const SQP_ITERATIONS: usize = 200;
/// The SQP has converged when the QP's largest step entry is below this…
const SQP_STEP: f64 = 1e-9;
/// … and the largest shooting defect below this.
const SQP_DEFECT: f64 = 1e-11;

include!("models/cpu_time.rs");
use cpu_time::thread as cpu_seconds;

/// One solve: the final inputs and trajectory, iterations, and `(wall, cpu, cost)` after each
/// iteration.
struct Run {
    controls: [SVector<f64, 1>; H_SWING],
    states: Vec<cartpole::V4>,
    iterations: usize,
    trace: Vec<(f64, f64, f64)>,
}

/// Box-DDP from `guess` until an accepted iteration lowers the cost by less than
/// `1e-13 (1 + J)` or the expected decrease is below `1e-15 (1 + J)` (the example's test).
fn solve(guess: &[SVector<f64, 1>; H_SWING]) -> Result<Run, Box<dyn std::error::Error>> {
    let p = CartPole::default();
    let bounds = Bounds::<1>::symmetric(U_MAX);
    let cost = swingup::cost(&p);
    let mut model = Integrator::<CartPole, GaussLobatto<2>>::new(p, TC)?;
    let settings = Settings::default();
    let mut trace = Vec::with_capacity(MAX_ITERATIONS + 1);
    let (started, cpu0) = (Instant::now(), cpu_seconds());
    let mark = |j: f64| (started.elapsed().as_secs_f64(), cpu_seconds() - cpu0, j);
    let mut plan = Box::new(Ilqr::<3, 1, 4, H_SWING>::new(swingup::hanging(&p), *guess));
    plan.initialize(&mut model, &cost, &bounds)?;
    trace.push(mark(plan.nominal.cost));
    let mut iterations = 0;
    for _ in 0..MAX_ITERATIONS {
        let s = plan.iterate(&mut model, &cost, &bounds, &settings)?;
        iterations += 1;
        trace.push(mark(plan.nominal.cost));
        if s.accepted {
            if s.previous_cost - s.cost <= 1e-13 * (1.0 + s.cost) {
                break;
            }
        } else if s.expected_decrease <= 1e-15 * (1.0 + s.cost) {
            break;
        }
    }
    let states = (0..=H_SWING)
        .map(|k| cartpole::minimal(&p, plan.nominal.state(k)))
        .collect();
    Ok(Run {
        controls: plan.nominal.controls,
        states,
        iterations,
        trace,
    })
}

/// How an SQP solve ended.
#[derive(Clone, Debug, PartialEq)]
enum Outcome {
    /// Step and defect below [`SQP_STEP`] and [`SQP_DEFECT`].
    Converged,
    /// An iteration fell back (its linearization or QP failed): the error.
    Failed(String),
    /// [`SQP_ITERATIONS`] iterations without either.
    Capped,
}

/// Per call of `iterate`: `(wall, cpu, cost, defect, step, QP iterations, alpha, trials)`.
type SqpRow = (f64, f64, f64, f64, f64, usize, f64, usize);

/// One SQP solve: the final inputs, how it ended, the nodes whose update could not be projected
/// (summed over the iterations), and a row per call of `iterate`.
struct SqpRun {
    controls: [SVector<f64, 1>; H_SWING],
    outcome: Outcome,
    skipped: usize,
    trace: Vec<SqpRow>,
}

/// The nodes `x_1 … x_H` of IPOPT's start from the guess `interpolation`
/// (`casadi_swingup.py`'s `initial_point`): the lean falls linearly from π (hanging) to 0
/// (upright) over the first [`swingup::SWING_TIME`] at the constant rate −π / SWING_TIME, then
/// stays upright at rest; the cart rests at the origin. Mapped to the Cartesian state by
/// `cartpole::cartesian`, which makes the velocities consistent (tangent to the rod).
fn interpolated_nodes(p: &CartPole) -> [State<3>; H_SWING] {
    let swing = (swingup::SWING_TIME / TC).round() as usize;
    let pi = core::f64::consts::PI;
    std::array::from_fn(|i| {
        let k = i + 1;
        let s = (k as f64 / swing as f64).min(1.0);
        let omega = if k < swing {
            -pi / swingup::SWING_TIME
        } else {
            0.0
        };
        cartpole::cartesian(
            p,
            k as f64 * TC,
            &cartpole::V4::new(0.0, pi * (1.0 - s), 0.0, omega),
        )
    })
}

/// Gauss–Newton SQP from `guess`, by single shooting or, with `nodes`, by multiple shooting from
/// them, with full steps or the line search `search`, until converged, failed or capped (see
/// the module documentation).
fn solve_sqp(
    guess: &[SVector<f64, 1>; H_SWING],
    nodes: Option<&[State<3>; H_SWING]>,
    search: Option<&LineSearch>,
) -> Result<SqpRun, Box<dyn std::error::Error>> {
    let p = CartPole::default();
    let bounds = Bounds::<1>::symmetric(U_MAX);
    let cost = swingup::cost(&p);
    let mut model = Integrator::<CartPole, GaussLobatto<2>>::new(p, TC)?;
    let start = swingup::hanging(&p);
    let mut trace = Vec::with_capacity(SQP_ITERATIONS);
    let (started, cpu0) = (Instant::now(), cpu_seconds());
    let mut plan = Box::new(match nodes {
        Some(nodes) => SqpRti::<3, 1, 4, H_SWING>::from_nodes(&start, *nodes, *guess),
        None => SqpRti::<3, 1, 4, H_SWING>::new(&start, *guess),
    });
    let (mut outcome, mut skipped) = (Outcome::Capped, 0);
    for _ in 0..SQP_ITERATIONS {
        let s = match search {
            Some(search) => plan.iterate_with_line_search(&mut model, &cost, &bounds, search)?,
            None => plan.iterate(&mut model, &cost, &bounds)?,
        };
        skipped += s.skipped_nodes;
        if let Some(e) = s.fallback {
            outcome = Outcome::Failed(e.to_string());
            break;
        }
        trace.push((
            started.elapsed().as_secs_f64(),
            cpu_seconds() - cpu0,
            s.cost,
            s.defect,
            s.step,
            s.qp_iterations,
            s.alpha,
            s.trials,
        ));
        if s.step < SQP_STEP && s.defect < SQP_DEFECT {
            outcome = Outcome::Converged;
            break;
        }
    }
    Ok(SqpRun {
        controls: plan.controls,
        outcome,
        skipped,
        trace,
    })
}

/// The median of `v` (NaN when empty).
fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

/// The SQP from every start of `guesses`, `repeats` times each; writes `<out>_trace.txt` and
/// `<out>_plans.txt`.
fn run_sqp(
    guesses: &[Guess],
    out: &str,
    repeats: usize,
    search: Option<&LineSearch>,
) -> Result<(), Box<dyn std::error::Error>> {
    let p = CartPole::default();
    let model = Integrator::<CartPole, GaussLobatto<2>>::new(p, TC)?;
    let interpolated = interpolated_nodes(&p);
    // The mapped nodes are on the rod's constraint, positions and velocities.
    let residual = interpolated.iter().fold(0.0f64, |m, x| {
        let (g, w) = model.constraint_residual(x);
        m.max(g).max(w)
    });
    println!(
        "Gauss–Newton SQP ({}) from {} guesses, {repeats} runs each (largest constraint \
         residual of the interpolated nodes {residual:.1e})",
        if search.is_some() {
            "merit line search"
        } else {
            "full steps"
        },
        guesses.len()
    );
    let mut starts = Vec::new();
    for (name, guess) in guesses {
        starts.push((name.clone(), guess, None));
        if name == "interpolation" {
            starts.push((format!("{name}_nodes"), guess, Some(&interpolated)));
        }
    }
    let (mut traces, mut plans) = (String::new(), String::new());
    for (name, guess, nodes) in starts {
        let (mut times, mut cpus) = (Vec::new(), Vec::new());
        let mut last = None;
        for r in 0..repeats {
            let run = solve_sqp(guess, nodes, search)?;
            for (i, (t, c, j, d, s, q, a, n)) in run.trace.iter().enumerate() {
                writeln!(
                    traces,
                    "{name} {r} {i} {t:e} {c:e} {j:e} {d:e} {s:e} {q} {a:e} {n}"
                )?;
            }
            times.push(run.trace.last().map_or(0.0, |x| x.0));
            cpus.push(run.trace.last().map_or(0.0, |x| x.1));
            last = Some(run);
        }
        let run = last.ok_or("no run")?;
        let (cost, defect, step) = run
            .trace
            .last()
            .map_or((f64::NAN, f64::NAN, f64::NAN), |x| (x.2, x.3, x.4));
        let outcome = match &run.outcome {
            Outcome::Converged => "converged".to_string(),
            Outcome::Failed(e) => format!("failed ({e})"),
            Outcome::Capped => "not converged (iteration cap)".to_string(),
        };
        println!(
            "  {name}: {outcome}, {} iterations, cost {cost:.9e}, defect {defect:.1e}, step \
             {step:.1e}, {} inputs at a bound, {} node updates kept back, {:.1} ms CPU, {:.1} ms \
             wall (medians of {repeats})",
            run.trace.len(),
            run.controls
                .iter()
                .filter(|u| u[0].abs() >= U_MAX - 1e-6)
                .count(),
            run.skipped,
            median(cpus) * 1e3,
            median(times) * 1e3
        );
        let inputs: Vec<String> = run.controls.iter().map(|u| format!("{:e}", u[0])).collect();
        writeln!(plans, "{name} {}", inputs.join(" "))?;
    }
    if let Some(dir) = std::path::Path::new(out).parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(format!("{out}_trace.txt"), traces)?;
    std::fs::write(format!("{out}_plans.txt"), plans)?;
    println!("wrote {out}_trace.txt, {out}_plans.txt");
    Ok(())
}

/// A named first guess: the inputs over the horizon.
type Guess = (String, [SVector<f64, 1>; H_SWING]);

/// The guesses of `path`.
fn read_guesses(path: &str) -> Result<Vec<Guess>, Box<dyn std::error::Error>> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let mut words = line.split_whitespace();
        let name = words.next().ok_or("empty line")?.to_string();
        let values: Vec<f64> = words.map(str::parse).collect::<Result<_, _>>()?;
        if values.len() != H_SWING {
            return Err(format!(
                "{path}:{}: {} inputs, {H_SWING} expected",
                i + 1,
                values.len()
            )
            .into());
        }
        out.push((name, std::array::from_fn(|k| SVector::from([values[k]]))));
    }
    Ok(out)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1).cloned())
    };
    let path = arg("--guesses").unwrap_or_else(|| "benches/control/swingup_guesses.txt".into());
    let repeats: usize = arg("--repeats").map_or(Ok(3), |r| r.parse())?;
    let guesses = read_guesses(&path)?;
    match arg("--method").as_deref().unwrap_or("ddp") {
        "ddp" => {
            let out = arg("--out").unwrap_or_else(|| "examples/out/swingup_spark".into());
            run_ddp(&guesses, &path, &out, repeats)
        }
        "sqp" => {
            let out = arg("--out").unwrap_or_else(|| "examples/out/swingup_sqp".into());
            let search = args
                .iter()
                .any(|a| a == "--line-search")
                .then(LineSearch::default);
            run_sqp(&guesses, &out, repeats, search.as_ref())
        }
        m => Err(format!("--method {m}: `ddp` or `sqp` expected").into()),
    }
}

/// box-DDP from every guess of `guesses` (read from `path`), `repeats` times each; writes
/// `<out>_trace.txt`, `<out>_plans.txt` and `<out>_states.txt`.
fn run_ddp(
    guesses: &[Guess],
    path: &str,
    out: &str,
    repeats: usize,
) -> Result<(), Box<dyn std::error::Error>> {
    let (mut traces, mut plans, mut states) = (String::new(), String::new(), String::new());
    println!(
        "box-DDP from {} guesses of {path}, {repeats} runs each",
        guesses.len()
    );
    for (name, guess) in guesses {
        let (mut times, mut cpus) = (Vec::new(), Vec::new());
        let mut last = None;
        for r in 0..repeats {
            let run = solve(guess)?;
            for (i, (t, c, j)) in run.trace.iter().enumerate() {
                writeln!(traces, "{name} {r} {i} {t:e} {c:e} {j:e}")?;
            }
            times.push(run.trace.last().map_or(0.0, |x| x.0));
            cpus.push(run.trace.last().map_or(0.0, |x| x.1));
            last = Some(run);
        }
        let run = last.ok_or("no run")?;
        let cost = run.trace.last().map_or(f64::NAN, |x| x.2);
        println!(
            "  {name}: {} iterations, cost {cost:.9e}, final lean {:+.2e} rad, {} inputs at a \
             bound, {:.1} ms CPU, {:.1} ms wall (medians of {repeats})",
            run.iterations,
            run.states.last().map_or(f64::NAN, |z| z[1]),
            run.controls
                .iter()
                .filter(|u| u[0].abs() >= U_MAX - 1e-6)
                .count(),
            median(cpus) * 1e3,
            median(times) * 1e3
        );
        let inputs: Vec<String> = run.controls.iter().map(|u| format!("{:e}", u[0])).collect();
        writeln!(plans, "{name} {}", inputs.join(" "))?;
        for (k, z) in run.states.iter().enumerate() {
            writeln!(
                states,
                "{name} {k} {:e} {:e} {:e} {:e}",
                z[0], z[1], z[2], z[3]
            )?;
        }
    }
    if let Some(dir) = std::path::Path::new(out).parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(format!("{out}_trace.txt"), traces)?;
    std::fs::write(format!("{out}_plans.txt"), plans)?;
    std::fs::write(format!("{out}_states.txt"), states)?;
    println!("wrote {out}_trace.txt, {out}_plans.txt, {out}_states.txt");
    Ok(())
}
