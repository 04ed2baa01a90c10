//! The state a user steps: time, coordinates and velocities.

use nalgebra::SVector;

use crate::error::Error;
use crate::linalg::vector::all_finite;

/// Time `t`, coordinates `q` and velocities `v` of a system with `N` coordinates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct State<const N: usize> {
    /// Time.
    pub t: f64,
    /// Coordinates.
    pub q: SVector<f64, N>,
    /// Velocities `dq/dt`.
    pub v: SVector<f64, N>,
}

impl<const N: usize> State<N> {
    /// A state from the time, coordinates and velocities (arrays or `SVector`s).
    ///
    /// ```
    /// let s = spark_runtime::State::new(0.0, [1.0, 0.0], [0.0, 0.5]);
    /// assert_eq!(s.q[0], 1.0);
    /// assert_eq!(s.v[1], 0.5);
    /// ```
    ///
    /// ```
    /// use spark_runtime::State;
    /// let s = State::new(0.5, [1.0, 0.0], [0.0, 2.0]);
    /// assert_eq!((s.t, s.q[0], s.v[1]), (0.5, 1.0, 2.0));
    /// ```
    pub fn new(t: f64, q: impl Into<SVector<f64, N>>, v: impl Into<SVector<f64, N>>) -> Self {
        Self {
            t,
            q: q.into(),
            v: v.into(),
        }
    }

    /// True when `t`, every coordinate and every velocity are finite.
    ///
    /// ```
    /// use spark_runtime::State;
    /// assert!(State::new(0.0, [1.0], [0.0]).is_finite());
    /// assert!(!State::new(0.0, [f64::NAN], [0.0]).is_finite());
    /// ```
    pub fn is_finite(&self) -> bool {
        self.t.is_finite() && all_finite(&self.q) && all_finite(&self.v)
    }

    /// `self`, or [`Error::NonFiniteState`] when a step produced a non-finite value.
    pub(crate) fn checked(self) -> Result<Self, Error> {
        if self.is_finite() {
            Ok(self)
        } else {
            Err(Error::NonFiniteState)
        }
    }
}
