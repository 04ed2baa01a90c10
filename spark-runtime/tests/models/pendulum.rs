// The Cartesian pendulum written by hand against the runtime's traits (no macro), with an
// independent reference solution. Included by `tests/hand_pendulum.rs` and by the unit tests
// of `src/spark_step.rs` (where `spark_runtime` names the crate itself).

use nalgebra::{SMatrix, SVector};
use spark_runtime::{
    ConstraintJacobian, DynamicsJacobian, Lagrangian, Model, VelocityConstraintJacobian,
};

/// `m (vx² + vy²)/2 − m g y` with `x² + y² − l² = 0`.
#[derive(Clone, Copy)]
pub struct Pendulum {
    /// Mass.
    pub m: f64,
    /// Rod length.
    pub l: f64,
    /// Gravity.
    pub g: f64,
}

type V2 = SVector<f64, 2>;

impl Model for Pendulum {
    fn first_non_finite_parameter(&self) -> Option<&'static str> {
        [("m", self.m), ("l", self.l), ("g", self.g)]
            .into_iter()
            .find(|(_, x)| !x.is_finite())
            .map(|(n, _)| n)
    }
}

impl Lagrangian<2, 1> for Pendulum {
    fn lagrangian(&self, _t: f64, q: &V2, v: &V2) -> f64 {
        0.5 * self.m * v.norm_squared() - self.m * self.g * q[1]
    }
    fn momentum_force(&self, _t: f64, _q: &V2, v: &V2) -> (V2, V2) {
        (v * self.m, V2::new(0.0, -self.m * self.g))
    }
    fn dynamics_jacobian(&self, t: f64, q: &V2, v: &V2) -> DynamicsJacobian<2> {
        let (p, f) = self.momentum_force(t, q, v);
        DynamicsJacobian {
            p,
            f,
            lvv: SMatrix::identity() * self.m,
            lvq: SMatrix::zeros(),
            lqq: SMatrix::zeros(),
            fv: SMatrix::zeros(),
        }
    }
    fn constraints(&self, _t: f64, q: &V2) -> SVector<f64, 1> {
        SVector::from([q.norm_squared() - self.l * self.l])
    }
    fn constraint_jacobian(
        &self,
        t: f64,
        q: &V2,
        mu: &SVector<f64, 1>,
    ) -> ConstraintJacobian<2, 1> {
        ConstraintJacobian {
            g: self.constraints(t, q),
            gq: SMatrix::from([[2.0 * q[0]], [2.0 * q[1]]]),
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
            wq: SMatrix::from([[2.0 * v[0]], [2.0 * v[1]]]),
            wv: SMatrix::from([[2.0 * q[0]], [2.0 * q[1]]]),
        }
    }
}

/// θ'' = -(g/l) sin θ from (θ0, ω0) with classical RK4 at a tiny step (200000 steps): an
/// independent reference. Returns (θ, ω) at `t_end`.
pub fn reference(theta0: f64, omega0: f64, t_end: f64, g_over_l: f64) -> (f64, f64) {
    let n = 200_000;
    let h = t_end / n as f64;
    let f = |th: f64, om: f64| (om, -g_over_l * th.sin());
    let (mut th, mut om) = (theta0, omega0);
    for _ in 0..n {
        let k1 = f(th, om);
        let k2 = f(th + 0.5 * h * k1.0, om + 0.5 * h * k1.1);
        let k3 = f(th + 0.5 * h * k2.0, om + 0.5 * h * k2.1);
        let k4 = f(th + h * k3.0, om + h * k3.1);
        th += h / 6.0 * (k1.0 + 2.0 * k2.0 + 2.0 * k3.0 + k4.0);
        om += h / 6.0 * (k1.1 + 2.0 * k2.1 + 2.0 * k3.1 + k4.1);
    }
    (th, om)
}
