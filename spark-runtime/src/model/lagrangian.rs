//! The model contract of a Lagrangian system: sizes and evaluations, nothing about steps.

use nalgebra::{SMatrix, SVector};

use crate::model::blocks::{
    ConstraintJacobian, DynamicsJacobian, MassForce, NonholonomicJacobian, VelocityConstraint,
    VelocityConstraintJacobian,
};
use crate::model::saddle::SaddleStore;
use crate::model::Model;

/// A Lagrangian system `L(t, q, v)` with `N` coordinates, non-conservative generalized forces
/// `Q(t, q, v)` (zero for a conservative model), `M` holonomic constraints `g(t, q) = 0`
/// (reaction force `−Gᵀλ`) and `K` nonholonomic constraints `k(t, q, v) = 0` (reaction force
/// `−k_vᵀψ`; `K = 0` by default):
///
/// ```text
/// q' = v
/// d/dt ∇_v L(t, q, v) = ∇_q L(t, q, v) + Q(t, q, v) − G(t, q)ᵀ λ − k_v(t, q, v)ᵀ ψ
/// 0 = g(t, q),   0 = g_t + G v,   0 = k(t, q, v)
/// ```
///
/// The forces enter the model's evaluations only: `f = ∇_qL + Q` wherever a "force" is
/// returned, `∂Q/∂q` in [`DynamicsJacobian::lqq`] and `∂Q/∂v` in [`DynamicsJacobian::fv`].
/// Inputs and parameters are fields of the model, read by the evaluations.
///
/// The model only says what it is (its sizes are the const parameters) and evaluates; the
/// runtime chooses the step from the sizes (`K = 0`: the two-phase holonomic step, else the
/// coupled mixed step). `mechanics!` implements it; it can be written by hand (the runtime's
/// tests do), but every derivative must then be exact: Newton's method relies on it.
///
/// ```
/// use spark_runtime::nalgebra::{SMatrix, SVector};
/// use spark_runtime::{ConstraintJacobian, DynamicsJacobian, Lagrangian, Model,
///     VelocityConstraintJacobian};
///
/// /// A unit point mass on a unit circle, no gravity: `L = |v|²/2`, `g = |q|² − 1`.
/// struct Ring;
/// impl Model for Ring {
///     fn first_non_finite_parameter(&self) -> Option<&'static str> { None }
/// }
/// type V = SVector<f64, 2>;
/// impl Lagrangian<2, 1> for Ring {
///     fn lagrangian(&self, _t: f64, _q: &V, v: &V) -> f64 { 0.5 * v.dot(v) }
///     fn momentum_force(&self, _t: f64, _q: &V, v: &V) -> (V, V) { (*v, V::zeros()) }
///     fn dynamics_jacobian(&self, _t: f64, _q: &V, v: &V) -> DynamicsJacobian<2> {
///         DynamicsJacobian { p: *v, lvv: SMatrix::identity(), ..Default::default() }
///     }
///     fn constraints(&self, _t: f64, q: &V) -> SVector<f64, 1> {
///         SVector::from([q.dot(q) - 1.0])
///     }
///     fn constraint_jacobian(&self, _t: f64, q: &V, mu: &SVector<f64, 1>)
///         -> ConstraintJacobian<2, 1> {
///         ConstraintJacobian {
///             g: self.constraints(0.0, q),
///             gq: (q * 2.0).transpose(),
///             hess_mu: SMatrix::identity() * (2.0 * mu[0]),
///         }
///     }
///     fn velocity_constraint_jacobian(&self, _t: f64, q: &V, v: &V)
///         -> VelocityConstraintJacobian<2, 1> {
///         VelocityConstraintJacobian {
///             w: SVector::from([2.0 * q.dot(v)]),
///             wq: (v * 2.0).transpose(),
///             wv: (q * 2.0).transpose(),
///         }
///     }
/// }
///
/// use spark_runtime::{GaussLobatto, Integrator, State};
/// let mut sim = Integrator::<Ring, GaussLobatto<2>>::new(Ring, 0.1).unwrap();
/// let mut s = State::new(0.0, [1.0, 0.0], [0.0, 1.0]);
/// for _ in 0..10 {
///     sim.step(&mut s).unwrap();
/// }
/// // On the circle to round-off, and the uniform motion (angle t) to the method's accuracy.
/// assert!((s.q.norm() - 1.0).abs() < 1e-12);
/// let exact = SVector::<f64, 2>::new(1.0f64.cos(), 1.0f64.sin());
/// assert!((s.q - exact).norm() < 1e-6, "{}", (s.q - exact).norm());
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a model with {N} coordinates",
    label = "the size of this does not match the model `{Self}`",
    note = "a model made by `mechanics!` implements `Lagrangian<N, M, K>` for exactly one `N`, \
            its number of coordinates (`{Self}::COORDINATES`), one `M`, its number of \
            holonomic constraints, and one `K`, its number of nonholonomic constraints; states \
            and arrays passed with it must have `N` entries",
    note = "a `mechanics!` model with errors of its own implements no trait: fix those first"
)]
pub trait Lagrangian<const N: usize, const M: usize, const K: usize = 0>: Model {
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

    /// `true` when the model factors the simplified Newton matrix itself, sparsely
    /// ([`Lagrangian::saddle_factor`] and the `saddle_*` solves; see [`crate::model::saddle`]).
    /// `mechanics!` sets it when the mass matrix and the constraint Jacobian are sparse enough
    /// that their factors fit a [`SaddleStore`]; `false` (the default) uses dense factors.
    const SPARSE_SADDLE: bool = false;

    /// `true` when the model's forces turn over within a small change of velocity (dry
    /// friction regularized over `friction_velocity`), so that a step's simplified Newton
    /// iteration, whose matrix holds the mass matrix and the constraints but not the forces'
    /// derivatives, fails where full Newton converges. The holonomic step of such a model
    /// keeps the dense factors and their full-Newton fallback at any size, even when the model
    /// has sparse ones ([`Lagrangian::SPARSE_SADDLE`]), which `acceleration`, `project` and
    /// `multipliers` still use. `mechanics!` sets it for models read from files with dry
    /// friction; `false` (the default) lets large sparse models step without the dense system
    /// (see [`Options::DENSE_NEWTON_LIMIT`]).
    ///
    /// [`Options::DENSE_NEWTON_LIMIT`]: crate::Options::DENSE_NEWTON_LIMIT
    const STIFF_DISSIPATION: bool = false;

    /// `true` when `L_vq = ∂²L/∂v∂q` ([`DynamicsJacobian::lvq`]) is identically zero (a mass
    /// matrix and a `bᵀ v` term free of `q`): the exact Newton matrices of a step and its
    /// Jacobian then skip those blocks. `mechanics!` decides it symbolically; `false` (the
    /// default) is always safe.
    const ZERO_LVQ: bool = false;

    /// `true` when `∂f/∂q` ([`DynamicsJacobian::lqq`]) is identically zero (forces and the
    /// gradient of `L` free of `q`, as for uniform gravity); see [`Lagrangian::ZERO_LVQ`].
    const ZERO_LQQ: bool = false;

    /// `true` when `∂Q/∂v` ([`DynamicsJacobian::fv`]) is identically zero (no velocity-dependent
    /// non-conservative force); see [`Lagrangian::ZERO_LVQ`].
    const ZERO_FV: bool = false;

    /// `true` when the momentum `∂L/∂v`, the hidden constraints `g_t + G v` and the
    /// nonholonomic constraints do not depend on `t` explicitly: their time derivatives, which
    /// [`crate::Integrator::acceleration`] and the multipliers need, are then zero without
    /// evaluating them. `mechanics!` decides it symbolically; `false` (the default) is always
    /// safe.
    const AUTONOMOUS: bool = false;

    /// `L(t, q, v)`.
    fn lagrangian(&self, t: f64, q: &SVector<f64, N>, v: &SVector<f64, N>) -> f64;

    /// `(∂L/∂v, ∂L/∂q + Q)`: momentum and generalized force, what the step residuals need.
    fn momentum_force(
        &self,
        t: f64,
        q: &SVector<f64, N>,
        v: &SVector<f64, N>,
    ) -> (SVector<f64, N>, SVector<f64, N>);

    /// Momentum, force and all their first derivatives: what Newton's Jacobian needs.
    fn dynamics_jacobian(
        &self,
        t: f64,
        q: &SVector<f64, N>,
        v: &SVector<f64, N>,
    ) -> DynamicsJacobian<N>;

    /// Momentum, force, mass matrix and `L_vq v`: what the simplified Newton iteration needs
    /// ([`Lagrangian::dynamics_jacobian`] without `∂f/∂q` and `∂Q/∂v`). `mechanics!` emits a version that
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

    /// `p = ∂L/∂v` alone: [`Lagrangian::momentum_force`] without the force, what the steps'
    /// end points evaluate. `mechanics!` emits a version that computes only `p`.
    fn momentum(&self, t: f64, q: &SVector<f64, N>, v: &SVector<f64, N>) -> SVector<f64, N> {
        self.momentum_force(t, q, v).0
    }

    /// `(∂L/∂v, ∂L/∂q + Q, L_vq v)`: [`Lagrangian::mass_force`] without the mass matrix, what a
    /// step that factors the mass matrix sparsely ([`Lagrangian::SPARSE_SADDLE`]) needs at its
    /// start. `mechanics!` emits a version that computes only these.
    fn momentum_force_lvq_v(
        &self,
        t: f64,
        q: &SVector<f64, N>,
        v: &SVector<f64, N>,
    ) -> (SVector<f64, N>, SVector<f64, N>, SVector<f64, N>) {
        let d = self.mass_force(t, q, v);
        (d.p, d.f, d.lvq_v)
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

    /// `(g, Gᵀ mu)`: the constraints and the reaction directions times `mu`, what the
    /// iterations of the holonomic step evaluate at its stages. `mechanics!` emits a version
    /// that forms no `M × N` matrix for models with [`Lagrangian::SPARSE_SADDLE`].
    fn constraint_reaction(
        &self,
        t: f64,
        q: &SVector<f64, N>,
        mu: &SVector<f64, M>,
    ) -> (SVector<f64, M>, SVector<f64, N>) {
        let (g, gq) = self.constraint_gradient(t, q);
        (g, gq.tr_mul(mu))
    }

    /// `G x` with `G = g_q(t, q)`: what the holonomic step needs of `G` outside its factored
    /// matrices, with `Gᵀ y` from [`Lagrangian::constraint_reaction`]. `mechanics!` emits a
    /// version that forms no `M × N` matrix for models with [`Lagrangian::SPARSE_SADDLE`].
    fn constraint_product(
        &self,
        t: f64,
        q: &SVector<f64, N>,
        x: &SVector<f64, N>,
    ) -> SVector<f64, M> {
        self.constraint_gradient(t, q).1 * x
    }

    /// The Euclidean norms of the rows of `G = g_q(t, q)` (they scale the consistency check).
    /// `mechanics!` emits a version that forms no `M × N` matrix for models with
    /// [`Lagrangian::SPARSE_SADDLE`].
    fn constraint_row_norms(&self, t: f64, q: &SVector<f64, N>) -> SVector<f64, M> {
        let gq = self.constraint_gradient(t, q).1;
        SVector::from_fn(|k, _| crate::math::sqrt(gq.row(k).norm_squared()))
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

    /// `(w, (∂w/∂q) v)` with `w = g_t + G v`: [`Lagrangian::velocity_constraint`] without `G`,
    /// what the holonomic step's iterations need of the hidden constraint. `mechanics!` emits
    /// a version that forms no `M × N` matrix.
    fn hidden_constraint(
        &self,
        t: f64,
        q: &SVector<f64, N>,
        v: &SVector<f64, N>,
    ) -> (SVector<f64, M>, SVector<f64, M>) {
        let h = self.velocity_constraint(t, q, v);
        (h.w, h.wq_v)
    }

    /// `k(t, q, v)`: the `K` nonholonomic constraints (reaction force `−k_vᵀψ`). The default is
    /// for models without them (`K = 0`); a model with `K > 0` that does not provide it fails to
    /// compile where it is stepped.
    fn nonholonomic_constraints(
        &self,
        _t: f64,
        _q: &SVector<f64, N>,
        _v: &SVector<f64, N>,
    ) -> SVector<f64, K> {
        const {
            assert!(
                K == 0,
                "a model with nonholonomic constraints must implement `nonholonomic_constraints`"
            )
        };
        SVector::zeros()
    }

    /// `k`, `k_q`, `k_v` and the second derivatives of `k_vᵀ psi` at `(t, q, v)` (see
    /// [`NonholonomicJacobian`]). The default is for models without nonholonomic constraints
    /// (`K = 0`), like [`Lagrangian::nonholonomic_constraints`].
    fn nonholonomic_jacobian(
        &self,
        _t: f64,
        _q: &SVector<f64, N>,
        _v: &SVector<f64, N>,
        _psi: &SVector<f64, K>,
    ) -> NonholonomicJacobian<N, K> {
        const {
            assert!(
                K == 0,
                "a model with nonholonomic constraints must implement `nonholonomic_jacobian`"
            )
        };
        NonholonomicJacobian::default()
    }

    /// `(k, k_vᵀ psi)` at `(t, q, v)`: what the iterations of the coupled holonomic +
    /// nonholonomic step evaluate at its stages ([`Lagrangian::nonholonomic_jacobian`] without
    /// `k_q` and the second derivatives). `mechanics!` emits a version that computes only these.
    fn nonholonomic_reaction(
        &self,
        t: f64,
        q: &SVector<f64, N>,
        v: &SVector<f64, N>,
        psi: &SVector<f64, K>,
    ) -> (SVector<f64, K>, SVector<f64, N>) {
        let j = self.nonholonomic_jacobian(t, q, v, psi);
        (j.k, j.kv.tr_mul(psi))
    }

    /// `(k, k_v)` at `(t, q, v)`: the nonholonomic constraints and their velocity Jacobian
    /// (`K × N`), what the coupled step's start needs ([`Lagrangian::nonholonomic_jacobian`]
    /// without `k_q` and the second derivatives). The default forms the rows of `k_v` as the
    /// reactions [`Lagrangian::nonholonomic_reaction`] of the unit multipliers, one evaluation
    /// per row; `mechanics!` emits one body for all of them.
    ///
    /// ```
    /// # use spark_runtime::nalgebra::{SMatrix, SVector};
    /// # use spark_runtime::{ConstraintJacobian, DynamicsJacobian, Lagrangian, Model,
    /// #     NonholonomicJacobian, VelocityConstraintJacobian};
    /// # type V = SVector<f64, 3>;
    /// /// A unit skate in the plane, `q = (x, y, θ)`: no sideways speed,
    /// /// `k = ẋ sin θ − ẏ cos θ`.
    /// struct Skate;
    /// # impl Model for Skate {
    /// #     fn first_non_finite_parameter(&self) -> Option<&'static str> { None }
    /// # }
    /// impl Lagrangian<3, 0, 1> for Skate {
    ///     fn nonholonomic_jacobian(&self, _t: f64, q: &V, v: &V, _psi: &SVector<f64, 1>)
    ///         -> NonholonomicJacobian<3, 1> {
    ///         let (s, c) = q[2].sin_cos();
    ///         NonholonomicJacobian {
    ///             k: SVector::from([v[0] * s - v[1] * c]),
    ///             kv: SMatrix::<f64, 1, 3>::new(s, -c, 0.0),
    ///             ..Default::default() // k_q and the second derivatives, not needed here
    ///         }
    ///     }
    ///     // …
    /// #     fn nonholonomic_constraints(&self, t: f64, q: &V, v: &V) -> SVector<f64, 1> {
    /// #         self.nonholonomic_jacobian(t, q, v, &SVector::zeros()).k
    /// #     }
    /// #     fn lagrangian(&self, _t: f64, _q: &V, v: &V) -> f64 { 0.5 * v.dot(v) }
    /// #     fn momentum_force(&self, _t: f64, _q: &V, v: &V) -> (V, V) { (*v, V::zeros()) }
    /// #     fn dynamics_jacobian(&self, _t: f64, _q: &V, v: &V) -> DynamicsJacobian<3> {
    /// #         DynamicsJacobian { p: *v, lvv: SMatrix::identity(), ..Default::default() }
    /// #     }
    /// #     fn constraints(&self, _t: f64, _q: &V) -> SVector<f64, 0> { SVector::zeros() }
    /// #     fn constraint_jacobian(&self, _t: f64, _q: &V, _mu: &SVector<f64, 0>)
    /// #         -> ConstraintJacobian<3, 0> { Default::default() }
    /// #     fn velocity_constraint_jacobian(&self, _t: f64, _q: &V, _v: &V)
    /// #         -> VelocityConstraintJacobian<3, 0> { Default::default() }
    /// }
    /// let (q, v) = (V::new(0.0, 0.0, 0.5), V::new(1.0, 2.0, 0.0));
    /// let (k, kv) = Skate.nonholonomic_velocity_jacobian(0.0, &q, &v);
    /// assert_eq!(k, Skate.nonholonomic_constraints(0.0, &q, &v));
    /// assert_eq!(kv * v, k); // k is linear in v
    /// ```
    fn nonholonomic_velocity_jacobian(
        &self,
        t: f64,
        q: &SVector<f64, N>,
        v: &SVector<f64, N>,
    ) -> (SVector<f64, K>, SMatrix<f64, K, N>) {
        let mut kv = SMatrix::<f64, K, N>::zeros();
        let mut k0 = SVector::<f64, K>::zeros();
        for l in 0..K {
            let mut unit = SVector::<f64, K>::zeros();
            unit[l] = 1.0;
            let (k, row) = self.nonholonomic_reaction(t, q, v, &unit);
            k0 = k;
            kv.set_row(l, &row.transpose());
        }
        (k0, kv)
    }

    /// `(p, f, k, k_vᵀ nu)` at one point `(t, q, v)`: [`Lagrangian::momentum_force`] and
    /// [`Lagrangian::nonholonomic_reaction`] at once, what the coupled holonomic +
    /// nonholonomic step's iterations evaluate at each stage. `mechanics!` emits one body for
    /// the four, which computes their common subexpressions (the sines and cosines of the
    /// coordinates, the velocities of the bodies) once; the default calls the two methods
    /// (and, without nonholonomic constraints, returns `k = 0`, `k_vᵀ nu = 0`).
    ///
    /// ```
    /// # use spark_runtime::nalgebra::{SMatrix, SVector};
    /// # use spark_runtime::{ConstraintJacobian, DynamicsJacobian, Lagrangian, Model,
    /// #     VelocityConstraintJacobian};
    /// # type V = SVector<f64, 2>;
    /// /// A free unit point mass in the plane, no constraint.
    /// struct Free;
    /// # impl Model for Free {
    /// #     fn first_non_finite_parameter(&self) -> Option<&'static str> { None }
    /// # }
    /// impl Lagrangian<2, 0> for Free {
    ///     fn lagrangian(&self, _t: f64, _q: &V, v: &V) -> f64 { 0.5 * v.dot(v) }
    ///     fn momentum_force(&self, _t: f64, _q: &V, v: &V) -> (V, V) { (*v, V::zeros()) }
    ///     // …
    /// #     fn dynamics_jacobian(&self, _t: f64, _q: &V, v: &V) -> DynamicsJacobian<2> {
    /// #         DynamicsJacobian { p: *v, lvv: SMatrix::identity(), ..Default::default() }
    /// #     }
    /// #     fn constraints(&self, _t: f64, _q: &V) -> SVector<f64, 0> { SVector::zeros() }
    /// #     fn constraint_jacobian(&self, _t: f64, _q: &V, _mu: &SVector<f64, 0>)
    /// #         -> ConstraintJacobian<2, 0> { Default::default() }
    /// #     fn velocity_constraint_jacobian(&self, _t: f64, _q: &V, _v: &V)
    /// #         -> VelocityConstraintJacobian<2, 0> { Default::default() }
    /// }
    /// let (q, v) = (V::new(1.0, 2.0), V::new(3.0, 4.0));
    /// // The default: the separate evaluations, no nonholonomic term.
    /// let (p, f, k, reaction) = Free.stage_terms(0.0, &q, &v, &SVector::zeros());
    /// assert_eq!((p, f), Free.momentum_force(0.0, &q, &v));
    /// assert_eq!((k.len(), reaction), (0, V::zeros()));
    /// ```
    #[allow(clippy::type_complexity)]
    fn stage_terms(
        &self,
        t: f64,
        q: &SVector<f64, N>,
        v: &SVector<f64, N>,
        nu: &SVector<f64, K>,
    ) -> (
        SVector<f64, N>,
        SVector<f64, N>,
        SVector<f64, K>,
        SVector<f64, N>,
    ) {
        let (p, f) = self.momentum_force(t, q, v);
        if K == 0 {
            return (p, f, SVector::zeros(), SVector::zeros());
        }
        let (k, reaction) = self.nonholonomic_reaction(t, q, v, nu);
        (p, f, k, reaction)
    }

    /// `(p, w, k, g, Gᵀ mu)` at one point `(t, q, v)`: the momentum [`Lagrangian::momentum`],
    /// the hidden constraint `w = g_t + G v` ([`Lagrangian::hidden_constraint`]'s first part),
    /// the nonholonomic constraints [`Lagrangian::nonholonomic_constraints`], and the
    /// constraints with the reaction directions times `mu` ([`Lagrangian::constraint_reaction`])
    /// at once: what the coupled step's iterations evaluate at the step's end point, which is
    /// also the last Lobatto node of its tableaux. `mechanics!` emits one body for the five,
    /// sharing their common subexpressions; the default calls the methods.
    ///
    /// ```
    /// # use spark_runtime::nalgebra::{SMatrix, SVector};
    /// # use spark_runtime::{ConstraintJacobian, DynamicsJacobian, Lagrangian, Model,
    /// #     VelocityConstraintJacobian};
    /// # type V = SVector<f64, 2>;
    /// /// A unit point mass on a unit circle (`g = |q|² − 1`, `G = 2 qᵀ`, `w = 2 q·v`).
    /// struct Ring;
    /// # impl Model for Ring {
    /// #     fn first_non_finite_parameter(&self) -> Option<&'static str> { None }
    /// # }
    /// impl Lagrangian<2, 1> for Ring {
    ///     fn momentum_force(&self, _t: f64, _q: &V, v: &V) -> (V, V) { (*v, V::zeros()) }
    ///     fn constraint_jacobian(&self, _t: f64, q: &V, mu: &SVector<f64, 1>)
    ///         -> ConstraintJacobian<2, 1> {
    ///         ConstraintJacobian {
    ///             g: SVector::from([q.dot(q) - 1.0]),
    ///             gq: (q * 2.0).transpose(),
    ///             hess_mu: SMatrix::identity() * (2.0 * mu[0]),
    ///         }
    ///     }
    ///     fn velocity_constraint_jacobian(&self, _t: f64, q: &V, v: &V)
    ///         -> VelocityConstraintJacobian<2, 1> {
    ///         VelocityConstraintJacobian {
    ///             w: SVector::from([2.0 * q.dot(v)]),
    ///             wq: (v * 2.0).transpose(),
    ///             wv: (q * 2.0).transpose(),
    ///         }
    ///     }
    ///     // …
    /// #     fn lagrangian(&self, _t: f64, _q: &V, v: &V) -> f64 { 0.5 * v.dot(v) }
    /// #     fn dynamics_jacobian(&self, _t: f64, _q: &V, v: &V) -> DynamicsJacobian<2> {
    /// #         DynamicsJacobian { p: *v, lvv: SMatrix::identity(), ..Default::default() }
    /// #     }
    /// #     fn constraints(&self, _t: f64, q: &V) -> SVector<f64, 1> {
    /// #         SVector::from([q.dot(q) - 1.0])
    /// #     }
    /// }
    /// let (q, v) = (V::new(1.0, 0.0), V::new(0.5, 2.0));
    /// let (p, w, k, g, reaction) = Ring.end_terms(0.0, &q, &v, &SVector::from([0.25]));
    /// assert_eq!((p, w[0], k.len(), g[0]), (v, 1.0, 0, 0.0));
    /// assert_eq!(reaction, V::new(0.5, 0.0));
    /// ```
    #[allow(clippy::type_complexity)]
    fn end_terms(
        &self,
        t: f64,
        q: &SVector<f64, N>,
        v: &SVector<f64, N>,
        mu: &SVector<f64, M>,
    ) -> (
        SVector<f64, N>,
        SVector<f64, M>,
        SVector<f64, K>,
        SVector<f64, M>,
        SVector<f64, N>,
    ) {
        let p = self.momentum(t, q, v);
        let k = if K == 0 {
            SVector::zeros()
        } else {
            self.nonholonomic_constraints(t, q, v)
        };
        if M == 0 {
            return (p, SVector::zeros(), k, SVector::zeros(), SVector::zeros());
        }
        let w = self.hidden_constraint(t, q, v).0;
        let (g, reaction) = self.constraint_reaction(t, q, mu);
        (p, w, k, g, reaction)
    }

    /// Factors the simplified Newton matrix's blocks into `store`: the mass matrix
    /// `L = ∂²L/∂v²` at `mass_at = (t, q, v)`, the constraint Jacobian `G` at `g_at = (t, q)`,
    /// and the Schur complement `G L⁻¹ Gᵀ`. `false` when a pivot is not positive and finite
    /// (the step then uses its dense factors). Called only when [`Lagrangian::SPARSE_SADDLE`]
    /// is `true`; the default does nothing and returns `false`.
    fn saddle_factor(
        &self,
        _mass_at: (f64, &SVector<f64, N>, &SVector<f64, N>),
        _g_at: (f64, &SVector<f64, N>),
        _store: &mut SaddleStore<N, M>,
    ) -> bool {
        false
    }

    /// Overwrites `x` with `L⁻¹ x` from the factors in `store` ([`Lagrangian::saddle_factor`]).
    fn saddle_mass_solve(&self, _store: &SaddleStore<N, M>, _x: &mut SVector<f64, N>) {}

    /// Overwrites `y` with `(G L⁻¹ Gᵀ)⁻¹ y` from the factors in `store`.
    fn saddle_schur_solve(&self, _store: &SaddleStore<N, M>, _y: &mut SVector<f64, M>) {}

    /// `G x` with the `G` kept in `store`.
    fn saddle_g(&self, _store: &SaddleStore<N, M>, _x: &SVector<f64, N>) -> SVector<f64, M> {
        SVector::zeros()
    }

    /// `Gᵀ y` with the `G` kept in `store`.
    fn saddle_g_tr(&self, _store: &SaddleStore<N, M>, _y: &SVector<f64, M>) -> SVector<f64, N> {
        SVector::zeros()
    }
}
