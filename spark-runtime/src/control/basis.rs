//! Tangent bases as `X × D` matrices (`X = 2N`), and their transport along a trajectory.
//!
//! [`crate::Integrator::tangent_basis`] builds a basis at one state by Gram–Schmidt on the unit
//! vectors; it is orthonormal but not continuous from one state to the next (a column may flip
//! sign or rotate). [`TangentBasis::aligned_with`] turns it into the orthonormal basis of the
//! same tangent space nearest to a previous one (the previous basis projected onto the new
//! space, re-orthonormalized by its polar factor: the least rotation, orientation kept), so
//! that gains `K T ᵀ` and covariances `T P Tᵀ` computed in one basis carry over to the next.

use nalgebra::{SMatrix, SVector};

use crate::control::dense::polar;
use crate::error::{Error, Phase};
use crate::step::tangent::TangentBasis;

impl<const N: usize, const D: usize> TangentBasis<N, D> {
    /// The basis as one `X × D` matrix `T = [q; v]` (`X = 2N`, checked at compile time).
    ///
    /// ```
    /// use spark_runtime::TangentBasis;
    /// use spark_runtime::nalgebra::SMatrix;
    /// let b = TangentBasis::<1, 1> { q: SMatrix::from([[0.6]]), v: SMatrix::from([[0.8]]) };
    /// let t: SMatrix<f64, 2, 1> = b.matrix();
    /// assert_eq!(t.as_slice(), &[0.6, 0.8]);
    /// assert_eq!(TangentBasis::from_matrix(&t), b);
    /// ```
    pub fn matrix<const X: usize>(&self) -> SMatrix<f64, X, D> {
        const { assert!(X == 2 * N, "a tangent basis is 2N × D") };
        SMatrix::from_fn(|i, j| {
            if i < N {
                self.q[(i, j)]
            } else {
                self.v[(i - N, j)]
            }
        })
    }

    /// The basis of an `X × D` matrix `[q; v]` (`X = 2N`).
    pub fn from_matrix<const X: usize>(t: &SMatrix<f64, X, D>) -> Self {
        const { assert!(X == 2 * N, "a tangent basis is 2N × D") };
        Self {
            q: SMatrix::from_fn(|i, j| t[(i, j)]),
            v: SMatrix::from_fn(|i, j| t[(N + i, j)]),
        }
    }

    /// `Tᵀ dx`: the tangent coordinates of a state difference `dx` (`X = 2N`).
    pub fn coordinates<const X: usize>(&self, dx: &SVector<f64, X>) -> SVector<f64, D> {
        self.matrix::<X>().tr_mul(dx)
    }

    /// `T z`: the state difference of tangent coordinates `z` (`X = 2N`).
    pub fn direction<const X: usize>(&self, z: &SVector<f64, D>) -> SVector<f64, X> {
        self.matrix::<X>() * z
    }

    /// `selfᵀ other` (`D × D`): the change of coordinates from the basis `other` to `self`
    /// (exact when both span the same space): `z_self = C z_other`, `P_self = C P Cᵀ`,
    /// `K_self = K Cᵀ`.
    pub fn change_from(&self, other: &Self) -> SMatrix<f64, D, D> {
        self.q.tr_mul(&other.q) + self.v.tr_mul(&other.v)
    }

    /// `max |selfᵀ other − I|`: how far two bases are from being the same (0 for equal bases; 2
    /// when a column flipped sign).
    pub fn distance(&self, other: &Self) -> f64 {
        (self.change_from(other) - SMatrix::<f64, D, D>::identity()).amax()
    }

    /// The orthonormal basis of the space spanned by `self` nearest to `previous` (in the
    /// Frobenius norm): `self · polar(selfᵀ previous)`. Along a trajectory, or across a
    /// projection, it makes the bases continuous: `|T_kᵀ T_{k+1} − I|` is of the order of the
    /// change of the tangent space, not 2.
    ///
    /// Errors with [`Error::SingularJacobian`] when `previous` has a direction orthogonal to
    /// the new space (the spaces are too far apart to carry a basis over).
    ///
    /// ```
    /// use spark_runtime::TangentBasis;
    /// use spark_runtime::nalgebra::SMatrix;
    /// // The same plane, columns swapped and one flipped: aligned, it is the previous basis.
    /// let prev = TangentBasis::<2, 2> { q: SMatrix::identity(), v: SMatrix::zeros() };
    /// let raw = TangentBasis::<2, 2> {
    ///     q: SMatrix::from_row_slice(&[0.0, -1.0, 1.0, 0.0]),
    ///     v: SMatrix::zeros(),
    /// };
    /// assert!(raw.distance(&prev) >= 1.0);
    /// let aligned = raw.aligned_with(&prev).unwrap();
    /// assert!(aligned.distance(&prev) < 1e-15);
    /// ```
    pub fn aligned_with(&self, previous: &Self) -> Result<Self, Error> {
        let c = self.change_from(previous);
        let r = polar(&c).ok_or(Error::SingularJacobian {
            phase: Phase::ProjectVelocity,
        })?;
        Ok(Self {
            q: self.q * r,
            v: self.v * r,
        })
    }
}
