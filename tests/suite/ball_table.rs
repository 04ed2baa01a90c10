//! The ball on a rotating table (thesis of S. Small, §8.3.3): n = 11 coordinates (the centre
//! q1, q2 and the rotation matrix Q = [[q3, q4, q5], [q6, q7, q8], [q9, q10, q11]]), six
//! holonomic constraints (QᵀQ = I) and two nonholonomic rolling constraints, integrated by the
//! (s,s)-Gauss-Lobatto SPARK method of Definition 5.2.1.
//!
//! The printed initial data are inconsistent: k2(q0, v0) = 3. The tests use repair (a) of the
//! implementation guide, v2 = −3 (the centre moves; consistent multipliers λ0 = (0, 0, −1, 18,
//! 0, 18), ψ0 = (−2, 0) and H0 = 40.5), and check that the printed data are rejected.

use crate::common;

use spark::{GaussLobatto, Integrator, Method, State};

include!("../../examples/models/ball_table.rs");

fn run<Meth: Method>(h: f64, t_end: f64) -> State<11> {
    let mut sim = Integrator::<BallTable, Meth>::new(BallTable::default(), h).unwrap();
    let mut s = ball_start();
    let n = (t_end / h).round() as usize;
    assert!((n as f64 * h - t_end).abs() < 1e-12);
    for _ in 0..n {
        sim.step(&mut s).unwrap();
        let (g, w) = sim.constraint_residual(&s);
        assert!(
            g < 1e-12 && w < 1e-12,
            "t = {}: |g| = {g:e}, |g_q v|, |k| = {w:e}",
            s.t
        );
    }
    s
}

/// Max-norm of the q-error (the thesis plots the global error of the q component).
fn q_error(a: &State<11>, b: &State<11>) -> f64 {
    (0..11).fold(0.0f64, |m, i| m.max((a.q[i] - b.q[i]).abs()))
}

#[test]
fn repaired_data_are_consistent() {
    let sim = Integrator::<BallTable, GaussLobatto<2>>::new(BallTable::default(), 0.1).unwrap();
    let s = ball_start();
    let (g, w) = sim.constraint_residual(&s);
    assert_eq!((g, w), (0.0, 0.0), "g, hidden constraint and k at t0");
    assert_eq!(sim.energy(&s), 40.5);
    // `project` has nothing to repair.
    let mut p = s;
    sim.project(&mut p).unwrap();
    assert!(
        (0..11).all(|i| (p.q[i] - s.q[i]).abs() < 1e-14 && (p.v[i] - s.v[i]).abs() < 1e-14),
        "{p:?}"
    );
}

#[test]
fn printed_data_are_rejected_and_left_unchanged() {
    let mut sim = Integrator::<BallTable, GaussLobatto<2>>::new(BallTable::default(), 0.1).unwrap();
    let printed = State::new(0.0, BALL_Q0, BALL_V0_PRINTED);
    let (g, w) = sim.constraint_residual(&printed);
    assert_eq!(g, 0.0);
    assert!((w - 3.0).abs() < 1e-15, "k2 = {w}");
    let mut s = printed;
    let err = sim.step(&mut s).unwrap_err();
    assert!(
        matches!(err, spark::Error::InconsistentState { .. }),
        "{err:?}"
    );
    assert_eq!(s, printed);
    // `project` repairs it; then the step goes through.
    sim.project(&mut s).unwrap();
    let (g, w) = sim.constraint_residual(&s);
    assert!(g < 1e-14 && w < 1e-14, "{g:e} {w:e}");
    sim.step(&mut s).unwrap();
}

#[test]
fn orders_2_and_4_against_a_fine_reference() {
    // Reference: (3,3)-Gauss-Lobatto SPARK (order 6) at h = 1/400.
    let t_end = 1.0;
    let reference = run::<GaussLobatto<3>>(1.0 / 400.0, t_end);
    let hs = [0.05, 0.025, 0.0125, 0.00625];
    let e1: Vec<f64> = hs
        .iter()
        .map(|&h| q_error(&run::<GaussLobatto<1>>(h, t_end), &reference))
        .collect();
    common::assert_order("ball S=1", 2.0, &hs, &e1);
    let hs = [0.1, 0.05, 0.025, 0.0125];
    let e2: Vec<f64> = hs
        .iter()
        .map(|&h| q_error(&run::<GaussLobatto<2>>(h, t_end), &reference))
        .collect();
    common::assert_order("ball S=2", 4.0, &hs, &e2);
}
