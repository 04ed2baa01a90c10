//! A robustness study: NMPC holding the cart-pole upright over 1,000 perturbed plants, run
//! across the cores with a progress bar, one row per run written to
//! `examples/out/ensemble.parquet`.
//!
//! Each run draws its plant (cart mass, pole mass and cart damping each ±30 % of the nominal
//! model the controller predicts with) and its start (a lean of N(0, 0.1) rad and a lean rate
//! of N(0, 0.3) rad/s over the cart at rest), solves the first period to convergence, then
//! runs the controller of `cartpole_swingup`'s hold (1 s horizon, 2 real-time iterations per
//! 20 ms period, |u| ≤ 20 N) for 2 s. Each row holds the draws, whether the first solve
//! converged (else the controller starts from its last iterate), the final lean, the largest
//! lean over the last second, the largest input, the mean controller time per period and the
//! number of fallback periods. A run whose pole falls (|lean| > 0.5 rad) fails with that as its
//! status. One run (`--fail K`, default 500; `--fail none` for none) is handed a measured state
//! off the constraint manifold, as a sensor glitch would: the controller refuses it and the row
//! says why, while the other runs go on.
//!
//! ```text
//! cargo run --release --example ensemble                       # 1,000 runs, every core
//! cargo run --release --example ensemble -- --runs 200 --threads 1 --seed 7
//! cargo run --release --example ensemble -- --scaling          # 1, 2, ... cores, timed
//! SPARK_SHARD=3/8 cargo run --release --example ensemble       # shard 3 of 8 (or a Slurm array)
//! ```
//!
//! The file reads in pandas (`pd.read_parquet`), polars (`pl.read_parquet`) and DuckDB
//! (`SELECT status, count(*) FROM 'examples/out/ensemble.parquet' GROUP BY status`).

use spark::control::cost::Quadratic;
use spark::control::error::ControlError;
use spark::control::ilqr::{Bounds, Ilqr, Settings};
use spark::control::nmpc::Nmpc;
use spark::nalgebra::{SMatrix, SVector};
use spark::{GaussLobatto, Integrator, State};
use spark_ensemble::{read_parquet, Ensemble, Run, Shard};

include!("models/plot.rs");
include!("models/cartpole.rs");
include!("models/swingup.rs");

use cartpole::{cartesian, minimal, CartPole, TC, V4};
use swingup::{upright, weights, U_MAX};

/// The horizon (1 s).
const H: usize = 50;
/// Plant steps per control period.
const PLANT_STEPS: usize = 4;
/// The hold's length (s).
const HOLD: f64 = 2.0;

/// The values each row reports, in order.
const COLUMNS: [&str; 6] = [
    "first_converged",
    "final_lean",
    "last_second_lean",
    "max_u",
    "period_us",
    "fallbacks",
];

/// One run: a drawn plant and start, held by NMPC for `HOLD` seconds.
fn hold(run: &mut Run, glitch: Option<usize>) -> Result<[f64; 6], String> {
    let p = CartPole::default();
    let plant_model = CartPole {
        mc: p.mc * run.uniform("cart_mass_scale", 0.7, 1.3),
        m: p.m * run.uniform("pole_mass_scale", 0.7, 1.3),
        c: p.c * run.uniform("damping_scale", 0.7, 1.3),
        ..p
    };
    let lean0 = run.normal("lean0", 0.0, 0.1);
    let rate0 = run.normal("rate0", 0.0, 0.3);
    let mut s = cartesian(&p, 0.0, &V4::new(0.0, lean0, 0.0, rate0));

    let e = |e: spark::Error| e.to_string();
    let c = |e: ControlError| e.to_string();
    let mut model = Integrator::<CartPole, GaussLobatto<2>>::new(p, TC).map_err(e)?;
    let mut plant =
        Integrator::<CartPole, GaussLobatto<2>>::new(plant_model, TC / PLANT_STEPS as f64)
            .map_err(e)?;
    let bounds = Bounds::<1>::symmetric(U_MAX);
    let lin = cartpole::linearized(&p);
    let costs = cartpole::costs();
    let cost = Quadratic::<6, 1> {
        q: weights(10.0, 1.0, 0.1),
        r: SMatrix::identity() * 1e-2,
        qf: weights(100.0, 10.0, 1.0),
        x_ref: upright(p.l),
        u_ref: SVector::zeros(),
    };
    let settings = Settings::default();
    // What the controller measures: the state, or (the injected failure) the state with the
    // pole 10 % longer than the rod, off the constraint manifold.
    let measured = |s: &State<3>| {
        let mut m = *s;
        if glitch == Some(run.index()) {
            m.q[1] = m.q[0] + 1.1 * (s.q[1] - s.q[0]);
            m.q[2] *= 1.1;
        }
        m
    };
    // The first guess: the inputs of the hand-derived LQR (`models/cartpole.rs`) rolled out
    // on the model over the horizon. From zero inputs the pole falls within the horizon and
    // the first solve ends in a poor local minimum from about 0.1 rad of lean on.
    let (a, b) = cartpole::zoh(&lin.0, &lin.1, TC);
    let gain = cartpole::lqr(&a, &b, &costs.0, costs.1)?;
    let mut guess = [SVector::<f64, 1>::zeros(); H];
    let mut x = measured(&s);
    for g in guess.iter_mut() {
        let u = (-(gain * minimal(&p, &x))[0]).clamp(-U_MAX, U_MAX);
        *g = SVector::from([u]);
        model.system_mut().u = u;
        if model.step(&mut x).is_err() {
            break;
        }
    }
    let mut first = Ilqr::<3, 1, 4, H>::new(measured(&s), guess);
    first.initialize(&mut model, &cost, &bounds).map_err(c)?;
    // From zero inputs the first solve may run out of iterations at a tight tolerance with a
    // plan that holds: the controller starts from its last iterate and the row says so.
    let converged = match first.solve(&mut model, &cost, &bounds, &settings) {
        Ok(_) => 1.0,
        Err(ControlError::NoConvergence { .. }) => 0.0,
        Err(err) => return Err(c(err)),
    };
    let mut mpc = Nmpc::from_solver(first, 2, settings);

    let periods = (HOLD / TC).round() as usize;
    let last = periods - (1.0 / TC).round() as usize;
    let (mut max_u, mut last_second, mut fallbacks, mut busy) = (0.0f64, 0.0f64, 0usize, 0.0);
    for i in 0..periods {
        let t0 = std::time::Instant::now();
        let (u, stats) = mpc
            .control(&mut model, &cost, &bounds, &measured(&s))
            .map_err(c)?;
        busy += t0.elapsed().as_secs_f64();
        fallbacks += usize::from(stats.fallback.is_some());
        max_u = max_u.max(u[0].abs());
        plant.system_mut().u = u[0];
        for _ in 0..PLANT_STEPS {
            plant.step(&mut s).map_err(e)?;
        }
        let th = minimal(&p, &s)[1];
        if th.abs() > 0.5 {
            return Err(format!(
                "the pole fell: lean {th:.2} rad at t = {:.2} s",
                s.t
            ));
        }
        if i >= last {
            last_second = last_second.max(th.abs());
        }
    }
    Ok([
        converged,
        minimal(&p, &s)[1],
        last_second,
        max_u,
        busy / periods as f64 * 1e6,
        fallbacks as f64,
    ])
}

struct Options {
    runs: usize,
    threads: usize,
    seed: u64,
    glitch: Option<usize>,
    scaling: bool,
}

fn options() -> Result<Options, String> {
    let mut o = Options {
        runs: 1000,
        threads: 0,
        seed: 2026,
        glitch: Some(500),
        scaling: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = |what: &str| {
            args.next()
                .ok_or_else(|| format!("{a} needs a value ({what})"))
        };
        let number = |v: String| {
            v.parse::<u64>()
                .map_err(|_| format!("{a} {v}: not a whole number"))
        };
        match a.as_str() {
            "--runs" => o.runs = number(value("the number of runs")?)? as usize,
            "--threads" => o.threads = number(value("0 for every core")?)? as usize,
            "--seed" => o.seed = number(value("the seed")?)?,
            "--fail" => {
                let v = value("a run index, or none")?;
                o.glitch = if v == "none" {
                    None
                } else {
                    Some(number(v)? as usize)
                }
            }
            "--scaling" => o.scaling = true,
            _ => {
                return Err(format!(
                    "unknown argument {a}: expected --runs N, --threads T, --seed S, \
                     --fail K|none, --scaling"
                ))
            }
        }
    }
    Ok(o)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let o = options()?;
    let shard = Shard::from_env()?;
    let glitch = o.glitch;
    let ensemble = Ensemble::new(o.runs).seed(o.seed).shard(shard);
    if o.scaling {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let mut one = None;
        for threads in 1..=cores {
            let r = ensemble
                .clone()
                .threads(threads)
                .run(&COLUMNS, |run| hold(run, glitch));
            let t1 = *one.get_or_insert(r.seconds());
            println!(
                "scaling: {threads} threads, {} runs in {:.1} s, speed-up {:.2}",
                r.records().len(),
                r.seconds(),
                t1 / r.seconds()
            );
        }
    }
    let results = ensemble
        .threads(o.threads)
        .run(&COLUMNS, |run| hold(run, glitch));
    println!("{results}");
    for r in results.failed() {
        println!("  run {} failed: {}", r.index(), r.status());
    }
    let held: Vec<f64> = results
        .ok()
        .filter_map(|r| r.value("last_second_lean"))
        .collect();
    if let Some(worst) = held.iter().cloned().reduce(f64::max) {
        println!(
            "  held: {} runs, largest lean over the last second {worst:.2e} rad",
            held.len()
        );
    }
    std::fs::create_dir_all("examples/out")?;
    let path = if shard == Shard::ALL {
        "examples/out/ensemble.parquet".to_owned()
    } else {
        format!(
            "examples/out/ensemble-{}-of-{}.parquet",
            shard.index(),
            shard.count()
        )
    };
    results.write_parquet(&path)?;
    let table = read_parquet(&path)?;
    println!(
        "wrote {path}: {} rows, columns {}",
        table.rows.len(),
        table.columns.join(", ")
    );
    if table.rows.len() != results.records().len() {
        return Err("the file does not hold one row per run".into());
    }
    Ok(())
}
