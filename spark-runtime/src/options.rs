//! Solver settings and step statistics: plain data, imported by every layer (this module
//! imports nothing from the crate).

/// Solver settings. The defaults suit problems scaled to O(1); see each field. Every call that
/// reads them first checks each field's domain: a NaN, a negative tolerance or a zero
/// `max_iterations` is [`crate::Error::InvalidOptions`], naming the field.
///
/// ```
/// use spark_runtime::Options;
/// let tight = Options { tolerance: 1e-14, ..Options::default() };
/// assert_eq!(tight.max_iterations, 20);
/// assert!(tight.simplified_newton);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Options {
    /// Newton stops when the estimated remaining error of the step's velocity unknowns is below
    /// `tolerance` times the **velocity scale** of the step: the largest velocity component in
    /// magnitude, `max_i |v_i|`, over the start velocity `v0` and the current iterates of the
    /// stage and end velocities (for Hamiltonian and DAE models: the largest `|z_i|`, and
    /// `|h| max_i |v_i|` for the stage coordinates). Below rounding level (for the holonomic
    /// stages, 64 ε times that scale plus `(1 + max|q0|)/|h|`) the iteration stops when it no
    /// longer contracts, and an update that grows right after one at rounding level counts as
    /// rounding too while it stays within 8 times that level. Must be positive and finite.
    /// Default `1e-12`.
    ///
    /// The closure a holonomic step leaves, `|g(q1)|`, is bounded by the rounding of the
    /// coordinates as well: a hinge angle that grows without bound (a crank, or a bar hinged
    /// to it, after thousands of turns) has an ulp of 9e-13 at 6000 rad. A model that is
    /// 2π-periodic in it keeps it small by wrapping it between steps (`examples/jansen.rs`).
    pub tolerance: f64,
    /// Newton iterations allowed per solve before [`crate::Error::NoConvergence`]. Default 20.
    pub max_iterations: u32,
    /// A state whose constraint violation, measured as a distance in coordinate units relative
    /// to `1 + max|q|` (and as a speed relative to `1 + max|v|`), exceeds this is rejected by
    /// `step` with [`crate::Error::InconsistentState`] (and by `multipliers` and
    /// `tangent_basis`). Must be non-negative (`f64::INFINITY` accepts any state). Default
    /// `1e-8`.
    pub consistency_tolerance: f64,
    /// Solve each step's Newton systems by simplified Newton first: for holonomic Lagrangian
    /// models the iteration matrix is a block-structured approximation evaluated once per step
    /// at its start (mass matrix and constraint Jacobian there; only `N × N` and `M × M` blocks
    /// are factored); if that iteration converges slowly (rate above 1/2) or not at all, the
    /// solve is redone with full Newton and the exact Jacobian before an error is reported
    /// (models with sparse factors first refactor them once at the current iterate and go on).
    /// Converged results agree with full Newton's to round-off. `false`: full Newton
    /// throughout (except for the large sparse models of [`Options::DENSE_NEWTON_LIMIT`]).
    /// Default `true`.
    pub simplified_newton: bool,
    /// Whether a simplified iteration that fails ([`Options::simplified_newton`]) is redone
    /// with full Newton. Full Newton factors the dense exact matrix of all of a solve's unknowns,
    /// `S (N + M)` square for the holonomic stages: by far the largest stack user of a step
    /// (about 51 kB for a 3D chain of 10 masses at `S = 2`, 3.3 MB at 80 masses), and the only
    /// part whose stack grows quadratically for models with sparse factors. `false`: the step
    /// fails instead ([`crate::Error::NoConvergence`] or [`crate::Error::Diverged`], state
    /// untouched), so the stack a step needs is that of the simplified path, for targets with
    /// little RAM; retry with a smaller `h` (the adaptive drivers, such as
    /// [`crate::Integrator::advance_to`], do so themselves: they take the failure as a rejected
    /// step and retry with a quarter of the step size). Default `true`. Models with sparse
    /// factors and more than [`Options::DENSE_NEWTON_LIMIT`] stage unknowns never fall back.
    pub full_newton_fallback: bool,
    /// Relative tolerance of the adaptive drivers ([`crate::Integrator::advance_to`]): a step
    /// is accepted when its estimated local error in every component `y_i` of the state
    /// (coordinates and velocities; momenta for Hamiltonian models; `y` and `z` for DAE
    /// models) is at most `atol + rtol · |y_i|`. Fixed steps ignore it. Default `1e-6`.
    pub rtol: f64,
    /// Absolute tolerance of the adaptive drivers, in the units of each component (see
    /// [`Options::rtol`]). Default `1e-6`.
    pub atol: f64,
    /// Smallest step size `|h|` the adaptive drivers may take before they give up with
    /// [`crate::Error::StepSizeTooSmall`]; `0.0` means the round-off floor
    /// `1e-12 · max(1, |t|)`. Default `0.0`.
    pub min_step: f64,
    /// Largest step size `|h|` the adaptive drivers may take. Default `f64::INFINITY`.
    pub max_step: f64,
    /// Steps (accepted and rejected) one call of an adaptive driver may take before it stops
    /// with [`crate::Error::TooManySteps`], leaving the state at the last accepted step.
    /// Default `1_000_000`.
    pub max_steps: u32,
    /// The largest estimated local error [`crate::Integrator::step`] accepts, in units of
    /// `atol + rtol · |y_i|` ([`Options::atol`], [`Options::rtol`]): a fixed step whose
    /// estimate is larger fails with [`crate::Error::LocalErrorTooLarge`], the state unchanged.
    /// The estimate is Richardson's (the step against two steps of `h/2`, the ratio to the true
    /// local error tending to 1 as `h → 0`), so a checked step costs three step solves: the
    /// result is the unchecked step's, bit for bit. `f64::INFINITY` (the default) leaves fixed
    /// steps unchecked; the adaptive drivers control the error themselves and ignore it. A
    /// limit must be positive (NaN is refused), and a finite one needs usable `rtol` and `atol`
    /// ([`crate::Error::InvalidOptions`] otherwise).
    pub fixed_step_error_limit: f64,
    /// The most stack, in bytes, that [`crate::Integrator::step_with_jacobian`] may use: a
    /// model whose Jacobian needs more (estimated from its sizes,
    /// [`crate::Integrator::jacobian_stack_estimate`]) gets
    /// [`crate::Error::JacobianTooLarge`], the state unchanged, instead of overflowing the
    /// stack. The Jacobian's frames grow with the square of the model's size: about 0.2 MB for
    /// a 3D chain of 5 masses (15 coordinates) at `S = 2`, 0.9 MB at 10 masses, 3.4 MB at 20.
    /// Default 1.5 MiB, which leaves half a MiB for the caller's frames in a spawned thread's
    /// default 2 MiB stack; raise it where the stack is larger (the main thread's is usually
    /// 8 MiB, or `std::thread::Builder::stack_size`), lower it on a small target. The same
    /// limit bounds [`crate::Integrator::tangent_basis`] (two dense `N × D` matrices,
    /// [`crate::Integrator::tangent_basis_stack_estimate`]), which returns
    /// [`crate::Error::StackTooLarge`] above it.
    pub jacobian_stack_limit: usize,
}

impl Options {
    /// The largest holonomic stage system, `S (N + M)` unknowns, that a model with sparse
    /// factors (`Lagrangian::SPARSE_SADDLE`, emitted for `mechanics!` models whose factors pay
    /// off) solves with dense full Newton. Beyond it, [`Options::simplified_newton`] and
    /// [`Options::full_newton_fallback`] are taken as `true` and `false`: the dense matrix
    /// would be the step's largest stack user by far (its frame is about 200 kB for a 3D chain
    /// of 10 masses at `S = 2` and 3.9 MB at 40 masses on thumbv7em; one whole sparse step
    /// takes 21.6 kB on the Cortex-M4F at 10 masses and 83 KiB on x86-64 at 40), so it is
    /// not compiled in. A step whose simplified iteration fails
    /// there (after its refactorization) returns [`crate::Error::NoConvergence`] with the state
    /// untouched; the adaptive drivers retry with a smaller step.
    pub const DENSE_NEWTON_LIMIT: usize = 48;

    /// The defaults, as a constant (usable in `const` items: `..Options::DEFAULT`).
    ///
    /// ```
    /// use spark_runtime::Options;
    /// const LOOSE: Options = Options { rtol: 1e-4, atol: 1e-4, ..Options::DEFAULT };
    /// assert_eq!(LOOSE.tolerance, Options::default().tolerance);
    /// ```
    pub const DEFAULT: Options = Options {
        tolerance: 1e-12,
        max_iterations: 20,
        consistency_tolerance: 1e-8,
        simplified_newton: true,
        full_newton_fallback: true,
        rtol: 1e-6,
        atol: 1e-6,
        min_step: 0.0,
        max_step: f64::INFINITY,
        max_steps: 1_000_000,
        fixed_step_error_limit: f64::INFINITY,
        jacobian_stack_limit: 3 << 19,
    };
}

impl Default for Options {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// What one step cost.
///
/// ```
/// use spark_runtime::StepStats;
/// assert_eq!(StepStats::default().stage_iterations, 0);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StepStats {
    /// Newton iterations of the stage solve.
    pub stage_iterations: u32,
    /// Newton iterations of the end-point solve.
    pub end_iterations: u32,
    /// Times the step factored its simplified stage matrix again, at the current iterate,
    /// because the iteration converged slowly: at most once per step, and only in the
    /// holonomic step of a model with sparse factors ([`crate::Lagrangian::SPARSE_SADDLE`]);
    /// other steps go straight to full Newton.
    pub refactorizations: u32,
}
