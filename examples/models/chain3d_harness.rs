// The timing and profiling harness of `examples/chain3d.rs` and `examples/chain3d_emprk.rs`
// (included after `models/cpu_time.rs`, `models/stack.rs`, `models/chain3d.rs` and
// `models/diff_drive.rs`): the chains' start, `step` and `step_with_jacobian` timings, the
// untimed runs for a profiler. The two examples are separate programs because a program that
// steps the same model with two methods shares the model's functions between them, and the
// compiler then inlines them differently: the nonholonomic chains' GL2 steps took 7-12 % more
// instructions with EMPRK in the same binary (`docs/performance.md`, session 20).

/// Links at angle 0.6 rad from the vertical, turning about z link by link, at rest.
fn start<const D: usize>(n: usize) -> State<D> {
    let mut q = [0.0; D];
    let (mut x, mut y, mut z) = (0.0, 0.0, 0.0);
    for i in 0..n {
        let a = 0.3 * i as f64;
        x += 0.6f64.sin() * a.cos();
        y += 0.6f64.sin() * a.sin();
        z -= 0.6f64.cos();
        (q[i], q[n + i], q[2 * n + i]) = (x, y, z);
    }
    State::new(0.0, q, [0.0; D])
}

/// Runs of 100 calls each timing takes the best of.
const RUNS: u32 = 25;

/// Times `step` and `step_with_jacobian` of the method `Meth` (labelled `label` after the
/// model's kind) on the chain from the same state (µs per call).
fn jacobian<Sys, Meth, const D: usize, const M: usize, const K: usize>(
    n: usize,
    sys: Sys,
    (_, label): (Meth, &str),
) where
    Sys: Lagrangian<D, M, K> + Inputs<D, 0>,
    Meth: Method,
{
    // The Jacobian's frames grow with D² (about 3.4 MB at N = 20): this thread has 16 MiB.
    let options = Options {
        jacobian_stack_limit: 12 << 20,
        ..Options::default()
    };
    let mut sim = Integrator::<Sys, Meth>::new(sys, 0.01)
        .expect("valid h")
        .with_options(options);
    let mut s0: State<D> = start(n);
    sim.project(&mut s0).expect("consistent start");
    let (step, iterations) = best_steps(&mut sim, s0);
    let mut with = f64::INFINITY;
    for _ in 0..RUNS {
        let mut s = s0;
        let t0 = cpu_seconds();
        for _ in 0..100 {
            black_box(sim.step_with_jacobian(black_box(&mut s)).expect("step"));
        }
        with = with.min((cpu_seconds() - t0) * 1e4);
    }
    let kind = if K > 0 {
        format!(", nonholonomic{label}")
    } else {
        String::new()
    };
    let mut s = s0;
    let mut one_step = || sim.step(black_box(&mut s)).expect("step");
    let stack = stack::measure(&mut one_step);
    println!(
        "N = {n:>2}, {D:>2} coordinates{kind}: step {step:6.2} µs ({iterations:.2} iterations), step_with_jacobian {with:7.2} µs ({:.1}x), stack per step {:.1} KiB",
        with / step,
        stack as f64 / 1024.0
    );
}

/// The best time of `step` over `RUNS` runs of 100 steps from `s0` (µs per step) and the
/// stage iterations per step.
fn best_steps<Sys, Meth, const D: usize, const M: usize, const K: usize>(
    sim: &mut Integrator<Sys, Meth>,
    s0: State<D>,
) -> (f64, f64)
where
    Sys: Lagrangian<D, M, K>,
    Meth: Method,
{
    let mut best = f64::INFINITY;
    let mut iterations = 0;
    for _ in 0..RUNS {
        let mut s = s0;
        let t0 = cpu_seconds();
        for _ in 0..100 {
            sim.step(black_box(&mut s)).expect("step");
            iterations += sim.last_step_stats().stage_iterations;
        }
        best = best.min((cpu_seconds() - t0) * 1e4);
    }
    (best, f64::from(iterations) / (100.0 * f64::from(RUNS)))
}

/// Times `step` along a trajectory from `s0` ([`best_steps`]).
fn time_steps<Sys, Meth, const D: usize, const M: usize, const K: usize>(
    name: &str,
    mut sim: Integrator<Sys, Meth>,
    s0: State<D>,
) where
    Sys: Lagrangian<D, M, K>,
    Meth: Method,
{
    let (best, iterations) = best_steps(&mut sim, s0);
    println!("{name}: step {best:6.2} µs ({iterations:.2} iterations/step)");
}

/// `repeats` times 1000 steps (runs of 100 from `s0`) of `sim`, for a profiler.
fn profile_steps<Sys, Meth, const D: usize, const M: usize, const K: usize>(
    mut sim: Integrator<Sys, Meth>,
    s0: State<D>,
    repeats: usize,
) where
    Sys: Lagrangian<D, M, K>,
    Meth: Method,
{
    let mut iterations = 0;
    let mut s = s0;
    for _ in 0..10 * repeats {
        s = s0;
        for _ in 0..100 {
            sim.step(black_box(&mut s)).expect("step");
            iterations += sim.last_step_stats().stage_iterations;
        }
    }
    // A digest of the final state's bits: equal digests, bit-identical trajectories.
    let digest =
        s.q.iter()
            .chain(s.v.iter())
            .fold(0u64, |d, x| d.rotate_left(7) ^ x.to_bits());
    println!(
        "{} steps, {:.2} stage iterations/step, state digest {digest:016x}",
        1000 * repeats,
        f64::from(iterations) / (1000.0 * repeats as f64)
    );
}

/// The chain of `n` masses' integrator with the method `Meth`, h = 0.01, and its start:
/// [`start`] projected onto the constraints.
fn chain_start<Sys, Meth, const D: usize, const M: usize, const K: usize>(
    n: usize,
) -> (Integrator<Sys, Meth>, State<D>)
where
    Sys: Lagrangian<D, M, K> + Default,
    Meth: Method,
{
    let sim = Integrator::<Sys, Meth>::new(Sys::default(), 0.01).expect("valid h");
    let mut s0: State<D> = start(n);
    sim.project(&mut s0).expect("consistent start");
    (sim, s0)
}

/// The robot's integrator with the method `Meth` and its start (h = 0.01, torques 0.05 and 0.03
/// N m, 0.5 m/s).
fn diff_drive<Meth: Method>() -> (Integrator<DiffDrive, Meth>, State<5>) {
    let mut robot = DiffDrive::default();
    (robot.tr, robot.tl) = (0.05, 0.03);
    let r = robot.r;
    let sim = Integrator::<DiffDrive, Meth>::new(robot, 0.01).expect("valid h");
    let v = 0.5;
    (sim, State::new(0.0, [0.0; 5], [v, 0.0, 0.0, v / r, v / r]))
}

/// The arguments `steps MODEL [R]` (see each example's doc): the model's name and the count of
/// repeats, or `None` for another first argument.
fn profile_request() -> Option<(String, usize)> {
    let mut args = std::env::args().skip(1);
    if args.next().as_deref() != Some("steps") {
        return None;
    }
    let name = args.next().unwrap_or_default();
    let repeats = args
        .next()
        .map_or(1, |r| r.parse().expect("MODEL R: a count of repeats"));
    Some((name, repeats))
}

/// Runs `f` on a thread with the stack the models' frames and the stack measurement need.
fn on_large_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(4 * stack::DEPTH)
        .spawn(f)
        .expect("thread")
        .join()
        .expect("run");
}
