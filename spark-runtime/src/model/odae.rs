//! The model contract of a system given as the overdetermined DAE (2.11) of Jay (2007):
//! Hamiltonian models and general DAE models.

use nalgebra::{SMatrix, SVector};

use crate::model::blocks::{HiddenJacobian, KinematicsJacobian, ReactionJacobian};
use crate::model::Model;

/// The overdetermined DAE of Jay (2007), (2.11), with explicit time:
/// `y' = v(t, y, z)`, `d/dt p(t, y, z) = f(t, y, z) + r(t, y, λ)`, `0 = g(t, y)`,
/// `0 = g_t + g_y v(t, y, z)`; `N` is the size of `y` and of `z`, `M` the number of constraints.
///
/// Hamiltonian models (`y = q`, `z = p`, `v = H_p`, `p = z`, `f = −H_q`, `r = −Gᵀλ`) and models
/// given directly by `v, p, f, r, g` implement it; `mechanics!` generates the impl.
pub trait Odae<const N: usize, const M: usize>: Model {
    /// `(v, p, f)` at `(t, y, z)`.
    fn kinematics(
        &self,
        t: f64,
        y: &SVector<f64, N>,
        z: &SVector<f64, N>,
    ) -> (SVector<f64, N>, SVector<f64, N>, SVector<f64, N>);

    /// `v, p, f` and their first derivatives.
    fn kinematics_jacobian(
        &self,
        t: f64,
        y: &SVector<f64, N>,
        z: &SVector<f64, N>,
    ) -> KinematicsJacobian<N>;

    /// `r(t, y, λ)` and its first derivatives.
    fn reaction_jacobian(
        &self,
        t: f64,
        y: &SVector<f64, N>,
        lambda: &SVector<f64, M>,
    ) -> ReactionJacobian<N, M>;

    /// `(g(t, y), g_y(t, y))`.
    fn position_constraints(
        &self,
        t: f64,
        y: &SVector<f64, N>,
    ) -> (SVector<f64, M>, SMatrix<f64, M, N>);

    /// The hidden constraint `g_t + g_y v` and its derivatives.
    fn hidden_constraint(
        &self,
        t: f64,
        y: &SVector<f64, N>,
        z: &SVector<f64, N>,
    ) -> HiddenJacobian<N, M>;

    /// A conserved quantity of the exact flow, if the model has one (the Hamiltonian).
    fn energy(&self, _t: f64, _y: &SVector<f64, N>, _z: &SVector<f64, N>) -> Option<f64> {
        None
    }
}
