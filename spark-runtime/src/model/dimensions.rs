//! The sizes a Lagrangian model fixes, as one trait whose const parameters inference reads.

use nalgebra::SVector;

use crate::model::{Inputs, Lagrangian};

/// A Lagrangian model as a controller sees it: its sizes, all fixed by the model, and a setter
/// for its inputs. The sizes: `N` coordinates, `M` holonomic and
/// `K` nonholonomic constraints, `U` inputs, the tangent dimension `D = 2N − 2M − K` of its
/// manifold of consistent states, and `X = 2N`, the length of a state `(q, v)` as one vector.
///
/// Stable Rust has no arithmetic on const parameters, so `D` and `X` cannot be computed from
/// `N`, `M`, `K` inside a signature. `mechanics!` implements this trait once per model with the
/// numbers filled in; a function bounded by `Sys: Dimensions<N, M, K, U, D, X>` then has every
/// size inferred from the model (one impl, one candidate), and a size the user writes wrongly
/// is an unsatisfied bound at the user's own line.
///
/// ```
/// use spark::{Dimensions, GaussLobatto, Integrator, State, TangentBasis};
///
/// spark::mechanics! {
///     pub struct Pendulum {
///         coordinates: [x, y],
///         velocities: [vx, vy],
///         parameters: [g = 9.81],
///         inputs: [torque],
///         lagrangian: 0.5 * (vx.powi(2) + vy.powi(2)) - g * y,
///         forces: [-torque * y, torque * x],
///         holonomic: [x.powi(2) + y.powi(2) - 1.0],
///     }
/// }
///
/// fn sizes<S: Dimensions<N, M, K, U, D, X>, const N: usize, const M: usize, const K: usize,
///          const U: usize, const D: usize, const X: usize>(_: &S) -> [usize; 6] {
///     [N, M, K, U, D, X]
/// }
/// assert_eq!(sizes(&Pendulum::default()), [2, 1, 0, 1, 2, 4]);
///
/// // No turbofish: the model gives D.
/// let sim = Integrator::<Pendulum, GaussLobatto<2>>::new(Pendulum::default(), 0.01).unwrap();
/// let basis = sim.tangent(&State::new(0.0, [1.0, 0.0], [0.0, 0.0])).unwrap();
/// let _: TangentBasis<2, 2> = basis;
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` does not have the sizes `Dimensions<{N}, {M}, {K}, {U}, {D}, {X}>` asked for here",
    label = "these sizes do not match the model",
    note = "`Dimensions<N, M, K, U, D, X>`: N coordinates, M holonomic and K nonholonomic \
            constraints, U inputs, tangent dimension D = 2N − 2M − K, X = 2N; the model fixes \
            every size: leave them to inference"
)]
pub trait Dimensions<
    const N: usize,
    const M: usize,
    const K: usize,
    const U: usize,
    const D: usize,
    const X: usize,
>: Lagrangian<N, M, K> + Inputs<N, U>
{
    /// Evaluated by every function bounded by this trait: the sizes are consistent. A
    /// hand-written impl with wrong numbers fails to compile where it is used.
    const CONSISTENT: () = assert!(
        D + 2 * M + K == 2 * N && X == 2 * N,
        "Dimensions: D must be 2N − 2M − K and X must be 2N"
    );

    /// Sets the inputs, in the order of `inputs: [...]` (the inverse of [`Inputs::inputs`]).
    fn set_inputs(&mut self, u: &SVector<f64, U>);
}
