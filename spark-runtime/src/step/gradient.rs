//! The constraint Jacobian `G = g_q` at one point, as the holonomic step uses it outside its
//! factored matrices: products `G x` and `Gᵀ y` and its row norms. Dense (an `M × N` matrix)
//! or, for models with [`Lagrangian::SPARSE_SADDLE`], the point alone, with the products
//! evaluated by the model's own sparse code ([`Lagrangian::constraint_product`],
//! [`Lagrangian::constraint_reaction`]), so that a
//! large sparse model never forms an `M × N` matrix on the stack.

use core::marker::PhantomData;

use nalgebra::{SMatrix, SVector};

use crate::linalg::vector::row_norm;
use crate::model::Lagrangian;

/// `G` at one point.
pub(crate) trait Gradient<const N: usize, const M: usize> {
    /// `G x`.
    fn mul(&self, x: &SVector<f64, N>) -> SVector<f64, M>;
    /// `Gᵀ y`.
    fn tr_mul(&self, y: &SVector<f64, M>) -> SVector<f64, N>;
    /// The Euclidean norm of row `k`, for every `k`.
    fn row_norms(&self) -> SVector<f64, M>;
    /// `((G − G_from) x, (G − G_from)ᵀ y)`: the change of `G` from another point, applied.
    fn change_products(
        &self,
        from: &Self,
        x: &SVector<f64, N>,
        y: &SVector<f64, M>,
    ) -> (SVector<f64, M>, SVector<f64, N>) {
        (self.mul(x) - from.mul(x), self.tr_mul(y) - from.tr_mul(y))
    }
}

impl<const N: usize, const M: usize> Gradient<N, M> for SMatrix<f64, M, N> {
    fn mul(&self, x: &SVector<f64, N>) -> SVector<f64, M> {
        self * x
    }
    fn tr_mul(&self, y: &SVector<f64, M>) -> SVector<f64, N> {
        SMatrix::tr_mul(self, y)
    }
    fn row_norms(&self) -> SVector<f64, M> {
        SVector::from_fn(|k, _| row_norm(self, k))
    }
    /// The difference matrix once, then its two products.
    fn change_products(
        &self,
        from: &Self,
        x: &SVector<f64, N>,
        y: &SVector<f64, M>,
    ) -> (SVector<f64, M>, SVector<f64, N>) {
        let change = self - from;
        (change * x, change.tr_mul(y))
    }
}

/// `G` at `(t, q)`, evaluated by the model at every product.
pub(crate) struct SparseGradient<'a, Sys, const N: usize, const M: usize, const K: usize> {
    sys: &'a Sys,
    t: f64,
    q: SVector<f64, N>,
    _k: PhantomData<[(); K]>,
}

impl<'a, Sys: Lagrangian<N, M, K>, const N: usize, const M: usize, const K: usize>
    SparseGradient<'a, Sys, N, M, K>
{
    /// `G` at `(t, q)`.
    pub(crate) fn new(sys: &'a Sys, t: f64, q: &SVector<f64, N>) -> Self {
        Self {
            sys,
            t,
            q: *q,
            _k: PhantomData,
        }
    }
}

impl<Sys: Lagrangian<N, M, K>, const N: usize, const M: usize, const K: usize> Gradient<N, M>
    for SparseGradient<'_, Sys, N, M, K>
{
    fn mul(&self, x: &SVector<f64, N>) -> SVector<f64, M> {
        self.sys.constraint_product(self.t, &self.q, x)
    }
    fn tr_mul(&self, y: &SVector<f64, M>) -> SVector<f64, N> {
        self.sys.constraint_reaction(self.t, &self.q, y).1
    }
    fn row_norms(&self) -> SVector<f64, M> {
        self.sys.constraint_row_norms(self.t, &self.q)
    }
}
