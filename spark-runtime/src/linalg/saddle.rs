//! Saddle-point systems `[[W, Bᵀ], [B, 0]] [x; y] = [f; c]`: least-change projections and
//! consistent accelerations and multipliers.

use nalgebra::{SMatrix, SVector};

use crate::linalg::layout::{flat, flat_square, zero_square, Arr, Cat, Layout, Scalar};
use crate::linalg::lu::{self, Singular};

/// The unknowns `(x, y)`: `N` then `M` scalars.
type Saddle<const N: usize, const M: usize> = Cat<Arr<Scalar, N>, Arr<Scalar, M>>;

/// Solves `[[A, B], [C, 0]] [x; y] = [f; c]` (`A` is `N × N`, `B` is `N × M`, `C` is `M × N`)
/// by a dense LU on the stack.
pub(crate) fn solve_blocks<const N: usize, const M: usize>(
    a: &SMatrix<f64, N, N>,
    b: &SMatrix<f64, N, M>,
    c_block: &SMatrix<f64, M, N>,
    f: &SVector<f64, N>,
    c: &SVector<f64, M>,
) -> Result<(SVector<f64, N>, SVector<f64, M>), Singular> {
    let mut jac = zero_square::<Saddle<N, M>>();
    let mut rhs = <Saddle<N, M> as Layout>::fill(0.0);
    for i in 0..N {
        for k in 0..N {
            jac.0[i].0[k] = a[(i, k)];
        }
        for l in 0..M {
            jac.0[i].1[l] = b[(i, l)];
            jac.1[l].0[i] = c_block[(l, i)];
        }
        rhs.0[i] = f[i];
    }
    for l in 0..M {
        rhs.1[l] = c[l];
    }
    let mut perm = <Saddle<N, M> as Layout>::fill(0usize);
    let n = <Saddle<N, M> as Layout>::LEN;
    {
        let jm = flat_square::<Saddle<N, M>>(&mut jac);
        let p = flat::<Saddle<N, M>, usize>(&mut perm);
        let x = flat::<Saddle<N, M>, f64>(&mut rhs);
        // Inlined: `n = N + M` is a constant here, and these systems are small (a
        // projection's two to four iterations each factor one).
        lu::factor_inline(jm, p, n)?;
        lu::solve_inline(jm, p, x, n);
    }
    Ok((SVector::from(rhs.0), SVector::from(rhs.1)))
}

/// The unknowns `(x, y, z)`: `N`, `M` then `K` scalars.
type Saddle3<const N: usize, const M: usize, const K: usize> =
    Cat<Arr<Scalar, N>, Cat<Arr<Scalar, M>, Arr<Scalar, K>>>;

/// Solves the saddle system with two constraint blocks,
/// `[[W, Bᵀ, Cᵀ], [B, 0, 0], [C, 0, 0]] [x; y; z] = [f; b; c]`, by a dense LU on the stack.
#[allow(clippy::type_complexity)]
pub(crate) fn solve_saddle2<const N: usize, const M: usize, const K: usize>(
    w: &SMatrix<f64, N, N>,
    b_block: &SMatrix<f64, M, N>,
    c_block: &SMatrix<f64, K, N>,
    f: &SVector<f64, N>,
    b: &SVector<f64, M>,
    c: &SVector<f64, K>,
) -> Result<(SVector<f64, N>, SVector<f64, M>, SVector<f64, K>), Singular> {
    let mut jac = zero_square::<Saddle3<N, M, K>>();
    let mut rhs = <Saddle3<N, M, K> as Layout>::fill(0.0);
    for i in 0..N {
        for k in 0..N {
            jac.0[i].0[k] = w[(i, k)];
        }
        for l in 0..M {
            jac.0[i].1 .0[l] = b_block[(l, i)];
            jac.1 .0[l].0[i] = b_block[(l, i)];
        }
        for l in 0..K {
            jac.0[i].1 .1[l] = c_block[(l, i)];
            jac.1 .1[l].0[i] = c_block[(l, i)];
        }
        rhs.0[i] = f[i];
    }
    for l in 0..M {
        rhs.1 .0[l] = b[l];
    }
    for l in 0..K {
        rhs.1 .1[l] = c[l];
    }
    let mut perm = <Saddle3<N, M, K> as Layout>::fill(0usize);
    let n = <Saddle3<N, M, K> as Layout>::LEN;
    {
        let jm = flat_square::<Saddle3<N, M, K>>(&mut jac);
        let p = flat::<Saddle3<N, M, K>, usize>(&mut perm);
        let x = flat::<Saddle3<N, M, K>, f64>(&mut rhs);
        lu::factor(jm, p, n)?;
        lu::solve(jm, p, x, n);
    }
    Ok((
        SVector::from(rhs.0),
        SVector::from(rhs.1 .0),
        SVector::from(rhs.1 .1),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solves_a_saddle_system() {
        let w = SMatrix::<f64, 3, 3>::new(2.0, 0.5, 0.0, 0.5, 1.0, 0.2, 0.0, 0.2, 3.0);
        let b = SMatrix::<f64, 1, 3>::new(1.0, -1.0, 0.5);
        let (f, c) = (
            SVector::<f64, 3>::new(1.0, 2.0, -1.0),
            SVector::<f64, 1>::new(0.3),
        );
        let (x, y) = solve_blocks(&w, &b.transpose(), &b, &f, &c).unwrap();
        assert!((w * x + b.transpose() * y - f).norm() < 1e-14);
        assert!((b * x - c).norm() < 1e-14);
    }
}
