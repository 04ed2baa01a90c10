//! The EMPRK step (`emprk`) solved with the coupled steps' structured simplified Newton
//! matrix (`coupled_matrix` with `coupled_scheme::Scheme::emprk`): the model's factors of `L`
//! and `G L⁻¹ Gᵀ` and the `S K`-square nonholonomic Schur complement, in place of the dense
//! exact matrix of its `2S·N + (S+1)·M + S·K` equations, which stays the fallback.
//!
//! The iterations evaluate what the residual needs and no Jacobian, each point's terms from
//! one fused evaluation: momenta, forces and `K_jᵀ ν_j` at the Gauss stages
//! ([`Lagrangian::stage_terms`]); momenta, `g`, `G̃_jᵀ μ_j` and `k` at the Lobatto nodes and
//! the hidden constraint at the last, the end point ([`Lagrangian::end_terms`]).

// The loops index stages and blocks the way the thesis writes its subscripts.
#![allow(clippy::needless_range_loop)]

use nalgebra::SVector;

use crate::error::Error;
use crate::linalg::layout::{flat, zeros, Layout};
use crate::model::Lagrangian;
use crate::step::assembly::stage_position;
use crate::step::coupled_matrix::{Blocks, CoupledBlocks};
use crate::step::coupled_motion::CoupledStart;
use crate::step::coupled_scheme::Scheme;
use crate::step::emprk::{gauss_weights, lobatto_weights};
use crate::step::emprk_layout::{EmprkLayout, Offsets};
use crate::step::problem::Problem;
use crate::step::stage_matrix::SaddleOps;
use crate::step::start::StepStart;
use crate::tableau::EmprkTableau;

impl<'a, Sys: Lagrangian<N, M, K>, const N: usize, const M: usize, const K: usize>
    Problem<'a, Sys, N, M, K>
{
    /// The structured solve of the EMPRK equations (`Problem::structured_coupled`): the
    /// converged unknowns in [`EmprkLayout`] and the iterations, or `None` where it does not
    /// apply (options, a tableau with `s̃ ≠ S`) or its matrix is singular or ill-conditioned.
    #[allow(clippy::type_complexity)]
    pub(crate) fn structured_emprk<
        const S: usize,
        F: SaddleOps<N, M> + CoupledBlocks<'a, Sys, N, M, K>,
    >(
        &self,
        et: &EmprkTableau<S>,
        start: &StepStart<N, M>,
        rates: &CoupledStart<N, M, K>,
    ) -> Option<Result<(<EmprkLayout<N, M, K, S> as Layout>::Of<f64>, u32), Error>> {
        if et.spark.s_tilde != S {
            return None;
        }
        let residual = |it: &Blocks<N, M, K, S, S>, r: &mut Blocks<N, M, K, S, S>| {
            self.emprk_blocks_residual(et, start, it, r)
        };
        let solved = self.structured_coupled::<S, S, F>(
            &et.spark,
            Scheme::emprk(et),
            start,
            rates,
            residual,
        )?;
        Some(solved.map(|(it, iterations)| (emprk_flat(&it), iterations)))
    }

    /// The residuals of E1, E2', E4, E3 and E5' at the iterate `it`, block by block: the Gauss
    /// stages' momentum rows in `x.stages`, the Lobatto stages' in `x.ends`, E4 in `mu[0]`,
    /// E3 at Lobatto node `p` in `mu[p]`, E5' at Lobatto node `i + 1` in `nu[i]`.
    fn emprk_blocks_residual<const S: usize>(
        &self,
        et: &EmprkTableau<S>,
        start: &StepStart<N, M>,
        it: &Blocks<N, M, K, S, S>,
        r: &mut Blocks<N, M, K, S, S>,
    ) {
        let (sys, h) = (self.sys, self.h);
        let tab = &et.spark;
        let (t0, q0) = (start.t0, start.q0);
        let vs = &it.x.stages;
        let combine = |coef: &[f64; S]| stage_position(&q0, h, coef, vs);
        let start_reaction = start.gq0.tr_mul(&it.mu.first);
        let zero_n = SVector::<f64, N>::zeros();
        let mut forces = [zero_n; S];
        let mut nh_reactions = [zero_n; S];
        let mut reactions = [zero_n; S];
        for i in 0..S {
            // Gauss stage i: momentum, force and the nonholonomic reaction.
            let ti = t0 + tab.c[i] * h;
            let qi = combine(&tab.a[i]);
            let (p, f, _, reaction) = sys.stage_terms(ti, &qi, &vs[i], &it.nu[i]);
            r.x.stages[i] = p - start.p0;
            forces[i] = f;
            nh_reactions[i] = reaction;
            // Lobatto node i + 1: momentum, g and the holonomic reaction, k (and the hidden
            // constraint, E4's row at the last node, the end point).
            let (tl, ql, vl) = (t0 + tab.c_lob[i] * h, combine(&tab.a_bar[i]), &it.x.ends[i]);
            let (p, w, k, g, react) = sys.end_terms(tl, &ql, vl, &it.mu.rest[i]);
            r.x.ends[i] = p - start.p0;
            r.mu.rest[i] = g / h;
            reactions[i] = react;
            r.nu[i] = k;
            if i + 1 == S {
                r.mu.first = w;
            }
        }
        let rows = (0..S)
            .map(|i| (false, i, gauss_weights(et, i)))
            .chain((0..S).map(|i| (true, i, lobatto_weights(et, i))));
        for (lobatto, i, w) in rows {
            let rho = if lobatto {
                &mut r.x.ends[i]
            } else {
                &mut r.x.stages[i]
            };
            rho.axpy(w.start, &start_reaction, 1.0);
            for j in 0..S {
                rho.axpy(-h * w.force[j], &forces[j], 1.0);
                rho.axpy(w.nonholonomic[j], &nh_reactions[j], 1.0);
                rho.axpy(w.lobatto[j], &reactions[j], 1.0);
            }
        }
    }
}

/// The unknowns of the structured iterate `it` in the flat layout of the EMPRK system.
fn emprk_flat<const N: usize, const M: usize, const K: usize, const S: usize>(
    it: &Blocks<N, M, K, S, S>,
) -> <EmprkLayout<N, M, K, S> as Layout>::Of<f64> {
    type O<const N: usize, const M: usize, const K: usize, const S: usize> = Offsets<N, M, K, S>;
    let mut buf = zeros::<EmprkLayout<N, M, K, S>>();
    let x = flat::<EmprkLayout<N, M, K, S>, f64>(&mut buf);
    let mut put = |at: usize, v: &[f64]| x[at..at + v.len()].copy_from_slice(v);
    for i in 0..S {
        put(O::<N, M, K, S>::v(i), it.x.stages[i].as_slice());
        put(O::<N, M, K, S>::vt(i), it.x.ends[i].as_slice());
        put(O::<N, M, K, S>::mu(i + 1), it.mu.rest[i].as_slice());
        put(O::<N, M, K, S>::nu(i), it.nu[i].as_slice());
    }
    put(O::<N, M, K, S>::mu(0), it.mu.first.as_slice());
    buf
}

#[cfg(test)]
mod tests {
    use crate::step::emprk::{system_len, EmprkLayout};
    use crate::step::problem::Problem;
    use crate::step::stage_matrix::DenseSaddle;
    use crate::{Emprk, Options, State};

    #[allow(dead_code)]
    mod hand {
        include!("../../tests/models/skate.rs");
    }
    use hand::Skate;

    /// The structured residual is the dense assembly's, block by block, at an arbitrary
    /// iterate.
    #[test]
    fn blocks_residual_is_the_dense_residual() {
        fn check<const S: usize>() {
            let et = Emprk::<S>::TABLEAU;
            let state = State::new(0.0, [-0.5, 0.0, 0.5, 0.0], [0.3, -0.5, 0.3, 0.5]);
            let options = Options::default();
            let problem = Problem::<Skate, 4, 1, 1>::new(&Skate, 0.05, &options, &state);
            let (start, _) = problem.coupled_start().unwrap();
            let mut buf = crate::linalg::layout::zeros::<EmprkLayout<4, 1, 1, S>>();
            let x = crate::linalg::layout::flat::<EmprkLayout<4, 1, 1, S>, f64>(&mut buf);
            for (k, xk) in x.iter_mut().enumerate() {
                *xk = 0.4 * (k as f64 * 0.73).sin();
            }
            let mut dense = [0.0; 64];
            let len = system_len::<4, 1, 1, S>();
            problem.assemble_emprk(&et, &start, x, &mut dense[..len], None);
            // The same unknowns as blocks.
            let mut it = super::Blocks::<4, 1, 1, S, S>::zeros();
            for i in 0..S {
                for a in 0..4 {
                    it.x.stages[i][a] = x[i * 4 + a];
                    it.x.ends[i][a] = x[(S + i) * 4 + a];
                }
                it.mu.rest[i][0] = x[2 * S * 4 + 1 + i];
                it.nu[i][0] = x[2 * S * 4 + S + 1 + i];
            }
            it.mu.first[0] = x[2 * S * 4];
            let mut r = super::Blocks::<4, 1, 1, S, S>::zeros();
            problem.emprk_blocks_residual(&et, &start, &it, &mut r);
            let blocks = super::emprk_flat(&r);
            let mut flat_r = blocks;
            let got = crate::linalg::layout::flat::<EmprkLayout<4, 1, 1, S>, f64>(&mut flat_r);
            for k in 0..len {
                assert!(
                    (got[k] - dense[k]).abs() < 1e-14 * (1.0 + dense[k].abs()),
                    "S = {S}, row {k}: {} vs {}",
                    got[k],
                    dense[k]
                );
            }
        }
        check::<1>();
        check::<2>();
        check::<3>();
    }

    /// The structured iteration converges (no fallback) and gives the dense full-Newton
    /// solution of the same equations, for S = 1..3, along 50 steps of the skate.
    #[test]
    fn structured_step_is_the_dense_steps_solution() {
        fn check<const S: usize>() {
            let et = Emprk::<S>::TABLEAU;
            let full = Options {
                simplified_newton: false,
                ..Options::default()
            };
            let options = Options::default();
            let mut s = State::new(0.0, [-0.5, 0.0, 0.5, 0.0], [0.3, -0.5, 0.3, 0.5]);
            let h = 0.02;
            for step in 0..50 {
                let problem = Problem::<Skate, 4, 1, 1>::new(&Skate, h, &options, &s);
                let (start, rates) = problem.coupled_start().unwrap();
                let (mut xs, iterations) = problem
                    .structured_emprk::<S, DenseSaddle<4, 1>>(&et, &start, &rates)
                    .expect("the structured matrix applies")
                    .expect("the structured iteration converges");
                assert!(
                    iterations <= 8,
                    "S = {S}, step {step}: {iterations} iterations"
                );
                let dense = Problem::<Skate, 4, 1, 1>::new(&Skate, h, &full, &s);
                let (start, rates) = dense.coupled_start().unwrap();
                let (mut xd, _) = dense.solve_emprk(&et, &start, &rates).unwrap();
                let structured =
                    crate::linalg::layout::flat::<EmprkLayout<4, 1, 1, S>, f64>(&mut xs);
                let exact = crate::linalg::layout::flat::<EmprkLayout<4, 1, 1, S>, f64>(&mut xd);
                let worst = structured
                    .iter()
                    .zip(exact.iter())
                    .map(|(a, b)| (a - b).abs())
                    .fold(0.0f64, f64::max);
                assert!(worst < 1e-12, "S = {S}, step {step}: {worst:e}");
                s = dense.emprk(&et).unwrap().0;
            }
        }
        check::<1>();
        check::<2>();
        check::<3>();
    }
}
