//! The method type of paper 002's Lobatto IIIA-B method for index-2 systems.

use crate::method::{LobattoIIIAB, Method, Run};
use crate::tableau::{lobatto_iiia, lobatto_iiib, lobatto_rule, Index2Tableau, Scheme};

/// Lobatto IIIA-B for nonholonomic (index-2) Lagrangian systems in the form of paper 002:
/// `A` = Lobatto IIIA, `Â` = Lobatto IIIB with `S ≥ 2` stages, the constraint
/// `k(T_i, Q_i, W_i) = 0` imposed pointwise at every Lobatto node `i ≥ 2` on the IIIA-updated
/// momenta (see the [module documentation](crate::lobatto_index2) for the equations).
///
/// * **Order** `2S − 2` in `q` and `v` (002, Cor 3.1; measured for `S = 2..5` in
///   tests/suite/lobatto_index2.rs).
/// * **Symmetry**: 002's method with the multiplier carried ([`crate::lobatto_index2::step_with_multiplier`]) is
///   symmetric as a map of `(q, v, ψ)` (stepping back with `−h` from `(q1, v1, Ψ_S)` returns
///   to the start to round-off). The [`Method`] form is **not** symmetric: its backward step
///   starts from the consistent multiplier of `(q1, v1)`, not from `Ψ_S` (measured
///   back-and-forth error 1.7e-4, 1.7e-7, 1.1e-10 for `S = 2, 3, 4` at `h = 0.2` on E8).
/// * **Preserves** `k = 0` at every Lobatto node `i ≥ 2`, in particular
///   `k(t1, q1, v1) = 0` at every step end (to Newton's tolerance).
/// * **Multiplier**: through [`crate::Integrator`] each step starts from the consistent
///   multiplier of `(t0, q0, v0)` ([`crate::lobatto_index2::consistent_multiplier`]) instead of 002's inherited
///   `Λ_s`; [`crate::lobatto_index2::step_with_multiplier`] is 002's method with the multiplier carried by the caller
///   (`Λ_s` then has order `S` for even `S`, `S − 1` for odd `S`).
/// * **Versus [`LobattoIIIAB`]** (Jay's Lagrange-d'Alembert Lobatto IIIA-B SPARK method):
///   same `A`, `Â` and order, but the reactions are weighted with `A` in the momenta `L_i`
///   where the constraint is imposed (SPARK: `Ã` = IIIB) and the constraint holds pointwise at
///   the nodes `2..S` on `(Q_i, W_i)` (SPARK: `S − 1` weighted moments of `k` at the stages
///   plus `k = 0` at the end). For `S = 2` both impose `k` at the step end only, but they
///   differ in the stage multiplier: here `Ψ_1` is given, in the SPARK method it is unknown.
///
/// Models with holonomic constraints are not supported ([`crate::Error::Unsupported`]): 002's method
/// is for index-2 constraints. On unconstrained models (`M = 0`, no `k`) it is the Lobatto
/// IIIA-IIIB pair, and the step is that of [`LobattoIIIAB`] (identical equations). Hamiltonian
/// and DAE models are not supported.
///
/// ```
/// use spark_runtime::{LobattoIIIABIndex2, Method};
/// let t = LobattoIIIABIndex2::<3>::TABLEAU;
/// assert_eq!(t.a[0], [0.0; 3]); // H1: Q_1 = q0, L_1 = p0
/// assert_eq!(t.a_hat[1][2], 0.0); // H1': Λ_s enters only through L_s
/// assert_eq!(LobattoIIIABIndex2::<3>::ORDER, 4);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct LobattoIIIABIndex2<const S: usize>;

impl<const S: usize> LobattoIIIABIndex2<S> {
    /// The coefficients, computed at compile time.
    pub const TABLEAU: Index2Tableau<S> = {
        assert!(S >= 2, "LobattoIIIABIndex2<S> needs S >= 2 stages");
        let (c, b) = lobatto_rule::<S>();
        Index2Tableau {
            c,
            b,
            a: lobatto_iiia::<S>(),
            a_hat: lobatto_iiib::<S>(),
        }
    };
}

impl<const S: usize> LobattoIIIABIndex2<S> {
    /// What the method is: 002's coefficients, and Lobatto IIIA-B SPARK's for unconstrained
    /// models (where the two coincide).
    pub const SCHEME: Scheme<S> = Scheme::Index2 {
        tableau: Self::TABLEAU,
        unconstrained: LobattoIIIAB::<S>::TABLEAU,
    };
}

impl<const S: usize> Method for LobattoIIIABIndex2<S> {
    const ORDER: usize = 2 * S - 2;

    #[inline(always)]
    fn run<R: Run>(run: R) -> R::Output {
        run.run(&Self::SCHEME)
    }
}
