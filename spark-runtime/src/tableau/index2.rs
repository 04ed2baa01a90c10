//! The coefficients of the Lobatto-type methods of paper 002 for index-2 systems.

/// The coefficients of a method of 002's form (2.5): `A` (H1 `a_1j = 0`, H3 `a_sj = b_j`),
/// its symplectic conjugate `Â`, and the common nodes `c` and weights `b = b̂`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Index2Tableau<const S: usize> {
    /// Nodes `c_i` (shared by `A` and `Â`, 002's H*).
    pub c: [f64; S],
    /// Weights `b_j = b̂_j`.
    pub b: [f64; S],
    /// `A` (Lobatto IIIA): positions and the momenta `L_i` on which the constraint is imposed.
    pub a: [[f64; S]; S],
    /// `Â` (Lobatto IIIB): the stage momenta `P_i`.
    pub a_hat: [[f64; S]; S],
}
