//! The mixed holonomic/nonholonomic Gauss-Lobatto SPARK step (`step_mixed`) on hand-written
//! models: the nonholonomic particle of Small & Jay §8.1 (purely nonholonomic), the skate on an
//! inclined plane of Small's thesis §8.3.2 with ℓ = 1 (one holonomic and one nonholonomic
//! constraint), and the pendulum with `K = 0` against the holonomic `GaussLobatto<S>` step.
//!
//! References are independent: a classical RK4 at a tiny step of the index-reduced ODE (the
//! multipliers eliminated through the acceleration-level constraints).

use nalgebra::{SMatrix, SVector};
use spark_runtime::mixed_step::system_len;
use spark_runtime::step::Problem;
use spark_runtime::{
    ConstraintJacobian, DynamicsJacobian, GaussLobatto, Integrator, Lagrangian, LobattoIIIAB,
    LobattoIIIABD, Method, Model, NonholonomicJacobian, Options, SparkTableau, State,
    SymplecticEulerI, SymplecticEulerII, VelocityConstraintJacobian,
};

// ---------------------------------------------------------------------------------------------
// Models
// ---------------------------------------------------------------------------------------------

#[path = "../models/particle.rs"]
mod particle;
use particle::{Particle, V3};

#[path = "../models/skate.rs"]
mod skate;
use skate::{Skate, V4};

/// Cartesian pendulum (as in hand_pendulum.rs), with no nonholonomic constraint.
#[derive(Clone, Copy)]
struct Pendulum;

type V2 = SVector<f64, 2>;

impl Model for Pendulum {
    fn first_non_finite_parameter(&self) -> Option<&'static str> {
        None
    }
}

impl Lagrangian<2, 1> for Pendulum {
    fn lagrangian(&self, _t: f64, q: &V2, v: &V2) -> f64 {
        0.5 * v.norm_squared() - q[1]
    }
    fn momentum_force(&self, _t: f64, _q: &V2, v: &V2) -> (V2, V2) {
        (*v, V2::new(0.0, -1.0))
    }
    fn dynamics_jacobian(&self, t: f64, q: &V2, v: &V2) -> DynamicsJacobian<2> {
        let (p, f) = self.momentum_force(t, q, v);
        DynamicsJacobian {
            p,
            f,
            lvv: SMatrix::identity(),
            lvq: SMatrix::zeros(),
            lqq: SMatrix::zeros(),
            fv: SMatrix::zeros(),
        }
    }
    fn constraints(&self, _t: f64, q: &V2) -> SVector<f64, 1> {
        SVector::from([q.norm_squared() - 1.0])
    }
    fn constraint_jacobian(
        &self,
        t: f64,
        q: &V2,
        mu: &SVector<f64, 1>,
    ) -> ConstraintJacobian<2, 1> {
        ConstraintJacobian {
            g: self.constraints(t, q),
            gq: SMatrix::from_row_slice(&[2.0 * q[0], 2.0 * q[1]]),
            hess_mu: SMatrix::identity() * (2.0 * mu[0]),
        }
    }
    fn velocity_constraint_jacobian(
        &self,
        _t: f64,
        q: &V2,
        v: &V2,
    ) -> VelocityConstraintJacobian<2, 1> {
        VelocityConstraintJacobian {
            w: SVector::from([2.0 * q.dot(v)]),
            wq: SMatrix::from_row_slice(&[2.0 * v[0], 2.0 * v[1]]),
            wv: SMatrix::from_row_slice(&[2.0 * q[0], 2.0 * q[1]]),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/// Classical RK4 of `q' = v, v' = acc(q, v)` with `n` steps over `[0, t_end]`.
fn rk4<const N: usize>(
    acc: fn(&SVector<f64, N>, &SVector<f64, N>) -> SVector<f64, N>,
    s0: &State<N>,
    t_end: f64,
    n: usize,
) -> State<N> {
    let h = t_end / n as f64;
    let (mut q, mut v) = (s0.q, s0.v);
    for _ in 0..n {
        let (k1q, k1v) = (v, acc(&q, &v));
        let (k2q, k2v) = (
            v + k1v * (0.5 * h),
            acc(&(q + k1q * (0.5 * h)), &(v + k1v * (0.5 * h))),
        );
        let (k3q, k3v) = (
            v + k2v * (0.5 * h),
            acc(&(q + k2q * (0.5 * h)), &(v + k2v * (0.5 * h))),
        );
        let (k4q, k4v) = (v + k3v * h, acc(&(q + k3q * h), &(v + k3v * h)));
        q += (k1q + k2q * 2.0 + k3q * 2.0 + k4q) * (h / 6.0);
        v += (k1v + k2v * 2.0 + k3v * 2.0 + k4v) * (h / 6.0);
    }
    State { t: t_end, q, v }
}

fn dist<const N: usize>(a: &State<N>, b: &State<N>) -> f64 {
    (a.q - b.q).amax().max((a.v - b.v).amax())
}

/// Integrates to `t_end` with `step_mixed`, checking `check` (the constraint residuals) after
/// every step; returns the end state and the largest residual seen.
fn run<Sys, const N: usize, const M: usize, const K: usize, const S: usize>(
    sys: &Sys,
    s0: &State<N>,
    h: f64,
    t_end: f64,
    check: &dyn Fn(&State<N>) -> f64,
    energy: &dyn Fn(&State<N>) -> f64,
) -> (State<N>, f64, f64)
where
    Sys: Lagrangian<N, M, K>,
{
    let tab = GaussLobatto::<S>::TABLEAU;
    let opts = Options::default();
    let mut s = *s0;
    let e0 = energy(s0);
    let (mut res, mut de) = (0.0f64, 0.0f64);
    let steps = (t_end / h).round() as usize;
    let mut iterations = 0;
    for _ in 0..steps {
        let (next, stats) = Problem::<Sys, N, M, K>::new(sys, h, &opts, &s)
            .mixed::<S>(&tab)
            .unwrap();
        s = next;
        iterations = iterations.max(stats.stage_iterations);
        res = res.max(check(&s));
        de = de.max((energy(&s) - e0).abs());
    }
    eprintln!("  S={S} h={h}: at most {iterations} Newton iterations per step");
    (s, res, de)
}

fn slopes(hs: &[f64], errs: &[f64]) -> Vec<f64> {
    errs.windows(2)
        .zip(hs.windows(2))
        .map(|(e, h)| (e[0] / e[1]).ln() / (h[0] / h[1]).ln())
        .collect()
}

/// Compares the assembled Jacobian with central finite differences of the residual.
fn check_jacobian<Sys, const N: usize, const M: usize, const K: usize, const S: usize>(
    sys: &Sys,
    s0: &State<N>,
    h: f64,
) where
    Sys: Lagrangian<N, M, K>,
{
    check_jacobian_of::<Sys, N, M, K, S>(&GaussLobatto::<S>::TABLEAU, sys, s0, h);
}

/// [`check_jacobian`] for any tableau of the mixed step.
fn check_jacobian_of<Sys, const N: usize, const M: usize, const K: usize, const S: usize>(
    tab: &SparkTableau<S>,
    sys: &Sys,
    s0: &State<N>,
    h: f64,
) where
    Sys: Lagrangian<N, M, K>,
{
    let tab = *tab;
    let n = system_len::<N, M, K, S>();
    // A generic point: velocities near v0, nonzero multipliers.
    let x: Vec<f64> = (0..n)
        .map(|i| {
            let base = if i < (S + 1) * N { s0.v[i % N] } else { 0.0 };
            base + 0.3 * ((i as f64) * 1.7 + 0.4).sin()
        })
        .collect();
    let mut r = vec![0.0; n];
    let mut jac = vec![0.0; n * n];
    Problem::<Sys, N, M, K>::new(sys, h, &Options::default(), s0).mixed_residual(
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
            .mixed_residual(&tab, &xp, &mut rp, None);
        Problem::<Sys, N, M, K>::new(sys, h, &Options::default(), s0)
            .mixed_residual(&tab, &xm, &mut rm, None);
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

fn particle_start() -> State<3> {
    State::new(0.0, [1.0, 0.0, 0.0], [0.0, 1.0, 0.0])
}

fn skate_start() -> State<4> {
    State::new(0.0, [-0.5, 0.0, 0.5, 0.0], [0.0, -0.5, 0.0, 0.5])
}

// ---------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------

#[test]
fn jacobian_matches_finite_differences() {
    let mut p = particle_start();
    p.q = V3::new(0.9, 0.2, -0.1);
    p.v = V3::new(0.3, 1.1, 0.5);
    check_jacobian::<Particle, 3, 0, 1, 1>(&Particle, &p, 0.1);
    check_jacobian::<Particle, 3, 0, 1, 2>(&Particle, &p, 0.1);
    check_jacobian::<Particle, 3, 0, 1, 3>(&Particle, &p, 0.1);
    let mut s = skate_start();
    s.q = V4::new(-0.4, 0.1, 0.5, -0.2);
    s.v = V4::new(0.2, -0.5, 0.1, 0.4);
    check_jacobian::<Skate, 4, 1, 1, 1>(&Skate, &s, 0.1);
    check_jacobian::<Skate, 4, 1, 1, 2>(&Skate, &s, 0.1);
    check_jacobian::<Skate, 4, 1, 1, 3>(&Skate, &s, 0.1);
    let pend = State::new(0.0, [0.6, -0.8], [0.8, 0.6]);
    check_jacobian::<Pendulum, 2, 1, 0, 2>(&Pendulum, &pend, 0.1);
}

#[test]
fn jacobian_matches_finite_differences_for_lagrange_dalembert_tableaux() {
    // Jay's Lagrange-d'Alembert SPARK tableaux: separate nonholonomic reaction tableau (IIIB,
    // IIID, (1), (0)) and, for the Lobatto methods, s̃ = S − 1 with a pinned multiplier slot.
    let mut p = particle_start();
    p.q = V3::new(0.9, 0.2, -0.1);
    p.v = V3::new(0.3, 1.1, 0.5);
    let mut s = skate_start();
    s.q = V4::new(-0.4, 0.1, 0.5, -0.2);
    s.v = V4::new(0.2, -0.5, 0.1, 0.4);
    let mut kn = State::new(0.0, [0.1, 0.2, 0.7], [0.3, -0.2, 0.9]);
    kn.t = 0.3;
    macro_rules! all_models {
        ($tab:expr, $s:literal) => {
            check_jacobian_of::<Particle, 3, 0, 1, $s>(&$tab, &Particle, &p, 0.1);
            check_jacobian_of::<KnifeEdge, 3, 0, 1, $s>(&$tab, &KnifeEdge, &kn, 0.1);
            check_jacobian_of::<Skate, 4, 1, 1, $s>(&$tab, &Skate, &s, 0.1);
        };
    }
    all_models!(LobattoIIIAB::<2>::TABLEAU, 2);
    all_models!(LobattoIIIAB::<3>::TABLEAU, 3);
    all_models!(LobattoIIIAB::<4>::TABLEAU, 4);
    all_models!(LobattoIIIABD::<2>::TABLEAU, 2);
    all_models!(LobattoIIIABD::<3>::TABLEAU, 3);
    all_models!(LobattoIIIABD::<4>::TABLEAU, 4);
    all_models!(SymplecticEulerI::TABLEAU, 1);
    check_jacobian_of::<Particle, 3, 0, 1, 1>(&SymplecticEulerII::TABLEAU, &Particle, &p, 0.1);
    check_jacobian_of::<KnifeEdge, 3, 0, 1, 1>(&SymplecticEulerII::TABLEAU, &KnifeEdge, &kn, 0.1);
}

fn particle_errors<const S: usize>(hs: &[f64], t_end: f64, reference: &State<3>) -> Vec<f64> {
    let s0 = particle_start();
    let k = |s: &State<3>| Particle.nonholonomic_constraints(s.t, &s.q, &s.v)[0].abs();
    hs.iter()
        .map(|&h| {
            let (s, res, _) =
                run::<Particle, 3, 0, 1, S>(&Particle, &s0, h, t_end, &k, &|s| Particle.energy(s));
            assert!(res < 1e-12, "S={S} h={h}: |k| = {res:e}");
            eprintln!(
                "particle S={S} h={h}: error {:e}, max|k| {res:e}",
                dist(&s, reference)
            );
            dist(&s, reference)
        })
        .collect()
}

#[test]
fn particle_order_2s_and_k_exact() {
    let t_end = 2.0;
    let reference = rk4(Particle::accel, &particle_start(), t_end, 40_000);
    for (p, hs, errs) in [
        (
            2.0,
            vec![0.1, 0.05, 0.025],
            particle_errors::<1>(&[0.1, 0.05, 0.025], t_end, &reference),
        ),
        (
            4.0,
            vec![0.2, 0.1, 0.05],
            particle_errors::<2>(&[0.2, 0.1, 0.05], t_end, &reference),
        ),
        (
            6.0,
            vec![0.2, 0.1, 0.05],
            particle_errors::<3>(&[0.2, 0.1, 0.05], t_end, &reference),
        ),
    ] {
        let sl = slopes(&hs, &errs);
        eprintln!("particle order {p}: errors {errs:?} slopes {sl:?}");
        for x in sl {
            assert!((x - p).abs() < 0.3, "expected order {p}, slope {x}");
        }
    }
}

#[test]
fn particle_energy_error_is_bounded() {
    // Small & Jay §8.1: h = 0.2; the guide's runs reach max|E − E0| = 6.6e-3 (s=1),
    // 2.7e-5 (s=2), 1.6e-7 (s=3) over [0, 250], attained in the first 10%.
    let s0 = particle_start();
    let k = |s: &State<3>| Particle.nonholonomic_constraints(s.t, &s.q, &s.v)[0].abs();
    let e = |s: &State<3>| Particle.energy(s);
    let (_, r1, e1) = run::<Particle, 3, 0, 1, 1>(&Particle, &s0, 0.2, 250.0, &k, &e);
    let (_, r2, e2) = run::<Particle, 3, 0, 1, 2>(&Particle, &s0, 0.2, 250.0, &k, &e);
    let (_, r3, e3) = run::<Particle, 3, 0, 1, 3>(&Particle, &s0, 0.2, 250.0, &k, &e);
    eprintln!(
        "particle [0,250], h=0.2: max|E-E0| = {e1:e} {e2:e} {e3:e}; max|k| = {r1:e} {r2:e} {r3:e}"
    );
    assert!(e1 < 1e-2 && e2 < 5e-5 && e3 < 5e-7);
    assert!(r1.max(r2).max(r3) < 1e-12);
}

fn skate_errors<const S: usize>(hs: &[f64], t_end: f64, reference: &State<4>) -> Vec<f64> {
    let s0 = skate_start();
    let check = |s: &State<4>| {
        let g = Skate.constraints(s.t, &s.q)[0].abs();
        let w = Skate.velocity_constraint_jacobian(s.t, &s.q, &s.v).w[0].abs();
        let k = Skate.nonholonomic_constraints(s.t, &s.q, &s.v)[0].abs();
        g.max(w).max(k)
    };
    hs.iter()
        .map(|&h| {
            let (s, res, de) =
                run::<Skate, 4, 1, 1, S>(&Skate, &s0, h, t_end, &check, &|s| Skate.energy(s));
            assert!(res < 1e-12, "S={S} h={h}: residual {res:e}");
            eprintln!(
                "skate S={S} h={h}: error {:e}, max residual (g, g_q v, k) {res:e}, max|E-E0| {de:e}",
                dist(&s, reference)
            );
            dist(&s, reference)
        })
        .collect()
}

#[test]
fn skate_order_2s_and_constraints_exact() {
    let t_end = 2.0;
    let s0 = skate_start();
    // Consistent data with ℓ = 1 (guide-thesis §4.2): λ0 = 0.25, ψ0 = 0, a0 = (1.5, 0, 0.5, 0).
    let a0 = Skate::accel(&s0.q, &s0.v);
    assert!((a0 - V4::new(1.5, 0.0, 0.5, 0.0)).amax() < 1e-14, "{a0}");
    let reference = rk4(Skate::accel, &s0, t_end, 40_000);
    for (p, hs, errs) in [
        (
            2.0,
            vec![0.1, 0.05, 0.025],
            skate_errors::<1>(&[0.1, 0.05, 0.025], t_end, &reference),
        ),
        (
            4.0,
            vec![0.2, 0.1, 0.05],
            skate_errors::<2>(&[0.2, 0.1, 0.05], t_end, &reference),
        ),
        (
            6.0,
            vec![0.4, 0.2, 0.1],
            skate_errors::<3>(&[0.4, 0.2, 0.1], t_end, &reference),
        ),
    ] {
        let sl = slopes(&hs, &errs);
        eprintln!("skate order {p}: errors {errs:?} slopes {sl:?}");
        for x in sl {
            assert!((x - p).abs() < 0.3, "expected order {p}, slope {x}");
        }
    }
}

fn same_as_holonomic<const S: usize>()
where
    GaussLobatto<S>: Method,
{
    let tab = GaussLobatto::<S>::TABLEAU;
    // Both steps solve the same equations, by different Newton variants (monolithic full Newton
    // here; two phases, possibly simplified Newton, there): tighten the tolerance so that the
    // comparison measures the equations, not the solvers' stopping points.
    let opts = Options {
        tolerance: 1e-15,
        ..Options::default()
    };
    let h = 0.1;
    let mut a = State::new(0.0, [1.0, 0.0], [0.0, 0.0]);
    let mut b = a;
    // The integrator chooses the two-phase holonomic step for a model with K = 0.
    let mut holonomic = Integrator::<Pendulum, GaussLobatto<S>>::new(Pendulum, h)
        .unwrap()
        .with_options(opts);
    let mut worst = 0.0f64;
    for _ in 0..30 {
        a = Problem::<Pendulum, 2, 1, 0>::new(&Pendulum, h, &opts, &a)
            .mixed::<S>(&tab)
            .unwrap()
            .0;
        holonomic.step(&mut b).unwrap();
        worst = worst.max(dist(&a, &b));
    }
    eprintln!("K = 0, S = {S}: max distance to the holonomic step over 30 steps {worst:e}");
    assert!(worst < 1e-13, "S={S}: {worst:e}");
}

#[test]
fn without_nonholonomic_constraints_it_is_the_holonomic_step() {
    same_as_holonomic::<1>();
    same_as_holonomic::<2>();
    same_as_holonomic::<3>();
}

#[test]
fn inconsistent_k_is_rejected() {
    let tab = GaussLobatto::<2>::TABLEAU;
    let s = State::new(0.0, [1.0, 0.5, 0.0], [1.0, 1.0, 0.0]);
    assert!(matches!(
        Problem::<Particle, 3, 0, 1>::new(&Particle, 0.1, &Options::default(), &s).mixed::<2>(&tab),
        Err(spark_runtime::Error::InconsistentState { .. })
    ));
}

/// The knife-edge skate of Small & Jay §8.2 (guide-papers E5), purely nonholonomic, with an
/// exact solution: `L = ½(v1² + v2² + v3²) + q1`, `k = cos(q3) v2 − sin(q3) v1`.
#[derive(Clone, Copy)]
struct KnifeEdge;

impl Model for KnifeEdge {
    fn first_non_finite_parameter(&self) -> Option<&'static str> {
        None
    }
}

impl Lagrangian<3, 0, 1> for KnifeEdge {
    fn lagrangian(&self, _t: f64, q: &V3, v: &V3) -> f64 {
        0.5 * v.norm_squared() + q[0]
    }
    fn momentum_force(&self, _t: f64, _q: &V3, v: &V3) -> (V3, V3) {
        (*v, V3::new(1.0, 0.0, 0.0))
    }
    fn dynamics_jacobian(&self, t: f64, q: &V3, v: &V3) -> DynamicsJacobian<3> {
        let (p, f) = self.momentum_force(t, q, v);
        DynamicsJacobian {
            p,
            f,
            lvv: SMatrix::identity(),
            lvq: SMatrix::zeros(),
            lqq: SMatrix::zeros(),
            fv: SMatrix::zeros(),
        }
    }
    fn constraints(&self, _t: f64, _q: &V3) -> SVector<f64, 0> {
        SVector::zeros()
    }
    fn constraint_jacobian(
        &self,
        _t: f64,
        _q: &V3,
        _mu: &SVector<f64, 0>,
    ) -> ConstraintJacobian<3, 0> {
        ConstraintJacobian::default()
    }
    fn velocity_constraint_jacobian(
        &self,
        _t: f64,
        _q: &V3,
        _v: &V3,
    ) -> VelocityConstraintJacobian<3, 0> {
        VelocityConstraintJacobian::default()
    }
    fn nonholonomic_constraints(&self, _t: f64, q: &V3, v: &V3) -> SVector<f64, 1> {
        SVector::from([q[2].cos() * v[1] - q[2].sin() * v[0]])
    }
    fn nonholonomic_jacobian(
        &self,
        t: f64,
        q: &V3,
        v: &V3,
        psi: &SVector<f64, 1>,
    ) -> NonholonomicJacobian<3, 1> {
        let (s, c) = q[2].sin_cos();
        let mut hess_vq = SMatrix::<f64, 3, 3>::zeros();
        hess_vq[(0, 2)] = -psi[0] * c;
        hess_vq[(1, 2)] = -psi[0] * s;
        NonholonomicJacobian {
            k: self.nonholonomic_constraints(t, q, v),
            kq: SMatrix::from_row_slice(&[0.0, 0.0, -s * v[1] - c * v[0]]),
            kv: SMatrix::from_row_slice(&[-s, c, 0.0]),
            hess_vq,
            hess_vv: SMatrix::zeros(),
        }
    }
}

fn knife_errors<const S: usize>(hs: &[f64], t_end: f64) -> Vec<f64> {
    let s0 = State::new(0.0, [0.0, 0.0, 0.0], [0.0, 0.0, 1.0]);
    let t = t_end;
    let exact = State::new(
        t,
        [0.5 * t.sin().powi(2), 0.5 * (t - 0.5 * (2.0 * t).sin()), t],
        [t.sin() * t.cos(), t.sin().powi(2), 1.0],
    );
    let k = |s: &State<3>| KnifeEdge.nonholonomic_constraints(s.t, &s.q, &s.v)[0].abs();
    let e = |s: &State<3>| 0.5 * s.v.norm_squared() - s.q[0];
    hs.iter()
        .map(|&h| {
            let (s, res, de) = run::<KnifeEdge, 3, 0, 1, S>(&KnifeEdge, &s0, h, t_end, &k, &e);
            assert!(res < 1e-12, "S={S} h={h}: |k| = {res:e}");
            eprintln!(
                "knife edge S={S} h={h}: error {:e}, max|k| {res:e}, max|E-E0| {de:e}",
                dist(&s, &exact)
            );
            dist(&s, &exact)
        })
        .collect()
}

#[test]
fn knife_edge_order_2s_against_exact_solution() {
    // guide-papers E5: Gauss SPARK s=1 6.10e-3 at h = 0.2, s=2 7.82e-6, s=3 2.93e-8 (T = 2).
    for (p, hs, errs) in [
        (
            2.0,
            [0.2, 0.1, 0.05],
            knife_errors::<1>(&[0.2, 0.1, 0.05], 2.0),
        ),
        (
            4.0,
            [0.2, 0.1, 0.05],
            knife_errors::<2>(&[0.2, 0.1, 0.05], 2.0),
        ),
        (
            6.0,
            [0.2, 0.1, 0.05],
            knife_errors::<3>(&[0.2, 0.1, 0.05], 2.0),
        ),
    ] {
        let sl = slopes(&hs, &errs);
        eprintln!("knife edge order {p}: errors {errs:?} slopes {sl:?}");
        for x in sl {
            assert!((x - p).abs() < 0.3, "expected order {p}, slope {x}");
        }
    }
}
