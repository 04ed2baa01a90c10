//! The sparse factorization of the simplified Newton blocks that `mechanics!` emits for models
//! with sparse mass matrices and constraint Jacobians (issue 16, part 2): its solves equal dense
//! solves of the same blocks, and steps taken with it keep the constraints, agree with full
//! Newton (dense exact matrices) and converge at the method's order.

use spark::nalgebra::{SMatrix, SVector};
use spark::saddle::SaddleStore;
use spark::{GaussLobatto, Integrator, Lagrangian, Options, State};

include!("../../examples/models/chain3d.rs");
chain!(Chain4, 4);
chain!(Chain10, 10);

spark::mechanics! {
    const N: usize = 4;
    /// A 3D chain whose neighbouring masses are coupled in the kinetic energy and whose masses
    /// depend on height: a tridiagonal mass matrix `L(q)` per axis, so that the factors have
    /// off-diagonal entries, a fill-reducing order matters and the mass matrix varies.
    pub struct CoupledChain {
        coordinates: [x[N], y[N], z[N]],
        velocities: [vx[N], vy[N], vz[N]],
        parameters: [g = 9.81, c = 0.2],
        lagrangian: (0..N).map(|i| 0.5 * (1.0 + 0.1 * z[i].powi(2)) * (vx[i].powi(2) + vy[i].powi(2) + vz[i].powi(2)) - g * z[i]).sum::<f64>()
            + (1..N).map(|i| c * (vx[i] * vx[i - 1] + vy[i] * vy[i - 1] + vz[i] * vz[i - 1])).sum::<f64>(),
        holonomic: [
            x[0].powi(2) + y[0].powi(2) + z[0].powi(2) - 1.0,
            for i in 1..N { (x[i] - x[i - 1]).powi(2) + (y[i] - y[i - 1]).powi(2) + (z[i] - z[i - 1]).powi(2) - 1.0 },
        ],
    }
}

const D: usize = 12;
type V = SVector<f64, D>;

/// Links tilted and twisted, at rest: a consistent start.
fn start() -> State<D> {
    let mut q = [0.0; D];
    let (mut px, mut py, mut pz) = (0.0, 0.0, 0.0);
    for i in 0..4 {
        let a = 0.5 + 0.2 * i as f64;
        let b = 0.4 * i as f64;
        px += a.sin() * b.cos();
        py += a.sin() * b.sin();
        pz -= a.cos();
        (q[i], q[4 + i], q[8 + i]) = (px, py, pz);
    }
    State::new(0.0, q, [0.0; D])
}

#[test]
fn the_macro_chooses_sparse_factors_for_chains() {
    const { assert!(<Chain4 as Lagrangian<12, 4>>::SPARSE_SADDLE) };
    const { assert!(<CoupledChain as Lagrangian<12, 4>>::SPARSE_SADDLE) };
}

/// Every sparse operation against the dense blocks the model also evaluates.
#[test]
fn sparse_solves_equal_dense_solves() {
    let sys = CoupledChain::default();
    let q = V::from_fn(|k, _| 0.3 + (k as f64 * 0.7).sin());
    let v = V::from_fn(|k, _| (k as f64 * 1.3).cos());
    let qg = q + v * 0.05;
    let mut store = SaddleStore::<D, 4>::default();
    assert!(sys.saddle_factor((0.1, &q, &v), (0.15, &qg), &mut store));
    let l = sys.mass_force(0.1, &q, &v).lvv;
    let g = sys.constraint_gradient(0.15, &qg).1;
    assert!((0..D).any(|i| (0..D).any(|j| i != j && l[(i, j)] != 0.0)));

    let x = V::from_fn(|k, _| (k as f64 * 0.37).sin());
    let y = SVector::<f64, 4>::from_fn(|k, _| 1.0 + k as f64);
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-12 * (1.0 + b.abs());

    let mut lx = x;
    sys.saddle_mass_solve(&store, &mut lx);
    let want = l.lu().solve(&x).unwrap();
    assert!(
        lx.iter().zip(want.iter()).all(|(a, b)| close(*a, *b)),
        "{lx} vs {want}"
    );

    let s: SMatrix<f64, 4, 4> = g * l.lu().solve(&g.transpose()).unwrap();
    let mut sy = y;
    sys.saddle_schur_solve(&store, &mut sy);
    let want = s.lu().solve(&y).unwrap();
    assert!(
        sy.iter().zip(want.iter()).all(|(a, b)| close(*a, *b)),
        "{sy} vs {want}"
    );

    let gx = sys.saddle_g(&store, &x);
    assert!(gx.iter().zip((g * x).iter()).all(|(a, b)| close(*a, *b)));
    let gty = sys.saddle_g_tr(&store, &y);
    assert!(gty
        .iter()
        .zip(g.tr_mul(&y).iter())
        .all(|(a, b)| close(*a, *b)));

    // The condition estimate lies between 1 and the 2-norm condition number.
    let eig = s.symmetric_eigenvalues();
    let kappa = eig.max() / eig.min();
    assert!(store.condition >= 1.0 && store.condition <= kappa * (1.0 + 1e-12));

    // A mass matrix that is not positive definite is refused (the step then uses full Newton).
    let bad = CoupledChain {
        c: 2.0,
        ..CoupledChain::default()
    };
    assert!(!bad.saddle_factor((0.1, &q, &v), (0.15, &qg), &mut store));
}

/// The evaluations a sparse model emits so that its step forms no `M × N` matrix (`G x`,
/// `Gᵀ y`, `G`'s row norms, the hidden constraint without `G`) against the dense `G` and
/// `velocity_constraint`, on a time-dependent model too (its `w` has a `g_t` term).
#[test]
fn sparse_evaluations_equal_dense_ones() {
    fn check<Sys: Lagrangian<D, 4>>(sys: &Sys) {
        let q = V::from_fn(|k, _| 0.3 + (k as f64 * 0.7).sin());
        let v = V::from_fn(|k, _| (k as f64 * 1.3).cos());
        let x = V::from_fn(|k, _| (k as f64 * 0.37).sin());
        let y = SVector::<f64, 4>::from_fn(|k, _| 1.0 - 0.6 * k as f64);
        let t = 0.7;
        let close = |a: &[f64], b: &[f64]| {
            a.len() == b.len()
                && a.iter()
                    .zip(b)
                    .all(|(a, b)| (a - b).abs() <= 1e-13 * (1.0 + b.abs()))
        };
        let dense = sys.velocity_constraint(t, &q, &v);
        let g = dense.gq;
        let gx = sys.constraint_product(t, &q, &x);
        let gty = sys.constraint_reaction(t, &q, &y).1;
        assert!(
            close(gx.as_slice(), (g * x).as_slice()),
            "{gx} vs {}",
            g * x
        );
        assert!(close(gty.as_slice(), g.tr_mul(&y).as_slice()));
        let norms = SVector::<f64, 4>::from_fn(|k, _| g.row(k).norm());
        assert!(close(
            sys.constraint_row_norms(t, &q).as_slice(),
            norms.as_slice()
        ));
        let (w, wq_v) = sys.hidden_constraint(t, &q, &v);
        assert!(close(w.as_slice(), dense.w.as_slice()));
        assert!(close(wq_v.as_slice(), dense.wq_v.as_slice()));
    }
    check(&CoupledChain::default());
    check(&PulledChain::default());
    const { assert!(<PulledChain as Lagrangian<12, 4>>::SPARSE_SADDLE) };
}

spark::mechanics! {
    const N: usize = 4;
    /// The 3D chain with its first rod's length driven in time: constraints with `g_t ≠ 0`.
    pub struct PulledChain {
        coordinates: [x[N], y[N], z[N]],
        velocities: [vx[N], vy[N], vz[N]],
        parameters: [g = 9.81],
        lagrangian: (0..N).map(|i| 0.5 * (vx[i].powi(2) + vy[i].powi(2) + vz[i].powi(2)) - g * z[i]).sum::<f64>(),
        holonomic: [
            x[0].powi(2) + y[0].powi(2) + z[0].powi(2) - (1.0 + 0.1 * t.sin()).powi(2),
            for i in 1..N { (x[i] - x[i - 1]).powi(2) + (y[i] - y[i - 1]).powi(2) + (z[i] - z[i - 1]).powi(2) - 1.0 },
        ],
    }
}

/// Steps with the sparse simplified Newton iteration keep the constraints to round-off and
/// agree with steps by full Newton with dense exact matrices.
fn agrees_with_full_newton<Sys: Lagrangian<D, 4> + Clone>(sys: Sys) {
    let h = 0.01;
    let mut sparse = Integrator::<Sys, GaussLobatto<2>>::new(sys.clone(), h).unwrap();
    let mut dense = Integrator::<Sys, GaussLobatto<2>>::new(sys, h)
        .unwrap()
        .with_options(Options {
            simplified_newton: false,
            ..Options::default()
        });
    let (mut a, mut b) = (start(), start());
    for _ in 0..300 {
        sparse.step(&mut a).unwrap();
        dense.step(&mut b).unwrap();
        let (g, gv) = sparse.constraint_residual(&a);
        assert!(
            g < 1e-13 && gv < 1e-12,
            "|g| {g:e}, |G v| {gv:e} at t = {}",
            a.t
        );
    }
    let dq = (a.q - b.q).amax();
    let dv = (a.v - b.v).amax();
    assert!(dq < 1e-10 && dv < 1e-9, "{dq:e} {dv:e}");
}

#[test]
fn sparse_steps_agree_with_full_newton() {
    agrees_with_full_newton(Chain4::default());
    agrees_with_full_newton(CoupledChain::default());
}

/// The links of `examples/chain3d.rs`'s start: 0.6 rad from the vertical, turning about z, at
/// rest.
fn swinging_start() -> State<D> {
    let mut q = [0.0; D];
    let (mut x, mut y, mut z) = (0.0f64, 0.0f64, 0.0f64);
    for i in 0..4 {
        let a = 0.3 * i as f64;
        x += 0.6f64.sin() * a.cos();
        y += 0.6f64.sin() * a.sin();
        z -= 0.6f64.cos();
        (q[i], q[4 + i], q[8 + i]) = (x, y, z);
    }
    State::new(0.0, q, [0.0; D])
}

/// `Options::full_newton_fallback = false`: a step whose simplified iteration fails (after its
/// refactorization) is an error with the state untouched, where the default redoes it with
/// full Newton; every other step is the default's, bit for bit.
#[test]
fn without_the_full_newton_fallback_a_hard_step_fails_and_keeps_the_state() {
    let h = 0.1;
    let mut with = Integrator::<Chain4, GaussLobatto<2>>::new(Chain4::default(), h).unwrap();
    let mut without = with.with_options(Options {
        full_newton_fallback: false,
        ..Options::default()
    });
    let (mut a, mut b) = (swinging_start(), swinging_start());
    let mut failed = false;
    for _ in 0..30 {
        with.step(&mut a).unwrap();
        let before = b;
        match without.step(&mut b) {
            Ok(()) => assert_eq!((a.t, a.q, a.v), (b.t, b.q, b.v)),
            Err(spark::Error::NoConvergence { .. }) => {
                assert_eq!((b.t, b.q, b.v), (before.t, before.q, before.v));
                failed = true;
                break;
            }
            Err(e) => panic!("{e}"),
        }
    }
    assert!(failed, "no step needed full Newton at h = {h}");
}

/// The 3D chain of 10 masses at S = 2 has 80 stage unknowns, above
/// `Options::DENSE_NEWTON_LIMIT`: its steps never form the dense system. Asking for full
/// Newton changes nothing (every step is the default's, bit for bit), and at h = 0.1 a hard
/// step fails with `NoConvergence` and the state untouched even with the default options.
#[test]
fn large_sparse_models_never_solve_densely() {
    const D10: usize = 30;
    let (stage_unknowns, limit) = (2 * (D10 + 10), Options::DENSE_NEWTON_LIMIT);
    assert!(
        stage_unknowns > limit,
        "{stage_unknowns} unknowns, limit {limit}"
    );
    let start = || {
        let mut q = [0.0; D10];
        let (mut x, mut y, mut z) = (0.0f64, 0.0f64, 0.0f64);
        for i in 0..10 {
            let a = 0.3 * i as f64;
            x += 0.6f64.sin() * a.cos();
            y += 0.6f64.sin() * a.sin();
            z -= 0.6f64.cos();
            (q[i], q[10 + i], q[20 + i]) = (x, y, z);
        }
        State::new(0.0, q, [0.0; D10])
    };
    let mut default =
        Integrator::<Chain10, GaussLobatto<2>>::new(Chain10::default(), 0.01).unwrap();
    let mut full = default.with_options(Options {
        simplified_newton: false,
        ..Options::default()
    });
    let (mut a, mut b) = (start(), start());
    for _ in 0..50 {
        default.step(&mut a).unwrap();
        full.step(&mut b).unwrap();
        assert_eq!((a.t, a.q, a.v), (b.t, b.q, b.v));
    }
    let mut hard = Integrator::<Chain10, GaussLobatto<2>>::new(Chain10::default(), 0.1).unwrap();
    let mut s = start();
    for _ in 0..100 {
        let before = s;
        match hard.step(&mut s) {
            Ok(()) => {
                let (g, gv) = hard.constraint_residual(&s);
                assert!(g < 1e-12 && gv < 1e-12, "|g| {g:e}, |G v| {gv:e}");
            }
            Err(spark::Error::NoConvergence { .. }) => {
                assert_eq!((s.t, s.q, s.v), (before.t, before.q, before.v));
                return;
            }
            Err(e) => panic!("{e}"),
        }
    }
    panic!("no step at h = 0.1 failed: the test no longer exercises the limit");
}

/// Without the fallback, the adaptive driver takes such a failure as a rejected step and
/// retries with a smaller one: it reaches the end where the default needed no rejection.
#[test]
fn without_the_full_newton_fallback_adaptive_steps_retry_and_arrive() {
    let run = |fallback: bool| {
        let options = Options {
            full_newton_fallback: fallback,
            rtol: 1e-2,
            atol: 1e-2,
            ..Options::default()
        };
        let mut sim = Integrator::<Chain4, GaussLobatto<2>>::new(Chain4::default(), 0.1)
            .unwrap()
            .with_options(options);
        let mut s = swinging_start();
        let stats = sim.advance_to(&mut s, 3.0).unwrap();
        assert_eq!(s.t, 3.0);
        let (g, gv) = sim.constraint_residual(&s);
        assert!(g < 1e-12 && gv < 1e-12, "|g| {g:e}, |G v| {gv:e}");
        stats.rejected
    };
    assert_eq!(run(true), 0);
    assert!(run(false) > 0);
}

/// At a large step the simplified iteration converges slowly at times; the sparse step then
/// factors its stage matrix again at the iterate (in place) and goes on. Such steps happen
/// (`StepStats::refactorizations`), and every step, refactored or not, equals the full-Newton
/// step from the same state and keeps the constraints.
#[test]
fn refactored_steps_equal_full_newton_steps() {
    let h = 0.1;
    let mut sparse = Integrator::<Chain4, GaussLobatto<2>>::new(Chain4::default(), h).unwrap();
    let dense = Integrator::<Chain4, GaussLobatto<2>>::new(Chain4::default(), h)
        .unwrap()
        .with_options(Options {
            simplified_newton: false,
            ..Options::default()
        });
    let mut s = swinging_start();
    let mut refactored = 0;
    for _ in 0..30 {
        let mut b = s;
        let mut dense = dense;
        dense.step(&mut b).unwrap();
        sparse.step(&mut s).unwrap();
        refactored += sparse.last_step_stats().refactorizations;
        let (g, gv) = sparse.constraint_residual(&s);
        assert!(
            g < 1e-12 && gv < 1e-12,
            "|g| {g:e}, |G v| {gv:e} at t = {}",
            s.t
        );
        let (dq, dv) = ((s.q - b.q).amax(), (s.v - b.v).amax());
        assert!(dq < 1e-12 && dv < 1e-11, "{dq:e} {dv:e} at t = {}", s.t);
        s = b;
    }
    assert!(refactored > 0, "no step refactored its stage matrix");
}

/// `GaussLobatto<2>` keeps order 4 with the sparse factors (measured against a step of h/64).
#[test]
fn sparse_steps_converge_at_order_four() {
    let run = |h: f64| {
        let mut sim =
            Integrator::<CoupledChain, GaussLobatto<2>>::new(CoupledChain::default(), h).unwrap();
        let mut s = start();
        let steps = (0.64 / h).round() as usize;
        for _ in 0..steps {
            sim.step(&mut s).unwrap();
        }
        s
    };
    let reference = run(0.04 / 64.0);
    let errs: Vec<f64> = [0.04, 0.02, 0.01]
        .iter()
        .map(|&h| (run(h).q - reference.q).amax())
        .collect();
    for w in errs.windows(2) {
        let order = (w[0] / w[1]).log2();
        assert!(
            (3.7..4.5).contains(&order),
            "errors {errs:?}, order {order}"
        );
    }
}
