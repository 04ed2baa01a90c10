//! Small helpers on fixed-size vectors.

use nalgebra::SVector;

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
