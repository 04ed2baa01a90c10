//! The SQP's merit line search (`SqpRti::iterate_with_line_search`, `SqpRti::solve`) on the
//! Cartesian cart-pole swing-up of `control_ilqr` (60 intervals of 50 ms, |u| ≤ 6 N): from
//! single-shooting starts where full Gauss–Newton steps diverge it converges to a stationary
//! point (a further full step is zero); where full steps converge it reaches the same plan; near
//! a solution it takes full steps; a search that finds no decrease leaves the plan as it was;
//! unusable settings are refused with nothing changed; an iteration allocates nothing.

use std::cell::Cell;

use crate::control_ilqr::{at, swing_cost, CartPole, Sim};
use crate::no_alloc::watched;
use spark::control::cost::{Cost, Quadratic, StageCost, TerminalCost};
use spark::control::error::ControlError;
use spark::control::ilqr::Bounds;
use spark::control::sqp::{LineSearch, SqpRti, SqpSettings, SqpSolution};
use spark::nalgebra::SVector;
use spark::State;

const H: usize = 60;
const TC: f64 = 0.05;

type Plan = SqpRti<3, 1, 4, H>;

/// The swing-up from the lean `lean` (radians from upright) by single shooting from zero
/// inputs, solved with `settings`.
fn swing(lean: f64, settings: &SqpSettings) -> (Box<Plan>, SqpSolution) {
    let mut sim = Sim::new(CartPole::default(), TC).unwrap();
    let mut plan = Box::new(Plan::new(&at(lean, 0.0), [SVector::zeros(); H]));
    let out = plan
        .solve(
            &mut sim,
            &swing_cost(1.0, 1000.0),
            &Bounds::symmetric(6.0),
            settings,
        )
        .unwrap();
    (plan, out)
}

fn settings(line_search: bool) -> SqpSettings {
    SqpSettings {
        max_iterations: 300,
        line_search: line_search.then(LineSearch::default),
        ..SqpSettings::default()
    }
}

#[test]
fn the_line_search_converges_where_full_steps_diverge() {
    for lean in [1.5, 2.5] {
        let (_, full) = swing(lean, &settings(false));
        let (mut plan, searched) = swing(lean, &settings(true));
        println!("lean {lean}: full steps {full:?}\n  line search {searched:?}");
        assert!(searched.converged, "lean {lean}: {searched:?}");
        assert_eq!(searched.last.fallback, None);
        assert!(searched.last.defect < 1e-10 && searched.last.step < 1e-8);
        if lean == 1.5 {
            // Full steps run off until an interval's Newton solve fails.
            assert!(!full.converged, "{full:?}");
            assert!(
                matches!(full.last.fallback, Some(ControlError::Step(_))),
                "{full:?}"
            );
        } else {
            // Where both converge, they meet at the same plan.
            assert!(full.converged, "{full:?}");
            let rel = (full.last.cost - searched.last.cost).abs() / full.last.cost;
            assert!(rel < 1e-9, "{} {}", full.last.cost, searched.last.cost);
        }
        // A stationary point: one more full step is (close to) zero.
        let mut sim = Sim::new(CartPole::default(), TC).unwrap();
        let more = plan
            .iterate(&mut sim, &swing_cost(1.0, 1000.0), &Bounds::symmetric(6.0))
            .unwrap();
        assert!(more.step < 1e-7 && more.defect < 1e-10, "{more:?}");
    }
}

#[test]
fn near_a_solution_the_line_search_takes_full_steps() {
    let mut sim = Sim::new(CartPole::default(), TC).unwrap();
    let cost = swing_cost(1.0, 1000.0);
    let bounds = Bounds::symmetric(6.0);
    let mut plan = Box::new(Plan::new(&at(2.0, 0.0), [SVector::zeros(); H]));
    let search = LineSearch::default();
    let mut alphas = Vec::new();
    let mut costs = Vec::new();
    for _ in 0..300 {
        let s = plan
            .iterate_with_line_search(&mut sim, &cost, &bounds, &search)
            .unwrap();
        assert_eq!(s.fallback, None);
        assert!(s.alpha > 0.0 && s.alpha <= 1.0 && s.trials >= 1, "{s:?}");
        alphas.push(s.alpha);
        costs.push(s.cost);
        if s.step < 1e-9 && s.defect < 1e-11 {
            break;
        }
    }
    let n = alphas.len();
    println!("{n} iterations, step lengths {alphas:?}");
    assert!(n < 300, "not converged");
    assert!(
        alphas.iter().any(|&a| a < 1.0),
        "the search should backtrack early on"
    );
    let tail = &alphas[n - 10..];
    assert!(tail.iter().all(|&a| a == 1.0), "{tail:?}");
}

/// A cost whose values turn NaN once `calls` is past `after` (the linearization's calls pass,
/// every trial's fail).
struct FailsLater {
    inner: Quadratic<6, 1>,
    calls: Cell<usize>,
    after: usize,
}

impl FailsLater {
    fn poisoned(&self, value: f64) -> f64 {
        self.calls.set(self.calls.get() + 1);
        if self.calls.get() > self.after {
            f64::NAN
        } else {
            value
        }
    }
}

impl Cost<3, 1, 6> for FailsLater {
    fn stage(&self, k: usize, x: &State<3>, u: &SVector<f64, 1>) -> StageCost<6, 1> {
        let mut s = Cost::<3, 1, 6>::stage(&self.inner, k, x, u);
        s.value = self.poisoned(s.value);
        s
    }
    fn terminal(&self, x: &State<3>) -> TerminalCost<6> {
        let mut s = Cost::<3, 1, 6>::terminal(&self.inner, x);
        s.value = self.poisoned(s.value);
        s
    }
}

#[test]
fn a_search_without_decrease_leaves_the_plan_and_says_so() {
    let mut sim = Sim::new(CartPole::default(), TC).unwrap();
    let bounds = Bounds::symmetric(6.0);
    let mut plan = Box::new(Plan::held(&sim, &at(2.0, 0.0), [SVector::zeros(); H]));
    let cost = FailsLater {
        inner: swing_cost(1.0, 1000.0),
        calls: Cell::new(0),
        after: H + 1,
    };
    let (nodes, controls) = (plan.nodes, plan.controls);
    let search = LineSearch {
        trials: 4,
        ..LineSearch::default()
    };
    let s = plan
        .iterate_with_line_search(&mut sim, &cost, &bounds, &search)
        .unwrap();
    println!("{s:?}");
    assert_eq!(
        s.fallback,
        Some(ControlError::NoConvergence {
            what: "the SQP's merit line search",
            iterations: 4
        })
    );
    assert_eq!((s.alpha, s.trials), (0.0, 4));
    assert!(s.step > 0.0, "the QP found a step: {s:?}");
    assert_eq!(plan.nodes, nodes);
    assert_eq!(plan.controls, controls);
    assert_eq!(sim.system().u, 0.0, "the model's input is restored");
}

#[test]
fn unusable_settings_are_refused_with_nothing_changed() {
    let mut sim = Sim::new(CartPole::default(), TC).unwrap();
    let cost = swing_cost(1.0, 1000.0);
    let bounds = Bounds::symmetric(6.0);
    let mut plan = Box::new(Plan::new(&at(2.0, 0.0), [SVector::zeros(); H]));
    plan.solve(
        &mut sim,
        &cost,
        &bounds,
        &SqpSettings {
            max_iterations: 3,
            ..SqpSettings::default()
        },
    )
    .unwrap();
    let before = plan.clone();
    let good = LineSearch::default();
    let searches = [
        LineSearch {
            armijo: 0.0,
            ..good
        },
        LineSearch {
            armijo: 1.0,
            ..good
        },
        LineSearch {
            armijo: f64::NAN,
            ..good
        },
        LineSearch {
            shrink: 1.0,
            ..good
        },
        LineSearch {
            shrink: -0.5,
            ..good
        },
        LineSearch { trials: 0, ..good },
    ];
    for search in searches {
        let e = plan.iterate_with_line_search(&mut sim, &cost, &bounds, &search);
        assert!(
            matches!(e, Err(ControlError::InvalidArgument { .. })),
            "{search:?}: {e:?}"
        );
        let settings = SqpSettings {
            line_search: Some(search),
            ..SqpSettings::default()
        };
        let e = plan.solve(&mut sim, &cost, &bounds, &settings);
        assert!(
            matches!(e, Err(ControlError::InvalidArgument { .. })),
            "{e:?}"
        );
        assert_eq!(*plan, *before);
    }
    let base = SqpSettings::default();
    for settings in [
        SqpSettings {
            max_iterations: 0,
            ..base
        },
        SqpSettings {
            step_tolerance: f64::NAN,
            ..base
        },
        SqpSettings {
            step_tolerance: -1.0,
            ..base
        },
        SqpSettings {
            defect_tolerance: f64::INFINITY,
            ..base
        },
    ] {
        let e = plan.solve(&mut sim, &cost, &bounds, &settings);
        assert!(
            matches!(e, Err(ControlError::InvalidArgument { .. })),
            "{settings:?}: {e:?}"
        );
        assert_eq!(*plan, *before);
    }
}

#[test]
fn a_line_search_iteration_allocates_nothing() {
    let mut sim = Sim::new(CartPole::default(), TC).unwrap();
    let cost = swing_cost(1.0, 1000.0);
    let bounds = Bounds::symmetric(6.0);
    let mut plan = Box::new(Plan::new(&at(1.5, 0.0), [SVector::zeros(); H]));
    let search = LineSearch::default();
    let (trials, n) = watched(|| {
        let mut trials = 0;
        for _ in 0..5 {
            trials += plan
                .iterate_with_line_search(&mut sim, &cost, &bounds, &search)
                .unwrap()
                .trials;
        }
        trials
    });
    assert!(trials >= 5);
    assert_eq!(n, 0, "line-search iterations allocated {n} times");
}
