//! Errors of the runtime: small `Copy` values, no heap.

use core::fmt;

/// Which nonlinear or linear solve an error comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// The coupled stage system (stage velocities and interior multipliers).
    Stages,
    /// The end-point system (end velocity and last multiplier).
    EndPoint,
    /// Moving the coordinates onto the constraint manifold in `project`.
    ProjectPosition,
    /// Making the velocities tangent in `project`.
    ProjectVelocity,
    /// The forward correction solve of a local-model method: the stages (22a) of RKLM/SRKLM.
    LocalModelForward,
    /// The backward solve of SRKLM: the stages (22c) together with the end point `y1` of (22e).
    LocalModelBackward,
}

/// Everything that can go wrong in the runtime. On any error the caller's state is unchanged.
///
/// ```
/// use spark::{Error, GaussLobatto, Integrator, State};
/// # spark::mechanics! {
/// #     pub struct Pendulum {
/// #         coordinates: [x, y],
/// #         velocities: [vx, vy],
/// #         parameters: [g = 9.81],
/// #         lagrangian: 0.5 * (vx.powi(2) + vy.powi(2)) - g * y,
/// #         holonomic: [x.powi(2) + y.powi(2) - 1.0],
/// #     }
/// # }
/// // (`Pendulum` as in the example of [`Integrator`](crate::Integrator).)
/// assert!(matches!(
///     Integrator::<Pendulum, GaussLobatto<2>>::new(Pendulum::default(), f64::NAN),
///     Err(Error::InvalidStepSize { .. })
/// ));
/// let mut sim = Integrator::<Pendulum, GaussLobatto<2>>::new(Pendulum::default(), 0.01).unwrap();
/// let mut s = State::new(0.0, [2.0, 0.0], [0.0, 0.0]); // |q| = 2, off the unit circle
/// match sim.step(&mut s) {
///     Err(Error::InconsistentState { position, .. }) => assert!(position > 0.1),
///     other => panic!("{other:?}"),
/// }
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum Error {
    /// The step size is zero or not finite (the integrator's, or one a call computed from its
    /// arguments).
    InvalidStepSize {
        /// The rejected step size.
        h: f64,
    },
    /// A model parameter or input is NaN or infinite.
    NonFiniteParameter {
        /// The parameter's or input's name in the model.
        name: &'static str,
    },
    /// The state holds NaN or infinite values.
    NonFiniteState,
    /// The state does not satisfy the constraints (`g(q) = 0`, `g_t + G v = 0`) to the
    /// consistency tolerance; `project` makes it consistent.
    InconsistentState {
        /// `max |g|` scaled by the constraint gradient: a distance in coordinate units.
        position: f64,
        /// `max |g_t + G v|` scaled by the constraint gradient: a speed in coordinate units.
        velocity: f64,
    },
    /// Newton's method did not reach the tolerance within the iteration cap.
    NoConvergence {
        /// The solve that failed.
        phase: Phase,
        /// Iterations done.
        iterations: u32,
        /// Size of the last Newton update relative to the tolerance (above 1 means not met).
        residual: f64,
    },
    /// Newton's updates grew or became non-finite (step too large, or a singular configuration).
    Diverged {
        /// The solve that failed.
        phase: Phase,
        /// Iterations done.
        iterations: u32,
        /// Size of the last Newton update relative to the tolerance.
        residual: f64,
    },
    /// The method has no variant for this kind of model (for example `SymplecticEulerII` on
    /// holonomic constraints, or `LobattoIIIABIndex2` on a Hamiltonian model).
    Unsupported {
        /// What is not supported.
        what: &'static str,
    },
    /// A Newton matrix was singular to working precision (for example a constraint Jacobian
    /// that loses rank, or a Lagrangian whose `∂²L/∂v²` is singular).
    SingularJacobian {
        /// The solve that failed.
        phase: Phase,
    },
    /// A Newton matrix is regular but too ill-conditioned for the tolerance: the rounding of
    /// the residual, propagated through the solve, moves the solution by more than
    /// `newton::ILL_CONDITIONED` (1e4) times the tolerance, so no iterate can be trusted to
    /// it. Near a configuration where the constraints lose rank (a four-bar approaching its
    /// change point) the equations have several nearby solutions; elsewhere, a tolerance far
    /// below what `f64` resolves for the model's scales.
    IllConditioned {
        /// The solve that failed.
        phase: Phase,
        /// The accuracy the solve can attain, in units of the tolerance (above 1e4).
        attainable: f64,
    },
    /// An adaptive driver needed a step smaller than [`crate::Options::min_step`] (or the
    /// round-off floor) to meet the tolerances: a singularity, a discontinuity the model does
    /// not declare, or tolerances below what `f64` allows. The state is left at the last
    /// accepted step, at time `t`.
    StepSizeTooSmall {
        /// Time of the last accepted step.
        t: f64,
        /// The step size that was still too large.
        h: f64,
    },
    /// An adaptive driver used [`crate::Options::max_steps`] steps before reaching its end
    /// time. The state is left at the last accepted step, at time `t`.
    TooManySteps {
        /// Time of the last accepted step.
        t: f64,
    },
    /// The settings of a [`crate::simulate::Reversible`] step-size control are not positive
    /// finite numbers, or are too large for the motion.
    InvalidTolerance {
        /// Which setting is wrong.
        what: &'static str,
    },
    /// A field of [`crate::Options`] is unusable: NaN, negative where it must be positive, or
    /// inconsistent with another field. Checked by every call that reads the options, before
    /// anything is computed.
    InvalidOptions {
        /// The field's name, e.g. `"tolerance"`.
        field: &'static str,
        /// What the field must be.
        requirement: &'static str,
    },
    /// A time argument is unusable: an end time or an output time that is NaN or infinite, or
    /// output times that are not in the direction of integration.
    InvalidTime {
        /// What is wrong.
        what: &'static str,
        /// The offending time.
        t: f64,
    },
    /// At the state's time `t` the step `h` is below the resolution of `f64`: `t + h` rounds to
    /// `t`, or to a time more than 1 % of `h` away from `t + h`, so the state's time could not
    /// follow its motion. Shift the time origin (start at `t = 0`) or take larger steps.
    TimeResolution {
        /// The state's time.
        t: f64,
        /// The step (or the remaining span of an adaptive run) that `t` cannot resolve.
        h: f64,
    },
    /// An event function returned NaN (or ±∞) along the motion: its crossings cannot be
    /// located. The state is left at the last accepted step.
    NonFiniteEvent {
        /// The event's index in the slice given to the driver.
        index: usize,
        /// The time at which it was evaluated.
        t: f64,
    },
    /// A model evaluation is NaN or ±∞ at a finite state (outside the model's domain, e.g. a
    /// square root of a negative number), or its values are so large (beyond `1e150`) that
    /// the products a step forms overflow `f64`.
    NonFiniteEvaluation {
        /// Which evaluation.
        what: &'static str,
    },
    /// The kinetic energy is not positive definite at the state: the mass matrix `∂²L/∂v²`
    /// has a zero or negative eigenvalue (a negative or zero mass or inertia parameter, or a
    /// singular point of the coordinates). The model cannot be stepped or projected there.
    MassNotPositiveDefinite {
        /// The state's time.
        t: f64,
    },
    /// The step Jacobian of this model needs more stack than
    /// [`crate::Options::jacobian_stack_limit`] allows ([`crate::Integrator::step_with_jacobian`];
    /// the state is unchanged).
    JacobianTooLarge {
        /// The estimated stack, in bytes.
        estimate: usize,
        /// The limit it exceeded.
        limit: usize,
    },
    /// A call that forms dense matrices needs more stack than
    /// [`crate::Options::jacobian_stack_limit`] allows: [`crate::Integrator::tangent_basis`]
    /// (and the control layer's tangent bases), whose result alone is two `N × D` matrices
    /// (estimate: [`crate::Integrator::tangent_basis_stack_estimate`]). Nothing is changed.
    StackTooLarge {
        /// The call refused.
        call: &'static str,
        /// The estimated stack, in bytes.
        estimate: usize,
        /// The limit it exceeded.
        limit: usize,
    },
    /// A fixed step's estimated local error exceeds [`crate::Options::fixed_step_error_limit`]
    /// (checked only when that limit is finite): the step size is too large for the
    /// tolerances here. The state is unchanged.
    LocalErrorTooLarge {
        /// The estimated local error, in units of `atol + rtol · |y_i|` (max over the
        /// components).
        estimate: f64,
        /// The limit it exceeded.
        limit: f64,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Error::InvalidStepSize { h } => write!(f, "step size {h} is not a finite nonzero number"),
            Error::NonFiniteParameter { name } => write!(f, "parameter or input `{name}` is not finite"),
            Error::NonFiniteState => write!(f, "the state contains NaN or infinite values"),
            Error::InconsistentState { position, velocity } => write!(
                f,
                "the state violates the constraints (position {position:e}, velocity {velocity:e}); call `project` first"
            ),
            Error::NoConvergence { phase, iterations, residual } => write!(
                f,
                "Newton's method did not converge in the {phase:?} solve after {iterations} iterations (last update {residual:e} x tolerance); reduce the step size"
            ),
            Error::Diverged { phase, iterations, residual } => write!(
                f,
                "Newton's method diverged in the {phase:?} solve after {iterations} iterations (last update {residual:e} x tolerance); reduce the step size or check for a singular configuration"
            ),
            Error::Unsupported { what } => write!(f, "not supported: {what}"),
            Error::StepSizeTooSmall { t, h } => write!(
                f,
                "at t = {t} the tolerances needed a step smaller than {h:e}: look for a singular configuration or an undeclared discontinuity, or loosen rtol/atol"
            ),
            Error::TooManySteps { t } => write!(
                f,
                "stopped at t = {t} after Options::max_steps steps; raise max_steps or loosen rtol/atol"
            ),
            Error::InvalidTolerance { what } => write!(f, "invalid step-size control setting: {what}"),
            Error::InvalidOptions { field, requirement } => write!(
                f,
                "invalid option `Options::{field}`: it must be {requirement}"
            ),
            Error::InvalidTime { what, t } => write!(f, "invalid time {t}: {what}"),
            Error::TimeResolution { t, h } => write!(
                f,
                "at t = {t} a step of {h:e} is below the resolution of f64 (t + h does not advance the time by h); shift the time origin or take larger steps"
            ),
            Error::NonFiniteEvent { index, t } => write!(
                f,
                "event {index} returned a non-finite value at t = {t}; an event function must be finite along the motion"
            ),
            Error::NonFiniteEvaluation { what } => write!(
                f,
                "{what} is not finite or beyond 1e150 at a finite state: the state, parameters or inputs are out of the model's domain or too large"
            ),
            Error::MassNotPositiveDefinite { t } => write!(
                f,
                "the mass matrix (the Hessian of the kinetic energy in the velocities) is not positive definite at t = {t}: check the signs of the masses and inertias"
            ),
            Error::JacobianTooLarge { estimate, limit } => write!(
                f,
                "the step Jacobian of this model needs about {estimate} bytes of stack, more than Options::jacobian_stack_limit ({limit}); run it on a thread with a larger stack and raise the limit"
            ),
            Error::StackTooLarge { call, estimate, limit } => write!(
                f,
                "{call} on this model needs about {estimate} bytes of stack, more than Options::jacobian_stack_limit ({limit}); run it on a thread with a larger stack and raise the limit"
            ),
            Error::LocalErrorTooLarge { estimate, limit } => write!(
                f,
                "the step's estimated local error is {estimate:e} x the tolerances (limit {limit:e}); reduce the step size or use advance_to"
            ),
            Error::SingularJacobian { phase } => write!(
                f,
                "singular Newton matrix in the {phase:?} solve: the constraints lost rank or the Lagrangian is not regular here"
            ),
            Error::IllConditioned { phase, attainable } => write!(
                f,
                "ill-conditioned Newton matrix in the {phase:?} solve: rounding alone moves the solution by {attainable:.1e} times the tolerance; the constraints are close to losing rank here, or the tolerance is below what f64 resolves"
            ),
        }
    }
}

impl core::error::Error for Error {}

#[cfg(test)]
mod tests {
    use super::{Error, Phase};

    /// The variant's name: an exhaustive match, so a new variant fails to compile here until it
    /// is named (and then documented, by the test below).
    fn name(e: &Error) -> &'static str {
        match e {
            Error::InvalidStepSize { .. } => "InvalidStepSize",
            Error::NonFiniteParameter { .. } => "NonFiniteParameter",
            Error::NonFiniteState => "NonFiniteState",
            Error::InconsistentState { .. } => "InconsistentState",
            Error::NoConvergence { .. } => "NoConvergence",
            Error::Diverged { .. } => "Diverged",
            Error::Unsupported { .. } => "Unsupported",
            Error::SingularJacobian { .. } => "SingularJacobian",
            Error::IllConditioned { .. } => "IllConditioned",
            Error::StepSizeTooSmall { .. } => "StepSizeTooSmall",
            Error::TooManySteps { .. } => "TooManySteps",
            Error::InvalidTolerance { .. } => "InvalidTolerance",
            Error::InvalidOptions { .. } => "InvalidOptions",
            Error::InvalidTime { .. } => "InvalidTime",
            Error::TimeResolution { .. } => "TimeResolution",
            Error::NonFiniteEvent { .. } => "NonFiniteEvent",
            Error::NonFiniteEvaluation { .. } => "NonFiniteEvaluation",
            Error::MassNotPositiveDefinite { .. } => "MassNotPositiveDefinite",
            Error::JacobianTooLarge { .. } => "JacobianTooLarge",
            Error::StackTooLarge { .. } => "StackTooLarge",
            Error::LocalErrorTooLarge { .. } => "LocalErrorTooLarge",
        }
    }

    #[test]
    fn every_error_kind_is_in_docs_errors_md_with_a_message() {
        let docs = include_str!("../../docs/errors.md");
        let runtime = &docs[docs.find("# Runtime errors").expect("a runtime section")..];
        let phase = Phase::Stages;
        let all = [
            Error::InvalidStepSize { h: 0.0 },
            Error::NonFiniteParameter { name: "m" },
            Error::NonFiniteState,
            Error::InconsistentState {
                position: 1.0,
                velocity: 0.0,
            },
            Error::NoConvergence {
                phase,
                iterations: 20,
                residual: 2.0,
            },
            Error::Diverged {
                phase,
                iterations: 3,
                residual: 1e9,
            },
            Error::Unsupported { what: "x" },
            Error::SingularJacobian { phase },
            Error::IllConditioned {
                phase,
                attainable: 2e4,
            },
            Error::StepSizeTooSmall { t: 0.0, h: 1e-13 },
            Error::TooManySteps { t: 1.0 },
            Error::InvalidTolerance { what: "x" },
            Error::InvalidOptions {
                field: "tolerance",
                requirement: "positive",
            },
            Error::InvalidTime {
                what: "x",
                t: f64::NAN,
            },
            Error::TimeResolution { t: 1e300, h: 0.01 },
            Error::NonFiniteEvent { index: 0, t: 0.5 },
            Error::NonFiniteEvaluation { what: "x" },
            Error::MassNotPositiveDefinite { t: 0.0 },
            Error::JacobianTooLarge {
                estimate: 2,
                limit: 1,
            },
            Error::StackTooLarge {
                call: "tangent_basis",
                estimate: 2,
                limit: 1,
            },
            Error::LocalErrorTooLarge {
                estimate: 2.0,
                limit: 1.0,
            },
        ];
        let mut names: [&str; 21] = [""; 21];
        for (slot, e) in names.iter_mut().zip(&all) {
            *slot = name(e);
            // A row of the table: "| `Name {" or "| `Name` |".
            let row = [alloc_free_row(slot, " {"), alloc_free_row(slot, "` |")];
            assert!(
                row.iter().any(|r| runtime.contains(r.as_str())),
                "`{slot}` has no row in docs/errors.md"
            );
            let mut message = Message::default();
            core::fmt::write(&mut message, format_args!("{e}")).unwrap();
            assert!(message.len > 12, "{slot}: message too short");
        }
        // Every variant once.
        for (i, a) in names.iter().enumerate() {
            assert!(!names[i + 1..].contains(a), "{a} twice");
        }
    }

    /// `"| `" + name + tail`, in a fixed buffer (the crate has no `alloc`).
    fn alloc_free_row(name: &str, tail: &str) -> Row {
        let mut r = Row::default();
        for part in ["| `", name, tail] {
            r.push(part);
        }
        r
    }

    /// A small string buffer.
    #[derive(Default)]
    struct Row {
        bytes: [u8; 32],
        len: usize,
    }

    impl Row {
        fn push(&mut self, s: &str) {
            self.bytes[self.len..self.len + s.len()].copy_from_slice(s.as_bytes());
            self.len += s.len();
        }
        fn as_str(&self) -> &str {
            core::str::from_utf8(&self.bytes[..self.len]).unwrap()
        }
    }

    /// Counts the bytes of a formatted message.
    #[derive(Default)]
    struct Message {
        len: usize,
    }

    impl core::fmt::Write for Message {
        fn write_str(&mut self, s: &str) -> core::fmt::Result {
            self.len += s.len();
            Ok(())
        }
    }
}
