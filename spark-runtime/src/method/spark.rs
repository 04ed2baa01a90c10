//! The SPARK-family method types: (s,s)-Gauss-Lobatto, Lobatto IIIA-B, IIIA-B-D and the three
//! symplectic Euler methods. Each is a zero-sized type with its coefficients as compile-time
//! constants and a [`Scheme`] saying which model kinds it applies to.

use crate::method::{Method, Run};
use crate::tableau::{
    collocation_matrix, lobatto_iiid, lobatto_nodes, quadrature_weights, symplectic_conjugate,
    GaussLobattoTableau, KroneckerCoefficients, Refusals, Scheme, SparkTableau,
};

/// Implements [`Method`] for a method type whose scheme is `Scheme::Spark` with its `TABLEAU`
/// and the given refusals.
macro_rules! spark_method {
    ($ty:ty, [$($generics:tt)*], $stages:tt, $order:expr, $refuses:expr) => {
        impl<$($generics)*> $ty {
            /// What the method is: its SPARK coefficients and the model kinds it refuses.
            pub const SCHEME: Scheme<$stages> = Scheme::Spark {
                tableau: Self::TABLEAU,
                refuses: $refuses,
            };
        }

        impl<$($generics)*> Method for $ty {
            const ORDER: usize = $order;

            #[inline(always)]
            fn run<R: Run>(run: R) -> R::Output {
                run.run(&Self::SCHEME)
            }
        }
    };
}

/// The (s,s)-Gauss-Lobatto SPARK method with `S` stages (Jay 2007, §3.3): order `2S`,
/// symmetric, symplectic, variational, and exact on the constraints `g = 0` and
/// `g_t + G v = 0` at every step end.
///
/// `S = 1` is the SPARK midpoint-trapezoidal rule (order 2), `S = 2` has order 4, `S = 3`
/// order 6. On nonholonomic constraints `k(t, q, v) = 0` (and any mix with holonomic ones) it is
/// the Gauss SPARK method of Jay's Lagrange-d'Alembert paper (`Â = Ã = A`), again of order `2S`,
/// with `k = 0` exact at every step end; it satisfies the discrete Lagrange-d'Alembert
/// principle and is symmetric. Any `S ≥ 1` compiles; beyond `S ≈ 6` the multiplier block of the Newton system
/// becomes ill-conditioned (det[N; b̃ᵀ] = 3.8e-13 at `S = 6`) and round-off limits the
/// attainable accuracy. `GaussLobatto<0>` is rejected at compile time.
///
/// ```
/// use spark::{GaussLobatto, Integrator, State};
/// spark::mechanics! {
///     pub struct Pendulum {
///         coordinates: [x, y],
///         velocities: [vx, vy],
///         lagrangian: 0.5 * (vx.powi(2) + vy.powi(2)) - 9.81 * y,
///         holonomic: [x.powi(2) + y.powi(2) - 1.0],
///     }
/// }
/// // Order 2S: halving h divides the error of S = 2 by about 16.
/// let end = |h: f64| {
///     let mut sim = Integrator::<Pendulum, GaussLobatto<2>>::new(Pendulum {}, h).unwrap();
///     let mut s = State::new(0.0, [1.0, 0.0], [0.0, 0.0]);
///     for _ in 0..(0.8 / h).round() as usize {
///         sim.step(&mut s).unwrap();
///     }
///     s.q
/// };
/// let reference = end(0.0025);
/// let ratio = (end(0.04) - reference).norm() / (end(0.02) - reference).norm();
/// assert!(ratio > 12.0 && ratio < 20.0, "{ratio}");
/// ```
///
/// Zero stages do not compile (error E0080, "the (s,s)-Gauss-Lobatto SPARK method needs
/// s >= 1"), reported when the step is instantiated: by `cargo build`, not `cargo check`:
///
/// ```compile_fail,E0080
/// use spark::{GaussLobatto, Integrator, State};
/// spark::mechanics! {
///     pub struct Pendulum {
///         coordinates: [x, y],
///         velocities: [vx, vy],
///         lagrangian: 0.5 * (vx.powi(2) + vy.powi(2)) - 9.81 * y,
///         holonomic: [x.powi(2) + y.powi(2) - 1.0],
///     }
/// }
/// let mut sim = Integrator::<Pendulum, GaussLobatto<0>>::new(Pendulum {}, 0.01).unwrap();
/// let mut s = State::new(0.0, [1.0, 0.0], [0.0, 0.0]);
/// sim.step(&mut s).unwrap();
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct GaussLobatto<const S: usize>;

impl<const S: usize> GaussLobatto<S> {
    /// The coefficients, computed at compile time.
    pub const TABLEAU: SparkTableau<S> = {
        assert!(S >= 1, "GaussLobatto<S> needs S >= 1 stages");
        let t = GaussLobattoTableau::<S>::TABLEAU;
        SparkTableau {
            c: t.c,
            b: t.b,
            a: t.a,
            a_hat: t.a,
            s_tilde: S,
            c_lob: t.c_lob,
            b_lob0: t.b_lob0,
            b_lob: t.b_lob,
            a_bar: t.a_bar,
            a_til0: t.a_til0,
            a_til: t.a_til,
            a_nh: t.a,
            b_nh: t.b,
            kron: KroneckerCoefficients::UNSET,
        }
        .derive()
    };
}

spark_method!(GaussLobatto<S>, [const S: usize], S, 2 * S, Refusals::NONE);

/// The Lobatto IIIA-B SPARK method with `S ≥ 2` Lobatto stages: `A` = Lobatto IIIA, `Â` =
/// Lobatto IIIB, `b̂ = b` the Lobatto weights.
///
/// * **Holonomic constraints**: the (s, s−1)-Lobatto IIIA-B SPARK method (Jay 2007, §3.4, for
///   general `S`): `Ã` = IIIB, the constraints `g = 0` imposed at the stages 2..S, the hidden
///   constraint at the step end. `S = 2` is RATTLE (order 2). Symmetric and symplectic; the
///   measured order is `2S − 2` (tests/suite/lobatto.rs).
/// * **Nonholonomic constraints**: the Lobatto IIIA-B Lagrange-d'Alembert SPARK method of Jay
///   (§7.5): nonholonomic reactions with `Ã = IIIB`, `b̃ = b`; `k` imposed through the `S − 1`
///   moments `Σ_j b_j c_j^{i−1} k(T_j, Q_j, V_j) = 0` and at the step end. Order `2S − 2`,
///   symmetric, satisfies the discrete Lagrange-d'Alembert principle; `k(t_n, q_n, v_n) = 0` at
///   every step end. `S = 2` is 004's (7.2) two-phase method.
/// * **Both**: one coupled Newton solve of the two treatments together (`mixed_step`);
///   the constraints `g = 0`, `g_t + G v = 0` and `k = 0` hold at every step end.
///
/// ```
/// use spark_runtime::{LobattoIIIAB, Method};
/// // The s = 2 tableau of Jay's paper: A = [[0, 0], [1/2, 1/2]], Â = Ã = [[1/2, 0], [1/2, 0]].
/// let t = LobattoIIIAB::<2>::TABLEAU;
/// let close = |x: [[f64; 2]; 2], y: [[f64; 2]; 2]| {
///     (0..2).all(|i| (0..2).all(|j| (x[i][j] - y[i][j]).abs() < 1e-15))
/// };
/// assert!(close(t.a, [[0.0, 0.0], [0.5, 0.5]]));
/// assert!(close(t.a_hat, [[0.5, 0.0], [0.5, 0.0]]));
/// assert_eq!(t.a_nh, t.a_hat);
/// assert_eq!(LobattoIIIAB::<3>::ORDER, 4);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct LobattoIIIAB<const S: usize>;

impl<const S: usize> LobattoIIIAB<S> {
    /// The coefficients, computed at compile time.
    pub const TABLEAU: SparkTableau<S> = {
        assert!(S >= 2, "LobattoIIIAB<S> needs S >= 2 stages");
        let c = lobatto_nodes::<S>();
        let a = collocation_matrix(&c, &c);
        let b = quadrature_weights(&c);
        let a_hat = symplectic_conjugate(&a, &b, &b);
        let mut t = SparkTableau {
            c,
            b,
            a,
            a_hat,
            s_tilde: S - 1,
            c_lob: [0.0; S],
            b_lob0: b[0],
            b_lob: [0.0; S],
            a_bar: [[0.0; S]; S],
            a_til0: [0.0; S],
            a_til: [[0.0; S]; S],
            a_nh: a_hat,
            b_nh: b,
            kron: KroneckerCoefficients::UNSET,
        };
        // Constraint node i (0..s̃) is stage i+1: c̃ = c, b̃ = b, Ā = A, Ã = IIIB.
        let mut i = 0;
        while i < S {
            t.a_til0[i] = a_hat[i][0];
            if i >= 1 {
                t.c_lob[i - 1] = c[i];
                t.b_lob[i - 1] = b[i];
                t.a_bar[i - 1] = a[i];
            }
            let mut j = 1;
            while j < S {
                t.a_til[i][j - 1] = a_hat[i][j];
                j += 1;
            }
            i += 1;
        }
        t.derive()
    };
}

spark_method!(LobattoIIIAB<S>, [const S: usize], S, 2 * S - 2, Refusals::NONE);

/// The Lobatto IIIA-B-D SPARK method of Jay's Lagrange-d'Alembert paper (§7.6, general `S ≥ 2`):
/// `A` = Lobatto IIIA, `Â` = Lobatto IIIB, and the nonholonomic reactions with `Ã` = Lobatto
/// IIID = (IIIC + IIIC*)/2, `b̃ = b`.
///
/// * **Nonholonomic constraints**: order `2S − 2`, symmetric, satisfies the discrete
///   Lagrange-d'Alembert principle (no condition on `Ã` is needed for it), `k = 0` at every
///   step end. Unlike IIIA-B, `Ã` has no zero column, so all stage multipliers are coupled.
/// * **Holonomic constraints**: identical to [`LobattoIIIAB`] (the (s, s−1)-Lobatto IIIA-B
///   SPARK treatment; `Ã` = IIIB for the holonomic reactions).
/// * **Both**: the two treatments in one coupled Newton solve.
///
/// ```
/// use spark_runtime::LobattoIIIABD;
/// // Jay's s = 2 reaction tableau Ã = [[1/4, −1/4], [3/4, 1/4]].
/// let a = LobattoIIIABD::<2>::TABLEAU.a_nh;
/// assert!((a[0][0] - 0.25).abs() < 1e-15 && (a[0][1] + 0.25).abs() < 1e-15);
/// assert!((a[1][0] - 0.75).abs() < 1e-15 && (a[1][1] - 0.25).abs() < 1e-15);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct LobattoIIIABD<const S: usize>;

impl<const S: usize> LobattoIIIABD<S> {
    /// The coefficients, computed at compile time.
    pub const TABLEAU: SparkTableau<S> = {
        let mut t = LobattoIIIAB::<S>::TABLEAU;
        t.a_nh = lobatto_iiid::<S>();
        t
    };
}

spark_method!(LobattoIIIABD<S>, [const S: usize], S, 2 * S - 2, Refusals::NONE);

/// The "natural" symplectic Euler SPARK method of Jay 2007, §3.5, with `α = 1/2`:
/// `A = (0)`, `Â = (1)`, `Ã = (α, 0)`, `b̃ = (α, 1 − α)`. Order 1, symplectic.
///
/// It converges for mechanical systems, whose reaction force `−Gᵀλ` is linear in `λ`; on
/// general DAEs with `r` nonlinear in `λ` it does not (it violates (3.3c)). For nonholonomic
/// constraints use [`SymplecticEulerI`], which is this method on holonomic constraints.
///
/// ```
/// use spark::{Error, Integrator, State, SymplecticEuler, SymplecticEulerI};
/// spark::mechanics! {
///     pub struct Skid {
///         coordinates: [x, y, phi],
///         velocities: [vx, vy, vphi],
///         lagrangian: 0.5 * (vx.powi(2) + vy.powi(2) + vphi.powi(2)),
///         nonholonomic: [vx * phi.sin() - vy * phi.cos()],
///     }
/// }
/// let mut s = State::new(0.0, [0.0, 0.0, 0.0], [1.0, 0.0, 0.5]);
/// // The natural symplectic Euler method has no nonholonomic variant; SymplecticEulerI has.
/// let mut natural = Integrator::<Skid, SymplecticEuler>::new(Skid {}, 0.01).unwrap();
/// assert!(matches!(natural.step(&mut s), Err(Error::Unsupported { .. })));
/// let mut first = Integrator::<Skid, SymplecticEulerI>::new(Skid {}, 0.01).unwrap();
/// first.step(&mut s).unwrap();
/// assert!(first.constraint_residual(&s).1 < 1e-12);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct SymplecticEuler;

impl SymplecticEuler {
    /// The weight `α` of the reaction force at the start of the step.
    pub const ALPHA: f64 = 0.5;
    /// The coefficients (`a_nh`, `b_nh` are those of [`SymplecticEulerI`], unused here).
    pub const TABLEAU: SparkTableau<1> = SparkTableau {
        c: [0.0],
        b: [1.0],
        a: [[0.0]],
        a_hat: [[1.0]],
        s_tilde: 1,
        c_lob: [1.0],
        b_lob0: Self::ALPHA,
        b_lob: [1.0 - Self::ALPHA],
        a_bar: [[1.0]],
        a_til0: [Self::ALPHA],
        a_til: [[0.0]],
        a_nh: [[1.0]],
        b_nh: [1.0],
        kron: KroneckerCoefficients::UNSET,
    }
    .derive();
}

spark_method!(
    SymplecticEuler,
    [],
    1,
    1,
    Refusals {
        nonholonomic: Some("SymplecticEuler on nonholonomic constraints (use SymplecticEulerI)"),
        ..Refusals::NONE
    }
);

/// "Symplectic" Euler I of Jay's Lagrange-d'Alembert paper (§7.1): `A = (0)`, `Â = Ã = (1)`,
/// `b = b̂ = b̃ = (1)`, `c = (0)`. Order 1, not symmetric; satisfies the discrete
/// Lagrange-d'Alembert principle.
///
/// For `L = ½vᵀMv − U(q)`, `k = K(q)v + b(q)` one step is `q1 = q0 + h v1`,
/// `M v1 = M v0 − h(∇U(q0) + K(q0)ᵀΨ)`, `0 = K(q1) v1 + b(q1)` (McLachlan-Perlmutter's (4.17)).
/// On holonomic constraints it is [`SymplecticEuler`] (the natural symplectic Euler SPARK
/// method, same `A`, `Â`), order 1; mixed models use both treatments in one coupled solve.
#[derive(Clone, Copy, Debug, Default)]
pub struct SymplecticEulerI;

impl SymplecticEulerI {
    /// The coefficients: [`SymplecticEuler::TABLEAU`], whose nonholonomic part is `Ã = (1)`.
    pub const TABLEAU: SparkTableau<1> = SymplecticEuler::TABLEAU;
}

spark_method!(SymplecticEulerI, [], 1, 1, Refusals::NONE);

/// "Symplectic" Euler II of Jay's Lagrange-d'Alembert paper (§7.2): `A = (1)`, `Â = Ã = (0)`,
/// `b = b̂ = b̃ = (1)`, `c = (1)`. Order 1 on nonholonomic constraints, not symmetric; satisfies
/// the discrete Lagrange-d'Alembert principle.
///
/// For `L = ½vᵀMv − U(q)`, `k = K(q)v + b(q)` one step is `q1 = q0 + h v0` (explicit),
/// `M v1 = M v0 − h(∇U(q1) + K(q1)ᵀΨ)`, `0 = K(q1) v1 + b(q1)`, linear in `(v1, Ψ)`
/// (McLachlan-Perlmutter's (4.12)).
///
/// **Holonomic constraints are not supported** ([`crate::Error::Unsupported`]): the position update
/// `q1 = q0 + h v0` cannot be corrected by any reaction (`Â = Ã = 0`), so `g(q1) = 0` cannot be
/// imposed, and 004 gives no holonomic counterpart. Without holonomic constraints (`M = 0`) the
/// method works on nonholonomic and unconstrained Lagrangian models; Hamiltonian and DAE models
/// are not supported.
///
/// ```
/// use spark::{Error, Integrator, State, SymplecticEulerII};
/// spark::mechanics! {
///     pub struct Pendulum {
///         coordinates: [x, y],
///         velocities: [vx, vy],
///         lagrangian: 0.5 * (vx.powi(2) + vy.powi(2)) - 9.81 * y,
///         holonomic: [x.powi(2) + y.powi(2) - 1.0],
///     }
/// }
/// let mut sim = Integrator::<Pendulum, SymplecticEulerII>::new(Pendulum {}, 0.01).unwrap();
/// let mut s = State::new(0.0, [1.0, 0.0], [0.0, 0.0]);
/// assert!(matches!(sim.step(&mut s), Err(Error::Unsupported { .. })));
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct SymplecticEulerII;

impl SymplecticEulerII {
    /// The coefficients (the holonomic part is a placeholder that is never used).
    pub const TABLEAU: SparkTableau<1> = SparkTableau {
        c: [1.0],
        b: [1.0],
        a: [[1.0]],
        a_hat: [[0.0]],
        s_tilde: 1,
        c_lob: [1.0],
        b_lob0: 0.5,
        b_lob: [0.5],
        a_bar: [[1.0]],
        a_til0: [0.5],
        a_til: [[0.0]],
        a_nh: [[0.0]],
        b_nh: [1.0],
        kron: KroneckerCoefficients::UNSET,
    }
    .derive();
}

spark_method!(
    SymplecticEulerII,
    [],
    1,
    1,
    Refusals {
        holonomic: Some(
            "SymplecticEulerII on holonomic constraints (use SymplecticEulerI or LobattoIIIAB)"
        ),
        nonholonomic: None,
        dae: Some("SymplecticEulerII on Hamiltonian or DAE models"),
    }
);
