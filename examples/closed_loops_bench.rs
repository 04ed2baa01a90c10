//! spark's side of "closed loops beside MuJoCo" (issue 29, docs/performance.md): the four-bar
//! of `tests/models/four_bar_loop.xml` and the Jansen leg of `tests/models/jansen_leg.xml`,
//! read by `mjcf:` from the very files `benches/mujoco_loops.py` gives MuJoCo. Conservative
//! (the files' joint damping cancelled by an equal and opposite joint force, the motor off),
//! started at `qpos0` with the crank turning and the other rates on the loop's tangent.
//!
//! Prints the tight reference (GL3, small step) of the crank angle at t = 10 s that the MuJoCo
//! script reads, then for GL2 and GL3 over a range of steps: the crank angle's error at 10 s,
//! the CPU time per simulated second (median of 3), and over 1000 s the largest closure residual
//! and relative energy change. Output kept in `benches/closed_loops_spark.txt`:
//!
//! `cargo run --release -p spark-examples --example closed_loops_bench > benches/closed_loops_spark.txt`

use spark::{GaussLobatto, Integrator, Lagrangian, Method, State};

include!("models/jansen_geometry.rs");

// Paths are relative to this crate's Cargo.toml (examples/), hence `../tests/models/`.
spark::mechanics! {
    /// The four-bar of `tests/models/four_bar_loop.xml`, its joint damping cancelled.
    pub struct FourBarLoop {
        mjcf: "../tests/models/four_bar_loop.xml",
        forces: { crank_joint: 0.02 * v[0], coupler_joint: 0.03 * v[1], rocker_joint: 0.01 * v[2] },
    }
}

spark::mechanics! {
    /// One Jansen leg of `tests/models/jansen_leg.xml`, the crank's damping cancelled.
    pub struct JansenLeg {
        mjcf: "../tests/models/jansen_leg.xml",
        forces: { crank: 0.05 * v[0] },
    }
}

include!("models/cpu_time.rs");
use cpu_time::process as cpu_seconds;

const T_ACCURACY: f64 = 10.0;
const T_LONG: f64 = 1000.0;

/// `q0` with the crank (coordinate 0) at `rate` and the other rates on the loop's tangent: the
/// projection of `(rate, 0, …)` onto the one-dimensional tangent, scaled back to `rate`.
fn start<Sys: Lagrangian<N, M, K>, const N: usize, const M: usize, const K: usize>(
    sys: Sys,
    q0: [f64; N],
    rate: f64,
) -> State<N> {
    let sim = Integrator::<Sys, GaussLobatto<2>>::new(sys, 0.01).unwrap();
    let mut v = [0.0; N];
    v[0] = rate;
    let mut s = State::new(0.0, q0, v);
    sim.project(&mut s).unwrap();
    let scale = rate / s.v[0];
    s.v *= scale;
    let (g, w) = sim.constraint_residual(&s);
    assert!(g < 1e-14 && w < 1e-12, "start off the loop: {g:e} {w:e}");
    s
}

/// Steps from `s0` to `t_end`; `None` if a step fails.
fn run<Sys: Lagrangian<N, M, K>, Meth: Method, const N: usize, const M: usize, const K: usize>(
    sys: Sys,
    s0: State<N>,
    h: f64,
    t_end: f64,
) -> Option<State<N>> {
    let mut sim = Integrator::<Sys, Meth>::new(sys, h).ok()?;
    let mut s = s0;
    for _ in 0..(t_end / h).round() as usize {
        sim.step(&mut s).ok()?;
    }
    Some(s)
}

/// The largest closure residual, Jansen foot-path gap (when `leg` is given) and relative energy
/// change over `t_end`, checked after every step.
fn long<Sys: Lagrangian<N, M, K>, Meth: Method, const N: usize, const M: usize, const K: usize>(
    sys: Sys,
    s0: State<N>,
    h: f64,
    t_end: f64,
    leg: Option<&dyn Fn(&State<N>) -> f64>,
) -> Option<(f64, f64, f64)> {
    let mut sim = Integrator::<Sys, Meth>::new(sys, h).ok()?;
    let mut s = s0;
    let e0 = sim.energy(&s);
    let (mut g, mut gap, mut de) = (0.0f64, 0.0f64, 0.0f64);
    for _ in 0..(t_end / h).round() as usize {
        sim.step(&mut s).ok()?;
        g = g.max(sim.constraint_residual(&s).0);
        if let Some(f) = leg {
            gap = gap.max(f(&s));
        }
        de = de.max((sim.energy(&s) - e0).abs() / e0.abs());
    }
    Some((g, gap, de))
}

fn median(mut x: Vec<f64>) -> f64 {
    x.sort_by(|a, b| a.total_cmp(b));
    x[x.len() / 2]
}

/// The reference, then the sweep, for one model.
fn sweep<Sys, const N: usize, const M: usize, const K: usize>(
    name: &str,
    sys: Sys,
    q0: [f64; N],
    rate: f64,
    h_ref: f64,
    leg: Option<&dyn Fn(&State<N>) -> f64>,
) where
    Sys: Lagrangian<N, M, K> + Clone,
{
    let s0 = start(sys.clone(), q0, rate);
    let e0 = Integrator::<Sys, GaussLobatto<2>>::new(sys.clone(), 0.01)
        .unwrap()
        .energy(&s0);
    println!(
        "# {name}: start q = qpos0, v = {:?}, energy {e0:.12}",
        s0.v.as_slice()
    );
    let fine = run::<Sys, GaussLobatto<3>, N, M, K>(sys.clone(), s0, h_ref, T_ACCURACY).unwrap();
    let coarse =
        run::<Sys, GaussLobatto<3>, N, M, K>(sys.clone(), s0, 2.0 * h_ref, T_ACCURACY).unwrap();
    println!(
        "# {name}: GL3 h = {h_ref:e} against h = {:e} at {T_ACCURACY} s: {:.1e}",
        2.0 * h_ref,
        (fine.q[0] - coarse.q[0]).abs()
    );
    println!(
        "# reference {name} crank({T_ACCURACY} s) = {:.17e}",
        fine.q[0]
    );
    for (label, order) in [("GL2", 2), ("GL3", 3)] {
        for h in [0.02, 0.01, 0.005, 0.0025] {
            let go = |t| match order {
                2 => run::<Sys, GaussLobatto<2>, N, M, K>(sys.clone(), s0, h, t),
                _ => run::<Sys, GaussLobatto<3>, N, M, K>(sys.clone(), s0, h, t),
            };
            let mut cpus = Vec::new();
            let mut end = None;
            for _ in 0..3 {
                let c0 = cpu_seconds();
                end = go(T_ACCURACY);
                cpus.push((cpu_seconds() - c0) / T_ACCURACY);
            }
            let Some(end) = end else {
                println!("{name:<11} {label:<5} {h:<7} step failed");
                continue;
            };
            let err = (end.q[0] - fine.q[0]).abs();
            let lg = if h >= 0.005 {
                match order {
                    2 => long::<Sys, GaussLobatto<2>, N, M, K>(sys.clone(), s0, h, T_LONG, leg),
                    _ => long::<Sys, GaussLobatto<3>, N, M, K>(sys.clone(), s0, h, T_LONG, leg),
                }
            } else {
                None
            };
            let long_text = match lg {
                Some((g, gap, de)) if leg.is_some() => format!("{g:<16.2e} {gap:<16.2e} {de:.2e}"),
                Some((g, _, de)) => format!("{g:<16.2e} {:<16} {de:.2e}", "-"),
                None => "-".to_string(),
            };
            println!(
                "{name:<11} {label:<5} {h:<7} {err:<16.2e} {:<26.2e} {long_text}",
                median(cpus)
            );
        }
    }
}

fn main() {
    println!("# output of cargo run --release -p spark-examples --example closed_loops_bench");
    println!("# conservative (damping cancelled, motor off); error = |crank angle(10 s) - GL3 reference|; long run: every step checked");
    println!("model       meth  h       crank err(10 s)  CPU s/sim s (median of 3)  max |g| (1000 s)  leg gap (1000 s)  dE/E max (1000 s)");
    sweep(
        "four_bar",
        FourBarLoop::default(),
        FourBarLoop::REFERENCE_CONFIGURATION,
        3.0,
        5e-4,
        None,
    );
    let r = linkage::pose(0.0, false);
    let gap = move |s: &State<7>| {
        let q: [f64; 7] = s.q.into();
        let (_, gaps) = linkage::forward(&r, &q);
        gaps.iter().fold(0.0f64, |m, g| m.max(*g))
    };
    sweep(
        "jansen_leg",
        JansenLeg::default(),
        JansenLeg::REFERENCE_CONFIGURATION,
        8.0,
        5e-4,
        Some(&gap),
    );
}
