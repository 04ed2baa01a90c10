//! 3D chains of N point masses on rigid rods, written with the DSL's arrays (issue 16): the
//! model is a dozen lines whatever N. Prints, for `GaussLobatto<2>` at h = 0.01, the time per
//! step (best of three runs of 100 steps) and the stage iterations it took, the stack one step uses (painted stack, x86_64) and
//! the constraint residuals after 1 s, for N = 5, 10, 20, 40, 80, and the growth exponents.
//!
//! `cargo run --release --example chain3d`
//!
//! With `-- jacobian`: the time of `step` and of `step_with_jacobian` (process CPU time, best
//! of 25 runs of 100 calls, as the machine may be shared) with the stage iterations per step,
//! and the stack of one step, for N = 5, 10, 20 and for N = 5, 10 with a nonholonomic
//! constraint on the last mass; then the GL2 step of the bicycle
//! (`models/bicycle.rs`) and of the differential-drive robot (`models/diff_drive.rs`), and the
//! robot's `LobattoIIIABIndex2<3>` step (paper 002's method). EMPRK: `examples/chain3d_emprk.rs`.
//!
//! With `-- steps MODEL` (`chain5`, `chain10`, `chain20`, `nonholonomic5`, `nonholonomic10`,
//! `bicycle`, `diff_drive`, `diff_drive_index2` (the robot's `LobattoIIIABIndex2<3>` step)): 1000 steps of that model from the timed runs' start, untimed, for
//! a profiler, e.g. `valgrind --tool=callgrind`, whose instruction counts do not depend on the
//! machine's load (`docs/performance.md`); prints the iterations per step and a digest of the
//! final state's bits (equal digests: bit-identical trajectories). `-- steps MODEL R` repeats
//! those 1000 steps R times (for a sampling profiler such as `perf record`).

use spark::{
    GaussLobatto, Inputs, Integrator, Lagrangian, LobattoIIIABIndex2, Method, Options, State,
};
use std::hint::black_box;
use std::time::Instant;

include!("models/cpu_time.rs");
use cpu_time::process as cpu_seconds;

include!("models/stack.rs");

include!("models/chain3d.rs");

include!("models/bicycle.rs");

include!("models/diff_drive.rs");

include!("models/chain3d_harness.rs");

chain!(Chain5, 5);
chain!(Chain10, 10);
chain!(Chain20, 20);
chain!(Chain40, 40);
chain!(Chain80, 80);

/// Runs the chain; returns its best time per step (µs) and its stack per step (bytes).
fn run<Sys, const D: usize, const M: usize>(name: &str, n: usize, sys: Sys) -> (f64, usize)
where
    Sys: Lagrangian<D, M, 0>,
{
    let mut sim = Integrator::<Sys, GaussLobatto<2>>::new(sys, 0.01).expect("valid h");
    let mut s: State<D> = start(n);
    let mut best = f64::INFINITY;
    let mut iterations = 0;
    for _ in 0..3 {
        let t0 = Instant::now();
        for _ in 0..100 {
            sim.step(&mut s).expect("step");
            iterations += sim.last_step_stats().stage_iterations;
        }
        best = best.min(t0.elapsed().as_secs_f64() / 100.0 * 1e6);
    }
    let (g, gv) = sim.constraint_residual(&s);
    let mut one_step = || sim.step(black_box(&mut s)).expect("step");
    let stack = stack::measure(&mut one_step);
    println!(
        "{name}: N = {n:>2}, {D:>3} coordinates, {M:>2} constraints: {best:7.1} µs/step, {:.2} stage iterations/step, stack {:>6.1} KiB, |g| {g:.1e}, |G v| {gv:.1e} at t = {:.2}",
        f64::from(iterations) / 300.0,
        stack as f64 / 1024.0,
        s.t
    );
    (best, stack)
}

// The 3D chains whose last mass may not turn about the vertical axis (`x vy − y vx = 0`): the
// coupled holonomic + nonholonomic step and its Jacobian (`-- jacobian`).
chain!(NonholonomicChain5, 5, nonholonomic: [x[N - 1] * vy[N - 1] - y[N - 1] * vx[N - 1]],);
chain!(NonholonomicChain10, 10, nonholonomic: [x[N - 1] * vy[N - 1] - y[N - 1] * vx[N - 1]],);

/// Runs [`profile_steps`] on the model `name` (see the module's doc).
fn profile(name: &str, repeats: usize) {
    fn chain<Sys, Meth, const D: usize, const M: usize, const K: usize>(n: usize, repeats: usize)
    where
        Sys: Lagrangian<D, M, K> + Default,
        Meth: Method,
    {
        let (sim, s0) = chain_start::<Sys, Meth, D, M, K>(n);
        profile_steps(sim, s0, repeats);
    }
    type Gl2 = GaussLobatto<2>;
    match name {
        "chain5" => chain::<Chain5, Gl2, 15, 5, 0>(5, repeats),
        "chain10" => chain::<Chain10, Gl2, 30, 10, 0>(10, repeats),
        "chain20" => chain::<Chain20, Gl2, 60, 20, 0>(20, repeats),
        "nonholonomic5" => chain::<NonholonomicChain5, Gl2, 15, 5, 1>(5, repeats),
        "nonholonomic10" => chain::<NonholonomicChain10, Gl2, 30, 10, 1>(10, repeats),
        "bicycle" => {
            let (sim, s) = bicycle();
            profile_steps(sim, s, repeats);
        }
        "diff_drive" => {
            let (sim, s) = diff_drive::<GaussLobatto<2>>();
            profile_steps(sim, s, repeats);
        }
        "diff_drive_index2" => {
            let (sim, s) = diff_drive::<LobattoIIIABIndex2<3>>();
            profile_steps(sim, s, repeats);
        }
        other => panic!("unknown model {other:?}: see the module's doc"),
    }
}

/// The bicycle's integrator and start (GL2, h = 0.01, 4 m/s with lean rate 0.5 rad/s).
fn bicycle() -> (Integrator<Bicycle, GaussLobatto<2>>, State<8>) {
    let p = Bicycle::default();
    let sim = Integrator::<Bicycle, GaussLobatto<2>>::new(p, 0.01).expect("valid h");
    let mut s = whipple::upright(&p, 4.0);
    s.v[3] = 0.5;
    sim.project(&mut s).expect("consistent start");
    (sim, s)
}

/// The bicycle (GL2, h = 0.01, 4 m/s with lean rate 0.5 rad/s, as the example's ride) and the
/// differential-drive robot (GL2 and `LobattoIIIABIndex2<3>`, h = 0.01, torques 0.05 and
/// 0.03 N m from 0.5 m/s).
fn vehicles() {
    let (sim, s) = bicycle();
    time_steps("bicycle GL2, h = 0.01", sim, s);
    let (sim, s) = diff_drive::<GaussLobatto<2>>();
    time_steps("diff drive GL2, h = 0.01", sim, s);
    let (sim, s) = diff_drive::<LobattoIIIABIndex2<3>>();
    time_steps("diff drive LobattoIIIABIndex2<3>, h = 0.01", sim, s);
}

fn main() {
    if let Some((name, repeats)) = profile_request() {
        on_large_stack(move || profile(&name, repeats));
        return;
    }
    if std::env::args().nth(1).as_deref() == Some("jacobian") {
        on_large_stack(|| {
            let gl2 = (GaussLobatto::<2>, "");
            jacobian(5, Chain5::default(), gl2);
            jacobian(10, Chain10::default(), gl2);
            jacobian(20, Chain20::default(), gl2);
            jacobian(5, NonholonomicChain5::default(), gl2);
            jacobian(10, NonholonomicChain10::default(), gl2);
            vehicles();
        });
        return;
    }
    // The painted region and the models' frames need a large stack.
    on_large_stack(|| {
        let points = [
            (5.0f64, run("Chain5", 5, Chain5::default())),
            (10.0, run("Chain10", 10, Chain10::default())),
            (20.0, run("Chain20", 20, Chain20::default())),
            (40.0, run("Chain40", 40, Chain40::default())),
            (80.0, run("Chain80", 80, Chain80::default())),
        ];
        for w in points.windows(2) {
            let ((n0, (t0, s0)), (n1, (t1, s1))) = (w[0], w[1]);
            let slope = |a: f64, b: f64| (b / a).ln() / (n1 / n0).ln();
            println!(
                "growth N = {n0} -> {n1}: time exponent {:.2}, stack exponent {:.2}",
                slope(t0, t1),
                slope(s0 as f64, s1 as f64)
            );
        }
    });
}
