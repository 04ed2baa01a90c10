//! An orthonormal basis of the tangent space of a Lagrangian model's state manifold
//! `{ g(t, q) = 0, g_t + G v = 0, k(t, q, v) = 0 }` at one state.

use nalgebra::{SMatrix, SVector};

use crate::error::{Error, Phase};
use crate::model::{Lagrangian, State};

/// An orthonormal basis (Euclidean in `(q, v)`) of the `D`-dimensional tangent space of the
/// state manifold at a state: column `j` of `q` and of `v` together are the `j`-th tangent
/// vector `(δq, δv)`. `D = 2N − 2M − K`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TangentBasis<const N: usize, const D: usize> {
    /// The coordinate parts `δq` (N × D).
    pub q: SMatrix<f64, N, D>,
    /// The velocity parts `δv` (N × D).
    pub v: SMatrix<f64, N, D>,
}

/// A vector of the state space `(δq, δv)`.
#[derive(Clone, Copy)]
struct Pair<const N: usize>(SVector<f64, N>, SVector<f64, N>);

impl<const N: usize> Pair<N> {
    fn dot(&self, o: &Self) -> f64 {
        self.0.dot(&o.0) + self.1.dot(&o.1)
    }
    fn axpy(&mut self, a: f64, o: &Self) {
        self.0 += o.0 * a;
        self.1 += o.1 * a;
    }
    fn scale(&mut self, a: f64) {
        self.0 *= a;
        self.1 *= a;
    }
    /// Entry `i` of `(δq, δv)`.
    fn entry(&self, i: usize) -> f64 {
        if i < N {
            self.0[i]
        } else {
            self.1[i - N]
        }
    }
    fn unit(i: usize) -> Self {
        let mut p = Self(SVector::zeros(), SVector::zeros());
        if i < N {
            p.0[i] = 1.0;
        } else {
            p.1[i - N] = 1.0;
        }
        p
    }
}

/// Removes from `x` its components along the orthonormal vectors `basis` (twice, for
/// orthogonality to round-off).
fn project_out<const N: usize>(x: &mut Pair<N>, basis: &[Pair<N>]) {
    for _ in 0..2 {
        for b in basis {
            let c = x.dot(b);
            x.axpy(-c, b);
        }
    }
}

/// Makes `x` orthogonal to every vector of `sets` and returns its remaining norm relative to
/// its norm before.
fn orthogonalize<const N: usize>(x: &mut Pair<N>, sets: &[&[Pair<N>]]) -> f64 {
    let norm0 = crate::math::sqrt(x.dot(x));
    for set in sets {
        project_out(x, set);
    }
    if norm0 > 0.0 {
        crate::math::sqrt(x.dot(x)) / norm0
    } else {
        0.0
    }
}

/// Normalizes `x`; `false` when it vanished.
fn normalize<const N: usize>(x: &mut Pair<N>) -> bool {
    let norm = crate::math::sqrt(x.dot(x));
    if norm > 0.0 {
        x.scale(1.0 / norm);
        true
    } else {
        false
    }
}

/// The stack, in bytes, that [`tangent_basis`] is estimated to take for a model with `n`
/// coordinates, `m` holonomic and `k` nonholonomic constraints and a tangent space of dimension
/// `d` (optimized builds): the result (two `n × d` matrices) four times over (it is built in one
/// frame and moved through the `Result`s of the calls above it into the caller's), the `2m + k`
/// orthonormalized gradients of length `2n`, the constraint Jacobians (`2(m + k) n` numbers) and
/// 8 KiB for the frames around them. Calibrated against the painted stack of 3D chains of 10 and
/// 40 masses, which take 0.76 and 0.85 of it (`tests/mechanisms/project_stack.rs`).
pub(crate) const fn stack_estimate(n: usize, m: usize, k: usize, d: usize) -> usize {
    let numbers = 4 * (2 * n * d) + 2 * n * (2 * m + k) + 2 * (m + k) * n;
    8 * numbers + 8192
}

/// The tangent basis at `state` (see [`TangentBasis`]). The constraint gradients are
/// orthonormalized first (dependent ones: [`Error::SingularJacobian`]); then the unit vectors of
/// `(q, v)`, in order, are made orthogonal to them and to each other, and the first `D`
/// independent ones are kept.
pub(crate) fn tangent_basis<Sys, const N: usize, const M: usize, const K: usize, const D: usize>(
    sys: &Sys,
    state: &State<N>,
) -> Result<TangentBasis<N, D>, Error>
where
    Sys: Lagrangian<N, M, K>,
{
    const {
        assert!(
            D + 2 * M + K == 2 * N,
            "the tangent space of the state manifold has dimension D = 2N − 2M − K"
        )
    };
    if !state.is_finite() {
        return Err(Error::NonFiniteState);
    }
    let (t, q, v) = (state.t, state.q, state.v);
    let w = sys.velocity_constraint_jacobian(t, &q, &v);
    let nh = sys.nonholonomic_jacobian(t, &q, &v, &SVector::zeros());
    // The 2M + K constraint gradients, orthonormalized: those of g, of g_t + G v, of k.
    let zero = Pair(SVector::zeros(), SVector::zeros());
    let mut rows_g = [zero; M];
    let mut rows_w = [zero; M];
    let mut rows_k = [zero; K];
    let dependent = Error::SingularJacobian {
        phase: Phase::ProjectVelocity,
    };
    for l in 0..M {
        let mut x = Pair(w.wv.row(l).transpose(), SVector::zeros());
        let kept = orthogonalize(&mut x, &[&rows_g[..l]]);
        if kept < 1e-10 || !normalize(&mut x) {
            return Err(dependent);
        }
        rows_g[l] = x;
    }
    for l in 0..M {
        let mut x = Pair(w.wq.row(l).transpose(), w.wv.row(l).transpose());
        let kept = orthogonalize(&mut x, &[&rows_g, &rows_w[..l]]);
        if kept < 1e-10 || !normalize(&mut x) {
            return Err(dependent);
        }
        rows_w[l] = x;
    }
    for l in 0..K {
        let mut x = Pair(nh.kq.row(l).transpose(), nh.kv.row(l).transpose());
        let kept = orthogonalize(&mut x, &[&rows_g, &rows_w, &rows_k[..l]]);
        if kept < 1e-10 || !normalize(&mut x) {
            return Err(dependent);
        }
        rows_k[l] = x;
    }
    let mut out = TangentBasis {
        q: SMatrix::<f64, N, D>::zeros(),
        v: SMatrix::<f64, N, D>::zeros(),
    };
    let mut found = 0usize;
    for i in 0..2 * N {
        if found == D {
            break;
        }
        // `x = e_i` made orthogonal to the rows, then to the vectors found, by two passes
        // each. The first pass's coefficients are the rows' (and the found vectors') `i`-th
        // entries: `e_i · r`, and `x · b = b_i` after the rows are removed since `b ⊥ rows`
        // (equal to Gram-Schmidt's up to rounding, without the dot products; on the cart-pole
        // the basis took half as long).
        let mut x = Pair::<N>::unit(i);
        for set in [&rows_g[..], &rows_w[..], &rows_k[..]] {
            for r in set {
                x.axpy(-r.entry(i), r);
            }
        }
        for set in [&rows_g[..], &rows_w[..], &rows_k[..]] {
            for r in set {
                let c = x.dot(r);
                x.axpy(-c, r);
            }
        }
        let (bq, bv) = (&out.q, &out.v);
        let entry = |j: usize| if i < N { bq[(i, j)] } else { bv[(i - N, j)] };
        for j in 0..found {
            let c = entry(j);
            x.0.axpy(-c, &bq.column(j), 1.0);
            x.1.axpy(-c, &bv.column(j), 1.0);
        }
        for j in 0..found {
            let c = x.0.dot(&bq.column(j)) + x.1.dot(&bv.column(j));
            x.0.axpy(-c, &bq.column(j), 1.0);
            x.1.axpy(-c, &bv.column(j), 1.0);
        }
        let norm = crate::math::sqrt(x.dot(&x));
        // A unit vector keeps at least 1/sqrt(2N) of its length for some i; 1e-3 is safe.
        if norm > 1e-3 {
            x.scale(1.0 / norm);
            out.q.set_column(found, &x.0);
            out.v.set_column(found, &x.1);
            found += 1;
        }
    }
    if found != D {
        return Err(Error::SingularJacobian {
            phase: Phase::ProjectVelocity,
        });
    }
    Ok(out)
}
