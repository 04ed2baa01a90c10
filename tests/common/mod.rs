//! Shared helpers of the integration tests: independent reference solutions and order fits.
#![allow(dead_code)]

pub mod reference;

/// Classical RK4 on `y' = f(y)` with `n` steps over `[0, t_end]`: the tests' independent
/// reference (it shares no code with spark and works in minimal coordinates).
pub fn rk4<const D: usize>(
    f: impl Fn(&[f64; D]) -> [f64; D],
    y0: [f64; D],
    t_end: f64,
    n: usize,
) -> [f64; D] {
    let h = t_end / n as f64;
    let mut y = y0;
    let axpy = |y: &[f64; D], k: &[f64; D], a: f64| -> [f64; D] {
        core::array::from_fn(|i| y[i] + a * k[i])
    };
    for _ in 0..n {
        let k1 = f(&y);
        let k2 = f(&axpy(&y, &k1, 0.5 * h));
        let k3 = f(&axpy(&y, &k2, 0.5 * h));
        let k4 = f(&axpy(&y, &k3, h));
        for i in 0..D {
            y[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
        }
    }
    y
}

/// Least-squares slope of `log(err)` against `log(h)`, and the slopes between neighbours.
pub fn slopes(hs: &[f64], errs: &[f64]) -> (f64, Vec<f64>) {
    let xs: Vec<f64> = hs.iter().map(|h| h.ln()).collect();
    let ys: Vec<f64> = errs.iter().map(|e| e.ln()).collect();
    let n = xs.len() as f64;
    let mx = xs.iter().sum::<f64>() / n;
    let my = ys.iter().sum::<f64>() / n;
    let sxy: f64 = xs.iter().zip(&ys).map(|(x, y)| (x - mx) * (y - my)).sum();
    let sxx: f64 = xs.iter().map(|x| (x - mx) * (x - mx)).sum();
    let local = xs
        .windows(2)
        .zip(ys.windows(2))
        .map(|(x, y)| (y[1] - y[0]) / (x[1] - x[0]))
        .collect();
    (sxy / sxx, local)
}

/// Asserts that every local slope and the fitted slope are within 0.25 of `order`.
pub fn assert_order(label: &str, order: f64, hs: &[f64], errs: &[f64]) {
    let (fit, local) = slopes(hs, errs);
    eprintln!(
        "{label}: h = {hs:?}\n  errors = {errs:?}\n  fitted slope {fit:.3}, local {local:.3?}"
    );
    assert!(
        (fit - order).abs() <= 0.25,
        "{label}: fitted slope {fit} not within 0.25 of {order}"
    );
    for s in local {
        assert!(
            (s - order).abs() <= 0.25,
            "{label}: local slope {s} not within 0.25 of {order}"
        );
    }
}

/// The state after `t_end / h` steps of `Meth` from `s0` (`h` must divide `t_end`); asserts
/// |g|, |g_t + G v| and |k| below 1e-12 after every step.
pub fn run<Sys, Meth, const N: usize, const M: usize, const K: usize>(
    sys: Sys,
    s0: spark::State<N>,
    h: f64,
    t_end: f64,
) -> spark::State<N>
where
    Sys: spark::Lagrangian<N, M, K>,
    Meth: spark::Method,
{
    let mut sim = spark::Integrator::<Sys, Meth>::new(sys, h).unwrap();
    let mut s = s0;
    let n = (t_end / h).round() as usize;
    assert!((n as f64 * h - t_end).abs() < 1e-12);
    for _ in 0..n {
        sim.step(&mut s).unwrap();
        let (g, w) = sim.constraint_residual(&s);
        assert!(g < 1e-12 && w < 1e-12, "t = {}: {g:e} {w:e}", s.t);
    }
    s
}

/// A small deterministic generator (xorshift64*), uniform in [lo, hi): the random states of
/// the mechanism tests, the same on every run.
pub struct Rng(pub u64);

impl Rng {
    /// The next number, uniform in `[lo, hi)`.
    pub fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        let x = (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64;
        lo + (hi - lo) * x
    }

    /// `N` numbers, each uniform in `[lo, hi)`.
    pub fn array<const N: usize>(&mut self, lo: f64, hi: f64) -> [f64; N] {
        core::array::from_fn(|_| self.uniform(lo, hi))
    }
}

/// The fused evaluations of the coupled step (`Lagrangian::stage_terms`: p, f, k, k_vᵀν;
/// `Lagrangian::end_terms`: p, w, k, g, Gᵀμ; `Lagrangian::nonholonomic_velocity_jacobian`:
/// k, k_v) equal, to the bit, the separate evaluations they stand for, at `(t, q, v)` with the
/// multipliers `nu` and `mu`.
pub fn assert_fused_evaluations<Sys, const N: usize, const M: usize, const K: usize>(
    sys: &Sys,
    t: f64,
    (q, v): (
        &spark::nalgebra::SVector<f64, N>,
        &spark::nalgebra::SVector<f64, N>,
    ),
    nu: &spark::nalgebra::SVector<f64, K>,
    mu: &spark::nalgebra::SVector<f64, M>,
) where
    Sys: spark::Lagrangian<N, M, K>,
{
    let (p, f, k, reaction) = sys.stage_terms(t, q, v, nu);
    assert_eq!((p, f), sys.momentum_force(t, q, v));
    assert_eq!((k, reaction), sys.nonholonomic_reaction(t, q, v, nu));
    let (p, w, k, g, reaction) = sys.end_terms(t, q, v, mu);
    assert_eq!(p, sys.momentum(t, q, v));
    assert_eq!(w, sys.hidden_constraint(t, q, v).0);
    assert_eq!(k, sys.nonholonomic_constraints(t, q, v));
    assert_eq!((g, reaction), sys.constraint_reaction(t, q, mu));
    let full = sys.nonholonomic_jacobian(t, q, v, nu);
    assert_eq!(
        sys.nonholonomic_velocity_jacobian(t, q, v),
        (full.k, full.kv)
    );
}
