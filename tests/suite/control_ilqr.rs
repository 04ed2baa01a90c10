//! iLQR / box-DDP, NMPC and the EKF on the constraint manifold (issue 31), on the Cartesian
//! cart-pole (3 coordinates, 1 holonomic constraint, 1 input): the KKT conditions of the
//! box-constrained swing-up hold at the solution, the adjoint gradient equals central
//! differences of the rollout cost, the bounds are met exactly, the convergence near the
//! solution is linear with a small ratio; NMPC holds the pole upright with bounded inputs; the
//! EKF converges and its basis stays continuous across updates.

use spark::control::cost::Quadratic;
use spark::control::ekf::Ekf;
use spark::control::ilqr::{Bounds, Ilqr, Settings};
use spark::control::nmpc::Nmpc;
use spark::nalgebra::{SMatrix, SVector};
use spark::{GaussLobatto, Integrator, State};

spark::mechanics! {
    /// The Cartesian cart-pole, shared with `control_sqp`.
    pub(crate) struct CartPole {
        coordinates: [xc, x, y],
        velocities: [vc, vx, vy],
        parameters: [mc = 1.0, m = 0.2, l = 0.5, g = 9.81, c = 0.4],
        inputs: [u],
        lagrangian: 0.5 * mc * vc.powi(2) + 0.5 * m * (vx.powi(2) + vy.powi(2)) - m * g * y,
        forces: [u, 0.0, 0.0],
        dissipation: 0.5 * c * vc.powi(2),
        holonomic: [(x - xc).powi(2) + y.powi(2) - l.powi(2)],
    }
}

pub(crate) type Sim = Integrator<CartPole, GaussLobatto<2>>;
pub(crate) const L: f64 = 0.5;

pub(crate) fn at(th: f64, om: f64) -> State<3> {
    State::new(
        0.0,
        [0.0, L * th.sin(), L * th.cos()],
        [0.0, L * om * th.cos(), -L * om * th.sin()],
    )
}

/// Upright at the origin: the pole's tip offset `(x − xc, y − l)` and the cart weighed.
pub(crate) fn swing_cost(w_state: f64, w_final: f64) -> Quadratic<6, 1> {
    let mut q = SMatrix::<f64, 6, 6>::zeros();
    // (x − xc)²: [[1, −1], [−1, 1]] on (xc, x); (y − l)²; a little on xc and the velocities.
    q[(0, 0)] = 1.0 + 0.1;
    q[(1, 1)] = 1.0;
    q[(0, 1)] = -1.0;
    q[(1, 0)] = -1.0;
    q[(2, 2)] = 1.0;
    for i in 3..6 {
        q[(i, i)] = 0.01;
    }
    Quadratic {
        q: q * w_state,
        r: SMatrix::identity() * 1e-3,
        qf: q * w_final,
        x_ref: SVector::from([0.0, 0.0, L, 0.0, 0.0, 0.0]),
        u_ref: SVector::zeros(),
    }
}

const H: usize = 60;

fn swing_up() -> (Sim, Ilqr<3, 1, 4, H>, Quadratic<6, 1>, Bounds<1>, Vec<f64>) {
    let mut sim = Sim::new(CartPole::default(), 0.05).unwrap();
    let cost = swing_cost(1.0, 1000.0);
    let bounds = Bounds::symmetric(6.0);
    let mut solver = Ilqr::new(at(3.1, 0.0), [SVector::zeros(); H]);
    solver.initialize(&mut sim, &cost, &bounds).unwrap();
    let settings = Settings::default();
    let mut costs = vec![solver.nominal.cost];
    for _ in 0..200 {
        let s = solver.iterate(&mut sim, &cost, &bounds, &settings).unwrap();
        if s.accepted {
            costs.push(s.cost);
        }
        if s.accepted && s.previous_cost - s.cost <= 1e-13 * (1.0 + s.cost) {
            break;
        }
    }
    (sim, solver, cost, bounds, costs)
}

#[test]
fn box_ddp_swing_up_meets_kkt_and_bounds_and_converges_linearly() {
    let (mut sim, solver, cost, bounds, costs) = swing_up();
    let kkt = solver.kkt(&cost, &bounds);
    let scale = solver
        .gradient(&cost)
        .iter()
        .fold(0.0f64, |m, g| m.max(g.amax()));
    println!(
        "iterations {}, cost {:.6e}, kkt {kkt:?}, gradient scale {scale:.2e}",
        costs.len() - 1,
        costs.last().unwrap()
    );
    // The pole ends upright.
    let end = solver.nominal.state(H);
    let lean = (end.q[1] - end.q[0]).atan2(end.q[2]);
    println!("final lean {lean:.2e} rad");
    assert!(lean.abs() < 0.05, "{lean}");
    assert!(
        kkt.active > 0,
        "the bounds should be active in this swing-up"
    );
    assert_eq!(kkt.bound_violation, 0.0);
    assert!(kkt.projected_gradient < 1e-6 * (1.0 + scale), "{kkt:?}");
    assert!(kkt.wrong_sign <= 1e-8 * (1.0 + scale), "{kkt:?}");
    // Near the solution: linear convergence. The ratios of successive cost decreases.
    let j_star = *costs.last().unwrap();
    let gaps: Vec<f64> = costs
        .iter()
        .map(|j| j - j_star)
        .filter(|g| *g > 1e-12 * j_star)
        .collect();
    let ratios: Vec<f64> = gaps.windows(2).map(|w| w[1] / w[0]).collect();
    let tail = &ratios[ratios.len().saturating_sub(4)..];
    println!(
        "J − J* near the end: {:?}",
        &gaps[gaps.len().saturating_sub(5)..]
    );
    println!("ratios near the end: {tail:?}");
    assert!(
        !tail.is_empty() && tail.iter().all(|r| *r < 0.5),
        "{tail:?}"
    );

    // The adjoint gradient against central differences of the open-loop rollout cost, at a few
    // inputs inside the bounds.
    let g = solver.gradient(&cost);
    let mut checked = 0;
    for k in (0..H).step_by(7) {
        let u = solver.nominal.controls[k][0];
        if u.abs() > 5.9 {
            continue;
        }
        let e = 1e-5;
        let mut rolled = |du: f64| {
            let mut c = solver.nominal.controls;
            c[k][0] += du;
            let mut s = Ilqr::new(solver.nominal.start, c);
            s.initialize(&mut sim, &cost, &Bounds::symmetric(1e9))
                .unwrap();
            s.nominal.cost
        };
        let fd = (rolled(e) - rolled(-e)) / (2.0 * e);
        let gk = g[k][0];
        // At the solution g_k ≈ 0 on free inputs: compare against the gradient's scale.
        println!("k {k}: adjoint {gk:.3e}, central differences {fd:.3e}");
        assert!(
            (fd - gk).abs() < 1e-6 * (1.0 + scale),
            "{k}: {fd:e} vs {gk:e}"
        );
        checked += 1;
    }
    assert!(checked >= 3);
}

/// The gradient identity away from the solution, where it is large: a hanging start and zero
/// inputs.
#[test]
fn adjoint_gradient_equals_central_differences_away_from_the_solution() {
    let mut sim = Sim::new(CartPole::default(), 0.05).unwrap();
    let cost = swing_cost(1.0, 100.0);
    let wide = Bounds::symmetric(1e9);
    let mut controls = [SVector::<f64, 1>::zeros(); 30];
    for (k, c) in controls.iter_mut().enumerate() {
        c[0] = 3.0 * (0.3 * k as f64).sin();
    }
    let mut solver = Ilqr::<3, 1, 4, 30>::new(at(2.0, 0.5), controls);
    solver.initialize(&mut sim, &cost, &wide).unwrap();
    let g = solver.gradient(&cost);
    let mut worst = 0.0f64;
    for k in [0, 5, 13, 29] {
        let e = 1e-5;
        let mut rolled = |du: f64| {
            let mut c = controls;
            c[k][0] += du;
            let mut s = Ilqr::<3, 1, 4, 30>::new(at(2.0, 0.5), c);
            s.initialize(&mut sim, &cost, &wide).unwrap();
            s.nominal.cost
        };
        let fd = (rolled(e) - rolled(-e)) / (2.0 * e);
        worst = worst.max((fd - g[k][0]).abs() / (1e-3 + fd.abs()));
    }
    println!("adjoint gradient against central differences: {worst:.2e} relative");
    assert!(worst < 1e-6, "{worst:e}");
}

/// The README's NMPC loop, verbatim between the markers, with checks added
/// (not reformatted, to stay identical to the README).
#[rustfmt::skip]
#[test]
fn nmpc_holds_the_pole_upright_within_bounds() -> Result<(), Box<dyn std::error::Error>> {
    let (mut umax, mut late, mut i) = (0.0f64, 0.0f64, 0);
    // README begin
    let mut model = Integrator::<CartPole, GaussLobatto<2>>::new(CartPole::default(), 0.02)?;
    let plant_sys = CartPole { m: 0.22, c: 0.5, ..CartPole::default() };
    let mut plant = Integrator::<CartPole, GaussLobatto<2>>::new(plant_sys, 0.02)?;
    let mut q = SMatrix::<f64, 6, 6>::from_diagonal(&SVector::from([1.1, 1.0, 1.0, 0.01, 0.01, 0.01]));
    (q[(0, 1)], q[(1, 0)]) = (-1.0, -1.0); // (x − xc)²: the pole tip over the cart
    let cost = Quadratic {
        q, qf: q * 100.0, r: SMatrix::identity() * 1e-3,
        x_ref: SVector::from([0.0, 0.0, 0.5, 0.0, 0.0, 0.0]), u_ref: SVector::zeros(),
    };
    let bounds = Bounds::symmetric(5.0);
    let mut s = State::new(0.0, [0.0, 0.5 * 0.25f64.sin(), 0.5 * 0.25f64.cos()], [0.0; 3]);
    let mut mpc = Nmpc::for_model(&model, &s, [SVector::zeros(); 40], 1, Settings::default()); // sizes from the model
    for _ in 0..300 {
        let (u, stats) = mpc.control(&mut model, &cost, &bounds, &s)?; // stats: steps, QP iterations
        plant.system_mut().u = u[0];
        plant.step(&mut s)?;
        // README end
        assert!(stats.iterations == 1 && stats.steps >= 40);
        umax = umax.max(u[0].abs());
        let lean = (s.q[1] - s.q[0]).atan2(s.q[2]);
        if i >= 250 {
            late = late.max(lean.abs());
        }
        i += 1;
    }
    println!("NMPC: max |u| {umax}, lean over the last second {late:.2e}");
    assert!(umax <= 5.0);
    assert!(late < 1e-3, "{late}");
    Ok(())
}

#[test]
fn ekf_converges_and_its_basis_stays_continuous_across_updates() {
    let h = 0.01;
    let mut truth_sim = Sim::new(CartPole::default(), h).unwrap();
    let mut model = Sim::new(CartPole::default(), h).unwrap();
    let mut truth = at(0.6, 0.0);
    // A wrong guess: other angle, moving.
    let guess = at(0.3, 1.0);
    let mut ekf = Ekf::new(&model, &guess, &(SMatrix::<f64, 4, 4>::identity() * 0.5)).unwrap();
    let w = SMatrix::<f64, 4, 4>::identity() * 1e-10;
    let r = SMatrix::<f64, 2, 2>::identity() * 1e-6;
    // Measured: the cart position and the tip's horizontal position.
    let measure = |s: &State<3>| {
        let y = SVector::<f64, 2>::new(s.q[0], s.q[1]);
        let mut hx = SMatrix::<f64, 2, 6>::zeros();
        hx[(0, 0)] = 1.0;
        hx[(1, 1)] = 1.0;
        (y, hx)
    };
    let mut worst_jump = 0.0f64;
    let mut noise = 0.3f64;
    for i in 0..300 {
        let u = 2.0 * (0.05 * i as f64).sin();
        truth_sim.system_mut().u = u;
        model.system_mut().u = u;
        truth_sim.step(&mut truth).unwrap();
        ekf.predict(&mut model, &w).unwrap();
        // Deterministic measurement noise, about 1e-3.
        noise = (noise * 3.9 * (1.0 - noise)).clamp(0.01, 0.99);
        let (y, _) = measure(&truth);
        let y = y + SVector::from([1e-3 * (noise - 0.5), -1e-3 * (noise - 0.5)]);
        let before = ekf.basis;
        ekf.update(&model, &y, measure, &r).unwrap();
        worst_jump = worst_jump.max(ekf.basis.distance(&before));
        let (g, gv) = model.constraint_residual(&ekf.state);
        assert!(g < 1e-12 && gv < 1e-12);
    }
    let err = (ekf.state.q - truth.q)
        .amax()
        .max((ekf.state.v - truth.v).amax());
    println!("EKF: final error {err:.2e}, largest basis change across an update {worst_jump:.2e}");
    assert!(err < 1e-2, "{err}");
    assert!(worst_jump < 0.1, "{worst_jump}");
}

spark::mechanics! {
    /// A planar vehicle that cannot slip sideways (one nonholonomic constraint: D = 5).
    struct Vehicle {
        coordinates: [x, y, th],
        velocities: [vx, vy, w],
        parameters: [m = 1.0, i = 0.2, c = 0.1],
        inputs: [f, tau],
        lagrangian: 0.5 * m * (vx.powi(2) + vy.powi(2)) + 0.5 * i * w.powi(2),
        forces: [f * th.cos(), f * th.sin(), tau],
        dissipation: 0.5 * c * (vx.powi(2) + vy.powi(2) + w.powi(2)),
        nonholonomic: [-th.sin() * vx + th.cos() * vy],
    }
}

/// With a nonholonomic constraint (the mixed step's Jacobian, tangent space of dimension
/// 2N − K = 5): the adjoint gradient equals central differences, and box-DDP parks the vehicle
/// with the bounds met exactly and the KKT conditions satisfied.
#[test]
fn box_ddp_on_a_nonholonomic_vehicle() {
    let mut sim = Integrator::<Vehicle, GaussLobatto<2>>::new(Vehicle::default(), 0.1).unwrap();
    let cost = Quadratic::<6, 2> {
        q: SMatrix::from_diagonal(&SVector::from([0.0, 0.0, 0.0, 0.01, 0.01, 0.01])),
        r: SMatrix::identity() * 1e-2,
        qf: SMatrix::identity() * 1e3,
        x_ref: SVector::from([1.5, 1.0, 0.0, 0.0, 0.0, 0.0]),
        u_ref: SVector::zeros(),
    };
    let bounds = Bounds {
        lo: SVector::from([-0.8, -0.35]),
        hi: SVector::from([0.8, 0.35]),
    };
    let start = State::new(0.0, [0.0; 3], [0.0; 3]);
    let guess: [SVector<f64, 2>; 60] =
        std::array::from_fn(|k| SVector::from([0.5, if k < 15 { 0.3 } else { 0.0 }]));
    let mut solver = Ilqr::<3, 2, 5, 60>::new(start, guess);
    solver.initialize(&mut sim, &cost, &bounds).unwrap();
    // The gradient at the first guess against central differences.
    let g = solver.gradient(&cost);
    let mut worst = 0.0f64;
    for (k, i) in [(0, 0), (7, 1), (30, 0), (59, 1)] {
        let e = 1e-5;
        let mut rolled = |du: f64| {
            let mut c = guess;
            c[k][i] += du;
            let mut s = Ilqr::<3, 2, 5, 60>::new(start, c);
            s.initialize(&mut sim, &cost, &Bounds::symmetric(1e9))
                .unwrap();
            s.nominal.cost
        };
        let fd = (rolled(e) - rolled(-e)) / (2.0 * e);
        worst = worst.max((fd - g[k][i]).abs() / (1e-3 + fd.abs()));
    }
    println!("vehicle: adjoint gradient against central differences {worst:.2e}");
    assert!(worst < 1e-6, "{worst:e}");
    let (_, iterations) = solver
        .solve(&mut sim, &cost, &bounds, &Settings::default())
        .unwrap();
    let kkt = solver.kkt(&cost, &bounds);
    let end = solver.nominal.state(60);
    println!("vehicle: {iterations} iterations, end {:?}, {kkt:?}", end.q);
    assert!((end.q[0] - 1.5).abs() < 0.01 && (end.q[1] - 1.0).abs() < 0.01);
    assert!(kkt.active > 0 && kkt.bound_violation == 0.0);
    assert!(kkt.projected_gradient < 1e-6, "{kkt:?}");
    let (_, k) = sim.constraint_residual(end);
    assert!(k < 1e-12, "{k:e}");
}
