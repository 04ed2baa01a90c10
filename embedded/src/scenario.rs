//! The runs, written once: the Cortex-M4F binary and the host example call these same
//! functions, so the models, the arithmetic and the printed lines are the very same code on
//! both sides. Each run prints, every [`EVERY`] steps, one line
//!
//! ```text
//! <name> step <k> t <t> q <q_1> .. <q_n> dE <E - E0> g <max |g|> gv <max |g_t + G v|>
//! ```
//!
//! with every float as `{:.16e}` (17 significant digits, enough to round-trip an `f64`), and a
//! last line with the total Newton iterations, so that a script can compare the two outputs
//! number by number.

use core::fmt::{self, Write};

use spark::control::cost::Quadratic;
use spark::control::error::ControlError;
use spark::control::ilqr::{Bounds, Ilqr, Settings};
use spark::control::sqp::{SqpRti, SqpStats};
use spark::nalgebra::{SMatrix, SVector};
use spark::{GaussLobatto, Integrator, Lagrangian, Method, State};

spark::mechanics! {
    /// Planar pendulum in Cartesian coordinates (as in `examples/pendulum.rs`).
    pub struct Pendulum {
        coordinates: [x, y],
        velocities: [vx, vy],
        parameters: [m = 1.0, l = 1.0, g = 9.81],
        lagrangian: 0.5 * m * (vx.powi(2) + vy.powi(2)) - m * g * y,
        holonomic: [x.powi(2) + y.powi(2) - l.powi(2)],
    }
}

spark::mechanics! {
    /// Two point masses on massless rods, Cartesian coordinates, gravity along -y (as in
    /// `examples/double_pendulum.rs`).
    pub struct DoublePendulum {
        coordinates: [x1, y1, x2, y2],
        velocities: [u1, w1, u2, w2],
        parameters: [m1 = 1.0, m2 = 1.0, l1 = 1.0, l2 = 1.0, g = 9.81],
        lagrangian: 0.5 * m1 * (u1.powi(2) + w1.powi(2)) + 0.5 * m2 * (u2.powi(2) + w2.powi(2))
            - g * (m1 * y1 + m2 * y2),
        holonomic: [
            x1.powi(2) + y1.powi(2) - l1.powi(2),
            (x2 - x1).powi(2) + (y2 - y1).powi(2) - l2.powi(2),
        ],
    }
}

spark::mechanics! {
    /// A cart-pole: a cart on a rail (damped), a point mass on a massless rod of length 1, and
    /// the force `u` on the cart as the control input.
    pub struct CartPole {
        coordinates: [xc, x, y],
        velocities: [vc, vx, vy],
        parameters: [mc = 1.0, m = 0.2, g = 9.81, c = 0.4],
        inputs: [u],
        lagrangian: 0.5 * mc * vc.powi(2) + 0.5 * m * (vx.powi(2) + vy.powi(2)) - m * g * y,
        forces: [u, 0.0, 0.0],
        dissipation: 0.5 * c * vc.powi(2),
        holonomic: [(x - xc).powi(2) + y.powi(2) - 1.0],
    }
}

spark::mechanics! {
    /// The cart-pole of `examples/models/cartpole.rs` (and `examples/cartpole_swingup.rs`): a
    /// damped cart, a point mass on a massless rod of length `l`, the force `u` on the cart.
    /// Upright is `x = xc`, `y = l`.
    pub struct CartPoleL {
        coordinates: [xc, x, y],
        velocities: [vc, vx, vy],
        parameters: [mc = 1.0, m = 0.2, l = 0.5, g = 9.81, c = 0.4],
        inputs: [u],
        lagrangian: 0.5 * mc * vc.powi(2) + 0.5 * m * (vx.powi(2) + vy.powi(2)) - m * g * y,
        forces: [u, 0.0, 0.0],
        dissipation: 0.5 * c * vc.powi(2),
        holonomic: [(x - xc).powi(2) + y.powi(2) - l.powi(2)],
    }
}

// `chain!`: the 3D chain of unit point masses on unit rods of `examples/chain3d.rs`.
include!("../../examples/models/chain3d.rs");

// The chain with N = 10: 30 coordinates, 10 constraints, gravity along −z; its step uses the
// sparse factors the macro emits for it.
chain!(Chain3d, 10);

/// Steps of each run.
pub const STEPS: u32 = 1000;

/// A line is printed every `EVERY` steps (and at step 0).
pub const EVERY: u32 = 100;

/// What stops a run: a solver error, or the output refusing a write.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RunError {
    /// The integrator failed.
    Spark(spark::Error),
    /// The control layer failed.
    Control(ControlError),
    /// Writing a line failed.
    Output,
    /// A run finished but missed what it must show.
    Requirement(&'static str),
}

impl From<ControlError> for RunError {
    fn from(e: ControlError) -> Self {
        RunError::Control(e)
    }
}

impl From<spark::Error> for RunError {
    fn from(e: spark::Error) -> Self {
        RunError::Spark(e)
    }
}

impl From<fmt::Error> for RunError {
    fn from(_: fmt::Error) -> Self {
        RunError::Output
    }
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Spark(e) => write!(f, "{e}"),
            RunError::Control(e) => write!(f, "{e}"),
            RunError::Output => f.write_str("writing the output failed"),
            RunError::Requirement(what) => f.write_str(what),
        }
    }
}

/// What a finished run did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Summary {
    /// Steps taken.
    pub steps: u32,
    /// Newton iterations of all steps (stage and end-point solves).
    pub newton_iterations: u32,
}

/// The pendulum (m = l = g = 1) released at rest from the horizontal, (2,2)-Gauss-Lobatto
/// SPARK (order 4), h = 0.01, [`STEPS`] steps.
pub fn pendulum<W: Write>(out: &mut W) -> Result<Summary, RunError> {
    let sys = Pendulum {
        m: 1.0,
        l: 1.0,
        g: 1.0,
    };
    let sim = Integrator::<Pendulum, GaussLobatto<2>>::new(sys, 0.01)?;
    let s = State::new(0.0, [1.0, 0.0], [0.0, 0.0]);
    run("pendulum", sim, s, out, |_, _| {})
}

/// The double pendulum (default parameters, g = 9.81) released at rest with both rods
/// horizontal, a chaotic motion; (3,3)-Gauss-Lobatto SPARK (order 6), h = 0.005, [`STEPS`]
/// steps.
pub fn double_pendulum<W: Write>(out: &mut W) -> Result<Summary, RunError> {
    let sim = Integrator::<DoublePendulum, GaussLobatto<3>>::new(DoublePendulum::default(), 0.005)?;
    let s = State::new(0.0, [1.0, 0.0, 2.0, 0.0], [0.0; 4]);
    run("double_pendulum", sim, s, out, |_, _| {})
}

/// The cart-pole released at rest with the pole leaning 0.2 rad from upright, its input set
/// before every step by a linear state feedback on the lean `x − xc` (the poles of the linear
/// model at −2, fourfold); (2,2)-Gauss-Lobatto SPARK, h = 0.01, [`STEPS`] steps.
pub fn cartpole<W: Write>(out: &mut W) -> Result<Summary, RunError> {
    let sim = Integrator::<CartPole, GaussLobatto<2>>::new(CartPole::default(), 0.01)?;
    let lean = 0.2f64;
    let s = State::new(
        0.0,
        [0.0, spark::math::sin(lean), spark::math::cos(lean)],
        [0.0; 3],
    );
    run("cartpole", sim, s, out, |sys, s| {
        let (xc, vc) = (s.q[0], s.v[0]);
        let (th, om) = (s.q[1] - xc, s.v[1] - vc);
        sys.u = 1.631 * xc + 3.662 * vc + 37.40 * th + 11.26 * om;
    })
}

/// The 3D chain of N = 10 released straight out along (0.8, 0.6, 0) with a sideways velocity
/// growing along it (made consistent by projection), so that it swings in 3D;
/// (2,2)-Gauss-Lobatto SPARK, h = 0.01, [`STEPS`] steps.
pub fn chain3d<W: Write>(out: &mut W) -> Result<Summary, RunError> {
    let sim = chain3d_integrator()?;
    run("chain3d", sim, chain3d_start(), out, |_, _| {})
}

/// The chain's integrator, with the default options: its 80 stage unknowns are above
/// `Options::DENSE_NEWTON_LIMIT`, so every step stays on the sparse simplified path (the dense
/// full-Newton code is not even linked), and a step that failed there would end the run with
/// an error.
fn chain3d_integrator() -> Result<Integrator<Chain3d, GaussLobatto<2>>, RunError> {
    Ok(Integrator::<Chain3d, GaussLobatto<2>>::new(
        Chain3d::default(),
        0.01,
    )?)
}

/// The chain straight out along (0.8, 0.6, 0), each mass moving horizontally, perpendicular
/// to the chain, with a speed growing along it: consistent as written (unit links, velocities
/// perpendicular to them).
fn chain3d_start() -> State<30> {
    let mut q = [0.0; 30];
    let mut v = [0.0; 30];
    for i in 0..10 {
        let r = (i + 1) as f64;
        q[i] = 0.8 * r;
        q[10 + i] = 0.6 * r;
        v[i] = -0.6 * 0.1 * r;
        v[10 + i] = 0.8 * 0.1 * r;
    }
    State::new(0.0, q, v)
}

/// One step of [`chain3d`]'s chain from its start, nothing else: what a step alone needs of
/// the stack. Returns the new state's last coordinate.
#[inline(never)]
pub fn chain3d_step() -> Result<f64, RunError> {
    let mut sim = chain3d_integrator()?;
    let mut s = chain3d_start();
    sim.step(&mut s)?;
    Ok(s.q[29])
}

/// The Jacobian of one step of the cart-pole (`GaussLobatto<2>`, h = 0.01) from the state of
/// [`cartpole`]'s start with `u = 1.5`: every entry of the six blocks printed on lines
/// `cartpole_jacobian row <k> ...` (rows of `[dq_dq dq_dv dq_du; dv_dq dv_dv dv_du]`), to compare
/// target and host number by number.
pub fn cartpole_jacobian<W: Write>(out: &mut W) -> Result<(), RunError> {
    let sys = CartPole {
        u: 1.5,
        ..CartPole::default()
    };
    let mut sim = Integrator::<CartPole, GaussLobatto<2>>::new(sys, 0.01)?;
    let lean = 0.2f64;
    let mut s = State::new(
        0.0,
        [0.0, spark::math::sin(lean), spark::math::cos(lean)],
        [0.0; 3],
    );
    let j: spark::StepJacobian<3, 1> = sim.step_with_jacobian(&mut s)?;
    for k in 0..6 {
        write!(out, "cartpole_jacobian row {k}")?;
        let (a, b, c) = if k < 3 {
            (&j.dq_dq, &j.dq_dv, &j.dq_du)
        } else {
            (&j.dv_dq, &j.dv_dv, &j.dv_du)
        };
        let r = k % 3;
        for col in 0..3 {
            write!(out, " {:.16e}", a[(r, col)])?;
        }
        for col in 0..3 {
            write!(out, " {:.16e}", b[(r, col)])?;
        }
        writeln!(out, " {:.16e}", c[(r, 0)])?;
    }
    Ok(())
}

/// Projects `s`, then takes [`STEPS`] steps, each after `control` has set the model's inputs
/// from the state, printing a line every [`EVERY`] steps.
fn run<Sys, Meth, W, const N: usize, const M: usize, const K: usize>(
    name: &str,
    mut sim: Integrator<Sys, Meth>,
    mut s: State<N>,
    out: &mut W,
    mut control: impl FnMut(&mut Sys, &State<N>),
) -> Result<Summary, RunError>
where
    Sys: Lagrangian<N, M, K>,
    Meth: Method,
    W: Write,
{
    sim.project(&mut s)?;
    let e0 = sim.energy(&s);
    let mut newton_iterations = 0;
    for k in 0..=STEPS {
        if k % EVERY == 0 {
            let (g, gv) = sim.constraint_residual(&s);
            write!(out, "{name} step {k} t {:.16e} q", s.t)?;
            for x in s.q.iter() {
                write!(out, " {x:.16e}")?;
            }
            writeln!(
                out,
                " dE {:.16e} g {g:.16e} gv {gv:.16e}",
                sim.energy(&s) - e0
            )?;
        }
        if k < STEPS {
            control(sim.system_mut(), &s);
            sim.step(&mut s)?;
            let stats = sim.last_step_stats();
            newton_iterations += stats.stage_iterations + stats.end_iterations;
        }
    }
    writeln!(
        out,
        "{name} done steps {STEPS} newton_iterations {newton_iterations}"
    )?;
    Ok(Summary {
        steps: STEPS,
        newton_iterations,
    })
}

/// The NMPC horizon of [`cartpole_nmpc`]: intervals of [`NMPC_PERIOD`] (1 s).
pub const NMPC_HORIZON: usize = 50;

/// SQP real-time iterations per control period (one preparation and one feedback).
pub const NMPC_ITERATIONS: usize = 1;

/// The control period (s), also the prediction model's step.
pub const NMPC_PERIOD: f64 = 0.02;

/// Control periods of the hold (3 s).
pub const NMPC_PERIODS: u32 = 100;

/// Plant steps per control period (the plant is stepped at 5 ms).
const NMPC_PLANT_STEPS: u32 = 4;

/// The lean at the start (rad), at rest, cart at the origin.
const NMPC_LEAN0: f64 = 0.05;

/// The NMPC of [`cartpole_nmpc`], a value the caller owns: the box-DDP solver of the first
/// plan (as in `examples/cartpole_swingup.rs`) and the SQP real-time iteration driver over
/// multiple shooting that holds from that plan on, one iteration per period.
pub struct HoldNmpc {
    /// The first plan's solver (box-DDP, solved to convergence by [`NmpcHold::plan`]).
    pub first: Ilqr<3, 1, 4, NMPC_HORIZON>,
    /// The SQP-RTI driver, set from the first plan by [`NmpcHold::plan`].
    pub sqp: SqpRti<3, 1, 4, NMPC_HORIZON>,
}

/// The hold's start: the pole leaning `NMPC_LEAN0` at rest, the cart at the origin.
fn nmpc_start() -> State<3> {
    let l = CartPoleL::default().l;
    let (sin, cos) = (spark::math::sin(NMPC_LEAN0), spark::math::cos(NMPC_LEAN0));
    State::new(0.0, [0.0, l * sin, l * cos], [0.0; 3])
}

/// A fresh workspace for [`cartpole_nmpc`]: the first plan's solver and the SQP-RTI driver,
/// both from the hold's start with zero inputs over the horizon. Returned by value into the
/// caller's place (`main.rs` prints its size).
#[inline(never)]
pub fn nmpc_workspace() -> HoldNmpc {
    let start = nmpc_start();
    HoldNmpc {
        first: Ilqr::new(start, [SVector::zeros(); NMPC_HORIZON]),
        sqp: SqpRti::new(&start, [SVector::zeros(); NMPC_HORIZON]),
    }
}

/// The NMPC hold of `examples/cartpole_swingup.rs`, from near upright: the state, the
/// prediction model, the perturbed plant, the controller (its workspace borrowed from the
/// caller) and what it applied. Built by [`NmpcHold::new`], driven by [`cartpole_nmpc`];
/// [`NmpcHold::control`] is one control period's computation, the part whose cost and stack
/// the Cortex-M binary measures.
pub struct NmpcHold<'a> {
    /// The controller.
    pub mpc: &'a mut HoldNmpc,
    /// The prediction model (nominal parameters), one `GaussLobatto<2>` step per interval.
    model: Integrator<CartPoleL, GaussLobatto<2>>,
    /// The plant: pole mass +10 %, cart damping +25 %, stepped at `NMPC_PERIOD / 4`.
    plant: Integrator<CartPoleL, GaussLobatto<2>>,
    /// The plant's state.
    pub state: State<3>,
    cost: Quadratic<6, 1>,
    bounds: Bounds<1>,
    /// The input of the current period.
    pub u: f64,
    /// What the last [`NmpcHold::control`] cost.
    pub stats: SqpStats,
    /// Periods whose input fell back to the shifted previous plan ([`SqpStats::fallback`]).
    pub fallbacks: u32,
}

/// The lean from upright of a cart-pole state (rad).
fn lean(s: &State<3>) -> f64 {
    spark::math::atan2(s.q[1] - s.q[0], s.q[2])
}

/// The tip's offset from upright `(x − xc, y − l)` weighed with `w`, the cart position with
/// `w_cart`, the velocities with `w_vel` (the weights of `examples/cartpole_swingup.rs`).
fn hold_weights(w: f64, w_cart: f64, w_vel: f64) -> SMatrix<f64, 6, 6> {
    let mut q = SMatrix::<f64, 6, 6>::zeros();
    q[(0, 0)] = w + w_cart;
    q[(1, 1)] = w;
    q[(0, 1)] = -w;
    q[(1, 0)] = -w;
    q[(2, 2)] = w;
    for i in 3..6 {
        q[(i, i)] = w_vel;
    }
    q
}

impl<'a> NmpcHold<'a> {
    /// The hold from the pole leaning `NMPC_LEAN0` at rest, with the costs and bounds
    /// (|u| ≤ 20 N) of `examples/cartpole_swingup.rs`, driven by `mpc` (a fresh
    /// [`nmpc_workspace`]); no solve yet ([`NmpcHold::plan`]).
    pub fn new(mpc: &'a mut HoldNmpc) -> Result<Self, RunError> {
        let p = CartPoleL::default();
        let model = Integrator::<CartPoleL, GaussLobatto<2>>::new(p, NMPC_PERIOD)?;
        let perturbed = CartPoleL {
            m: p.m * 1.1,
            c: p.c * 1.25,
            ..p
        };
        let plant = Integrator::<CartPoleL, GaussLobatto<2>>::new(
            perturbed,
            NMPC_PERIOD / f64::from(NMPC_PLANT_STEPS),
        )?;
        let state = nmpc_start();
        let cost = Quadratic::<6, 1> {
            q: hold_weights(10.0, 1.0, 0.1),
            r: SMatrix::identity() * 1e-2,
            qf: hold_weights(100.0, 10.0, 1.0),
            x_ref: SVector::from([0.0, 0.0, p.l, 0.0, 0.0, 0.0]),
            u_ref: SVector::zeros(),
        };
        Ok(Self {
            mpc,
            model,
            plant,
            state,
            cost,
            bounds: Bounds::symmetric(20.0),
            u: 0.0,
            stats: SqpStats::default(),
            fallbacks: 0,
        })
    }

    /// The first plan, solved to convergence in place from the start state by box-DDP (the
    /// default settings), then handed to the SQP-RTI driver, whose first period linearizes it
    /// without moving the horizon. Returns the iterations.
    #[inline(never)]
    pub fn plan(&mut self) -> Result<usize, RunError> {
        let solver = &mut self.mpc.first;
        solver.initialize(&mut self.model, &self.cost, &self.bounds)?;
        let (_, iterations) = solver.solve(
            &mut self.model,
            &self.cost,
            &self.bounds,
            &Settings::default(),
        )?;
        self.mpc.sqp = SqpRti::from_trajectory(&solver.nominal);
        Ok(iterations)
    }

    /// One control period's computation: the SQP real-time iteration's preparation (apply the
    /// last QP step, shift, linearize every interval, factor the QP) and its feedback (one QP
    /// solve from the current state). A period that fell back to the shifted previous plan is
    /// counted in [`NmpcHold::fallbacks`].
    #[inline(never)]
    pub fn control(&mut self) -> Result<(), RunError> {
        self.mpc
            .sqp
            .prepare(&mut self.model, &self.cost, &self.bounds)?;
        let (u, stats) = self.mpc.sqp.feedback(&self.model, &self.state)?;
        self.u = u[0];
        self.fallbacks += u32::from(stats.fallback.is_some());
        self.stats = stats;
        Ok(())
    }

    /// Applies the current input to the plant over one control period.
    fn apply(&mut self) -> Result<(), RunError> {
        self.plant.system_mut().u = self.u;
        for _ in 0..NMPC_PLANT_STEPS {
            self.plant.step(&mut self.state)?;
        }
        Ok(())
    }
}

/// The NMPC hold: the cart-pole (holonomic constraint, Cartesian coordinates) released at rest
/// leaning 0.05 rad, held upright for [`NMPC_PERIODS`] periods of 20 ms by [`HoldNmpc`]
/// (horizon [`NMPC_HORIZON`], [`NMPC_ITERATIONS`] SQP real-time iteration per period, |u| ≤ 20 N)
/// on a perturbed plant (pole mass +10 %, cart damping +25 %). Prints the first plan, then one
/// line per period
///
/// ```text
/// cartpole_nmpc period <k> t <t> u <u> lean <lean at the period's start> xc <cart> cost <J> steps <n> qp <n>
/// ```
///
/// and a last line with the largest |lean| over the last second, the largest |u|, the
/// plant's largest constraint residual and the periods that fell back. `mpc` is the controller's workspace, owned by the
/// caller (a fresh [`nmpc_workspace`]). The first plan is solved by `plan(&mut hold)`
/// (normally [`NmpcHold::plan`]) and each period's input computed by `control(&mut hold)`
/// (normally [`NmpcHold::control`]): the Cortex-M binary wraps both to count their
/// instructions and measure their stack. Fails unless the lean stays within 0.01 rad over the last second, the
/// inputs within their bound and the plant on its constraint (residuals below 1e-12).
pub fn cartpole_nmpc<W: Write>(
    out: &mut W,
    mpc: &mut HoldNmpc,
    plan: impl FnOnce(&mut NmpcHold) -> Result<usize, RunError>,
    mut control: impl FnMut(&mut NmpcHold) -> Result<(), RunError>,
) -> Result<(), RunError> {
    let mut hold = NmpcHold::new(mpc)?;
    let iterations = plan(&mut hold)?;
    writeln!(
        out,
        "cartpole_nmpc plan iterations {iterations} cost {:.16e}",
        hold.mpc.first.nominal.cost
    )?;
    let last_second = NMPC_PERIODS - (1.0 / NMPC_PERIOD) as u32;
    let (mut worst, mut umax, mut residual) = (0.0f64, 0.0f64, 0.0f64);
    for k in 0..NMPC_PERIODS {
        let th = lean(&hold.state);
        if k >= last_second {
            worst = worst.max(th.abs());
        }
        control(&mut hold)?;
        umax = umax.max(hold.u.abs());
        writeln!(
            out,
            "cartpole_nmpc period {k} t {:.16e} u {:.16e} lean {th:.16e} xc {:.16e} cost {:.16e} \
             steps {} qp {}",
            hold.state.t,
            hold.u,
            hold.state.q[0],
            hold.stats.cost,
            hold.stats.steps,
            hold.stats.qp_iterations
        )?;
        hold.apply()?;
        let (g, gv) = hold.plant.constraint_residual(&hold.state);
        residual = residual.max(g).max(gv);
    }
    worst = worst.max(lean(&hold.state).abs());
    writeln!(
        out,
        "cartpole_nmpc done periods {NMPC_PERIODS} lean_last_second {worst:.16e} max_u {umax:.16e} \
         residual {residual:.16e} fallbacks {}",
        hold.fallbacks
    )?;
    if worst > 0.01 {
        return Err(RunError::Requirement(
            "the NMPC hold left 0.01 rad of upright in its last second",
        ));
    }
    if umax > 20.0 || residual > 1e-12 {
        return Err(RunError::Requirement(
            "the NMPC hold broke its input bound or left the constraint",
        ));
    }
    Ok(())
}

/// `n` steps of the NMPC's prediction model (`GaussLobatto<2>`, h = 20 ms, `u = 1`) from the
/// hold's start: plain steps, or (`linearize`) steps with their reduced linearization on
/// aligned tangent bases (`Integrator::linearize`, what a rollout does for each interval).
/// Returns the end state's cart position. For counting the instructions of one step (the
/// Cortex-M binary counts `n = 0` and `n = 10`).
#[inline(never)]
pub fn nmpc_model_steps(n: u32, linearize: bool) -> Result<f64, RunError> {
    let p = CartPoleL {
        u: 1.0,
        ..CartPoleL::default()
    };
    let mut sim = Integrator::<CartPoleL, GaussLobatto<2>>::new(p, NMPC_PERIOD)?;
    let mut s = nmpc_start();
    let mut basis = sim.tangent(&s)?;
    for _ in 0..n {
        if linearize {
            basis = sim.linearize(&mut s, &basis)?.basis;
        } else {
            sim.step(&mut s)?;
        }
    }
    Ok(s.q[0])
}
