//! Small helpers on fixed-size vectors.

use nalgebra::{SMatrix, SVector};

use crate::math;

/// The Euclidean norm of row `l` of `m`: nalgebra's `norm`, with [`math::sqrt`] (the same
/// bits; `libm`'s `sqrt` behind nalgebra's is slow in AVX builds, see there).
pub(crate) fn row_norm<const R: usize, const C: usize>(m: &SMatrix<f64, R, C>, l: usize) -> f64 {
    math::sqrt(m.row(l).norm_squared())
}

/// `max |x_i|` (0 for an empty vector).
pub(crate) fn max_abs<const K: usize>(x: &SVector<f64, K>) -> f64 {
    x.as_slice().iter().fold(0.0, |m, v| m.max(v.abs()))
}

/// `true` when every entry is finite (one product-sum: `x·0` is `0` unless `x` is NaN or ±∞).
pub(crate) fn all_finite<const K: usize>(x: &SVector<f64, K>) -> bool {
    let mut sum = 0.0;
    for k in 0..K {
        sum += x[k] * 0.0;
    }
    sum == 0.0
}

/// `max_i |a_i − b_i| / (atol + rtol · max(|a_i|, |b_i|))`: the distance of two vectors in
/// units of a mixed relative/absolute tolerance (NaN if any entry is NaN).
pub(crate) fn scaled_distance<const K: usize>(
    a: &SVector<f64, K>,
    b: &SVector<f64, K>,
    rtol: f64,
    atol: f64,
) -> f64 {
    let mut d = 0.0f64;
    for (x, y) in a.iter().zip(b.iter()) {
        let r = (x - y).abs() / (atol + rtol * x.abs().max(y.abs()));
        if r.is_nan() {
            return f64::NAN;
        }
        d = d.max(r);
    }
    d
}
