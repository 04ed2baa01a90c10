//! `Integrator` methods for control: the tangent basis with its dimension from the model, one
//! step with its linearization as matrices (full `Φ`, `Γ` and reduced `A`, `B`), and the
//! continuous-time dynamics `f(x, u)` with their Jacobians for users' own transcriptions.

use nalgebra::{SMatrix, SVector};

use crate::control::vector::{from_vector, to_vector};
use crate::error::Error;
use crate::integrator::Integrator;
use crate::method::Method;
use crate::model::{Dimensions, Model, State};
use crate::step::jacobian::StepJacobian;
use crate::step::multipliers::accelerations;
use crate::step::tangent::TangentBasis;

/// One step's linearization: the full matrices and the reduced ones on the tangent bases at
/// the start (`T0`, given) and at the end (`T1`, aligned with `T0`).
///
/// A small deviation `z0 = T0ᵀ δx0` and input change `δu` give `z1 = T1ᵀ δx1 ≈ A z0 + B δu`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Linearization<const N: usize, const U: usize, const D: usize, const X: usize> {
    /// The step's Jacobian as returned by [`Integrator::step_with_jacobian`].
    pub jacobian: StepJacobian<N, U>,
    /// `Φ = ∂x1/∂x0` (`X × X`).
    pub phi: SMatrix<f64, X, X>,
    /// `Γ = ∂x1/∂u` (`X × U`).
    pub gamma: SMatrix<f64, X, U>,
    /// The tangent basis at the end state, aligned with the start's.
    pub basis: TangentBasis<N, D>,
    /// `A = T1ᵀ Φ T0` (`D × D`).
    pub a: SMatrix<f64, D, D>,
    /// `B = T1ᵀ Γ` (`D × U`).
    pub b: SMatrix<f64, D, U>,
}

/// The continuous-time dynamics at one point: `f(x, u) = [v; a(x, u)]` (`a = q''` from the
/// index-1 saddle system, constraint forces included) and its Jacobians, full and on the
/// tangent space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContinuousDynamics<const U: usize, const D: usize, const X: usize> {
    /// `f(x, u) = [v; q'']`.
    pub f: SVector<f64, X>,
    /// `∂f/∂x` (`X × X`).
    pub f_x: SMatrix<f64, X, X>,
    /// `∂f/∂u` (`X × U`).
    pub f_u: SMatrix<f64, X, U>,
    /// `Tᵀ ∂f/∂x T` (`D × D`) on the basis `T` given.
    pub a: SMatrix<f64, D, D>,
    /// `Tᵀ ∂f/∂u` (`D × U`).
    pub b: SMatrix<f64, D, U>,
}

impl<Sys: Model, Meth: Method> Integrator<Sys, Meth> {
    /// The tangent basis at `state` ([`Integrator::tangent_basis`]) with every size from the
    /// model: no turbofish. A size written wrongly (`TangentBasis<3, 5>` for a model whose
    /// tangent space has dimension 4) is an unsatisfied `Dimensions` bound at that line.
    ///
    /// Errors as [`Integrator::tangent_basis`]: [`Error::NonFiniteState`],
    /// [`Error::NonFiniteParameter`], [`Error::InconsistentState`] off the constraint manifold
    /// (as [`Integrator::acceleration`]; [`Integrator::project`] makes a state consistent),
    /// [`Error::SingularJacobian`], [`Error::StackTooLarge`].
    ///
    /// ```
    /// use spark::{GaussLobatto, Integrator, State};
    ///
    /// spark::mechanics! {
    ///     pub struct Pendulum {
    ///         coordinates: [x, y],
    ///         velocities: [vx, vy],
    ///         lagrangian: 0.5 * (vx.powi(2) + vy.powi(2)) - 9.81 * y,
    ///         holonomic: [x.powi(2) + y.powi(2) - 1.0],
    ///     }
    /// }
    ///
    /// let sim = Integrator::<Pendulum, GaussLobatto<2>>::new(Pendulum::default(), 0.01).unwrap();
    /// let s = State::new(0.0, [0.6, -0.8], [0.8, 0.6]);
    /// let t = sim.tangent(&s).unwrap(); // TangentBasis<2, 2>
    /// assert_eq!(t.q.ncols(), 2);
    /// // Off the circle: refused.
    /// assert!(matches!(
    ///     sim.tangent(&State::new(0.0, [0.7, -0.8], [0.0, 0.0])),
    ///     Err(spark::Error::InconsistentState { .. })
    /// ));
    /// ```
    pub fn tangent<
        const N: usize,
        const M: usize,
        const K: usize,
        const U: usize,
        const D: usize,
        const X: usize,
    >(
        &self,
        state: &State<N>,
    ) -> Result<TangentBasis<N, D>, Error>
    where
        Sys: Dimensions<N, M, K, U, D, X>,
    {
        let () = <Sys as Dimensions<N, M, K, U, D, X>>::CONSISTENT;
        self.tangent_basis::<N, M, K, D>(state)
    }

    /// The tangent basis at `state` nearest to `previous` (a basis at a nearby state, or at the
    /// same state before a projection): continuous along a trajectory
    /// ([`TangentBasis::aligned_with`]).
    pub fn tangent_along<
        const N: usize,
        const M: usize,
        const K: usize,
        const U: usize,
        const D: usize,
        const X: usize,
    >(
        &self,
        state: &State<N>,
        previous: &TangentBasis<N, D>,
    ) -> Result<TangentBasis<N, D>, Error>
    where
        Sys: Dimensions<N, M, K, U, D, X>,
    {
        self.tangent(state)?.aligned_with(previous)
    }

    /// Advances `state` by one step ([`Integrator::step_with_jacobian`]) and returns the step's
    /// linearization: `Φ`, `Γ`, the basis at the new state aligned with `basis` (the basis at
    /// the start state) and the reduced `A = T1ᵀ Φ T0`, `B = T1ᵀ Γ`. On error `state` is
    /// unchanged.
    ///
    /// ```
    /// use spark::{GaussLobatto, Integrator, State};
    ///
    /// spark::mechanics! {
    ///     pub struct Pendulum {
    ///         coordinates: [x, y],
    ///         velocities: [vx, vy],
    ///         inputs: [push],
    ///         lagrangian: 0.5 * (vx.powi(2) + vy.powi(2)) - 9.81 * y,
    ///         forces: [push, 0.0],
    ///         holonomic: [x.powi(2) + y.powi(2) - 1.0],
    ///     }
    /// }
    ///
    /// let mut sim = Integrator::<Pendulum, GaussLobatto<2>>::new(Pendulum::default(), 0.01).unwrap();
    /// let mut s = State::new(0.0, [0.0, -1.0], [0.0, 0.0]);
    /// let t0 = sim.tangent(&s).unwrap();
    /// let lin = sim.linearize(&mut s, &t0).unwrap();
    /// // At the bottom, at rest: A ≈ I + h [[0, 1], [−g, 0]] in (angle, rate) coordinates.
    /// assert!((lin.a.determinant() - 1.0).abs() < 1e-10); // area-preserving
    /// assert!(lin.basis.distance(&t0) < 1e-12); // the state did not move
    /// ```
    pub fn linearize<
        const N: usize,
        const M: usize,
        const K: usize,
        const U: usize,
        const D: usize,
        const X: usize,
    >(
        &mut self,
        state: &mut State<N>,
        basis: &TangentBasis<N, D>,
    ) -> Result<Linearization<N, U, D, X>, Error>
    where
        Sys: Dimensions<N, M, K, U, D, X>,
    {
        let () = <Sys as Dimensions<N, M, K, U, D, X>>::CONSISTENT;
        let mut next = *state;
        let jacobian: StepJacobian<N, U> = self.step_with_jacobian(&mut next)?;
        let basis1 = self.tangent_along(&next, basis)?;
        let phi = jacobian.phi::<X>();
        let gamma = jacobian.gamma::<X>();
        let (t0, t1) = (basis.matrix::<X>(), basis1.matrix::<X>());
        let a = t1.tr_mul(&(phi * t0));
        let b = t1.tr_mul(&gamma);
        *state = next;
        Ok(Linearization {
            jacobian,
            phi,
            gamma,
            basis: basis1,
            a,
            b,
        })
    }

    /// `f(x, u) = [v; q'']` at `state` with the inputs `u`: the acceleration from the index-1
    /// saddle system of the equations of motion and the constraints at acceleration level
    /// ([`Integrator::multipliers`]). The model's inputs are restored afterwards.
    ///
    /// Errors (the model's inputs restored): [`Error::NonFiniteState`],
    /// [`Error::NonFiniteParameter`] (a parameter, or an input of `u`),
    /// [`Error::InconsistentState`] off the constraint manifold (as
    /// [`Integrator::acceleration`]), [`Error::SingularJacobian`] (dependent constraints).
    pub fn dynamics<
        const N: usize,
        const M: usize,
        const K: usize,
        const U: usize,
        const D: usize,
        const X: usize,
    >(
        &mut self,
        state: &State<N>,
        u: &SVector<f64, U>,
    ) -> Result<SVector<f64, X>, Error>
    where
        Sys: Dimensions<N, M, K, U, D, X>,
    {
        self.evaluate_dynamics::<N, M, K, U, D, X>(state, u, true)
    }

    /// [`Integrator::dynamics`], its checks of `state` made only when `check` (the central
    /// differences of [`Integrator::dynamics_jacobian`] evaluate off the manifold).
    pub(crate) fn evaluate_dynamics<
        const N: usize,
        const M: usize,
        const K: usize,
        const U: usize,
        const D: usize,
        const X: usize,
    >(
        &mut self,
        state: &State<N>,
        u: &SVector<f64, U>,
        check: bool,
    ) -> Result<SVector<f64, X>, Error>
    where
        Sys: Dimensions<N, M, K, U, D, X>,
    {
        let () = <Sys as Dimensions<N, M, K, U, D, X>>::CONSISTENT;
        let saved = self.system().inputs();
        self.system_mut().set_inputs(u);
        let checked = if check {
            self.check_on_manifold::<N, M, K>(state)
        } else {
            Ok(())
        };
        let out = checked.and_then(|()| accelerations::<Sys, N, M, K>(self.system(), state));
        self.system_mut().set_inputs(&saved);
        let (a, _) = out?;
        Ok(to_vector::<N, X>(&State {
            t: state.t,
            q: state.v,
            v: a,
        }))
    }

    /// [`Integrator::dynamics`] and its Jacobians by central differences (step
    /// `6e-6 (1 + |x_i|)`, relative accuracy about 1e-10), full and reduced on `basis` (a basis
    /// at `state`): `ẋ ≈ f + f_x δx + f_u δu`, and on the manifold `ż = A z + B δu`. For
    /// collocation and multiple-shooting transcriptions of one's own.
    ///
    /// Errors as [`Integrator::dynamics`] at `state` (which must be on the constraint
    /// manifold; the perturbed points of the differences are not checked), and
    /// [`Error::NonFiniteEvaluation`] when `basis` or a difference is not finite.
    ///
    /// ```
    /// use spark::{GaussLobatto, Integrator, State};
    /// use spark::nalgebra::SVector;
    ///
    /// spark::mechanics! {
    ///     pub struct Pendulum {
    ///         coordinates: [x, y],
    ///         velocities: [vx, vy],
    ///         inputs: [push],
    ///         lagrangian: 0.5 * (vx.powi(2) + vy.powi(2)) - 9.81 * y,
    ///         forces: [push, 0.0],
    ///         holonomic: [x.powi(2) + y.powi(2) - 1.0],
    ///     }
    /// }
    ///
    /// let mut sim = Integrator::<Pendulum, GaussLobatto<2>>::new(Pendulum::default(), 0.01).unwrap();
    /// let s = State::new(0.0, [0.0, -1.0], [0.0, 0.0]);
    /// let t = sim.tangent(&s).unwrap();
    /// let f = sim.dynamics_jacobian(&s, &SVector::from([1.0]), &t).unwrap();
    /// // At the bottom the push accelerates the bob horizontally: ẍ = 1.
    /// assert!((f.f[2] - 1.0).abs() < 1e-12);
    /// // Small oscillations: the reduced A has eigenvalues ±i sqrt(g).
    /// assert!((f.a.determinant() - 9.81).abs() < 1e-6);
    /// ```
    pub fn dynamics_jacobian<
        const N: usize,
        const M: usize,
        const K: usize,
        const U: usize,
        const D: usize,
        const X: usize,
    >(
        &mut self,
        state: &State<N>,
        u: &SVector<f64, U>,
        basis: &TangentBasis<N, D>,
    ) -> Result<ContinuousDynamics<U, D, X>, Error>
    where
        Sys: Dimensions<N, M, K, U, D, X>,
    {
        let f = self.evaluate_dynamics::<N, M, K, U, D, X>(state, u, true)?;
        let x = to_vector::<N, X>(state);
        let mut f_x = SMatrix::<f64, X, X>::zeros();
        for j in 0..X {
            let e = 6e-6 * (1.0 + x[j].abs());
            let (mut xp, mut xm) = (x, x);
            xp[j] += e;
            xm[j] -= e;
            let fp = self.evaluate_dynamics(&from_vector::<N, X>(state.t, &xp), u, false)?;
            let fm = self.evaluate_dynamics(&from_vector::<N, X>(state.t, &xm), u, false)?;
            f_x.set_column(j, &((fp - fm) / (2.0 * e)));
        }
        let f_u = self.input_differences::<N, M, K, U, D, X>(state, u)?;
        let t = basis.matrix::<X>();
        let out = ContinuousDynamics {
            f,
            f_x,
            f_u,
            a: t.tr_mul(&(f_x * t)),
            b: t.tr_mul(&f_u),
        };
        let finite = |m: &[f64]| m.iter().all(|v| v.is_finite());
        let all = [
            out.f_x.as_slice(),
            out.f_u.as_slice(),
            out.a.as_slice(),
            out.b.as_slice(),
        ];
        if !all.into_iter().all(finite) {
            return Err(Error::NonFiniteEvaluation {
                what: "the dynamics' Jacobian (a non-finite basis, or an overflow)",
            });
        }
        Ok(out)
    }

    /// `∂f/∂u` at `state` by central differences (step `6e-6 (1 + |u_j|)`), the perturbed
    /// points unchecked: [`Integrator::dynamics_jacobian`]'s `f_u`, and the static equilibrium's
    /// input sensitivity.
    pub(crate) fn input_differences<
        const N: usize,
        const M: usize,
        const K: usize,
        const U: usize,
        const D: usize,
        const X: usize,
    >(
        &mut self,
        state: &State<N>,
        u: &SVector<f64, U>,
    ) -> Result<SMatrix<f64, X, U>, Error>
    where
        Sys: Dimensions<N, M, K, U, D, X>,
    {
        let mut f_u = SMatrix::<f64, X, U>::zeros();
        for j in 0..U {
            let e = 6e-6 * (1.0 + u[j].abs());
            let (mut up, mut um) = (*u, *u);
            up[j] += e;
            um[j] -= e;
            let fp = self.evaluate_dynamics(state, &up, false)?;
            let fm = self.evaluate_dynamics(state, &um, false)?;
            f_u.set_column(j, &((fp - fm) / (2.0 * e)));
        }
        Ok(f_u)
    }
}
