//! Where the coupled structured matrix (`coupled_matrix`) takes its coefficients from: the
//! Lagrange-d'Alembert SPARK step (`mixed`: the stages `V_1..V_S` and one end block `v1`) or
//! the EMPRK step (`emprk`: the Gauss stages and the `S` Lobatto velocity stages
//! `Ṽ_1..Ṽ_S`, the last of which is `v1`).
//!
//! Both have the same rows for the holonomic constraints (E3: `Σ_k ā_ik G V_k` at the Lobatto
//! nodes, E4: `G` on `v1`) and the same `Ã` on the stages, so the elimination of the
//! multipliers `μ` (`E = BA`) is the same; they differ in the reactions of the end blocks' rows
//! and in the nonholonomic rows (SPARK: `k` at the end and `S − 1` moments over the stages;
//! EMPRK: `k` at every Lobatto stage).

// Stage and block indices follow the paper's subscripts.
#![allow(clippy::needless_range_loop)]

use core::ops::{Index, IndexMut};

use crate::step::coupled_layout::moment_weight;
use crate::tableau::{EmprkTableau, SparkTableau};

/// `S + 1` values: slot 0 (`μ_0`) and slots `1..=S` (`μ_1..μ_S`).
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

/// The velocity blocks of a coupled step: the stages `V_1..V_S` and `E` end blocks, the last
/// of which is `v1`. Indexed `x < S` for stage `x`, `S + e` for end block `e`.
#[derive(Clone, Copy)]
pub(crate) struct Velocities<T, const S: usize, const E: usize> {
    /// `V_1..V_S`.
    pub stages: [T; S],
    /// The end blocks (SPARK: `v1`; EMPRK: `Ṽ_1..Ṽ_S`).
    pub ends: [T; E],
}

impl<T: Copy, const S: usize, const E: usize> Velocities<T, S, E> {
    /// Every block `x`.
    pub(crate) fn splat(x: T) -> Self {
        Self {
            stages: [x; S],
            ends: [x; E],
        }
    }

    /// `v1`, the last end block.
    pub(crate) fn v1(&self) -> &T {
        &self.ends[E - 1]
    }

    /// The blocks in order: the stages, then the end blocks. (Loops over the blocks use
    /// these rather than indexing: the index's branch kept the compiler from vectorizing
    /// them, 14 % of the nonholonomic chain's step.)
    pub(crate) fn iter(&self) -> impl Iterator<Item = &T> {
        self.stages.iter().chain(self.ends.iter())
    }

    /// The blocks in order, mutably.
    pub(crate) fn iter_mut(&mut self) -> impl Iterator<Item = &mut T> {
        self.stages.iter_mut().chain(self.ends.iter_mut())
    }
}

impl<T, const S: usize, const E: usize> Index<usize> for Velocities<T, S, E> {
    type Output = T;
    fn index(&self, x: usize) -> &T {
        if x < S {
            &self.stages[x]
        } else {
            &self.ends[x - S]
        }
    }
}

impl<T, const S: usize, const E: usize> IndexMut<usize> for Velocities<T, S, E> {
    fn index_mut(&mut self, x: usize) -> &mut T {
        if x < S {
            &mut self.stages[x]
        } else {
            &mut self.ends[x - S]
        }
    }
}

/// The coefficients of one method's structured matrix (see the module): the momentum rows'
/// reactions (`A ⊗ Gᵀ`, `Aⁿ ⊗ K_vᵀ`) and the nonholonomic rows (`C ⊗ K_v`), by velocity
/// block `x` (`x < S` stage, `S + e` end block `e`).
#[derive(Clone, Copy)]
pub(crate) struct Scheme<const S: usize, const E: usize> {
    /// `A`: the coefficient of `G̃_pᵀ μ_p` (slot `p`) in the momentum row of each block.
    mu: Velocities<Slots<f64, S>, S, E>,
    /// `Aⁿ`: the coefficient of `K_jᵀ ν_j` in the momentum row of each block.
    nu: Velocities<[f64; S], S, E>,
    /// `C`: the weight of each block in nonholonomic row `i`.
    rows: [Velocities<f64, S, E>; S],
    /// The end blocks' times, as fractions of the step.
    pub end_nodes: [f64; E],
}

/// The holonomic reactions' coefficients of the stage rows, `(ã_i0, ã_i)`: the same in the
/// SPARK step and in EMPRK (its Gauss stages).
fn stage_reactions<const S: usize>(tab: &SparkTableau<S>) -> [Slots<f64, S>; S] {
    core::array::from_fn(|i| Slots {
        first: tab.a_til0[i],
        rest: tab.a_til[i],
    })
}

impl<const S: usize> Scheme<S, 1> {
    /// The Lagrange-d'Alembert SPARK step of `tab` (`mixed`'s E1-E6): the stage rows
    /// `(ã_i0, ã_i; ã^n_i)`, the end row `(b̃_0, b̃; b̃^n)`, `k` at the end (row 0) and the
    /// moments `Σ_j b_j c_j^{i−1} k_j` (rows `1..S`).
    pub(crate) fn spark(tab: &SparkTableau<S>) -> Self {
        let rows = core::array::from_fn(|i| {
            let mut row = Velocities::splat(0.0);
            if i == 0 {
                row.ends[0] = 1.0;
            } else {
                for x in 0..S {
                    row.stages[x] = moment_weight(tab, i, x);
                }
            }
            row
        });
        Self {
            mu: Velocities {
                stages: stage_reactions(tab),
                ends: [Slots {
                    first: tab.b_lob0,
                    rest: tab.b_lob,
                }],
            },
            nu: Velocities {
                stages: tab.a_nh,
                ends: [tab.b_nh],
            },
            rows,
            end_nodes: [1.0],
        }
    }
}

impl<const S: usize> Scheme<S, S> {
    /// The EMPRK step of `et` (`emprk`'s E1, E2', E5'): the Gauss rows `(ã_i0, ã_i; â_i)`,
    /// the Lobatto rows `(ǎ_i0, ǎ_i; ā_i)` and `k` at every Lobatto stage.
    pub(crate) fn emprk(et: &EmprkTableau<S>) -> Self {
        let tab = &et.spark;
        let rows = core::array::from_fn(|i| {
            let mut row = Velocities::splat(0.0);
            row.ends[i] = 1.0;
            row
        });
        Self {
            mu: Velocities {
                stages: stage_reactions(tab),
                ends: core::array::from_fn(|i| Slots {
                    first: et.a_chk0[i],
                    rest: et.a_chk[i],
                }),
            },
            nu: Velocities {
                stages: tab.a_hat,
                ends: tab.a_bar,
            },
            rows,
            end_nodes: tab.c_lob,
        }
    }
}

impl<const S: usize, const E: usize> Scheme<S, E> {
    /// The number of velocity blocks, `S + E`.
    pub(crate) const BLOCKS: usize = S + E;

    /// `A`: the coefficient of slot `p`'s holonomic reaction in block `x`'s momentum row.
    pub(crate) fn mu_coef(&self, x: usize, p: usize) -> f64 {
        self.mu[x][p]
    }

    /// `Aⁿ`: the coefficient of `K_jᵀ ν_j` in block `x`'s momentum row.
    pub(crate) fn nu_coef(&self, x: usize, j: usize) -> f64 {
        self.nu[x][j]
    }

    /// `C`: the weight of block `x` in nonholonomic row `i`.
    pub(crate) fn row_coef(&self, i: usize, x: usize) -> f64 {
        self.rows[i][x]
    }

    /// `B`'s row of multiplier slot `p` applied to a function of the blocks' coefficients:
    /// slot 0 (E4) is `v1`'s, slot `p ≥ 1` (E3) `Σ_k ā_{p−1,k}` of the stages'.
    pub(crate) fn b_row(
        &self,
        tab: &SparkTableau<S>,
        p: usize,
        coef: impl Fn(usize) -> f64,
    ) -> f64 {
        if p == 0 {
            coef(S + E - 1)
        } else {
            (0..S).map(|x| tab.a_bar[p - 1][x] * coef(x)).sum()
        }
    }

    /// `C`'s row `i` applied to a function of the blocks' coefficients.
    pub(crate) fn c_row(&self, i: usize, coef: impl Fn(usize) -> f64) -> f64 {
        (0..Self::BLOCKS)
            .filter(|&x| self.row_coef(i, x) != 0.0)
            .map(|x| self.row_coef(i, x) * coef(x))
            .sum()
    }

    /// Whether `tab` and this scheme have the structure the elimination uses: `ã_is̃ = 0` for
    /// the stages, `v1`'s coefficient of slot `s̃` nonzero and `Ā'Ã'` invertible.
    pub(crate) fn applies(&self, tab: &SparkTableau<S>) -> bool {
        let st = tab.s_tilde;
        st >= 1
            && st <= S
            && tab.kron.invertible
            && self.mu_coef(S + E - 1, st) != 0.0
            && (0..S).all(|x| self.mu_coef(x, st) == 0.0)
    }
}
