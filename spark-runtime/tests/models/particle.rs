// The nonholonomic particle of Small & Jay §8.1 (purely nonholonomic: M = 0, K = 1) written by
// hand against the runtime's traits (no macro), with its index-reduced ODE as an independent
// reference. Included by `tests/suite/hand_nonholonomic.rs` and by the unit tests of
// `src/step/index2_structured.rs` (where `spark_runtime` names the crate itself).

use nalgebra::{SMatrix, SVector};
use spark_runtime::{
    ConstraintJacobian, DynamicsJacobian, Lagrangian, Model, NonholonomicJacobian, State,
    VelocityConstraintJacobian,
};

/// Nonholonomic particle (Small & Jay §8.1): `L = ½|v|² − (q1² + q2²)`, `k = v3 − q2 v1`.
#[derive(Clone, Copy)]
pub struct Particle;

/// A vector of the particle's coordinates.
pub type V3 = SVector<f64, 3>;

impl Model for Particle {
    fn first_non_finite_parameter(&self) -> Option<&'static str> {
        None
    }
}

impl Lagrangian<3, 0, 1> for Particle {
    fn lagrangian(&self, _t: f64, q: &V3, v: &V3) -> f64 {
        0.5 * v.norm_squared() - (q[0] * q[0] + q[1] * q[1])
    }
    fn momentum_force(&self, _t: f64, q: &V3, v: &V3) -> (V3, V3) {
        (*v, V3::new(-2.0 * q[0], -2.0 * q[1], 0.0))
    }
    fn dynamics_jacobian(&self, t: f64, q: &V3, v: &V3) -> DynamicsJacobian<3> {
        let (p, f) = self.momentum_force(t, q, v);
        DynamicsJacobian {
            p,
            f,
            lvv: SMatrix::identity(),
            lvq: SMatrix::zeros(),
            lqq: SMatrix::from_diagonal(&V3::new(-2.0, -2.0, 0.0)),
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
        SVector::from([v[2] - q[1] * v[0]])
    }
    fn nonholonomic_jacobian(
        &self,
        t: f64,
        q: &V3,
        v: &V3,
        psi: &SVector<f64, 1>,
    ) -> NonholonomicJacobian<3, 1> {
        let mut hess_vq = SMatrix::<f64, 3, 3>::zeros();
        // (k_vᵀψ)_0 = −q2 ψ.
        hess_vq[(0, 1)] = -psi[0];
        NonholonomicJacobian {
            k: self.nonholonomic_constraints(t, q, v),
            kq: SMatrix::from_row_slice(&[0.0, -v[0], 0.0]),
            kv: SMatrix::from_row_slice(&[-q[1], 0.0, 1.0]),
            hess_vq,
            hess_vv: SMatrix::zeros(),
        }
    }
}

impl Particle {
    /// The energy `½|v|² + q1² + q2²`.
    #[allow(dead_code)]
    pub fn energy(&self, s: &State<3>) -> f64 {
        0.5 * s.v.norm_squared() + s.q[0] * s.q[0] + s.q[1] * s.q[1]
    }
    /// Index-reduced ODE: `ψ = (2 q1 q2 − v1 v2)/(1 + q2²)` from `d/dt k = 0`.
    #[allow(dead_code)]
    pub fn accel(q: &V3, v: &V3) -> V3 {
        let psi = (2.0 * q[0] * q[1] - v[0] * v[1]) / (1.0 + q[1] * q[1]);
        V3::new(-2.0 * q[0] + psi * q[1], -2.0 * q[1], -psi)
    }
}
