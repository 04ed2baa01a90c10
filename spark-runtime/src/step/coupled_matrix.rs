//! The block-structured simplified Newton matrix of the coupled holonomic + nonholonomic step
//! (`mixed`): the Kronecker approximation of `stage_matrix` extended with the end point and the
//! nonholonomic rows of the Lagrange-d'Alembert SPARK equations (Jay, 004, (6.1a-f); `mixed`'s
//! E1-E6).
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

use core::ops::{Index, IndexMut};

use nalgebra::{SMatrix, SVector};

use crate::linalg::layout::{flat, flat_square, zero_square, zeros, Arr, Layout, Scalar, Square};
use crate::linalg::lu;
use crate::linalg::vector::row_norm;
use crate::model::Lagrangian;
use crate::step::coupled_layout::{moment_weight, MixedLayout, Offsets};
use crate::step::stage_matrix::{DenseSaddle, SaddleOps, SparseSaddle};
use crate::tableau::SparkTableau;

/// `S + 1` values: slot 0 (`μ_0`, or the end point `v1` for velocity blocks) and slots
/// `1..=S` (`μ_1..μ_S`, or `V_1..V_S`).
#[derive(Clone, Copy)]
pub(crate) struct Slots<T, const S: usize> {
    /// Slot 0.
    pub first: T,
    /// Slots `1..=S`.
    pub rest: [T; S],
}

impl<T: Copy, const S: usize> Slots<T, S> {
    /// Every slot `x`.
    pub(crate) fn splat(x: T) -> Self {
        Self {
            first: x,
            rest: [x; S],
        }
    }
}

impl<T, const S: usize> Index<usize> for Slots<T, S> {
    type Output = T;
    fn index(&self, p: usize) -> &T {
        if p == 0 {
            &self.first
        } else {
            &self.rest[p - 1]
        }
    }
}

impl<T, const S: usize> IndexMut<usize> for Slots<T, S> {
    fn index_mut(&mut self, p: usize) -> &mut T {
        if p == 0 {
            &mut self.first
        } else {
            &mut self.rest[p - 1]
        }
    }
}

/// The coefficient of the holonomic reaction of multiplier slot `p` (`μ_0`, `μ_1..`) in the
/// momentum row of velocity block `x` (`x < S`: stage `x`, `x = S`: the end point).
fn a_coef<const S: usize>(tab: &SparkTableau<S>, x: usize, p: usize) -> f64 {
    match (x < S, p) {
        (true, 0) => tab.a_til0[x],
        (true, p) => tab.a_til[x][p - 1],
        (false, 0) => tab.b_lob0,
        (false, p) => tab.b_lob[p - 1],
    }
}

/// The coefficient of `K_jᵀν_j` in the momentum row of velocity block `x`.
fn an_coef<const S: usize>(tab: &SparkTableau<S>, x: usize, j: usize) -> f64 {
    if x < S {
        tab.a_nh[x][j]
    } else {
        tab.b_nh[j]
    }
}

/// Whether the tableau has the structure the elimination uses: `ã_is̃ = 0` for the stages,
/// `b̃_s̃ ≠ 0` and `Ā'Ã'` invertible (every SPARK tableau of the crate with `s̃ ≥ 1`).
pub(crate) fn applies<const S: usize>(tab: &SparkTableau<S>) -> bool {
    let st = tab.s_tilde;
    st >= 1
        && st <= S
        && tab.kron.invertible
        && a_coef(tab, S, st) != 0.0
        && (0..S).all(|x| a_coef(tab, x, st) == 0.0)
}

/// Applies `E⁻¹` (`E = BA`, see the module) to the slots `0..=s̃` of `w`, in place.
fn apply_e_inv<const R: usize, const S: usize>(
    tab: &SparkTableau<S>,
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
        last -= d[q] * a_coef(tab, S, q);
    }
    d[st] = last / a_coef(tab, S, st);
    for q in 0..=st {
        w[q] = d[q];
    }
}

/// The unknowns of the nonholonomic Schur complement: `ν_1..ν_S`.
type NuLayout<const K: usize, const S: usize> = Arr<Arr<Scalar, K>, S>;

/// A right-hand side or a correction of the coupled step, block by block.
pub(crate) struct Blocks<const N: usize, const M: usize, const K: usize, const S: usize> {
    /// Velocity blocks: `first` is `v1` (E2's rows), `rest` the stages (E1's).
    pub x: Slots<SVector<f64, N>, S>,
    /// Multiplier slots: `first` is `μ_0` (E4's rows), `rest[j]` is `μ_{j+1}` (E3's rows for
    /// `j < s̃`, the pinned `μ_{j+1} = 0` after).
    pub mu: Slots<SVector<f64, M>, S>,
    /// `ν_1..ν_S` (E5's and E6's rows).
    pub nu: [SVector<f64, K>; S],
}

impl<const N: usize, const M: usize, const K: usize, const S: usize> Blocks<N, M, K, S> {
    /// All zero.
    pub(crate) fn zeros() -> Self {
        Self {
            x: Slots::splat(SVector::zeros()),
            mu: Slots::splat(SVector::zeros()),
            nu: [SVector::zeros(); S],
        }
    }

    /// Every block negated.
    pub(crate) fn negate(&mut self) {
        for p in 0..=S {
            self.x[p].neg_mut();
            self.mu[p].neg_mut();
        }
        for j in 0..S {
            self.nu[j].neg_mut();
        }
    }

    /// The unknowns in the flat layout of the coupled system ([`Offsets`], `K > 0`).
    pub(crate) fn to_flat(&self) -> <MixedLayout<N, M, K, S> as Layout>::Of<f64> {
        type O<const N: usize, const M: usize, const K: usize, const S: usize> =
            Offsets<N, M, K, S>;
        let mut buf = zeros::<MixedLayout<N, M, K, S>>();
        let x = flat::<MixedLayout<N, M, K, S>, f64>(&mut buf);
        let mut put = |at: usize, v: &[f64]| x[at..at + v.len()].copy_from_slice(v);
        for i in 0..S {
            put(O::<N, M, K, S>::v(i), self.x.rest[i].as_slice());
            put(O::<N, M, K, S>::mu(i + 1), self.mu.rest[i].as_slice());
            put(O::<N, M, K, S>::nu(i), self.nu[i].as_slice());
        }
        put(O::<N, M, K, S>::V1, self.x.first.as_slice());
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

/// Velocity block `x` of the paper's order (`x < S`: stage, `x = S`: end point) in [`Slots`]'
/// order (end point first).
fn vel(x: usize) -> usize {
    x + 1
}

/// The factored approximate matrix of the coupled step (see the module).
pub(crate) struct CoupledMatrix<const N: usize, const M: usize, const K: usize, const S: usize, F> {
    blocks: F,
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

impl<const N: usize, const M: usize, const K: usize, const S: usize, F: SaddleOps<N, M>>
    CoupledMatrix<N, M, K, S, F>
{
    /// Factors the matrix of `tab` (which must satisfy [`applies`]) with the factored `L`,
    /// `G` blocks `blocks` and `K_v = kv`; `None` when `Σ` is singular.
    pub(crate) fn new(tab: &SparkTableau<S>, blocks: F, kv: &SMatrix<f64, K, N>) -> Option<Self> {
        let st = tab.s_tilde;
        let omega = |i: usize, x: usize| moment_weight(tab, i, x);
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
            col[0][0] = an_coef(tab, S, j);
            for p in 1..=st {
                for x in 0..S {
                    col[p][0] += tab.a_bar[p - 1][x] * an_coef(tab, x, j);
                }
            }
            apply_e_inv(tab, &mut col);
            for p in 0..=st {
                f[p][j] = col[p][0];
            }
        }
        // CA and CAⁿ: row 0 is E5 (the end point), rows i ≥ 1 the moments E6.
        let c_row = |i: usize, coef: &dyn Fn(usize) -> f64| -> f64 {
            if i == 0 {
                coef(S)
            } else {
                (0..S).map(|x| omega(i, x) * coef(x)).sum()
            }
        };
        let ca: [Slots<f64, S>; S] = core::array::from_fn(|i| {
            let mut row = Slots::splat(0.0);
            for q in 0..=st {
                row[q] = c_row(i, &|x| a_coef(tab, x, q));
            }
            row
        });
        let mut schur = zero_square::<NuLayout<K, S>>();
        let len = S * K;
        let sm = flat_square::<NuLayout<K, S>>(&mut schur);
        for i in 0..S {
            for j in 0..S {
                let can = c_row(i, &|x| an_coef(tab, x, j));
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
    pub(crate) fn solve(&mut self, tab: &SparkTableau<S>, r: &mut Blocks<N, M, K, S>) {
        let st = tab.s_tilde;
        let b = &self.blocks;
        let omega = |i: usize, x: usize| moment_weight(tab, i, x);
        // y = L⁻¹ r_X.
        for x in 0..=S {
            b.solve_mass(&mut r.x[x]);
        }
        // ĝ = (B ⊗ G) y − r_μ, k̂ = (C ⊗ K_v) y − r_ν.
        let mut z = Slots::<SVector<f64, M>, S>::splat(SVector::zeros());
        z[0] = b.g_mul(&r.x[0]) - r.mu[0];
        for p in 1..=st {
            let mut comb = SVector::<f64, N>::zeros();
            for x in 0..S {
                comb.axpy(tab.a_bar[p - 1][x], &r.x[vel(x)], 1.0);
            }
            z[p] = b.g_mul(&comb) - r.mu[p];
        }
        let mut k_hat = [SVector::<f64, K>::zeros(); S];
        if K > 0 {
            k_hat[0] = self.kv * r.x[0] - r.nu[0];
            for i in 1..S {
                let mut comb = SVector::<f64, N>::zeros();
                for x in 0..S {
                    comb.axpy(omega(i, x), &r.x[vel(x)], 1.0);
                }
                k_hat[i] = self.kv * comb - r.nu[i];
            }
        }
        // z = (E⁻¹ ⊗ S_gg⁻¹) ĝ.
        if M > 0 {
            for p in 0..=st {
                b.solve_schur(&mut z[p]);
            }
            apply_e_inv(tab, &mut z);
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
        for x in 0..=S {
            let slot = if x == S { 0 } else { vel(x) };
            if M > 0 {
                let mut comb = SVector::<f64, M>::zeros();
                for p in 0..=st {
                    comb.axpy(a_coef(tab, x, p), &r.mu[p], 1.0);
                }
                r.x[slot] -= b.mass_g_tr(&comb);
            }
            if K > 0 {
                let mut u = SVector::<f64, K>::zeros();
                for j in 0..S {
                    u.axpy(an_coef(tab, x, j), &r.nu[j], 1.0);
                }
                r.x[slot] -= self.w * u;
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
    /// from its definition, for tableaux with `s̃ = S` and `s̃ = S − 1`.
    fn check<const S: usize>(tab: &SparkTableau<S>) {
        const N: usize = 4;
        const M: usize = 2;
        const K: usize = 1;
        assert!(applies(tab));
        let st = tab.s_tilde;
        let (l, g, kv) = test_blocks::<N, M, K>(2.0, 0.3);
        let blocks = DenseSaddle::new(&l, &g).unwrap();
        let mut matrix = CoupledMatrix::<N, M, K, S, _>::new(tab, blocks, &kv).unwrap();
        let len = (S + 1) * (N + M) + S * K;
        let xcol = |slot: usize, a: usize| slot * N + a;
        let mucol = |p: usize, a: usize| (S + 1) * N + p * M + a;
        let nucol = |j: usize, a: usize| (S + 1) * (N + M) + j * K + a;
        let slot_of = |x: usize| if x == S { 0 } else { x + 1 };
        assert!(len <= 32);
        let mut dense = [[0.0f64; 32]; 32];
        for x in 0..=S {
            let s = slot_of(x);
            for a in 0..N {
                for b in 0..N {
                    dense[xcol(s, a)][xcol(s, b)] = l[(a, b)];
                }
                for p in 0..=st {
                    for c in 0..M {
                        dense[xcol(s, a)][mucol(p, c)] = a_coef(tab, x, p) * g[(c, a)];
                    }
                }
                for j in 0..S {
                    for c in 0..K {
                        dense[xcol(s, a)][nucol(j, c)] = an_coef(tab, x, j) * kv[(c, a)];
                    }
                }
            }
        }
        for c in 0..M {
            for a in 0..N {
                dense[mucol(0, c)][xcol(0, a)] = g[(c, a)];
                for p in 1..=st {
                    for x in 0..S {
                        dense[mucol(p, c)][xcol(x + 1, a)] = tab.a_bar[p - 1][x] * g[(c, a)];
                    }
                }
            }
            for p in st + 1..=S {
                dense[mucol(p, c)][mucol(p, c)] = 1.0;
            }
        }
        for c in 0..K {
            for a in 0..N {
                dense[nucol(0, c)][xcol(0, a)] = kv[(c, a)];
                for i in 1..S {
                    for x in 0..S {
                        dense[nucol(i, c)][xcol(x + 1, a)] = moment_weight(tab, i, x) * kv[(c, a)];
                    }
                }
            }
        }
        let rhs: [f64; 32] = core::array::from_fn(|k| (k as f64 * 0.37).sin());
        let mut r = Blocks::<N, M, K, S>::zeros();
        for p in 0..=S {
            for a in 0..N {
                r.x[p][a] = rhs[xcol(p, a)];
            }
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
        let mut sol = [0.0; 32];
        for p in 0..=S {
            for a in 0..N {
                sol[xcol(p, a)] = r.x[p][a];
            }
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
                "S = {S}, s̃ = {st}, row {row}: {s} vs {}",
                rhs[row]
            );
        }
    }

    #[test]
    fn matches_the_dense_approximate_system() {
        check(&GaussLobatto::<1>::TABLEAU);
        check(&GaussLobatto::<2>::TABLEAU);
        check(&GaussLobatto::<3>::TABLEAU);
        check(&LobattoIIIAB::<2>::TABLEAU);
        check(&LobattoIIIAB::<3>::TABLEAU);
        check(&LobattoIIIABD::<3>::TABLEAU);
        check(&crate::SymplecticEulerI::TABLEAU);
        check(&crate::SymplecticEulerII::TABLEAU);
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
        let matrix = CoupledMatrix::<N, M, K, 2, _>::new(tab, blocks, &kv).unwrap();
        let force = SVector::<f64, N>::from_fn(|i, _| 1.0 - 0.3 * i as f64);
        let (c_g, c_k) = (SVector::from([0.7, -1.1]), SVector::from([0.2, 0.5]));
        let (a, lambda, psi) = matrix.predict(&force, &c_g, &c_k).unwrap();
        let momentum = l * a + g.transpose() * lambda + kv.transpose() * psi - force;
        assert!(momentum.amax() < 1e-13, "{momentum}");
        assert!((g * a + c_g).amax() < 1e-13);
        assert!((kv * a + c_k).amax() < 1e-13);
    }
}
