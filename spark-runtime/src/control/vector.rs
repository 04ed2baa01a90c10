//! A state `(q, v)` as one vector `x = [q; v]` of length `X = 2N`, and the step's Jacobian as
//! the matrices `Φ = ∂x⁺/∂x` (`X × X`) and `Γ = ∂x⁺/∂u` (`X × U`).

use nalgebra::{SMatrix, SVector};

use crate::model::State;
use crate::step::jacobian::StepJacobian;

/// `[q; v]` of `state` (`X = 2N`, checked at compile time).
///
/// ```
/// use spark_runtime::control::vector::{from_vector, to_vector};
/// use spark_runtime::State;
/// let s = State::new(0.5, [1.0, 2.0], [3.0, 4.0]);
/// let x = to_vector::<2, 4>(&s);
/// assert_eq!(x.as_slice(), &[1.0, 2.0, 3.0, 4.0]);
/// assert_eq!(from_vector::<2, 4>(0.5, &x), s);
/// ```
pub fn to_vector<const N: usize, const X: usize>(state: &State<N>) -> SVector<f64, X> {
    const { assert!(X == 2 * N, "a state vector has X = 2N entries") };
    SVector::from_fn(|i, _| if i < N { state.q[i] } else { state.v[i - N] })
}

/// The state at time `t` with `[q; v] = x` (`X = 2N`, checked at compile time).
pub fn from_vector<const N: usize, const X: usize>(t: f64, x: &SVector<f64, X>) -> State<N> {
    const { assert!(X == 2 * N, "a state vector has X = 2N entries") };
    State {
        t,
        q: SVector::from_fn(|i, _| x[i]),
        v: SVector::from_fn(|i, _| x[N + i]),
    }
}

/// `x(a) − x(b)` as one vector of length `X = 2N` (times are ignored).
pub fn difference<const N: usize, const X: usize>(a: &State<N>, b: &State<N>) -> SVector<f64, X> {
    const { assert!(X == 2 * N, "a state vector has X = 2N entries") };
    SVector::from_fn(|i, _| {
        if i < N {
            a.q[i] - b.q[i]
        } else {
            a.v[i - N] - b.v[i - N]
        }
    })
}

/// `state` moved by the vector `dx` (`X = 2N`); the result is not projected.
pub fn displaced<const N: usize, const X: usize>(
    state: &State<N>,
    dx: &SVector<f64, X>,
) -> State<N> {
    const { assert!(X == 2 * N, "a state vector has X = 2N entries") };
    State {
        t: state.t,
        q: SVector::from_fn(|i, _| state.q[i] + dx[i]),
        v: SVector::from_fn(|i, _| state.v[i] + dx[N + i]),
    }
}

impl<const N: usize, const U: usize> StepJacobian<N, U> {
    /// `Φ = ∂[q⁺; v⁺]/∂[q; v]` as one `X × X` matrix (`X = 2N`, checked at compile time).
    ///
    /// ```
    /// use spark_runtime::StepJacobian;
    /// use spark_runtime::nalgebra::SMatrix;
    /// let mut j = StepJacobian::<1, 1> {
    ///     dq_dq: SMatrix::identity(), dq_dv: SMatrix::identity() * 0.1,
    ///     dv_dq: SMatrix::zeros(), dv_dv: SMatrix::identity(),
    ///     dq_du: SMatrix::zeros(), dv_du: SMatrix::identity() * 0.1,
    /// };
    /// let phi: SMatrix<f64, 2, 2> = j.phi();
    /// assert_eq!(phi[(0, 1)], 0.1);
    /// let gamma: SMatrix<f64, 2, 1> = j.gamma();
    /// assert_eq!(gamma[(1, 0)], 0.1);
    /// ```
    pub fn phi<const X: usize>(&self) -> SMatrix<f64, X, X> {
        const { assert!(X == 2 * N, "Φ is 2N × 2N") };
        SMatrix::from_fn(|i, j| match (i < N, j < N) {
            (true, true) => self.dq_dq[(i, j)],
            (true, false) => self.dq_dv[(i, j - N)],
            (false, true) => self.dv_dq[(i - N, j)],
            (false, false) => self.dv_dv[(i - N, j - N)],
        })
    }

    /// `Γ = ∂[q⁺; v⁺]/∂u` as one `X × U` matrix (`X = 2N`, checked at compile time).
    pub fn gamma<const X: usize>(&self) -> SMatrix<f64, X, U> {
        const { assert!(X == 2 * N, "Γ is 2N × U") };
        SMatrix::from_fn(|i, j| {
            if i < N {
                self.dq_du[(i, j)]
            } else {
                self.dv_du[(i - N, j)]
            }
        })
    }
}
