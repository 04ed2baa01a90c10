//! The state of a model given directly as the overdetermined DAE (2.11).

use nalgebra::SVector;

/// Time `t`, the variables `y` and `z`, and the multiplier `λ` of a DAE
/// `y' = v(t, y, z)`, `d/dt p(t, y, z) = f(t, y, z) + r(t, y, λ)`, `0 = g(t, y)`.
///
/// `lambda` is the starting guess of the multipliers of the next step and, after a step, the
/// end-point multiplier `Λ_s̃` (an approximation of order `s` to `λ(t)`). When `r` is nonlinear
/// in `λ` the equations can have several multiplier branches: the initial `lambda` selects one.
///
/// ```
/// use spark_runtime::dae::State;
/// let s = State::new(0.0, [1.0, 1.0], [1.0, 1.0], [1.0]);
/// assert_eq!(s.lambda[0], 1.0);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct State<const N: usize, const M: usize> {
    /// Time.
    pub t: f64,
    /// The differential variables `y`.
    pub y: SVector<f64, N>,
    /// The variables `z`.
    pub z: SVector<f64, N>,
    /// The multipliers `λ`.
    pub lambda: SVector<f64, M>,
}

impl<const N: usize, const M: usize> State<N, M> {
    /// A state from the time, `y`, `z` and a multiplier guess (arrays or `SVector`s).
    ///
    /// ```
    /// use spark_runtime::dae::State;
    /// // y, z and one multiplier guess.
    /// let s = State::new(0.0, [1.0, 1.0], [1.0, -1.0], [0.0]);
    /// assert_eq!((s.y[0], s.z[1], s.lambda[0]), (1.0, -1.0, 0.0));
    /// ```
    pub fn new(
        t: f64,
        y: impl Into<SVector<f64, N>>,
        z: impl Into<SVector<f64, N>>,
        lambda: impl Into<SVector<f64, M>>,
    ) -> Self {
        Self {
            t,
            y: y.into(),
            z: z.into(),
            lambda: lambda.into(),
        }
    }
}
