//! Task-space costs: a point of a body tracking a moving target position, and optionally the
//! body tracking a moving target orientation, by Gauss–Newton on the pose Jacobians the macro
//! emits ([`Bodies`]), so no end-effector kinematics is written by hand.
//!
//! With `p(q)` the point's world position, `E = R*(t)ᵀ R(q)` the body's rotation relative to
//! the target and `e = ½ vee(E − Eᵀ)` (`sin` of the angle times the axis, zero at the target),
//! the stage cost at `(x, u)`, `x = (t, q, v)`, is
//!
//! `l = ½ w_p |p(q) − p*(t)|² + ½ w_R |e|² + ½ w_v |v|² + ½ (u − u*)ᵀ R (u − u*)`,
//!
//! with `∂p/∂q` and `∂e/∂q = ½ (tr E · I − E) Rᵀ J_ω` from the body's Jacobian, the Hessian
//! `Jᵀ W J` (Gauss–Newton). The terminal cost is the state terms scaled by `terminal_scale`.

use core::marker::PhantomData;

use nalgebra::{Matrix3, SMatrix, SVector, Vector3};

use crate::control::cost::{Cost, StageCost, TerminalCost};
use crate::control::dense::is_symmetric_positive;
use crate::control::error::{require, ControlError};
use crate::model::bodies::Bodies;
use crate::model::State;

/// The orientation target of [`TaskSpace::new`]: unused, the orientation weight being zero.
pub type NoOrientation = fn(f64) -> Matrix3<f64>;

/// The task-space cost of the [module](self): body `body`'s point `offset` (body frame)
/// tracks `position(t)` (world), the body tracks `orientation(t)`.
///
/// ```
/// use spark::control::cost::Cost;
/// use spark::control::task::TaskSpace;
/// use spark::nalgebra::{SMatrix, SVector, Vector3};
/// use spark::{Bodies, State};
///
/// spark::mechanics! {
///     pub struct Arm {
///         bodies: {
///             upper: Body { mass: 1.0, com: [0.0, 0.0, -0.5], inertia: [0.1, 0.1, 0.01] },
///         },
///         joints: {
///             shoulder: Revolute { parent: world, child: upper, axis: [0.0, 1.0, 0.0] },
///         },
///         actuated: [shoulder],
///     }
/// }
///
/// let upper = <Arm as Bodies<1>>::body_index("upper").unwrap();
/// // The hand (1 m down the arm) tracks a point 1 m along +x: the arm turned by −π/2 about y.
/// let cost = TaskSpace::<Arm, _, _, 1, 1>::new(
///     upper,
///     Vector3::new(0.0, 0.0, -1.0),
///     |_t| Vector3::new(1.0, 0.0, 0.0),
///     100.0,
///     SMatrix::identity() * 1e-3,
/// );
/// assert!(Cost::<1, 1, 2>::check(&cost).is_ok());
/// let at = |angle: f64| State::new(0.0, [angle], [0.0]);
/// let u = SVector::zeros();
/// assert!(Cost::<1, 1, 2>::stage(&cost, 0, &at(-core::f64::consts::FRAC_PI_2), &u).value < 1e-28);
/// let hanging = Cost::<1, 1, 2>::stage(&cost, 0, &at(0.0), &u);
/// assert!((hanging.value - 100.0).abs() < 1e-12); // ½ · 100 · |(−1, 0, −1)|²
/// assert!(hanging.lx[0] > 0.0); // turning towards −π/2 lowers the cost
/// ```
#[derive(Clone, Copy, Debug)]
pub struct TaskSpace<Sys, P, R, const N: usize, const U: usize> {
    /// The body (an index of the model's `BODY_NAMES`, [`Bodies::body_index`]).
    pub body: usize,
    /// The tracked point in the body's frame.
    pub offset: Vector3<f64>,
    /// The point's target at time `t` (world).
    pub position: P,
    /// `w_p ≥ 0`.
    pub position_weight: f64,
    /// The body's target rotation (body → world) at time `t`.
    pub orientation: R,
    /// `w_R ≥ 0` (zero: orientation free).
    pub orientation_weight: f64,
    /// `w_v ≥ 0`: a damping term on every velocity.
    pub velocity_weight: f64,
    /// `R` (`U × U`, symmetric positive definite).
    pub input_weight: SMatrix<f64, U, U>,
    /// `u*`.
    pub input_target: SVector<f64, U>,
    /// The terminal cost's factor on the state terms (`≥ 0`).
    pub terminal_scale: f64,
    model: PhantomData<fn() -> Sys>,
}

impl<Sys, P, const N: usize, const U: usize> TaskSpace<Sys, P, NoOrientation, N, U>
where
    Sys: Bodies<N>,
    P: Fn(f64) -> Vector3<f64>,
{
    /// Position tracking only: no orientation, velocity or input-target terms, the terminal
    /// cost the stage's position term (`terminal_scale = 1`).
    pub fn new(
        body: usize,
        offset: Vector3<f64>,
        position: P,
        position_weight: f64,
        input_weight: SMatrix<f64, U, U>,
    ) -> Self {
        Self {
            body,
            offset,
            position,
            position_weight,
            orientation: |_| Matrix3::identity(),
            orientation_weight: 0.0,
            velocity_weight: 0.0,
            input_weight,
            input_target: SVector::zeros(),
            terminal_scale: 1.0,
            model: PhantomData,
        }
    }
}

impl<Sys, P, R, const N: usize, const U: usize> TaskSpace<Sys, P, R, N, U>
where
    Sys: Bodies<N>,
    P: Fn(f64) -> Vector3<f64>,
    R: Fn(f64) -> Matrix3<f64>,
{
    /// The same cost with the body's orientation tracking `orientation(t)` with weight `weight`.
    pub fn with_orientation<R2: Fn(f64) -> Matrix3<f64>>(
        self,
        orientation: R2,
        weight: f64,
    ) -> TaskSpace<Sys, P, R2, N, U> {
        TaskSpace {
            body: self.body,
            offset: self.offset,
            position: self.position,
            position_weight: self.position_weight,
            orientation,
            orientation_weight: weight,
            velocity_weight: self.velocity_weight,
            input_weight: self.input_weight,
            input_target: self.input_target,
            terminal_scale: self.terminal_scale,
            model: PhantomData,
        }
    }

    /// The same cost with the damping term `½ w_v |v|²`, `w_v = weight`.
    pub fn with_velocity_weight(self, weight: f64) -> Self {
        Self {
            velocity_weight: weight,
            ..self
        }
    }

    /// The same cost with the terminal cost's factor `scale` on the state terms.
    pub fn with_terminal_scale(self, scale: f64) -> Self {
        Self {
            terminal_scale: scale,
            ..self
        }
    }

    /// The same cost with the input target `u*`.
    pub fn with_input_target(self, target: SVector<f64, U>) -> Self {
        Self {
            input_target: target,
            ..self
        }
    }

    /// The state terms at `x`: value, gradient and Gauss–Newton Hessian in `x = [q; v]`
    /// (`X = 2N`), each scaled by `scale`.
    fn state_terms<const X: usize>(
        &self,
        x: &State<N>,
        scale: f64,
    ) -> (f64, SVector<f64, X>, SMatrix<f64, X, X>) {
        let mut value = 0.0;
        let mut lx = SVector::<f64, X>::zeros();
        let mut lxx = SMatrix::<f64, X, X>::zeros();
        let Some(body) = Sys::body_jacobian(&x.q, self.body) else {
            // `check` refuses a body that does not exist.
            return (f64::NAN, lx, lxx);
        };
        // (residual, its Jacobian in q, weight)
        let mut add = |r: Vector3<f64>, j: SMatrix<f64, 3, N>, w: f64| {
            value += 0.5 * w * r.norm_squared();
            let g = j.tr_mul(&r) * w;
            let h = j.tr_mul(&j) * w;
            for a in 0..N.min(X) {
                lx[a] += g[a];
                for b in 0..N.min(X) {
                    lxx[(a, b)] += h[(a, b)];
                }
            }
        };
        if self.position_weight != 0.0 {
            let (p, j) = body.point(&self.offset);
            add(p - (self.position)(x.t), j, scale * self.position_weight);
        }
        if self.orientation_weight != 0.0 {
            let e = (self.orientation)(x.t).tr_mul(&body.rotation);
            let r = 0.5
                * Vector3::new(
                    e[(2, 1)] - e[(1, 2)],
                    e[(0, 2)] - e[(2, 0)],
                    e[(1, 0)] - e[(0, 1)],
                );
            let d = (Matrix3::identity() * e.trace() - e) * 0.5 * body.rotation.transpose();
            add(r, d * body.angular(), scale * self.orientation_weight);
        }
        let wv = scale * self.velocity_weight;
        if wv != 0.0 {
            for a in 0..N.min(X.saturating_sub(N)) {
                value += 0.5 * wv * x.v[a] * x.v[a];
                lx[N + a] += wv * x.v[a];
                lxx[(N + a, N + a)] += wv;
            }
        }
        (value, lx, lxx)
    }
}

impl<Sys, P, R, const N: usize, const U: usize, const X: usize> Cost<N, U, X>
    for TaskSpace<Sys, P, R, N, U>
where
    Sys: Bodies<N>,
    P: Fn(f64) -> Vector3<f64>,
    R: Fn(f64) -> Matrix3<f64>,
{
    fn stage(&self, _k: usize, x: &State<N>, u: &SVector<f64, U>) -> StageCost<X, U> {
        let (value, lx, lxx) = self.state_terms::<X>(x, 1.0);
        let du = u - self.input_target;
        let ru = self.input_weight * du;
        StageCost {
            value: value + 0.5 * du.dot(&ru),
            lx,
            lu: ru,
            lxx,
            luu: self.input_weight,
            lux: SMatrix::zeros(),
        }
    }

    fn terminal(&self, x: &State<N>) -> TerminalCost<X> {
        let (value, lx, lxx) = self.state_terms::<X>(x, self.terminal_scale);
        TerminalCost { value, lx, lxx }
    }

    /// The weights finite and non-negative, `R` symmetric positive definite, `u*` and the
    /// offset finite, the body one of the model's, `X = 2N`.
    fn check(&self) -> Result<(), ControlError> {
        require(X == 2 * N, "a task-space cost needs X = 2N (x = [q; v])")?;
        require(
            self.body < Sys::body_names().len(),
            "the task-space cost's body is not one of the model's (see Bodies::body_index)",
        )?;
        let weights = [
            self.position_weight,
            self.orientation_weight,
            self.velocity_weight,
            self.terminal_scale,
        ];
        require(
            weights.iter().all(|w| w.is_finite() && *w >= 0.0),
            "the task-space weights and terminal_scale must be finite and non-negative",
        )?;
        require(
            self.offset.iter().all(|v| v.is_finite()),
            "the task-space offset must be finite",
        )?;
        require(
            is_symmetric_positive(&self.input_weight, true),
            "the input weight R must be finite, symmetric and positive definite",
        )?;
        require(
            self.input_target.iter().all(|v| v.is_finite()),
            "the input target u* must be finite",
        )
    }
}
