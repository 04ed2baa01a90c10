//! How the holonomic step factors its simplified Newton matrices: densely ([`Dense`], every
//! model's default) or with the model's own sparse factors ([`Sparse`], models with
//! [`Lagrangian::SPARSE_SADDLE`]). The step's iterations are written once, over [`Factoring`].

use nalgebra::{SMatrix, SVector};

use crate::linalg::lu::{Factored, Singular};
use crate::model::blocks::MassForce;
use crate::model::Lagrangian;
use crate::step::gradient::{Gradient, SparseGradient};
use crate::step::stage_matrix::{
    DenseSaddle, EndMatrix, SaddleOps, SparseEnd, SparseSaddle, StageMatrix,
};
use crate::tableau::SparkTableau;

/// What the step evaluates and factors at its start.
pub(crate) struct Start<const N: usize, const M: usize, const S: usize, F, Kept> {
    /// `∂L/∂v` at the step start.
    pub(crate) p: SVector<f64, N>,
    /// `∂L/∂q + Q` at the step start.
    pub(crate) f: SVector<f64, N>,
    /// `L_vq v` at the step start (zero when full Newton alone is used).
    pub(crate) lvq_v: SVector<f64, N>,
    /// What the factoring keeps for the end point.
    pub(crate) kept: Kept,
    /// The simplified Newton matrix of the stages; `None` when not used or singular.
    pub(crate) approx: Option<StageMatrix<N, M, S, F>>,
}

/// The hidden constraint at one point: `w = g_t + G v`, `(∂w/∂q) v` and `G`.
pub(crate) struct Hidden<const M: usize, G> {
    /// `w`.
    pub(crate) w: SVector<f64, M>,
    /// `(∂w/∂q) v`.
    pub(crate) wq_v: SVector<f64, M>,
    /// `G`.
    pub(crate) g: G,
}

/// A way of factoring the step's simplified Newton matrices.
pub(crate) trait Factoring<
    'a,
    Sys: Lagrangian<N, M, K>,
    const N: usize,
    const M: usize,
    const K: usize,
    const S: usize,
>
{
    /// The factored stage blocks.
    type Blocks: SaddleOps<N, M>;
    /// What the step start leaves for the end point.
    type Kept;
    /// The factored end-point matrix.
    type End;
    /// `G` at one point, outside the factored matrices.
    type Gradient: Gradient<N, M>;
    /// Whether these are the model's sparse factors (`Lagrangian::saddle_factor`).
    const SPARSE: bool;

    /// `G` at `(t, q)`.
    fn gradient(sys: &'a Sys, t: f64, q: &SVector<f64, N>) -> Self::Gradient;

    /// The hidden constraint and `G` at `(t, q, v)`.
    fn hidden(
        sys: &'a Sys,
        t: f64,
        q: &SVector<f64, N>,
        v: &SVector<f64, N>,
    ) -> Hidden<M, Self::Gradient>;

    /// Evaluates the step start `(t0, q0, v0)` and, when `simplified`, factors the stage
    /// matrix of step size `h` with `L` there and `G` at `g_at` (on [`Dense`] factors, for a
    /// model with [`Lagrangian::STIFF_DISSIPATION`], `L − h γ ∂Q/∂v`: see [`stiff_mass`]).
    fn start(
        sys: &'a Sys,
        tab: &SparkTableau<S>,
        h: f64,
        at: (f64, &SVector<f64, N>, &SVector<f64, N>),
        g_at: (f64, &SVector<f64, N>),
        simplified: bool,
    ) -> Start<N, M, S, Self::Blocks, Self::Kept>;

    /// Factors `matrix`'s blocks again, in place, with `L` at `at` and `G` at `g_at`, for a
    /// simplified iteration that converges slowly. `None` when the strategy goes straight to
    /// full Newton instead (`matrix` untouched); `Some(false)` when the new matrix is singular
    /// (`matrix` must not be used again).
    ///
    /// `method` is the tableau and the step size, `stages` the iterate: the stage times, positions and velocities (what a model with
    /// [`Lagrangian::STIFF_DISSIPATION`] on [`Dense`] factors evaluates the dissipation's slope
    /// at, [`stiff_mass`]).
    fn refactor(
        sys: &'a Sys,
        method: (&SparkTableau<S>, f64),
        at: (f64, &SVector<f64, N>, &SVector<f64, N>),
        stages: StagePoints<'_, N, S>,
        g_at: (f64, &SVector<f64, N>),
        matrix: &mut StageMatrix<N, M, S, Self::Blocks>,
    ) -> Option<bool>;

    /// The mass matrix at the step start, when the factoring has it (for the prediction of a
    /// model whose mass matrix varies).
    fn start_mass(kept: &Self::Kept) -> Option<&SMatrix<f64, N, N>>;

    /// Factors the end-point matrix at `(t1, q1, v1)` (reaction weight `weight`, reaction
    /// directions `gq1`, which are also the hidden constraint's `∂w/∂v = G(t1, q1)`) into
    /// `slot` (`None` on error); returns the momentum there. (Into the caller's slot: returned
    /// by value, the matrix was copied three times on its way there.)
    fn end(
        sys: &'a Sys,
        kept: &Self::Kept,
        approx: Option<&StageMatrix<N, M, S, Self::Blocks>>,
        at: (f64, &SVector<f64, N>, &SVector<f64, N>),
        weight: f64,
        gq1: &Self::Gradient,
        slot: &mut Option<Self::End>,
    ) -> Result<SVector<f64, N>, Singular>;

    /// Overwrites `(rv, rmu)` with the solution of the end-point system.
    fn end_solve(
        end: &Self::End,
        approx: Option<&StageMatrix<N, M, S, Self::Blocks>>,
        rv: &mut SVector<f64, N>,
        rmu: &mut SVector<f64, M>,
    );

    /// The condition number of the end point's Schur complement (an estimate).
    fn end_condition(end: &Self::End) -> f64;
}

/// Dense factors of `L` and `G L⁻¹ Gᵀ` (`linalg::lu`).
pub(crate) struct Dense;

impl<
        'a,
        Sys: Lagrangian<N, M, K>,
        const N: usize,
        const M: usize,
        const K: usize,
        const S: usize,
    > Factoring<'a, Sys, N, M, K, S> for Dense
{
    type Blocks = DenseSaddle<N, M>;
    /// The step start's evaluation with its mass matrix.
    type Kept = MassForce<N>;
    /// The end matrix and the mass-matrix factors it was built with, unless they are the
    /// stage matrix's.
    type End = (EndMatrix<N, M>, Option<Factored<N>>);
    type Gradient = SMatrix<f64, M, N>;
    const SPARSE: bool = false;

    fn gradient(sys: &'a Sys, t: f64, q: &SVector<f64, N>) -> Self::Gradient {
        sys.constraint_gradient(t, q).1
    }

    fn hidden(
        sys: &'a Sys,
        t: f64,
        q: &SVector<f64, N>,
        v: &SVector<f64, N>,
    ) -> Hidden<M, Self::Gradient> {
        let h = sys.velocity_constraint(t, q, v);
        Hidden {
            w: h.w,
            wq_v: h.wq_v,
            g: h.gq,
        }
    }

    #[inline(always)]
    fn start(
        sys: &'a Sys,
        tab: &SparkTableau<S>,
        h: f64,
        (t0, q0, v0): (f64, &SVector<f64, N>, &SVector<f64, N>),
        (tg, qg): (f64, &SVector<f64, N>),
        simplified: bool,
    ) -> Start<N, M, S, Self::Blocks, Self::Kept> {
        // Each branch builds its `Start` in place (a matrix built first and moved in was
        // copied on the way).
        if simplified {
            let d0 = sys.mass_force(t0, q0, v0);
            let g_mid = sys.constraint_gradient(tg, qg).1;
            Start {
                p: d0.p,
                f: d0.f,
                lvq_v: d0.lvq_v,
                approx: if Sys::STIFF_DISSIPATION {
                    let fv = sys.dynamics_jacobian(t0, q0, v0).fv;
                    StageMatrix::new(tab, &stiff_mass(tab, h, &d0.lvv, &fv), &g_mid)
                } else {
                    StageMatrix::new(tab, &d0.lvv, &g_mid)
                },
                kept: d0,
            }
        } else {
            let (p, f) = sys.momentum_force(t0, q0, v0);
            Start {
                p,
                f,
                lvq_v: SVector::zeros(),
                kept: MassForce {
                    p,
                    f,
                    ..MassForce::default()
                },
                approx: None,
            }
        }
    }

    /// Dense models go straight to full Newton, except those with stiff dissipation: their
    /// matrix is made again with the dissipation's slope averaged over the stages of the
    /// iterate (a joint whose velocity crosses zero in the step has its steepest friction at
    /// the stages, not at the start).
    fn refactor(
        sys: &'a Sys,
        (tab, h): (&SparkTableau<S>, f64),
        (t0, q0, v0): (f64, &SVector<f64, N>, &SVector<f64, N>),
        (times, qs, vs): StagePoints<'_, N, S>,
        (tg, qg): (f64, &SVector<f64, N>),
        matrix: &mut StageMatrix<N, M, S, Self::Blocks>,
    ) -> Option<bool> {
        if !Sys::STIFF_DISSIPATION {
            return None;
        }
        let mut fv = SMatrix::<f64, N, N>::zeros();
        for i in 0..S {
            fv += sys.dynamics_jacobian(times[i], &qs[i], &vs[i]).fv;
        }
        fv /= S as f64;
        let lvv = sys.mass_force(t0, q0, v0).lvv;
        let g = sys.constraint_gradient(tg, qg).1;
        match StageMatrix::new(tab, &stiff_mass(tab, h, &lvv, &fv), &g) {
            Some(m) => {
                *matrix = m;
                Some(true)
            }
            None => Some(false),
        }
    }

    fn start_mass(kept: &Self::Kept) -> Option<&SMatrix<f64, N, N>> {
        Some(&kept.lvv)
    }

    #[inline(always)]
    fn end(
        sys: &'a Sys,
        kept: &Self::Kept,
        approx: Option<&StageMatrix<N, M, S, Self::Blocks>>,
        (t1, q1, v1): (f64, &SVector<f64, N>, &SVector<f64, N>),
        weight: f64,
        gq1: &Self::Gradient,
        slot: &mut Option<Self::End>,
    ) -> Result<SVector<f64, N>, Singular> {
        *slot = None;
        // A constant mass matrix (declared by the model, or found equal to the step start's)
        // is not evaluated or factored again.
        // (Not with `STIFF_DISSIPATION`: the stage matrix's blocks hold `L` shifted by the
        // dissipation's slope, which the end point's equations do not have.)
        let reuse = approx.is_some() && !Sys::STIFF_DISSIPATION;
        let (own, p) = if reuse && Sys::CONSTANT_MASS {
            (None, sys.momentum(t1, q1, v1))
        } else {
            let d = sys.mass_force(t1, q1, v1);
            let same = reuse && kept.lvv.as_slice() == d.lvv.as_slice();
            let own = if same {
                None
            } else {
                Some(Factored::new(&d.lvv)?)
            };
            (own, d.p)
        };
        let mass = own
            .as_ref()
            .or_else(|| approx.map(|a| a.blocks().mass()))
            .ok_or(Singular { column: 0 })?;
        *slot = Some((EndMatrix::new(mass, weight, gq1, gq1)?, own));
        Ok(p)
    }

    fn end_solve(
        (m, own): &Self::End,
        approx: Option<&StageMatrix<N, M, S, Self::Blocks>>,
        rv: &mut SVector<f64, N>,
        rmu: &mut SVector<f64, M>,
    ) {
        if let Some(mass) = own.as_ref().or_else(|| approx.map(|a| a.blocks().mass())) {
            m.solve(mass, rv, rmu);
        }
    }

    fn end_condition((m, _): &Self::End) -> f64 {
        m.condition()
    }
}

/// The stage times, positions and velocities of a stage iterate.
pub(crate) type StagePoints<'w, const N: usize, const S: usize> = (
    &'w [f64; S],
    &'w [SVector<f64, N>; S],
    &'w [SVector<f64, N>; S],
);

/// The momentum blocks of the simplified stage matrix of a model with stiff dissipation
/// ([`Lagrangian::STIFF_DISSIPATION`]: dry friction), `L − h γ ∂Q/∂v` at the step start.
///
/// The exact blocks are `L δ_ij − h â_ij ∂Q/∂v(V_j)` (the forces enter the stage momenta with
/// `Â`, [`SparkTableau::a_hat`]); the simplified matrix must keep the form `I ⊗ B` for its
/// Kronecker elimination, so `Â` is replaced by `γ I` with `γ` the mean of its eigenvalues,
/// `tr Â / S`. Where the slope dominates `L` (a joint at rest in its friction's steep
/// band: `h f/ε` against its inertia), simplified Newton then contracts like `I − Â/γ`:
/// with Gauss's `Â` at S = 2 (eigenvalues `(3 ± i√3)/12`) by 0.58 per iteration, where the
/// mass matrix alone made it diverge (the friction tree of `tests/mechanisms/tree_factors.rs`
/// at its 131st step). The step's solution is unchanged: only the iteration matrix is.
fn stiff_mass<const N: usize, const S: usize>(
    tab: &SparkTableau<S>,
    h: f64,
    lvv: &SMatrix<f64, N, N>,
    fv: &SMatrix<f64, N, N>,
) -> SMatrix<f64, N, N> {
    let gamma = (0..S).map(|i| tab.a_hat[i][i]).sum::<f64>() / S as f64;
    lvv - fv * (h * gamma)
}

/// The model's sparse factors ([`Lagrangian::saddle_factor`]): no `N × N` or `M × M` matrix
/// is formed. A model whose mass matrix varies gets the constant-acceleration prediction (the
/// linear one needs `L` at two points).
pub(crate) struct Sparse;

impl<
        'a,
        Sys: Lagrangian<N, M, K> + 'a,
        const N: usize,
        const M: usize,
        const K: usize,
        const S: usize,
    > Factoring<'a, Sys, N, M, K, S> for Sparse
{
    type Blocks = SparseSaddle<'a, Sys, N, M, K>;
    type Kept = ();
    type End = SparseEnd<'a, Sys, N, M, K>;
    type Gradient = SparseGradient<'a, Sys, N, M, K>;
    const SPARSE: bool = true;

    fn gradient(sys: &'a Sys, t: f64, q: &SVector<f64, N>) -> Self::Gradient {
        SparseGradient::new(sys, t, q)
    }

    fn hidden(
        sys: &'a Sys,
        t: f64,
        q: &SVector<f64, N>,
        v: &SVector<f64, N>,
    ) -> Hidden<M, Self::Gradient> {
        let (w, wq_v) = sys.hidden_constraint(t, q, v);
        Hidden {
            w,
            wq_v,
            g: SparseGradient::new(sys, t, q),
        }
    }

    fn start(
        sys: &'a Sys,
        tab: &SparkTableau<S>,
        _h: f64,
        (t0, q0, v0): (f64, &SVector<f64, N>, &SVector<f64, N>),
        g_at: (f64, &SVector<f64, N>),
        simplified: bool,
    ) -> Start<N, M, S, Self::Blocks, Self::Kept> {
        let (p, f, lvq_v) = sys.momentum_force_lvq_v(t0, q0, v0);
        let approx = if simplified {
            SparseSaddle::new(sys, (t0, q0, v0), g_at)
                .and_then(|b| StageMatrix::with_blocks(tab, b).ok())
        } else {
            None
        };
        Start {
            p,
            f,
            lvq_v,
            kept: (),
            approx,
        }
    }

    /// The sparse factors are cheap to redo: a slow iteration refactors them at its iterate
    /// (into the same store) before full (dense) Newton is tried.
    fn refactor(
        _: &'a Sys,
        _: (&SparkTableau<S>, f64),
        at: (f64, &SVector<f64, N>, &SVector<f64, N>),
        _: StagePoints<'_, N, S>,
        g_at: (f64, &SVector<f64, N>),
        matrix: &mut StageMatrix<N, M, S, Self::Blocks>,
    ) -> Option<bool> {
        Some(matrix.blocks_mut().refactor(at, g_at))
    }

    fn start_mass(_: &Self::Kept) -> Option<&SMatrix<f64, N, N>> {
        None
    }

    fn end(
        sys: &'a Sys,
        _: &Self::Kept,
        _: Option<&StageMatrix<N, M, S, Self::Blocks>>,
        (t1, q1, v1): (f64, &SVector<f64, N>, &SVector<f64, N>),
        weight: f64,
        _: &Self::Gradient,
        slot: &mut Option<Self::End>,
    ) -> Result<SVector<f64, N>, Singular> {
        *slot = None;
        let p = sys.momentum(t1, q1, v1);
        let saddle =
            SparseSaddle::new(sys, (t1, q1, v1), (t1, q1)).ok_or(Singular { column: 0 })?;
        *slot = Some(SparseEnd::new(saddle, weight));
        Ok(p)
    }

    fn end_solve(
        end: &Self::End,
        _: Option<&StageMatrix<N, M, S, Self::Blocks>>,
        rv: &mut SVector<f64, N>,
        rmu: &mut SVector<f64, M>,
    ) {
        end.solve(rv, rmu);
    }

    fn end_condition(end: &Self::End) -> f64 {
        end.condition()
    }
}
