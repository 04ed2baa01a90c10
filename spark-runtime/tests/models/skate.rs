// The skate on an inclined plane (one holonomic and one nonholonomic constraint) written by
// hand against the runtime's traits (no macro), with its index-reduced ODE as an independent
// reference. Included by `tests/suite/hand_nonholonomic.rs` and by the unit tests of
// `src/step/coupled_motion.rs` (where `spark_runtime` names the crate itself).

use nalgebra::{SMatrix, SVector};
use spark_runtime::{
    ConstraintJacobian, DynamicsJacobian, Lagrangian, Model, NonholonomicJacobian, State,
    VelocityConstraintJacobian,
};

/// Skate on an inclined plane (Small's thesis §8.3.2) with ℓ = 1, m = 1, γ sin β = 1:
/// two point masses ½ at `(q1, q2)`, `(q3, q4)`, `L = ¼|v|² + ½(q1 + q3)`,
/// `g = ½(|d|² − 1)` with `d = (q3 − q1, q4 − q2)`, `k = −d2 (v1 + v3) + d1 (v2 + v4)`.
#[derive(Clone, Copy)]
pub struct Skate;

/// A vector of the skate's coordinates.
pub type V4 = SVector<f64, 4>;

impl Model for Skate {
    fn first_non_finite_parameter(&self) -> Option<&'static str> {
        None
    }
}

/// `d = (q3 − q1, q4 − q2)`.
fn skate_d(q: &V4) -> (f64, f64) {
    (q[2] - q[0], q[3] - q[1])
}

impl Lagrangian<4, 1, 1> for Skate {
    // The mass matrix is constant too; left undeclared, so that the steps take the path of a
    // model whose mass matrix varies with a momentum affine in `v`.
    const QUADRATIC_IN_V: bool = true;
    fn lagrangian(&self, _t: f64, q: &V4, v: &V4) -> f64 {
        0.25 * v.norm_squared() + 0.5 * (q[0] + q[2])
    }
    fn momentum_force(&self, _t: f64, _q: &V4, v: &V4) -> (V4, V4) {
        (v * 0.5, V4::new(0.5, 0.0, 0.5, 0.0))
    }
    fn dynamics_jacobian(&self, t: f64, q: &V4, v: &V4) -> DynamicsJacobian<4> {
        let (p, f) = self.momentum_force(t, q, v);
        DynamicsJacobian {
            p,
            f,
            lvv: SMatrix::identity() * 0.5,
            lvq: SMatrix::zeros(),
            lqq: SMatrix::zeros(),
            fv: SMatrix::zeros(),
        }
    }
    fn constraints(&self, _t: f64, q: &V4) -> SVector<f64, 1> {
        let (d1, d2) = skate_d(q);
        SVector::from([0.5 * (d1 * d1 + d2 * d2 - 1.0)])
    }
    fn constraint_jacobian(
        &self,
        t: f64,
        q: &V4,
        mu: &SVector<f64, 1>,
    ) -> ConstraintJacobian<4, 1> {
        let (d1, d2) = skate_d(q);
        let m = mu[0];
        ConstraintJacobian {
            g: self.constraints(t, q),
            gq: SMatrix::from_row_slice(&[-d1, -d2, d1, d2]),
            hess_mu: SMatrix::from_row_slice(&[
                m, 0.0, -m, 0.0, //
                0.0, m, 0.0, -m, //
                -m, 0.0, m, 0.0, //
                0.0, -m, 0.0, m,
            ]),
        }
    }
    fn velocity_constraint_jacobian(
        &self,
        _t: f64,
        q: &V4,
        v: &V4,
    ) -> VelocityConstraintJacobian<4, 1> {
        let (d1, d2) = skate_d(q);
        let gq = SMatrix::<f64, 1, 4>::from_row_slice(&[-d1, -d2, d1, d2]);
        VelocityConstraintJacobian {
            w: gq * v,
            wq: SMatrix::from_row_slice(&[v[0] - v[2], v[1] - v[3], v[2] - v[0], v[3] - v[1]]),
            wv: gq,
        }
    }
    fn nonholonomic_constraints(&self, _t: f64, q: &V4, v: &V4) -> SVector<f64, 1> {
        let (d1, d2) = skate_d(q);
        SVector::from([-d2 * (v[0] + v[2]) + d1 * (v[1] + v[3])])
    }
    fn nonholonomic_jacobian(
        &self,
        t: f64,
        q: &V4,
        v: &V4,
        psi: &SVector<f64, 1>,
    ) -> NonholonomicJacobian<4, 1> {
        let (d1, d2) = skate_d(q);
        let (s1, s2) = (v[0] + v[2], v[1] + v[3]);
        let p = psi[0];
        // k_vᵀψ = ψ (−d2, d1, −d2, d1).
        let hess_vq = SMatrix::<f64, 4, 4>::from_row_slice(&[
            0.0, p, 0.0, -p, //
            -p, 0.0, p, 0.0, //
            0.0, p, 0.0, -p, //
            -p, 0.0, p, 0.0,
        ]);
        NonholonomicJacobian {
            k: self.nonholonomic_constraints(t, q, v),
            kq: SMatrix::from_row_slice(&[-s2, s1, s2, -s1]),
            kv: SMatrix::from_row_slice(&[-d2, d1, -d2, d1]),
            hess_vq,
            hess_vv: SMatrix::zeros(),
        }
    }
}

impl Skate {
    /// The energy `¼|v|² − ½(q1 + q3)`.
    #[allow(dead_code)]
    pub fn energy(&self, s: &State<4>) -> f64 {
        0.25 * s.v.norm_squared() - 0.5 * (s.q[0] + s.q[2])
    }
    /// Index-reduced ODE: solve `[M Gᵀ Kᵀ; G 0 0; K 0 0] (a, λ, ψ) = (∇_qL, −g_qq(v,v), −k_q v)`.
    pub fn accel(q: &V4, v: &V4) -> V4 {
        let (d1, d2) = skate_d(q);
        let (s1, s2) = (v[0] + v[2], v[1] + v[3]);
        let (e1, e2) = (v[2] - v[0], v[3] - v[1]);
        let g = [-d1, -d2, d1, d2];
        let k = [-d2, d1, -d2, d1];
        let mut a = SMatrix::<f64, 6, 6>::zeros();
        for i in 0..4 {
            a[(i, i)] = 0.5;
            a[(i, 4)] = g[i];
            a[(4, i)] = g[i];
            a[(i, 5)] = k[i];
            a[(5, i)] = k[i];
        }
        let kqv = -s2 * v[0] + s1 * v[1] + s2 * v[2] - s1 * v[3];
        let rhs =
            SVector::<f64, 6>::from_row_slice(&[0.5, 0.0, 0.5, 0.0, -(e1 * e1 + e2 * e2), -kqv]);
        let x = a.lu().solve(&rhs).unwrap();
        V4::new(x[0], x[1], x[2], x[3])
    }
}
