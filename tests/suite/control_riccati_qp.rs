//! The stage-wise QP of the SQP real-time iterations (issue 41) against independent solutions:
//! without active bounds it is the equality-constrained KKT system solved densely (LU of the
//! whole saddle matrix) and, with no linear terms, the Riccati recursion of `lqr.rs`; with
//! bounds it is the best feasible point among the dense solutions of every active set (all
//! `3^H` of them), with the multipliers of the dense KKT system.

use spark::control::error::ControlError;
use spark::control::lqr::riccati_step;
use spark::control::riccati_qp::{Bound, SoftStatus, StageQp};
use spark::nalgebra::{SMatrix, SVector};

const D: usize = 2;
const U: usize = 1;
const H: usize = 4;
/// Unknowns `z_0 … z_H, v_0 … v_{H−1}`.
const W: usize = D * (H + 1) + U * H;
/// The KKT system: unknowns, `z_0` and dynamics rows, one row per input bound.
const S: usize = W + D * (H + 1) + U * H;

/// Deterministic numbers in (−1, 1).
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    }
}

/// A QP with coupled weights (`S ≠ 0`), defects and gradients: a perturbed double integrator.
fn problem(seed: u64, bound: f64) -> StageQp<D, U, H> {
    let mut g = Lcg(seed);
    let mut qp = StageQp::<D, U, H>::zeroed();
    for st in qp.stages.iter_mut() {
        st.a = SMatrix::from_row_slice(&[1.0, 0.1, 0.0, 1.0])
            + SMatrix::from_fn(|_, _| 0.05 * g.next());
        st.b = SMatrix::from_column_slice(&[0.005 + 0.01 * g.next(), 0.1 + 0.02 * g.next()]);
        st.c = SVector::from_fn(|_, _| 0.1 * g.next());
        let l = SMatrix::<f64, 3, 3>::from_fn(|_, _| g.next());
        // [Q Sᵀ; S R] = L Lᵀ + 0.1 I: positive definite.
        let m = l * l.transpose() + SMatrix::<f64, 3, 3>::identity() * 0.1;
        st.q = m.fixed_view::<2, 2>(0, 0).into_owned();
        st.s = m.fixed_view::<1, 2>(2, 0).into_owned();
        st.r = m.fixed_view::<1, 1>(2, 2).into_owned();
        st.gz = SVector::from_fn(|_, _| g.next());
        st.gv = SVector::from_fn(|_, _| g.next());
        st.lo = SVector::from([-bound * (1.0 + 0.3 * g.next())]);
        st.hi = SVector::from([bound * (1.0 + 0.3 * g.next())]);
    }
    let l = SMatrix::<f64, 2, 2>::from_fn(|_, _| g.next());
    qp.terminal_q = l * l.transpose() + SMatrix::identity();
    qp.terminal_g = SVector::from_fn(|_, _| g.next());
    qp
}

/// A dense solution of one active set: objective, unknowns, the set, its multipliers.
type Candidate = (f64, SVector<f64, W>, [Bound; H], [f64; H]);

fn zi(k: usize) -> usize {
    D * k
}
fn vi(k: usize) -> usize {
    D * (H + 1) + U * k
}

/// The dense KKT solution with the inputs of `fixed` held at their bounds: the unknowns, the
/// multipliers of the bound rows, the objective.
fn dense(
    qp: &StageQp<D, U, H>,
    z0: &SVector<f64, D>,
    fixed: &[Bound; H],
) -> (SVector<f64, W>, [f64; H], f64) {
    let mut kkt = SMatrix::<f64, S, S>::zeros();
    let mut rhs = SVector::<f64, S>::zeros();
    let mut gw = SVector::<f64, W>::zeros();
    for k in 0..H {
        let st = &qp.stages[k];
        for i in 0..D {
            for j in 0..D {
                kkt[(zi(k) + i, zi(k) + j)] = st.q[(i, j)];
            }
            kkt[(vi(k), zi(k) + i)] = st.s[(0, i)];
            kkt[(zi(k) + i, vi(k))] = st.s[(0, i)];
            gw[zi(k) + i] = st.gz[i];
        }
        kkt[(vi(k), vi(k))] = st.r[(0, 0)];
        gw[vi(k)] = st.gv[0];
    }
    for i in 0..D {
        for j in 0..D {
            kkt[(zi(H) + i, zi(H) + j)] = qp.terminal_q[(i, j)];
        }
        gw[zi(H) + i] = qp.terminal_g[i];
    }
    for r in 0..W {
        rhs[r] = -gw[r];
    }
    // z_0 rows, then z_{k+1} − A z_k − B v_k = c_k.
    let mut row = W;
    for i in 0..D {
        kkt[(row, zi(0) + i)] = 1.0;
        kkt[(zi(0) + i, row)] = 1.0;
        rhs[row] = z0[i];
        row += 1;
    }
    for k in 0..H {
        let st = &qp.stages[k];
        for i in 0..D {
            let mut set = |col: usize, v: f64| {
                kkt[(row, col)] = v;
                kkt[(col, row)] = v;
            };
            set(zi(k + 1) + i, 1.0);
            for j in 0..D {
                set(zi(k) + j, -st.a[(i, j)]);
            }
            set(vi(k), -st.b[(i, 0)]);
            rhs[row] = st.c[i];
            row += 1;
        }
    }
    for k in 0..H {
        let st = &qp.stages[k];
        match fixed[k] {
            Bound::Free => kkt[(row, row)] = 1.0,
            side => {
                kkt[(row, vi(k))] = 1.0;
                kkt[(vi(k), row)] = 1.0;
                rhs[row] = if side == Bound::Lower {
                    st.lo[0]
                } else {
                    st.hi[0]
                };
            }
        }
        row += 1;
    }
    let sol = kkt.lu().solve(&rhs).expect("the KKT matrix is regular");
    let w = SVector::<f64, W>::from_fn(|i, _| sol[i]);
    let mut gram = SMatrix::<f64, W, W>::zeros();
    gram.copy_from(&kkt.fixed_view::<W, W>(0, 0));
    let objective = 0.5 * w.dot(&(gram * w)) + gw.dot(&w);
    let mult = core::array::from_fn(|k| sol[W + D * (H + 1) + k]);
    (w, mult, objective)
}

fn compare(qp: &StageQp<D, U, H>, w: &SVector<f64, W>) -> f64 {
    let mut err = 0.0f64;
    for k in 0..=H {
        for i in 0..D {
            err = err.max((qp.state(k)[i] - w[zi(k) + i]).abs());
        }
    }
    for k in 0..H {
        err = err.max((qp.v[k][0] - w[vi(k)]).abs());
    }
    err
}

#[test]
fn without_active_bounds_the_qp_is_the_dense_kkt_solution() {
    for seed in 1..6 {
        let mut qp = problem(seed, 1e3);
        let z0 = SVector::from([0.3, -0.2]);
        let stats = qp.solve(&z0).unwrap();
        assert_eq!((stats.iterations, stats.active), (1, 0));
        let (w, _, _) = dense(&qp, &z0, &[Bound::Free; H]);
        let err = compare(&qp, &w);
        println!("seed {seed}: |riccati − dense| = {err:.2e}");
        assert!(err < 1e-10, "{err:e}");
        // Stationarity: ∂L/∂v = 0 on every input.
        assert!(qp.multipliers.iter().all(|g| g[0].abs() < 1e-10));
    }
}

#[test]
fn without_linear_terms_the_gains_are_the_lqr_riccati_recursion() {
    let mut qp = problem(7, f64::INFINITY);
    for st in qp.stages.iter_mut() {
        st.s = SMatrix::zeros();
        st.c = SVector::zeros();
        st.gz = SVector::zeros();
        st.gv = SVector::zeros();
    }
    qp.terminal_g = SVector::zeros();
    qp.prepare().unwrap();
    let mut p = qp.terminal_q;
    for k in (0..H).rev() {
        let st = &qp.stages[k];
        let lqr = riccati_step(&st.a, &st.b, &st.q, &st.r, &p).unwrap();
        // u = −K z in lqr.rs, v = K z here.
        let dk = (qp.gain(k) + lqr.gain).amax();
        let dp = (qp.cost_to_go(k) - lqr.cost_to_go).amax();
        println!("stage {k}: |ΔK| {dk:.1e}, |ΔP| {dp:.1e}");
        assert!(dk < 1e-12 * (1.0 + lqr.gain.amax()) && dp < 1e-12 * (1.0 + p.amax()));
        p = lqr.cost_to_go;
    }
}

#[test]
fn with_bounds_the_qp_is_the_best_feasible_active_set_of_the_dense_solutions() {
    let mut active_seen = 0;
    for seed in 1..25 {
        // Tight boxes so that several inputs hit a bound.
        let mut qp = problem(seed, 0.3);
        let z0 = SVector::from([2.0, -1.0]);
        let stats = qp.solve(&z0).unwrap();
        active_seen += stats.active;
        // Every active set (free, lower, upper per input), solved densely.
        let mut best: Option<Candidate> = None;
        for code in 0..3usize.pow(H as u32) {
            let fixed: [Bound; H] =
                core::array::from_fn(|k| match (code / 3usize.pow(k as u32)) % 3 {
                    0 => Bound::Free,
                    1 => Bound::Lower,
                    _ => Bound::Upper,
                });
            let (w, mult, objective) = dense(&qp, &z0, &fixed);
            let feasible = (0..H).all(|k| {
                let st = &qp.stages[k];
                w[vi(k)] >= st.lo[0] - 1e-12 && w[vi(k)] <= st.hi[0] + 1e-12
            });
            if feasible && best.as_ref().is_none_or(|b| objective < b.0) {
                best = Some((objective, w, fixed, mult));
            }
        }
        let (_, w, fixed, mult) = best.unwrap();
        let err = compare(&qp, &w);
        println!("seed {seed}: {stats:?}, |active set − dense| = {err:.2e}");
        assert!(err < 1e-10, "{seed}: {err:e}");
        for k in 0..H {
            let st = &qp.stages[k];
            // The same active bounds (degenerate ones aside: a bound with a zero multiplier,
            // or a free input at a bound by chance).
            let at = |b: f64| (qp.v[k][0] - b).abs() < 1e-12;
            let degenerate = match fixed[k] {
                Bound::Free => at(st.lo[0]) || at(st.hi[0]),
                _ => mult[k].abs() < 1e-9,
            };
            if !degenerate {
                assert_eq!(qp.working[k][0], fixed[k], "{seed}, stage {k}");
            }
            // ∂L/∂v is minus the dense multiplier of the bound row (0 on free inputs), with
            // the sign of a KKT point.
            let y = if fixed[k] == Bound::Free {
                0.0
            } else {
                mult[k]
            };
            assert!(
                (qp.multipliers[k][0] + y).abs() < 1e-9,
                "{seed}, {k}: {} vs {y}",
                qp.multipliers[k][0]
            );
            match qp.working[k][0] {
                Bound::Lower => assert!(qp.multipliers[k][0] >= -1e-12),
                Bound::Upper => assert!(qp.multipliers[k][0] <= 1e-12),
                Bound::Free => assert!(qp.multipliers[k][0].abs() < 1e-10),
            }
        }
    }
    assert!(
        active_seen >= 20,
        "the boxes should be active: {active_seen}"
    );
}

#[test]
fn a_solve_from_the_prepared_working_set_is_one_forward_pass() {
    let mut qp = problem(3, 0.3);
    qp.solve(&SVector::from([2.0, -1.0])).unwrap();
    // The same data, a nearby z_0: the working set holds, nothing is refactored.
    let again = qp.solve(&SVector::from([2.0 + 1e-6, -1.0])).unwrap();
    assert_eq!((again.iterations, again.factorizations), (1, 0));
    // Non-finite data is refused.
    let mut bad = qp;
    bad.stages[2].a[(0, 0)] = f64::NAN;
    assert!(bad.prepare().is_err());
    assert!(qp.solve(&SVector::from([f64::NAN, 0.0])).is_err());
}

/// Soft state bounds: one row per node.
type SoftQp = StageQp<D, U, H, 1>;

/// [`problem`] with a soft bound `|r_kᵀ z_k| ≤ width` of weight `weight` on every node.
fn soft_problem(seed: u64, bound: f64, width: f64, weight: f64) -> SoftQp {
    let plain = problem(seed, bound);
    let mut qp = SoftQp::zeroed();
    qp.stages = plain.stages;
    qp.terminal_q = plain.terminal_q;
    qp.terminal_g = plain.terminal_g;
    let mut g = Lcg(seed + 100);
    for sb in qp.soft.iter_mut() {
        sb.rows = SMatrix::from_fn(|_, _| g.next());
        sb.lo = SVector::from([-width]);
        sb.hi = SVector::from([width]);
        sb.weight = SVector::from([weight]);
    }
    qp
}

/// The objective of the QP with its soft penalties at the inputs `v` (rolled out from `z0`),
/// written from the problem's definition, and the largest violation of a soft interval.
#[allow(clippy::needless_range_loop)] // stage k, input v_k, node z_{k+1}
fn penalized(qp: &SoftQp, z0: &SVector<f64, D>, v: &[f64; H]) -> (f64, f64) {
    let (mut z, mut j, mut worst) = (*z0, 0.0, 0.0f64);
    for k in 0..H {
        let st = &qp.stages[k];
        let u = SVector::<f64, U>::from([v[k]]);
        j += 0.5 * z.dot(&(st.q * z))
            + u.dot(&(st.s * z))
            + 0.5 * u.dot(&(st.r * u))
            + st.gz.dot(&z)
            + st.gv.dot(&u);
        z = st.a * z + st.b * u + st.c;
        let sb = &qp.soft[k];
        let value = sb.rows.row(0).dot(&z.transpose());
        let out = (value - sb.hi[0]).max(sb.lo[0] - value).max(0.0);
        j += 0.5 * sb.weight[0] * out * out;
        worst = worst.max(out);
    }
    j += 0.5 * z.dot(&(qp.terminal_q * z)) + qp.terminal_g.dot(&z);
    (j, worst)
}

#[test]
fn soft_state_bounds_solve_the_penalized_problem() {
    let z0 = SVector::from([0.8, -0.5]);
    let mut exercised = (0, 0);
    for seed in 1..9 {
        let mut qp = soft_problem(seed, 0.6, 0.05, 50.0);
        let stats = qp.solve(&z0).unwrap();
        let v: [f64; H] = core::array::from_fn(|k| qp.v[k][0]);
        let (j, _) = penalized(&qp, &z0, &v);
        // The reported states are the rollout, and the statuses are where the rows are.
        for k in 0..H {
            let value = qp.soft[k].rows.row(0).dot(&qp.z[k].transpose());
            let want = if value > 0.05 {
                SoftStatus::Above
            } else if value < -0.05 {
                SoftStatus::Below
            } else {
                SoftStatus::Inside
            };
            assert_eq!(qp.soft_status[k][0], want, "seed {seed}, node {}", k + 1);
        }
        // KKT of the penalized objective (convex, once differentiable) by central
        // differences, independent of the recursion: zero slope on free inputs, slopes that
        // push into the box at held ones.
        let step = 1e-6;
        for k in 0..H {
            let (mut up, mut down) = (v, v);
            up[k] += step;
            down[k] -= step;
            let slope = (penalized(&qp, &z0, &up).0 - penalized(&qp, &z0, &down).0) / (2.0 * step);
            let st = &qp.stages[k];
            match qp.working[k][0] {
                Bound::Free => assert!(slope.abs() < 1e-6, "seed {seed}, v_{k}: slope {slope:e}"),
                Bound::Lower => {
                    assert_eq!(v[k], st.lo[0]);
                    assert!(slope > -1e-6, "seed {seed}, v_{k} at lo: slope {slope:e}");
                }
                Bound::Upper => {
                    assert_eq!(v[k], st.hi[0]);
                    assert!(slope < 1e-6, "seed {seed}, v_{k} at hi: slope {slope:e}");
                }
            }
        }
        // No feasible point nearby is better (convexity makes this a global statement).
        let mut g = Lcg(seed + 200);
        for _ in 0..200 {
            let trial: [f64; H] = core::array::from_fn(|k| {
                (v[k] + 0.05 * g.next()).clamp(qp.stages[k].lo[0], qp.stages[k].hi[0])
            });
            assert!(penalized(&qp, &z0, &trial).0 >= j - 1e-12 * (1.0 + j.abs()));
        }
        println!("seed {seed}: {stats:?}, objective {j:.6}");
        exercised.0 += stats.soft_active;
        exercised.1 += stats.active;
    }
    assert!(exercised.0 > 4 && exercised.1 > 0, "{exercised:?}");
}

#[test]
fn heavier_soft_bounds_approach_hard_ones_and_zero_weights_change_nothing() {
    let z0 = SVector::from([0.8, -0.5]);
    let mut last = f64::INFINITY;
    for weight in [1e1, 1e3, 1e5, 1e7] {
        let mut qp = soft_problem(3, 1e3, 0.05, weight);
        // Rows mostly on the velocity, which each node's input reaches directly: the hard
        // bounds are feasible.
        for sb in qp.soft.iter_mut() {
            sb.rows[(0, 1)] = 1.0;
            sb.rows[(0, 0)] *= 0.2;
        }
        let stats = qp.solve(&z0).unwrap();
        let v: [f64; H] = core::array::from_fn(|k| qp.v[k][0]);
        let (_, violation) = penalized(&qp, &z0, &v);
        println!("weight {weight:e}: worst violation {violation:.3e}, {stats:?}");
        assert!(stats.soft_active > 0);
        assert!(violation < last, "{violation:e} after {last:e}");
        last = violation;
    }
    assert!(last < 1e-5, "{last:e}");
    // Zero weights: the plain QP's solution.
    let mut plain = problem(3, 0.6);
    let mut off = soft_problem(3, 0.6, 0.05, 0.0);
    plain.solve(&z0).unwrap();
    let stats = off.solve(&z0).unwrap();
    assert_eq!(stats.soft_active, 0);
    assert_eq!(plain.v, off.v);
}

#[test]
fn unusable_soft_bounds_are_refused() {
    let z0 = SVector::from([0.8, -0.5]);
    let good = soft_problem(2, 0.6, 0.05, 50.0);
    let bad: [fn(&mut SoftQp); 4] = [
        |qp| qp.soft[1].rows[(0, 0)] = f64::NAN,
        |qp| qp.soft[2].weight[0] = -1.0,
        |qp| qp.soft[0].lo[0] = 1.0,
        |qp| qp.soft[3].hi[0] = f64::NAN,
    ];
    for (i, spoil) in bad.iter().enumerate() {
        let mut qp = good;
        spoil(&mut qp);
        assert!(
            matches!(qp.solve(&z0), Err(ControlError::InvalidArgument { .. })),
            "case {i}"
        );
    }
}
