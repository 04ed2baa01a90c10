//! Stage and terminal costs of an optimal-control problem, with the derivatives the backward
//! pass needs, in full state coordinates `x = [q; v]` (the solver reduces them to the tangent
//! space).

use nalgebra::{SMatrix, SVector};

use crate::control::dense::is_symmetric_positive;
use crate::control::error::{require, ControlError};
use crate::control::vector::to_vector;
use crate::model::State;

/// A stage cost `l(x, u)` at one point with its gradient and (Gauss–Newton) Hessian.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StageCost<const X: usize, const U: usize> {
    /// `l`.
    pub value: f64,
    /// `∂l/∂x`.
    pub lx: SVector<f64, X>,
    /// `∂l/∂u`.
    pub lu: SVector<f64, U>,
    /// `∂²l/∂x²` (or a positive semidefinite approximation).
    pub lxx: SMatrix<f64, X, X>,
    /// `∂²l/∂u²` (positive definite where no input bound is active).
    pub luu: SMatrix<f64, U, U>,
    /// `∂²l/∂u∂x`.
    pub lux: SMatrix<f64, U, X>,
}

/// A terminal cost `φ(x)` with its gradient and Hessian.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TerminalCost<const X: usize> {
    /// `φ`.
    pub value: f64,
    /// `∂φ/∂x`.
    pub lx: SVector<f64, X>,
    /// `∂²φ/∂x²`.
    pub lxx: SMatrix<f64, X, X>,
}

/// The costs of a problem over a horizon: `Σ_k l_k(x_k, u_k) + φ(x_H)`. Costs on task-space
/// outputs `y = h(x)` are written with the output's Jacobian `J`: for `½|y − y*|²_W`,
/// `lx = Jᵀ W (y − y*)` and `lxx = Jᵀ W J` (Gauss–Newton).
pub trait Cost<const N: usize, const U: usize, const X: usize> {
    /// The stage cost of interval `k` (`0 ≤ k < H`) at its start state and input.
    fn stage(&self, k: usize, x: &State<N>, u: &SVector<f64, U>) -> StageCost<X, U>;
    /// The terminal cost at the last state.
    fn terminal(&self, x: &State<N>) -> TerminalCost<X>;

    /// Checks the cost's own data (weights, targets) before a solver uses it: every solver
    /// entry point ([`crate::control::ilqr::Ilqr::initialize`], `iterate`, `solve`, `restart`,
    /// [`crate::control::nmpc::Nmpc::control`]) calls it first and returns its error with
    /// nothing changed. The default accepts everything (the solvers still refuse non-finite
    /// values and derivatives where they meet them); [`Quadratic`] checks its matrices and
    /// targets. An error should say what to fix, as [`ControlError::InvalidArgument`] does.
    fn check(&self) -> Result<(), ControlError> {
        Ok(())
    }
}

/// `l = ½ (x − x*)ᵀ Q (x − x*) + ½ (u − u*)ᵀ R (u − u*)`, `φ = ½ (x − x*)ᵀ Q_f (x − x*)`.
///
/// ```
/// use spark_runtime::control::cost::{Cost, Quadratic};
/// use spark_runtime::nalgebra::{SMatrix, SVector};
/// use spark_runtime::State;
/// let c = Quadratic::<2, 1> {
///     q: SMatrix::identity(),
///     r: SMatrix::identity() * 0.1,
///     qf: SMatrix::identity() * 10.0,
///     x_ref: SVector::from([1.0, 0.0]),
///     u_ref: SVector::zeros(),
/// };
/// let s = State::new(0.0, [3.0], [0.0]);
/// assert_eq!(Cost::<1, 1, 2>::stage(&c, 0, &s, &SVector::from([2.0])).value, 2.0 + 0.2);
/// assert_eq!(Cost::<1, 1, 2>::terminal(&c, &s).value, 20.0);
/// assert!(Cost::<1, 1, 2>::check(&c).is_ok());
/// // A NaN weight is refused before any solver runs.
/// let bad = Quadratic::<2, 1> { r: SMatrix::from([[f64::NAN]]), ..c };
/// assert!(Cost::<1, 1, 2>::check(&bad).is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Quadratic<const X: usize, const U: usize> {
    /// `Q` (`X × X`, symmetric positive semidefinite).
    pub q: SMatrix<f64, X, X>,
    /// `R` (`U × U`, symmetric positive definite).
    pub r: SMatrix<f64, U, U>,
    /// `Q_f` (`X × X`).
    pub qf: SMatrix<f64, X, X>,
    /// The state target `x* = [q*; v*]`.
    pub x_ref: SVector<f64, X>,
    /// The input target `u*`.
    pub u_ref: SVector<f64, U>,
}

impl<const X: usize, const U: usize> Quadratic<X, U> {
    /// [`Cost::check`] of a quadratic cost: `Q` and `Q_f` finite, symmetric and positive
    /// semidefinite, `R` finite, symmetric and positive definite (the backward pass needs
    /// `Q_uu ≻ 0` without bounds), the targets `x*` and `u*` finite
    /// ([`is_symmetric_positive`] for the tolerances).
    pub fn check(&self) -> Result<(), ControlError> {
        require(
            is_symmetric_positive(&self.q, false),
            "the state weight Q must be finite, symmetric and positive semidefinite",
        )?;
        require(
            is_symmetric_positive(&self.qf, false),
            "the terminal weight Q_f must be finite, symmetric and positive semidefinite",
        )?;
        require(
            is_symmetric_positive(&self.r, true),
            "the input weight R must be finite, symmetric and positive definite",
        )?;
        require(
            self.x_ref.iter().all(|v| v.is_finite()),
            "the state target x_ref must be finite",
        )?;
        require(
            self.u_ref.iter().all(|v| v.is_finite()),
            "the input target u_ref must be finite",
        )
    }
}

impl<const N: usize, const U: usize, const X: usize> Cost<N, U, X> for Quadratic<X, U> {
    fn check(&self) -> Result<(), ControlError> {
        Quadratic::check(self)
    }

    fn stage(&self, _k: usize, x: &State<N>, u: &SVector<f64, U>) -> StageCost<X, U> {
        let dx = to_vector::<N, X>(x) - self.x_ref;
        let du = u - self.u_ref;
        let (qx, ru) = (self.q * dx, self.r * du);
        StageCost {
            value: 0.5 * (dx.dot(&qx) + du.dot(&ru)),
            lx: qx,
            lu: ru,
            lxx: self.q,
            luu: self.r,
            lux: SMatrix::zeros(),
        }
    }

    fn terminal(&self, x: &State<N>) -> TerminalCost<X> {
        let dx = to_vector::<N, X>(x) - self.x_ref;
        let qx = self.qf * dx;
        TerminalCost {
            value: 0.5 * dx.dot(&qx),
            lx: qx,
            lxx: self.qf,
        }
    }
}

/// Two costs added: `(a, b)` costs `a + b` (for example a [`crate::control::task::TaskSpace`] term and a
/// [`Quadratic`] regularization), each checked.
impl<A, B, const N: usize, const U: usize, const X: usize> Cost<N, U, X> for (A, B)
where
    A: Cost<N, U, X>,
    B: Cost<N, U, X>,
{
    fn stage(&self, k: usize, x: &State<N>, u: &SVector<f64, U>) -> StageCost<X, U> {
        let (a, b) = (self.0.stage(k, x, u), self.1.stage(k, x, u));
        StageCost {
            value: a.value + b.value,
            lx: a.lx + b.lx,
            lu: a.lu + b.lu,
            lxx: a.lxx + b.lxx,
            luu: a.luu + b.luu,
            lux: a.lux + b.lux,
        }
    }

    fn terminal(&self, x: &State<N>) -> TerminalCost<X> {
        let (a, b) = (self.0.terminal(x), self.1.terminal(x));
        TerminalCost {
            value: a.value + b.value,
            lx: a.lx + b.lx,
            lxx: a.lxx + b.lxx,
        }
    }

    fn check(&self) -> Result<(), ControlError> {
        self.0.check()?;
        self.1.check()
    }
}
