//! An extended Kalman filter on the constraint manifold: the estimate is a consistent state,
//! its covariance lives on the tangent space (`D × D`, in the basis carried with the estimate),
//! the prediction uses the step's exact Jacobian, and the update moves the estimate along the
//! tangent space, projects it back onto the manifold and carries the covariance over to the
//! basis at the projected state.

use nalgebra::{SMatrix, SVector};

use crate::control::dense::{cholesky, cholesky_solve, is_symmetric_positive};
use crate::control::error::{require, ControlError};
use crate::control::vector::displaced;
use crate::integrator::Integrator;
use crate::method::Method;
use crate::model::{Dimensions, Model, State};
use crate::step::tangent::TangentBasis;

/// The filter's estimate: a consistent state, the tangent basis there, and the covariance of
/// the tangent coordinates `z = Tᵀ (x − x̂)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ekf<const N: usize, const D: usize> {
    /// The estimate `x̂`.
    pub state: State<N>,
    /// The basis `T` at `x̂` (carried along, continuous).
    pub basis: TangentBasis<N, D>,
    /// `P` (`D × D`).
    pub covariance: SMatrix<f64, D, D>,
}

impl<const N: usize, const D: usize> Ekf<N, D> {
    /// A filter at `state` (projected onto the manifold) with the covariance `p` on the basis
    /// there.
    ///
    /// Errors: [`ControlError::InvalidArgument`] unless `p` is finite, symmetric and positive
    /// semidefinite ([`is_symmetric_positive`]); the projection's and the basis's errors.
    pub fn new<Sys, Meth, const M: usize, const K: usize, const U: usize, const X: usize>(
        sim: &Integrator<Sys, Meth>,
        state: &State<N>,
        p: &SMatrix<f64, D, D>,
    ) -> Result<Self, ControlError>
    where
        Sys: Model + Dimensions<N, M, K, U, D, X>,
        Meth: Method,
    {
        require(
            is_symmetric_positive(p, false),
            "the initial covariance P of the EKF must be finite, symmetric and positive \
             semidefinite",
        )?;
        let mut s = *state;
        sim.project(&mut s)?;
        Ok(Self {
            state: s,
            basis: sim.tangent(&s)?,
            covariance: *p,
        })
    }

    /// The prediction over one step with the model's current inputs: `x̂ ← step(x̂)`,
    /// `P ← A P Aᵀ + W` with `A = T1ᵀ Φ T0` and `W` the process noise on the new basis. On
    /// error the filter is unchanged (and so is `sim`): [`ControlError::InvalidArgument`]
    /// unless `process_noise` is finite, symmetric and positive semidefinite; the step's
    /// errors; [`ControlError::NonFinite`] when the predicted covariance overflows.
    pub fn predict<Sys, Meth, const M: usize, const K: usize, const U: usize, const X: usize>(
        &mut self,
        sim: &mut Integrator<Sys, Meth>,
        process_noise: &SMatrix<f64, D, D>,
    ) -> Result<(), ControlError>
    where
        Sys: Model + Dimensions<N, M, K, U, D, X>,
        Meth: Method,
    {
        require(
            is_symmetric_positive(process_noise, false),
            "the process noise W of the EKF must be finite, symmetric and positive semidefinite",
        )?;
        let mut x = self.state;
        let lin = sim.linearize(&mut x, &self.basis)?;
        let p = lin.a * self.covariance * lin.a.transpose() + process_noise;
        if !p.iter().all(|v| v.is_finite()) {
            return Err(ControlError::NonFinite {
                what: "the predicted covariance of the EKF",
            });
        }
        self.state = x;
        self.basis = lin.basis;
        self.covariance = (p + p.transpose()) * 0.5;
        Ok(())
    }

    /// The update with a measurement `y` of `h(x)`: `measure(x̂)` returns `h(x̂)` and
    /// `∂h/∂x` (`Y × X`); `r` is the measurement noise. The correction `T K ν` is applied,
    /// the state projected, the covariance (Joseph form) moved to the basis at the projected
    /// state. Returns the innovation `ν`. On error the filter is unchanged:
    /// [`ControlError::InvalidArgument`] unless `r` is finite, symmetric and positive definite,
    /// `y` finite, and `measure` finite at the estimate; [`ControlError::NotPositiveDefinite`]
    /// for a singular innovation covariance; the projection's errors.
    pub fn update<
        Sys,
        Meth,
        const M: usize,
        const K: usize,
        const U: usize,
        const X: usize,
        const Y: usize,
    >(
        &mut self,
        sim: &Integrator<Sys, Meth>,
        y: &SVector<f64, Y>,
        measure: impl Fn(&State<N>) -> (SVector<f64, Y>, SMatrix<f64, Y, X>),
        r: &SMatrix<f64, Y, Y>,
    ) -> Result<SVector<f64, Y>, ControlError>
    where
        Sys: Model + Dimensions<N, M, K, U, D, X>,
        Meth: Method,
    {
        require(
            is_symmetric_positive(r, true),
            "the measurement noise R of the EKF must be finite, symmetric and positive definite",
        )?;
        require(
            y.iter().all(|v| v.is_finite()),
            "the measurement y of the EKF must be finite",
        )?;
        let (predicted, h_x) = measure(&self.state);
        require(
            predicted.iter().chain(h_x.iter()).all(|v| v.is_finite()),
            "the measurement function must return a finite h(x) and ∂h/∂x at the estimate",
        )?;
        let t = self.basis.matrix::<X>();
        let hr = h_x * t;
        let p = self.covariance;
        let s = hr * p * hr.transpose() + r;
        let l = cholesky(&s).ok_or(ControlError::NotPositiveDefinite {
            what: "the innovation covariance H P Hᵀ + R",
        })?;
        // K = P Hrᵀ S⁻¹ = (S⁻¹ Hr P)ᵀ.
        let gain = cholesky_solve(&l, &(hr * p)).transpose();
        let nu = y - predicted;
        let dz = gain * nu;
        let mut x = displaced::<N, X>(&self.state, &(t * dz));
        sim.project(&mut x)?;
        let basis = sim.tangent_along(&x, &self.basis)?;
        let ikh = SMatrix::<f64, D, D>::identity() - gain * hr;
        let p = ikh * p * ikh.transpose() + gain * r * gain.transpose();
        let c = basis.change_from(&self.basis);
        let p = c * p * c.transpose();
        if !p.iter().all(|v| v.is_finite()) {
            return Err(ControlError::NonFinite {
                what: "the updated covariance of the EKF",
            });
        }
        self.state = x;
        self.basis = basis;
        self.covariance = (p + p.transpose()) * 0.5;
        Ok(nu)
    }
}
