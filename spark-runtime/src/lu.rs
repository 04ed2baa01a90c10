//! Dense LU factorisation with partial pivoting on flat row-major slices.
//!
//! The slices come from [`crate::layout`] buffers, so the size is a constant after
//! monomorphisation and the loops have fixed trip counts.

// Index loops mirror the textbook algorithm; iterator forms obscure the row/column roles.
#![allow(clippy::needless_range_loop)]

/// Why a factorisation failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Singular {
    /// The elimination column at which no usable pivot was found.
    pub column: usize,
}

/// Factors the `n × n` row-major matrix `a` in place as `P A = L U` (unit lower `L`).
///
/// `perm[k]` records the row swapped with row `k`. A pivot whose magnitude is below
/// `n · ε · max|a|` (or not finite) is reported as [`Singular`].
pub fn factor(a: &mut [f64], perm: &mut [usize], n: usize) -> Result<(), Singular> {
    debug_assert!(a.len() == n * n && perm.len() == n);
    let mut scale = 0.0f64;
    for x in a.iter() {
        if !x.is_finite() {
            return Err(Singular { column: 0 });
        }
        scale = scale.max(x.abs());
    }
    let tiny = scale * f64::EPSILON * (n as f64);
    for k in 0..n {
        let mut p = k;
        let mut best = a[k * n + k].abs();
        for r in k + 1..n {
            let x = a[r * n + k].abs();
            if x > best {
                best = x;
                p = r;
            }
        }
        if best <= tiny || best == 0.0 {
            return Err(Singular { column: k });
        }
        perm[k] = p;
        if p != k {
            for c in 0..n {
                a.swap(k * n + c, p * n + c);
            }
        }
        let inv = 1.0 / a[k * n + k];
        for r in k + 1..n {
            let l = a[r * n + k] * inv;
            a[r * n + k] = l;
            if l != 0.0 {
                for c in k + 1..n {
                    a[r * n + c] -= l * a[k * n + c];
                }
            }
        }
    }
    Ok(())
}

/// Solves `A x = b` in place (`b` becomes `x`) with the factors from [`factor`].
pub fn solve(lu: &[f64], perm: &[usize], b: &mut [f64], n: usize) {
    debug_assert!(lu.len() == n * n && perm.len() == n && b.len() == n);
    for k in 0..n {
        b.swap(k, perm[k]);
    }
    for r in 0..n {
        let mut s = b[r];
        for c in 0..r {
            s -= lu[r * n + c] * b[c];
        }
        b[r] = s;
    }
    for r in (0..n).rev() {
        let mut s = b[r];
        for c in r + 1..n {
            s -= lu[r * n + c] * b[c];
        }
        b[r] = s / lu[r * n + r];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solves_a_system_needing_pivoting() {
        let a0 = [0.0, 2.0, 1.0, 1.0, 1.0, 0.0, 3.0, 0.0, 1.0];
        let x = [1.0, -2.0, 0.5];
        let mut b = [0.0; 3];
        for r in 0..3 {
            for c in 0..3 {
                b[r] += a0[r * 3 + c] * x[c];
            }
        }
        let mut a = a0;
        let mut perm = [0; 3];
        factor(&mut a, &mut perm, 3).unwrap();
        solve(&a, &perm, &mut b, 3);
        for k in 0..3 {
            assert!((b[k] - x[k]).abs() < 1e-14, "{b:?}");
        }
    }

    #[test]
    fn reports_singular_and_non_finite() {
        let mut a = [1.0, 2.0, 2.0, 4.0];
        let mut perm = [0; 2];
        assert_eq!(factor(&mut a, &mut perm, 2), Err(Singular { column: 1 }));
        let mut a = [1.0, f64::NAN, 2.0, 4.0];
        assert!(factor(&mut a, &mut perm, 2).is_err());
    }
}
