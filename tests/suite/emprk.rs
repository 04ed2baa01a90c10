//! The (s,s)-Gauss-Lobatto EMPRK method (thesis of S. Small, Definition 6.2.1) through the
//! macro: `Emprk<1>` is `GaussLobatto<1>` step for step; without nonholonomic constraints
//! `Emprk<S>`'s mixed step reproduces the Gauss-Lobatto SPARK step; orders 2S (S = 1, 2, 3) on
//! the nonholonomic particle, the skate (§8.3.2, ℓ = 1) and the ball on a rotating table
//! (§8.3.3, repair (a) v2 = −3); constraint residuals after every step; the internal Lobatto
//! stages lie on k = 0; the exact Jacobian against finite differences; errors leave the state
//! untouched.

use crate::common;

use common::run;

use spark::{Emprk, GaussLobatto, Integrator, Lagrangian, Method, Options, State};
use spark_runtime::emprk_step::system_len;
use spark_runtime::step::Problem;

include!("../../examples/models/nonholonomic_particle.rs");
include!("../../examples/models/skate.rs");
include!("../../examples/models/ball_table.rs");

spark::mechanics! {
    /// The pendulum of thesis §8.3.1 (gravity along +q2, g = ½(|q|² − ℓ²)).
    pub struct Pendulum {
        coordinates: [q1, q2],
        velocities: [v1, v2],
        parameters: [m = 1.0, l = 1.0, gamma = 1.0],
        lagrangian: 0.5 * m * (v1.powi(2) + v2.powi(2)) + m * gamma * q2,
        holonomic: [0.5 * (q1.powi(2) + q2.powi(2) - l.powi(2))],
    }
}

// With `K = 0` the pendulum's `Lagrangian<2, 1>` impl is that of a "mixed" model without
// nonholonomic constraints, so the EMPRK step itself (not the holonomic step the integrator
// chooses for it) can be run on it through `step_emprk_stages`.

fn max_diff<const N: usize>(a: &State<N>, b: &State<N>) -> f64 {
    (0..N).fold(0.0f64, |m, i| {
        m.max((a.q[i] - b.q[i]).abs()).max((a.v[i] - b.v[i]).abs())
    })
}

fn q_error<const N: usize>(a: &State<N>, b: &State<N>) -> f64 {
    (0..N).fold(0.0f64, |m, i| m.max((a.q[i] - b.q[i]).abs()))
}

/// Steps `Emprk<1>` and `GaussLobatto<1>` side by side; returns the largest difference.
fn lockstep<Sys, const N: usize, const M: usize, const K: usize>(
    sys: Sys,
    s0: State<N>,
    h: f64,
    n: usize,
) -> f64
where
    Sys: Lagrangian<N, M, K> + Copy,
{
    // The methods are compared, not the solvers (full Newton for EMPRK, simplified Newton with
    // a looser stop for SPARK): both are converged past the default tolerance.
    let tight = Options {
        tolerance: 1e-15,
        ..Options::default()
    };
    let mut a = Integrator::<Sys, Emprk<1>>::new(sys, h)
        .unwrap()
        .with_options(tight);
    let mut b = Integrator::<Sys, GaussLobatto<1>>::new(sys, h)
        .unwrap()
        .with_options(tight);
    let (mut sa, mut sb) = (s0, s0);
    let mut worst = 0.0f64;
    for _ in 0..n {
        a.step(&mut sa).unwrap();
        b.step(&mut sb).unwrap();
        worst = worst.max(max_diff(&sa, &sb));
    }
    worst
}

#[test]
fn emprk1_is_spark1_step_for_step() {
    let d = lockstep(Particle {}, particle_start(), 0.1, 100);
    eprintln!("particle: max |EMPRK<1> − SPARK<1>| over 100 steps = {d:e}");
    assert!(d < 1e-13, "{d:e}");
    let d = lockstep(Skate::default(), skate_start(), 0.1, 100);
    eprintln!("skate: max |EMPRK<1> − SPARK<1>| over 100 steps = {d:e}");
    assert!(d < 1e-13, "{d:e}");
    let d = lockstep(BallTable::default(), ball_start(), 0.05, 40);
    eprintln!("ball: max |EMPRK<1> − SPARK<1>| over 40 steps = {d:e}");
    assert!(d < 1e-12, "{d:e}");
}

/// Runs the EMPRK step itself on the pendulum (K = 0) beside `GaussLobatto<S>`.
fn pendulum_lockstep<const S: usize>(h: f64, n: usize) -> f64 {
    let sys = Pendulum::default();
    // Methods compared, not solvers: both converged past the default tolerance.
    let opts = Options {
        tolerance: 1e-15,
        ..Options::default()
    };
    let mut b = Integrator::<Pendulum, GaussLobatto<S>>::new(sys, h)
        .unwrap()
        .with_options(opts);
    let (mut sa, mut sb) = (
        State::new(0.0, [1.0, 0.0], [0.0, 0.0]),
        State::new(0.0, [1.0, 0.0], [0.0, 0.0]),
    );
    let mut worst = 0.0f64;
    for _ in 0..n {
        sa = Problem::<Pendulum, 2, 1, 0>::new(&sys, h, &opts, &sa)
            .emprk_stages(&Emprk::<S>::TABLEAU)
            .unwrap()
            .0;
        b.step(&mut sb).unwrap();
        worst = worst.max(max_diff(&sa, &sb));
    }
    worst
}

#[test]
fn without_nonholonomic_constraints_emprk_is_spark() {
    for (s, d) in [
        (1, pendulum_lockstep::<1>(0.1, 200)),
        (2, pendulum_lockstep::<2>(0.1, 200)),
        (3, pendulum_lockstep::<3>(0.1, 200)),
    ] {
        eprintln!("pendulum S={s}: max |EMPRK step − GaussLobatto step| over 200 steps = {d:e}");
        assert!(d < 1e-12, "S={s}: {d:e}");
    }
    // Through the integrator a holonomic model takes the Gauss-Lobatto step itself.
    let a = run::<Pendulum, Emprk<2>, 2, 1, 0>(
        Pendulum::default(),
        State::new(0.0, [1.0, 0.0], [0.0, 0.0]),
        0.1,
        2.0,
    );
    let b = run::<Pendulum, GaussLobatto<2>, 2, 1, 0>(
        Pendulum::default(),
        State::new(0.0, [1.0, 0.0], [0.0, 0.0]),
        0.1,
        2.0,
    );
    assert_eq!(a, b);
}

/// Global q-errors at `t_end` of `Emprk<S>` for the steps `hs` against `reference`.
fn errors<Sys, const S: usize, const N: usize, const M: usize, const K: usize>(
    sys: Sys,
    s0: State<N>,
    t_end: f64,
    hs: &[f64],
    reference: &State<N>,
) -> Vec<f64>
where
    Sys: Lagrangian<N, M, K> + Copy,
{
    hs.iter()
        .map(|&h| q_error(&run::<Sys, Emprk<S>, N, M, K>(sys, s0, h, t_end), reference))
        .collect()
}

/// Orders 2, 4, 6 of `Emprk<1..3>` against a reference computed with `Emprk<4>` (order 8),
/// itself checked against `GaussLobatto<4>` at the same step.
fn orders<Sys, const N: usize, const M: usize, const K: usize>(
    label: &str,
    sys: Sys,
    s0: State<N>,
    t_end: f64,
    h_ref: f64,
    hs: [&[f64]; 3],
) where
    Sys: Lagrangian<N, M, K> + Copy,
{
    let reference = run::<Sys, Emprk<4>, N, M, K>(sys, s0, h_ref, t_end);
    let other = run::<Sys, GaussLobatto<4>, N, M, K>(sys, s0, h_ref, t_end);
    let d = q_error(&reference, &other);
    eprintln!("{label}: references EMPRK<4> vs SPARK<4> at h = {h_ref}: {d:e}");
    assert!(d < 1e-12, "{d:e}");
    let e = errors::<Sys, 1, N, M, K>(sys, s0, t_end, hs[0], &reference);
    common::assert_order(&format!("{label} EMPRK S=1"), 2.0, hs[0], &e);
    let e = errors::<Sys, 2, N, M, K>(sys, s0, t_end, hs[1], &reference);
    common::assert_order(&format!("{label} EMPRK S=2"), 4.0, hs[1], &e);
    let e = errors::<Sys, 3, N, M, K>(sys, s0, t_end, hs[2], &reference);
    common::assert_order(&format!("{label} EMPRK S=3"), 6.0, hs[2], &e);
}

#[test]
fn particle_orders_2s() {
    orders(
        "particle",
        Particle {},
        particle_start(),
        2.0,
        0.01,
        [&[0.1, 0.05, 0.025], &[0.2, 0.1, 0.05], &[0.2, 0.1, 0.05]],
    );
}

#[test]
fn skate_orders_2s() {
    orders(
        "skate",
        Skate::default(),
        skate_start(),
        2.0,
        0.01,
        [
            &[0.1, 0.05, 0.025],
            &[0.2, 0.1, 0.05, 0.025],
            &[0.4, 0.2, 0.1],
        ],
    );
}

#[test]
fn ball_orders_2s() {
    orders(
        "ball",
        BallTable::default(),
        ball_start(),
        1.0,
        0.01,
        [
            &[0.05, 0.025, 0.0125],
            &[0.1, 0.05, 0.025],
            &[0.2, 0.1, 0.05],
        ],
    );
}

#[test]
fn emprk2_differs_from_spark2_when_there_is_a_nonholonomic_constraint() {
    // Both have order 4, but they are different methods: the dispatch really reaches the
    // EMPRK step. Thesis prototype (guide §7): q-errors at T = 2, h = 0.2 of 1.4e-5 (SPARK) and
    // 1.1e-5 (EMPRK).
    let a = run::<Skate, Emprk<2>, 4, 1, 1>(Skate::default(), skate_start(), 0.2, 2.0);
    let b = run::<Skate, GaussLobatto<2>, 4, 1, 1>(Skate::default(), skate_start(), 0.2, 2.0);
    let d = q_error(&a, &b);
    eprintln!("skate h = 0.2: |q_EMPRK − q_SPARK| at T = 2: {d:e}");
    assert!(d > 1e-6, "{d:e}");
}

/// Compares the assembled Jacobian with central finite differences of the residual.
fn check_jacobian<Sys, const N: usize, const M: usize, const K: usize, const S: usize>(
    sys: &Sys,
    s0: &State<N>,
    h: f64,
) where
    Sys: Lagrangian<N, M, K>,
{
    let tab = Emprk::<S>::TABLEAU;
    let n = system_len::<N, M, K, S>();
    assert_eq!(n, 2 * S * N + (S + 1) * M + S * K);
    // A generic point: velocities near v0, nonzero multipliers.
    let x: Vec<f64> = (0..n)
        .map(|i| {
            let base = if i < 2 * S * N { s0.v[i % N] } else { 0.0 };
            base + 0.3 * ((i as f64) * 1.7 + 0.4).sin()
        })
        .collect();
    let mut r = vec![0.0; n];
    let mut jac = vec![0.0; n * n];
    Problem::<Sys, N, M, K>::new(sys, h, &Options::default(), s0).emprk_residual(
        &tab,
        &x,
        &mut r,
        Some(&mut jac),
    );
    let eps = 1e-6;
    let mut worst = 0.0f64;
    let scale = jac.iter().fold(1.0f64, |m, v| m.max(v.abs()));
    for c in 0..n {
        let (mut xp, mut xm) = (x.clone(), x.clone());
        xp[c] += eps;
        xm[c] -= eps;
        let (mut rp, mut rm) = (vec![0.0; n], vec![0.0; n]);
        Problem::<Sys, N, M, K>::new(sys, h, &Options::default(), s0)
            .emprk_residual(&tab, &xp, &mut rp, None);
        Problem::<Sys, N, M, K>::new(sys, h, &Options::default(), s0)
            .emprk_residual(&tab, &xm, &mut rm, None);
        for row in 0..n {
            let fd = (rp[row] - rm[row]) / (2.0 * eps);
            let d = (fd - jac[row * n + c]).abs() / scale;
            assert!(
                d < 1e-7,
                "S={S}: J[{row},{c}] = {} but finite difference {fd}",
                jac[row * n + c]
            );
            worst = worst.max(d);
        }
    }
    eprintln!("S={S} n={n}: max |J - FD| / max|J| = {worst:e}");
}

#[test]
fn jacobian_matches_finite_differences() {
    let skate = Skate::default();
    check_jacobian::<Skate, 4, 1, 1, 1>(&skate, &skate_start(), 0.3);
    check_jacobian::<Skate, 4, 1, 1, 2>(&skate, &skate_start(), 0.3);
    check_jacobian::<Skate, 4, 1, 1, 3>(&skate, &skate_start(), 0.3);
    check_jacobian::<Particle, 3, 0, 1, 2>(&Particle {}, &particle_start(), 0.3);
    // The ball: k affine in v with q-dependent k_v (hess_vq ≠ 0), six holonomic constraints.
    check_jacobian::<BallTable, 11, 6, 2, 2>(&BallTable::default(), &ball_start(), 0.2);
    check_jacobian::<BallTable, 11, 6, 2, 3>(&BallTable::default(), &ball_start(), 0.2);
}

/// Steps `Emprk<S>` `n` times and returns the largest |k| and |g| seen at the Lobatto stages.
fn stage_residuals<Sys, const N: usize, const M: usize, const K: usize, const S: usize>(
    sys: &Sys,
    s0: State<N>,
    h: f64,
    n: usize,
) -> (f64, f64)
where
    Sys: Lagrangian<N, M, K>,
{
    let opts = Options::default();
    let mut s = s0;
    let (mut kmax, mut gmax) = (0.0f64, 0.0f64);
    for _ in 0..n {
        let (next, stages, _) = Problem::<Sys, N, M, K>::new(sys, h, &opts, &s)
            .emprk_stages(&Emprk::<S>::TABLEAU)
            .unwrap();
        assert_eq!(stages[S - 1], next);
        for st in &stages {
            let k = sys.nonholonomic_constraints(st.t, &st.q, &st.v);
            let g = sys.constraints(st.t, &st.q);
            kmax = k.iter().fold(kmax, |m, x| m.max(x.abs()));
            gmax = g.iter().fold(gmax, |m, x| m.max(x.abs()));
        }
        s = next;
    }
    (kmax, gmax)
}

#[test]
fn internal_lobatto_stages_satisfy_k() {
    // Thesis §6.2 / guide §2.5: EMPRK imposes k = 0 (and g = 0) at every Lobatto node.
    let (k, g) = stage_residuals::<Skate, 4, 1, 1, 3>(&Skate::default(), skate_start(), 0.1, 50);
    eprintln!("skate S=3: max |k|, |g| at the Lobatto stages: {k:e}, {g:e}");
    assert!(k < 1e-12 && g < 1e-12);
    let (k, g) =
        stage_residuals::<BallTable, 11, 6, 2, 2>(&BallTable::default(), ball_start(), 0.05, 40);
    eprintln!("ball S=2: max |k|, |g| at the Lobatto stages: {k:e}, {g:e}");
    assert!(k < 1e-12 && g < 1e-12);
}

#[test]
fn errors_leave_the_state_untouched() {
    // k = −0.5: inconsistent.
    let bad = State::new(0.0, [1.0, 0.5, 0.0], [1.0, 1.0, 0.0]);
    let mut sim = Integrator::<Particle, Emprk<2>>::new(Particle {}, 0.1).unwrap();
    let mut s = bad;
    assert!(matches!(
        sim.step(&mut s),
        Err(spark::Error::InconsistentState { .. })
    ));
    assert_eq!(s, bad);
    sim.project(&mut s).unwrap();
    sim.step(&mut s).unwrap();
    // The skate's printed data (ℓ = 2 with ends 1 apart) are rejected too.
    let mut sim = Integrator::<Skate, Emprk<2>>::new(
        Skate {
            l: 2.0,
            ..Skate::default()
        },
        0.1,
    )
    .unwrap();
    let mut s = skate_start();
    assert!(matches!(
        sim.step(&mut s),
        Err(spark::Error::InconsistentState { .. })
    ));
    assert_eq!(s, skate_start());
    // Non-finite state.
    let nan = State::new(0.0, [f64::NAN, 0.0, 0.0], [0.0, 1.0, 0.0]);
    let mut s = nan;
    let mut sim = Integrator::<Particle, Emprk<2>>::new(Particle {}, 0.1).unwrap();
    assert_eq!(sim.step(&mut s), Err(spark::Error::NonFiniteState));
    assert!(s.q[0].is_nan());
    // A step far too large for Newton: an error, not a panic, and the state is kept.
    let mut sim = Integrator::<BallTable, Emprk<2>>::new(BallTable::default(), 50.0).unwrap();
    let mut s = ball_start();
    if let Err(e) = sim.step(&mut s) {
        eprintln!("ball h = 50: {e:?}");
        assert_eq!(s, ball_start());
    }
}

fn skate_energy<Meth: Method>(h: f64, steps: usize) -> f64 {
    let mut sim = Integrator::<Skate, Meth>::new(Skate::default(), h).unwrap();
    let mut s = skate_start();
    let e0 = sim.energy(&s);
    let mut worst = 0.0f64;
    for _ in 0..steps {
        sim.step(&mut s).unwrap();
        worst = worst.max((sim.energy(&s) - e0).abs());
    }
    worst
}

#[test]
fn skate_energy_error_is_much_smaller_than_sparks() {
    // Guide §7 prototype, (2,2), h = 0.1 on [0, 200]: SPARK 7.0e-7, EMPRK 2.9e-10.
    let spark = skate_energy::<GaussLobatto<2>>(0.1, 2000);
    let emprk = skate_energy::<Emprk<2>>(0.1, 2000);
    eprintln!("skate (2,2) h = 0.1 on [0, 200]: max |E − E0| SPARK {spark:e}, EMPRK {emprk:e}");
    assert!((spark / 7.0e-7 - 1.0).abs() < 0.1, "{spark:e}");
    assert!((emprk / 2.9e-10 - 1.0).abs() < 0.1, "{emprk:e}");
}

#[test]
fn lobatto_iiia_coefficients() {
    // Ǎ for s = 3 (guide §3.5, generated independently with SymPy), rows c̃_1..c̃_3.
    let t = Emprk::<3>::TABLEAU;
    let expected = [
        [
            0.11030056647916492,
            0.1896994335208351,
            -0.03390736422914389,
            0.010300566479164915,
        ],
        [
            0.07303276685416842,
            0.45057403089581055,
            0.2269672331458316,
            -0.02696723314583158,
        ],
        [1.0 / 12.0, 5.0 / 12.0, 5.0 / 12.0, 1.0 / 12.0],
    ];
    for (i, want) in expected.iter().enumerate() {
        let row = [t.a_chk0[i], t.a_chk[i][0], t.a_chk[i][1], t.a_chk[i][2]];
        for (j, (got, want)) in row.iter().zip(want).enumerate() {
            assert!((got - want).abs() < 1e-15, "ǎ[{}][{j}]", i + 1);
        }
    }
    // Č(s+1) for s = 1..4 via s = 4: Σ_j ǎ_ij c̃_j^{k−1} = c̃_i^k / k, k = 1..s+1 (6.7e is k = 1).
    let t = Emprk::<4>::TABLEAU;
    for i in 0..4 {
        for k in 1..=5 {
            let mut sum = if k == 1 { t.a_chk0[i] } else { 0.0 };
            for j in 0..4 {
                sum += t.a_chk[i][j] * t.spark.c_lob[j].powi(k - 1);
            }
            let exact = t.spark.c_lob[i].powi(k) / k as f64;
            assert!((sum - exact).abs() < 1e-15, "i={i} k={k}: {sum} vs {exact}");
        }
    }
    assert_eq!(t.a_chk0[3], t.spark.b_lob0);
    assert_eq!(t.a_chk[3], t.spark.b_lob);
}

/// `max |Φ_{−h}(Φ_h(s0)) − s0|` over `n` starting points along a trajectory of `Emprk<S>`.
fn symmetry_defect<Sys, const S: usize, const N: usize, const M: usize, const K: usize>(
    sys: Sys,
    s0: State<N>,
    h: f64,
    n: usize,
) -> f64
where
    Sys: Lagrangian<N, M, K> + Copy,
{
    let mut fwd = Integrator::<Sys, Emprk<S>>::new(sys, h).unwrap();
    let mut bwd = Integrator::<Sys, Emprk<S>>::new(sys, -h).unwrap();
    let mut s = s0;
    let mut worst = 0.0f64;
    for _ in 0..n {
        let start = s;
        fwd.step(&mut s).unwrap();
        let mut back = s;
        bwd.step(&mut back).unwrap();
        worst = worst.max(max_diff(&back, &start));
        assert!((back.t - start.t).abs() < 1e-15);
    }
    worst
}

#[test]
fn emprk_is_symmetric() {
    // Thesis Theorem 6.2.2: Φ_{−h} ∘ Φ_h = id for consistent initial values.
    for (label, d) in [
        (
            "skate S=2",
            symmetry_defect::<Skate, 2, 4, 1, _>(Skate::default(), skate_start(), 0.2, 10),
        ),
        (
            "skate S=3",
            symmetry_defect::<Skate, 3, 4, 1, _>(Skate::default(), skate_start(), 0.2, 10),
        ),
        (
            "ball S=2",
            symmetry_defect::<BallTable, 2, 11, 6, _>(BallTable::default(), ball_start(), 0.1, 10),
        ),
        (
            "particle S=3",
            symmetry_defect::<Particle, 3, 3, 0, _>(Particle {}, particle_start(), 0.3, 10),
        ),
    ] {
        eprintln!("{label}: max |Φ_-h(Φ_h(s)) − s| = {d:e}");
        assert!(d < 1e-12, "{label}: {d:e}");
    }
}
