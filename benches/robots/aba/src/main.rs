//! spark's accelerations of example-robot-data URDFs read as shipped with `floating_base: true`
//! against Pinocchio's ABA on a free flyer: per robot of `$ABA_DIR/robots.tsv` (`build.rs`),
//! `Integrator::acceleration` at the 20 states of its CSV (`benches/robots/aba_reference.py`),
//! states and accelerations passed through `spark::convert` (Pinocchio's convention), nothing
//! reordered by hand. Prints the largest relative error per robot. See README.md.

use spark::convert::{self, Convention};
use spark::nalgebra::SVector;
use spark::{Dimensions, GaussLobatto, Integrator, State};

/// The columns `PREFIX0..PREFIXn` of one row of a CSV with `#` metadata lines and a header.
fn columns(header: &[&str], row: &[f64], prefix: &str, n: usize) -> Result<Vec<f64>, String> {
    (0..n)
        .map(|i| {
            let name = format!("{prefix}{i}");
            let k = header.iter().position(|h| *h == name);
            k.map(|k| row[k]).ok_or(format!("no column {name}"))
        })
        .collect()
}

/// `measure_fn!(Model, name)`: `fn name(csv text) -> (rows, largest relative error)`.
macro_rules! measure_fn {
    ($ty:ident, $f:ident) => {
        fn $f(text: &str) -> Result<(usize, f64), String> {
            const N: usize = $ty::COORDINATES;
            const PIN: Convention = Convention::Pinocchio;
            let mut lines = text.lines().filter(|l| !l.starts_with('#'));
            let steps: usize = std::env::var("ABA_STEPS").map_or(0, |s| s.parse().unwrap());
            let mut stepped = Stepped::default();
            let mut states = Vec::new();
            let header: Vec<&str> = lines.next().ok_or("empty CSV")?.split(',').collect();
            let (nq, nv) = $ty::PINOCCHIO_SIZES;
            let (mut rows, mut worst) = (0, 0.0f64);
            for line in lines.filter(|l| !l.trim().is_empty()) {
                let row: Vec<f64> = line.split(',').map(|x| x.parse().unwrap()).collect();
                let q_pin = columns(&header, &row, "q", nq)?;
                let v_pin = columns(&header, &row, "v", nv)?;
                let tau = columns(&header, &row, "tau", nv)?;
                let a_pin = columns(&header, &row, "a", nv)?;
                let (mut q, mut qd) = ([0.0; N], [0.0; N]);
                convert::state_from(PIN, &$ty::JOINT_LAYOUT, &q_pin, &v_pin, &mut q, &mut qd)
                    .map_err(|e| format!("{e:?}"))?;
                // Each input `tau_JOINT` takes the torque at its joint's velocity index.
                let mut inputs = [0.0; $ty::INPUTS];
                let mut iv = 0;
                for joint in &$ty::JOINT_LAYOUT {
                    let name = format!("tau_{}", joint.name);
                    if let Some(u) = $ty::INPUT_NAMES.iter().position(|n| *n == name) {
                        inputs[u] = tau[iv];
                    }
                    iv += joint.kind.size(PIN).1;
                }
                let mut model = $ty::default();
                model.set_inputs(&SVector::from(inputs));
                let sim = Integrator::<$ty, GaussLobatto<2>>::new(model, 1e-3)
                    .map_err(|e| format!("{e:?}"))?;
                let qdd = sim
                    .acceleration(&State::new(0.0, q, qd))
                    .map_err(|e| format!("{e:?}"))?;
                states.push((sim.clone(), State::new(0.0, q, qd)));
                if steps > 0 {
                    let (mut sim, mut state) = (sim, State::new(0.0, q, qd));
                    let index = stepped.clean + stepped.failures.len();
                    let failed =
                        (0..steps).find_map(|k| sim.step(&mut state).err().map(|e| (k, e)));
                    match failed {
                        Some((k, e)) => {
                            if std::env::var("ABA_DIAGNOSE").is_ok() {
                                diagnose(&sim, &state);
                            }
                            stepped.failures.push((index, k, format!("{e:?}")))
                        }
                        None => stepped.clean += 1,
                    }
                }
                let mut a = vec![0.0; nv];
                convert::acceleration_to(PIN, &$ty::JOINT_LAYOUT, &q, &qd, qdd.as_slice(), &mut a)
                    .map_err(|e| format!("{e:?}"))?;
                let diff = a
                    .iter()
                    .zip(&a_pin)
                    .map(|(x, y)| (x - y).powi(2))
                    .sum::<f64>();
                let size = a_pin.iter().map(|y| y * y).sum::<f64>();
                worst = worst.max((diff / size.max(1e-300)).sqrt());
                rows += 1;
            }
            if steps > 0 {
                println!(
                    "{} GL2 steps of h = 1e-3 from each of {rows} states: {} states stepped \
                     without failure; failures: {:?}",
                    steps, stepped.clean, stepped.failures
                );
            }
            if std::env::var("ABA_TIME").is_ok() {
                if let Some((sim, state)) = states.first() {
                    println!(
                        "  step_with_jacobian: stack estimate {} bytes, limit {} bytes",
                        sim.jacobian_stack_estimate(state),
                        sim.options().jacobian_stack_limit
                    );
                }
                time(&states);
            }
            Ok((rows, worst))
        }
    };
}

/// `ABA_TIME=1`: the least wall time per call of `acceleration` and of one GL2 step (h = 1e-3) over
/// the states (each its own integrator with its inputs), over 7 rounds of at least 0.05 s.
fn time<Sys, const N: usize, const M: usize>(
    states: &[(Integrator<Sys, GaussLobatto<2>>, State<N>)],
) where
    Sys: spark::Lagrangian<N, M, 0> + Clone,
{
    let best = |f: &mut dyn FnMut() -> usize| -> f64 {
        let mut best = f64::INFINITY;
        for _ in 0..7 {
            let (mut calls, start) = (0, std::time::Instant::now());
            while start.elapsed().as_secs_f64() < 0.05 {
                calls += f();
            }
            best = best.min(start.elapsed().as_secs_f64() / calls as f64);
        }
        best
    };
    let accel = best(&mut || {
        for (sim, state) in states {
            std::hint::black_box(sim.acceleration(std::hint::black_box(state)).ok());
        }
        states.len()
    });
    let mut sims: Vec<_> = states.iter().map(|(s, x)| (s.clone(), *x)).collect();
    let step = best(&mut || {
        let mut n = 0;
        for ((sim, state), (_, start)) in sims.iter_mut().zip(states) {
            let mut x = *start;
            if sim.step(&mut x).is_ok() {
                n += 1;
            }
            *state = x;
        }
        n
    });
    println!(
        "  time: acceleration {:.2} us, GL2 step (h = 1e-3) {:.2} us (least wall time per call over \
         {} states)",
        accel * 1e6,
        step * 1e6,
        states.len()
    );
}

/// The eigenvalues of the symmetric matrix `a` (cyclic Jacobi rotations).
fn eigenvalues(mut a: Vec<Vec<f64>>) -> Vec<f64> {
    let n = a.len();
    for _ in 0..100 {
        let off: f64 = (0..n)
            .flat_map(|i| (0..n).filter(move |&j| j != i).map(move |j| (i, j)))
            .map(|(i, j)| a[i][j] * a[i][j])
            .sum();
        if off < 1e-40 {
            break;
        }
        for p in 0..n {
            for q in p + 1..n {
                if a[p][q].abs() < 1e-300 {
                    continue;
                }
                let theta = (a[q][q] - a[p][p]) / (2.0 * a[p][q]);
                let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
                let t = if theta == 0.0 { 1.0 } else { t };
                let c = 1.0 / (t * t + 1.0).sqrt();
                let s = t * c;
                for k in 0..n {
                    let (akp, akq) = (a[k][p], a[k][q]);
                    a[k][p] = c * akp - s * akq;
                    a[k][q] = s * akp + c * akq;
                }
                for k in 0..n {
                    let (apk, aqk) = (a[p][k], a[q][k]);
                    a[p][k] = c * apk - s * aqk;
                    a[q][k] = s * apk + c * aqk;
                }
            }
        }
    }
    (0..n).map(|i| a[i][i]).collect()
}

/// At a state whose step failed: the model's factoring, the mass matrix's eigenvalue range,
/// and the step retried with other options.
fn diagnose<Sys, const N: usize, const M: usize>(
    sim: &Integrator<Sys, GaussLobatto<2>>,
    state: &State<N>,
) where
    Sys: spark::Lagrangian<N, M, 0> + Clone,
{
    let sys = sim.system();
    println!("  SPARSE_SADDLE {}", Sys::SPARSE_SADDLE);
    let d = sys.mass_force(state.t, &state.q, &state.v);
    let e = eigenvalues(
        (0..N)
            .map(|i| (0..N).map(|j| d.lvv[(i, j)]).collect())
            .collect(),
    );
    let lo = e.iter().cloned().fold(f64::INFINITY, f64::min);
    let hi = e.iter().cloned().fold(0.0, f64::max);
    println!(
        "  mass eigenvalues {lo:.3e} .. {hi:.3e}, condition {:.3e}",
        hi / lo
    );
    let diag: Vec<String> = (0..N).map(|i| format!("{:.1e}", d.lvv[(i, i)])).collect();
    println!("  mass diagonal {}", diag.join(" "));
    println!(
        "  max|p| {:.3e} max|f| {:.3e} max|v| {:.3e}",
        d.p.amax(),
        d.f.amax(),
        state.v.amax()
    );
    let base = *sim.options();
    let tries = [
        ("default", base),
        (
            "full Newton",
            spark::Options {
                simplified_newton: false,
                ..base
            },
        ),
        (
            "no fallback",
            spark::Options {
                full_newton_fallback: false,
                ..base
            },
        ),
        (
            "tolerance 1e-10",
            spark::Options {
                tolerance: 1e-10,
                ..base
            },
        ),
        (
            "tolerance 1e-8",
            spark::Options {
                tolerance: 1e-8,
                ..base
            },
        ),
    ];
    for (name, options) in tries {
        let mut again = Integrator::<Sys, GaussLobatto<2>>::new(sys.clone(), sim.step_size())
            .unwrap()
            .with_options(options);
        let mut s = *state;
        let r = again.step(&mut s);
        println!("  {name}: {r:?} {:?}", again.last_step_stats());
    }
}

/// What stepping from the states gave: the states stepped `ABA_STEPS` times without failure,
/// and per failure (state, step, error).
#[derive(Default)]
struct Stepped {
    clean: usize,
    failures: Vec<(usize, usize, String)>,
}

include!(concat!(env!("OUT_DIR"), "/robots.rs"));

fn main() {
    let mut failed = false;
    for (name, csv, measure) in ROBOTS {
        let text = std::fs::read_to_string(csv).unwrap_or_else(|e| panic!("{csv}: {e}"));
        match measure(&text) {
            Ok((rows, worst)) => println!(
                "{name}: {rows} states, largest relative error of the accelerations {worst:.1e}"
            ),
            Err(e) => {
                println!("{name}: not measured: {e}");
                failed = true;
            }
        }
    }
    if failed {
        std::process::exit(1);
    }
}
