//! The state of a Hamiltonian model: time, coordinates and momenta.

use nalgebra::SVector;

/// Time `t`, coordinates `q` and momenta `p` of a Hamiltonian system with `N` coordinates.
///
/// ```
/// use spark_runtime::hamiltonian::State;
/// let s = State::new(0.0, [1.0, 0.0], [0.0, 0.5]);
/// assert_eq!(s.p[1], 0.5);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct State<const N: usize> {
    /// Time.
    pub t: f64,
    /// Coordinates.
    pub q: SVector<f64, N>,
    /// Momenta `∂L/∂v`.
    pub p: SVector<f64, N>,
}

impl<const N: usize> State<N> {
    /// A state from the time, coordinates and momenta (arrays or `SVector`s).
    ///
    /// ```
    /// use spark_runtime::hamiltonian::State;
    /// let s = State::new(0.0, [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]);
    /// assert_eq!((s.q[0], s.p[1]), (1.0, 1.0));
    /// ```
    pub fn new(t: f64, q: impl Into<SVector<f64, N>>, p: impl Into<SVector<f64, N>>) -> Self {
        Self {
            t,
            q: q.into(),
            p: p.into(),
        }
    }
}
