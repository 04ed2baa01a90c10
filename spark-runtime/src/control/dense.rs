//! Small dense factorizations on stack matrices of any const size: Cholesky, the inverse by
//! Gauss–Jordan with partial pivoting, and the orthogonal polar factor.

// Index loops mirror the textbook algorithms.
#![allow(clippy::needless_range_loop)]

use nalgebra::SMatrix;

/// The lower Cholesky factor `L` of a symmetric matrix `a = L Lᵀ` (only its lower triangle is
/// read); `None` unless every pivot is positive and finite.
///
/// ```
/// use spark_runtime::control::dense::cholesky;
/// use spark_runtime::nalgebra::Matrix2;
/// let l = cholesky(&Matrix2::new(4.0, 2.0, 2.0, 5.0)).unwrap();
/// assert_eq!(l, Matrix2::new(2.0, 0.0, 1.0, 2.0));
/// assert!(cholesky(&Matrix2::new(1.0, 2.0, 2.0, 1.0)).is_none());
/// ```
pub fn cholesky<const R: usize>(a: &SMatrix<f64, R, R>) -> Option<SMatrix<f64, R, R>> {
    let mut l = SMatrix::<f64, R, R>::zeros();
    for j in 0..R {
        let mut d = a[(j, j)];
        for k in 0..j {
            d -= l[(j, k)] * l[(j, k)];
        }
        // NaN fails this test too.
        if !(d > 0.0 && d.is_finite()) {
            return None;
        }
        let d = crate::math::sqrt(d);
        l[(j, j)] = d;
        for i in j + 1..R {
            let mut s = a[(i, j)];
            for k in 0..j {
                s -= l[(i, k)] * l[(j, k)];
            }
            l[(i, j)] = s / d;
        }
    }
    Some(l)
}

/// Solves `L Lᵀ x = b` for every column of `b`, with `l` from [`cholesky`].
pub fn cholesky_solve<const R: usize, const C: usize>(
    l: &SMatrix<f64, R, R>,
    b: &SMatrix<f64, R, C>,
) -> SMatrix<f64, R, C> {
    let mut x = *b;
    for c in 0..C {
        for i in 0..R {
            let mut s = x[(i, c)];
            for k in 0..i {
                s -= l[(i, k)] * x[(k, c)];
            }
            x[(i, c)] = s / l[(i, i)];
        }
        for i in (0..R).rev() {
            let mut s = x[(i, c)];
            for k in i + 1..R {
                s -= l[(k, i)] * x[(k, c)];
            }
            x[(i, c)] = s / l[(i, i)];
        }
    }
    x
}

/// The inverse of `a` by Gauss–Jordan elimination with partial pivoting; `None` when a pivot is
/// below `1e-300` times the largest entry or the result is not finite.
///
/// ```
/// use spark_runtime::control::dense::inverse;
/// use spark_runtime::nalgebra::Matrix2;
/// let a = Matrix2::new(0.0, 2.0, 4.0, 0.0);
/// assert_eq!(inverse(&a).unwrap() * a, Matrix2::identity());
/// assert!(inverse(&Matrix2::new(1.0, 2.0, 2.0, 4.0)).is_none());
/// ```
pub fn inverse<const R: usize>(a: &SMatrix<f64, R, R>) -> Option<SMatrix<f64, R, R>> {
    let mut m = *a;
    let mut inv = SMatrix::<f64, R, R>::identity();
    let scale = m.amax();
    if !(scale.is_finite() && scale > 0.0) {
        return None;
    }
    for c in 0..R {
        let mut p = c;
        for r in c + 1..R {
            if m[(r, c)].abs() > m[(p, c)].abs() {
                p = r;
            }
        }
        let pivot = m[(p, c)];
        if pivot
            .abs()
            .partial_cmp(&(1e-300 * scale))
            .is_none_or(|o| o.is_le())
        {
            return None;
        }
        m.swap_rows(c, p);
        inv.swap_rows(c, p);
        let f = 1.0 / pivot;
        for k in 0..R {
            m[(c, k)] *= f;
            inv[(c, k)] *= f;
        }
        for r in 0..R {
            if r != c {
                let e = m[(r, c)];
                if e != 0.0 {
                    for k in 0..R {
                        m[(r, k)] -= e * m[(c, k)];
                        inv[(r, k)] -= e * inv[(c, k)];
                    }
                }
            }
        }
    }
    inv.iter().all(|x| x.is_finite()).then_some(inv)
}

/// The orthogonal polar factor `Q` of a nonsingular `a = Q S` (`S` symmetric positive
/// definite): the orthogonal matrix nearest to `a`, with `det Q` of the sign of `det a`. Scaled
/// Newton iteration `X ← (ζX + (ζX)⁻ᵀ)/2`, quadratically convergent; `None` when `a` is
/// singular.
///
/// ```
/// use spark_runtime::control::dense::polar;
/// use spark_runtime::nalgebra::Matrix2;
/// let (c, s) = (0.6f64, 0.8f64);
/// let q = polar(&(Matrix2::new(c, -s, s, c) * Matrix2::new(2.0, 0.5, 0.5, 1.0))).unwrap();
/// assert!((q - Matrix2::new(c, -s, s, c)).amax() < 1e-14);
/// ```
pub fn polar<const R: usize>(a: &SMatrix<f64, R, R>) -> Option<SMatrix<f64, R, R>> {
    let mut x = *a;
    for it in 0..60 {
        let inv = inverse(&x)?;
        // Scaling (Higham's Frobenius-norm ζ) for the first iterations, then plain Newton.
        let zeta = if it < 8 {
            crate::math::sqrt(crate::math::sqrt(inv.norm_squared() / x.norm_squared()))
        } else {
            1.0
        };
        let next = (x * zeta + inv.transpose() / zeta) * 0.5;
        let change = (next - x).amax();
        x = next;
        if change <= 1e-15 * x.amax() {
            return Some(x);
        }
    }
    // The iteration converges quadratically; 60 iterations not reaching round-off means `a`
    // was numerically singular.
    let orthogonal = (x.transpose() * x - SMatrix::<f64, R, R>::identity()).amax();
    (orthogonal < 1e-12).then_some(x)
}
