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

use nalgebra::{SMatrix, SVector};

use crate::linalg::lu::{Factored, Singular};
use crate::tableau::SparkTableau;

/// The approximate stage matrix, factored.
pub(crate) struct StageMatrix<const N: usize, const M: usize, const S: usize> {
    mass: Factored<N>,
    g: SMatrix<f64, M, N>,
    /// `L⁻¹ Gᵀ`.
    w: SMatrix<f64, N, M>,
    /// `G L⁻¹ Gᵀ`.
    schur: Factored<M>,
    /// `(Ā'Ã')⁻¹` in its leading `s̃ × s̃` block.
    p_inv: [[f64; S]; S],
    /// `Ã'_ij`: `ã_i0` for `j = 0`, `ã_ij` for `1 ≤ j < s̃`.
    a_til: [[f64; S]; S],
    st: usize,
}

impl<const N: usize, const M: usize, const S: usize> StageMatrix<N, M, S> {
    /// Factors the matrix for the tableau `tab` with mass matrix `lvv` and constraint
    /// Jacobian `g`, both at the step start.
    pub(crate) fn new(
        tab: &SparkTableau<S>,
        lvv: &SMatrix<f64, N, N>,
        g: &SMatrix<f64, M, N>,
    ) -> Result<Self, Singular> {
        let st = tab.s_tilde;
        let mass = Factored::new(lvv)?;
        let w = mass.apply(&g.transpose());
        let schur = Factored::new(&(g * w))?;
        if !tab.kron.invertible {
            return Err(Singular { column: 0 });
        }
        let (a_til, p_inv) = (tab.kron.a_til, tab.kron.p_inv);
        Ok(Self {
            mass,
            g: *g,
            w,
            schur,
            p_inv,
            a_til,
            st,
        })
    }

    /// The constraint Jacobian the matrix was built with.
    pub(crate) fn g(&self) -> &SMatrix<f64, M, N> {
        &self.g
    }

    /// The factored mass matrix.
    pub(crate) fn mass(&self) -> &Factored<N> {
        &self.mass
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
        let mut y = *force;
        self.mass.solve(&mut y);
        let mut lambda = self.g * y + curvature;
        self.schur.solve(&mut lambda);
        (y - self.w * lambda, lambda)
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
        let mut gy = [SVector::<f64, M>::zeros(); S];
        for k in 0..S {
            self.mass.solve(&mut rv[k]);
            gy[k] = self.g * rv[k];
        }
        let mut u = [SVector::<f64, M>::zeros(); S];
        for i in 0..S {
            if i < st {
                let mut z = -rmu[i];
                for k in 0..S {
                    z += gy[k] * tab.a_bar[i][k];
                }
                self.schur.solve(&mut z);
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
            rv[i] -= self.w * reaction;
        }
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
        let sm = StageMatrix::<N, M, S>::new(&tab, &l, &g).unwrap();
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
