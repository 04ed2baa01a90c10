//! Simplified Newton for the index-2 Lobatto step (`index2`) with a block-structured matrix:
//! the model's factors of the mass matrix and a `K × K` Schur complement in place of the
//! dense `S(2N + K)`-square exact matrix.
//!
//! The matrix keeps, of the exact Jacobian of `index2`'s E1-E3, the mass matrix `L` (at the
//! step start) on the velocity blocks and `K_v` (at the step start) in the reactions and in
//! E3; the force derivatives `h L_q…`, the `q`-derivatives of `k` and of `k_vᵀψ` are dropped
//! (O(h) relative to what is kept). With the pinned `W_1 = v0`, `hΨ_1 = hψ0` and the
//! multiplier updates `Δψ_j = Δ(hΨ_j)`, `j ≥ 2`:
//!
//! ```text
//! E1  L ΔV_i + Σ_j â_ij K_vᵀ Δψ_j = −r1_i     i = 1..s
//! E2  L ΔW_i + Σ_j a_ij K_vᵀ Δψ_j = −r2_i     i = 2..s
//! E3  K_v ΔW_i = −r3_i                        i = 2..s
//! ```
//!
//! `ΔV` appears in E1 only, so E2 and E3 are solved first: with `W = L⁻¹ K_vᵀ`,
//! `S_kk = K_v W` and `A' = (a_ij)_{i,j ≥ 2}` (invertible: Lobatto IIIA's lower block),
//! `Δψ = (A'⁻¹ ⊗ S_kk⁻¹) (K_v L⁻¹(−r2) + r3)`, then `ΔW_i = L⁻¹(−r2_i) − W Σ_j a_ij Δψ_j` and
//! `ΔV_i = L⁻¹(−r1_i) − W Σ_j â_ij Δψ_j`: `2S − 1` solves with `L` an iteration. The iteration
//! starts from velocities along the acceleration at the step start.

// Stage indices follow the paper's subscripts.
#![allow(clippy::needless_range_loop)]

use nalgebra::{SMatrix, SVector};

use crate::error::{Error, Phase};
use crate::linalg::newton::{attainable, rounding_floor, slow, tolerance_unit};
use crate::linalg::newton::{Monitor, Verdict, ILL_CONDITIONED};
use crate::linalg::vector::{max_abs, row_norm};
use crate::model::Lagrangian;
use crate::step::assembly::stage_position;
use crate::step::coupled_matrix::CoupledBlocks;
use crate::step::problem::Problem;
use crate::step::stage_matrix::{DenseSaddle, SaddleOps, SparseSaddle};
use crate::step::start::nonholonomic_rows;
use crate::tableau::Index2Tableau;

/// The index-2 step's start data that do not depend on the unknowns.
pub(crate) struct Start<const N: usize, const K: usize> {
    pub(crate) t0: f64,
    pub(crate) q0: SVector<f64, N>,
    pub(crate) v0: SVector<f64, N>,
    pub(crate) p0: SVector<f64, N>,
    /// `h ψ0`.
    pub(crate) mu0: SVector<f64, K>,
}

/// The unknowns of the index-2 step: `V_1..V_S`, `W_1..W_S` (`W_1 = v0`) and
/// `hΨ_1..hΨ_S` (`hΨ_1 = hψ0`).
pub(crate) struct Index2Unknowns<const N: usize, const K: usize, const S: usize> {
    /// `V_1..V_S`.
    pub vs: [SVector<f64, N>; S],
    /// `W_1..W_S`.
    pub ws: [SVector<f64, N>; S],
    /// `hΨ_1..hΨ_S`.
    pub mus: [SVector<f64, K>; S],
}

/// The factored approximate matrix (see the module).
struct Index2Matrix<const N: usize, const K: usize, const S: usize, F> {
    /// The factored `L`.
    blocks: F,
    kv: SMatrix<f64, K, N>,
    /// `W = L⁻¹ K_vᵀ`.
    w: SMatrix<f64, N, K>,
    /// `S_kk⁻¹`.
    skk_inv: SMatrix<f64, K, K>,
    /// `A'⁻¹` in the slots `2..s` (0-based `1..S`).
    a_inv: [[f64; S]; S],
}

/// The inverse of the block `(a_ij)_{i,j ≥ 2}` of `a` (0-based rows and columns `1..S`), by
/// Gauss-Jordan elimination with partial pivoting, in the same slots; `None` when singular.
fn lower_block_inverse<const S: usize>(a: &[[f64; S]; S]) -> Option<[[f64; S]; S]> {
    let mut m = *a;
    let mut inv = [[0.0; S]; S];
    for i in 1..S {
        inv[i][i] = 1.0;
    }
    for col in 1..S {
        let pivot = (col..S).max_by(|&x, &y| m[x][col].abs().total_cmp(&m[y][col].abs()))?;
        if m[pivot][col].abs() < 1e-12 {
            return None;
        }
        m.swap(col, pivot);
        inv.swap(col, pivot);
        let d = m[col][col];
        for j in 1..S {
            m[col][j] /= d;
            inv[col][j] /= d;
        }
        for row in (1..S).filter(|&row| row != col) {
            let f = m[row][col];
            for j in 1..S {
                m[row][j] -= f * m[col][j];
                inv[row][j] -= f * inv[col][j];
            }
        }
    }
    Some(inv)
}

impl<'a, Sys: Lagrangian<N, M, K>, const N: usize, const M: usize, const K: usize>
    Problem<'a, Sys, N, M, K>
{
    /// The index-2 step's equations by simplified Newton with the structured matrix, from
    /// `V = W = v0`, `hΨ = hψ0`: the converged unknowns and the iterations, or `None` when it
    /// does not apply (full Newton asked for, singular or ill-conditioned factors).
    pub(crate) fn index2_structured<const S: usize>(
        &self,
        tab: &Index2Tableau<S>,
        start: &Start<N, K>,
    ) -> Option<Result<(Index2Unknowns<N, K, S>, u32), Error>> {
        if !self.options.simplified_newton || M > 0 {
            return None;
        }
        if Sys::SPARSE_SADDLE {
            self.index2_iterate::<S, SparseSaddle<'a, Sys, N, M, K>>(tab, start)
        } else {
            self.index2_iterate::<S, DenseSaddle<N, M>>(tab, start)
        }
    }

    /// [`Problem::index2_structured`] with the mass factors `F`.
    fn index2_iterate<const S: usize, F: SaddleOps<N, M> + CoupledBlocks<'a, Sys, N, M, K>>(
        &self,
        tab: &Index2Tableau<S>,
        start: &Start<N, K>,
    ) -> Option<Result<(Index2Unknowns<N, K, S>, u32), Error>> {
        let (sys, options) = (self.sys, self.options);
        let (t0, q0, v0) = (start.t0, start.q0, start.v0);
        let blocks = F::factor(sys, (t0, &q0, &v0), (t0, &q0))?;
        let kv = nonholonomic_rows(sys, t0, &q0, &v0).1;
        let w = blocks.mass_solve_rows(&kv);
        let skk = kv * w;
        let skk_inv = skk.try_inverse()?;
        let condition = skk.amax() * skk_inv.amax() * (K * K) as f64;
        if !condition.is_finite() || attainable(condition) > ILL_CONDITIONED * options.tolerance {
            return None;
        }
        let matrix = Index2Matrix {
            blocks,
            kv,
            w,
            skk_inv,
            a_inv: lower_block_inverse(&tab.a)?,
        };
        Some(self.index2_iterations(tab, start, &matrix))
    }

    /// The iterations of [`Problem::index2_structured`] with the factored `matrix`.
    fn index2_iterations<const S: usize, F: SaddleOps<N, M>>(
        &self,
        tab: &Index2Tableau<S>,
        start: &Start<N, K>,
        matrix: &Index2Matrix<N, K, S, F>,
    ) -> Result<(Index2Unknowns<N, K, S>, u32), Error> {
        let (sys, h, options) = (self.sys, self.h, self.options);
        let (t0, q0, v0) = (start.t0, start.q0, start.v0);
        // The start: velocities along the acceleration of the index-1 system at the step
        // start with the multiplier `ψ0`, `L a0 = ∇_qL − L_vq v − K_vᵀ ψ0` (`L_vt` left out:
        // a starting value), multipliers constant.
        let (_, f0, lvq_v) = sys.momentum_force_lvq_v(t0, &q0, &v0);
        let mut a0 = (f0 - lvq_v) * h - matrix.kv.tr_mul(&start.mu0);
        matrix.blocks.solve_mass(&mut a0);
        let mut x = Index2Unknowns {
            vs: core::array::from_fn(|i| v0 + a0 * tab.c[i]),
            ws: core::array::from_fn(|i| if i == 0 { v0 } else { v0 + a0 * tab.c[i] }),
            mus: [start.mu0; S],
        };
        let ts: [f64; S] = core::array::from_fn(|i| t0 + tab.c[i] * h);
        let vscale0 = max_abs(&v0);
        let position_scale = (1.0 + max_abs(&q0)) / h.abs();
        let mut monitor = Monitor::new(Phase::Stages, options.max_iterations);
        let zero_n = SVector::<f64, N>::zeros();
        loop {
            // The negated residuals of E1-E3.
            let qs: [SVector<f64, N>; S] =
                core::array::from_fn(|i| stage_position(&q0, h, &tab.a[i], &x.vs));
            let (mut r1, mut g) = ([zero_n; S], [zero_n; S]);
            // Momentum, force and k_vᵀψ at each stage from one evaluation
            // (`Lagrangian::stage_terms`); momentum and k at `W_i` too (`end_terms`, whose
            // holonomic parts are empty here: `M = 0`).
            for j in 0..S {
                let (p, f, _, reaction) = sys.stage_terms(ts[j], &qs[j], &x.vs[j], &x.mus[j]);
                r1[j] = start.p0 - p;
                g[j] = f * h;
                if K > 0 {
                    g[j] -= reaction;
                }
            }
            let (mut r2, mut r3) = ([zero_n; S], [SVector::<f64, K>::zeros(); S]);
            for i in 1..S {
                let (p, _, k, _, _) = sys.end_terms(ts[i], &qs[i], &x.ws[i], &SVector::zeros());
                r2[i] = start.p0 - p;
                r3[i] = -k;
            }
            for i in 0..S {
                for j in 0..S {
                    r1[i].axpy(tab.a_hat[i][j], &g[j], 1.0);
                    if i > 0 {
                        r2[i].axpy(tab.a[i][j], &g[j], 1.0);
                    }
                }
            }
            // The correction: E2, E3 for Δψ and ΔW, then E1 for ΔV.
            let mut u = [SVector::<f64, K>::zeros(); S];
            for i in 1..S {
                matrix.blocks.solve_mass(&mut r2[i]);
                u[i] = matrix.skk_inv * (matrix.kv * r2[i] - r3[i]);
            }
            let mut dpsi = [SVector::<f64, K>::zeros(); S];
            for j in 1..S {
                for i in 1..S {
                    dpsi[j].axpy(matrix.a_inv[j][i], &u[i], 1.0);
                }
            }
            let (mut delta, mut vscale) = (0.0f64, vscale0);
            for i in 0..S {
                let (mut by_v, mut by_w) = (SVector::<f64, K>::zeros(), SVector::<f64, K>::zeros());
                for j in 1..S {
                    by_v.axpy(tab.a_hat[i][j], &dpsi[j], 1.0);
                    by_w.axpy(tab.a[i][j], &dpsi[j], 1.0);
                }
                matrix.blocks.solve_mass(&mut r1[i]);
                let dv = r1[i] - matrix.w * by_v;
                x.vs[i] += dv;
                delta = delta.max(max_abs(&dv));
                vscale = vscale.max(max_abs(&x.vs[i]));
                if i > 0 {
                    let dw = r2[i] - matrix.w * by_w;
                    x.ws[i] += dw;
                    x.mus[i] += dpsi[i];
                    delta = delta.max(max_abs(&dw));
                    vscale = vscale.max(max_abs(&x.ws[i]));
                }
            }
            if vscale == 0.0 {
                return Ok((x, monitor.iterations() + 1));
            }
            let unit = tolerance_unit(options.tolerance, true, vscale);
            let noise = rounding_floor(vscale, position_scale);
            if monitor.judge(delta / unit, noise / unit)? == Verdict::Converged {
                if self.index2_meets_constraints(tab, &x, &matrix.kv) {
                    return Ok((x, monitor.iterations()));
                }
                return Err(slow(Phase::Stages, monitor.iterations(), monitor.last()));
            }
            if monitor.is_slow() {
                return Err(slow(Phase::Stages, monitor.iterations(), monitor.last()));
            }
        }
    }

    /// Whether the converged iterate `x` meets `k(t1, q1, v1) = 0` to the consistency
    /// tolerance, measured as the next step's start measures it (rows scaled by those of
    /// `K_v`): simplified Newton judges the velocity updates only.
    fn index2_meets_constraints<const S: usize>(
        &self,
        tab: &Index2Tableau<S>,
        x: &Index2Unknowns<N, K, S>,
        kv: &SMatrix<f64, K, N>,
    ) -> bool {
        let (sys, h, state) = (self.sys, self.h, self.state);
        let q1 = stage_position(&state.q, h, &tab.b, &x.vs);
        let v1 = &x.ws[S - 1];
        let k = sys.nonholonomic_constraints(state.t + h, &q1, v1);
        let tol = self.options.consistency_tolerance * (1.0 + max_abs(v1));
        (0..K).all(|l| {
            let norm = row_norm(kv, l);
            k[l].abs() / if norm > 0.0 { norm } else { 1.0 } <= tol
        })
    }
}

#[cfg(test)]
mod tests {
    use super::lower_block_inverse;
    use crate::step::problem::Problem;
    use crate::{LobattoIIIABIndex2, Options, State};

    mod hand {
        include!("../../tests/models/particle.rs");
    }
    use hand::Particle;

    /// The structured iteration converges (no fallback) and gives the dense full-Newton
    /// solution of the same equations, for S = 2..4, along 50 steps.
    #[test]
    fn structured_step_is_the_dense_steps_solution() {
        fn check<const S: usize>() {
            let tab = LobattoIIIABIndex2::<S>::TABLEAU;
            let full = Options {
                simplified_newton: false,
                ..Options::default()
            };
            let options = Options::default();
            let mut s = State::new(0.0, [1.0, 0.2, 0.0], [0.0, 1.0, 0.0]);
            s.v[2] = s.q[1] * s.v[0];
            let h = 0.01;
            for step in 0..50 {
                let problem = Problem::<Particle, 3, 0, 1>::new(&Particle, h, &options, &s);
                let psi0 = problem.consistent_multiplier().unwrap();
                let start = super::Start {
                    t0: s.t,
                    q0: s.q,
                    v0: s.v,
                    p0: s.v,
                    mu0: psi0 * h,
                };
                let (x, iterations) = problem.index2_structured(&tab, &start).unwrap().unwrap();
                assert!(
                    iterations <= 8,
                    "S = {S}, step {step}: {iterations} iterations"
                );
                let dense = Problem::<Particle, 3, 0, 1>::new(&Particle, h, &full, &s);
                let (next, _, _) = dense.index2_with_multiplier(&tab, &psi0).unwrap();
                let mut q1 = s.q;
                for j in 0..S {
                    q1 += x.vs[j] * (h * tab.b[j]);
                }
                let dq = (q1 - next.q).amax();
                let dv = (x.ws[S - 1] - next.v).amax();
                assert!(
                    dq < 1e-13 && dv < 1e-12,
                    "S = {S}, step {step}: {dq:e} {dv:e}"
                );
                s = next;
            }
        }
        check::<2>();
        check::<3>();
        check::<4>();
    }

    /// The inverse of Lobatto IIIA's lower block, checked by its product.
    #[test]
    fn lower_block_inverse_inverts() {
        fn check<const S: usize>(a: &[[f64; S]; S]) {
            let inv = lower_block_inverse(a).expect("invertible");
            for i in 1..S {
                for j in 1..S {
                    let p: f64 = (1..S).map(|k| a[i][k] * inv[k][j]).sum();
                    let id = if i == j { 1.0 } else { 0.0 };
                    assert!((p - id).abs() < 1e-13, "S = {S}: ({i}, {j}) {p}");
                }
            }
        }
        check(&LobattoIIIABIndex2::<2>::TABLEAU.a);
        check(&LobattoIIIABIndex2::<3>::TABLEAU.a);
        check(&LobattoIIIABIndex2::<4>::TABLEAU.a);
        check(&LobattoIIIABIndex2::<5>::TABLEAU.a);
    }
}
