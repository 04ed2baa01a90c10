//! The contract between a model and the integrators.
//!
//! `spark::mechanics!` implements these traits for the struct it generates. They can also be
//! implemented by hand (the runtime's own tests do), but then every derivative must be right:
//! the Newton iterations rely on them being exact.

use nalgebra::{SMatrix, SVector};

use crate::error::Error;
use crate::integrator::{Method, Options, StepStats};
use crate::state::State;

/// Facts about a model that do not depend on its sizes.
pub trait Model {
    /// Name of the first parameter whose value is not finite, if any.
    fn first_non_finite_parameter(&self) -> Option<&'static str>;
}

/// Momentum, force and their derivatives at one point `(t, q, v)`.
///
/// `p = ∂L/∂v`, `f = ∂L/∂q`; `lvv = ∂²L/∂v²`, `lvq[(a, b)] = ∂²L/∂v_a∂q_b`, `lqq = ∂²L/∂q²`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DynamicsJacobian<const N: usize> {
    /// `∂L/∂v`.
    pub p: SVector<f64, N>,
    /// `∂L/∂q`.
    pub f: SVector<f64, N>,
    /// `∂²L/∂v∂v`.
    pub lvv: SMatrix<f64, N, N>,
    /// `∂²L/∂v_a∂q_b` (row: velocity, column: coordinate).
    pub lvq: SMatrix<f64, N, N>,
    /// `∂²L/∂q∂q`.
    pub lqq: SMatrix<f64, N, N>,
}

impl<const N: usize> Default for DynamicsJacobian<N> {
    fn default() -> Self {
        Self {
            p: SVector::zeros(),
            f: SVector::zeros(),
            lvv: SMatrix::zeros(),
            lvq: SMatrix::zeros(),
            lqq: SMatrix::zeros(),
        }
    }
}

/// Momentum, force, mass matrix and `L_vq v` at one point `(t, q, v)`: what the simplified
/// Newton iteration of a step needs at its start and end ([`DynamicsJacobian`] without `L_qq`,
/// and `L_vq` only applied to `v`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MassForce<const N: usize> {
    /// `∂L/∂v`.
    pub p: SVector<f64, N>,
    /// `∂L/∂q`.
    pub f: SVector<f64, N>,
    /// `∂²L/∂v∂v`.
    pub lvv: SMatrix<f64, N, N>,
    /// `(∂²L/∂v∂q) v`: `Σ_b ∂²L/∂v_a∂q_b v_b`.
    pub lvq_v: SVector<f64, N>,
}

impl<const N: usize> Default for MassForce<N> {
    fn default() -> Self {
        Self {
            p: SVector::zeros(),
            f: SVector::zeros(),
            lvv: SMatrix::zeros(),
            lvq_v: SVector::zeros(),
        }
    }
}

/// `g` and `G = g_q` at one point: what `mechanics!` fills for
/// [`Lagrangian::constraint_gradient`].
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ConstraintGradient<const N: usize, const M: usize> {
    /// `g(t, q)`.
    pub g: SVector<f64, M>,
    /// `G = ∂g/∂q` (M × N).
    pub gq: SMatrix<f64, M, N>,
}

impl<const N: usize, const M: usize> Default for ConstraintGradient<N, M> {
    fn default() -> Self {
        Self {
            g: SVector::zeros(),
            gq: SMatrix::zeros(),
        }
    }
}

/// Holonomic constraints and their derivatives at one point `(t, q)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ConstraintJacobian<const N: usize, const M: usize> {
    /// `g(t, q)`.
    pub g: SVector<f64, M>,
    /// `G = ∂g/∂q` (M × N).
    pub gq: SMatrix<f64, M, N>,
    /// `Σ_k μ_k ∇²_qq g_k` for the multiplier vector `μ` passed in (N × N).
    pub hess_mu: SMatrix<f64, N, N>,
}

impl<const N: usize, const M: usize> Default for ConstraintJacobian<N, M> {
    fn default() -> Self {
        Self {
            g: SVector::zeros(),
            gq: SMatrix::zeros(),
            hess_mu: SMatrix::zeros(),
        }
    }
}

/// The hidden (velocity-level) constraint `w = g_t + G v` and its derivatives at `(t, q, v)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VelocityConstraintJacobian<const N: usize, const M: usize> {
    /// `g_t(t, q) + G(t, q) v`.
    pub w: SVector<f64, M>,
    /// `∂w/∂q = g_tq + ∂(G v)/∂q` (M × N).
    pub wq: SMatrix<f64, M, N>,
    /// `∂w/∂v = G` (M × N).
    pub wv: SMatrix<f64, M, N>,
}

impl<const N: usize, const M: usize> Default for VelocityConstraintJacobian<N, M> {
    fn default() -> Self {
        Self {
            w: SVector::zeros(),
            wq: SMatrix::zeros(),
            wv: SMatrix::zeros(),
        }
    }
}

/// The hidden constraint and what a step needs of its derivatives at `(t, q, v)`
/// ([`VelocityConstraintJacobian`] with `∂w/∂q` only applied to `v`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VelocityConstraint<const N: usize, const M: usize> {
    /// `w = g_t(t, q) + G(t, q) v`.
    pub w: SVector<f64, M>,
    /// `G = ∂g/∂q = ∂w/∂v` (M × N).
    pub gq: SMatrix<f64, M, N>,
    /// `(∂w/∂q) v`.
    pub wq_v: SVector<f64, M>,
}

impl<const N: usize, const M: usize> Default for VelocityConstraint<N, M> {
    fn default() -> Self {
        Self {
            w: SVector::zeros(),
            gq: SMatrix::zeros(),
            wq_v: SVector::zeros(),
        }
    }
}

/// A Lagrangian system `L(t, q, v)` with `N` coordinates and `M` holonomic constraints
/// `g(t, q) = 0`, reaction force `-Gᵀλ`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a model with {N} coordinates",
    label = "the size of this does not match the model `{Self}`",
    note = "a model made by `mechanics!` implements `Lagrangian<N, M>` for exactly one `N`, its \
            number of coordinates (`{Self}::COORDINATES`), and one `M`, its number of \
            holonomic constraints; states and arrays passed with it must have `N` entries",
    note = "a `mechanics!` model with errors of its own implements no trait: fix those first"
)]
pub trait Lagrangian<const N: usize, const M: usize>: Model {
    /// `true` when `∇_v L` is affine in `v` (`L_vv` does not depend on `v`), as for every
    /// Lagrangian `½ vᵀ M(t, q) v + bᵀ v − U`: the end-point equations of a step are then linear
    /// in the unknowns and one Newton step solves them exactly. `mechanics!` decides it
    /// symbolically; `false` (the default) is always safe.
    const QUADRATIC_IN_V: bool = false;

    /// `true` when `∂²L/∂v²` does not depend on `t`, `q` or `v` (point masses in Cartesian
    /// coordinates): a step then factors the mass matrix once, at its start, and uses it for the
    /// end point too without evaluating it there. `mechanics!` decides it symbolically; `false`
    /// (the default) is always safe.
    const CONSTANT_MASS: bool = false;

    /// `L(t, q, v)`.
    fn lagrangian(&self, t: f64, q: &SVector<f64, N>, v: &SVector<f64, N>) -> f64;

    /// `(∂L/∂v, ∂L/∂q)`: what the step residuals need.
    fn momentum_force(
        &self,
        t: f64,
        q: &SVector<f64, N>,
        v: &SVector<f64, N>,
    ) -> (SVector<f64, N>, SVector<f64, N>);

    /// Momentum, force and all second derivatives of `L`: what Newton's Jacobian needs.
    fn dynamics_jacobian(
        &self,
        t: f64,
        q: &SVector<f64, N>,
        v: &SVector<f64, N>,
    ) -> DynamicsJacobian<N>;

    /// Momentum, force, mass matrix and `L_vq v`: what the simplified Newton iteration needs
    /// ([`Lagrangian::dynamics_jacobian`] without `L_qq`). `mechanics!` emits a version that
    /// computes only these.
    fn mass_force(&self, t: f64, q: &SVector<f64, N>, v: &SVector<f64, N>) -> MassForce<N> {
        let d = self.dynamics_jacobian(t, q, v);
        MassForce {
            p: d.p,
            f: d.f,
            lvv: d.lvv,
            lvq_v: d.lvq * v,
        }
    }

    /// `g(t, q)`.
    fn constraints(&self, t: f64, q: &SVector<f64, N>) -> SVector<f64, M>;

    /// `g`, `G = g_q` and the Hessians contracted with `mu`.
    fn constraint_jacobian(
        &self,
        t: f64,
        q: &SVector<f64, N>,
        mu: &SVector<f64, M>,
    ) -> ConstraintJacobian<N, M>;

    /// `g` and `G = g_q` only: what the residuals of simplified Newton iterations need
    /// ([`Lagrangian::constraint_jacobian`] without the Hessian term). `mechanics!` emits a
    /// version that skips the second derivatives.
    fn constraint_gradient(
        &self,
        t: f64,
        q: &SVector<f64, N>,
    ) -> (SVector<f64, M>, SMatrix<f64, M, N>) {
        let c = self.constraint_jacobian(t, q, &SVector::zeros());
        (c.g, c.gq)
    }

    /// `g_t + G v` and its derivatives.
    fn velocity_constraint_jacobian(
        &self,
        t: f64,
        q: &SVector<f64, N>,
        v: &SVector<f64, N>,
    ) -> VelocityConstraintJacobian<N, M>;

    /// `w = g_t + G v`, `G` and `(∂w/∂q) v`: what a step needs of the hidden constraint
    /// ([`Lagrangian::velocity_constraint_jacobian`] without the `M × N` block `∂w/∂q`).
    /// `mechanics!` emits a version that computes only these.
    fn velocity_constraint(
        &self,
        t: f64,
        q: &SVector<f64, N>,
        v: &SVector<f64, N>,
    ) -> VelocityConstraint<N, M> {
        let j = self.velocity_constraint_jacobian(t, q, v);
        VelocityConstraint {
            w: j.w,
            gq: j.wv,
            wq_v: j.wq * v,
        }
    }

    /// One step of `Meth`. Models with nonholonomic constraints (see
    /// [`crate::Nonholonomic`]) override it to take them into account; `mechanics!` does so.
    #[doc(hidden)]
    fn step_with<Meth: Method>(
        &self,
        h: f64,
        options: &Options,
        state: &State<N>,
    ) -> Result<(State<N>, StepStats), Error>
    where
        Self: Sized,
    {
        Meth::step(self, h, options, state)
    }

    /// A consistent state near `state` (overridden like `step_with`).
    #[doc(hidden)]
    fn project_with(&self, state: &State<N>) -> Result<State<N>, Error>
    where
        Self: Sized,
    {
        crate::project::project(self, state)
    }

    /// `max |k(t, q, v)|` over the nonholonomic constraints (none by default).
    #[doc(hidden)]
    fn nonholonomic_residual(&self, _t: f64, _q: &SVector<f64, N>, _v: &SVector<f64, N>) -> f64 {
        0.0
    }
}

/// `v`, `p`, `f` of the overdetermined DAE (2.11) and their derivatives at `(t, y, z)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KinematicsJacobian<const N: usize> {
    /// `v(t, y, z)`: `y' = v`.
    pub v: SVector<f64, N>,
    /// `p(t, y, z)`: `(p)' = f + r`.
    pub p: SVector<f64, N>,
    /// `f(t, y, z)`.
    pub f: SVector<f64, N>,
    /// `∂v/∂y`.
    pub v_y: SMatrix<f64, N, N>,
    /// `∂v/∂z`.
    pub v_z: SMatrix<f64, N, N>,
    /// `∂p/∂y`.
    pub p_y: SMatrix<f64, N, N>,
    /// `∂p/∂z`.
    pub p_z: SMatrix<f64, N, N>,
    /// `∂f/∂y`.
    pub f_y: SMatrix<f64, N, N>,
    /// `∂f/∂z`.
    pub f_z: SMatrix<f64, N, N>,
}

impl<const N: usize> Default for KinematicsJacobian<N> {
    fn default() -> Self {
        let z = SMatrix::zeros();
        Self {
            v: SVector::zeros(),
            p: SVector::zeros(),
            f: SVector::zeros(),
            v_y: z,
            v_z: z,
            p_y: z,
            p_z: z,
            f_y: z,
            f_z: z,
        }
    }
}

/// The reaction force `r(t, y, λ)` and its derivatives.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ReactionJacobian<const N: usize, const M: usize> {
    /// `r(t, y, λ)`.
    pub r: SVector<f64, N>,
    /// `∂r/∂y`.
    pub r_y: SMatrix<f64, N, N>,
    /// `∂r/∂λ`.
    pub r_l: SMatrix<f64, N, M>,
}

impl<const N: usize, const M: usize> Default for ReactionJacobian<N, M> {
    fn default() -> Self {
        Self {
            r: SVector::zeros(),
            r_y: SMatrix::zeros(),
            r_l: SMatrix::zeros(),
        }
    }
}

/// The hidden constraint `w = g_t + g_y v(t, y, z)` and its derivatives.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HiddenJacobian<const N: usize, const M: usize> {
    /// `g_t + g_y v`.
    pub w: SVector<f64, M>,
    /// `∂w/∂y`.
    pub w_y: SMatrix<f64, M, N>,
    /// `∂w/∂z`.
    pub w_z: SMatrix<f64, M, N>,
}

impl<const N: usize, const M: usize> Default for HiddenJacobian<N, M> {
    fn default() -> Self {
        Self {
            w: SVector::zeros(),
            w_y: SMatrix::zeros(),
            w_z: SMatrix::zeros(),
        }
    }
}

/// The overdetermined DAE of Jay (2007), (2.11), with explicit time:
/// `y' = v(t, y, z)`, `d/dt p(t, y, z) = f(t, y, z) + r(t, y, λ)`, `0 = g(t, y)`,
/// `0 = g_t + g_y v(t, y, z)`; `N` is the size of `y` and of `z`, `M` the number of constraints.
///
/// Hamiltonian models (`y = q`, `z = p`, `v = H_p`, `p = z`, `f = −H_q`, `r = −Gᵀλ`) and models
/// given directly by `v, p, f, r, g` implement it; `mechanics!` generates the impl.
pub trait Odae<const N: usize, const M: usize>: Model {
    /// `(v, p, f)` at `(t, y, z)`.
    fn kinematics(
        &self,
        t: f64,
        y: &SVector<f64, N>,
        z: &SVector<f64, N>,
    ) -> (SVector<f64, N>, SVector<f64, N>, SVector<f64, N>);

    /// `v, p, f` and their first derivatives.
    fn kinematics_jacobian(
        &self,
        t: f64,
        y: &SVector<f64, N>,
        z: &SVector<f64, N>,
    ) -> KinematicsJacobian<N>;

    /// `r(t, y, λ)` and its first derivatives.
    fn reaction_jacobian(
        &self,
        t: f64,
        y: &SVector<f64, N>,
        lambda: &SVector<f64, M>,
    ) -> ReactionJacobian<N, M>;

    /// `(g(t, y), g_y(t, y))`.
    fn position_constraints(
        &self,
        t: f64,
        y: &SVector<f64, N>,
    ) -> (SVector<f64, M>, SMatrix<f64, M, N>);

    /// The hidden constraint `g_t + g_y v` and its derivatives.
    fn hidden_constraint(
        &self,
        t: f64,
        y: &SVector<f64, N>,
        z: &SVector<f64, N>,
    ) -> HiddenJacobian<N, M>;

    /// A conserved quantity of the exact flow, if the model has one (the Hamiltonian).
    fn energy(&self, _t: f64, _y: &SVector<f64, N>, _z: &SVector<f64, N>) -> Option<f64> {
        None
    }
}
