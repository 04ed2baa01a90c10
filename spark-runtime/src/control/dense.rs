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

/// The relative tolerance of [`is_symmetric_positive`]: asymmetry and (for semidefinite
/// matrices) negative eigenvalues up to this times `max |a_ij|` count as round-off.
pub const SYMMETRY_TOLERANCE: f64 = 1e-9;

/// Whether `a` is a usable covariance or weight: every entry finite, symmetric to
/// [`SYMMETRY_TOLERANCE`] times `max |a_ij|`, and positive definite (`definite`, a Cholesky
/// factor of its symmetric part exists) or positive semidefinite (one exists after a shift of
/// the diagonal by [`SYMMETRY_TOLERANCE`]). The zero matrix is semidefinite, not definite.
///
/// The factorization is of the symmetrically scaled matrix `D a D`, `D_ii = 1/√|a_ii|` (or the
/// row's largest entry where `a_ii = 0`), which has unit diagonal: so the test is relative to
/// each direction's own scale, and a negative variance next to a huge one (`diag(1e300, −1)`)
/// is refused, where a tolerance relative to `max |a_ij|` would call it round-off and let an
/// indefinite covariance through, to surface only once the huge variance shrinks.
///
/// ```
/// use spark_runtime::control::dense::is_symmetric_positive;
/// use spark_runtime::nalgebra::Matrix2;
/// let psd = Matrix2::new(1.0, -1.0, -1.0, 1.0); // rank one
/// assert!(is_symmetric_positive(&psd, false) && !is_symmetric_positive(&psd, true));
/// assert!(!is_symmetric_positive(&Matrix2::new(1.0, 0.0, 0.0, -1.0), false));
/// assert!(!is_symmetric_positive(&Matrix2::new(1.0, 0.5, 0.0, 1.0), true)); // asymmetric
/// assert!(!is_symmetric_positive(&Matrix2::new(f64::NAN, 0.0, 0.0, 1.0), false));
/// // Scales far apart: each direction is judged on its own.
/// assert!(!is_symmetric_positive(&Matrix2::new(1e300, 0.0, 0.0, -1.0), false));
/// assert!(is_symmetric_positive(&Matrix2::new(1e300, 0.0, 0.0, 1e-300), true));
/// ```
pub fn is_symmetric_positive<const R: usize>(a: &SMatrix<f64, R, R>, definite: bool) -> bool {
    if !a.iter().all(|x| x.is_finite()) {
        return false;
    }
    let scale = a.amax();
    let tol = SYMMETRY_TOLERANCE * scale;
    for i in 0..R {
        for j in 0..i {
            if (a[(i, j)] - a[(j, i)]).abs() > tol {
                return false;
            }
        }
    }
    let mut sym = (a + a.transpose()) * 0.5;
    for i in 0..R {
        let own = sym[(i, i)].abs();
        let row = (0..R).fold(0.0f64, |m, j| m.max(sym[(i, j)].abs()));
        let size = if own > 0.0 { own } else { row };
        if size > 0.0 {
            // Row and column i by 1/√size each: the diagonal entry becomes ±1.
            let d = 1.0 / crate::math::sqrt(size);
            for j in 0..R {
                sym[(i, j)] *= d;
                sym[(j, i)] *= d;
            }
        }
    }
    if definite {
        cholesky(&sym).is_some()
    } else {
        // The smallest normal number keeps the zero matrix's shifted pivots positive.
        let shift = SYMMETRY_TOLERANCE + f64::MIN_POSITIVE;
        cholesky(&(sym + SMatrix::<f64, R, R>::identity() * shift)).is_some()
    }
}

/// Whether the spectral radius of `a` is below 1 (the discrete-time system `z⁺ = a z` is
/// asymptotically stable), certified without eigenvalues: `ρ(a)^p ≤ ‖a^p‖_F` for every power
/// `p`, so a power `a^(2^k)` (by repeated squaring, normalized against overflow, up to
/// `k = 40`) of Frobenius norm below 1 proves `ρ(a) < 1`; when `ρ(a) ≥ 1` no power gets
/// there. Spectral radii within about `1e-11` of 1 (and non-finite matrices) are not
/// certified.
///
/// ```
/// use spark_runtime::control::dense::is_schur_stable;
/// use spark_runtime::nalgebra::Matrix2;
/// // A large transient (the entry 100) but eigenvalues 0.9 and 0.5: stable.
/// assert!(is_schur_stable(&Matrix2::new(0.9, 100.0, 0.0, 0.5)));
/// assert!(!is_schur_stable(&Matrix2::new(1.0, 0.1, 0.0, 1.0))); // a double integrator
/// assert!(!is_schur_stable(&Matrix2::new(0.0, 2.0, -2.0, 0.0))); // |λ| = 2
/// ```
pub fn is_schur_stable<const R: usize>(a: &SMatrix<f64, R, R>) -> bool {
    if !a.iter().all(|x| x.is_finite()) {
        return false;
    }
    // a^(2^k) = e^log_scale · b.
    let mut b = *a;
    let mut log_scale = 0.0f64;
    for _ in 0..=40 {
        let n = b.norm();
        if n == 0.0 {
            return true;
        }
        let ln_n = crate::math::ln(n);
        if log_scale + ln_n < 0.0 {
            return true;
        }
        b /= n;
        b = b * b;
        log_scale = 2.0 * (log_scale + ln_n);
    }
    false
}
