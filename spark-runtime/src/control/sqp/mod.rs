//! Nonlinear MPC by SQP real-time iterations (RTI) over multiple shooting, as acados runs it:
//! one Gauss–Newton SQP iteration per control period, split into a preparation before the
//! measurement arrives and a feedback once it is there.
//!
//! The plan is a multiple-shooting trajectory: node states `x_0 … x_H` on the constraint
//! manifold, each with its tangent basis `T_k`, and inputs `u_0 … u_{H−1}`. Deviations are
//! tangent coordinates `z_k = T_kᵀ δx_k` at each node, so the QP has the minimal dimension `D`.
//!
//! * [`SqpRti::prepare`] applies the last QP step to the plan (`x_k ← project(x_k + T_k z_k)`,
//!   `u_k ← clamp(u_k + v_k)`), moves the horizon on by one interval (warm start by shifting;
//!   the new last node is the shooting end of the last interval), and linearizes every interval
//!   by the integrator's exact step Jacobian: `A_k = T_{k+1}ᵀ Φ_k T_k`, `B_k = T_{k+1}ᵀ Γ_k`,
//!   the defect `c_k = T_{k+1}ᵀ (Φ(x_k, u_k) − x_{k+1})` in the coordinates of node `k + 1`;
//!   the Gauss–Newton Hessian and the gradient of the cost are reduced to the bases
//!   ([`Cost`]). Then the stage QP ([`StageQp`]) runs its backward Riccati recursion for the
//!   warm working set.
//! * [`SqpRti::feedback`] takes the measured state, `z_0 = T_0ᵀ (x − x_0)`, solves the QP (one
//!   forward pass when the working set holds) and returns `clamp(u_0 + v_0)`.
//! * [`SqpRti::control`] is both in one call.
//!
//! A control period never aborts on a numerical failure: when a step, a basis, a cost or the
//! QP fails, the input is the first of the shifted previous plan and the failure is reported
//! in [`SqpStats::fallback`] (as [`crate::control::nmpc::NmpcStats::fallback`]); the next
//! period linearizes the shifted plan again. `Err` is kept for invalid input (bounds, cost, a
//! measured state off the manifold, a feedback without preparation), which changes nothing.

// Stage indices follow the papers' subscripts.
#![allow(clippy::needless_range_loop)]

use nalgebra::{SMatrix, SVector};

use crate::control::cost::Cost;
use crate::control::error::{require, ControlError};
use crate::control::ilqr::{Bounds, Trajectory};
use crate::control::riccati_qp::{QpStats, StageQp};
use crate::control::state_bounds::StateBounds;
use crate::control::vector::{difference, displaced, to_vector};
use crate::integrator::Integrator;
use crate::method::Method;
use crate::model::{Dimensions, Model, State};
use crate::step::jacobian::StepJacobian;
use crate::step::tangent::TangentBasis;

mod merit;
mod settings;

pub use settings::{LineSearch, SqpSettings};

/// What one control period's preparation and feedback did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SqpStats {
    /// Integrator steps with Jacobian (the linearization: `H` per period).
    pub steps: usize,
    /// Active-set iterations of the QP (1 when the warm working set held).
    pub qp_iterations: usize,
    /// Stage factorizations in the feedback (0 when the warm working set held: the
    /// preparation factored it).
    pub factorizations: usize,
    /// Inputs at a bound in the QP's solution.
    pub active: usize,
    /// State bounds ([`SqpRti::with_state_bounds`]) the QP's solution leaves, counted per node.
    pub soft_active: usize,
    /// The cost of the plan at the linearization point (its nodes and inputs), with the
    /// penalties of the state bounds ([`SqpRti::with_state_bounds`]).
    pub cost: f64,
    /// The largest defect `|c_k|` of the plan (0 for a continuous trajectory).
    pub defect: f64,
    /// Nodes whose update could not be projected onto the manifold (kept as they were).
    pub skipped_nodes: usize,
    /// The largest entry of the QP's step `(z_1 … z_H, v_0 … v_{H−1})` of this period's
    /// feedback or [`SqpRti::iterate`] (0 before a solve): with [`SqpStats::defect`], how far
    /// the plan is from a solution of the optimal control problem.
    pub step: f64,
    /// The fraction of the QP's step taken: 1 for a full step (a feedback,
    /// [`SqpRti::iterate`]), the accepted length of [`SqpRti::iterate_with_line_search`]'s
    /// backtracking, 0 when no step was taken.
    pub alpha: f64,
    /// Trial steps the line search evaluated (each a rollout of the `H` intervals without
    /// Jacobian; 0 without a line search).
    pub trials: usize,
    /// `Some(e)` when this period's preparation or QP failed with `e` and the input is the
    /// first of the shifted previous plan; `None` when the SQP iteration ran.
    pub fallback: Option<ControlError>,
}

/// What [`SqpRti::solve`] did, on every path.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SqpSolution {
    /// Whether the step and the defects fell below [`SqpSettings`]' tolerances.
    pub converged: bool,
    /// SQP iterations made.
    pub iterations: usize,
    /// Integrator steps with Jacobian (the linearizations), over all iterations.
    pub steps: usize,
    /// Line-search trials (rollouts without Jacobian), over all iterations.
    pub trials: usize,
    /// The last iteration's statistics: its cost, defect, step, and in
    /// [`SqpStats::fallback`] why the solve stopped early (a failed linearization or QP, or a
    /// line search that found no decrease).
    pub last: SqpStats,
}

/// Where the driver is in its period.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Phase {
    /// No preparation since the last feedback.
    Idle,
    /// The QP is prepared for the plan.
    Prepared,
    /// The preparation failed: the feedback falls back.
    Failed(ControlError),
}

/// The SQP-RTI NMPC driver over multiple shooting (see the module documentation): the plan,
/// its bases, the stage QP and the period's state. About `H (8N + 2ND + 3D² + 4DU + 2U²)`
/// numbers; no call allocates.
///
/// ```
/// use spark::control::cost::Quadratic;
/// use spark::control::ilqr::Bounds;
/// use spark::control::sqp::SqpRti;
/// use spark::nalgebra::{SMatrix, SVector};
/// use spark::{GaussLobatto, Integrator, State};
///
/// spark::mechanics! {
///     /// A pendulum on a rod, pushed sideways.
///     pub struct Pendulum {
///         coordinates: [x, y],
///         velocities: [vx, vy],
///         inputs: [u],
///         lagrangian: 0.5 * (vx.powi(2) + vy.powi(2)) - 9.81 * y,
///         forces: [u, 0.0],
///         holonomic: [x.powi(2) + y.powi(2) - 1.0],
///     }
/// }
///
/// let mut model = Integrator::<Pendulum, GaussLobatto<2>>::new(Pendulum::default(), 0.02).unwrap();
/// let mut plant = model;
/// let target = SVector::<f64, 4>::new(0.3, -(1.0f64 - 0.09).sqrt(), 0.0, 0.0);
/// let cost = Quadratic::<4, 1> {
///     q: SMatrix::from_diagonal(&SVector::from([10.0, 10.0, 0.1, 0.1])),
///     r: SMatrix::identity() * 1e-3,
///     qf: SMatrix::from_diagonal(&SVector::from([100.0, 100.0, 1.0, 1.0])),
///     x_ref: target,
///     u_ref: SVector::zeros(),
/// };
/// let bounds = Bounds::symmetric(5.0);
/// let mut s = State::new(0.0, [0.0, -1.0], [0.0, 0.0]);
/// let mut mpc = SqpRti::<2, 1, 2, 30>::new(&s, [SVector::zeros(); 30]);
/// for _ in 0..150 {
///     // Before the measurement: linearize the shifted plan.
///     mpc.prepare(&mut model, &cost, &bounds).unwrap();
///     // With it: one QP solve.
///     let (u, stats) = mpc.feedback(&model, &s).unwrap();
///     assert_eq!(stats.fallback, None);
///     assert!(u[0].abs() <= 5.0);
///     plant.system_mut().u = u[0];
///     plant.step(&mut s).unwrap();
/// }
/// assert!((s.q[0] - 0.3).abs() < 0.01, "{}", s.q[0]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SqpRti<
    const N: usize,
    const U: usize,
    const D: usize,
    const H: usize,
    const S: usize = 0,
> {
    /// `x_0`.
    pub start: State<N>,
    /// `x_1 … x_H` (`nodes[k]` is `x_{k+1}`).
    pub nodes: [State<N>; H],
    /// `u_0 … u_{H−1}`.
    pub controls: [SVector<f64, U>; H],
    /// The bases at `x_0 … x_{H−1}` (`bases[k]` at `x_k`) and, last, at `x_H`.
    bases: [TangentBasis<N, D>; H],
    end_basis: TangentBasis<N, D>,
    /// The stage QP of the last preparation, and its solution after a feedback.
    pub qp: StageQp<D, U, H, S>,
    /// The bounds of the last preparation.
    bounds: Bounds<U>,
    /// The soft state bounds ([`SqpRti::with_state_bounds`]).
    state_bounds: StateBounds<S>,
    /// Whether the nodes hold a plan (not before the first preparation of [`SqpRti::new`]).
    initialized: bool,
    /// Whether the nodes are a caller's guess not yet checked ([`SqpRti::from_nodes`]).
    unchecked: bool,
    /// Whether the next preparation moves the horizon on.
    shift_next: bool,
    /// Whether the QP's solution is still to be applied to the plan.
    pending: bool,
    phase: Phase,
    /// The statistics of the last preparation.
    prepared: SqpStats,
    /// The weight `μ` of the defects in the line search's merit function (0 until a line
    /// search needs more; it never decreases).
    merit_weight: f64,
    /// The cost and defects `(f, ‖c‖₁)` of the last accepted plans of the line search, newest
    /// first (the reference of its nonmonotone test); `None` where none yet.
    merit_history: [Option<(f64, f64)>; settings::MEMORY],
}

impl<const N: usize, const U: usize, const D: usize, const H: usize> SqpRti<N, U, D, H> {
    /// A driver whose first preparation rolls the inputs `controls` (clamped) out from
    /// `state` to make the plan's nodes.
    pub fn new(state: &State<N>, controls: [SVector<f64, U>; H]) -> Self {
        const { assert!(H >= 1, "a horizon has at least one interval") };
        let basis = TangentBasis {
            q: SMatrix::zeros(),
            v: SMatrix::zeros(),
        };
        Self {
            start: *state,
            nodes: [*state; H],
            controls,
            bases: [basis; H],
            end_basis: basis,
            qp: StageQp::zeroed(),
            bounds: Bounds::symmetric(f64::INFINITY),
            state_bounds: StateBounds::none(),
            initialized: false,
            unchecked: false,
            shift_next: false,
            pending: false,
            phase: Phase::Idle,
            prepared: SqpStats::default(),
            merit_weight: 0.0,
            merit_history: [None; settings::MEMORY],
        }
    }

    /// A driver whose plan is a solved trajectory (for example box-DDP's, [`Trajectory`]) whose
    /// start is the first period's state: the first preparation linearizes it without moving
    /// the horizon.
    pub fn from_trajectory(trajectory: &Trajectory<N, U, D, H>) -> Self {
        let mut out = Self::new(&trajectory.start, trajectory.controls);
        out.nodes = trajectory.states;
        out.initialized = true;
        out
    }

    /// A driver whose plan has the nodes `nodes` (`x_1 … x_H`, each on the constraint
    /// manifold, at the times of the shooting: `x_k.t = x_0.t + k h`) and the inputs
    /// `controls`: a first guess of multiple shooting, which need not be a trajectory (the
    /// defects are the QP's to close). Holding every node at a state at rest
    /// ([`SqpRti::held`]) is the usual first guess where a rollout of the first inputs would
    /// go far from the task (a linkage falling under gravity with zero torques). The first
    /// preparation checks the nodes.
    pub fn from_nodes(
        state: &State<N>,
        nodes: [State<N>; H],
        controls: [SVector<f64, U>; H],
    ) -> Self {
        let mut out = Self::new(state, controls);
        out.nodes = nodes;
        out.initialized = true;
        out.unchecked = true;
        out
    }

    /// [`SqpRti::from_nodes`] with every node the configuration of `state` at rest, at the
    /// times `state.t + k h` (`h` the step of `sim`), and the inputs `controls`.
    ///
    /// ```
    /// use spark::control::sqp::SqpRti;
    /// use spark::nalgebra::SVector;
    /// use spark::{GaussLobatto, Integrator, State};
    ///
    /// spark::mechanics! {
    ///     /// A pendulum on a rod, pushed sideways.
    ///     pub struct Pendulum {
    ///         coordinates: [x, y],
    ///         velocities: [vx, vy],
    ///         inputs: [u],
    ///         lagrangian: 0.5 * (vx.powi(2) + vy.powi(2)) - 9.81 * y,
    ///         forces: [u, 0.0],
    ///         holonomic: [x.powi(2) + y.powi(2) - 1.0],
    ///     }
    /// }
    ///
    /// let sim = Integrator::<Pendulum, GaussLobatto<2>>::new(Pendulum::default(), 0.02).unwrap();
    /// let s = State::new(0.0, [0.6, -0.8], [0.0, 0.0]);
    /// let mpc = SqpRti::held(&sim, &s, [SVector::zeros(); 30]);
    /// assert_eq!(mpc.state(30).q, s.q);
    /// assert!((mpc.state(30).t - 0.6).abs() < 1e-12);
    /// ```
    pub fn held<Sys, Meth, const M: usize, const K: usize, const X: usize>(
        sim: &Integrator<Sys, Meth>,
        state: &State<N>,
        controls: [SVector<f64, U>; H],
    ) -> Self
    where
        Sys: Model + Dimensions<N, M, K, U, D, X>,
        Meth: Method,
    {
        let () = <Sys as Dimensions<N, M, K, U, D, X>>::CONSISTENT;
        let h = sim.step_size();
        let nodes = core::array::from_fn(|k| State {
            t: state.t + (k + 1) as f64 * h,
            q: state.q,
            v: SVector::zeros(),
        });
        Self::from_nodes(state, nodes, controls)
    }

    /// [`SqpRti::new`] with the sizes taken from the model of `sim` (`D` and `U` the model's,
    /// `H` the length of `controls`): no size written by hand.
    ///
    /// ```
    /// use spark::control::sqp::SqpRti;
    /// use spark::nalgebra::SVector;
    /// use spark::{GaussLobatto, Integrator, State};
    ///
    /// spark::mechanics! {
    ///     /// A pendulum on a rod, pushed sideways.
    ///     pub struct Pendulum {
    ///         coordinates: [x, y],
    ///         velocities: [vx, vy],
    ///         inputs: [u],
    ///         lagrangian: 0.5 * (vx.powi(2) + vy.powi(2)) - 9.81 * y,
    ///         forces: [u, 0.0],
    ///         holonomic: [x.powi(2) + y.powi(2) - 1.0],
    ///     }
    /// }
    ///
    /// let sim = Integrator::<Pendulum, GaussLobatto<2>>::new(Pendulum::default(), 0.02).unwrap();
    /// let s = State::new(0.0, [0.0, -1.0], [0.0, 0.0]);
    /// let mpc = SqpRti::for_model(&sim, &s, [SVector::zeros(); 30]);
    /// assert_eq!(mpc.state(0).q, s.q);
    /// ```
    pub fn for_model<Sys, Meth, const M: usize, const K: usize, const X: usize>(
        sim: &Integrator<Sys, Meth>,
        state: &State<N>,
        controls: [SVector<f64, U>; H],
    ) -> Self
    where
        Sys: Model + Dimensions<N, M, K, U, D, X>,
        Meth: Method,
    {
        let () = <Sys as Dimensions<N, M, K, U, D, X>>::CONSISTENT;
        let _ = sim;
        Self::new(state, controls)
    }

    /// The driver with soft bounds on the state of every node after the first
    /// ([`StateBounds`]: `½ w dist(x_i, [lo, hi])²` added to the cost, exactly, by the QP's soft
    /// rows on the node's tangent basis). Call it on a new driver: the plan carries over, a
    /// prepared QP does not (the next preparation prepares it).
    ///
    /// Errors with nothing changed: bounds that fail [`StateBounds::check`] for `2N`.
    ///
    /// ```
    /// use spark::control::cost::Quadratic;
    /// use spark::control::ilqr::Bounds;
    /// use spark::control::sqp::SqpRti;
    /// use spark::control::state_bounds::StateBounds;
    /// use spark::nalgebra::{SMatrix, SVector};
    /// use spark::{GaussLobatto, Integrator, State};
    ///
    /// spark::mechanics! {
    ///     /// A pendulum on a rod, pushed sideways.
    ///     pub struct Pendulum {
    ///         coordinates: [x, y],
    ///         velocities: [vx, vy],
    ///         inputs: [u],
    ///         lagrangian: 0.5 * (vx.powi(2) + vy.powi(2)) - 9.81 * y,
    ///         forces: [u, 0.0],
    ///         holonomic: [x.powi(2) + y.powi(2) - 1.0],
    ///     }
    /// }
    ///
    /// let mut model = Integrator::<Pendulum, GaussLobatto<2>>::new(Pendulum::default(), 0.02).unwrap();
    /// // Swing out to x = 0.6, but the bob's sideways speed (entry N + 0 = 2) within 0.5 m/s.
    /// let cost = Quadratic::<4, 1> {
    ///     q: SMatrix::from_diagonal(&SVector::from([10.0, 10.0, 0.0, 0.0])),
    ///     r: SMatrix::identity() * 1e-3,
    ///     qf: SMatrix::from_diagonal(&SVector::from([100.0, 100.0, 1.0, 1.0])),
    ///     x_ref: SVector::from([0.6, -0.8, 0.0, 0.0]),
    ///     u_ref: SVector::zeros(),
    /// };
    /// let limit = StateBounds { index: [2], lo: [-0.5], hi: [0.5], weight: [1e6] };
    /// let s = State::new(0.0, [0.0, -1.0], [0.0, 0.0]);
    /// let mut mpc = SqpRti::held(&model, &s, [SVector::zeros(); 40])
    ///     .with_state_bounds(limit)
    ///     .unwrap();
    /// for _ in 0..30 {
    ///     let stats = mpc.iterate(&mut model, &cost, &Bounds::symmetric(20.0)).unwrap();
    ///     if stats.step < 1e-10 && stats.defect < 1e-12 {
    ///         break;
    ///     }
    /// }
    /// let fastest = (1..=40).map(|k| mpc.state(k).v[0].abs()).fold(0.0, f64::max);
    /// assert!(fastest < 0.5 + 1e-3, "{fastest}");
    /// ```
    pub fn with_state_bounds<const S2: usize>(
        self,
        bounds: StateBounds<S2>,
    ) -> Result<SqpRti<N, U, D, H, S2>, ControlError> {
        bounds.check(2 * N)?;
        Ok(SqpRti {
            start: self.start,
            nodes: self.nodes,
            controls: self.controls,
            bases: self.bases,
            end_basis: self.end_basis,
            qp: StageQp::zeroed(),
            bounds: self.bounds,
            state_bounds: bounds,
            initialized: self.initialized,
            unchecked: self.unchecked,
            shift_next: self.shift_next,
            pending: false,
            phase: Phase::Idle,
            prepared: self.prepared,
            merit_weight: self.merit_weight,
            merit_history: self.merit_history,
        })
    }
}

impl<const N: usize, const U: usize, const D: usize, const H: usize, const S: usize>
    SqpRti<N, U, D, H, S>
{
    /// `x_k` for `0 ≤ k ≤ H`.
    pub fn state(&self, k: usize) -> &State<N> {
        if k == 0 {
            &self.start
        } else {
            &self.nodes[k - 1]
        }
    }

    /// The basis at `x_k` for `0 ≤ k ≤ H` (of the last preparation).
    pub fn basis(&self, k: usize) -> &TangentBasis<N, D> {
        if k == H {
            &self.end_basis
        } else {
            &self.bases[k]
        }
    }

    /// The preparation of a period, before its measurement: applies the last QP step, shifts
    /// the horizon (not in the first period), linearizes every interval and prepares the QP
    /// (see the module documentation). `sim` is the prediction model (its inputs are
    /// restored). Returns the preparation's statistics; a numerical failure is not an `Err`
    /// but [`SqpStats::fallback`], and the next [`SqpRti::feedback`] falls back.
    ///
    /// Errors with nothing changed: unusable `bounds` ([`Bounds::check`]), a `cost` that fails
    /// [`Cost::check`]; before the first period of [`SqpRti::new`], non-finite initial inputs
    /// or a start state that is not finite or off the constraint manifold; before the first
    /// period of [`SqpRti::from_nodes`] (or [`SqpRti::held`]), also a node that is not finite
    /// or off the manifold.
    pub fn prepare<Sys, Meth, C, const M: usize, const K: usize, const X: usize>(
        &mut self,
        sim: &mut Integrator<Sys, Meth>,
        cost: &C,
        bounds: &Bounds<U>,
    ) -> Result<SqpStats, ControlError>
    where
        Sys: Model + Dimensions<N, M, K, U, D, X>,
        Meth: Method,
        C: Cost<N, U, X>,
    {
        bounds.check()?;
        cost.check()?;
        if !self.initialized || self.unchecked {
            require(
                self.controls
                    .iter()
                    .all(|u| u.iter().all(|v| v.is_finite())),
                "the initial inputs of the SQP-RTI driver must be finite",
            )?;
            sim.check_on_manifold::<N, M, K>(&self.start)?;
            if self.unchecked {
                for x in &self.nodes {
                    sim.check_on_manifold::<N, M, K>(x)?;
                }
                self.unchecked = false;
            }
        }
        let mut stats = SqpStats::default();
        self.bounds = *bounds;
        if self.pending {
            stats.skipped_nodes = self.apply_step(sim);
            self.pending = false;
        }
        // The first node set from the shooting (the nodes of a rollout, or the new last one).
        let fill = if !self.initialized {
            1
        } else if self.shift_next {
            self.shift();
            H
        } else {
            H + 1
        };
        self.shift_next = false;
        let saved = sim.system().inputs();
        let out = self.linearize(sim, cost, fill, &mut stats);
        sim.system_mut().set_inputs(&saved);
        if fill == 1 {
            self.initialized = out.is_ok();
        }
        // The stages are the driver's own: data the QP refuses is a numerical failure here.
        let qp = |e| match e {
            ControlError::InvalidArgument { .. } => ControlError::NonFinite {
                what: "a stage of the SQP's QP (a cost, its derivatives, or a step Jacobian)",
            },
            e => e,
        };
        self.phase = match out.and_then(|()| self.qp.prepare().map_err(qp)) {
            Ok(()) => Phase::Prepared,
            Err(e) => {
                stats.fallback = Some(e);
                Phase::Failed(e)
            }
        };
        self.prepared = stats;
        Ok(stats)
    }

    /// The feedback of a period: one QP solve from the measured `state` and the input
    /// `clamp(u_0 + v_0)` with the period's statistics (the preparation's included). On a
    /// failed preparation or QP the input is the first of the shifted previous plan
    /// ([`SqpStats::fallback`]).
    ///
    /// Errors with nothing changed: no [`SqpRti::prepare`] since the last feedback; a `state`
    /// that is not finite or off the constraint manifold.
    pub fn feedback<Sys, Meth, const M: usize, const K: usize, const X: usize>(
        &mut self,
        sim: &Integrator<Sys, Meth>,
        state: &State<N>,
    ) -> Result<(SVector<f64, U>, SqpStats), ControlError>
    where
        Sys: Model + Dimensions<N, M, K, U, D, X>,
        Meth: Method,
    {
        require(
            self.phase != Phase::Idle,
            "SqpRti::feedback needs a SqpRti::prepare of the period first",
        )?;
        sim.check_on_manifold::<N, M, K>(state)?;
        let mut stats = self.prepared;
        let solved = match self.phase {
            Phase::Failed(e) => Err(e),
            _ => {
                let z0 = self.bases[0].coordinates::<X>(&difference::<N, X>(state, &self.start));
                self.qp.solve(&z0)
            }
        };
        let u = match solved {
            Ok(qp) => {
                self.take_solution(&qp, &mut stats);
                self.controls[0] + self.qp.v[0]
            }
            Err(e) => {
                stats.fallback = Some(e);
                self.controls[0]
            }
        };
        self.start = *state;
        self.phase = Phase::Idle;
        self.shift_next = true;
        // A new start is a new problem: the line search's earlier merits do not carry over.
        self.merit_history = [None; settings::MEMORY];
        Ok((self.bounds.clamp(&u), stats))
    }

    /// [`SqpRti::prepare`] and [`SqpRti::feedback`] in one call, the measured `state` checked
    /// first (nothing changes on `Err`).
    pub fn control<Sys, Meth, C, const M: usize, const K: usize, const X: usize>(
        &mut self,
        sim: &mut Integrator<Sys, Meth>,
        cost: &C,
        bounds: &Bounds<U>,
        state: &State<N>,
    ) -> Result<(SVector<f64, U>, SqpStats), ControlError>
    where
        Sys: Model + Dimensions<N, M, K, U, D, X>,
        Meth: Method,
        C: Cost<N, U, X>,
    {
        sim.check_on_manifold::<N, M, K>(state)?;
        self.prepare(sim, cost, bounds)?;
        self.feedback(sim, state)
    }

    /// One full SQP iteration on the plan with its start held (no measurement): applies the
    /// last QP step (and moves the horizon on after a feedback, as [`SqpRti::prepare`] does),
    /// linearizes, and solves the QP with `z_0 = 0`; the step is
    /// applied by the next call, or by the next [`SqpRti::prepare`]. Iterated before the
    /// control loop, from a first guess of [`SqpRti::held`] or [`SqpRti::from_nodes`], it
    /// solves the first period's problem by Gauss–Newton SQP over multiple shooting (full
    /// steps: no line search, so from a guess far from the solution it may not converge;
    /// watch [`SqpStats::step`] and [`SqpStats::defect`], or use
    /// [`SqpRti::iterate_with_line_search`] and [`SqpRti::solve`]). Then the control loop's
    /// [`SqpRti::prepare`] and [`SqpRti::feedback`] go on from the solution.
    ///
    /// Errors with nothing changed as [`SqpRti::prepare`]'s; a numerical failure is
    /// [`SqpStats::fallback`] (and the plan keeps its last step unapplied).
    ///
    /// ```
    /// use spark::control::cost::Quadratic;
    /// use spark::control::ilqr::Bounds;
    /// use spark::control::sqp::SqpRti;
    /// use spark::nalgebra::{SMatrix, SVector};
    /// use spark::{GaussLobatto, Integrator, State};
    ///
    /// spark::mechanics! {
    ///     /// A pendulum on a rod, pushed sideways.
    ///     pub struct Pendulum {
    ///         coordinates: [x, y],
    ///         velocities: [vx, vy],
    ///         inputs: [u],
    ///         lagrangian: 0.5 * (vx.powi(2) + vy.powi(2)) - 9.81 * y,
    ///         forces: [u, 0.0],
    ///         holonomic: [x.powi(2) + y.powi(2) - 1.0],
    ///     }
    /// }
    ///
    /// let mut model = Integrator::<Pendulum, GaussLobatto<2>>::new(Pendulum::default(), 0.02).unwrap();
    /// let cost = Quadratic::<4, 1> {
    ///     q: SMatrix::from_diagonal(&SVector::from([10.0, 10.0, 0.1, 0.1])),
    ///     r: SMatrix::identity() * 1e-3,
    ///     qf: SMatrix::from_diagonal(&SVector::from([100.0, 100.0, 1.0, 1.0])),
    ///     x_ref: SVector::from([0.3, -(1.0f64 - 0.09).sqrt(), 0.0, 0.0]),
    ///     u_ref: SVector::zeros(),
    /// };
    /// let bounds = Bounds::symmetric(5.0);
    /// let s = State::new(0.0, [0.0, -1.0], [0.0, 0.0]);
    /// let mut mpc = SqpRti::held(&model, &s, [SVector::zeros(); 30]);
    /// let mut last = f64::INFINITY;
    /// for _ in 0..30 {
    ///     let stats = mpc.iterate(&mut model, &cost, &bounds).unwrap();
    ///     assert_eq!(stats.fallback, None);
    ///     last = stats.step;
    ///     if stats.step < 1e-10 && stats.defect < 1e-12 {
    ///         break;
    ///     }
    /// }
    /// assert!(last < 1e-10, "{last}");
    /// ```
    pub fn iterate<Sys, Meth, C, const M: usize, const K: usize, const X: usize>(
        &mut self,
        sim: &mut Integrator<Sys, Meth>,
        cost: &C,
        bounds: &Bounds<U>,
    ) -> Result<SqpStats, ControlError>
    where
        Sys: Model + Dimensions<N, M, K, U, D, X>,
        Meth: Method,
        C: Cost<N, U, X>,
    {
        let mut stats = self.prepare(sim, cost, bounds)?;
        if let Phase::Prepared = self.phase {
            match self.qp.solve(&SVector::zeros()) {
                Ok(qp) => self.take_solution(&qp, &mut stats),
                Err(e) => stats.fallback = Some(e),
            }
        }
        self.phase = Phase::Idle;
        Ok(stats)
    }

    /// Records a solved QP in `stats` (its counts and the step's largest entry over
    /// `z_1 … z_H, v_0 … v_{H−1}`) and marks its step for the next preparation to apply.
    fn take_solution(&mut self, qp: &QpStats, stats: &mut SqpStats) {
        stats.qp_iterations = qp.iterations;
        stats.factorizations = qp.factorizations;
        stats.active = qp.active;
        stats.soft_active = qp.soft_active;
        let z = self.qp.z.iter().map(|z| z.amax()).fold(0.0, f64::max);
        stats.step = self.qp.v.iter().map(|v| v.amax()).fold(z, f64::max);
        stats.alpha = 1.0;
        self.pending = true;
    }

    /// The last QP step applied to the plan: `x_k ← project(x_k + T_k z_k)` for `k ≥ 1` (a
    /// node whose projection fails keeps its place), `u_k ← clamp(u_k + v_k)`. Returns the
    /// nodes kept.
    fn apply_step<Sys, Meth, const M: usize, const K: usize, const X: usize>(
        &mut self,
        sim: &Integrator<Sys, Meth>,
    ) -> usize
    where
        Sys: Model + Dimensions<N, M, K, U, D, X>,
        Meth: Method,
    {
        let mut skipped = 0;
        for k in 1..=H {
            match self.stepped_node::<Sys, Meth, M, K, X>(sim, k, 1.0) {
                Some(x) => self.nodes[k - 1] = x,
                None => skipped += 1,
            }
        }
        for k in 0..H {
            self.controls[k] = self.stepped_control(k, 1.0);
        }
        skipped
    }

    /// Node `k` (`1 ≤ k ≤ H`) moved by `alpha` times the QP's step and projected,
    /// `project(x_k + α T_k z_k)`; `None` when the projection fails.
    fn stepped_node<Sys, Meth, const M: usize, const K: usize, const X: usize>(
        &self,
        sim: &Integrator<Sys, Meth>,
        k: usize,
        alpha: f64,
    ) -> Option<State<N>>
    where
        Sys: Model + Dimensions<N, M, K, U, D, X>,
        Meth: Method,
    {
        let dx = self.basis(k).direction::<X>(&(self.qp.state(k) * alpha));
        let mut x = displaced::<N, X>(self.state(k), &dx);
        sim.project(&mut x).ok()?;
        Some(x)
    }

    /// Input `k` moved by `alpha` times the QP's step, inside the bounds:
    /// `clamp(u_k + α v_k)`.
    fn stepped_control(&self, k: usize, alpha: f64) -> SVector<f64, U> {
        self.bounds
            .clamp(&(self.controls[k] + self.qp.v[k] * alpha))
    }

    /// Moves the plan on by one interval; the last input repeats (the last node is set from
    /// the shooting by the linearization).
    fn shift(&mut self) {
        self.start = self.nodes[0];
        for k in 0..H - 1 {
            self.nodes[k] = self.nodes[k + 1];
            self.controls[k] = self.controls[k + 1];
        }
        if H >= 2 {
            self.controls[H - 1] = self.controls[H - 2];
        }
    }

    /// The penalty `Σ_j ½ w_j dist(x_i, [lo_j, hi_j])²` of the state bounds at the node `x`.
    fn penalty<const X: usize>(&self, x: &State<N>) -> f64 {
        if S == 0 {
            return 0.0;
        }
        let node = to_vector::<N, X>(x);
        let sb = &self.state_bounds;
        (0..S)
            .map(|j| {
                let i = sb.index[j];
                let out = (node[i] - sb.hi[j]).max(sb.lo[j] - node[i]).max(0.0);
                0.5 * sb.weight[j] * out * out
            })
            .sum()
    }

    /// Linearizes every interval of the plan into the QP's stages, setting the nodes from
    /// `fill` on from the shooting (their defects are then zero).
    fn linearize<Sys, Meth, C, const M: usize, const K: usize, const X: usize>(
        &mut self,
        sim: &mut Integrator<Sys, Meth>,
        cost: &C,
        fill: usize,
        stats: &mut SqpStats,
    ) -> Result<(), ControlError>
    where
        Sys: Model + Dimensions<N, M, K, U, D, X>,
        Meth: Method,
        C: Cost<N, U, X>,
    {
        let not_finite = ControlError::NonFinite {
            what: "a stage of the SQP's QP (a cost, its derivatives, or a step Jacobian)",
        };
        let mut t0 = sim.tangent(&self.start)?;
        self.bases[0] = t0;
        let mut total = 0.0;
        for k in 0..H {
            let u = self.bounds.clamp(&self.controls[k]);
            self.controls[k] = u;
            let x = *self.state(k);
            sim.system_mut().set_inputs(&u);
            let mut end = x;
            let jac: StepJacobian<N, U> = sim.step_with_jacobian(&mut end)?;
            stats.steps += 1;
            if k + 1 >= fill {
                self.nodes[k] = end;
            }
            let t1 = sim.tangent(&self.nodes[k])?;
            let (m0, m1) = (t0.matrix::<X>(), t1.matrix::<X>());
            let st = cost.stage(k, &x, &u);
            let stage = &mut self.qp.stages[k];
            stage.a = m1.tr_mul(&(jac.phi::<X>() * m0));
            stage.b = m1.tr_mul(&jac.gamma::<X>());
            stage.c = m1.tr_mul(&difference::<N, X>(&end, &self.nodes[k]));
            stage.q = m0.tr_mul(&(st.lxx * m0));
            stage.s = st.lux * m0;
            stage.r = st.luu;
            stage.gz = m0.tr_mul(&st.lx);
            stage.gv = st.lu;
            stage.lo = self.bounds.lo - u;
            stage.hi = self.bounds.hi - u;
            if S > 0 {
                // The bounds on node k + 1 as rows of its basis, relative to the node.
                let node = to_vector::<N, X>(&self.nodes[k]);
                let sb = &self.state_bounds;
                let soft = &mut self.qp.soft[k];
                for j in 0..S {
                    let i = sb.index[j];
                    soft.rows.set_row(j, &m1.row(i));
                    soft.lo[j] = sb.lo[j] - node[i];
                    soft.hi[j] = sb.hi[j] - node[i];
                    soft.weight[j] = sb.weight[j];
                }
            }
            stats.defect = stats.defect.max(stage.c.amax());
            total += st.value + self.penalty::<X>(&self.nodes[k]);
            if k + 1 < H {
                self.bases[k + 1] = t1;
            } else {
                self.end_basis = t1;
            }
            t0 = t1;
        }
        let term = cost.terminal(&self.nodes[H - 1]);
        let m = t0.matrix::<X>();
        self.qp.terminal_q = m.tr_mul(&(term.lxx * m));
        self.qp.terminal_g = m.tr_mul(&term.lx);
        stats.cost = total + term.value;
        if !(stats.cost.is_finite() && stats.defect.is_finite()) {
            return Err(not_finite);
        }
        Ok(())
    }
}
