//! The stage equations every Lagrangian step is made of, written once: the residual and the
//! Jacobian blocks of each kind of row.
//!
//! * **Momentum balance** (a row per stage, Lobatto stage or end point): the discrete form of
//!   `d/dt ∇_v L = ∇_q L − Gᵀλ − k_vᵀψ`,
//!
//!   ```text
//!   ρ = ∇_vL(T*, Q*, V*) − p0 − h Σ_j w_j F_j + Σ_j wn_j K_jᵀ ν_j + w0 G0ᵀ μ0 + Σ_j wl_j G̃_jᵀ μ_j
//!   ```
//!
//!   with `F_j = ∇_qL(T_j, Q_j, V_j)`, `K_j = k_v(T_j, Q_j, V_j)` at the stages
//!   `Q_j = q0 + h Σ_l a_jl V_l`, `G̃_j = g_q` at the Lobatto nodes `Q̃_j = q0 + h Σ_l ā_jl V_l`,
//!   `ν_j = hΨ_j`, `μ_j = hΛ_j`. Each method is a choice of the weights ([`MomentumWeights`]):
//!   `(â_i, ã^n_i, ã_i0, ã_i)` for the stages of a SPARK method, `(b, b̃^n, b̃_0, b̃)` for its end
//!   point, `(ā_i, ā_i, ǎ_i0, ǎ_i)` for EMPRK's Lobatto stages, `(â_i, â_i, –, –)` and
//!   `(a_i, a_i, –, –)` for paper 002's method.
//! * **Position constraints** `g(T̃_j, Q̃_j)/h = 0` at the Lobatto nodes.
//!
//! This is where a term of the equations of motion enters every method at once: the
//! non-conservative forces `Q` are part of `F_j = ∇_qL + Q` (the model adds them to
//! [`DynamicsJacobian::f`]), taken with the same weights as `∇_qL` (Jay, 004, §4 and (6.1b)), and
//! their Jacobians `∂Q/∂q` (in `lqq`) and `∂Q/∂v` (`fv`) enter
//! [`StageEvaluations::momentum_coupling`].

// Stage and block indices follow the papers' subscripts.
#![allow(clippy::needless_range_loop)]

use nalgebra::{SMatrix, SVector};

use crate::linalg::dense_newton::{add_block, add_block_tr};
use crate::model::blocks::{ConstraintJacobian, DynamicsJacobian, NonholonomicJacobian};
use crate::model::Lagrangian;

/// The coefficients of one momentum-balance row.
#[derive(Clone, Copy)]
pub(crate) struct MomentumWeights<'a, const S: usize> {
    /// `w_j`: the forces `F_j`.
    pub force: &'a [f64; S],
    /// `wn_j`: the nonholonomic reactions `K_jᵀ ν_j`.
    pub nonholonomic: &'a [f64; S],
    /// `w0`: the holonomic reaction at the step start, `G0ᵀ μ0`.
    pub start: f64,
    /// `wl_j`: the holonomic reactions at the Lobatto nodes `1..`, `G̃_jᵀ μ_j` (slot `j` is
    /// node `j + 1`).
    pub lobatto: &'a [f64; S],
}

impl<'a, const S: usize> MomentumWeights<'a, S> {
    /// The row of stage `i` of a SPARK method: `(â_i, ã^n_i, ã_i0, ã_i)`.
    pub(crate) fn spark_stage(tab: &'a crate::tableau::SparkTableau<S>, i: usize) -> Self {
        Self {
            force: &tab.a_hat[i],
            nonholonomic: &tab.a_nh[i],
            start: tab.a_til0[i],
            lobatto: &tab.a_til[i],
        }
    }

    /// The end-point row of a SPARK method: `(b, b̃^n, b̃_0, b̃)`.
    pub(crate) fn spark_end(tab: &'a crate::tableau::SparkTableau<S>) -> Self {
        Self {
            force: &tab.b,
            nonholonomic: &tab.b_nh,
            start: tab.b_lob0,
            lobatto: &tab.b_lob,
        }
    }

    /// Forces and nonholonomic reactions weighted by the same `row`, no holonomic reactions
    /// (`zero` is the zero row).
    pub(crate) fn shared(row: &'a [f64; S], zero: &'a [f64; S]) -> Self {
        Self {
            force: row,
            nonholonomic: row,
            start: 0.0,
            lobatto: zero,
        }
    }
}

/// The columns of the reaction unknowns in a flat system: `μ0`, `μ_j` (Lobatto slot `j`) and
/// `ν_j` (stage `j`).
pub(crate) struct ReactionColumns {
    /// Column of `μ0` (`None`: not an unknown of this system).
    pub start: Option<usize>,
    /// Column of `μ_0` of the Lobatto slots; slot `j` starts at `lobatto + j M`.
    pub lobatto: usize,
    /// Column of `ν_0`; stage `j` starts at `nonholonomic + j K`.
    pub nonholonomic: usize,
}

/// Which blocks of a model's [`DynamicsJacobian`] are identically zero
/// ([`Lagrangian::ZERO_LVQ`], [`Lagrangian::ZERO_LQQ`], [`Lagrangian::ZERO_FV`]): exact Newton
/// matrices skip them.
#[derive(Clone, Copy, Default)]
pub(crate) struct ZeroBlocks {
    pub lvq: bool,
    pub lqq: bool,
    pub fv: bool,
}

impl ZeroBlocks {
    /// The model's declared zero blocks.
    pub(crate) fn of<Sys: Lagrangian<N, M, K>, const N: usize, const M: usize, const K: usize>(
    ) -> Self {
        Self {
            lvq: Sys::ZERO_LVQ,
            lqq: Sys::ZERO_LQQ,
            fv: Sys::ZERO_FV,
        }
    }
}

/// What the rows of a step read at the current iterate: the model's evaluations at the stages
/// and at the Lobatto nodes, the multipliers, and the step-start data.
pub(crate) struct StageEvaluations<
    'a,
    const N: usize,
    const M: usize,
    const K: usize,
    const S: usize,
> {
    /// The step size.
    pub h: f64,
    /// `A`: the stage positions `Q_j = q0 + h Σ_l a_jl V_l`.
    pub a: &'a [[f64; S]; S],
    /// `Ā`: the Lobatto-node positions (slot `j` is node `j + 1`).
    pub a_bar: &'a [[f64; S]; S],
    /// `p0 = ∇_vL(t0, q0, v0)`.
    pub p0: &'a SVector<f64, N>,
    /// `G(t0, q0)`.
    pub gq0: &'a SMatrix<f64, M, N>,
    /// `μ0 = hΛ_0`.
    pub mu0: &'a SVector<f64, M>,
    /// `L` and its derivatives at the stages.
    pub dyns: &'a [DynamicsJacobian<N>; S],
    /// `k` and its derivatives at the stages, second derivatives contracted with `ν_j`.
    pub nhs: &'a [NonholonomicJacobian<N, K>; S],
    /// `ν_j = hΨ_j`.
    pub nus: &'a [SVector<f64, K>; S],
    /// `g` and its derivatives at the Lobatto nodes, Hessians contracted with `μ_j`.
    pub cons: &'a [ConstraintJacobian<N, M>; S],
    /// `μ_j = hΛ_j` at the Lobatto nodes.
    pub mus: &'a [SVector<f64, M>; S],
    /// The model's identically zero blocks.
    pub zeros: ZeroBlocks,
}

impl<const N: usize, const M: usize, const K: usize, const S: usize>
    StageEvaluations<'_, N, M, K, S>
{
    /// The residual `ρ` of a momentum-balance row whose own momentum is `p`.
    pub(crate) fn momentum_residual(
        &self,
        p: &SVector<f64, N>,
        w: &MomentumWeights<'_, S>,
    ) -> SVector<f64, N> {
        let mut rho = p - self.p0 + self.gq0.tr_mul(self.mu0) * w.start;
        for j in 0..S {
            rho += self.dyns[j].f * (-self.h * w.force[j])
                + self.nhs[j].kv.tr_mul(&self.nus[j]) * w.nonholonomic[j]
                + self.cons[j].gq.tr_mul(&self.mus[j]) * w.lobatto[j];
        }
        rho
    }

    /// Adds `∂ρ/∂V_l` of a momentum-balance row at `(row, col)` of `jm`, without the row's own
    /// momentum term (which the caller adds: `L_vv` on its own velocity unknown and
    /// `h c_l L_vq` for its own position coefficients `c`). Term by term, straight into the
    /// matrix: no `N × N` temporaries.
    pub(crate) fn add_momentum_coupling(
        &self,
        jm: &mut [f64],
        len: usize,
        (row, col): (usize, usize),
        w: &MomentumWeights<'_, S>,
        l: usize,
    ) {
        let h = self.h;
        for j in 0..S {
            if w.force[j] != 0.0 {
                let (d, z) = (&self.dyns[j], self.zeros);
                if !z.lqq {
                    add_block(
                        jm,
                        len,
                        row,
                        col,
                        &d.lqq,
                        -h * h * self.a[j][l] * w.force[j],
                    );
                }
                if j == l {
                    if !z.lvq {
                        add_block_tr(jm, len, row, col, &d.lvq, -h * w.force[j]);
                    }
                    if !z.fv {
                        add_block(jm, len, row, col, &d.fv, -h * w.force[j]);
                    }
                }
            }
            if K > 0 && w.nonholonomic[j] != 0.0 {
                let k = &self.nhs[j];
                add_block(
                    jm,
                    len,
                    row,
                    col,
                    &k.hess_vq,
                    h * self.a[j][l] * w.nonholonomic[j],
                );
                if j == l {
                    add_block(jm, len, row, col, &k.hess_vv, w.nonholonomic[j]);
                }
            }
            if w.lobatto[j] != 0.0 {
                // Symmetric (a Hessian contracted with μ_j): no transposed copy needed.
                let c = &self.cons[j].hess_mu;
                add_block_tr(jm, len, row, col, c, h * w.lobatto[j] * self.a_bar[j][l]);
            }
        }
    }

    /// `∂ρ/∂q0` of a momentum-balance row through the stage and Lobatto-node positions (every
    /// `Q_j` and `Q̃_j` moves with `q0`), without the row's own momentum and the step-start terms
    /// (which the caller adds).
    pub(crate) fn momentum_start_coupling(&self, w: &MomentumWeights<'_, S>) -> SMatrix<f64, N, N> {
        let mut block = SMatrix::<f64, N, N>::zeros();
        for j in 0..S {
            if w.force[j] != 0.0 && !self.zeros.lqq {
                add_scaled(&mut block, &self.dyns[j].lqq, -self.h * w.force[j]);
            }
            if K > 0 && w.nonholonomic[j] != 0.0 {
                add_scaled(&mut block, &self.nhs[j].hess_vq, w.nonholonomic[j]);
            }
            if w.lobatto[j] != 0.0 {
                add_scaled(&mut block, &self.cons[j].hess_mu, w.lobatto[j]);
            }
        }
        block
    }

    /// Adds the whole momentum-balance row at `row` of the row-major `len × len` matrix `jm`:
    /// the own momentum (`L_vv` at the column `own`, `h own_coef_l L_vq` at the stage columns
    /// `l N`), the coupling through the stages, and the reaction columns.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn add_momentum_row(
        &self,
        jm: &mut [f64],
        len: usize,
        row: usize,
        own: (usize, &DynamicsJacobian<N>, &[f64; S]),
        w: &MomentumWeights<'_, S>,
        cols: &ReactionColumns,
    ) {
        let (own_col, own_dyn, own_coef) = own;
        // `L_vv` is symmetric: added as its own transpose.
        add_block_tr(jm, len, row, own_col, &own_dyn.lvv, 1.0);
        for l in 0..S {
            self.add_momentum_coupling(jm, len, (row, l * N), w, l);
            if !self.zeros.lvq {
                add_block(jm, len, row, l * N, &own_dyn.lvq, self.h * own_coef[l]);
            }
        }
        if let Some(c) = cols.start {
            add_block_tr(jm, len, row, c, self.gq0, w.start);
        }
        for j in 0..S {
            let lobatto = cols.lobatto + j * M;
            add_block_tr(jm, len, row, lobatto, &self.cons[j].gq, w.lobatto[j]);
            let nonholonomic = cols.nonholonomic + j * K;
            add_block_tr(
                jm,
                len,
                row,
                nonholonomic,
                &self.nhs[j].kv,
                w.nonholonomic[j],
            );
        }
    }

    /// Adds the Jacobian of the position-constraint rows `g(T̃_j, Q̃_j)/h`, `j < nodes`, whose
    /// rows start at `row + j M`, with respect to the stage velocities (columns `l N`).
    pub(crate) fn add_position_constraint_rows(
        &self,
        jm: &mut [f64],
        len: usize,
        row: usize,
        nodes: usize,
    ) {
        for j in 0..nodes {
            for l in 0..S {
                add_block(
                    jm,
                    len,
                    row + j * M,
                    l * N,
                    &self.cons[j].gq,
                    self.a_bar[j][l],
                );
            }
        }
    }
}

/// Adds the Jacobian of the hidden-constraint row `w(t1, q1, v1) = g_t + G v1` at `row`: `∂w/∂v`
/// at the column of the end velocity `own`, `h b_l ∂w/∂q` at the stage columns `l N`
/// (`q1 = q0 + h Σ_l b_l V_l`).
#[allow(clippy::too_many_arguments)]
/// `q0 + h Σ_j coef_j V_j`: the positions at a stage, a Lobatto node or the end point, from the
/// stage velocities `vs` and that point's row `coef` of the tableau (what the structured
/// iterations and their end-point checks evaluate the model at).
pub(crate) fn stage_position<const N: usize, const S: usize>(
    q0: &SVector<f64, N>,
    h: f64,
    coef: &[f64; S],
    vs: &[SVector<f64, N>; S],
) -> SVector<f64, N> {
    let mut q = *q0;
    for j in 0..S {
        q.axpy(h * coef[j], &vs[j], 1.0);
    }
    q
}

pub(crate) fn add_hidden_constraint_row<const N: usize, const M: usize, const S: usize>(
    jm: &mut [f64],
    len: usize,
    row: usize,
    own: usize,
    w: &crate::model::blocks::VelocityConstraintJacobian<N, M>,
    h: f64,
    b: &[f64; S],
) {
    add_block(jm, len, row, own, &w.wv, 1.0);
    for l in 0..S {
        add_block(jm, len, row, l * N, &w.wq, h * b[l]);
    }
}

/// `acc += s · m`, in place (an expression `acc += m * s` builds `m * s` on the stack first).
pub(crate) fn add_scaled<const R: usize, const C: usize>(
    acc: &mut SMatrix<f64, R, C>,
    m: &SMatrix<f64, R, C>,
    s: f64,
) {
    for (a, &b) in acc.as_mut_slice().iter_mut().zip(m.as_slice()) {
        *a += s * b;
    }
}
