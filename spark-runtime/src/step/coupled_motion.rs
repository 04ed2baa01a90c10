//! The starting iterate of the coupled holonomic + nonholonomic step (`mixed`): the motion of
//! the step start continued in time, from the continuous saddle system with the nonholonomic
//! rows solved with the step's factored matrix ([`CoupledMatrix::predict`]).
//!
//! At the start, `L a + Gᵀλ + K_vᵀψ = f − L_vq v`, `G a = −(∂w/∂q) v`, `K_v a = −(k_t + k_q v)`
//! give the acceleration and the multipliers; their change between the start and the predicted
//! midpoint gives their rates. Stage velocities from the start alone are O(h) from the solution,
//! from the constant acceleration O(h²), from the linear one O(h³): each order is about one
//! simplified correction fewer per step.

use nalgebra::{SMatrix, SVector};

use crate::linalg::vector::all_finite;
use crate::model::Lagrangian;
use crate::step::coupled_matrix::{Blocks, CoupledMatrix};
use crate::step::problem::Problem;
use crate::step::stage_matrix::SaddleOps;
use crate::step::start::StepStart;
use crate::tableau::SparkTableau;

/// What the coupled step keeps of its start's evaluations besides [`StepStart`].
pub(crate) struct CoupledStart<const N: usize, const M: usize, const K: usize> {
    /// `K_v(t0, q0, v0)`.
    pub(crate) kv: SMatrix<f64, K, N>,
    /// `(∂w/∂q) v` at the start.
    pub(crate) wq_v: SVector<f64, M>,
    /// `L_vq v` at the start (zero for a constant mass matrix).
    pub(crate) lvq_v: SVector<f64, N>,
    /// `k(t0, q0, v0)`.
    pub(crate) k: SVector<f64, K>,
}

/// Acceleration and multipliers at the step start and their rates of change: the stages'
/// starting values.
struct CoupledMotion<const N: usize, const M: usize, const K: usize> {
    a0: SVector<f64, N>,
    lambda0: SVector<f64, M>,
    psi0: SVector<f64, K>,
    jerk: SVector<f64, N>,
    lambda_rate: SVector<f64, M>,
    psi_rate: SVector<f64, K>,
}

impl<const N: usize, const M: usize, const K: usize> CoupledMotion<N, M, K> {
    /// `∫₀^{c h} a(t) dt`: the predicted `V(c h) − v0`.
    fn velocity_change(&self, h: f64, c: f64) -> SVector<f64, N> {
        let t = c * h;
        (self.a0 + self.jerk * (0.5 * t)) * t
    }

    /// `h λ(c h)`, `h ψ(c h)`: the multipliers at node time `c h`, scaled as the unknowns are.
    fn impulses(&self, h: f64, c: f64) -> (SVector<f64, M>, SVector<f64, K>) {
        let t = c * h;
        (
            (self.lambda0 + self.lambda_rate * t) * h,
            (self.psi0 + self.psi_rate * t) * h,
        )
    }
}

/// The step of the difference quotients of `k` along the motion, relative to `h`: small, so
/// that the quotients are derivatives to far below the prediction's own error.
const DIFFERENCE_STEP: f64 = 1.0 / 16384.0;

impl<Sys: Lagrangian<N, M, K>, const N: usize, const M: usize, const K: usize>
    Problem<'_, Sys, N, M, K>
{
    /// Writes the predicted stages into `it` (which holds `v0` and zero multipliers): the
    /// velocities of the predicted acceleration, the multipliers `h λ`, `h ψ` at the nodes.
    /// `it` is left as it was when the start's prediction is not finite.
    #[inline(never)]
    pub(crate) fn predict<const S: usize, const E: usize, F: SaddleOps<N, M>>(
        &self,
        tab: &SparkTableau<S>,
        start: &StepStart<N, M>,
        rates: &CoupledStart<N, M, K>,
        matrix: &CoupledMatrix<N, M, K, S, E, F>,
        it: &mut Blocks<N, M, K, S, E>,
    ) {
        let Some(motion) = self.coupled_motion(start, rates, matrix) else {
            return;
        };
        let (h, v0) = (self.h, self.state.v);
        for e in 0..E {
            it.x.ends[e] = v0 + motion.velocity_change(h, matrix.scheme().end_nodes[e]);
        }
        for i in 0..S {
            it.x.stages[i] = v0 + motion.velocity_change(h, tab.c[i]);
            it.nu[i] = motion.impulses(h, tab.c[i]).1;
        }
        // Slot 0 is the start; slot p ≥ 1 the Lobatto node p.
        it.mu[0] = motion.impulses(h, 0.0).0;
        for p in 1..=tab.s_tilde {
            it.mu[p] = motion.impulses(h, tab.c_lob[p - 1]).0;
        }
    }

    /// The start's acceleration and multipliers, corrected once for `G(q0)` (the matrix has
    /// `G` at the predicted midpoint), and their rates from the change of the saddle system's
    /// residual between the start and the predicted midpoint `(t0 + h/2, q0 + v0 h/2 +
    /// a0 h²/8, v0 + a0 h/2)`. `L_vq v` is the model's; `k_t + k_q v` and `K_v a` are
    /// difference quotients of `k` along the motion; `G a` a difference of the hidden
    /// constraint (affine in `v`). A model whose mass matrix varies and whose momentum is not
    /// affine in `v` keeps the constant acceleration, as does a non-finite midpoint. `None`
    /// when the start's prediction is not finite.
    fn coupled_motion<const S: usize, const E: usize, F: SaddleOps<N, M>>(
        &self,
        start: &StepStart<N, M>,
        rates: &CoupledStart<N, M, K>,
        matrix: &CoupledMatrix<N, M, K, S, E, F>,
    ) -> Option<CoupledMotion<N, M, K>> {
        let (sys, h, state) = (self.sys, self.h, self.state);
        let (t0, q0, v0) = (state.t, &state.q, &state.v);
        let d = DIFFERENCE_STEP * h;
        let force0 = start.f0 - rates.lvq_v;
        let k_rate0 = (sys.nonholonomic_constraints(t0 + d, &(q0 + v0 * d), v0) - rates.k) / d;
        let (mut a0, mut lambda0, mut psi0) = matrix.predict(&force0, &rates.wq_v, &k_rate0)?;
        // The matrix's G is the midpoint's: one correction with G(q0).
        let g_tr_change = matrix.blocks().g_tr_mul(&lambda0) - start.gq0.tr_mul(&lambda0);
        let curvature = rates.wq_v + start.gq0 * a0;
        let (da, dl, dp) = matrix.predict(&g_tr_change, &curvature, &SVector::zeros())?;
        a0 += da;
        lambda0 += dl;
        psi0 += dp;
        if !(all_finite(&a0) && all_finite(&lambda0) && all_finite(&psi0)) {
            return None;
        }
        let constant = CoupledMotion {
            a0,
            lambda0,
            psi0,
            jerk: SVector::zeros(),
            lambda_rate: SVector::zeros(),
            psi_rate: SVector::zeros(),
        };
        let half = 0.5 * h;
        let tm = t0 + half;
        let qm = q0 + v0 * half + a0 * (0.5 * half * half);
        let vm = v0 + a0 * half;
        // The change of `f − L_vq v − L a` from the start to the midpoint.
        let force_change = if Sys::CONSTANT_MASS {
            sys.momentum_force(tm, &qm, &vm).1 - start.f0
        } else if Sys::QUADRATIC_IN_V {
            let (pm, fm, lvq_vm) = sys.momentum_force_lvq_v(tm, &qm, &vm);
            // `L a = p(v + a) − p(v)` for a momentum affine in `v`.
            let mass_a_m = sys.momentum(tm, &qm, &(vm + a0)) - pm;
            let mass_a_0 = sys.momentum(t0, q0, &(v0 + a0)) - start.p0;
            (fm - lvq_vm) - force0 - (mass_a_m - mass_a_0)
        } else {
            return Some(constant);
        };
        let g_tr_m = sys.constraint_reaction(tm, &qm, &lambda0).1;
        let (km, kv_tr_m) = sys.nonholonomic_reaction(tm, &qm, &vm, &psi0);
        let r_force = force_change
            - (g_tr_m - start.gq0.tr_mul(&lambda0))
            - (kv_tr_m - rates.kv.tr_mul(&psi0));
        let (wm, wq_vm) = sys.hidden_constraint(tm, &qm, &vm);
        let g_a_m = sys.hidden_constraint(tm, &qm, &(vm + a0)).0 - wm;
        let r_curvature = (wq_vm - rates.wq_v) + (g_a_m - start.gq0 * a0);
        // `k_t + k_q v + K_v a` along the motion at the midpoint; zero at the start, where the
        // constant prediction solved it.
        let ahead = sys.nonholonomic_constraints(tm + d, &(qm + vm * d), &(vm + a0 * d));
        let r_k = (ahead - km) / d;
        let Some((da, dl, dp)) = matrix.predict(&r_force, &r_curvature, &r_k) else {
            return Some(constant);
        };
        let inv_half = 1.0 / half;
        let (jerk, lambda_rate, psi_rate) = (da * inv_half, dl * inv_half, dp * inv_half);
        if all_finite(&jerk) && all_finite(&lambda_rate) && all_finite(&psi_rate) {
            Some(CoupledMotion {
                jerk,
                lambda_rate,
                psi_rate,
                ..constant
            })
        } else {
            Some(constant)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::Options;
    use crate::step::coupled_matrix::CoupledBlocks;
    use crate::step::stage_matrix::DenseSaddle;
    use crate::{GaussLobatto, State};

    mod hand {
        include!("../../tests/models/skate.rs");
    }
    use crate::model::blocks::{
        ConstraintJacobian, DynamicsJacobian, NonholonomicJacobian, VelocityConstraintJacobian,
    };
    use crate::Model;
    use hand::{Skate, V4};

    /// The skate declared with a constant mass matrix (the hand model declares only a momentum
    /// affine in `v`): the predictor's other branch.
    struct ConstantMass;

    impl Model for ConstantMass {
        fn first_non_finite_parameter(&self) -> Option<&'static str> {
            None
        }
    }

    impl Lagrangian<4, 1, 1> for ConstantMass {
        const QUADRATIC_IN_V: bool = true;
        const CONSTANT_MASS: bool = true;
        fn lagrangian(&self, t: f64, q: &V4, v: &V4) -> f64 {
            Skate.lagrangian(t, q, v)
        }
        fn momentum_force(&self, t: f64, q: &V4, v: &V4) -> (V4, V4) {
            Skate.momentum_force(t, q, v)
        }
        fn dynamics_jacobian(&self, t: f64, q: &V4, v: &V4) -> DynamicsJacobian<4> {
            Skate.dynamics_jacobian(t, q, v)
        }
        fn constraints(&self, t: f64, q: &V4) -> SVector<f64, 1> {
            Skate.constraints(t, q)
        }
        fn constraint_jacobian(
            &self,
            t: f64,
            q: &V4,
            mu: &SVector<f64, 1>,
        ) -> ConstraintJacobian<4, 1> {
            Skate.constraint_jacobian(t, q, mu)
        }
        fn velocity_constraint_jacobian(
            &self,
            t: f64,
            q: &V4,
            v: &V4,
        ) -> VelocityConstraintJacobian<4, 1> {
            Skate.velocity_constraint_jacobian(t, q, v)
        }
        fn nonholonomic_constraints(&self, t: f64, q: &V4, v: &V4) -> SVector<f64, 1> {
            Skate.nonholonomic_constraints(t, q, v)
        }
        fn nonholonomic_jacobian(
            &self,
            t: f64,
            q: &V4,
            v: &V4,
            psi: &SVector<f64, 1>,
        ) -> NonholonomicJacobian<4, 1> {
            Skate.nonholonomic_jacobian(t, q, v, psi)
        }
    }

    /// The skate's exact motion from `s` over `t` (RK4 of its index-reduced ODE, 400 steps).
    fn exact(s: &State<4>, t: f64) -> State<4> {
        let f = |q: &V4, v: &V4| (*v, Skate::accel(q, v));
        let n = 400;
        let dt = t / f64::from(n);
        let (mut q, mut v) = (s.q, s.v);
        for _ in 0..n {
            let k1 = f(&q, &v);
            let k2 = f(&(q + k1.0 * (0.5 * dt)), &(v + k1.1 * (0.5 * dt)));
            let k3 = f(&(q + k2.0 * (0.5 * dt)), &(v + k2.1 * (0.5 * dt)));
            let k4 = f(&(q + k3.0 * dt), &(v + k3.1 * dt));
            q += (k1.0 + k2.0 * 2.0 + k3.0 * 2.0 + k4.0) * (dt / 6.0);
            v += (k1.1 + k2.1 * 2.0 + k3.1 * 2.0 + k4.1) * (dt / 6.0);
        }
        State { t: s.t + t, q, v }
    }

    /// Largest error of the predicted `V(c h) − v0` at the stage times, with the linear
    /// acceleration and with the constant one, for the skate from a consistent state with
    /// `GaussLobatto<2>`'s matrix.
    fn prediction_errors<Sys: Lagrangian<4, 1, 1>>(sys: &Sys, h: f64) -> (f64, f64) {
        let tab = GaussLobatto::<2>::TABLEAU;
        let state = State::new(0.0, [-0.5, 0.0, 0.5, 0.0], [0.3, -0.5, 0.3, 0.5]);
        let options = Options::default();
        let problem = Problem::<Sys, 4, 1, 1>::new(sys, h, &options, &state);
        let (start, rates) = problem.coupled_start().unwrap();
        let (t0, q0, v0) = (state.t, state.q, state.v);
        let qm = q0 + v0 * (0.5 * h);
        let blocks = <DenseSaddle<4, 1> as CoupledBlocks<'_, Sys, 4, 1, 1>>::factor(
            sys,
            (t0, &q0, &v0),
            (t0 + 0.5 * h, &qm),
        )
        .unwrap();
        let scheme = crate::step::coupled_scheme::Scheme::spark(&tab);
        let matrix =
            CoupledMatrix::<4, 1, 1, 2, 1, _>::new(&tab, scheme, blocks, &rates.kv).unwrap();
        let motion = problem.coupled_motion(&start, &rates, &matrix).unwrap();
        let (mut linear, mut constant) = (0.0f64, 0.0f64);
        for &c in &tab.c {
            let change = exact(&state, c * h).v - v0;
            linear = linear.max((motion.velocity_change(h, c) - change).amax());
            constant = constant.max((motion.a0 * (c * h) - change).amax());
        }
        (linear, constant)
    }

    /// The predicted stage velocities of the coupled step are O(h³) from the exact motion
    /// (O(h²) with the constant acceleration alone): halving h divides the error by about 8
    /// (by 4). The skate has one holonomic and one nonholonomic constraint; both branches of
    /// the force's change (a constant mass matrix, a momentum affine in `v`).
    #[test]
    fn predicted_stage_velocities_are_third_order() {
        check_third_order(&Skate);
        check_third_order(&ConstantMass);
    }

    fn check_third_order<Sys: Lagrangian<4, 1, 1>>(sys: &Sys) {
        let hs = [0.04, 0.02, 0.01];
        let errors: [(f64, f64); 3] = core::array::from_fn(|k| prediction_errors(sys, hs[k]));
        crate::step::assert_prediction_orders(&errors);
    }
}
