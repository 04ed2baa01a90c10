//! The step-size controller of the adaptive drivers: proportional-integral (PI) control of the
//! scaled error estimate (Gustafsson's, with the gains Hairer and Wanner recommend).

/// Exponents and bounds of the PI controller for an error estimate of local order `k`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PiController {
    /// Local order of the estimate: method order + 1.
    k: f64,
    /// The scaled error of the last accepted step (1 before the first).
    previous: f64,
}

/// Safety factor applied to every proposal.
const SAFETY: f64 = 0.9;
/// Largest growth of the step size from one step to the next.
const MAX_GROWTH: f64 = 5.0;
/// Largest reduction of the step size after a rejection.
const MAX_SHRINK: f64 = 0.2;

impl PiController {
    /// A controller for a method of order `order`.
    pub(crate) fn new(order: usize) -> Self {
        Self {
            k: order as f64 + 1.0,
            previous: 1.0,
        }
    }

    /// The factor for the next step after an accepted step with scaled error `err ≤ 1`:
    /// `0.9 · err^(−0.7/k) · err_prev^(0.4/k)`, between 0.2 and 5.
    pub(crate) fn accepted(&mut self, err: f64) -> f64 {
        let err = err.max(1e-10);
        let factor =
            SAFETY * libm::pow(err, -0.7 / self.k) * libm::pow(self.previous, 0.4 / self.k);
        self.previous = err;
        factor.clamp(MAX_SHRINK, MAX_GROWTH)
    }

    /// The factor for the retry after a rejected step with scaled error `err > 1` (or NaN):
    /// `0.9 · err^(−1/k)`, between 0.2 and 0.9.
    pub(crate) fn rejected(&self, err: f64) -> f64 {
        if err.is_finite() {
            (SAFETY * libm::pow(err, -1.0 / self.k)).clamp(MAX_SHRINK, SAFETY)
        } else {
            MAX_SHRINK
        }
    }
}

#[cfg(test)]
mod tests {
    use super::PiController;

    #[test]
    fn grows_on_small_errors_and_shrinks_on_large_ones() {
        let mut c = PiController::new(4);
        assert!(c.accepted(1e-3) > 1.0);
        assert!(c.accepted(0.9) < 1.0);
        assert_eq!(c.accepted(0.0), 5.0);
        let r = c.rejected(100.0);
        assert!((0.2..0.9).contains(&r));
        assert_eq!(c.rejected(f64::NAN), 0.2);
        assert_eq!(c.rejected(1e30), 0.2);
    }
}
