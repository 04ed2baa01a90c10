//! Block-structured iteration matrices for the simplified Newton iterations of the holonomic
//! SPARK step (`spark_step`), after the decoupling idea of Jay, "Iterative solution of nonlinear
//! equations for SPARK methods applied to DAEs" (Numer. Algorithms 31, 2002).
//!
//! The exact stage matrix couples all `S` stages through the coefficients and has size
//! `S (N + M)`. Evaluating every block at the step start `(t0, q0, v0)` instead of at the stage
//! points (an O(h) change, which only slows the linear convergence of the simplified iteration
//! by a factor O(h) and does not change its limit) gives it Kronecker structure:
//!
//! ```text
//! [ I ⊗ L     Ã' ⊗ Gᵀ ] [ΔV]   [r_V]        L = ∂²L/∂v∂v (t0, q0, v0),  G = g_q(t0, q0),
//! [ Ā' ⊗ G    0       ] [Δμ] = [r_μ]        Ã' = (ã_i0, ã_i1, …),  Ā' = (ā_ik), i ≥ 1.
//! ```
//!
//! The terms `h L_vq`, `h² L_qq` and the constraint Hessians are dropped as well (they are
//! O(h) relative to `L`). Eliminating `ΔV` leaves `(Ā'Ã') ⊗ (G L⁻¹ Gᵀ)` for the multipliers, so
//! one step factors an `N × N` and an `M × M` matrix and inverts the tiny `s̃ × s̃` matrix
//! `Ā'Ã'`, instead of factoring a dense `S(N + M)` matrix: for the 8-link chain with `S = 2`,
//! 16³/3 + 8³/3 instead of 48³/3 multiply-adds. When the iteration converges slowly (large
//! steps, strongly varying mass matrices) the step falls back to full Newton with the exact
//! matrix.

// Stage and block indices follow the paper's subscripts.
#![allow(clippy::needless_range_loop)]

use core::marker::PhantomData;

use nalgebra::{SMatrix, SVector};

use crate::linalg::lu::{Factored, Singular};
use crate::model::saddle::SaddleStore;
use crate::model::Lagrangian;
use crate::tableau::SparkTableau;

/// The operations the block elimination needs of the mass matrix `L` and the constraint
/// Jacobian `G`, factored: dense ([`DenseSaddle`]) or the model's sparse factors
/// ([`SparseSaddle`]).
pub(crate) trait SaddleOps<const N: usize, const M: usize> {
    /// `x ← L⁻¹ x`.
    fn solve_mass(&self, x: &mut SVector<f64, N>);
    /// `G x`.
    fn g_mul(&self, x: &SVector<f64, N>) -> SVector<f64, M>;
    /// `Gᵀ y`.
    fn g_tr_mul(&self, y: &SVector<f64, M>) -> SVector<f64, N>;
    /// `L⁻¹ Gᵀ y`.
    #[inline(always)]
    fn mass_g_tr(&self, y: &SVector<f64, M>) -> SVector<f64, N> {
        let mut x = self.g_tr_mul(y);
        self.solve_mass(&mut x);
        x
    }
    /// `y ← (G L⁻¹ Gᵀ)⁻¹ y`.
    fn solve_schur(&self, y: &mut SVector<f64, M>);
    /// `L⁻¹ mᵀ`, column by column (`m`: a few rows, `K_v` say).
    #[inline(always)]
    fn mass_solve_rows<const K: usize>(&self, m: &SMatrix<f64, K, N>) -> SMatrix<f64, N, K> {
        let mut w = m.transpose();
        for l in 0..K {
            let mut col: SVector<f64, N> = w.column(l).into_owned();
            self.solve_mass(&mut col);
            w.set_column(l, &col);
        }
        w
    }
}

/// Dense factors: `L` and `G L⁻¹ Gᵀ` inverted, `L⁻¹ Gᵀ` kept.
pub(crate) struct DenseSaddle<const N: usize, const M: usize> {
    mass: Factored<N>,
    g: SMatrix<f64, M, N>,
    /// `L⁻¹ Gᵀ`.
    w: SMatrix<f64, N, M>,
    /// `G L⁻¹ Gᵀ`.
    schur: Factored<M>,
}

impl<const N: usize, const M: usize> DenseSaddle<N, M> {
    /// Factors `L = lvv` and `G L⁻¹ Gᵀ` with `G = g`; `None` when either is singular.
    pub(crate) fn new(lvv: &SMatrix<f64, N, N>, g: &SMatrix<f64, M, N>) -> Option<Self> {
        let mass = Factored::new(lvv).ok()?;
        let w = mass.apply(&g.transpose());
        let schur = Factored::new(&(g * w)).ok()?;
        Some(Self {
            mass,
            g: *g,
            w,
            schur,
        })
    }

    /// The condition number of `G L⁻¹ Gᵀ` (1 without constraints).
    pub(crate) fn schur_condition(&self) -> f64 {
        if M == 0 {
            1.0
        } else {
            self.schur.condition(&(self.g * self.w))
        }
    }

    /// The factored mass matrix.
    pub(crate) fn mass(&self) -> &Factored<N> {
        &self.mass
    }
}

impl<const N: usize, const M: usize> SaddleOps<N, M> for DenseSaddle<N, M> {
    fn solve_mass(&self, x: &mut SVector<f64, N>) {
        self.mass.solve(x);
    }
    fn g_mul(&self, x: &SVector<f64, N>) -> SVector<f64, M> {
        self.g * x
    }
    fn g_tr_mul(&self, y: &SVector<f64, M>) -> SVector<f64, N> {
        self.g.tr_mul(y)
    }
    fn mass_g_tr(&self, y: &SVector<f64, M>) -> SVector<f64, N> {
        self.w * y
    }
    fn solve_schur(&self, y: &mut SVector<f64, M>) {
        self.schur.solve(y);
    }
}

/// The model's own sparse factors ([`Lagrangian::saddle_factor`]).
pub(crate) struct SparseSaddle<'a, Sys, const N: usize, const M: usize, const K: usize> {
    sys: &'a Sys,
    store: SaddleStore<N, M>,
    _k: PhantomData<[(); K]>,
}

impl<'a, Sys: Lagrangian<N, M, K>, const N: usize, const M: usize, const K: usize>
    SparseSaddle<'a, Sys, N, M, K>
{
    /// Factors `L` at `mass_at` and `G` at `g_at`; `None` when the model reports a pivot that
    /// is not positive and finite.
    pub(crate) fn new(
        sys: &'a Sys,
        mass_at: (f64, &SVector<f64, N>, &SVector<f64, N>),
        g_at: (f64, &SVector<f64, N>),
    ) -> Option<Self> {
        let mut store = SaddleStore::default();
        sys.saddle_factor(mass_at, g_at, &mut store)
            .then_some(Self {
                sys,
                store,
                _k: PhantomData,
            })
    }

    /// Factors again, in place, with `L` at `mass_at` and `G` at `g_at`; `false` (and the
    /// factors unusable) when a pivot is not positive and finite.
    pub(crate) fn refactor(
        &mut self,
        mass_at: (f64, &SVector<f64, N>, &SVector<f64, N>),
        g_at: (f64, &SVector<f64, N>),
    ) -> bool {
        self.sys.saddle_factor(mass_at, g_at, &mut self.store)
    }

    /// The estimated condition number of `G L⁻¹ Gᵀ` (see [`SaddleStore::condition`]).
    pub(crate) fn condition(&self) -> f64 {
        self.store.condition
    }
}

impl<Sys: Lagrangian<N, M, K>, const N: usize, const M: usize, const K: usize> SaddleOps<N, M>
    for SparseSaddle<'_, Sys, N, M, K>
{
    // The forwarders are inlined: shared by the SPARK and EMPRK instances of the coupled
    // matrix, they were left out of line, and the nonholonomic chains' steps took 20 % longer.
    #[inline(always)]
    fn solve_mass(&self, x: &mut SVector<f64, N>) {
        self.sys.saddle_mass_solve(&self.store, x);
    }
    #[inline(always)]
    fn g_mul(&self, x: &SVector<f64, N>) -> SVector<f64, M> {
        self.sys.saddle_g(&self.store, x)
    }
    #[inline(always)]
    fn g_tr_mul(&self, y: &SVector<f64, M>) -> SVector<f64, N> {
        self.sys.saddle_g_tr(&self.store, y)
    }
    #[inline(always)]
    fn solve_schur(&self, y: &mut SVector<f64, M>) {
        self.sys.saddle_schur_solve(&self.store, y);
    }
}

/// The approximate stage matrix, factored: the blocks `F` and the tableau's Kronecker factors.
pub(crate) struct StageMatrix<const N: usize, const M: usize, const S: usize, F> {
    blocks: F,
    /// `(Ā'Ã')⁻¹` in its leading `s̃ × s̃` block.
    p_inv: [[f64; S]; S],
    /// `Ã'_ij`: `ã_i0` for `j = 0`, `ã_ij` for `1 ≤ j < s̃`.
    a_til: [[f64; S]; S],
    st: usize,
}

impl<const N: usize, const M: usize, const S: usize> StageMatrix<N, M, S, DenseSaddle<N, M>> {
    /// Factors the matrix for the tableau `tab` with mass matrix `lvv` and constraint
    /// Jacobian `g`, both at the step start.
    pub(crate) fn new(
        tab: &SparkTableau<S>,
        lvv: &SMatrix<f64, N, N>,
        g: &SMatrix<f64, M, N>,
    ) -> Option<Self> {
        // Built field by field in the result (through `with_blocks` the blocks were copied
        // twice: a tenth of a step's memory traffic for the planar chain of two masses).
        if !tab.kron.invertible {
            return None;
        }
        let mass = Factored::new(lvv).ok()?;
        let w = mass.apply(&g.transpose());
        let schur = Factored::new(&(g * w)).ok()?;
        Some(Self {
            blocks: DenseSaddle {
                mass,
                g: *g,
                w,
                schur,
            },
            p_inv: tab.kron.p_inv,
            a_til: tab.kron.a_til,
            st: tab.s_tilde,
        })
    }
}

impl<const N: usize, const M: usize, const S: usize, F: SaddleOps<N, M>> StageMatrix<N, M, S, F> {
    /// The matrix for the tableau `tab` with the factored blocks `blocks`.
    pub(crate) fn with_blocks(tab: &SparkTableau<S>, blocks: F) -> Result<Self, Singular> {
        if !tab.kron.invertible {
            return Err(Singular { column: 0 });
        }
        Ok(Self {
            blocks,
            p_inv: tab.kron.p_inv,
            a_til: tab.kron.a_til,
            st: tab.s_tilde,
        })
    }

    /// The factored blocks.
    pub(crate) fn blocks(&self) -> &F {
        &self.blocks
    }

    /// The factored blocks, to factor again in place.
    pub(crate) fn blocks_mut(&mut self) -> &mut F {
        &mut self.blocks
    }

    /// Acceleration and multiplier at the step start from the saddle system
    /// `L a + Gᵀ λ = f − L_vq v`, `G a = −w_q v` (with the time derivatives of `∇_v L` and
    /// of the hidden constraint left out): a starting guess for the stages, O(h²) from the
    /// solution instead of O(h).
    pub(crate) fn predict(
        &self,
        force: &SVector<f64, N>,
        curvature: &SVector<f64, M>,
    ) -> (SVector<f64, N>, SVector<f64, M>) {
        let f = &self.blocks;
        let mut y = *force;
        f.solve_mass(&mut y);
        let mut lambda = f.g_mul(&y) + curvature;
        f.solve_schur(&mut lambda);
        (y - f.mass_g_tr(&lambda), lambda)
    }

    /// Overwrites `(rv, rmu)` with the solution of the approximate stage system. Multiplier
    /// slots `j ≥ s̃` (unused by (s, s−1) methods) carry the equation `Δμ_j = r_μj`.
    pub(crate) fn solve(
        &self,
        tab: &SparkTableau<S>,
        rv: &mut [SVector<f64, N>; S],
        rmu: &mut [SVector<f64, M>; S],
    ) {
        // Loops run over all S slots (constant trip counts, unrolled); `p_inv` and `a_til` are
        // zero outside their leading s̃ columns, and pinned slots keep their right-hand side.
        let st = self.st;
        let f = &self.blocks;
        let mut gy = [SVector::<f64, M>::zeros(); S];
        for k in 0..S {
            f.solve_mass(&mut rv[k]);
            gy[k] = f.g_mul(&rv[k]);
        }
        let mut u = [SVector::<f64, M>::zeros(); S];
        for i in 0..S {
            if i < st {
                let mut z = -rmu[i];
                for k in 0..S {
                    z += gy[k] * tab.a_bar[i][k];
                }
                f.solve_schur(&mut z);
                u[i] = z;
            }
        }
        for j in 0..S {
            if j < st {
                let mut d = SVector::<f64, M>::zeros();
                for i in 0..S {
                    d += u[i] * self.p_inv[j][i];
                }
                rmu[j] = d;
            }
        }
        for i in 0..S {
            let mut reaction = SVector::<f64, M>::zeros();
            for j in 0..S {
                reaction += rmu[j] * self.a_til[i][j];
            }
            rv[i] -= f.mass_g_tr(&reaction);
        }
    }
}

/// The end-point matrix `[[L, w Gᵀ], [G, 0]]` with the model's sparse factors of `L` and
/// `G L⁻¹ Gᵀ` at the end point (the holonomic hidden constraint's `∂w/∂v` is `G`).
pub(crate) struct SparseEnd<'a, Sys, const N: usize, const M: usize, const K: usize> {
    saddle: SparseSaddle<'a, Sys, N, M, K>,
    weight: f64,
}

impl<'a, Sys: Lagrangian<N, M, K>, const N: usize, const M: usize, const K: usize>
    SparseEnd<'a, Sys, N, M, K>
{
    /// The matrix with factors `saddle` and reaction weight `weight`.
    pub(crate) fn new(saddle: SparseSaddle<'a, Sys, N, M, K>, weight: f64) -> Self {
        Self { saddle, weight }
    }

    /// The estimated condition number of its Schur complement.
    pub(crate) fn condition(&self) -> f64 {
        self.saddle.condition()
    }

    /// Overwrites `(rv, rmu)` with the solution.
    pub(crate) fn solve(&self, rv: &mut SVector<f64, N>, rmu: &mut SVector<f64, M>) {
        let f = &self.saddle;
        f.solve_mass(rv);
        let mut z = f.g_mul(rv) - *rmu;
        // z = w Δμ: Δv = L⁻¹(r_v − Gᵀ z).
        f.solve_schur(&mut z);
        *rv -= f.mass_g_tr(&z);
        *rmu = z / self.weight;
    }
}

/// The factored end-point matrix `[[L, w Gᵀ], [W, 0]]` (`W = ∂(g_t + G v)/∂v`), by the same
/// elimination of the velocity block. The factored `L` is not stored: it is usually the stage
/// matrix's, and [`EndMatrix::solve`] takes it again.
pub(crate) struct EndMatrix<const N: usize, const M: usize> {
    wv: SMatrix<f64, M, N>,
    /// `L⁻¹ w Gᵀ`.
    x: SMatrix<f64, N, M>,
    schur: Factored<M>,
    /// Condition number of the Schur complement `W L⁻¹ w Gᵀ`: near a configuration where the
    /// constraints lose rank it grows like `1/σ_min(G)²`, and with it the rounding error of
    /// the solve.
    condition: f64,
}

impl<const N: usize, const M: usize> EndMatrix<N, M> {
    /// Factors the matrix with mass-matrix factors `mass`, reaction weight `weight`, reaction
    /// directions `g` and hidden-constraint Jacobian `wv`.
    pub(crate) fn new(
        mass: &Factored<N>,
        weight: f64,
        g: &SMatrix<f64, M, N>,
        wv: &SMatrix<f64, M, N>,
    ) -> Result<Self, Singular> {
        let x = mass.apply(&(g.transpose() * weight));
        let s = wv * x;
        let schur = Factored::new(&s)?;
        let condition = schur.condition(&s);
        Ok(Self {
            wv: *wv,
            x,
            schur,
            condition,
        })
    }

    /// The Schur complement's condition number (see the field).
    pub(crate) fn condition(&self) -> f64 {
        self.condition
    }

    /// Overwrites `(rv, rmu)` with the solution; `mass` must be the factors it was built with.
    pub(crate) fn solve(
        &self,
        mass: &Factored<N>,
        rv: &mut SVector<f64, N>,
        rmu: &mut SVector<f64, M>,
    ) {
        mass.solve(rv);
        let mut z = self.wv * *rv - *rmu;
        self.schur.solve(&mut z);
        *rv -= self.x * z;
        *rmu = z;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::GaussLobatto;

    /// The block elimination reproduces a dense solve of the same (approximate) matrix.
    #[test]
    fn matches_the_dense_kronecker_system() {
        const N: usize = 3;
        const M: usize = 2;
        const S: usize = 2;
        let tab = GaussLobatto::<S>::TABLEAU;
        let l = SMatrix::<f64, N, N>::new(2.0, 0.3, 0.1, 0.3, 1.5, 0.2, 0.1, 0.2, 1.0);
        let g = SMatrix::<f64, M, N>::new(1.0, 0.5, -0.2, 0.1, -0.7, 0.9);
        let sm = StageMatrix::<N, M, S, DenseSaddle<N, M>>::new(&tab, &l, &g).unwrap();
        // Dense matrix with the same blocks.
        const LEN: usize = S * (N + M);
        let mut a = [[0.0f64; LEN]; LEN];
        let vc = |i: usize, x: usize| i * N + x;
        let mc = |j: usize, x: usize| S * N + j * M + x;
        let til = |i: usize, j: usize| {
            if j == 0 {
                tab.a_til0[i]
            } else {
                tab.a_til[i][j - 1]
            }
        };
        for i in 0..S {
            for x in 0..N {
                for y in 0..N {
                    a[vc(i, x)][vc(i, y)] = l[(x, y)];
                }
                for j in 0..S {
                    for y in 0..M {
                        a[vc(i, x)][mc(j, y)] = til(i, j) * g[(y, x)];
                        a[mc(i, y)][vc(j, x)] = tab.a_bar[i][j] * g[(y, x)];
                    }
                }
            }
        }
        let rhs: [f64; LEN] = core::array::from_fn(|k| (k as f64 * 0.37).sin());
        let mut rv: [SVector<f64, N>; S] =
            core::array::from_fn(|i| SVector::from_fn(|x, _| rhs[vc(i, x)]));
        let mut rmu: [SVector<f64, M>; S] =
            core::array::from_fn(|j| SVector::from_fn(|y, _| rhs[mc(j, y)]));
        sm.solve(&tab, &mut rv, &mut rmu);
        for r in 0..LEN {
            let mut s = 0.0;
            for i in 0..S {
                for x in 0..N {
                    s += a[r][vc(i, x)] * rv[i][x];
                }
                for y in 0..M {
                    s += a[r][mc(i, y)] * rmu[i][y];
                }
            }
            assert!((s - rhs[r]).abs() < 1e-12, "row {r}: {s} vs {}", rhs[r]);
        }
    }

    /// `SparkTableau::derive` inverts `P = Ā'Ã'` on its leading s̃ block.
    fn check_derived<const S: usize>(tab: &SparkTableau<S>) {
        let k = &tab.kron;
        assert!(k.invertible);
        let st = tab.s_tilde;
        for i in 0..st {
            for j in 0..st {
                let mut pp = 0.0;
                for l in 0..st {
                    let mut p = 0.0;
                    for m in 0..S {
                        p += tab.a_bar[i][m] * k.a_til[m][l];
                    }
                    pp += p * k.p_inv[l][j];
                }
                let want = if i == j { 1.0 } else { 0.0 };
                assert!((pp - want).abs() < 1e-12, "S = {S}: ({i}, {j}) = {pp}");
            }
        }
    }

    #[test]
    fn derived_kronecker_coefficients_invert_p() {
        check_derived(&GaussLobatto::<1>::TABLEAU);
        check_derived(&GaussLobatto::<2>::TABLEAU);
        check_derived(&GaussLobatto::<3>::TABLEAU);
        check_derived(&GaussLobatto::<5>::TABLEAU);
        check_derived(&crate::LobattoIIIAB::<2>::TABLEAU);
        check_derived(&crate::LobattoIIIAB::<4>::TABLEAU);
        check_derived(&crate::SymplecticEuler::TABLEAU);
    }

    #[test]
    fn end_matrix_solves_its_saddle_system() {
        let l = SMatrix::<f64, 2, 2>::new(2.0, 0.5, 0.5, 1.0);
        let g = SMatrix::<f64, 1, 2>::new(1.0, -2.0);
        let wv = SMatrix::<f64, 1, 2>::new(0.5, 1.0);
        let mass = Factored::new(&l).unwrap();
        let em = EndMatrix::new(&mass, 0.25, &g, &wv).unwrap();
        let (r0, m0) = (
            SVector::<f64, 2>::new(1.0, -1.0),
            SVector::<f64, 1>::new(0.3),
        );
        let (mut rv, mut rmu) = (r0, m0);
        em.solve(&mass, &mut rv, &mut rmu);
        let top = l * rv + g.transpose() * rmu * 0.25;
        let bottom = wv * rv;
        assert!((top - r0).norm() < 1e-14 && (bottom - m0).norm() < 1e-14);
    }
}
