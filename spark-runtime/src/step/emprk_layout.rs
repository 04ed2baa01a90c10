//! The unknowns of the EMPRK step system (`emprk`) and where they sit in its flat vector:
//! `V_1..V_S`, `Ṽ_1..Ṽ_S`, `μ_0..μ_S`, `ν_1..ν_S`.

use crate::linalg::layout::{Arr, Cat, Scalar};

/// Unknowns of the EMPRK solve, in this order: `V_1..V_S`, `Ṽ_1..Ṽ_S` (`Ṽ_S = v1`), `μ_0`,
/// `μ_1..μ_S`, `ν_1..ν_S`. Residual rows use the same blocks: E1, E2', E4, E3, E5'.
pub(crate) type EmprkLayout<const N: usize, const M: usize, const K: usize, const S: usize> = Cat<
    Cat<Arr<Arr<Scalar, N>, S>, Arr<Arr<Scalar, N>, S>>,
    Cat<Cat<Arr<Scalar, M>, Arr<Arr<Scalar, M>, S>>, Arr<Arr<Scalar, K>, S>>,
>;

/// Offsets of the unknown blocks in the flat vector.
pub(crate) struct Offsets<const N: usize, const M: usize, const K: usize, const S: usize>;

impl<const N: usize, const M: usize, const K: usize, const S: usize> Offsets<N, M, K, S> {
    /// `V_i`, `i = 0..S-1` (0-based Gauss index).
    pub(crate) const fn v(i: usize) -> usize {
        i * N
    }
    /// `Ṽ_{i+1}`, `i = 0..S-1` (0-based slot of the Lobatto node `i + 1`).
    pub(crate) const fn vt(i: usize) -> usize {
        (S + i) * N
    }
    /// `μ_j`, `j = 0..S` (Lobatto index).
    pub(crate) const fn mu(j: usize) -> usize {
        2 * S * N + j * M
    }
    /// `ν_j`, `j = 0..S-1` (0-based Gauss index).
    pub(crate) const fn nu(j: usize) -> usize {
        2 * S * N + (S + 1) * M + j * K
    }
}
