//! Runge–Kutta methods with a local model (Jay, JCAM 204 (2007), §§5–6): RKLM and the
//! symmetrized SRKLM, with Gauss coefficients of any `S`, on the stack.
//!
//! The problem is an ODE in `ℝ^D`
//!
//! ```text
//! (12)  y' = f(t, y),
//! ```
//!
//! together with a *local model*
//!
//! ```text
//! (13)  z' = g(t, z)
//! ```
//!
//! whose exact flow `z(t, t₀, z₀)` (the solution of (13) through `z₀` at `t₀`) the user
//! supplies, typically in closed form (a linear part `g = A z` with flow `e^{(t−t₀)A} z₀`, a
//! fast rotation, a Kepler orbit, …). The methods integrate numerically only the *correction*
//! `δ = y − z`, which obeys
//!
//! ```text
//! (18)  δ' = f(t, z(t) + δ) − g(t, z(t)),   δ(t₀) = 0,
//! ```
//!
//! so that a local model that captures the stiff or fast part of `f` lets the step size follow
//! the (slow) correction instead. With `T_j = t₀ + c_j h` and the `S`-stage Gauss coefficients
//! `(c_i, b_j, a_ij)` of order `2S`:
//!
//! * [`Rklm`] applies the Gauss method to (18) from `z₀(t) = z(t, t₀, y₀)`: it is (22a, b)
//!   alone, `y₁ = y₁⁺`. Order `2S`; not symmetric.
//! * [`Srklm`] adds the backward solve from `z₁(t) = z(t, t₁, y₁)` and the symmetrizing
//!   condition (22e), all of (22a–e). Order `2S` (Theorem 6 (2)), symmetric (Theorem 6 (5)),
//!   reduces to the plain Gauss method for `g ≡ 0` (6 (3)) and is exact for `g ≡ f` (6 (4)).
//!
//! Newton's method solves the implicit stages; the backward solve of SRKLM treats `y₁` as an
//! unknown next to the backward stages (the paper proves existence by the implicit function
//! theorem in `y₁`, §6), which needs `∂g/∂z` and the derivative of the flow with respect to its
//! initial value ([`LocalModelJacobians`]). The SRKLM equations have no solution when the
//! local-model propagator over one step has an eigenvalue `−1` (for the midpoint SRKLM on an
//! oscillator of model frequency `ρ`, when `hρ ≡ π mod 2π`); near there Newton fails with
//! [`Error::SingularJacobian`] or [`Error::Diverged`].

// Index loops mirror the paper's subscripts i, j (stages) and a, b (components).
#![allow(clippy::needless_range_loop)]

use nalgebra::{SMatrix, SVector};

use crate::error::{Error, Phase};
use crate::linalg::layout::{flat, flat_square, zero_square, Arr, Cat, Layout, Scalar};
use crate::linalg::lu;
use crate::linalg::newton::{Monitor, Verdict};
use crate::options::Options;
use crate::tableau::GaussLobattoTableau;

/// An ODE `y' = f(t, y)` (12) with a local model `z' = g(t, z)` (13) whose exact flow is known.
///
/// Enough for [`Rklm`]; [`Srklm`] also needs [`LocalModelJacobians`].
///
/// The trivial local model `g ≡ 0`, with the flow `z(t) = z₀`, turns both methods into the
/// plain Gauss method (Theorem 6 (3)). If `g ≡ f` (the "model" is the problem
/// itself, solved exactly) both methods return the exact flow (Theorem 6 (4)).
pub trait LocalModelOde<const D: usize> {
    /// The full vector field `f(t, y)` of (12).
    fn f(&self, t: f64, y: &SVector<f64, D>) -> SVector<f64, D>;

    /// Its Jacobian `∂f/∂y (t, y)`, for Newton's method on the stages.
    fn f_y(&self, t: f64, y: &SVector<f64, D>) -> SMatrix<f64, D, D>;

    /// The local-model vector field `g(t, z)` of (13).
    fn g(&self, t: f64, z: &SVector<f64, D>) -> SVector<f64, D>;

    /// The exact flow of the local model: `z(t, t₀, z₀)`, the value at `t` of the solution of
    /// `z' = g(t, z)` with `z(t₀) = z₀`. Called with `t` before and after `t₀` (the backward
    /// solve of SRKLM runs the model from `t₁` back to `t₀`), and must satisfy
    /// `flow(t₀, z₀, t₀) = z₀`.
    fn flow(&self, t0: f64, z0: &SVector<f64, D>, t: f64) -> SVector<f64, D>;
}

/// The derivatives [`Srklm`] needs on top of [`LocalModelOde`]: in (22c–e) the model solution
/// `z₁(t) = z(t, t₁, y₁)` depends on the unknown `y₁`.
pub trait LocalModelJacobians<const D: usize>: LocalModelOde<D> {
    /// The Jacobian `∂g/∂z (t, z)` of the local model.
    fn g_y(&self, t: f64, z: &SVector<f64, D>) -> SMatrix<f64, D, D>;

    /// The derivative of the flow with respect to its initial value,
    /// `Φ(t, t₀, z₀) = ∂z(t, t₀, z₀)/∂z₀` (the solution of `Φ' = g_z(t, z(t)) Φ`, `Φ(t₀) = I`;
    /// `e^{(t−t₀)A}` for `g = A z`).
    fn flow_jacobian(&self, t0: f64, z0: &SVector<f64, D>, t: f64) -> SMatrix<f64, D, D>;
}

/// Newton iterations of one local-model step.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LocalModelStats {
    /// Iterations of the forward solve (22a) (the only solve of RKLM).
    pub forward_iterations: u32,
    /// Iterations of the backward solve (22c–e) of SRKLM (0 for RKLM).
    pub backward_iterations: u32,
}

/// `S` stage vectors of dimension `D`.
type Stages<const D: usize, const S: usize> = Arr<Arr<Scalar, D>, S>;
/// The backward unknowns of SRKLM: `S` stage corrections, then `y₁`.
type Backward<const D: usize, const S: usize> = Cat<Stages<D, S>, Arr<Scalar, D>>;

fn check_step_size(h: f64) -> Result<(), Error> {
    if h.is_finite() && h != 0.0 {
        Ok(())
    } else {
        Err(Error::InvalidStepSize { h })
    }
}

fn max_abs<const D: usize>(x: &SVector<f64, D>) -> f64 {
    x.iter().fold(0.0, |m, v| m.max(v.abs()))
}

/// `max |x_k|`, or `NaN` if any entry is not finite (so that Newton reports divergence).
fn update_size(x: &[f64]) -> f64 {
    let mut m = 0.0f64;
    for v in x {
        if !v.is_finite() {
            return f64::NAN;
        }
        m = m.max(v.abs());
    }
    m
}

/// Newton's verdict on an update of size `delta` for unknowns of size `scale`; `noise` is the
/// rounding level of the residual (same units as `delta`).
fn judge(
    monitor: &mut Monitor,
    options: &Options,
    delta: f64,
    scale: f64,
    noise: f64,
) -> Result<Verdict, Error> {
    let unit = options.tolerance * scale.max(f64::MIN_POSITIVE);
    monitor.judge(delta / unit, noise / unit)
}

/// The result of the forward solve (22a, b).
struct Forward<const D: usize, const S: usize> {
    /// `Y_i⁺`.
    stages: [SVector<f64, D>; S],
    /// `y₁⁺`.
    end: SVector<f64, D>,
    iterations: u32,
}

/// Solves (22a) for the corrections `Δ_i⁺ = Y_i⁺ − z₀(T_i)` and returns (22b):
///
/// `Δ_i⁺ = h Σ_j a_ij (f(T_j, z₀(T_j) + Δ_j⁺) − g(T_j, z₀(T_j)))`,
/// `y₁⁺ = z₀(t₁) + h Σ_j b_j (f(T_j, Y_j⁺) − g(T_j, z₀(T_j)))`, `z₀(t) = z(t, t₀, y₀)`.
fn forward<P: LocalModelOde<D> + ?Sized, const D: usize, const S: usize>(
    problem: &P,
    h: f64,
    options: &Options,
    t0: f64,
    y0: &SVector<f64, D>,
) -> Result<Forward<D, S>, Error> {
    let tab = &GaussLobattoTableau::<S>::TABLEAU;
    let times: [f64; S] = core::array::from_fn(|i| t0 + tab.c[i] * h);
    let t1 = t0 + h;
    let z0: [SVector<f64, D>; S] = core::array::from_fn(|i| problem.flow(t0, y0, times[i]));
    let gz: [SVector<f64, D>; S] = core::array::from_fn(|i| problem.g(times[i], &z0[i]));
    let mut delta = [SVector::<f64, D>::zeros(); S];
    let mut monitor = Monitor::new(Phase::LocalModelForward, options.max_iterations);
    let n = <Stages<D, S> as Layout>::LEN;
    loop {
        let ys: [SVector<f64, D>; S] = core::array::from_fn(|i| z0[i] + delta[i]);
        let e: [SVector<f64, D>; S] = core::array::from_fn(|i| problem.f(times[i], &ys[i]) - gz[i]);
        let fy: [SMatrix<f64, D, D>; S] = core::array::from_fn(|i| problem.f_y(times[i], &ys[i]));
        let mut jac = zero_square::<Stages<D, S>>();
        let mut rhs = <Stages<D, S> as Layout>::fill(0.0);
        let mut perm = <Stages<D, S> as Layout>::fill(0usize);
        let mut e_scale = 0.0f64;
        {
            let r = flat::<Stages<D, S>, f64>(&mut rhs);
            let jm = flat_square::<Stages<D, S>>(&mut jac);
            for i in 0..S {
                // Residual of (22a) in correction form: Δ_i − h Σ_j a_ij e_j.
                let mut res = delta[i];
                for j in 0..S {
                    res -= e[j] * (h * tab.a[i][j]);
                }
                e_scale = e_scale.max(max_abs(&e[i]));
                for a in 0..D {
                    r[i * D + a] = -res[a];
                }
                // ∂/∂Δ_k: δ_ik I − h a_ik f_y(T_k, Y_k).
                for k in 0..S {
                    for a in 0..D {
                        for b in 0..D {
                            let mut v = -h * tab.a[i][k] * fy[k][(a, b)];
                            if i == k && a == b {
                                v += 1.0;
                            }
                            jm[(i * D + a) * n + k * D + b] = v;
                        }
                    }
                }
            }
            let p = flat::<Stages<D, S>, usize>(&mut perm);
            lu::factor(jm, p, n).map_err(|_| monitor.singular())?;
            lu::solve(jm, p, r, n);
        }
        let size = update_size(flat::<Stages<D, S>, f64>(&mut rhs));
        let mut scale = max_abs(y0);
        for i in 0..S {
            for a in 0..D {
                delta[i][a] += rhs[i][a];
            }
            scale = scale.max(max_abs(&ys[i]));
        }
        let noise = 64.0 * f64::EPSILON * (scale + h.abs() * e_scale);
        if judge(&mut monitor, options, size, scale, noise)? == Verdict::Converged {
            break;
        }
    }
    // (22b), with f re-evaluated at the converged stages.
    let stages: [SVector<f64, D>; S] = core::array::from_fn(|i| z0[i] + delta[i]);
    let mut end = problem.flow(t0, y0, t1);
    for j in 0..S {
        end += (problem.f(times[j], &stages[j]) - gz[j]) * (h * tab.b[j]);
    }
    if !end.iter().all(|v| v.is_finite()) {
        return Err(Error::Diverged {
            phase: Phase::LocalModelForward,
            iterations: monitor.iterations(),
            residual: f64::NAN,
        });
    }
    Ok(Forward {
        stages,
        end,
        iterations: monitor.iterations(),
    })
}

/// Solves (22c–e) for `y₁` (see [`Srklm`]), starting from `y₁ = y₁⁺` and `Y_i⁻ = Y_i⁺`.
fn backward<P: LocalModelJacobians<D> + ?Sized, const D: usize, const S: usize>(
    problem: &P,
    h: f64,
    options: &Options,
    t0: f64,
    y0: &SVector<f64, D>,
    fwd: &Forward<D, S>,
) -> Result<(SVector<f64, D>, u32), Error> {
    let tab = &GaussLobattoTableau::<S>::TABLEAU;
    let times: [f64; S] = core::array::from_fn(|i| t0 + tab.c[i] * h);
    let t1 = t0 + h;
    // Unknowns: Δ_i⁻ = Y_i⁻ − z₁(T_i) and y₁. The initial guess Y_i⁻ = Y_i⁺, y₁ = y₁⁺ is the
    // exact solution for g ≡ 0 and for g ≡ f (Theorem 6 (3), (4)).
    let mut y1 = fwd.end;
    let mut delta: [SVector<f64, D>; S] =
        core::array::from_fn(|i| fwd.stages[i] - problem.flow(t1, &y1, times[i]));
    let mut monitor = Monitor::new(Phase::LocalModelBackward, options.max_iterations);
    let n = <Backward<D, S> as Layout>::LEN;
    let id = SMatrix::<f64, D, D>::identity();
    loop {
        let z1: [SVector<f64, D>; S] = core::array::from_fn(|i| problem.flow(t1, &y1, times[i]));
        let phi: [SMatrix<f64, D, D>; S] =
            core::array::from_fn(|i| problem.flow_jacobian(t1, &y1, times[i]));
        let z1_0 = problem.flow(t1, &y1, t0);
        let phi_0 = problem.flow_jacobian(t1, &y1, t0);
        let ys: [SVector<f64, D>; S] = core::array::from_fn(|i| z1[i] + delta[i]);
        let fy: [SMatrix<f64, D, D>; S] = core::array::from_fn(|i| problem.f_y(times[i], &ys[i]));
        // e_j = f(T_j, Y_j⁻) − g(T_j, z₁(T_j)) and its derivative in y₁,
        // k_j = (f_y(T_j, Y_j⁻) − g_z(T_j, z₁(T_j))) Φ(T_j, t₁, y₁).
        let e: [SVector<f64, D>; S] =
            core::array::from_fn(|i| problem.f(times[i], &ys[i]) - problem.g(times[i], &z1[i]));
        let k: [SMatrix<f64, D, D>; S] =
            core::array::from_fn(|i| (fy[i] - problem.g_y(times[i], &z1[i])) * phi[i]);

        let mut jac = zero_square::<Backward<D, S>>();
        let mut rhs = <Backward<D, S> as Layout>::fill(0.0);
        let mut perm = <Backward<D, S> as Layout>::fill(0usize);
        let mut e_scale = 0.0f64;
        {
            let r = flat::<Backward<D, S>, f64>(&mut rhs);
            let jm = flat_square::<Backward<D, S>>(&mut jac);
            let end = S * D;
            for i in 0..S {
                // (22c) in correction form: Δ_i + h Σ_j (b_j − a_ij) e_j = 0.
                let mut res = delta[i];
                let mut d_y1 = SMatrix::<f64, D, D>::zeros();
                for j in 0..S {
                    let w = h * (tab.b[j] - tab.a[i][j]);
                    res += e[j] * w;
                    d_y1 += k[j] * w;
                }
                e_scale = e_scale.max(max_abs(&e[i]));
                for a in 0..D {
                    r[i * D + a] = -res[a];
                    for b in 0..D {
                        jm[(i * D + a) * n + end + b] = d_y1[(a, b)];
                    }
                }
                for kk in 0..S {
                    let w = h * (tab.b[kk] - tab.a[i][kk]);
                    for a in 0..D {
                        for b in 0..D {
                            let mut v = w * fy[kk][(a, b)];
                            if i == kk && a == b {
                                v += 1.0;
                            }
                            jm[(i * D + a) * n + kk * D + b] = v;
                        }
                    }
                }
            }
            // (22e) with (22d) substituted:
            // y₁ − y₁⁺ − y₀ + z₁(t₀) − h Σ_j b_j e_j = 0.
            let mut res = y1 - fwd.end - y0 + z1_0;
            let mut d_y1 = id + phi_0;
            for j in 0..S {
                res -= e[j] * (h * tab.b[j]);
                d_y1 -= k[j] * (h * tab.b[j]);
            }
            for a in 0..D {
                r[end + a] = -res[a];
                for b in 0..D {
                    jm[(end + a) * n + end + b] = d_y1[(a, b)];
                }
                for kk in 0..S {
                    for b in 0..D {
                        jm[(end + a) * n + kk * D + b] = -h * tab.b[kk] * fy[kk][(a, b)];
                    }
                }
            }
            let p = flat::<Backward<D, S>, usize>(&mut perm);
            lu::factor(jm, p, n).map_err(|_| monitor.singular())?;
            lu::solve(jm, p, r, n);
        }
        let size = update_size(flat::<Backward<D, S>, f64>(&mut rhs));
        let mut scale = max_abs(y0).max(max_abs(&y1));
        for i in 0..S {
            for a in 0..D {
                delta[i][a] += rhs.0[i][a];
            }
            scale = scale.max(max_abs(&ys[i]));
        }
        for a in 0..D {
            y1[a] += rhs.1[a];
        }
        let noise = 64.0 * f64::EPSILON * (scale + h.abs() * e_scale);
        if judge(&mut monitor, options, size, scale, noise)? == Verdict::Converged {
            break;
        }
    }
    Ok((y1, monitor.iterations()))
}

fn check_state<const D: usize>(t: f64, y: &SVector<f64, D>) -> Result<(), Error> {
    if t.is_finite() && y.iter().all(|v| v.is_finite()) {
        Ok(())
    } else {
        Err(Error::NonFiniteState)
    }
}

macro_rules! common_methods {
    () => {
        /// Classical order: `2S`, that of the underlying `S`-stage Gauss method.
        pub const ORDER: usize = 2 * S;

        /// An integrator with step size `h` (negative steps integrate backwards) and default
        /// [`Options`]. Errors if `h` is zero or not finite. `S = 0` does not compile.
        pub fn new(h: f64) -> Result<Self, Error> {
            // Evaluating the tableau here rejects S = 0 at compile time.
            let _ = GaussLobattoTableau::<S>::TABLEAU;
            check_step_size(h)?;
            Ok(Self {
                h,
                options: Options::default(),
                last: LocalModelStats::default(),
            })
        }

        /// The same integrator with other solver settings. Only `tolerance` (relative to the
        /// size of the state and stages) and `max_iterations` (per Newton solve) are used.
        pub fn with_options(mut self, options: Options) -> Self {
            self.options = options;
            self
        }

        /// The step size.
        pub fn step_size(&self) -> f64 {
            self.h
        }

        /// Changes the step size; errors (and keeps the old one) if `h` is zero or not finite.
        pub fn set_step_size(&mut self, h: f64) -> Result<(), Error> {
            check_step_size(h)?;
            self.h = h;
            Ok(())
        }

        /// The solver settings.
        pub fn options(&self) -> &Options {
            &self.options
        }

        /// What the last successful step cost.
        pub fn last_step_stats(&self) -> LocalModelStats {
            self.last
        }
    };
}

/// Runge–Kutta method with local model (RKLM, JCAM 204 (2007) §5) on `S`-stage Gauss
/// coefficients: the Gauss method applied to the correction ODE (18),
/// `δ' = f(t, z₀(t) + δ) − g(t, z₀(t))`, `δ(t₀) = 0`, `z₀(t) = z(t, t₀, y₀)`, and
/// `y₁ = z₀(t₁) + δ₁`. In the variable `y = z₀ + δ` this is (22a, b):
///
/// ```text
/// (22a)  Y_i = z₀(T_i) + h Σ_j a_ij (f(T_j, Y_j) − g(T_j, z₀(T_j))),   i = 1..S,
/// (22b)  y₁  = z₀(t₁)  + h Σ_j b_j  (f(T_j, Y_j) − g(T_j, z₀(T_j))),   T_j = t₀ + c_j h.
/// ```
///
/// Order `2S`. Plain Gauss for `g ≡ 0`, exact for `g ≡ f`; *not* symmetric, even though the
/// Gauss method is ((20) vs its adjoint (21) for the midpoint rule) — use [`Srklm`] for long
/// runs. Needs only [`LocalModelOde`]: `f`, `f_y`, `g` and the flow. One Newton solve of size
/// `S·D` per step.
#[derive(Clone, Copy, Debug)]
pub struct Rklm<const S: usize> {
    h: f64,
    options: Options,
    last: LocalModelStats,
}

impl<const S: usize> Rklm<S> {
    common_methods!();

    /// Advances `(t, y)` by one step of (22a, b). On error `t` and `y` are left as they were.
    pub fn step<P: LocalModelOde<D> + ?Sized, const D: usize>(
        &mut self,
        problem: &P,
        t: &mut f64,
        y: &mut SVector<f64, D>,
    ) -> Result<(), Error> {
        check_state(*t, y)?;
        let fwd = forward::<P, D, S>(problem, self.h, &self.options, *t, y)?;
        *y = fwd.end;
        *t += self.h;
        self.last = LocalModelStats {
            forward_iterations: fwd.iterations,
            backward_iterations: 0,
        };
        Ok(())
    }
}

/// Symmetrized Runge–Kutta method with local model (SRKLM, JCAM 204 (2007) §6, (22a–e)) on
/// `S`-stage Gauss coefficients.
///
/// With `z₀(t) = z(t, t₀, y₀)` and `z₁(t) = z(t, t₁, y₁)` the local-model solutions through
/// the step's start and (unknown) end, and `T_j = t₀ + c_j h`:
///
/// ```text
/// (22a)  Y_i⁺ = z₀(T_i) + h Σ_j a_ij (f(T_j, Y_j⁺) − g(T_j, z₀(T_j))),            i = 1..S,
/// (22b)  y₁⁺  = z₀(t₁)  + h Σ_j b_j  (f(T_j, Y_j⁺) − g(T_j, z₀(T_j))),
/// (22c)  Y_i⁻ = z₁(T_i) − h Σ_j (b_j − a_ij) (f(T_j, Y_j⁻) − g(T_j, z₁(T_j))),   i = 1..S,
/// (22d)  y₀⁻  = z₁(t₀)  − h Σ_j b_j  (f(T_j, Y_j⁻) − g(T_j, z₁(T_j))),
/// (22e)  y₁ − y₁⁺ = y₀ − y₀⁻.
/// ```
///
/// (22a, b) is the forward [`Rklm`] step, solved first (size `S·D`). (22c–e) are then solved
/// together for the backward stage corrections `Y_i⁻ − z₁(T_i)` and `y₁` (size `(S+1)·D`), by
/// Newton's method from `Y_i⁻ = Y_i⁺`, `y₁ = y₁⁺`; since `z₁` depends on `y₁` this needs
/// [`LocalModelJacobians`].
///
/// Theorem 6: a unique solution for small `|h|`; order `2S`; the plain Gauss method for
/// `g ≡ 0`; the exact flow for `g ≡ f`; symmetric (the Gauss coefficients are symmetric), so a
/// step of `h` followed by a step of `−h` returns to the start. For the midpoint rule (`S = 1`)
/// and `y' = A y + b(t)`, `z' = A z`, it is
/// `y₁ = e^{hA} y₀ + h e^{hA} (I + e^{hA})⁻¹ ((I + hA/2)⁻¹ + (I − hA/2)⁻¹) b(t₀ + h/2)`, which
/// shows the failure when `e^{hA}` has the eigenvalue `−1`.
///
/// ```
/// use nalgebra::{Matrix2, Vector2};
/// use spark_runtime::local_model::{LocalModelJacobians, LocalModelOde, Srklm};
///
/// /// A stiff oscillator with a weak cubic spring: y'' = −ρ² y − y³; the model is y'' = −ρ² y.
/// struct Duffing { rho: f64 }
///
/// impl Duffing {
///     fn rotation(&self, dt: f64) -> Matrix2<f64> {
///         let (s, c) = (self.rho * dt).sin_cos();
///         Matrix2::new(c, s / self.rho, -self.rho * s, c)
///     }
/// }
///
/// impl LocalModelOde<2> for Duffing {
///     fn f(&self, _t: f64, y: &Vector2<f64>) -> Vector2<f64> {
///         Vector2::new(y[1], -self.rho * self.rho * y[0] - y[0].powi(3))
///     }
///     fn f_y(&self, _t: f64, y: &Vector2<f64>) -> Matrix2<f64> {
///         Matrix2::new(0.0, 1.0, -self.rho * self.rho - 3.0 * y[0] * y[0], 0.0)
///     }
///     fn g(&self, _t: f64, z: &Vector2<f64>) -> Vector2<f64> {
///         Vector2::new(z[1], -self.rho * self.rho * z[0])
///     }
///     fn flow(&self, t0: f64, z0: &Vector2<f64>, t: f64) -> Vector2<f64> {
///         self.rotation(t - t0) * z0
///     }
/// }
///
/// impl LocalModelJacobians<2> for Duffing {
///     fn g_y(&self, _t: f64, _z: &Vector2<f64>) -> Matrix2<f64> {
///         Matrix2::new(0.0, 1.0, -self.rho * self.rho, 0.0)
///     }
///     fn flow_jacobian(&self, t0: f64, _z0: &Vector2<f64>, t: f64) -> Matrix2<f64> {
///         self.rotation(t - t0)
///     }
/// }
///
/// # fn main() -> Result<(), spark_runtime::Error> {
/// let problem = Duffing { rho: 50.0 };
/// // h·ρ = 5: a step spans most of a period of the fast oscillation.
/// let mut method = Srklm::<2>::new(0.1)?;
/// let (mut t, mut y) = (0.0, Vector2::new(1.0, 0.0));
/// let energy = |y: &Vector2<f64>| 0.5 * y[1] * y[1] + 1250.0 * y[0] * y[0] + 0.25 * y[0].powi(4);
/// let e0 = energy(&y);
/// for _ in 0..100 {
///     method.step(&problem, &mut t, &mut y)?;
/// }
/// assert!((t - 10.0).abs() < 1e-12);
/// assert!((energy(&y) - e0).abs() < 1e-3 * e0);
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Srklm<const S: usize> {
    h: f64,
    options: Options,
    last: LocalModelStats,
}

impl<const S: usize> Srklm<S> {
    common_methods!();

    /// Advances `(t, y)` by one step of (22a–e). On error `t` and `y` are left as they were.
    pub fn step<P: LocalModelJacobians<D> + ?Sized, const D: usize>(
        &mut self,
        problem: &P,
        t: &mut f64,
        y: &mut SVector<f64, D>,
    ) -> Result<(), Error> {
        check_state(*t, y)?;
        let fwd = forward::<P, D, S>(problem, self.h, &self.options, *t, y)?;
        let (y1, backward_iterations) =
            backward::<P, D, S>(problem, self.h, &self.options, *t, y, &fwd)?;
        *y = y1;
        *t += self.h;
        self.last = LocalModelStats {
            forward_iterations: fwd.iterations,
            backward_iterations,
        };
        Ok(())
    }
}
