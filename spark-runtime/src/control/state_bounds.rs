//! Soft bounds on entries of the state `x = (q, v)` along an NMPC plan ([`StateBounds`]): each
//! a quadratic penalty `½ w dist(x_i, [lo, hi])²` on every node after the first, which the
//! stage QP ([`crate::control::riccati_qp::StageQp`]) treats exactly (its soft rows).
//!
//! Soft rather than hard, as acados' and HPIPM's slacked bounds are: a measured state outside
//! the bounds (a push, a model error) never makes the QP infeasible, and a large weight keeps
//! the plan inside to `O(1/w)`.

use crate::control::error::{require, ControlError};

/// `S` soft bounds `lo_j ≤ x[index_j] ≤ hi_j` with weights `weight_j`, where `x = (q, v)` is
/// the state vector of the costs ([`crate::control::vector::to_vector`]: `index < N` a
/// coordinate, `N ≤ index < 2N` a velocity).
///
/// ```
/// use spark_runtime::control::state_bounds::StateBounds;
/// // The cart of a cart-pole (coordinate 0) within ±0.5 m, its velocity (entry N + 0 = 3)
/// // within ±2 m/s.
/// let b = StateBounds { index: [0, 3], lo: [-0.5, -2.0], hi: [0.5, 2.0], weight: [1e4, 1e2] };
/// assert!(b.check(6).is_ok());
/// assert!(StateBounds { index: [6], ..StateBounds::upper(0, 1.0, 1.0) }.check(6).is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StateBounds<const S: usize> {
    /// The entries of `x` bounded.
    pub index: [usize; S],
    /// Lower ends (`−∞` for none).
    pub lo: [f64; S],
    /// Upper ends (`+∞` for none).
    pub hi: [f64; S],
    /// The penalty weights (`w ≥ 0`; the penalty is `½ w` times the squared distance).
    pub weight: [f64; S],
}

impl StateBounds<0> {
    /// No bounds.
    pub fn none() -> Self {
        Self {
            index: [],
            lo: [],
            hi: [],
            weight: [],
        }
    }
}

impl StateBounds<1> {
    /// One bound `x[index] ≤ hi` of weight `weight`.
    pub fn upper(index: usize, hi: f64, weight: f64) -> Self {
        Self {
            index: [index],
            lo: [f64::NEG_INFINITY],
            hi: [hi],
            weight: [weight],
        }
    }

    /// One bound `lo ≤ x[index]` of weight `weight`.
    pub fn lower(index: usize, lo: f64, weight: f64) -> Self {
        Self {
            index: [index],
            lo: [lo],
            hi: [f64::INFINITY],
            weight: [weight],
        }
    }
}

impl<const S: usize> StateBounds<S> {
    /// `Ok` when every index is below `len` (the length `2N` of the state vector), every
    /// interval has `lo ≤ hi` (no NaN; infinite ends allowed) and every weight is finite and
    /// nonnegative; otherwise [`ControlError::InvalidArgument`] saying which rule fails.
    pub fn check(&self, len: usize) -> Result<(), ControlError> {
        require(
            self.index.iter().all(|i| *i < len),
            "a state bound's index must be below 2N (q then v)",
        )?;
        require(
            self.lo.iter().zip(&self.hi).all(|(l, h)| l <= h),
            "a state bound needs lo ≤ hi (and no NaN)",
        )?;
        require(
            self.weight.iter().all(|w| w.is_finite() && *w >= 0.0),
            "a state bound's weight must be finite and nonnegative",
        )
    }
}
