//! spark's side of the Panda's work-precision beside Pinocchio (ABA + RK4) and MuJoCo (issue 29,
//! `docs/performance.md`): the Panda of `tests/models/panda/panda.urdf` (no inputs, the URDF's
//! joint damping 0.003 N m s per joint), passive for `T = 2 s` from two starts: `swing`, the arm
//! bent downwards swinging about its hanging equilibrium (the fastest joint at about 6 rad/s at
//! 2 s), and `fall`, the arm bent up in its workspace collapsing under gravity (joint limits are
//! not enforced; the wrist whips round, about 50 rad/s at 2 s).
//!
//! Prints, one tagged line each, in full precision (read by `benches/panda_work_precision.py`):
//! - `start MOTION`: the start state `q`, `v`;
//! - `accel`: `Integrator::acceleration` at six states (`q`, `v`, `a`), the states at which the
//!   script checks that Pinocchio and MuJoCo integrate the same ODE;
//! - `ref MOTION`: the end state of GL3 and GL4 at small steps (the reference's cross-check);
//! - `run MOTION`: for (2,2)-, (3,3)- and (4,4)-Gauss-Lobatto SPARK over a range of steps, the
//!   CPU seconds per simulated second (process CPU time, the least of at least 3 repetitions and
//!   0.3 s) and the end state `q`, `v`.
//!
//! `RUSTFLAGS="-C target-cpu=native" cargo run --profile production -p spark-examples --example panda_work_precision > benches/panda_work_precision_spark.txt`

use spark::{GaussLobatto, Integrator, Method, State};

include!("models/cpu_time.rs");

// The path is relative to this crate's Cargo.toml (examples/), hence `../tests/models/`.
spark::mechanics! {
    /// The Panda arm of `example-robot-data` 6.0.0, its fingers removed; passive (no inputs).
    pub struct Panda {
        urdf: "../tests/models/panda/panda.urdf",
    }
}

/// Joints.
const N: usize = 7;
/// Simulated time of every run.
const T: f64 = 2.0;
/// The start rates (radians per second), the same for both motions.
const V0: [f64; N] = [0.5, -0.4, 0.6, 0.3, -0.8, 0.7, 1.0];
/// The start angles (radians) of `swing`: the upper arm bent down past horizontal.
const SWING: [f64; N] = [0.3, 2.6, 0.4, -0.4, 0.5, 1.6, 0.7];
/// The start angles (radians) of `fall`: a bent pose in the workspace (within the joint limits).
const FALL: [f64; N] = [0.3, -0.5, 0.4, -2.0, 0.5, 1.6, 0.7];

fn words(x: &[f64]) -> String {
    x.iter()
        .map(|v| format!("{v:.17e}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Steps from the start to `T` with step `h`; `None` if a step fails.
fn run<Meth: Method>(q0: [f64; N], h: f64) -> Option<State<N>> {
    let mut sim = Integrator::<Panda, Meth>::new(Panda::default(), h).ok()?;
    let mut s = State::new(0.0, q0, V0);
    for _ in 0..(T / h).round() as usize {
        sim.step(&mut s).ok()?;
    }
    Some(s)
}

/// The end state and the least CPU seconds per simulated second over the repetitions.
fn timed<Meth: Method>(q0: [f64; N], h: f64) -> Option<(State<N>, f64)> {
    let (mut best, mut total, mut reps) = (f64::INFINITY, 0.0, 0);
    let mut end = None;
    while reps < 3 || (total < 0.3 && reps < 50) {
        let c0 = cpu_time::process();
        end = Some(std::hint::black_box(run::<Meth>(q0, h))?);
        let c = cpu_time::process() - c0;
        best = best.min(c);
        total += c;
        reps += 1;
    }
    end.map(|s| (s, best / T))
}

fn report<Meth: Method>(motion: &str, q0: [f64; N], label: &str, h: f64) {
    match timed::<Meth>(q0, h) {
        Some((s, cpu)) => println!(
            "run {motion} {label} {h:e} {cpu:.6e} {} {}",
            words(s.q.as_slice()),
            words(s.v.as_slice())
        ),
        None => println!("run {motion} {label} {h:e} failed"),
    }
}

fn main() {
    println!("# output of examples/panda_work_precision.rs (spark, the Panda from its URDF, passive, T = {T} s)");
    let load = || std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!("# loadavg at start: {}", load().trim());
    println!("start swing {} {}", words(&SWING), words(&V0));
    println!("start fall {} {}", words(&FALL), words(&V0));
    let sim = Integrator::<Panda, GaussLobatto<2>>::new(Panda::default(), 0.01).unwrap();
    for k in 0..6 {
        let f = k as f64;
        let base = if k == 0 { SWING } else { FALL };
        let q: [f64; N] = core::array::from_fn(|i| {
            base[i]
                + if k < 2 {
                    0.0
                } else {
                    0.8 * (1.7 * f + 0.9 * i as f64).sin()
                }
        });
        let v: [f64; N] = core::array::from_fn(|i| {
            V0[i]
                + if k < 2 {
                    0.0
                } else {
                    1.5 * (0.6 * f - 1.3 * i as f64).cos()
                }
        });
        let s = State::new(0.0, q, v);
        let a = sim.acceleration(&s).unwrap();
        println!("accel {} {} {}", words(&q), words(&v), words(a.as_slice()));
    }
    let refs: [(&str, [f64; N], &str, f64); 8] = [
        ("swing", SWING, "GL3", 1e-3),
        ("swing", SWING, "GL3", 5e-4),
        ("swing", SWING, "GL4", 2e-3),
        ("swing", SWING, "GL4", 1e-3),
        ("fall", FALL, "GL3", 2.5e-4),
        ("fall", FALL, "GL3", 1.25e-4),
        ("fall", FALL, "GL4", 2.5e-4),
        ("fall", FALL, "GL4", 1.25e-4),
    ];
    for (motion, q0, label, h) in refs {
        let s = match label {
            "GL3" => run::<GaussLobatto<3>>(q0, h),
            _ => run::<GaussLobatto<4>>(q0, h),
        }
        .expect("reference run");
        println!(
            "ref {motion} {label} {h:e} {} {}",
            words(s.q.as_slice()),
            words(s.v.as_slice())
        );
    }
    let swing = ("swing", SWING);
    let fall = ("fall", FALL);
    for (motion, q0) in [swing, fall] {
        let scale = if motion == "fall" { 0.125 } else { 1.0 };
        for h in [0.04, 0.02, 0.01, 0.005, 0.0025, 0.00125, 0.000625] {
            report::<GaussLobatto<2>>(motion, q0, "GL2", scale * h);
        }
        for h in [0.08, 0.04, 0.02, 0.01, 0.005, 0.0025] {
            report::<GaussLobatto<3>>(motion, q0, "GL3", scale * h);
        }
        for h in [0.08, 0.04, 0.02, 0.01, 0.005] {
            report::<GaussLobatto<4>>(motion, q0, "GL4", scale * h);
        }
    }
    println!("# loadavg at end: {}", load().trim());
}
