//! The contract between a model and the integrators.
//!
//! `spark::mechanics!` implements these traits for the struct it generates. They can also be
//! implemented by hand (the runtime's own tests do), but then every derivative must be right:
//! the Newton iterations rely on them being exact.

use nalgebra::{SMatrix, SVector};

/// Facts about a model that do not depend on its sizes.
pub trait Model {
    /// Name of the first parameter whose value is not finite, if any.
    fn first_non_finite_parameter(&self) -> Option<&'static str>;
}

/// Momentum, force and their derivatives at one point `(t, q, v)`.
///
/// `p = ∂L/∂v`, `f = ∂L/∂q`; `lvv = ∂²L/∂v²`, `lvq[(a, b)] = ∂²L/∂v_a∂q_b`, `lqq = ∂²L/∂q²`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DynamicsJacobian<const N: usize> {
    /// `∂L/∂v`.
    pub p: SVector<f64, N>,
    /// `∂L/∂q`.
    pub f: SVector<f64, N>,
    /// `∂²L/∂v∂v`.
    pub lvv: SMatrix<f64, N, N>,
    /// `∂²L/∂v_a∂q_b` (row: velocity, column: coordinate).
    pub lvq: SMatrix<f64, N, N>,
    /// `∂²L/∂q∂q`.
    pub lqq: SMatrix<f64, N, N>,
}

impl<const N: usize> Default for DynamicsJacobian<N> {
    fn default() -> Self {
        Self {
            p: SVector::zeros(),
            f: SVector::zeros(),
            lvv: SMatrix::zeros(),
            lvq: SMatrix::zeros(),
            lqq: SMatrix::zeros(),
        }
    }
}

/// Holonomic constraints and their derivatives at one point `(t, q)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ConstraintJacobian<const N: usize, const M: usize> {
    /// `g(t, q)`.
    pub g: SVector<f64, M>,
    /// `G = ∂g/∂q` (M × N).
    pub gq: SMatrix<f64, M, N>,
    /// `Σ_k μ_k ∇²_qq g_k` for the multiplier vector `μ` passed in (N × N).
    pub hess_mu: SMatrix<f64, N, N>,
}

impl<const N: usize, const M: usize> Default for ConstraintJacobian<N, M> {
    fn default() -> Self {
        Self {
            g: SVector::zeros(),
            gq: SMatrix::zeros(),
            hess_mu: SMatrix::zeros(),
        }
    }
}

/// The hidden (velocity-level) constraint `w = g_t + G v` and its derivatives at `(t, q, v)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VelocityConstraintJacobian<const N: usize, const M: usize> {
    /// `g_t(t, q) + G(t, q) v`.
    pub w: SVector<f64, M>,
    /// `∂w/∂q = g_tq + ∂(G v)/∂q` (M × N).
    pub wq: SMatrix<f64, M, N>,
    /// `∂w/∂v = G` (M × N).
    pub wv: SMatrix<f64, M, N>,
}

impl<const N: usize, const M: usize> Default for VelocityConstraintJacobian<N, M> {
    fn default() -> Self {
        Self {
            w: SVector::zeros(),
            wq: SMatrix::zeros(),
            wv: SMatrix::zeros(),
        }
    }
}

/// A Lagrangian system `L(t, q, v)` with `N` coordinates and `M` holonomic constraints
/// `g(t, q) = 0`, reaction force `-Gᵀλ`.
pub trait Lagrangian<const N: usize, const M: usize>: Model {
    /// `L(t, q, v)`.
    fn lagrangian(&self, t: f64, q: &SVector<f64, N>, v: &SVector<f64, N>) -> f64;

    /// `(∂L/∂v, ∂L/∂q)`: what the step residuals need.
    fn momentum_force(
        &self,
        t: f64,
        q: &SVector<f64, N>,
        v: &SVector<f64, N>,
    ) -> (SVector<f64, N>, SVector<f64, N>);

    /// Momentum, force and all second derivatives of `L`: what Newton's Jacobian needs.
    fn dynamics_jacobian(
        &self,
        t: f64,
        q: &SVector<f64, N>,
        v: &SVector<f64, N>,
    ) -> DynamicsJacobian<N>;

    /// `g(t, q)`.
    fn constraints(&self, t: f64, q: &SVector<f64, N>) -> SVector<f64, M>;

    /// `g`, `G = g_q` and the Hessians contracted with `mu`.
    fn constraint_jacobian(
        &self,
        t: f64,
        q: &SVector<f64, N>,
        mu: &SVector<f64, M>,
    ) -> ConstraintJacobian<N, M>;

    /// `g_t + G v` and its derivatives.
    fn velocity_constraint_jacobian(
        &self,
        t: f64,
        q: &SVector<f64, N>,
        v: &SVector<f64, N>,
    ) -> VelocityConstraintJacobian<N, M>;
}
