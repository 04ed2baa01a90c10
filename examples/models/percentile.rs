// The quantiles of measured times, shared by the control examples that print a period's median
// and worst (included with `include!`).

/// The `q`-quantile of `times` (0.5: the median, 1: the largest).
fn percentile(times: &[f64], q: f64) -> f64 {
    let mut sorted = times.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}
