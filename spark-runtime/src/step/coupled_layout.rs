//! The flat layout of the coupled holonomic + nonholonomic step system (`mixed`), which the
//! step, its Jacobian (`jacobian`) and the Jacobian's band ordering (`ordering`) share: where
//! each unknown block and each equation's rows sit.

use crate::linalg::layout::{Arr, Cat, Layout, Scalar};
use crate::tableau::SparkTableau;

/// Unknowns of the monolithic solve: `V_1..V_S`, `v1`, `μ_0`, `μ_1..μ_S`, `ν_1..ν_S` (`K > 0`),
/// or `V_1..V_S`, `μ_0..μ_S`, `v1` (`K = 0`); where each block and each equation's rows sit is
/// [`Offsets`]' business. The layout only counts the lengths.
pub(crate) type MixedLayout<const N: usize, const M: usize, const K: usize, const S: usize> = Cat<
    Cat<Arr<Arr<Scalar, N>, S>, Arr<Scalar, N>>,
    Cat<Cat<Arr<Scalar, M>, Arr<Arr<Scalar, M>, S>>, Arr<Arr<Scalar, K>, S>>,
>;

/// Number of unknowns (and equations) of the mixed step: `(S+1)(N+M) + S·K`.
#[doc(hidden)]
pub fn system_len<const N: usize, const M: usize, const K: usize, const S: usize>() -> usize {
    <MixedLayout<N, M, K, S> as Layout>::LEN
}

/// Offsets of the unknown blocks in the flat vector, and the rows of the equations.
///
/// With nonholonomic constraints (`K > 0`) the unknowns are `V_1..V_S`, `v1`, `μ_0..μ_S`,
/// `ν_1..ν_S`, and the rows E1, E2, E4 (at `μ_0`'s), E3 (at `μ_1..μ_s̃`'s), E5, E6.
///
/// Without them (`K = 0`, the holonomic step, whose Jacobian [`crate::step::jacobian`] builds
/// on this system) the unknowns are `V_1..V_S`, `μ_0..μ_S`, `v1` and the rows E1, E3 (at
/// `μ_0..μ_{s̃−1}`'s), E4 (at `μ_s̃`'s), E2 (at `v1`'s): the stage equations (E1, E3) involve
/// only the stage unknowns (`V_1..V_S`, `μ_0..μ_{s̃−1}`), which come first, so the matrix is
/// block lower triangular as assembled, with a leading block of [`Offsets::stage_len`] rows.
/// (Reordering the first layout into this one after assembly cost 6 % of the 2-link chain's
/// step Jacobian.)
///
/// An unused multiplier slot (`s̃ = S − 1`: `μ_S`) has its identity row at its own column in
/// both layouts.
#[derive(Clone, Copy)]
pub(crate) struct Offsets<const N: usize, const M: usize, const K: usize, const S: usize>;

impl<const N: usize, const M: usize, const K: usize, const S: usize> Offsets<N, M, K, S> {
    /// `V_i`, `i = 0..S-1` (0-based).
    pub(crate) const fn v(i: usize) -> usize {
        i * N
    }
    /// `v1`.
    pub(crate) const V1: usize = if K == 0 { S * N + (S + 1) * M } else { S * N };
    /// `μ_j`, `j = 0..S` (Lobatto index).
    pub(crate) const fn mu(j: usize) -> usize {
        if K == 0 {
            S * N + j * M
        } else {
            (S + 1) * N + j * M
        }
    }
    /// `ν_j`, `j = 0..S-1` (0-based Gauss index).
    pub(crate) const fn nu(j: usize) -> usize {
        (S + 1) * (N + M) + j * K
    }
    /// The first row of E3, `g(Q̃_j)/h` (`j = 1..s̃`); row block `j` is `M` rows further.
    pub(crate) const fn position_row(j: usize) -> usize {
        if K == 0 {
            Self::mu(j)
        } else {
            Self::mu(j + 1)
        }
    }
    /// The first row of E4, the hidden constraint at `t1`, for `s̃ = st`.
    pub(crate) const fn hidden_row(st: usize) -> usize {
        if K == 0 {
            Self::mu(st)
        } else {
            Self::mu(0)
        }
    }
    /// The rows of E3 for `s̃ = st` (with `K > 0`, and the unused slot's identity row after
    /// them), whose rounding [`DenseProblem`] scales as positions over `h`.
    pub(crate) const fn position_rows(st: usize) -> core::ops::Range<usize> {
        if K == 0 {
            Self::position_row(0)..Self::position_row(st)
        } else {
            Self::mu(1)..Self::mu(S + 1)
        }
    }
    /// The number of stage unknowns, `S N + s̃ M` for `s̃ = st`: with `K = 0` the leading
    /// block of the block lower triangular matrix.
    pub(crate) const fn stage_len(st: usize) -> usize {
        S * N + st * M
    }
    /// The velocity unknowns: `V_1..V_S` and `v1`.
    pub(crate) const VELOCITIES: [core::ops::Range<usize>; 2] = [0..S * N, Self::V1..Self::V1 + N];
}

/// `ω_ij = b_j c_j^{i−1}`: the weight of stage `j` in the `i`-th moment of the nonholonomic
/// constraints (E6; 0-based `i = 1..S−1`).
pub(crate) fn moment_weight<const S: usize>(tab: &SparkTableau<S>, i: usize, j: usize) -> f64 {
    tab.b[j] * libm::pow(tab.c[j], (i - 1) as f64)
}
