//! The stage-wise QP of an SQP iteration over multiple shooting, solved by a primal active-set
//! method whose linear systems are Riccati recursions (`O(H)` per iteration, as HPIPM's and
//! acados' structure-exploiting solvers are):
//!
//! ```text
//! min  Σ_k ½ z_kᵀ Q_k z_k + v_kᵀ S_k z_k + ½ v_kᵀ R_k v_k + g_zkᵀ z_k + g_vkᵀ v_k
//!        + ½ z_Hᵀ Q_H z_H + g_Hᵀ z_H
//! s.t. z_0 given,  z_{k+1} = A_k z_k + B_k v_k + c_k,  lo_k ≤ v_k ≤ hi_k,
//!
//!        + Σ_{k=1…H} Σ_j ½ w_kj dist(r_kjᵀ z_k, [l_kj, u_kj])²   (soft state bounds)
//! ```
//!
//! The soft state bounds (`C` rows per node, none by default) are quadratic penalties on the
//! distance of `r_kjᵀ z_k` from its interval: zero inside, a spring outside. The objective
//! stays convex and once continuously differentiable; a row outside its interval adds
//! `w r rᵀ` to the Hessian of its node, so the iteration treats the rows as it treats the
//! inputs' bounds: a row crossing its bound along a step is a breakpoint of the ratio test,
//! and the stages up to the row's node are refactored with the row's penalty switched.
//!
//! Each iteration fixes the inputs of the working set at their bounds and solves the equality
//! constrained problem by one backward Riccati recursion (the gains `v_k = K_k z_k + k_k` on the
//! free inputs) and one forward pass; a blocking bound is added (the ratio test), or a bound
//! whose multiplier has the wrong sign is dropped (Goldfarb–Idnani's primal active-set logic
//! with the stage structure kept). A change of the working set at stage `k` refactors stages
//! `k, k − 1, …, 0` only.
//!
//! The backward recursion does not depend on `z_0`: [`StageQp::prepare`] runs it for the warm
//! working set (the inputs whose start point `v = clamp(0)` is at a bound) before the
//! measurement arrives, and [`StageQp::solve`] is then one forward pass when the working set
//! holds (the feedback phase of a real-time iteration).

// Stage indices follow the recursion's subscripts.
#![allow(clippy::needless_range_loop)]

use nalgebra::{SMatrix, SVector};

use crate::control::boxqp::check_box;
use crate::control::dense::{cholesky, cholesky_solve};
use crate::control::error::{require, ControlError};

/// One stage of the QP: the linearized dynamics, the quadratic cost and the input box.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QpStage<const D: usize, const U: usize> {
    /// `A_k` (`D × D`).
    pub a: SMatrix<f64, D, D>,
    /// `B_k` (`D × U`).
    pub b: SMatrix<f64, D, U>,
    /// The defect `c_k` (`z_{k+1} = A z + B v + c`).
    pub c: SVector<f64, D>,
    /// `Q_k` (symmetric positive semidefinite).
    pub q: SMatrix<f64, D, D>,
    /// `S_k` (`U × D`).
    pub s: SMatrix<f64, U, D>,
    /// `R_k` (symmetric positive definite on the free inputs).
    pub r: SMatrix<f64, U, U>,
    /// The state gradient `g_zk`.
    pub gz: SVector<f64, D>,
    /// The input gradient `g_vk`.
    pub gv: SVector<f64, U>,
    /// Lower input bounds (`−∞` for none).
    pub lo: SVector<f64, U>,
    /// Upper input bounds (`+∞` for none).
    pub hi: SVector<f64, U>,
}

impl<const D: usize, const U: usize> QpStage<D, U> {
    /// A stage with every matrix zero and no bounds.
    pub fn zeroed() -> Self {
        Self {
            a: SMatrix::zeros(),
            b: SMatrix::zeros(),
            c: SVector::zeros(),
            q: SMatrix::zeros(),
            s: SMatrix::zeros(),
            r: SMatrix::zeros(),
            gz: SVector::zeros(),
            gv: SVector::zeros(),
            lo: SVector::repeat(f64::NEG_INFINITY),
            hi: SVector::repeat(f64::INFINITY),
        }
    }
}

/// The soft bounds on the state of one node: `C` rows `r_j` with intervals `[lo_j, hi_j]` and
/// weights `w_j ≥ 0`; the QP adds `½ w_j dist(r_jᵀ z, [lo_j, hi_j])²` to its cost.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SoftBounds<const D: usize, const C: usize> {
    /// The rows `r_j` (`C × D`).
    pub rows: SMatrix<f64, C, D>,
    /// Lower ends (`−∞` for none).
    pub lo: SVector<f64, C>,
    /// Upper ends (`+∞` for none).
    pub hi: SVector<f64, C>,
    /// The weights (`0` switches a row off).
    pub weight: SVector<f64, C>,
}

impl<const D: usize, const C: usize> SoftBounds<D, C> {
    /// Rows that bound nothing (zero rows, unbounded intervals, zero weights).
    pub fn zeroed() -> Self {
        Self {
            rows: SMatrix::zeros(),
            lo: SVector::repeat(f64::NEG_INFINITY),
            hi: SVector::repeat(f64::INFINITY),
            weight: SVector::zeros(),
        }
    }

    /// The penalty's Hessian and gradient terms for `status` (`w r rᵀ` and `−w l r` or
    /// `−w u r` for each row outside its interval).
    fn penalty(&self, status: &[SoftStatus; C]) -> (SMatrix<f64, D, D>, SVector<f64, D>) {
        let (mut h, mut g) = (SMatrix::zeros(), SVector::zeros());
        for j in 0..C {
            let end = match status[j] {
                SoftStatus::Inside => continue,
                SoftStatus::Below => self.lo[j],
                SoftStatus::Above => self.hi[j],
            };
            let r = self.rows.row(j).transpose();
            h += r * r.transpose() * self.weight[j];
            g -= r * (self.weight[j] * end);
        }
        (h, g)
    }

    /// [`SoftBounds::penalty`] with each row's status at `z`: the penalty is
    /// `½ zᵀ h z + gᵀ z` plus a constant near `z` where no row changes status, and its
    /// gradient at `z` is `h z + g`.
    pub(crate) fn penalty_at(&self, z: &SVector<f64, D>) -> (SMatrix<f64, D, D>, SVector<f64, D>) {
        let status = core::array::from_fn(|j| self.status(j, self.rows.row(j).dot(&z.transpose())));
        self.penalty(&status)
    }

    /// Where `value` of row `j` is.
    fn status(&self, j: usize, value: f64) -> SoftStatus {
        if self.weight[j] == 0.0 {
            SoftStatus::Inside
        } else if value > self.hi[j] {
            SoftStatus::Above
        } else if value < self.lo[j] {
            SoftStatus::Below
        } else {
            SoftStatus::Inside
        }
    }
}

/// Where the value of a soft bound's row is: its penalty is on outside the interval.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SoftStatus {
    /// Within `[lo, hi]`: no penalty.
    Inside,
    /// Below `lo`.
    Below,
    /// Above `hi`.
    Above,
}

/// Where an input is in the working set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// Not in the working set.
    Free,
    /// Held at its lower bound.
    Lower,
    /// Held at its upper bound.
    Upper,
}

/// The Riccati factors of one stage for the current working set.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Factor<const D: usize, const U: usize> {
    /// `R + Bᵀ P' B`.
    huu: SMatrix<f64, U, U>,
    /// `S + Bᵀ P' A`.
    hux: SMatrix<f64, U, D>,
    /// `g_v + Bᵀ (P' c + p')`.
    hu: SVector<f64, U>,
    /// The gain `K_k` (zero rows for the held inputs).
    gain: SMatrix<f64, U, D>,
    /// The feedforward `k_k` (the bound on the held inputs).
    feedforward: SVector<f64, U>,
    /// The cost-to-go `P_k`.
    p: SMatrix<f64, D, D>,
    /// Its linear term `p_k`.
    pv: SVector<f64, D>,
}

impl<const D: usize, const U: usize> Factor<D, U> {
    fn zeroed() -> Self {
        Self {
            huu: SMatrix::zeros(),
            hux: SMatrix::zeros(),
            hu: SVector::zeros(),
            gain: SMatrix::zeros(),
            feedforward: SVector::zeros(),
            p: SMatrix::zeros(),
            pv: SVector::zeros(),
        }
    }
}

/// What one [`StageQp::solve`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct QpStats {
    /// Active-set iterations (forward passes).
    pub iterations: usize,
    /// Stage factorizations of the backward recursions, in this solve (not in `prepare`).
    pub factorizations: usize,
    /// Inputs held at a bound at the solution.
    pub active: usize,
    /// Soft state bounds' rows outside their intervals at the solution.
    pub soft_active: usize,
}

/// The stage-wise QP (see the module documentation): its data, the working set, the Riccati
/// factors and the solution. About `H (3D² + 3DU + 2U² + 6D + 8U)` numbers; no call allocates.
///
/// ```
/// use spark_runtime::control::riccati_qp::{Bound, StageQp};
/// use spark_runtime::nalgebra::{SMatrix, SVector};
/// // A double integrator over 20 steps of 0.1 s, |v| ≤ 0.5, from z_0 = (1, 0).
/// let mut qp = StageQp::<2, 1, 20>::zeroed();
/// for st in qp.stages.iter_mut() {
///     st.a = SMatrix::from_row_slice(&[1.0, 0.1, 0.0, 1.0]);
///     st.b = SMatrix::from_column_slice(&[0.005, 0.1]);
///     st.q = SMatrix::identity();
///     st.r = SMatrix::identity() * 0.01;
///     st.lo = SVector::from([-0.5]);
///     st.hi = SVector::from([0.5]);
/// }
/// qp.terminal_q = SMatrix::identity() * 10.0;
/// qp.prepare().unwrap();
/// let stats = qp.solve(&SVector::from([1.0, 0.0])).unwrap();
/// // The first inputs push at the lower bound; every input is within its box.
/// assert_eq!(qp.working[0], [Bound::Lower]);
/// assert!(stats.active > 0 && qp.v.iter().all(|v| v[0].abs() <= 0.5));
/// // At the solution the multipliers of the held inputs have the right sign.
/// assert!(qp.multipliers[0][0] >= 0.0);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StageQp<const D: usize, const U: usize, const H: usize, const C: usize = 0> {
    /// The stages `0 … H − 1`.
    pub stages: [QpStage<D, U>; H],
    /// The soft bounds on `z_1 … z_H` (`soft[k]` on `z_{k+1}`; `C` rows each, none by default).
    pub soft: [SoftBounds<D, C>; H],
    /// Where each soft row is (after [`StageQp::solve`]: at the solution).
    pub soft_status: [[SoftStatus; C]; H],
    /// `Q_H`.
    pub terminal_q: SMatrix<f64, D, D>,
    /// `g_H`.
    pub terminal_g: SVector<f64, D>,
    /// The working set (after [`StageQp::solve`]: the active bounds at the solution).
    pub working: [[Bound; U]; H],
    factors: [Factor<D, U>; H],
    /// The current point of the active-set iteration.
    point: [SVector<f64, U>; H],
    /// Its states `z_1 … z_H`.
    point_z: [SVector<f64, D>; H],
    prepared: bool,
    /// `z_0` of the last solve.
    pub z0: SVector<f64, D>,
    /// `z_1 … z_H` (`z[k]` is `z_{k+1}`).
    pub z: [SVector<f64, D>; H],
    /// `v_0 … v_{H−1}`.
    pub v: [SVector<f64, U>; H],
    /// `∂L/∂v_k` at the solution: zero on the free inputs, `≥ 0` at a lower bound, `≤ 0` at an
    /// upper one (the bound multipliers with their sign).
    pub multipliers: [SVector<f64, U>; H],
}

impl<const D: usize, const U: usize, const H: usize, const C: usize> StageQp<D, U, H, C> {
    /// A QP with every matrix zero and no bounds: fill [`StageQp::stages`] and the terminal
    /// cost, then [`StageQp::prepare`].
    pub fn zeroed() -> Self {
        const { assert!(H >= 1, "a horizon has at least one interval") };
        Self {
            stages: [QpStage::zeroed(); H],
            soft: [SoftBounds::zeroed(); H],
            soft_status: [[SoftStatus::Inside; C]; H],
            terminal_q: SMatrix::zeros(),
            terminal_g: SVector::zeros(),
            working: [[Bound::Free; U]; H],
            factors: [Factor::zeroed(); H],
            point: [SVector::zeros(); H],
            point_z: [SVector::zeros(); H],
            prepared: false,
            z0: SVector::zeros(),
            z: [SVector::zeros(); H],
            v: [SVector::zeros(); H],
            multipliers: [SVector::zeros(); H],
        }
    }

    /// `z_k` of the last solve, `0 ≤ k ≤ H`.
    pub fn state(&self, k: usize) -> &SVector<f64, D> {
        if k == 0 {
            &self.z0
        } else {
            &self.z[k - 1]
        }
    }

    /// The gain `K_k` of the last factorization (`v_k = K_k z_k + k_k` on the free inputs, zero
    /// rows for the held ones): the local feedback law of the QP.
    pub fn gain(&self, k: usize) -> &SMatrix<f64, U, D> {
        &self.factors[k].gain
    }

    /// The cost-to-go `P_k` of the last factorization (`P_H = Q_H`).
    pub fn cost_to_go(&self, k: usize) -> &SMatrix<f64, D, D> {
        if k == H {
            &self.terminal_q
        } else {
            &self.factors[k].p
        }
    }

    /// The checks of the data: every matrix and gradient finite, every box usable
    /// ([`check_box`]: no NaN, `lo ≤ hi`, a finite point).
    fn check(&self) -> Result<(), ControlError> {
        let finite = |m: &[f64]| m.iter().all(|v| v.is_finite());
        for st in &self.stages {
            let data = [
                st.a.as_slice(),
                st.b.as_slice(),
                st.c.as_slice(),
                st.q.as_slice(),
                st.s.as_slice(),
                st.r.as_slice(),
                st.gz.as_slice(),
                st.gv.as_slice(),
            ];
            require(
                data.into_iter().all(finite),
                "the stage QP's matrices and gradients must be finite",
            )?;
            check_box(&st.lo, &st.hi)?;
        }
        for sb in &self.soft {
            require(
                finite(sb.rows.as_slice()),
                "the rows of the stage QP's soft state bounds must be finite",
            )?;
            require(
                sb.weight.iter().all(|w| w.is_finite() && *w >= 0.0),
                "the weights of the stage QP's soft state bounds must be finite and nonnegative",
            )?;
            require(
                sb.lo.iter().zip(sb.hi.iter()).all(|(l, h)| l <= h),
                "the soft state bounds need lo ≤ hi (and no NaN)",
            )?;
        }
        require(
            finite(self.terminal_q.as_slice()) && finite(self.terminal_g.as_slice()),
            "the stage QP's terminal cost must be finite",
        )
    }

    /// The penalty terms of the soft rows on `z_{j+1}` for their current status.
    fn penalty(&self, j: usize) -> (SMatrix<f64, D, D>, SVector<f64, D>) {
        if C == 0 {
            return (SMatrix::zeros(), SVector::zeros());
        }
        self.soft[j].penalty(&self.soft_status[j])
    }

    /// The stage whose factor first holds the node `z_{j+1}`'s cost (the last for `z_H`).
    fn stage_of_node(j: usize) -> usize {
        (j + 1).min(H - 1)
    }

    /// The preparation: checks the data, sets the warm working set (the inputs whose start
    /// point `clamp(0, lo, hi)` is at a bound) and runs the backward recursion for it.
    ///
    /// Errors: [`ControlError::InvalidArgument`] for non-finite data or an unusable box (the
    /// QP is then unprepared); [`ControlError::NotPositiveDefinite`] when `R + Bᵀ P B` on the
    /// free inputs is not positive definite.
    pub fn prepare(&mut self) -> Result<(), ControlError> {
        self.prepared = false;
        self.check()?;
        for k in 0..H {
            let st = &self.stages[k];
            for i in 0..U {
                let (lo, hi) = (st.lo[i], st.hi[i]);
                // `check_box`: lo ≤ hi, no NaN.
                let x = 0.0f64.clamp(lo, hi);
                self.point[k][i] = x;
                self.working[k][i] = if x == lo {
                    Bound::Lower
                } else if x == hi {
                    Bound::Upper
                } else {
                    Bound::Free
                };
            }
        }
        for j in 0..H {
            for c in 0..C {
                self.soft_status[j][c] = self.soft[j].status(c, 0.0);
            }
        }
        self.backward(H - 1)?;
        self.prepared = true;
        Ok(())
    }

    /// The value of a held input: its bound.
    fn held(&self, k: usize) -> SVector<f64, U> {
        let st = &self.stages[k];
        SVector::from_fn(|i, _| match self.working[k][i] {
            Bound::Free => 0.0,
            Bound::Lower => st.lo[i],
            Bound::Upper => st.hi[i],
        })
    }

    /// The backward recursion for the working set from stage `from` down to 0 (the stages
    /// above `from` keep their factors). Returns the stages factored.
    fn backward(&mut self, from: usize) -> Result<usize, ControlError> {
        for k in (0..=from).rev() {
            let (p1, pv1) = if k + 1 == H {
                let (h, g) = self.penalty(H - 1);
                (self.terminal_q + h, self.terminal_g + g)
            } else {
                (self.factors[k + 1].p, self.factors[k + 1].pv)
            };
            // The node's soft penalties join the stage's state cost (z_0 is given: none).
            let (qs, gs) = if k == 0 {
                (SMatrix::zeros(), SVector::zeros())
            } else {
                self.penalty(k - 1)
            };
            let st = &self.stages[k];
            let pa = p1 * st.a;
            let pb = p1 * st.b;
            let huu = st.r + st.b.tr_mul(&pb);
            let huu = (huu + huu.transpose()) * 0.5;
            let hux = st.s + st.b.tr_mul(&pa);
            let e = p1 * st.c + pv1;
            let hu = st.gv + st.b.tr_mul(&e);
            let free: [bool; U] = core::array::from_fn(|i| self.working[k][i] == Bound::Free);
            let restricted =
                SMatrix::<f64, U, U>::from_fn(|i, j| match (free[i] && free[j], i == j) {
                    (true, _) => huu[(i, j)],
                    (false, true) => 1.0,
                    (false, false) => 0.0,
                });
            let factor = cholesky(&restricted).ok_or(ControlError::NotPositiveDefinite {
                what: "R + Bᵀ P B on the free inputs of the stage QP",
            })?;
            let held = self.held(k);
            let mask_rows = |m: SMatrix<f64, U, D>| {
                SMatrix::<f64, U, D>::from_fn(|i, j| if free[i] { m[(i, j)] } else { 0.0 })
            };
            let gain = -cholesky_solve(&factor, &mask_rows(hux));
            let rhs = hu + huu * held;
            let masked = SVector::<f64, U>::from_fn(|i, _| if free[i] { rhs[i] } else { 0.0 });
            let feedforward = held - cholesky_solve(&factor, &masked);
            // With the gains optimal on the free rows, the terms Kᵀ (H_uu K + H_ux) and
            // Kᵀ (H_uu k + h_u) vanish: P = Q + Aᵀ P' A + H_uxᵀ K, p = g_z + Aᵀ e + H_uxᵀ k.
            let p = st.q + qs + st.a.tr_mul(&pa) + hux.tr_mul(&gain);
            let pv = st.gz + gs + st.a.tr_mul(&e) + hux.tr_mul(&feedforward);
            if !(p.iter().all(|x| x.is_finite()) && pv.iter().all(|x| x.is_finite())) {
                return Err(ControlError::NonFinite {
                    what: "the cost-to-go of the stage QP's Riccati recursion (an overflow)",
                });
            }
            self.factors[k] = Factor {
                huu,
                hux,
                hu,
                gain,
                feedforward,
                p: (p + p.transpose()) * 0.5,
                pv,
            };
        }
        Ok(from + 1)
    }

    /// The forward pass from `z0`: the equality-constrained solution for the working set
    /// (`z`, `v`) and `∂L/∂v` (`multipliers`).
    fn forward(&mut self, z0: &SVector<f64, D>) {
        self.z0 = *z0;
        let mut z = *z0;
        for k in 0..H {
            let f = &self.factors[k];
            let v = f.gain * z + f.feedforward;
            self.multipliers[k] = f.huu * v + f.hux * z + f.hu;
            self.v[k] = v;
            let st = &self.stages[k];
            z = st.a * z + st.b * v + st.c;
            self.z[k] = z;
        }
    }

    /// Solves the QP from `z0` by the primal active-set iteration, starting from the working
    /// set and factors of [`StageQp::prepare`] (which it runs first if the QP is not
    /// prepared). The solution is in [`StageQp::v`], [`StageQp::z`], [`StageQp::working`] and
    /// [`StageQp::multipliers`]; the QP stays prepared for the working set it ended with.
    ///
    /// Errors: [`ControlError::InvalidArgument`] for a non-finite `z0` (nothing changed) or
    /// data refused by [`StageQp::prepare`]; [`ControlError::NotPositiveDefinite`] when a
    /// working set leaves `R + Bᵀ P B` indefinite on its free inputs;
    /// [`ControlError::NoConvergence`] after `10 (H U + 1)` iterations (degenerate cycling).
    pub fn solve(&mut self, z0: &SVector<f64, D>) -> Result<QpStats, ControlError> {
        require(
            z0.iter().all(|x| x.is_finite()),
            "the initial state z_0 of the stage QP must be finite",
        )?;
        if !self.prepared {
            self.prepare()?;
        }
        let mut stats = QpStats::default();
        if C > 0 {
            stats.factorizations += self.start_soft(z0)?;
        }
        let budget = 10 * (H * (U + C) + 1);
        while stats.iterations < budget {
            stats.iterations += 1;
            self.forward(z0);
            // The ratio test along v − point on the free inputs.
            let mut alpha = 1.0f64;
            let mut block = None;
            for k in 0..H {
                let st = &self.stages[k];
                for i in 0..U {
                    if self.working[k][i] != Bound::Free {
                        continue;
                    }
                    let (x, d) = (self.point[k][i], self.v[k][i] - self.point[k][i]);
                    if d > 0.0 && x + d > st.hi[i] {
                        let t = (st.hi[i] - x) / d;
                        if t < alpha {
                            alpha = t;
                            block = Some((k, i, Bound::Upper));
                        }
                    } else if d < 0.0 && x + d < st.lo[i] {
                        let t = (st.lo[i] - x) / d;
                        if t < alpha {
                            alpha = t;
                            block = Some((k, i, Bound::Lower));
                        }
                    }
                }
            }
            // The soft rows crossing an end of their interval along the same step.
            let mut soft_block = None;
            for j in 0..H {
                let sb = &self.soft[j];
                for c in 0..C {
                    if sb.weight[c] == 0.0 {
                        continue;
                    }
                    let r = sb.rows.row(c);
                    let (a, b) = (
                        r.dot(&self.point_z[j].transpose()),
                        r.dot(&self.z[j].transpose()),
                    );
                    let crossing = match self.soft_status[j][c] {
                        SoftStatus::Inside if b > sb.hi[c] => Some((sb.hi[c], SoftStatus::Above)),
                        SoftStatus::Inside if b < sb.lo[c] => Some((sb.lo[c], SoftStatus::Below)),
                        SoftStatus::Above if b < sb.hi[c] => Some((sb.hi[c], SoftStatus::Inside)),
                        SoftStatus::Below if b > sb.lo[c] => Some((sb.lo[c], SoftStatus::Inside)),
                        _ => None,
                    };
                    if let Some((end, to)) = crossing {
                        let t = ((end - a) / (b - a)).clamp(0.0, 1.0);
                        if t < alpha {
                            alpha = t;
                            block = None;
                            soft_block = Some((j, c, to));
                        }
                    }
                }
            }
            if let Some((j, c, to)) = soft_block {
                self.advance(alpha);
                self.soft_status[j][c] = to;
                stats.factorizations += self.backward(Self::stage_of_node(j))?;
                continue;
            }
            if let Some((kb, ib, side)) = block {
                self.advance(alpha.max(0.0));
                self.working[kb][ib] = side;
                let st = &self.stages[kb];
                self.point[kb][ib] = if side == Bound::Upper {
                    st.hi[ib]
                } else {
                    st.lo[ib]
                };
                stats.factorizations += self.backward(kb)?;
                continue;
            }
            self.point = self.v;
            self.point_z = self.z;
            // At the minimizer for the working set: drop the bound whose multiplier has the
            // most wrong sign, if any.
            let tolerance = self.tolerance();
            let mut worst = (tolerance, None);
            for k in 0..H {
                let st = &self.stages[k];
                for i in 0..U {
                    let g = self.multipliers[k][i];
                    let wrong = match self.working[k][i] {
                        Bound::Free => continue,
                        _ if st.lo[i] == st.hi[i] => continue,
                        Bound::Lower => -g,
                        Bound::Upper => g,
                    };
                    if wrong > worst.0 {
                        worst = (wrong, Some((k, i)));
                    }
                }
            }
            match worst.1 {
                Some((k, i)) => {
                    self.working[k][i] = Bound::Free;
                    stats.factorizations += self.backward(k)?;
                }
                None => {
                    stats.active = self
                        .working
                        .iter()
                        .flatten()
                        .filter(|b| **b != Bound::Free)
                        .count();
                    stats.soft_active = self
                        .soft_status
                        .iter()
                        .flatten()
                        .filter(|s| **s != SoftStatus::Inside)
                        .count();
                    return Ok(stats);
                }
            }
        }
        Err(ControlError::NoConvergence {
            what: "the active-set iteration of the stage QP",
            iterations: budget,
        })
    }

    /// Moves the point a fraction `alpha` of the way to the working set's solution.
    fn advance(&mut self, alpha: f64) {
        for k in 0..H {
            self.point[k] += (self.v[k] - self.point[k]) * alpha;
            self.point_z[k] += (self.z[k] - self.point_z[k]) * alpha;
        }
    }

    /// The states of the start point from `z0` and the soft rows' status there; refactors the
    /// stages whose penalties changed. Returns the stages factored.
    fn start_soft(&mut self, z0: &SVector<f64, D>) -> Result<usize, ControlError> {
        let mut z = *z0;
        let mut changed = None;
        for k in 0..H {
            let st = &self.stages[k];
            z = st.a * z + st.b * self.point[k] + st.c;
            self.point_z[k] = z;
            for c in 0..C {
                let status = self.soft[k].status(c, self.soft[k].rows.row(c).dot(&z.transpose()));
                if status != self.soft_status[k][c] {
                    self.soft_status[k][c] = status;
                    changed = Some(Self::stage_of_node(k));
                }
            }
        }
        match changed {
            Some(from) => self.backward(from),
            None => Ok(0),
        }
    }

    /// The multiplier sign tolerance: round-off in `∂L/∂v` at the scale of the data.
    fn tolerance(&self) -> f64 {
        let mut scale = 0.0f64;
        for k in 0..H {
            let f = &self.factors[k];
            scale = scale
                .max(f.hu.amax())
                .max(f.huu.amax() * (1.0 + self.v[k].amax()))
                .max(f.hux.amax() * (1.0 + self.state(k).amax()));
        }
        1e-11 * (1.0 + scale)
    }
}
