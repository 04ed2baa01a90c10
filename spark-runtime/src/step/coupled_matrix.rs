//! The block-structured simplified Newton matrix of the coupled holonomic + nonholonomic steps
//! (`mixed`, `emprk`): the Kronecker approximation of `stage_matrix` extended with the end
//! blocks and the nonholonomic rows of the Lagrange-d'Alembert SPARK equations (Jay, 004,
//! (6.1a-f); `mixed`'s E1-E6) or of EMPRK (`emprk`'s E1-E5'). The coefficients are the
//! method's (`coupled_scheme::Scheme`); written below for the SPARK step.
//!
//! Every block is evaluated once per step: the mass matrix `L` at the step start, `G = g_q`
//! and `K_v = k_v` at the predicted midpoint; the terms `h L_vq`, `h² L_qq`, the Hessians
//! contracted with the multipliers and the `q`-derivatives of the hidden and nonholonomic
//! constraints are dropped (all O(h) relative to what is kept). With the velocity blocks
//! `X = (V_1..V_S, v1)`, the multiplier slots `μ = (μ_0..μ_s̃)` and `ν = (ν_1..ν_S)`:
//!
//! ```text
//! [ I ⊗ L    A ⊗ Gᵀ   Aⁿ ⊗ K_vᵀ ] [ΔX]   [r_X]   A = (ã_i0, ã_ij; b̃_0, b̃_j),  Aⁿ = (ã^n_ij; b̃^n_j)
//! [ B ⊗ G    0        0         ] [Δμ] = [r_μ]   B: E4 (G Δv1), E3 (Σ_k ā_ik G ΔV_k)
//! [ C ⊗ K_v  0        0         ] [Δν]   [r_ν]   C: E5 (K_v Δv1), E6 (Σ_j b_j c_j^{i−1} K_v ΔV_j)
//! ```
//!
//! EMPRK has `S` end blocks `Ṽ_1..Ṽ_S` (`Ṽ_S = v1`) with the reactions `(ǎ_i0, ǎ_ij; ā_ij)`,
//! and `C` is `K_v` on each `Ṽ_i`; `B`, and so `E` below, are the same.
//!
//! Eliminating `ΔX` (`S + 1` solves with `L`) leaves the multipliers' system
//! `[[E ⊗ S_gg, BAⁿ ⊗ S_gk], [CA ⊗ S_kg, CAⁿ ⊗ S_kk]]` with `E = BA`, `S_gg = G L⁻¹ Gᵀ` (the
//! factors the holonomic step uses), `S_gk = G W`, `S_kk = K_v W`, `W = L⁻¹ K_vᵀ`. Because
//! `ã_is̃ = 0`, `E` is block triangular: `Ā'Ã'` (inverted by the tableau, `kron.p_inv`) and
//! `b̃_s̃`. Eliminating `Δμ` leaves the nonholonomic Schur complement
//! `Σ = CAⁿ ⊗ S_kk − (CA E⁻¹ BAⁿ) ⊗ (S_kg S_gg⁻¹ S_gk)`, `S K` square: the only dense matrix
//! factored, tiny since `K` is. A solve costs `2(S + 1)` solves with `L`, `s̃ + 1` with `S_gg`
//! and products with `G`, `K_v`, `W` and the `M × K` blocks `S_gk`, `S_gg⁻¹ S_gk` (kept from
//! the factorization): `O(N)` for chain-like models with sparse factors.

// Stage, slot and block indices follow the paper's subscripts.
#![allow(clippy::needless_range_loop)]

use nalgebra::{SMatrix, SVector};

use crate::linalg::layout::{flat, flat_square, zero_square, zeros, Arr, Layout, Scalar, Square};
use crate::linalg::lu;
use crate::linalg::vector::row_norm;
use crate::model::Lagrangian;
use crate::step::coupled_layout::{MixedLayout, Offsets};
use crate::step::coupled_scheme::{Scheme, Slots, Velocities};
use crate::step::stage_matrix::{DenseSaddle, SaddleOps, SparseSaddle};
use crate::tableau::SparkTableau;

/// Applies `E⁻¹` (`E = BA`, see the module) to the slots `0..=s̃` of `w`, in place.
fn apply_e_inv<const R: usize, const S: usize, const E: usize>(
    tab: &SparkTableau<S>,
    scheme: &Scheme<S, E>,
    w: &mut Slots<SVector<f64, R>, S>,
) {
    let st = tab.s_tilde;
    // Rows 1..=s̃: Ā'Ã' d_{0..s̃} = w_{1..=s̃}.
    let mut d = Slots::<SVector<f64, R>, S>::splat(SVector::zeros());
    for q in 0..st {
        for i in 0..st {
            d[q] += w[i + 1] * tab.kron.p_inv[q][i];
        }
    }
    // Row 0 (the end row of A): Σ_q b̃_q d_q = w_0.
    let mut last = w[0];
    for q in 0..st {
        last -= d[q] * scheme.mu_coef(S + E - 1, q);
    }
    d[st] = last / scheme.mu_coef(S + E - 1, st);
    for q in 0..=st {
        w[q] = d[q];
    }
}

/// The unknowns of the nonholonomic Schur complement: `ν_1..ν_S`.
type NuLayout<const K: usize, const S: usize> = Arr<Arr<Scalar, K>, S>;

/// A right-hand side or a correction of the coupled step, block by block.
pub(crate) struct Blocks<
    const N: usize,
    const M: usize,
    const K: usize,
    const S: usize,
    const E: usize,
> {
    /// Velocity blocks: the stages (E1's rows) and the end blocks (E2's; EMPRK's E2').
    pub x: Velocities<SVector<f64, N>, S, E>,
    /// Multiplier slots: `first` is `μ_0` (E4's rows), `rest[j]` is `μ_{j+1}` (E3's rows for
    /// `j < s̃`, the pinned `μ_{j+1} = 0` after).
    pub mu: Slots<SVector<f64, M>, S>,
    /// `ν_1..ν_S` (E5's and E6's rows; EMPRK's E5').
    pub nu: [SVector<f64, K>; S],
}

impl<const N: usize, const M: usize, const K: usize, const S: usize, const E: usize>
    Blocks<N, M, K, S, E>
{
    /// All zero.
    pub(crate) fn zeros() -> Self {
        Self {
            x: Velocities::splat(SVector::zeros()),
            mu: Slots::splat(SVector::zeros()),
            nu: [SVector::zeros(); S],
        }
    }

    /// Every block negated.
    pub(crate) fn negate(&mut self) {
        for x in self.x.iter_mut() {
            x.neg_mut();
        }
        for p in 0..=S {
            self.mu[p].neg_mut();
        }
        for j in 0..S {
            self.nu[j].neg_mut();
        }
    }
}

impl<const N: usize, const M: usize, const K: usize, const S: usize> Blocks<N, M, K, S, 1> {
    /// The unknowns in the flat layout of the coupled system ([`Offsets`], `K > 0`).
    pub(crate) fn to_flat(&self) -> <MixedLayout<N, M, K, S> as Layout>::Of<f64> {
        type O<const N: usize, const M: usize, const K: usize, const S: usize> =
            Offsets<N, M, K, S>;
        let mut buf = zeros::<MixedLayout<N, M, K, S>>();
        let x = flat::<MixedLayout<N, M, K, S>, f64>(&mut buf);
        let mut put = |at: usize, v: &[f64]| x[at..at + v.len()].copy_from_slice(v);
        for i in 0..S {
            put(O::<N, M, K, S>::v(i), self.x.stages[i].as_slice());
            put(O::<N, M, K, S>::mu(i + 1), self.mu.rest[i].as_slice());
            put(O::<N, M, K, S>::nu(i), self.nu[i].as_slice());
        }
        put(O::<N, M, K, S>::V1, self.x.v1().as_slice());
        put(O::<N, M, K, S>::mu(0), self.mu.first.as_slice());
        buf
    }
}

/// How the coupled step factors `L` and `G L⁻¹ Gᵀ`: densely ([`DenseSaddle`]) or with the
/// model's sparse factors ([`SparseSaddle`]).
pub(crate) trait CoupledBlocks<'a, Sys, const N: usize, const M: usize, const K: usize>:
    Sized
{
    /// `L` at `mass_at`, `G` at `g_at`; `None` when singular.
    fn factor(
        sys: &'a Sys,
        mass_at: (f64, &SVector<f64, N>, &SVector<f64, N>),
        g_at: (f64, &SVector<f64, N>),
    ) -> Option<Self>;

    /// The (estimated) condition number of `G L⁻¹ Gᵀ`.
    fn schur_condition(&self) -> f64;
}

impl<'a, Sys: Lagrangian<N, M, K>, const N: usize, const M: usize, const K: usize>
    CoupledBlocks<'a, Sys, N, M, K> for DenseSaddle<N, M>
{
    fn factor(
        sys: &'a Sys,
        (t, q, v): (f64, &SVector<f64, N>, &SVector<f64, N>),
        (tg, qg): (f64, &SVector<f64, N>),
    ) -> Option<Self> {
        let lvv = sys.mass_force(t, q, v).lvv;
        DenseSaddle::new(&lvv, &sys.constraint_gradient(tg, qg).1)
    }

    fn schur_condition(&self) -> f64 {
        DenseSaddle::schur_condition(self)
    }
}

impl<'a, Sys: Lagrangian<N, M, K>, const N: usize, const M: usize, const K: usize>
    CoupledBlocks<'a, Sys, N, M, K> for SparseSaddle<'a, Sys, N, M, K>
{
    fn factor(
        sys: &'a Sys,
        mass_at: (f64, &SVector<f64, N>, &SVector<f64, N>),
        g_at: (f64, &SVector<f64, N>),
    ) -> Option<Self> {
        SparseSaddle::new(sys, mass_at, g_at)
    }

    fn schur_condition(&self) -> f64 {
        self.condition()
    }
}

/// The factored approximate matrix of the coupled step (see the module).
pub(crate) struct CoupledMatrix<
    const N: usize,
    const M: usize,
    const K: usize,
    const S: usize,
    const E: usize,
    F,
> {
    blocks: F,
    /// The method's coefficients.
    scheme: Scheme<S, E>,
    kv: SMatrix<f64, K, N>,
    /// `W = L⁻¹ K_vᵀ`.
    w: SMatrix<f64, N, K>,
    /// `G W`.
    gw: SMatrix<f64, M, K>,
    /// `S_gg⁻¹ G W`.
    sg_gw: SMatrix<f64, M, K>,
    /// `(K_v W − (G W)ᵀ S_gg⁻¹ G W)⁻¹`: the nonholonomic Schur complement of the
    /// continuous saddle system (for [`CoupledMatrix::predict`]); `None` when singular.
    continuous: Option<SMatrix<f64, K, K>>,
    /// `F = E⁻¹ BAⁿ` (slots × stages).
    f: Slots<[f64; S], S>,
    /// `CA` (nonholonomic rows × slots).
    ca: [Slots<f64, S>; S],
    /// `Σ⁻¹`, row-major: `Σ` is `S K` square, a handful of rows, and a product with its
    /// inverse costs a tenth of the solve with its LU factors (the differential-drive
    /// robot's step spent 40 % of its instructions in those solves).
    inverse: Square<NuLayout<K, S>>,
    /// `‖Σ‖∞ ‖Σ⁻¹‖∞`.
    condition: f64,
}

impl<
        const N: usize,
        const M: usize,
        const K: usize,
        const S: usize,
        const E: usize,
        F: SaddleOps<N, M>,
    > CoupledMatrix<N, M, K, S, E, F>
{
    /// Factors the matrix of `tab` and `scheme` (which must satisfy [`Scheme::applies`])
    /// with the factored `L`, `G` blocks `blocks` and `K_v = kv`; `None` when `Σ` is
    /// singular.
    pub(crate) fn new(
        tab: &SparkTableau<S>,
        scheme: Scheme<S, E>,
        blocks: F,
        kv: &SMatrix<f64, K, N>,
    ) -> Option<Self> {
        let st = tab.s_tilde;
        let w = blocks.mass_solve_rows(kv);
        let mut gw = SMatrix::<f64, M, K>::zeros();
        // T = (G W)ᵀ S_gg⁻¹ (G W).
        let mut sg_gw = SMatrix::<f64, M, K>::zeros();
        for l in 0..K {
            let col: SVector<f64, N> = w.column(l).into_owned();
            let g = blocks.g_mul(&col);
            gw.set_column(l, &g);
            let mut s = g;
            blocks.solve_schur(&mut s);
            sg_gw.set_column(l, &s);
        }
        let t = gw.transpose() * sg_gw;
        let skk = kv * w;
        let continuous = (skk - t).try_inverse();
        // BAⁿ, column by column through E⁻¹: F.
        let mut f = Slots::<[f64; S], S>::splat([0.0; S]);
        for j in 0..S {
            let mut col = Slots::<SVector<f64, 1>, S>::splat(SVector::zeros());
            for p in 0..=st {
                col[p][0] = scheme.b_row(tab, p, |x| scheme.nu_coef(x, j));
            }
            apply_e_inv(tab, &scheme, &mut col);
            for p in 0..=st {
                f[p][j] = col[p][0];
            }
        }
        // CA and CAⁿ.
        let ca: [Slots<f64, S>; S] = core::array::from_fn(|i| {
            let mut row = Slots::splat(0.0);
            for q in 0..=st {
                row[q] = scheme.c_row(i, |x| scheme.mu_coef(x, q));
            }
            row
        });
        let mut schur = zero_square::<NuLayout<K, S>>();
        let len = S * K;
        let sm = flat_square::<NuLayout<K, S>>(&mut schur);
        for i in 0..S {
            for j in 0..S {
                let can = scheme.c_row(i, |x| scheme.nu_coef(x, j));
                let d: f64 = (0..=st).map(|q| ca[i][q] * f[q][j]).sum();
                let block = skk * can - t * d;
                for a in 0..K {
                    for b in 0..K {
                        sm[(i * K + a) * len + j * K + b] = block[(a, b)];
                    }
                }
            }
        }
        let norm_inf = |m: &[f64]| {
            (0..len).fold(0.0f64, |n, r| {
                n.max(m[r * len..(r + 1) * len].iter().map(|x| x.abs()).sum())
            })
        };
        let norm = norm_inf(sm);
        // Σ⁻¹ by Gauss-Jordan (its LU factors and a solve per column took 10 % of the
        // bicycle's step, `S K` = 8), and ‖Σ⁻¹‖∞.
        let mut inverse = zero_square::<NuLayout<K, S>>();
        let inv = flat_square::<NuLayout<K, S>>(&mut inverse);
        lu::invert(sm, inv, len).ok()?;
        if !inv.iter().all(|x| x.is_finite()) {
            return None;
        }
        let condition = norm * norm_inf(inv);
        Some(Self {
            blocks,
            scheme,
            kv: *kv,
            w,
            gw,
            sg_gw,
            continuous,
            f,
            ca,
            inverse,
            condition,
        })
    }

    /// The method's coefficients.
    pub(crate) fn scheme(&self) -> &Scheme<S, E> {
        &self.scheme
    }

    /// The estimated condition number of the nonholonomic Schur complement.
    pub(crate) fn condition(&self) -> f64 {
        self.condition
    }

    /// The Euclidean norm of row `l` of `K_v`.
    pub(crate) fn kv_row_norm(&self, l: usize) -> f64 {
        row_norm(&self.kv, l)
    }

    /// The factored `L` and `G` blocks.
    pub(crate) fn blocks(&self) -> &F {
        &self.blocks
    }

    /// Acceleration `a` and multipliers `λ`, `ψ` from the continuous saddle system
    /// `L a + Gᵀλ + K_vᵀψ = force`, `G a = −c_g`, `K_v a = −c_k` with this matrix's blocks
    /// (the holonomic step's `StageMatrix::predict` with the nonholonomic rows): the coupled step's starting guess. `None` when the
    /// nonholonomic Schur complement `K_v W − (G W)ᵀ S_gg⁻¹ G W` is singular.
    pub(crate) fn predict(
        &self,
        force: &SVector<f64, N>,
        c_g: &SVector<f64, M>,
        c_k: &SVector<f64, K>,
    ) -> Option<(SVector<f64, N>, SVector<f64, M>, SVector<f64, K>)> {
        let b = &self.blocks;
        let mut y = *force;
        b.solve_mass(&mut y);
        // The holonomic multiplier without the nonholonomic rows, then ψ from their Schur
        // complement and λ corrected by it.
        let mut lambda = b.g_mul(&y) + c_g;
        b.solve_schur(&mut lambda);
        let psi = self.continuous? * (self.kv * y + c_k - self.gw.tr_mul(&lambda));
        lambda -= self.sg_gw * psi;
        let a = y - b.mass_g_tr(&lambda) - self.w * psi;
        Some((a, lambda, psi))
    }

    /// Overwrites `r` with the solution of the approximate system with right-hand side `r`.
    /// Pinned multiplier slots (`μ_{j+1}`, `j ≥ s̃`) keep their right-hand side.
    pub(crate) fn solve(&mut self, tab: &SparkTableau<S>, r: &mut Blocks<N, M, K, S, E>) {
        let st = tab.s_tilde;
        let (b, scheme) = (&self.blocks, &self.scheme);
        // y = L⁻¹ r_X.
        for x in r.x.iter_mut() {
            b.solve_mass(x);
        }
        // ĝ = (B ⊗ G) y − r_μ, k̂ = (C ⊗ K_v) y − r_ν.
        let mut z = Slots::<SVector<f64, M>, S>::splat(SVector::zeros());
        z[0] = b.g_mul(r.x.v1()) - r.mu[0];
        for p in 1..=st {
            let mut comb = SVector::<f64, N>::zeros();
            for x in 0..S {
                comb.axpy(tab.a_bar[p - 1][x], &r.x[x], 1.0);
            }
            z[p] = b.g_mul(&comb) - r.mu[p];
        }
        let mut k_hat = [SVector::<f64, K>::zeros(); S];
        if K > 0 {
            for i in 0..S {
                let mut comb = SVector::<f64, N>::zeros();
                for (x, rx) in r.x.iter().enumerate() {
                    let c = scheme.row_coef(i, x);
                    if c != 0.0 {
                        comb.axpy(c, rx, 1.0);
                    }
                }
                k_hat[i] = self.kv * comb - r.nu[i];
            }
        }
        // z = (E⁻¹ ⊗ S_gg⁻¹) ĝ.
        if M > 0 {
            for p in 0..=st {
                b.solve_schur(&mut z[p]);
            }
            apply_e_inv(tab, scheme, &mut z);
        }
        // Σ Δν = k̂ − (CA ⊗ S_kg) z, with S_kg = Wᵀ Gᵀ = (G W)ᵀ.
        let mut nu = <NuLayout<K, S> as Layout>::fill(0.0);
        if K > 0 {
            let rhs = flat::<NuLayout<K, S>, f64>(&mut nu);
            for i in 0..S {
                let mut v = k_hat[i];
                if M > 0 {
                    let mut comb = SVector::<f64, M>::zeros();
                    for q in 0..=st {
                        comb.axpy(self.ca[i][q], &z[q], 1.0);
                    }
                    v -= self.gw.tr_mul(&comb);
                }
                rhs[i * K..(i + 1) * K].copy_from_slice(v.as_slice());
            }
            let inv = flat_square::<NuLayout<K, S>>(&mut self.inverse);
            let len = S * K;
            for i in 0..S {
                for a in 0..K {
                    let row = &inv[(i * K + a) * len..(i * K + a + 1) * len];
                    r.nu[i][a] = row.iter().zip(rhs.iter()).map(|(m, x)| m * x).sum();
                }
            }
        }
        // Δμ = z − (F ⊗ S_gg⁻¹ S_gk) Δν.
        if M > 0 {
            for q in 0..=st {
                let mut d = z[q];
                if K > 0 {
                    let mut u = SVector::<f64, K>::zeros();
                    for j in 0..S {
                        u.axpy(self.f[q][j], &r.nu[j], 1.0);
                    }
                    d -= self.sg_gw * u;
                }
                r.mu[q] = d;
            }
        }
        // ΔX = y − L⁻¹ (A ⊗ Gᵀ) Δμ − (Aⁿ ⊗ W) Δν.
        for (x, rx) in r.x.iter_mut().enumerate() {
            if M > 0 {
                let mut comb = SVector::<f64, M>::zeros();
                for p in 0..=st {
                    comb.axpy(scheme.mu_coef(x, p), &r.mu[p], 1.0);
                }
                *rx -= b.mass_g_tr(&comb);
            }
            if K > 0 {
                let mut u = SVector::<f64, K>::zeros();
                for j in 0..S {
                    u.axpy(scheme.nu_coef(x, j), &r.nu[j], 1.0);
                }
                *rx -= self.w * u;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{GaussLobatto, LobattoIIIAB, LobattoIIIABD};

    /// A test matrix's blocks: a symmetric diagonally dominant `L` (diagonal `base + i`,
    /// off-diagonal `coupling / (1 + i + j)`) and dense `G`, `K_v`.
    #[allow(clippy::type_complexity)]
    fn test_blocks<const N: usize, const M: usize, const K: usize>(
        base: f64,
        coupling: f64,
    ) -> (SMatrix<f64, N, N>, SMatrix<f64, M, N>, SMatrix<f64, K, N>) {
        let l = SMatrix::<f64, N, N>::from_fn(|i, j| {
            if i == j {
                base + i as f64
            } else {
                coupling / (1.0 + (i + j) as f64)
            }
        });
        let g = SMatrix::<f64, M, N>::from_fn(|i, j| ((i * N + j) as f64 * 0.71).sin());
        let kv = SMatrix::<f64, K, N>::from_fn(|i, j| 0.4 + ((i + 3 * j) as f64 * 0.37).cos());
        (l, g, kv)
    }

    /// The block elimination solves the approximate matrix of the module, assembled densely
    /// from its definition (rows: the blocks' momenta, E4 and E3, the nonholonomic rows).
    fn check<const S: usize, const E: usize>(tab: &SparkTableau<S>, scheme: Scheme<S, E>) {
        const N: usize = 4;
        const M: usize = 2;
        const K: usize = 1;
        assert!(scheme.applies(tab));
        let st = tab.s_tilde;
        let (l, g, kv) = test_blocks::<N, M, K>(2.0, 0.3);
        let blocks = DenseSaddle::new(&l, &g).unwrap();
        let mut matrix = CoupledMatrix::<N, M, K, S, E, _>::new(tab, scheme, blocks, &kv).unwrap();
        let nx = S + E;
        let len = nx * N + (S + 1) * M + S * K;
        let xcol = |x: usize, a: usize| x * N + a;
        let mucol = |p: usize, a: usize| nx * N + p * M + a;
        let nucol = |j: usize, a: usize| nx * N + (S + 1) * M + j * K + a;
        assert!(len <= 40);
        let mut dense = [[0.0f64; 40]; 40];
        for x in 0..nx {
            for a in 0..N {
                for b in 0..N {
                    dense[xcol(x, a)][xcol(x, b)] = l[(a, b)];
                }
                for p in 0..=st {
                    for c in 0..M {
                        dense[xcol(x, a)][mucol(p, c)] = scheme.mu_coef(x, p) * g[(c, a)];
                    }
                }
                for j in 0..S {
                    for c in 0..K {
                        dense[xcol(x, a)][nucol(j, c)] = scheme.nu_coef(x, j) * kv[(c, a)];
                    }
                }
            }
        }
        for c in 0..M {
            for a in 0..N {
                dense[mucol(0, c)][xcol(nx - 1, a)] = g[(c, a)];
                for p in 1..=st {
                    for x in 0..S {
                        dense[mucol(p, c)][xcol(x, a)] = tab.a_bar[p - 1][x] * g[(c, a)];
                    }
                }
            }
            for p in st + 1..=S {
                dense[mucol(p, c)][mucol(p, c)] = 1.0;
            }
        }
        for c in 0..K {
            for a in 0..N {
                for i in 0..S {
                    for x in 0..nx {
                        dense[nucol(i, c)][xcol(x, a)] = scheme.row_coef(i, x) * kv[(c, a)];
                    }
                }
            }
        }
        let rhs: [f64; 40] = core::array::from_fn(|k| (k as f64 * 0.37).sin());
        let mut r = Blocks::<N, M, K, S, E>::zeros();
        for x in 0..nx {
            for a in 0..N {
                r.x[x][a] = rhs[xcol(x, a)];
            }
        }
        for p in 0..=S {
            for c in 0..M {
                r.mu[p][c] = rhs[mucol(p, c)];
            }
        }
        for j in 0..S {
            for c in 0..K {
                r.nu[j][c] = rhs[nucol(j, c)];
            }
        }
        matrix.solve(tab, &mut r);
        let mut sol = [0.0; 40];
        for x in 0..nx {
            for a in 0..N {
                sol[xcol(x, a)] = r.x[x][a];
            }
        }
        for p in 0..=S {
            for c in 0..M {
                sol[mucol(p, c)] = r.mu[p][c];
            }
        }
        for j in 0..S {
            for c in 0..K {
                sol[nucol(j, c)] = r.nu[j][c];
            }
        }
        for row in 0..len {
            let s: f64 = (0..len).map(|c| dense[row][c] * sol[c]).sum();
            assert!(
                (s - rhs[row]).abs() < 1e-11,
                "S = {S}, E = {E}, s̃ = {st}, row {row}: {s} vs {}",
                rhs[row]
            );
        }
    }

    /// The SPARK tableaux with `s̃ = S` and `s̃ = S − 1`.
    #[test]
    fn matches_the_dense_approximate_system() {
        fn spark<const S: usize>(tab: &SparkTableau<S>) {
            check(tab, Scheme::spark(tab));
        }
        spark(&GaussLobatto::<1>::TABLEAU);
        spark(&GaussLobatto::<2>::TABLEAU);
        spark(&GaussLobatto::<3>::TABLEAU);
        spark(&LobattoIIIAB::<2>::TABLEAU);
        spark(&LobattoIIIAB::<3>::TABLEAU);
        spark(&LobattoIIIABD::<3>::TABLEAU);
        spark(&crate::SymplecticEulerI::TABLEAU);
        spark(&crate::SymplecticEulerII::TABLEAU);
    }

    /// EMPRK's scheme: `S` Lobatto velocity stages, `k` at each.
    #[test]
    fn matches_the_dense_approximate_emprk_system() {
        fn emprk<const S: usize>(et: &crate::tableau::EmprkTableau<S>) {
            check(&et.spark, Scheme::emprk(et));
        }
        emprk(&crate::Emprk::<1>::TABLEAU);
        emprk(&crate::Emprk::<2>::TABLEAU);
        emprk(&crate::Emprk::<3>::TABLEAU);
    }

    /// The predictor's acceleration and multipliers solve the continuous saddle system with
    /// the matrix's blocks, to round-off.
    #[test]
    fn prediction_solves_the_continuous_saddle_system() {
        const N: usize = 5;
        const M: usize = 2;
        const K: usize = 2;
        let (l, g, kv) = test_blocks::<N, M, K>(3.0, 0.4);
        let blocks = DenseSaddle::new(&l, &g).unwrap();
        let tab = &GaussLobatto::<2>::TABLEAU;
        let matrix =
            CoupledMatrix::<N, M, K, 2, 1, _>::new(tab, Scheme::spark(tab), blocks, &kv).unwrap();
        let force = SVector::<f64, N>::from_fn(|i, _| 1.0 - 0.3 * i as f64);
        let (c_g, c_k) = (SVector::from([0.7, -1.1]), SVector::from([0.2, 0.5]));
        let (a, lambda, psi) = matrix.predict(&force, &c_g, &c_k).unwrap();
        let momentum = l * a + g.transpose() * lambda + kv.transpose() * psi - force;
        assert!(momentum.amax() < 1e-13, "{momentum}");
        assert!((g * a + c_g).amax() < 1e-13);
        assert!((kv * a + c_k).amax() < 1e-13);
    }
}
