//! The method types users choose as the second parameter of [`crate::Integrator`].
//!
//! Each is a zero-sized type whose SPARK coefficients are computed at compile time and fed to
//! the one step implementation in `spark_step`.

use crate::error::Error;
use crate::integrator::{Method, Options, StepStats};
use crate::mixed_step::step_mixed;
use crate::nonholonomic::Nonholonomic;
use crate::odae_step::{self, Point};
use crate::spark_step::{step, SparkTableau};
use crate::state::State;
use crate::system::{Lagrangian, Odae};
use crate::tableau::{
    collocation_matrix, lobatto_nodes, quadrature_weights, symplectic_conjugate,
    GaussLobattoTableau,
};

/// Implements [`Method`] for a method type with an associated `TABLEAU`: both steps are the
/// shared SPARK steps with that tableau.
macro_rules! method {
    ($ty:ty, [$($generics:tt)*], $order:expr, |$tab:ident, $sys:ident, $h:ident, $o:ident, $st:ident| $mixed:expr) => {
        impl<$($generics)*> Method for $ty {
            const ORDER: usize = $order;

            fn step<Sys: Lagrangian<N, M>, const N: usize, const M: usize>(
                sys: &Sys,
                h: f64,
                options: &Options,
                state: &State<N>,
            ) -> Result<(State<N>, StepStats), Error> {
                step(&Self::TABLEAU, sys, h, options, state)
            }

            fn step_mixed<
                Sys: Nonholonomic<N, M, K>,
                const N: usize,
                const M: usize,
                const K: usize,
            >(
                $sys: &Sys,
                $h: f64,
                $o: &Options,
                $st: &State<N>,
            ) -> Result<(State<N>, StepStats), Error> {
                let $tab = &Self::TABLEAU;
                $mixed
            }

            fn step_odae<Sys: Odae<N, M>, const N: usize, const M: usize>(
                sys: &Sys,
                h: f64,
                options: &Options,
                start: &Point<N, M>,
            ) -> Result<(Point<N, M>, StepStats), Error> {
                odae_step::step(&Self::TABLEAU, sys, h, options, start)
            }
        }
    };
}

/// The (s,s)-Gauss-Lobatto SPARK method with `S` stages (Jay 2007, §3.3): order `2S`,
/// symmetric, symplectic, variational, and exact on the constraints `g = 0` and
/// `g_t + G v = 0` at every step end.
///
/// `S = 1` is the SPARK midpoint-trapezoidal rule (order 2), `S = 2` has order 4, `S = 3`
/// order 6. Any `S ≥ 1` compiles; beyond `S ≈ 6` the multiplier block of the Newton system
/// becomes ill-conditioned (det[N; b̃ᵀ] = 3.8e-13 at `S = 6`) and round-off limits the
/// attainable accuracy. `GaussLobatto<0>` is rejected at compile time.
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
        }
    };
}

method!(GaussLobatto<S>, [const S: usize], 2 * S, |tab, sys, h, o, st| {
    step_mixed(tab, sys, h, o, st)
});

/// The (s, s−1)-Lobatto IIIA-B SPARK method with `S ≥ 2` Lobatto stages (Jay 2007, §3.4, for
/// general `S`): `A` = Lobatto IIIA, `Â = Ã` = Lobatto IIIB, constraints at the stages.
///
/// `S = 2` is RATTLE (order 2). For general `S` the method is symmetric and symplectic; the
/// measured order on holonomically constrained systems is `2S − 2` (tests/lobatto.rs).
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
        t
    };
}

method!(LobattoIIIAB<S>, [const S: usize], 2 * S - 2, |_t, _s, _h, _o, _st| {
    Err(Error::Unsupported {
        what: "LobattoIIIAB on nonholonomic constraints (use GaussLobatto)",
    })
});

/// The "natural" symplectic Euler SPARK method of Jay 2007, §3.5, with `α = 1/2`:
/// `A = (0)`, `Â = (1)`, `Ã = (α, 0)`, `b̃ = (α, 1 − α)`. Order 1, symplectic.
///
/// It converges for mechanical systems, whose reaction force `−Gᵀλ` is linear in `λ`; on
/// general DAEs with `r` nonlinear in `λ` it does not (it violates (3.3c)).
#[derive(Clone, Copy, Debug, Default)]
pub struct SymplecticEuler;

impl SymplecticEuler {
    /// The weight `α` of the reaction force at the start of the step.
    pub const ALPHA: f64 = 0.5;
    /// The coefficients.
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
    };
}

method!(SymplecticEuler, [], 1, |_t, _s, _h, _o, _st| {
    Err(Error::Unsupported {
        what: "SymplecticEuler on nonholonomic constraints (use GaussLobatto)",
    })
});
