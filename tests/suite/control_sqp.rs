//! NMPC by SQP real-time iterations over multiple shooting (issue 41), on the Cartesian
//! cart-pole: one iteration per period holds the pole on a perturbed plant within the input
//! bounds; a converged box-DDP plan is a fixed point of the SQP step; a failed linearization or
//! QP falls back to the shifted plan and says so; invalid input is refused with the driver
//! unchanged; a period allocates nothing.

use std::cell::Cell;

use crate::control_ilqr::{at, CartPole, Sim, L};
use crate::no_alloc::watched;
use spark::control::cost::{Cost, Quadratic, StageCost, TerminalCost};
use spark::control::error::ControlError;
use spark::control::ilqr::{Bounds, Ilqr, Settings};
use spark::control::sqp::{SqpRti, SqpStats};
use spark::control::state_bounds::StateBounds;
use spark::nalgebra::{SMatrix, SVector};
use spark::{Options, State};

const H: usize = 40;
const TC: f64 = 0.02;

fn lean(s: &State<3>) -> f64 {
    (s.q[1] - s.q[0]).atan2(s.q[2])
}

/// The tip's offset from upright weighed with `w`, the cart with `w_cart`, velocities `w_vel`.
fn weights(w: f64, w_cart: f64, w_vel: f64) -> SMatrix<f64, 6, 6> {
    let mut q = SMatrix::<f64, 6, 6>::zeros();
    q[(0, 0)] = w + w_cart;
    q[(1, 1)] = w;
    q[(0, 1)] = -w;
    q[(1, 0)] = -w;
    q[(2, 2)] = w;
    for i in 3..6 {
        q[(i, i)] = w_vel;
    }
    q
}

fn cost() -> Quadratic<6, 1> {
    Quadratic {
        q: weights(10.0, 1.0, 0.1),
        r: SMatrix::identity() * 1e-2,
        qf: weights(100.0, 10.0, 1.0),
        x_ref: SVector::from([0.0, 0.0, L, 0.0, 0.0, 0.0]),
        u_ref: SVector::zeros(),
    }
}

/// The box-DDP plan from `s`, solved to convergence.
fn plan(sim: &mut Sim, s: &State<3>, bounds: &Bounds<1>) -> Ilqr<3, 1, 4, H> {
    let mut first = Ilqr::new(*s, [SVector::zeros(); H]);
    first.initialize(sim, &cost(), bounds).unwrap();
    first
        .solve(sim, &cost(), bounds, &Settings::default())
        .unwrap();
    first
}

/// The plant: pole mass +10 %, cart damping +25 %, four steps per control period.
fn perturbed_plant() -> Sim {
    let perturbed = CartPole {
        m: 0.22,
        c: 0.5,
        ..CartPole::default()
    };
    Sim::new(perturbed, TC / 4.0).unwrap()
}

/// Full SQP steps until the step and the defects vanish (at most 40, none falling back):
/// the iterations taken, the first iteration's statistics and the last's.
fn iterate_to_convergence<const S: usize>(
    mpc: &mut SqpRti<3, 1, 4, H, S>,
    model: &mut Sim,
    bounds: &Bounds<1>,
) -> (usize, SqpStats, SqpStats) {
    let mut first = None;
    for iteration in 1..=40 {
        let stats = mpc.iterate(model, &cost(), bounds).unwrap();
        assert_eq!(stats.fallback, None, "iteration {iteration}");
        let first = *first.get_or_insert(stats);
        if stats.step < 1e-9 && stats.defect < 1e-11 {
            return (iteration, first, stats);
        }
    }
    panic!("the SQP iterations do not converge in 40");
}

#[test]
fn one_sqp_iteration_per_period_holds_the_pole_on_a_perturbed_plant() {
    let mut model = Sim::new(CartPole::default(), TC).unwrap();
    let mut plant = perturbed_plant();
    let bounds = Bounds::symmetric(3.0);
    let mut s = at(0.15, 0.0);
    let first = plan(&mut model, &s, &bounds);
    let mut mpc = SqpRti::from_trajectory(&first.nominal);
    let (mut umax, mut last_second, mut active) = (0.0f64, 0.0f64, 0);
    for i in 0..300 {
        let (u, stats) = mpc.control(&mut model, &cost(), &bounds, &s).unwrap();
        assert_eq!(stats.fallback, None, "period {i}");
        assert_eq!(stats.steps, H);
        active += stats.active;
        umax = umax.max(u[0].abs());
        plant.system_mut().u = u[0];
        for _ in 0..4 {
            plant.step(&mut s).unwrap();
        }
        if i >= 250 {
            last_second = last_second.max(lean(&s).abs());
        }
        if i % 50 == 0 {
            println!("{i}: lean {:.3e}, cart {:.3e}, {stats:?}", lean(&s), s.q[0]);
        }
    }
    println!("max |u| {umax}, bounds active {active} times, last second's lean {last_second:.2e}");
    assert!(umax <= 3.0);
    assert!(active > 0, "the bound should be active at the start");
    assert!(last_second < 1e-3, "{last_second:e}");
    assert!(s.q[0].abs() < 0.05, "the cart returns: {}", s.q[0]);
}

#[test]
fn a_converged_box_ddp_plan_is_a_fixed_point_of_the_sqp_step() {
    let mut model = Sim::new(CartPole::default(), TC).unwrap();
    let bounds = Bounds::symmetric(3.0);
    let s = at(0.15, 0.0);
    let first = plan(&mut model, &s, &bounds);
    let mut mpc = SqpRti::from_trajectory(&first.nominal);
    let prepared = mpc.prepare(&mut model, &cost(), &bounds).unwrap();
    let (u, stats) = mpc.feedback(&model, &s).unwrap();
    let step = mpc.qp.v.iter().fold(0.0f64, |m, v| m.max(v.amax()));
    let dz = (0..=H).fold(0.0f64, |m, k| m.max(mpc.qp.state(k).amax()));
    println!("{stats:?}: |v| {step:.1e}, |z| {dz:.1e}");
    // A single-shooting rollout: no defects; the cost is box-DDP's.
    assert!(prepared.defect < 1e-12, "{}", prepared.defect);
    assert!((prepared.cost - first.nominal.cost).abs() < 1e-12 * first.nominal.cost);
    assert!(stats.active > 0);
    assert!(step < 1e-6 && dz < 1e-6, "{step:e} {dz:e}");
    assert!((u - first.nominal.controls[0]).amax() < 1e-6);
}

#[test]
fn full_sqp_steps_from_held_nodes_reach_the_box_ddp_optimum() {
    let mut model = Sim::new(CartPole::default(), TC).unwrap();
    let bounds = Bounds::symmetric(3.0);
    let s = at(0.15, 0.0);
    let first = plan(&mut model, &s, &bounds);
    // Every node at the start, at rest: not a trajectory (the defects are the QP's to close).
    let mut mpc = SqpRti::held(&model, &s, [SVector::zeros(); H]);
    let (iterations, start, stats) = iterate_to_convergence(&mut mpc, &mut model, &bounds);
    assert!(start.defect > 1e-3, "held nodes have defects: {start:?}");
    println!(
        "{iterations} iterations: cost {} against box-DDP's {}",
        stats.cost, first.nominal.cost
    );
    // Two methods (single shooting with a box-QP backward pass; multiple shooting with a
    // Riccati active-set QP) meet at the same constrained optimum.
    assert!(stats.active > 0, "the bound is active in this plan");
    assert!(
        (stats.cost - first.nominal.cost).abs() < 1e-8 * first.nominal.cost,
        "{} {}",
        stats.cost,
        first.nominal.cost
    );
    for k in 0..H {
        assert!(
            (mpc.controls[k] - first.nominal.controls[k]).amax() < 1e-5,
            "input {k}"
        );
        assert!((mpc.state(k + 1).q - first.nominal.states[k].q).amax() < 1e-7);
    }
}

#[test]
fn nodes_off_the_manifold_are_refused_with_the_driver_unchanged() {
    let mut model = Sim::new(CartPole::default(), TC).unwrap();
    let bounds = Bounds::symmetric(3.0);
    let s = at(0.15, 0.0);
    let good = SqpRti::<3, 1, 4, H>::held(&model, &s, [SVector::zeros(); H]);
    let mut nodes = core::array::from_fn(|k| *good.state(k + 1));
    nodes[7].q[2] += 0.1; // the pole longer than its rod
    let mut off = SqpRti::from_nodes(&s, nodes, [SVector::zeros(); H]);
    let before = (off, model);
    assert!(matches!(
        off.prepare(&mut model, &cost(), &bounds),
        Err(ControlError::Step(_))
    ));
    assert!(off.iterate(&mut model, &cost(), &bounds).is_err());
    assert!(same(&before, &(off, model)));
    nodes[7] = *good.state(8);
    nodes[H - 1].v[0] = f64::NAN;
    let mut nan = SqpRti::from_nodes(&s, nodes, [SVector::zeros(); H]);
    assert!(nan.prepare(&mut model, &cost(), &bounds).is_err());
    // The same nodes, mended, are taken.
    nodes[H - 1] = *good.state(H);
    let mut mended = SqpRti::from_nodes(&s, nodes, [SVector::zeros(); H]);
    let stats = mended.prepare(&mut model, &cost(), &bounds).unwrap();
    assert_eq!(stats.fallback, None);
}

/// The cart's largest excursion over the plan's nodes.
fn excursion<const S: usize>(mpc: &SqpRti<3, 1, 4, H, S>) -> f64 {
    (1..=H).fold(0.0f64, |m, k| m.max(mpc.state(k).q[0].abs()))
}

#[test]
fn soft_state_bounds_keep_the_cart_in_its_range() {
    let mut model = Sim::new(CartPole::default(), TC).unwrap();
    let bounds = Bounds::symmetric(3.0);
    let s0 = at(0.15, 0.0);
    // Unbounded, catching the pole takes the cart this far.
    let mut free = SqpRti::<3, 1, 4, H>::held(&model, &s0, [SVector::zeros(); H]);
    iterate_to_convergence(&mut free, &mut model, &bounds);
    let reach = excursion(&free);
    // Bounded to half of it, softly but heavily.
    let limit = 0.5 * reach;
    let range = StateBounds {
        index: [0],
        lo: [-limit],
        hi: [limit],
        weight: [1e6],
    };
    let mut held = SqpRti::held(&model, &s0, [SVector::zeros(); H])
        .with_state_bounds(range)
        .unwrap();
    let (_, _, stats) = iterate_to_convergence(&mut held, &mut model, &bounds);
    let bounded = excursion(&held);
    println!("cart reach {reach:.4} m free, {bounded:.4} m within ±{limit:.4}: {stats:?}");
    assert!(stats.soft_active > 0, "the bound shapes the plan");
    assert!(
        bounded > 0.9 * limit && bounded < limit * (1.0 + 1e-3),
        "{bounded} {limit}"
    );

    // In closed loop on the perturbed plant, one iteration per period.
    let mut plant = perturbed_plant();
    let mut s = s0;
    let (mut worst, mut last_second) = (0.0f64, 0.0f64);
    for i in 0..450 {
        let (u, stats) = held.control(&mut model, &cost(), &bounds, &s).unwrap();
        assert_eq!(stats.fallback, None, "period {i}");
        plant.system_mut().u = u[0];
        for _ in 0..4 {
            plant.step(&mut s).unwrap();
            worst = worst.max(s.q[0].abs());
        }
        if i >= 400 {
            last_second = last_second.max(lean(&s).abs());
        }
    }
    println!("closed loop: cart within {worst:.4} m, last second's lean {last_second:.2e}");
    assert!(worst < 1.05 * limit, "{worst} against {limit}");
    assert!(last_second < 1e-3, "{last_second:e}");

    // Unusable bounds are refused.
    let fresh = SqpRti::<3, 1, 4, H>::held(&model, &s0, [SVector::zeros(); H]);
    for bad in [
        StateBounds::upper(6, 1.0, 1.0),
        StateBounds::upper(0, f64::NAN, 1.0),
        StateBounds::upper(0, 1.0, -1.0),
        StateBounds::lower(0, 1.0, f64::INFINITY),
    ] {
        assert!(matches!(
            fresh.with_state_bounds(bad),
            Err(ControlError::InvalidArgument { .. })
        ));
    }
}

/// A cost whose state gradient turns NaN on demand.
struct Poisoned {
    inner: Quadratic<6, 1>,
    poison: Cell<bool>,
}

impl Cost<3, 1, 6> for Poisoned {
    fn stage(&self, k: usize, x: &State<3>, u: &SVector<f64, 1>) -> StageCost<6, 1> {
        let mut s = Cost::<3, 1, 6>::stage(&self.inner, k, x, u);
        if self.poison.get() {
            s.lx[0] = f64::NAN;
        }
        s
    }
    fn terminal(&self, x: &State<3>) -> TerminalCost<6> {
        Cost::<3, 1, 6>::terminal(&self.inner, x)
    }
}

fn same<T: std::fmt::Debug>(a: &T, b: &T) -> bool {
    format!("{a:?}") == format!("{b:?}")
}

#[test]
fn failures_fall_back_to_the_shifted_plan_and_invalid_input_changes_nothing() {
    let mut model = Sim::new(CartPole::default(), TC).unwrap();
    model.system_mut().u = -0.75;
    let bounds = Bounds::symmetric(3.0);
    let s = at(0.1, 0.0);
    let mut mpc = SqpRti::<3, 1, 4, H>::new(&s, [SVector::zeros(); H]);
    for _ in 0..3 {
        let (_, stats) = mpc.control(&mut model, &cost(), &bounds, &s).unwrap();
        assert_eq!(stats.fallback, None);
    }

    // 1. A step of the linearization fails (one Newton iteration allowed).
    let mut starved = model.with_options(Options {
        max_iterations: 1,
        ..Options::default()
    });
    let (u, stats) = mpc.control(&mut starved, &cost(), &bounds, &s).unwrap();
    println!("linearization failed: {stats:?}");
    assert!(
        matches!(stats.fallback, Some(ControlError::Step(_))),
        "{stats:?}"
    );
    assert_eq!(u, mpc.controls[0], "the shifted plan's first input");
    assert_eq!(starved.system().u, -0.75, "the model's input restored");
    let (_, stats) = mpc.control(&mut model, &cost(), &bounds, &s).unwrap();
    assert_eq!(stats.fallback, None);

    // 2. A non-finite cost gradient: the QP's data is refused, the input falls back.
    let poisoned = Poisoned {
        inner: cost(),
        poison: Cell::new(true),
    };
    let (u, stats) = mpc.control(&mut model, &poisoned, &bounds, &s).unwrap();
    assert!(
        matches!(stats.fallback, Some(ControlError::NonFinite { .. })),
        "{stats:?}"
    );
    assert_eq!((u, stats.steps), (mpc.controls[0], H));
    poisoned.poison.set(false);
    let (_, stats) = mpc.control(&mut model, &poisoned, &bounds, &s).unwrap();
    assert_eq!(stats.fallback, None);

    // 3. Invalid input: an error, and nothing changed.
    let before = (mpc, model);
    let reversed = Bounds {
        lo: SVector::from([1.0]),
        hi: SVector::from([-1.0]),
    };
    assert!(mpc.control(&mut model, &cost(), &reversed, &s).is_err());
    assert!(mpc
        .prepare(&mut model, &cost(), &Bounds::symmetric(f64::NAN))
        .is_err());
    let nan_r = Quadratic {
        r: SMatrix::from([[f64::NAN]]),
        ..cost()
    };
    assert!(mpc.control(&mut model, &nan_r, &bounds, &s).is_err());
    let off = State::new(0.0, [0.0, 0.1, 0.3], [0.0; 3]);
    assert!(matches!(
        mpc.control(&mut model, &cost(), &bounds, &off),
        Err(ControlError::Step(_))
    ));
    let nan = State::new(0.0, [f64::NAN, 0.0, L], [0.0; 3]);
    assert!(mpc.control(&mut model, &cost(), &bounds, &nan).is_err());
    // A feedback needs its preparation.
    assert!(matches!(
        mpc.feedback(&model, &s),
        Err(ControlError::InvalidArgument { .. })
    ));
    assert!(same(&before, &(mpc, model)));
    // A prepared driver refuses a bad measurement and still takes a good one.
    mpc.prepare(&mut model, &cost(), &bounds).unwrap();
    let prepared = mpc;
    assert!(mpc.feedback(&model, &off).is_err());
    assert!(same(&prepared, &mpc));
    let (_, stats) = mpc.feedback(&model, &s).unwrap();
    assert_eq!(stats.fallback, None);

    // 4. Non-finite initial inputs of a new driver.
    let mut fresh = SqpRti::<3, 1, 4, H>::new(&s, [SVector::from([f64::NAN]); H]);
    let copy = fresh;
    assert!(fresh.control(&mut model, &cost(), &bounds, &s).is_err());
    assert!(same(&copy, &fresh));
}

#[test]
fn an_sqp_period_allocates_nothing() {
    let mut model = Sim::new(CartPole::default(), TC).unwrap();
    let bounds = Bounds::symmetric(3.0);
    let mut s = at(0.1, 0.0);
    let mut mpc = Box::new(SqpRti::<3, 1, 4, H>::new(&s, [SVector::zeros(); H]));
    let mut plant = model;
    let (ok, n) = watched(|| {
        let mut ok = true;
        for _ in 0..10 {
            let (u, stats) = mpc.control(&mut model, &cost(), &bounds, &s).unwrap();
            ok &= stats.fallback.is_none();
            plant.system_mut().u = u[0];
            plant.step(&mut s).unwrap();
        }
        ok
    });
    assert!(ok);
    assert_eq!(n, 0, "an SQP period allocated {n} times");
}
