//! Performance of (s,s)-Gauss-Lobatto SPARK on the planar N-link pendulum chains of the CasADi
//! peer benchmark (`../shared/peers/casadi/`), N = 1, 2, 4, 8, 16. See `docs/performance.md`.
//!
//! ```sh
//! cargo run --release --example chain_bench -- [short|long|floor|stack|all] [--n 1,2] [--s 2] [--h 0.01]
//! ```
//!
//! * `short`: global error at T = 2 against the peers' reference (`results/reference.json`)
//!   and CPU time per step and per simulated second, S = 1, 2, 3, h = 0.02 .. 0.0025.
//! * `long`: T = 10⁴, N = 1, 2, 4: max energy error and max constraint residuals (sampled
//!   every 10 steps) and the CPU time.
//! * `floor`: the function and derivative evaluations one full-Newton stage iteration needs
//!   (S × `dynamics_jacobian` + S × `constraint_jacobian`), timed in isolation, and each step's
//!   cost as a multiple of it and of the evaluations it actually makes.
//! * `count`: a fixed number of untimed steps, for instruction counters (see `count`).
//! * `stack`: stack bytes used by one `Integrator::step` (stack painting in a thread).
//!
//! Besides the tables it prints one `RESULT key=value ...` line per measurement, which
//! `benches/peers.sh` joins with the peers' numbers. Times are process CPU time
//! (`CLOCK_PROCESS_CPUTIME_ID`, as the peers' `driver.c`), best of several repetitions.

use std::hint::black_box;
use std::time::Instant;

use spark::{GaussLobatto, Integrator, Lagrangian, Method, Options, State};

include!("models/chain.rs");

// ---- clocks ------------------------------------------------------------------------------------

include!("models/cpu_time.rs");
use cpu_time::process as cpu_seconds;

// ---- options -----------------------------------------------------------------------------------

struct Args {
    mode: String,
    ns: Vec<usize>,
    ss: Vec<usize>,
    /// `None`: the mode's default step sizes.
    hs: Option<Vec<f64>>,
}

fn parse_list<T: std::str::FromStr>(s: &str) -> Vec<T> {
    s.split(',')
        .map(|x| {
            x.trim()
                .parse()
                .ok()
                .expect("a comma-separated list of numbers")
        })
        .collect()
}

fn args() -> Args {
    let mut a = Args {
        mode: "all".into(),
        ns: vec![1, 2, 4, 8, 16],
        ss: vec![1, 2, 3],
        hs: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(x) = it.next() {
        match x.as_str() {
            "--n" => a.ns = parse_list(&it.next().expect("--n LIST")),
            "--s" => a.ss = parse_list(&it.next().expect("--s LIST")),
            "--h" => a.hs = Some(parse_list(&it.next().expect("--h LIST"))),
            "--bench" => {} // passed by `cargo bench`-style runners; ignore
            m => a.mode = m.to_string(),
        }
    }
    a
}

// ---- reference solution ------------------------------------------------------------------------

/// `q(T)` of the peers' reference for the chain with `n` links, read from
/// `../shared/peers/casadi/results/reference.json` (or `$SPARK_PEERS/results/reference.json`)
/// with a parser that knows just this file's shape: `"N": { "<n>": { "qT": [ ... ], ... } }`.
fn reference_q(n: usize) -> Option<Vec<f64>> {
    let dir = std::env::var("SPARK_PEERS").unwrap_or_else(|_| {
        concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/peers/casadi").into()
    });
    let text = std::fs::read_to_string(format!("{dir}/results/reference.json")).ok()?;
    let all = &text[text.find("\"N\"")?..];
    let this = &all[all.find(&format!("\"{n}\":"))?..];
    let q = &this[this.find("\"qT\"")?..];
    let list = &q[q.find('[')? + 1..q.find(']')?];
    list.split(',').map(|x| x.trim().parse().ok()).collect()
}

// ---- one configuration ---------------------------------------------------------------------------

/// The peers' start, consistent, for a chain with `N` coordinates.
fn start<Sys: Lagrangian<N, M> + Default, Meth: Method, const N: usize, const M: usize>() -> State<N>
{
    let sim = Integrator::<Sys, Meth>::new(Sys::default(), 0.01).unwrap();
    let mut s = State::new(0.0, chain_q0::<N>(), [0.0; N]);
    sim.project(&mut s).unwrap();
    s
}

struct Short {
    err: f64,
    us_per_step: f64,
    newton_per_step: f64,
    /// Of which in the end-point solve.
    end_per_step: f64,
    max_g: f64,
    steps: usize,
    reps: usize,
}

/// Integrates to T = 2 with step `h`: best CPU time over several repetitions (at least 3 and
/// 0.3 s in all, at most 30), error against the reference.
fn short_run<Sys, Meth, const N: usize, const M: usize>(h: f64, reference: &[f64]) -> Short
where
    Sys: Lagrangian<N, M> + Default,
    Meth: Method,
{
    let steps = (CHAIN_T_END / h).round() as usize;
    let s0 = start::<Sys, Meth, N, M>();
    let mut sim = Integrator::<Sys, Meth>::new(Sys::default(), h).unwrap();
    let mut best = f64::INFINITY;
    let mut spent = 0.0;
    let mut reps = 0;
    let mut s = s0;
    let mut newton = 0u64;
    let mut end = 0u64;
    while reps < 3 || (spent < 0.3 && reps < 30) {
        s = s0;
        newton = 0;
        end = 0;
        let c0 = cpu_seconds();
        for _ in 0..steps {
            if let Err(e) = sim.step(black_box(&mut s)) {
                // Too large a step for this chain: reported as NaN, not a crash.
                eprintln!("{N} coordinates, h = {h}: step failed at t = {}: {e}", s.t);
                return Short {
                    err: f64::NAN,
                    us_per_step: f64::NAN,
                    newton_per_step: f64::NAN,
                    end_per_step: f64::NAN,
                    max_g: f64::NAN,
                    steps,
                    reps,
                };
            }
            let st = sim.last_step_stats();
            newton += u64::from(st.stage_iterations + st.end_iterations);
            end += u64::from(st.end_iterations);
        }
        let dt = cpu_seconds() - c0;
        best = best.min(dt);
        spent += dt;
        reps += 1;
    }
    let err =
        s.q.iter()
            .zip(reference)
            .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
    Short {
        err,
        us_per_step: best / steps as f64 * 1e6,
        newton_per_step: newton as f64 / steps as f64,
        end_per_step: end as f64 / steps as f64,
        max_g: sim.constraint_residual(&s).0,
        steps,
        reps,
    }
}

struct Long {
    cpu_s: f64,
    max_de: f64,
    max_g: f64,
    max_gv: f64,
    steps: usize,
}

/// Integrates to T = 10⁴, sampling the energy error and the residuals every 10 steps (the
/// samples are inside the timed loop; they cost well under 1 % of a step).
fn long_run<Sys, Meth, const N: usize, const M: usize>(h: f64, t_end: f64) -> Long
where
    Sys: Lagrangian<N, M> + Default,
    Meth: Method,
{
    let steps = (t_end / h).round() as usize;
    let mut s = start::<Sys, Meth, N, M>();
    let mut sim = Integrator::<Sys, Meth>::new(Sys::default(), h).unwrap();
    let e0 = sim.energy(&s);
    let (mut max_de, mut max_g, mut max_gv) = (0.0f64, 0.0f64, 0.0f64);
    let c0 = cpu_seconds();
    for k in 0..steps {
        sim.step(&mut s).unwrap();
        if k % 10 == 9 {
            max_de = max_de.max((sim.energy(&s) - e0).abs());
            let (g, gv) = sim.constraint_residual(&s);
            max_g = max_g.max(g);
            max_gv = max_gv.max(gv);
        }
    }
    Long {
        cpu_s: cpu_seconds() - c0,
        max_de,
        max_g,
        max_gv,
        steps,
    }
}

struct Floor {
    /// `dynamics_jacobian` (p, f and the three second-derivative blocks).
    dyn_ns: f64,
    /// `constraint_jacobian` (g, G and the Hessians contracted with a multiplier).
    cons_ns: f64,
    /// `constraint_gradient` (g and G).
    grad_ns: f64,
    /// `velocity_constraint_jacobian`.
    vel_ns: f64,
    /// `momentum_force` (p and f).
    mf_ns: f64,
    /// `constraints` (g).
    g_ns: f64,
}

/// Times, in isolation, each model evaluation the step calls, at states along the trajectory.
fn floor_evals<Sys, const N: usize, const M: usize>() -> Floor
where
    Sys: Lagrangian<N, M> + Default,
{
    // 64 states of the first simulated second, so the timings see realistic arguments.
    let mut s = start::<Sys, GaussLobatto<2>, N, M>();
    let mut sim = Integrator::<Sys, GaussLobatto<2>>::new(Sys::default(), 1.0 / 64.0).unwrap();
    let mut states = Vec::new();
    for _ in 0..64 {
        sim.step(&mut s).unwrap();
        states.push(s);
    }
    let sys = Sys::default();
    let mu = spark::nalgebra::SVector::<f64, M>::from_fn(|i, _| 0.01 * (i as f64 + 1.0));
    let time = |f: &dyn Fn(&State<N>)| -> f64 {
        let mut best = f64::INFINITY;
        for _ in 0..7 {
            let reps = 200;
            let t0 = Instant::now();
            for _ in 0..reps {
                for st in &states {
                    f(black_box(st));
                }
            }
            best = best.min(t0.elapsed().as_secs_f64() / (reps * states.len()) as f64);
        }
        best * 1e9
    };
    Floor {
        dyn_ns: time(&|st| {
            black_box(sys.dynamics_jacobian(st.t, &st.q, &st.v));
        }),
        cons_ns: time(&|st| {
            black_box(sys.constraint_jacobian(st.t, &st.q, black_box(&mu)));
        }),
        grad_ns: time(&|st| {
            black_box(sys.constraint_gradient(st.t, &st.q));
        }),
        vel_ns: time(&|st| {
            black_box(sys.velocity_constraint_jacobian(st.t, &st.q, &st.v));
        }),
        mf_ns: time(&|st| {
            black_box(sys.momentum_force(st.t, &st.q, &st.v));
        }),
        g_ns: time(&|st| {
            black_box(sys.constraints(st.t, &st.q));
        }),
    }
}

// ---- stack -------------------------------------------------------------------------------------

include!("models/stack.rs");

fn stack_step<Sys, Meth, const N: usize, const M: usize>() -> usize
where
    Sys: Lagrangian<N, M> + Default,
    Meth: Method,
{
    let mut s = start::<Sys, Meth, N, M>();
    let mut sim = Integrator::<Sys, Meth>::new(Sys::default(), 0.01).unwrap();
    sim.step(&mut s).unwrap();
    let mut run = || {
        sim.step(black_box(&mut s)).unwrap();
    };
    stack::measure(&mut run)
}

// ---- dispatch ----------------------------------------------------------------------------------

/// Calls `$f::<ChainN, GaussLobatto<S>, 2N, N>` for the requested N and S.
macro_rules! dispatch {
    ($n:expr, $s:expr, $f:ident ( $($arg:expr),* )) => {
        match ($n, $s) {
            (1, 1) => $f::<Chain1, GaussLobatto<1>, 2, 1>($($arg),*),
            (1, 2) => $f::<Chain1, GaussLobatto<2>, 2, 1>($($arg),*),
            (1, 3) => $f::<Chain1, GaussLobatto<3>, 2, 1>($($arg),*),
            (2, 1) => $f::<Chain2, GaussLobatto<1>, 4, 2>($($arg),*),
            (2, 2) => $f::<Chain2, GaussLobatto<2>, 4, 2>($($arg),*),
            (2, 3) => $f::<Chain2, GaussLobatto<3>, 4, 2>($($arg),*),
            (4, 1) => $f::<Chain4, GaussLobatto<1>, 8, 4>($($arg),*),
            (4, 2) => $f::<Chain4, GaussLobatto<2>, 8, 4>($($arg),*),
            (4, 3) => $f::<Chain4, GaussLobatto<3>, 8, 4>($($arg),*),
            (8, 1) => $f::<Chain8, GaussLobatto<1>, 16, 8>($($arg),*),
            (8, 2) => $f::<Chain8, GaussLobatto<2>, 16, 8>($($arg),*),
            (8, 3) => $f::<Chain8, GaussLobatto<3>, 16, 8>($($arg),*),
            (16, 1) => $f::<Chain16, GaussLobatto<1>, 32, 16>($($arg),*),
            (16, 2) => $f::<Chain16, GaussLobatto<2>, 32, 16>($($arg),*),
            (16, 3) => $f::<Chain16, GaussLobatto<3>, 32, 16>($($arg),*),
            (n, s) => panic!("no chain N = {n} with S = {s} (N: 1, 2, 4, 8, 16; S: 1, 2, 3)"),
        }
    };
}

/// `count`: exactly `steps` steps (default 1000) of each chain and S, untimed, for an
/// instruction counter: `valgrind --tool=callgrind --toggle-collect='*count_steps*'
/// target/release/examples/chain_bench count --n 8 --s 2` gives instructions per step as the
/// collected total divided by the step count. Steady on a loaded machine, unlike CPU time.
fn count(a: &Args) {
    let steps = std::env::var("CHAIN_STEPS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1000usize);
    let h = a.hs.as_ref().map_or(0.01, |v| v[0]);
    for &n in &a.ns {
        for &s in &a.ss {
            let q = dispatch!(n, s, count_steps(h, steps));
            println!("N = {n}, S = {s}, h = {h}: {steps} steps, q[0] = {q:.6}");
        }
    }
}

#[inline(never)]
fn count_steps<Sys, Meth, const N: usize, const M: usize>(h: f64, steps: usize) -> f64
where
    Sys: Lagrangian<N, M> + Default,
    Meth: Method,
{
    let mut s = start::<Sys, Meth, N, M>();
    let mut sim = Integrator::<Sys, Meth>::new(Sys::default(), h).unwrap();
    for _ in 0..steps {
        sim.step(black_box(&mut s)).unwrap();
    }
    s.q[0]
}

/// `jacobian`: CPU time per step of `step` and of `step_with_jacobian` (the step plus its exact
/// Jacobian with respect to the state and the inputs), best of 5 runs of 200 steps from the
/// peers' start, and their ratio.
fn jacobian(a: &Args) {
    println!("## step_with_jacobian against step (h = 0.01 unless --h)\n");
    println!("| N | S | step µs | step_with_jacobian µs | ratio |");
    println!("|---|---|---|---|---|");
    let h = a.hs.as_ref().map_or(0.01, |v| v[0]);
    for &n in &a.ns {
        for &s in &a.ss {
            let (plain, with) = dispatch!(n, s, jacobian_times(h));
            println!(
                "| {n} | {s} | {plain:.3} | {with:.3} | {:.1} |",
                with / plain
            );
            println!("RESULT kind=jacobian N={n} S={s} step_us={plain:.4} jac_us={with:.4}");
        }
    }
}

fn jacobian_times<Sys, Meth, const N: usize, const M: usize>(h: f64) -> (f64, f64)
where
    Sys: Lagrangian<N, M> + Default + spark::Inputs<N, 0>,
    Meth: Method,
{
    // `CHAIN_JAC_STEPS` (default 200) lengthens the runs for a sampling profiler.
    let steps = std::env::var("CHAIN_JAC_STEPS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(200usize);
    let (mut plain, mut with) = (f64::INFINITY, f64::INFINITY);
    for _ in 0..5 {
        let mut s = start::<Sys, Meth, N, M>();
        // The main thread's stack (8 MiB) holds the 16-link chain's Jacobian at S = 3 (about
        // 1.7 MB, above the default limit, which is for 2 MiB threads).
        let options = Options {
            jacobian_stack_limit: 4 << 20,
            ..Options::default()
        };
        let mut sim = Integrator::<Sys, Meth>::new(Sys::default(), h)
            .unwrap()
            .with_options(options);
        let t0 = Instant::now();
        for _ in 0..steps {
            sim.step(black_box(&mut s)).unwrap();
        }
        plain = plain.min(t0.elapsed().as_secs_f64() * 1e6 / steps as f64);
        let mut s = start::<Sys, Meth, N, M>();
        let t0 = Instant::now();
        for _ in 0..steps {
            let j = sim.step_with_jacobian(black_box(&mut s)).unwrap();
            black_box(&j);
        }
        with = with.min(t0.elapsed().as_secs_f64() * 1e6 / steps as f64);
    }
    (plain, with)
}

fn floor_of(n: usize) -> Floor {
    match n {
        1 => floor_evals::<Chain1, 2, 1>(),
        2 => floor_evals::<Chain2, 4, 2>(),
        4 => floor_evals::<Chain4, 8, 4>(),
        8 => floor_evals::<Chain8, 16, 8>(),
        16 => floor_evals::<Chain16, 32, 16>(),
        n => panic!("no chain N = {n}"),
    }
}

// ---- modes -------------------------------------------------------------------------------------

fn short(a: &Args) {
    println!("## Short horizon: T = 2, error max_i |q_i(T) - q_ref,i(T)|\n");
    println!("| N | S | order | h | err | cpu µs/step | cpu s/sim-s | Newton it./step (stage+end) | max\\|g(q_T)\\| | reps |");
    println!("|---|---|---|---|---|---|---|---|---|---|");
    let hs = a.hs.clone().unwrap_or(vec![0.02, 0.01, 0.005, 0.0025]);
    for &n in &a.ns {
        let reference = reference_q(n).unwrap_or_else(|| {
            eprintln!("warning: no reference for N = {n}; errors are NaN");
            vec![f64::NAN; 2 * n]
        });
        for &s in &a.ss {
            for &h in &hs {
                let r = dispatch!(n, s, short_run(h, &reference));
                println!(
                    "| {n} | {s} | {} | {h} | {:.2e} | {:.3} | {:.3e} | {:.2}+{:.2} | {:.1e} | {} |",
                    2 * s,
                    r.err,
                    r.us_per_step,
                    r.us_per_step * 1e-6 / h,
                    r.newton_per_step - r.end_per_step,
                    r.end_per_step,
                    r.max_g,
                    r.reps
                );
                println!(
                    "RESULT kind=short N={n} S={s} h={h} steps={} err={:.3e} us_per_step={:.4} newton={:.3} maxg={:.2e}",
                    r.steps, r.err, r.us_per_step, r.newton_per_step, r.max_g
                );
            }
        }
    }
    println!();
}

fn long(a: &Args) {
    let t_end: f64 = std::env::var("SPARK_LONG_T")
        .ok()
        .and_then(|x| x.parse().ok())
        .unwrap_or(1e4);
    let ns: Vec<usize> = a.ns.iter().copied().filter(|n| *n <= 4).collect();
    let hs = a.hs.clone().unwrap_or(vec![0.01]);
    println!("## Long horizon: T = {t_end:e}, sampled every 10 steps\n");
    println!("| N | S | h | steps | cpu s | cpu µs/step | max\\|E - E0\\| | max\\|g\\| | max\\|g_t + G v\\| |");
    println!("|---|---|---|---|---|---|---|---|---|");
    for &n in &ns {
        for &s in &a.ss {
            for &h in &hs {
                let r = dispatch!(n, s, long_run(h, t_end));
                println!(
                    "| {n} | {s} | {h} | {} | {:.2} | {:.3} | {:.2e} | {:.1e} | {:.1e} |",
                    r.steps,
                    r.cpu_s,
                    r.cpu_s / r.steps as f64 * 1e6,
                    r.max_de,
                    r.max_g,
                    r.max_gv
                );
                println!(
                    "RESULT kind=long N={n} S={s} h={h} T={t_end} cpu_s={:.4} max_de={:.3e} max_g={:.2e} max_gv={:.2e}",
                    r.cpu_s, r.max_de, r.max_g, r.max_gv
                );
            }
        }
    }
    println!();
}

fn floor(a: &Args) {
    let h = 0.01;
    println!("## Evaluation floor (h = {h})\n");
    println!("Per call, ns: `dynamics_jacobian` (p, f, L_vv, L_vq, L_qq), `constraint_jacobian` (g, G, Σμ∇²g), `constraint_gradient` (g, G), `velocity_constraint_jacobian`, `momentum_force` (p, f), `constraints` (g).");
    println!("floor = S × (dynamics_jacobian + constraint_jacobian): the evaluations of one full-Newton stage iteration.");
    println!("evals/step = what the step evaluates: at the start vel + g + dyn + grad, and mf + vel at the predicted midpoint (the stages' starting values; constant mass); per stage pass (each Newton correction and the final pass at the converged stages) S × mf + S × grad; per end-point iteration vel + dyn.\n");
    println!("| N | dyn ns | cons ns | grad ns | vel ns | mf ns | g ns | S | floor µs | step µs | step / floor | evals/step µs | step / evals | Newton it. (stage+end) |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for &n in &a.ns {
        let f = floor_of(n);
        let reference = vec![0.0; 2 * n];
        for &s in &a.ss {
            let r = dispatch!(n, s, short_run(h, &reference));
            let sf = s as f64;
            let floor_ns = sf * (f.dyn_ns + f.cons_ns);
            // Iteration counts of this run (h = 0.01, S stages), averaged over its steps.
            let (ks, ke) = dispatch!(n, s, iterations(h));
            let evals_ns = f.vel_ns
                + f.g_ns
                + f.dyn_ns
                + f.grad_ns
                + f.mf_ns
                + f.vel_ns
                + (ks + 1.0) * sf * (f.mf_ns + f.grad_ns)
                + ke * (f.vel_ns + f.dyn_ns);
            println!(
                "| {n} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} | {s} | {:.3} | {:.3} | {:.1} | {:.3} | {:.1} | {:.2}+{:.2} |",
                f.dyn_ns,
                f.cons_ns,
                f.grad_ns,
                f.vel_ns,
                f.mf_ns,
                f.g_ns,
                floor_ns * 1e-3,
                r.us_per_step,
                r.us_per_step * 1e3 / floor_ns,
                evals_ns * 1e-3,
                r.us_per_step * 1e3 / evals_ns,
                ks,
                ke
            );
            println!(
                "RESULT kind=floor N={n} S={s} floor_us={:.4} step_us={:.4} evals_us={:.4}",
                floor_ns * 1e-3,
                r.us_per_step,
                evals_ns * 1e-3
            );
        }
    }
    println!();
}

fn iterations<Sys, Meth, const N: usize, const M: usize>(h: f64) -> (f64, f64)
where
    Sys: Lagrangian<N, M> + Default,
    Meth: Method,
{
    let steps = (CHAIN_T_END / h).round() as usize;
    let mut s = start::<Sys, Meth, N, M>();
    let mut sim = Integrator::<Sys, Meth>::new(Sys::default(), h).unwrap();
    let (mut a, mut b) = (0u64, 0u64);
    for _ in 0..steps {
        sim.step(&mut s).unwrap();
        let st = sim.last_step_stats();
        a += u64::from(st.stage_iterations);
        b += u64::from(st.end_iterations);
    }
    (a as f64 / steps as f64, b as f64 / steps as f64)
}

fn stack_mode(a: &Args) {
    println!("## Stack bytes used by one `Integrator::step` (x86_64, release; painted stack)\n");
    println!("| N | S | stack bytes | size_of Integrator | size_of State |");
    println!("|---|---|---|---|---|");
    for &n in &a.ns {
        for &s in &a.ss {
            let handle = std::thread::Builder::new()
                .stack_size(4 * stack::DEPTH)
                .spawn(move || dispatch!(n, s, stack_step()))
                .unwrap();
            let bytes = handle.join().unwrap();
            let state = 8 + 2 * 8 * 2 * n;
            let integ = size_of_integrator(n);
            println!("| {n} | {s} | {bytes} | {integ} | {state} |");
            println!("RESULT kind=stack N={n} S={s} bytes={bytes}");
        }
    }
    println!();
}

fn size_of_integrator(n: usize) -> usize {
    match n {
        1 => std::mem::size_of::<Integrator<Chain1, GaussLobatto<2>>>(),
        2 => std::mem::size_of::<Integrator<Chain2, GaussLobatto<2>>>(),
        4 => std::mem::size_of::<Integrator<Chain4, GaussLobatto<2>>>(),
        8 => std::mem::size_of::<Integrator<Chain8, GaussLobatto<2>>>(),
        _ => std::mem::size_of::<Integrator<Chain16, GaussLobatto<2>>>(),
    }
}

fn main() {
    let a = args();
    println!(
        "# chain_bench {} (N = {:?}, S = {:?}, h = {:?}; None = the mode's default)\n",
        a.mode, a.ns, a.ss, a.hs
    );
    match a.mode.as_str() {
        "short" => short(&a),
        "long" => long(&a),
        "floor" => floor(&a),
        "count" => count(&a),
        "stack" => stack_mode(&a),
        "jacobian" => jacobian(&a),
        "all" => {
            short(&a);
            floor(&a);
            stack_mode(&a);
            long(&a);
        }
        m => {
            eprintln!("unknown mode {m}: short | long | floor | count | stack | jacobian | all");
            std::process::exit(2);
        }
    }
}
