//! The state a user steps: time, coordinates and velocities.

use nalgebra::SVector;

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
    pub fn new(t: f64, q: impl Into<SVector<f64, N>>, v: impl Into<SVector<f64, N>>) -> Self {
        Self {
            t,
            q: q.into(),
            v: v.into(),
        }
    }

    /// True when `t`, every coordinate and every velocity are finite.
    pub fn is_finite(&self) -> bool {
        // `x · 0` is NaN exactly when `x` is infinite or NaN; one sum checks every entry.
        let mut sum = self.t * 0.0;
        for k in 0..N {
            sum += self.q[k] * 0.0 + self.v[k] * 0.0;
        }
        sum == 0.0
    }
}
