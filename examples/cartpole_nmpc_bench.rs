//! What one SQP-RTI period of the cart-pole NMPC hold (`cartpole_swingup`) is made of, timed
//! call by call on this machine: the prediction model's plain step, its step with Jacobian,
//! the tangent basis at a node and the projection of a displaced node (the work of one of the
//! 50 shooting intervals), then whole periods (`SqpRti::control`: preparation and feedback),
//! for the `GaussLobatto<1>` and `GaussLobatto<2>` prediction models at h = 20 ms.
//!
//! Every figure is the smallest mean over `--repeats` (default 15) batches: of 5000 calls
//! each for the parts, of 1000 periods for the period (the same state every time, near
//! upright, the plan held there: one QP iteration per period, as in the example's hold). The
//! smallest batch is the one the machine disturbed least; `cartpole_swingup` prints the median
//! and worst of a real hold.
//!
//! `cargo run --release --example cartpole_nmpc_bench [-- --repeats R]`

use std::time::Instant;

use spark::control::cost::Quadratic;
use spark::control::ilqr::Bounds;
use spark::control::sqp::SqpRti;
use spark::nalgebra::{SMatrix, SVector};
use spark::{GaussLobatto, Integrator, Method, State};

include!("models/plot.rs");
include!("models/cartpole.rs");
include!("models/swingup.rs");

use cartpole::{cartesian, CartPole, TC};
use swingup::{upright, weights, U_MAX};

/// The hold horizon (1 s), as in `cartpole_swingup`.
const H_HOLD: usize = 50;

/// The smallest mean time in µs of `calls` calls of `f`, over `repeats` batches.
fn smallest_mean(repeats: usize, calls: usize, mut f: impl FnMut()) -> f64 {
    (0..repeats)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..calls {
                f();
            }
            t.elapsed().as_secs_f64() / calls as f64 * 1e6
        })
        .fold(f64::INFINITY, f64::min)
}

/// Times the parts and the period with the prediction method `Meth`.
fn measure<Meth: Method>(name: &str, repeats: usize) -> Result<(), Box<dyn std::error::Error>> {
    let p = CartPole::default();
    let mut sim = Integrator::<CartPole, Meth>::new(p, TC)?;
    let s0: State<3> = cartesian(&p, 0.0, &SVector::<f64, 4>::new(0.0, 0.01, 0.0, 0.02));
    // A node displaced off the manifold, as the QP's step moves one before its projection.
    let mut off = s0;
    off.q[0] += 1e-4;
    off.v[1] += 1e-4;
    let step = smallest_mean(repeats, 5000, || {
        let mut s = s0;
        std::hint::black_box(sim.step(&mut s).is_ok());
        std::hint::black_box(&s);
    });
    let jacobian = smallest_mean(repeats, 5000, || {
        let mut s = s0;
        std::hint::black_box(sim.step_with_jacobian(&mut s).is_ok());
        std::hint::black_box(&s);
    });
    let tangent = smallest_mean(repeats, 5000, || {
        std::hint::black_box(sim.tangent(&s0).is_ok());
    });
    let project = smallest_mean(repeats, 5000, || {
        let mut s = off;
        std::hint::black_box(sim.project(&mut s).is_ok());
        std::hint::black_box(&s);
    });
    let cost = Quadratic::<6, 1> {
        q: weights(10.0, 1.0, 0.1),
        r: SMatrix::identity() * 1e-2,
        qf: weights(100.0, 10.0, 1.0),
        x_ref: upright(p.l),
        u_ref: SVector::zeros(),
    };
    let bounds = Bounds::<1>::symmetric(U_MAX);
    let mut sqp = Box::new(SqpRti::<3, 1, 4, H_HOLD>::held(
        &sim,
        &s0,
        [SVector::zeros(); H_HOLD],
    ));
    let mut failed = false;
    let period = smallest_mean(repeats, 1000, || {
        failed |= sqp.control(&mut sim, &cost, &bounds, &s0).is_err();
    });
    if failed {
        return Err(format!("an SQP-RTI period with {name} failed").into());
    }
    println!(
        "{name}: step {step:.3} us, step with Jacobian {jacobian:.3} us, tangent basis \
         {tangent:.3} us, projection {project:.3} us; SQP-RTI period (H = {H_HOLD}) {period:.1} us"
    );
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let repeats = match args.iter().position(|a| a == "--repeats") {
        Some(i) => args
            .get(i + 1)
            .and_then(|r| r.parse().ok())
            .filter(|&r: &usize| r > 0)
            .ok_or("--repeats takes a positive integer")?,
        None => 15,
    };
    measure::<GaussLobatto<1>>("GaussLobatto<1>", repeats)?;
    measure::<GaussLobatto<2>>("GaussLobatto<2>", repeats)?;
    Ok(())
}
