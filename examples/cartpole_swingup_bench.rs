//! The swing-up plan of `cartpole_swingup` (box-DDP, 150 intervals of 20 ms, |u| ≤ 20 N) from
//! a set of first guesses, with the cost after every iteration and the time it was reached: the
//! spark side of the time-to-equal-cost comparison with CasADi + IPOPT
//! (`benches/control/casadi_swingup.py`, docs/performance.md).
//!
//! Reads the guesses (one per line: a name, then the 150 inputs; `#` starts a comment) from
//! `benches/control/swingup_guesses.txt` or the file given with `--guesses`, solves from each
//! `--repeats` times (default 3) and writes
//! - `<out>_trace.txt`: `guess repeat iteration wall cpu cost` for the rollout of the guess
//!   (iteration 0) and every iteration after it: wall-clock and thread CPU seconds since
//!   before the first rollout (CPU time from `clock_gettime`, NaN off 64-bit Linux);
//! - `<out>_plans.txt`: the final inputs from each guess, in the format of the guesses;
//! - `<out>_states.txt`: the final trajectory from each guess in minimal coordinates,
//!   `guess k xc θ vc ω` (θ the lean from upright), k = 0 … 150;
//!
//! with `<out>` = `examples/out/swingup_spark` or the `--out` argument. Prints per guess the
//! iterations, the final cost and the median solve time.
//!
//! `cargo run --release -p spark-examples --example cartpole_swingup_bench`

use std::fmt::Write as _;
use std::time::Instant;

use spark::control::ilqr::{Bounds, Ilqr, Settings};
use spark::nalgebra::SVector;
use spark::{GaussLobatto, Integrator};

// `models/cartpole.rs` draws its runs with `plot`.
include!("models/plot.rs");
include!("models/cartpole.rs");
include!("models/swingup.rs");

use cartpole::{CartPole, TC};
use swingup::{H_SWING, U_MAX};

/// Iteration budget per solve.
const MAX_ITERATIONS: usize = 1000;

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
    let out = arg("--out").unwrap_or_else(|| "examples/out/swingup_spark".into());
    let repeats: usize = arg("--repeats").map_or(Ok(3), |r| r.parse())?;
    let guesses = read_guesses(&path)?;
    let (mut traces, mut plans, mut states) = (String::new(), String::new(), String::new());
    println!(
        "box-DDP from {} guesses of {path}, {repeats} runs each",
        guesses.len()
    );
    for (name, guess) in &guesses {
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
        let median = |mut v: Vec<f64>| {
            v.sort_by(f64::total_cmp);
            v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
        };
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
    if let Some(dir) = std::path::Path::new(&out).parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(format!("{out}_trace.txt"), traces)?;
    std::fs::write(format!("{out}_plans.txt"), plans)?;
    std::fs::write(format!("{out}_states.txt"), states)?;
    println!("wrote {out}_trace.txt, {out}_plans.txt, {out}_states.txt");
    Ok(())
}
