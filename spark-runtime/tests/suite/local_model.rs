//! Tests of the local-model integrators RKLM and SRKLM (Jay, JCAM 204 (2007), §§5–7,
//! equations (18), (20), (22a–e), Theorem 6).
//!
//! Run `cargo test -p spark-runtime --test suite local_model:: -- --nocapture` to see the measured
//! errors and orders.

use nalgebra::{Matrix2, Vector2};
use spark_runtime::local_model::{LocalModelJacobians, LocalModelOde, Rklm, Srklm};
use spark_runtime::Error;

type V = Vector2<f64>;
type M = Matrix2<f64>;

/// `e^{τA}` for `A = [[0, 1], [−ρ², 0]]` (the flow of `x'' = −ρ² x`).
fn rotation(rho: f64, tau: f64) -> M {
    let (s, c) = (rho * tau).sin_cos();
    M::new(c, s / rho, -rho * s, c)
}

fn oscillator_matrix(rho: f64) -> M {
    M::new(0.0, 1.0, -rho * rho, 0.0)
}

fn max_abs(v: &V) -> f64 {
    v[0].abs().max(v[1].abs())
}

// ---- problems ---------------------------------------------------------------------------------

/// A forced Duffing oscillator `x'' = −ω² x − ε x³ + cos(2t) + 0.3 x' sin t` with the local model
/// `z'' = −ω² z` (`g = A z`, flow `e^{(t−t₀)A}`): a nonlinear, time-dependent correction.
struct Duffing {
    omega: f64,
    eps: f64,
}

impl Duffing {
    fn rhs(&self, t: f64, y: &V) -> V {
        let w2 = self.omega * self.omega;
        V::new(
            y[1],
            -w2 * y[0] - self.eps * y[0].powi(3) + (2.0 * t).cos() + 0.3 * y[1] * t.sin(),
        )
    }
}

impl LocalModelOde<2> for Duffing {
    fn f(&self, t: f64, y: &V) -> V {
        self.rhs(t, y)
    }
    fn f_y(&self, t: f64, y: &V) -> M {
        let w2 = self.omega * self.omega;
        M::new(0.0, 1.0, -w2 - 3.0 * self.eps * y[0] * y[0], 0.3 * t.sin())
    }
    fn g(&self, _t: f64, z: &V) -> V {
        oscillator_matrix(self.omega) * z
    }
    fn flow(&self, t0: f64, z0: &V, t: f64) -> V {
        rotation(self.omega, t - t0) * z0
    }
}

impl LocalModelJacobians<2> for Duffing {
    fn g_y(&self, _t: f64, _z: &V) -> M {
        oscillator_matrix(self.omega)
    }
    fn flow_jacobian(&self, t0: f64, _z0: &V, t: f64) -> M {
        rotation(self.omega, t - t0)
    }
}

/// `y₁' = −y₁²`, `y₂' = (y₁ + cos t) y₂`: nonlinear, coupled, time-dependent, with the exact flow
/// `y₁ = a/(1 + aτ)`, `y₂ = b (1 + aτ) e^{sin t − sin t₀}` (`τ = t − t₀`). Used as its own local
/// model (`g = f`, Theorem 6 (4)).
struct Exact;

fn exact_flow(t0: f64, y0: &V, t: f64) -> V {
    let (a, b) = (y0[0], y0[1]);
    let u = 1.0 + a * (t - t0);
    V::new(a / u, b * u * (t.sin() - t0.sin()).exp())
}

fn exact_rhs(t: f64, y: &V) -> V {
    V::new(-y[0] * y[0], (y[0] + t.cos()) * y[1])
}

fn exact_jacobian(t: f64, y: &V) -> M {
    M::new(-2.0 * y[0], 0.0, y[1], y[0] + t.cos())
}

impl LocalModelOde<2> for Exact {
    fn f(&self, t: f64, y: &V) -> V {
        exact_rhs(t, y)
    }
    fn f_y(&self, t: f64, y: &V) -> M {
        exact_jacobian(t, y)
    }
    fn g(&self, t: f64, z: &V) -> V {
        exact_rhs(t, z)
    }
    fn flow(&self, t0: f64, z0: &V, t: f64) -> V {
        exact_flow(t0, z0, t)
    }
}

impl LocalModelJacobians<2> for Exact {
    fn g_y(&self, t: f64, z: &V) -> M {
        exact_jacobian(t, z)
    }
    fn flow_jacobian(&self, t0: f64, z0: &V, t: f64) -> M {
        let (a, b) = (z0[0], z0[1]);
        let tau = t - t0;
        let u = 1.0 + a * tau;
        let e = (t.sin() - t0.sin()).exp();
        M::new(1.0 / (u * u), 0.0, b * tau * e, u * e)
    }
}

/// `y' = M y + b(t)` with the trivial local model `g ≡ 0` (flow `z(t) = z₀`): both methods must
/// be the plain Gauss method (Theorem 6 (3)).
struct NoModel {
    m: M,
}

fn forcing(t: f64) -> V {
    V::new(t.sin(), (3.0 * t).cos())
}

impl LocalModelOde<2> for NoModel {
    fn f(&self, t: f64, y: &V) -> V {
        self.m * y + forcing(t)
    }
    fn f_y(&self, _t: f64, _y: &V) -> M {
        self.m
    }
    fn g(&self, _t: f64, _z: &V) -> V {
        V::zeros()
    }
    fn flow(&self, _t0: f64, z0: &V, _t: f64) -> V {
        *z0
    }
}

impl LocalModelJacobians<2> for NoModel {
    fn g_y(&self, _t: f64, _z: &V) -> M {
        M::zeros()
    }
    fn flow_jacobian(&self, _t0: f64, _z0: &V, _t: f64) -> M {
        M::identity()
    }
}

/// `y' = A y + b(t)`, `z' = A z` (problem (15) with `d = b(t)`), for the closed forms (20) and
/// the midpoint SRKLM formula of §6.
struct LinearForced {
    rho: f64,
}

impl LocalModelOde<2> for LinearForced {
    fn f(&self, t: f64, y: &V) -> V {
        oscillator_matrix(self.rho) * y + forcing(t)
    }
    fn f_y(&self, _t: f64, _y: &V) -> M {
        oscillator_matrix(self.rho)
    }
    fn g(&self, _t: f64, z: &V) -> V {
        oscillator_matrix(self.rho) * z
    }
    fn flow(&self, t0: f64, z0: &V, t: f64) -> V {
        rotation(self.rho, t - t0) * z0
    }
}

impl LocalModelJacobians<2> for LinearForced {
    fn g_y(&self, _t: f64, _z: &V) -> M {
        oscillator_matrix(self.rho)
    }
    fn flow_jacobian(&self, t0: f64, _z0: &V, t: f64) -> M {
        rotation(self.rho, t - t0)
    }
}

/// 003 §7: `y₁' = y₂`, `y₂' = −ω² y₁`, `ω = √(ρ² + δ²)`, with the local model
/// `z₁' = z₂`, `z₂' = −ρ² z₁`.
struct Oscillator {
    omega: f64,
    rho: f64,
}

impl Oscillator {
    fn paper() -> Self {
        let (rho, delta) = (200.0f64, 1.0f64);
        Self {
            omega: rho * (1.0 + (delta / rho).powi(2)).sqrt(),
            rho,
        }
    }
    fn energy(&self, y: &V) -> f64 {
        0.5 * (self.omega * self.omega * y[0] * y[0] + y[1] * y[1])
    }
    fn exact(&self, y0: &V, t: f64) -> V {
        rotation(self.omega, t) * y0
    }
    /// The angle of `y` on the exact orbit: `ωt` for the solution through `(1, 0)` at 0.
    fn angle(&self, y: &V) -> f64 {
        (-y[1]).atan2(self.omega * y[0])
    }
}

impl LocalModelOde<2> for Oscillator {
    fn f(&self, _t: f64, y: &V) -> V {
        oscillator_matrix(self.omega) * y
    }
    fn f_y(&self, _t: f64, _y: &V) -> M {
        oscillator_matrix(self.omega)
    }
    fn g(&self, _t: f64, z: &V) -> V {
        oscillator_matrix(self.rho) * z
    }
    fn flow(&self, t0: f64, z0: &V, t: f64) -> V {
        rotation(self.rho, t - t0) * z0
    }
}

impl LocalModelJacobians<2> for Oscillator {
    fn g_y(&self, _t: f64, _z: &V) -> M {
        oscillator_matrix(self.rho)
    }
    fn flow_jacobian(&self, t0: f64, _z0: &V, t: f64) -> M {
        rotation(self.rho, t - t0)
    }
}

// ---- drivers ----------------------------------------------------------------------------------

fn run_srklm<P: LocalModelJacobians<2>, const S: usize>(
    p: &P,
    h: f64,
    t0: f64,
    y0: V,
    steps: usize,
) -> V {
    let mut m = Srklm::<S>::new(h).unwrap();
    let (mut t, mut y) = (t0, y0);
    for _ in 0..steps {
        m.step(p, &mut t, &mut y).unwrap();
    }
    y
}

fn run_rklm<P: LocalModelOde<2>, const S: usize>(p: &P, h: f64, t0: f64, y0: V, steps: usize) -> V {
    let mut m = Rklm::<S>::new(h).unwrap();
    let (mut t, mut y) = (t0, y0);
    for _ in 0..steps {
        m.step(p, &mut t, &mut y).unwrap();
    }
    y
}

/// Classical RK4 with `n` steps from `(t0, y0)` to `t1`: the independent reference.
fn rk4(f: impl Fn(f64, &V) -> V, t0: f64, y0: V, t1: f64, n: usize) -> V {
    let h = (t1 - t0) / n as f64;
    let mut y = y0;
    for k in 0..n {
        let t = t0 + k as f64 * h;
        let k1 = f(t, &y);
        let k2 = f(t + 0.5 * h, &(y + k1 * (0.5 * h)));
        let k3 = f(t + 0.5 * h, &(y + k2 * (0.5 * h)));
        let k4 = f(t + h, &(y + k3 * h));
        y += (k1 + k2 * 2.0 + k3 * 2.0 + k4) * (h / 6.0);
    }
    y
}

// ---- order ------------------------------------------------------------------------------------

const DUFFING: Duffing = Duffing {
    omega: 4.0,
    eps: 2.0,
};
const T_END: f64 = 2.0;

fn duffing_y0() -> V {
    V::new(0.8, -0.5)
}

fn duffing_reference() -> V {
    let f = |t: f64, y: &V| DUFFING.rhs(t, y);
    let fine = rk4(f, 0.0, duffing_y0(), T_END, 40_000);
    let coarse = rk4(f, 0.0, duffing_y0(), T_END, 20_000);
    // RK4's error at the fine step is about |fine − coarse| / 15.
    assert!(
        max_abs(&(fine - coarse)) < 1e-12,
        "reference not converged: {:e}",
        max_abs(&(fine - coarse))
    );
    fine
}

/// Slopes log₂(e(h)/e(h/2)) for the step counts `ns` (each the double of the previous).
fn slopes(errors: &[f64]) -> Vec<f64> {
    errors.windows(2).map(|w| (w[0] / w[1]).log2()).collect()
}

fn check_order(name: &str, order: usize, ns: &[usize], run: impl Fn(usize) -> V) {
    let reference = duffing_reference();
    let errors: Vec<f64> = ns.iter().map(|&n| max_abs(&(run(n) - reference))).collect();
    let s = slopes(&errors);
    let shown: Vec<String> = errors.iter().map(|e| format!("{e:.3e}")).collect();
    println!("{name}: steps {ns:?}, errors {shown:?}, slopes {s:.3?}");
    for (k, &e) in errors.iter().enumerate() {
        assert!(
            e > 1e-11,
            "{name}: error {e:e} at n = {} is at round-off",
            ns[k]
        );
    }
    for sl in s {
        assert!(
            (sl - order as f64).abs() <= 0.25,
            "{name}: slope {sl} is not {order}"
        );
    }
}

#[test]
fn srklm_has_the_gauss_order() {
    let y0 = duffing_y0();
    check_order("SRKLM S=1", 2, &[40, 80, 160, 320], |n| {
        run_srklm::<_, 1>(&DUFFING, T_END / n as f64, 0.0, y0, n)
    });
    check_order("SRKLM S=2", 4, &[10, 20, 40, 80], |n| {
        run_srklm::<_, 2>(&DUFFING, T_END / n as f64, 0.0, y0, n)
    });
    check_order("SRKLM S=3", 6, &[10, 20, 40, 80], |n| {
        run_srklm::<_, 3>(&DUFFING, T_END / n as f64, 0.0, y0, n)
    });
}

#[test]
fn rklm_has_the_gauss_order() {
    let y0 = duffing_y0();
    check_order("RKLM S=1", 2, &[40, 80, 160, 320], |n| {
        run_rklm::<_, 1>(&DUFFING, T_END / n as f64, 0.0, y0, n)
    });
    check_order("RKLM S=2", 4, &[10, 20, 40, 80], |n| {
        run_rklm::<_, 2>(&DUFFING, T_END / n as f64, 0.0, y0, n)
    });
    check_order("RKLM S=3", 6, &[10, 20, 40, 80], |n| {
        run_rklm::<_, 3>(&DUFFING, T_END / n as f64, 0.0, y0, n)
    });
}

// ---- Theorem 6 (3), (4), (5) and the closed forms ---------------------------------------------

#[test]
fn the_test_flow_and_its_jacobian_are_right() {
    // Guards the test data of `exact_is_exact`: the flow solves the ODE and Φ is its derivative.
    let (t0, y0, t) = (0.5, V::new(0.7, -1.3), 1.4);
    let num = rk4(exact_rhs, t0, y0, t, 20_000);
    assert!(max_abs(&(num - exact_flow(t0, &y0, t))) < 1e-13);
    let jac = Exact.flow_jacobian(t0, &y0, t);
    for b in 0..2 {
        let mut e = V::zeros();
        e[b] = 1e-6;
        let fd = (exact_flow(t0, &(y0 + e), t) - exact_flow(t0, &(y0 - e), t)) / 2e-6;
        for a in 0..2 {
            assert!((fd[a] - jac[(a, b)]).abs() < 1e-8);
        }
    }
}

fn exact_case<const S: usize>() {
    // Large steps in both directions from t₀ = 0.5; the method must reproduce the flow.
    for &h in &[0.3, -0.2] {
        let (t0, y0) = (0.5, V::new(0.7, -1.3));
        let n = 10;
        let exact = exact_flow(t0, &y0, t0 + n as f64 * h);
        let s = run_srklm::<_, S>(&Exact, h, t0, y0, n);
        let r = run_rklm::<_, S>(&Exact, h, t0, y0, n);
        let (es, er) = (max_abs(&(s - exact)), max_abs(&(r - exact)));
        println!("g = f, S = {S}, h = {h}: |SRKLM − exact| = {es:.1e}, |RKLM − exact| = {er:.1e}");
        assert!(
            es < 1e-14 * (1.0 + max_abs(&exact)),
            "SRKLM S={S} h={h}: {es:e}"
        );
        assert!(
            er < 1e-14 * (1.0 + max_abs(&exact)),
            "RKLM S={S} h={h}: {er:e}"
        );
    }
}

#[test]
fn exact_when_the_model_is_the_problem() {
    exact_case::<1>();
    exact_case::<2>();
    exact_case::<3>();
}

/// The implicit midpoint rule on `y' = M y + b(t)`, in closed form.
fn midpoint(m: &M, h: f64, t0: f64, y0: &V) -> V {
    let id = M::identity();
    (id - m * (0.5 * h)).try_inverse().unwrap()
        * ((id + m * (0.5 * h)) * y0 + forcing(t0 + 0.5 * h) * h)
}

fn no_model_case<const S: usize>(p: &NoModel) {
    let (h, t0, y0) = (0.17, 0.3, V::new(1.0, -2.0));
    let s = run_srklm::<_, S>(p, h, t0, y0, 7);
    let r = run_rklm::<_, S>(p, h, t0, y0, 7);
    println!("g = 0, S = {S}: |SRKLM − RKLM| = {:.1e}", max_abs(&(s - r)));
    assert!(max_abs(&(s - r)) < 1e-14 * max_abs(&r));
}

#[test]
fn trivial_model_gives_the_plain_gauss_method() {
    let p = NoModel {
        m: M::new(-0.5, 2.0, -3.0, 0.1),
    };
    // S = 1 against the closed-form midpoint rule, for both methods.
    let (h, t0, y0) = (0.17, 0.3, V::new(1.0, -2.0));
    let mut expect = y0;
    for k in 0..7 {
        expect = midpoint(&p.m, h, t0 + k as f64 * h, &expect);
    }
    let s = run_srklm::<_, 1>(&p, h, t0, y0, 7);
    let r = run_rklm::<_, 1>(&p, h, t0, y0, 7);
    assert!(max_abs(&(s - expect)) < 1e-14 * max_abs(&expect));
    assert!(max_abs(&(r - expect)) < 1e-14 * max_abs(&expect));
    // Any S: SRKLM coincides with RKLM, which is Gauss on (12) when g ≡ 0.
    no_model_case::<2>(&p);
    no_model_case::<3>(&p);
}

#[test]
fn midpoint_closed_forms_of_section_6() {
    // y' = Ay + b(t), z' = Az. RKLM midpoint is (20):
    //   y₁ = e^{hA} y₀ + h (I − hA/2)⁻¹ b(t₀ + h/2);
    // midpoint SRKLM (§6, after (22e)):
    //   y₁ = e^{hA} y₀ + h e^{hA} (I + e^{hA})⁻¹ ((I + hA/2)⁻¹ + (I − hA/2)⁻¹) b(t₀ + h/2).
    let p = LinearForced { rho: 5.0 };
    let a = oscillator_matrix(p.rho);
    let id = M::identity();
    for &(h, t0) in &[(0.3, 0.2), (0.9, -1.0), (-0.4, 0.7)] {
        let y0 = V::new(0.4, 1.5);
        let e = rotation(p.rho, h);
        let b = forcing(t0 + 0.5 * h);
        let minus = (id - a * (0.5 * h)).try_inverse().unwrap();
        let plus = (id + a * (0.5 * h)).try_inverse().unwrap();
        let rklm_formula = e * y0 + minus * b * h;
        let srklm_formula = e * y0 + e * (id + e).try_inverse().unwrap() * (plus + minus) * b * h;
        let r = run_rklm::<_, 1>(&p, h, t0, y0, 1);
        let s = run_srklm::<_, 1>(&p, h, t0, y0, 1);
        println!(
            "h = {h}: |RKLM − (20)| = {:.1e}, |SRKLM − closed form| = {:.1e}, |(20) − SRKLM| = {:.1e}",
            max_abs(&(r - rklm_formula)),
            max_abs(&(s - srklm_formula)),
            max_abs(&(r - s))
        );
        assert!(max_abs(&(r - rklm_formula)) < 1e-13 * max_abs(&rklm_formula));
        assert!(max_abs(&(s - srklm_formula)) < 1e-13 * max_abs(&srklm_formula));
        // The two methods differ (RKLM is not symmetric).
        assert!(max_abs(&(r - s)) > 1e-3);
    }
}

fn symmetry_case<const S: usize>() {
    let (h, t0, y0) = (0.3, 0.1, V::new(0.8, -0.5));
    let mut m = Srklm::<S>::new(h).unwrap();
    let (mut t, mut y) = (t0, y0);
    m.step(&DUFFING, &mut t, &mut y).unwrap();
    m.set_step_size(-h).unwrap();
    m.step(&DUFFING, &mut t, &mut y).unwrap();
    let back_s = max_abs(&(y - y0));
    let mut r = Rklm::<S>::new(h).unwrap();
    let (mut t, mut y) = (t0, y0);
    r.step(&DUFFING, &mut t, &mut y).unwrap();
    r.set_step_size(-h).unwrap();
    r.step(&DUFFING, &mut t, &mut y).unwrap();
    let back_r = max_abs(&(y - y0));
    println!(
        "S = {S}: step h then −h: SRKLM returns within {back_s:.1e}, RKLM within {back_r:.1e}"
    );
    assert!((t - t0).abs() < 1e-15);
    assert!(back_s < 1e-14, "SRKLM S={S} is not symmetric: {back_s:e}");
    assert!(
        back_r > 1e3 * back_s.max(1e-16),
        "RKLM S={S} looks symmetric"
    );
}

#[test]
fn srklm_is_symmetric_and_rklm_is_not() {
    symmetry_case::<1>();
    symmetry_case::<2>();
    symmetry_case::<3>();
}

// ---- 003 §7: the harmonic oscillator with a local model (E3) ----------------------------------

#[test]
fn harmonic_oscillator_experiment() {
    let p = Oscillator::paper();
    let period = 2.0 * std::f64::consts::PI / p.omega;
    assert!((period - 0.031_415_533_844_179_19).abs() < 1e-15);
    let y0 = V::new(0.2, 0.5);
    let h = 0.2;
    let steps = 1000; // [0, 200]
    let h0 = p.energy(&y0);
    let mut m = Srklm::<1>::new(h).unwrap();
    let (mut t, mut y) = (0.0, y0);
    let mut errors = Vec::with_capacity(steps);
    let mut at_one = V::zeros();
    let mut max_phase = 0.0f64;
    for k in 1..=steps {
        m.step(&p, &mut t, &mut y).unwrap();
        errors.push((p.energy(&y) - h0).abs());
        if k == 5 {
            at_one = y;
        }
        let exact = p.exact(&y0, k as f64 * h);
        let mut dphi = p.angle(&y) - p.angle(&exact);
        dphi = (dphi + std::f64::consts::PI).rem_euclid(2.0 * std::f64::consts::PI)
            - std::f64::consts::PI;
        max_phase = max_phase.max(dphi.abs());
    }
    assert!((t - 200.0).abs() < 1e-10);
    // The problem is linear: Newton converges in one update plus the one that confirms it.
    let stats = m.last_step_stats();
    println!("Newton iterations of the last step: {stats:?}");
    assert!(stats.forward_iterations <= 2 && stats.backward_iterations <= 2);
    let max_err = errors.iter().cloned().fold(0.0, f64::max);
    let first = errors[..steps / 10].iter().cloned().fold(0.0, f64::max);
    let last = errors[steps - steps / 10..]
        .iter()
        .cloned()
        .fold(0.0, f64::max);
    let exact_one = p.exact(&y0, 1.0);
    println!(
        "E3 midpoint SRKLM, h = 0.2: H0 = {h0:.6}, max |H − H0| on [0, 200] = {max_err:.3e} \
         (first tenth {first:.3e}, last tenth {last:.3e}); y(1) = ({:.5}, {:.4}) vs exact \
         ({:.5}, {:.4}); max phase error {max_phase:.3e} rad",
        at_one[0], at_one[1], exact_one[0], exact_one[1]
    );
    // Bounded energy error, no drift.
    assert!(max_err < 2e-5 * h0, "energy error {max_err:e}");
    assert!(
        last < 1.25 * first,
        "energy drifts: {first:e} then {last:e}"
    );
    // The phase is tracked: at t = 1 (five steps over 31.8 periods) it is off by 2.5e-3 rad;
    // the error grows linearly (order 2 in the frequency), to 0.5 rad after 6366 periods.
    let mut phase_one = p.angle(&at_one) - p.angle(&exact_one);
    phase_one = (phase_one + std::f64::consts::PI).rem_euclid(2.0 * std::f64::consts::PI)
        - std::f64::consts::PI;
    println!("phase error at t = 1: {phase_one:.3e} rad");
    assert!(phase_one.abs() < 5e-3, "phase error at t = 1: {phase_one}");
    assert!(max_phase < 0.6, "phase error {max_phase}");
    assert!((at_one - exact_one).norm() < 2e-3 * exact_one.norm());
    // The guide's reference values at t = 1 (E3): (0.09526, 35.175).
    assert!((at_one[0] - 0.09526).abs() < 1e-5 && (at_one[1] - 35.175).abs() < 1e-3);

    // The plain midpoint rule with the same h (closed form (I − hA/2)⁻¹(I + hA/2)) loses the
    // phase at once.
    let a = oscillator_matrix(p.omega);
    let id = M::identity();
    let step = (id - a * (0.5 * h)).try_inverse().unwrap() * (id + a * (0.5 * h));
    let mut yp = y0;
    for _ in 0..5 {
        yp = step * yp;
    }
    let mut dphi = p.angle(&yp) - p.angle(&exact_one);
    dphi =
        (dphi + std::f64::consts::PI).rem_euclid(2.0 * std::f64::consts::PI) - std::f64::consts::PI;
    println!(
        "plain midpoint, h = 0.2: y(1) = ({:.5}, {:.4}), phase error {:.3} rad",
        yp[0], yp[1], dphi
    );
    assert!(dphi.abs() > 1.0);
}

// ---- errors -----------------------------------------------------------------------------------

#[test]
fn invalid_inputs_are_rejected_and_leave_the_state_alone() {
    assert!(matches!(
        Srklm::<1>::new(0.0),
        Err(Error::InvalidStepSize { .. })
    ));
    assert!(matches!(
        Rklm::<2>::new(f64::INFINITY),
        Err(Error::InvalidStepSize { .. })
    ));
    let mut m = Srklm::<2>::new(0.1).unwrap();
    assert!(m.set_step_size(f64::NAN).is_err());
    assert_eq!(m.step_size(), 0.1);
    let (mut t, mut y) = (0.0, V::new(f64::NAN, 1.0));
    assert_eq!(m.step(&DUFFING, &mut t, &mut y), Err(Error::NonFiniteState));
    assert_eq!(t, 0.0);
}

/// The Duffing problem with a vector field that blows up away from the origin.
struct Blowup;

impl LocalModelOde<2> for Blowup {
    fn f(&self, _t: f64, y: &V) -> V {
        V::new(y[1], 1.0 / (y[0] - 1.0))
    }
    fn f_y(&self, _t: f64, y: &V) -> M {
        M::new(0.0, 1.0, -1.0 / (y[0] - 1.0).powi(2), 0.0)
    }
    fn g(&self, _t: f64, _z: &V) -> V {
        V::zeros()
    }
    fn flow(&self, _t0: f64, z0: &V, _t: f64) -> V {
        *z0
    }
}

impl LocalModelJacobians<2> for Blowup {
    fn g_y(&self, _t: f64, _z: &V) -> M {
        M::zeros()
    }
    fn flow_jacobian(&self, _t0: f64, _z0: &V, _t: f64) -> M {
        M::identity()
    }
}

#[test]
fn newton_failure_is_an_error_and_leaves_the_state_alone() {
    // Far too large a step for a singular vector field.
    let mut m = Srklm::<2>::new(50.0).unwrap();
    let (mut t, mut y) = (0.0, V::new(0.9, 3.0));
    let r = m.step(&Blowup, &mut t, &mut y);
    println!("blow-up: {r:?}");
    assert!(matches!(
        r,
        Err(Error::Diverged { .. } | Error::NoConvergence { .. } | Error::SingularJacobian { .. })
    ));
    assert_eq!((t, y), (0.0, V::new(0.9, 3.0)));
}

#[test]
fn local_propagator_with_eigenvalue_minus_one_is_reported() {
    // Pitfall 25: midpoint SRKLM for y' = Ay + b(t), z' = Az is ill-posed when e^{hA} has the
    // eigenvalue −1 (hρ = π): I + e^{−hA} in (22e) is singular.
    let p = LinearForced { rho: 5.0 };
    let h = std::f64::consts::PI / p.rho;
    let mut m = Srklm::<1>::new(h).unwrap();
    let (mut t, mut y) = (0.0, V::new(0.4, 1.5));
    let r = m.step(&p, &mut t, &mut y);
    println!("hρ = π: {r:?}");
    assert!(r.is_err());
    assert_eq!((t, y), (0.0, V::new(0.4, 1.5)));
}
