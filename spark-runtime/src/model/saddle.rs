//! Room for a model's own sparse factorization of the simplified Newton matrix of a step.
//!
//! The holonomic step's simplified Newton iteration needs four operations on the blocks of its
//! iteration matrix (see `step::stage_matrix`): `L⁻¹x` with the mass matrix `L = ∂²L/∂v²` at one
//! point, `G x` and `Gᵀy` with the constraint Jacobian `G = g_q` at another, and `S⁻¹y` with the
//! Schur complement `S = G L⁻¹ Gᵀ`. Done densely they cost `O(N³ + M³)` per factorization,
//! `O(N² + M²)` memory and `O(N²)` per solve. A model whose `L` and `G` are sparse (chains,
//! trees: `L` block-diagonal, `G` banded) does better: `mechanics!` finds the sparsity patterns
//! symbolically, orders the eliminations to keep fill low and emits straight-line code for the
//! numeric factorization and the solves, which keep their values in a [`SaddleStore`] of
//! `O(N + M)` numbers. The runtime asks for it when [`Lagrangian::SPARSE_SADDLE`] is `true`.
//!
//! [`Lagrangian::SPARSE_SADDLE`]: crate::Lagrangian::SPARSE_SADDLE

use nalgebra::SMatrix;

/// How many numbers per coordinate and per constraint a [`SaddleStore`] holds: `mechanics!`
/// emits a sparse factorization only when its factors fit. A tree's mass matrix factors in
/// leaf-first order without fill, one number per pair of a coordinate and one of its
/// ancestors, so a floating humanoid needs about as many per coordinate as its deepest branch
/// is long: Talos from `example-robot-data` (51 coordinates, 13 constraints) 737 numbers,
/// unitree_h1 (26, 1) 225, more than this width gives them. A wider store is paid by every
/// sparse model in each of the step's copies (12 instead of 8: 6.8 KiB more stack for a step
/// of the 30-coordinate 3D chain), so the width stays until the store is sized per model.
pub const SADDLE_WIDTH: usize = 8;

/// The numeric values of a sparse factorization of the simplified Newton matrix, laid out by
/// the model that fills it ([`Lagrangian::saddle_factor`](crate::Lagrangian::saddle_factor)):
/// `SADDLE_WIDTH · (N + M)` numbers and an estimate of the Schur complement's condition.
#[derive(Clone, Copy, Debug)]
pub struct SaddleStore<const N: usize, const M: usize> {
    /// The first `SADDLE_WIDTH · N` values (linear, column-major indexing).
    pub n: SMatrix<f64, N, SADDLE_WIDTH>,
    /// The next `SADDLE_WIDTH · M` values.
    pub m: SMatrix<f64, M, SADDLE_WIDTH>,
    /// `max dᵢ / min dᵢ` over the pivots of the Schur complement's `LDLᵀ` factorization: a lower
    /// bound of its condition number (for a symmetric positive definite matrix every pivot lies
    /// between its extreme eigenvalues), which grows like `1/σ_min(G)²` where the constraints
    /// lose rank.
    pub condition: f64,
}

impl<const N: usize, const M: usize> Default for SaddleStore<N, M> {
    fn default() -> Self {
        Self {
            n: SMatrix::zeros(),
            m: SMatrix::zeros(),
            condition: 1.0,
        }
    }
}
