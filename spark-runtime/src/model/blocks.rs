//! Evaluation blocks: what a model returns at one point, a value with the derivatives a step
//! needs. Plain data (`Default` is all zeros).

use nalgebra::{SMatrix, SVector};

/// `Default` as all zeros (nalgebra's own `Default` needs bounds that const-generic code cannot
/// state).
macro_rules! zero_default {
    ($name:ident<$($c:ident),*> { $($field:ident),* }) => {
        impl<$(const $c: usize),*> Default for $name<$($c),*> {
            fn default() -> Self {
                Self { $($field: SMatrix::zeros()),* }
            }
        }
    };
}

zero_default!(DynamicsJacobian<N> { p, f, lvv, lvq, lqq, fv });
zero_default!(MassForce<N> { p, f, lvv, lvq_v });
zero_default!(ConstraintGradient<N, M> { g, gq });
zero_default!(ConstraintJacobian<N, M> { g, gq, hess_mu });
zero_default!(VelocityConstraintJacobian<N, M> { w, wq, wv });
zero_default!(VelocityConstraint<N, M> { w, gq, wq_v });
zero_default!(NonholonomicJacobian<N, K> { k, kq, kv, hess_vq, hess_vv });
zero_default!(KinematicsJacobian<N> { v, p, f, v_y, v_z, p_y, p_z, f_y, f_z });
zero_default!(ReactionJacobian<N, M> { r, r_y, r_l });
zero_default!(HiddenJacobian<N, M> { w, w_y, w_z });
zero_default!(InputJacobian<N, U> { p_u, f_u, v_u });

/// Momentum, force and their derivatives at one point `(t, q, v)`.
///
/// The equations of motion are `d/dt p = f − Gᵀλ − k_vᵀψ` with the momentum `p = ∂L/∂v` and
/// the generalized force `f = ∂L/∂q + Q`, where `Q(t, q, v, u)` is the non-conservative force
/// (`forces` and `−∂D/∂v` of a `dissipation` in `mechanics!`; zero for a conservative model).
/// `lvv = ∂²L/∂v²`, `lvq[(a, b)] = ∂²L/∂v_a∂q_b`, `lqq = ∂f/∂q`, `fv = ∂Q/∂v`, so that
/// `∂f/∂v = lvqᵀ + fv`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DynamicsJacobian<const N: usize> {
    /// `∂L/∂v`.
    pub p: SVector<f64, N>,
    /// `∂L/∂q + Q`: the generalized force, conservative and not.
    pub f: SVector<f64, N>,
    /// `∂²L/∂v∂v`.
    pub lvv: SMatrix<f64, N, N>,
    /// `∂²L/∂v_a∂q_b` (row: velocity, column: coordinate).
    pub lvq: SMatrix<f64, N, N>,
    /// `∂f/∂q = ∂²L/∂q∂q + ∂Q/∂q` (row: force component, column: coordinate); symmetric when
    /// there is no non-conservative force.
    pub lqq: SMatrix<f64, N, N>,
    /// `∂Q/∂v` (row: force component, column: velocity): the velocity Jacobian of the
    /// non-conservative force, the part of `∂f/∂v` that is not `lvqᵀ`. Zero (the `Default`)
    /// without such forces.
    pub fv: SMatrix<f64, N, N>,
}

/// Momentum, force, mass matrix and `L_vq v` at one point `(t, q, v)`: what the simplified
/// Newton iteration of a step needs at its start and end ([`DynamicsJacobian`] without `L_qq`,
/// and `L_vq` only applied to `v`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MassForce<const N: usize> {
    /// `∂L/∂v`.
    pub p: SVector<f64, N>,
    /// `∂L/∂q + Q`: the generalized force (see [`DynamicsJacobian`]).
    pub f: SVector<f64, N>,
    /// `∂²L/∂v∂v`.
    pub lvv: SMatrix<f64, N, N>,
    /// `(∂²L/∂v∂q) v`: `Σ_b ∂²L/∂v_a∂q_b v_b`.
    pub lvq_v: SVector<f64, N>,
}

/// `g` and `G = g_q` at one point: what `mechanics!` fills for
/// [`crate::Lagrangian::constraint_gradient`].
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ConstraintGradient<const N: usize, const M: usize> {
    /// `g(t, q)`.
    pub g: SVector<f64, M>,
    /// `G = ∂g/∂q` (M × N).
    pub gq: SMatrix<f64, M, N>,
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

/// The hidden constraint and what a step needs of its derivatives at `(t, q, v)`
/// ([`VelocityConstraintJacobian`] with `∂w/∂q` only applied to `v`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VelocityConstraint<const N: usize, const M: usize> {
    /// `w = g_t(t, q) + G(t, q) v`.
    pub w: SVector<f64, M>,
    /// `G = ∂g/∂q = ∂w/∂v` (M × N).
    pub gq: SMatrix<f64, M, N>,
    /// `(∂w/∂q) v`.
    pub wq_v: SVector<f64, M>,
}

/// The nonholonomic constraints and their derivatives at one point `(t, q, v)`, with the
/// second derivatives contracted with a multiplier vector `ψ` (passed to
/// [`crate::Lagrangian::nonholonomic_jacobian`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NonholonomicJacobian<const N: usize, const K: usize> {
    /// `k(t, q, v)` (K entries).
    pub k: SVector<f64, K>,
    /// `k_q = ∂k/∂q` (K × N): `kq[(l, b)] = ∂k_l/∂q_b`.
    pub kq: SMatrix<f64, K, N>,
    /// `k_v = ∂k/∂v` (K × N): `kv[(l, b)] = ∂k_l/∂v_b`. The reaction force is `−k_vᵀ ψ`.
    pub kv: SMatrix<f64, K, N>,
    /// `∂(k_vᵀ ψ)/∂q` (N × N): `hess_vq[(a, b)] = Σ_l ψ_l ∂²k_l/∂v_a∂q_b` (row: velocity index,
    /// column: coordinate). Zero when `k_v` does not depend on `q`.
    pub hess_vq: SMatrix<f64, N, N>,
    /// `∂(k_vᵀ ψ)/∂v` (N × N): `hess_vv[(a, b)] = Σ_l ψ_l ∂²k_l/∂v_a∂v_b`. Zero when `k` is
    /// affine in `v` (every example of the thesis).
    pub hess_vv: SMatrix<f64, N, N>,
}

/// `v`, `p`, `f` of the overdetermined DAE (2.11) and their derivatives at `(t, y, z)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KinematicsJacobian<const N: usize> {
    /// `v(t, y, z)`: `y' = v`.
    pub v: SVector<f64, N>,
    /// `p(t, y, z)`: `(p)' = f + r`.
    pub p: SVector<f64, N>,
    /// `f(t, y, z)`.
    pub f: SVector<f64, N>,
    /// `∂v/∂y`.
    pub v_y: SMatrix<f64, N, N>,
    /// `∂v/∂z`.
    pub v_z: SMatrix<f64, N, N>,
    /// `∂p/∂y`.
    pub p_y: SMatrix<f64, N, N>,
    /// `∂p/∂z`.
    pub p_z: SMatrix<f64, N, N>,
    /// `∂f/∂y`.
    pub f_y: SMatrix<f64, N, N>,
    /// `∂f/∂z`.
    pub f_z: SMatrix<f64, N, N>,
}

/// The reaction force `r(t, y, λ)` and its derivatives.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ReactionJacobian<const N: usize, const M: usize> {
    /// `r(t, y, λ)`.
    pub r: SVector<f64, N>,
    /// `∂r/∂y`.
    pub r_y: SMatrix<f64, N, N>,
    /// `∂r/∂λ`.
    pub r_l: SMatrix<f64, N, M>,
}

/// The hidden constraint `w = g_t + g_y v(t, y, z)` and its derivatives.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HiddenJacobian<const N: usize, const M: usize> {
    /// `g_t + g_y v`.
    pub w: SVector<f64, M>,
    /// `∂w/∂y`.
    pub w_y: SMatrix<f64, M, N>,
    /// `∂w/∂z`.
    pub w_z: SMatrix<f64, M, N>,
}

/// The derivatives of a model's momentum, force and velocity with respect to its `U` inputs at
/// one point (`(t, q, v)` of a Lagrangian model, `(t, y, z)` of a Hamiltonian or DAE model): what
/// the step's Jacobian with respect to the inputs needs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct InputJacobian<const N: usize, const U: usize> {
    /// `∂p/∂u` (N × U): `p = ∂L/∂v` or the DAE's `p(t, y, z)`.
    pub p_u: SMatrix<f64, N, U>,
    /// `∂f/∂u` (N × U): `f = ∂L/∂q + Q`, `−H_q + Q` or the DAE's `f + Q`.
    pub f_u: SMatrix<f64, N, U>,
    /// `∂v/∂u` (N × U) of the DAE's `y' = v(t, y, z)` (`H_p` for a Hamiltonian); zero for a
    /// Lagrangian model, whose velocities are variables.
    pub v_u: SMatrix<f64, N, U>,
}
