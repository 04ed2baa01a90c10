//! Linearizations as matrices (issue 31): sizes from the model (no turbofish), the reduced
//! `(A, B)` of one step against central differences on the tangent space, the continuous-time
//! `f(x, u)` against the step, and the tangent basis transported along a trajectory and across
//! a projection.

use spark::control::vector::{difference, displaced, from_vector, to_vector};
use spark::nalgebra::{SMatrix, SVector};
use spark::{Dimensions, GaussLobatto, Integrator, State, TangentBasis};

spark::mechanics! {
    /// The Cartesian cart-pole of the examples: a cart pushed by `u`, a point mass on a rod.
    struct CartPole {
        coordinates: [xc, x, y],
        velocities: [vc, vx, vy],
        parameters: [mc = 1.0, m = 0.2, l = 0.5, g = 9.81, c = 0.4],
        inputs: [u],
        lagrangian: 0.5 * mc * vc.powi(2) + 0.5 * m * (vx.powi(2) + vy.powi(2)) - m * g * y,
        forces: [u, 0.0, 0.0],
        dissipation: 0.5 * c * vc.powi(2),
        holonomic: [(x - xc).powi(2) + y.powi(2) - l.powi(2)],
    }
}

type Sim = Integrator<CartPole, GaussLobatto<2>>;

fn lean(s: &State<3>, th: f64, om: f64, vc: f64) -> State<3> {
    let l = 0.5;
    State::new(
        0.0,
        [0.1, 0.1 + l * th.sin(), l * th.cos()],
        [vc, vc + l * om * th.cos(), -l * om * th.sin()],
    )
    .clone_with_time(s.t)
}

trait WithTime {
    fn clone_with_time(self, t: f64) -> Self;
}
impl WithTime for State<3> {
    fn clone_with_time(mut self, t: f64) -> Self {
        self.t = t;
        self
    }
}

fn sizes<
    S,
    const N: usize,
    const M: usize,
    const K: usize,
    const U: usize,
    const D: usize,
    const X: usize,
>(
    _: &S,
) -> [usize; 6]
where
    S: Dimensions<N, M, K, U, D, X>,
{
    [N, M, K, U, D, X]
}

#[test]
fn the_model_gives_every_size() {
    assert_eq!(sizes(&CartPole::default()), [3, 1, 0, 1, 4, 6]);
    let sim = Sim::new(CartPole::default(), 0.01).unwrap();
    let s = lean(&State::new(0.0, [0.0; 3], [0.0; 3]), 0.3, 0.2, 0.1);
    // No turbofish: D = 4 from the model.
    let t = sim.tangent(&s).unwrap();
    // The old form still compiles and gives the same basis.
    let old = sim.tangent_basis::<3, 1, 0, 4>(&s).unwrap();
    assert_eq!(t, old);
    let mut cp = CartPole::default();
    cp.set_inputs(&SVector::from([2.5]));
    assert_eq!(cp.u, 2.5);
}

#[test]
fn state_vectors_and_step_matrices() {
    let mut sim = Sim::new(CartPole::default(), 0.01).unwrap();
    let s = lean(&State::new(0.3, [0.0; 3], [0.0; 3]), 0.3, 0.2, 0.1);
    let x: SVector<f64, 6> = to_vector(&s);
    assert_eq!(from_vector::<3, 6>(s.t, &x), s);
    let dx = SVector::<f64, 6>::from_fn(|i, _| i as f64);
    assert!((difference::<3, 6>(&displaced(&s, &dx), &s) - dx).amax() < 1e-15);
    let mut s1 = s;
    let j = sim.step_with_jacobian(&mut s1).unwrap();
    let phi: SMatrix<f64, 6, 6> = j.phi();
    let gamma: SMatrix<f64, 6, 1> = j.gamma();
    let dq = SVector::<f64, 3>::new(0.1, -0.2, 0.3);
    let dv = SVector::<f64, 3>::new(-0.4, 0.5, 0.6);
    let (aq, av) = j.apply(&dq, &dv);
    let full = phi
        * to_vector::<3, 6>(&State {
            t: 0.0,
            q: dq,
            v: dv,
        });
    assert!(
        (full
            - to_vector::<3, 6>(&State {
                t: 0.0,
                q: aq,
                v: av
            }))
        .amax()
            < 1e-15
    );
    assert_eq!(gamma[(3, 0)], j.dv_du[(0, 0)]);
}

/// `A` and `B` against central differences of the step along the tangent directions (each
/// perturbed start projected onto the manifold: the projection's second-order change is even
/// in the perturbation and cancels) and along the input.
#[test]
fn reduced_a_b_equal_central_differences_on_the_tangent_space() {
    let h = 0.02;
    let mut worst = 0.0f64;
    for &(th, om, vc, u) in &[
        (0.3, 0.2, 0.1, 1.5),
        (2.5, -3.0, 0.7, -4.0),
        (3.1, 0.0, 0.0, 0.0),
    ] {
        let mut sim = Sim::new(
            CartPole {
                u,
                ..CartPole::default()
            },
            h,
        )
        .unwrap();
        let s0 = lean(&State::new(0.0, [0.0; 3], [0.0; 3]), th, om, vc);
        let t0 = sim.tangent(&s0).unwrap();
        let mut s1 = s0;
        let lin = sim.linearize(&mut s1, &t0).unwrap();
        let t1 = lin.basis.matrix::<6>();
        let e = 1e-6;
        let step_from = |sim: &mut Sim, s: State<3>| {
            let mut s = s;
            sim.project(&mut s).unwrap();
            sim.step(&mut s).unwrap();
            s
        };
        for j in 0..4 {
            let d = t0.direction::<6>(&SVector::from_fn(|i, _| if i == j { e } else { 0.0 }));
            let p = step_from(&mut sim, displaced(&s0, &d));
            let m = step_from(&mut sim, displaced(&s0, &(-d)));
            let col = t1.tr_mul(&difference::<3, 6>(&p, &m)) / (2.0 * e);
            let err = (col - lin.a.column(j)).amax() / (1.0 + lin.a.amax());
            worst = worst.max(err);
        }
        let step_u = |sim: &mut Sim, du: f64| {
            sim.system_mut().u = u + du;
            let mut s = s0;
            sim.step(&mut s).unwrap();
            sim.system_mut().u = u;
            s
        };
        let p = step_u(&mut sim, e);
        let m = step_u(&mut sim, -e);
        let col = t1.tr_mul(&difference::<3, 6>(&p, &m)) / (2.0 * e);
        worst = worst.max((col - lin.b.column(0)).amax() / (1.0 + lin.b.amax()));
        // The end state is the step's.
        let mut plain = s0;
        sim.step(&mut plain).unwrap();
        assert_eq!(plain, s1);
    }
    println!("reduced (A, B) against central differences: {worst:.2e}");
    assert!(worst < 1e-7, "{worst:e}");
}

/// `Φ ≈ I + h f_x` and `Γ ≈ h f_u` on the tangent space, to first order in h.
#[test]
fn continuous_dynamics_match_the_step_to_first_order() {
    let s0 = lean(&State::new(0.0, [0.0; 3], [0.0; 3]), 0.8, 1.0, -0.5);
    let u = SVector::from([3.0]);
    let mut gaps = [0.0f64; 2];
    for (i, &h) in [1e-3, 5e-4].iter().enumerate() {
        let mut sim = Sim::new(
            CartPole {
                u: 3.0,
                ..CartPole::default()
            },
            h,
        )
        .unwrap();
        let t0 = sim.tangent(&s0).unwrap();
        let f = sim.dynamics_jacobian(&s0, &u, &t0).unwrap();
        // The acceleration: the step's velocity change over h.
        let mut s1 = s0;
        let lin = sim.linearize(&mut s1, &t0).unwrap();
        let fd = difference::<3, 6>(&s1, &s0) / h;
        let a_gap = ((lin.a - SMatrix::<f64, 4, 4>::identity()) / h - f.a).amax();
        let b_gap = (lin.b / h - f.b).amax();
        gaps[i] = ((fd - f.f).amax()).max(a_gap).max(b_gap);
        // The inputs are restored.
        assert_eq!(sim.system().u, 3.0);
    }
    println!(
        "first-order gaps at h = 1e-3, 5e-4: {:.2e} {:.2e}",
        gaps[0], gaps[1]
    );
    // First order: halving h halves the gap.
    assert!(gaps[1] < 0.6 * gaps[0] && gaps[0] < 0.1, "{gaps:?}");
}

#[test]
fn transported_basis_is_continuous_along_a_trajectory_and_across_a_projection() {
    let mut sim = Sim::new(CartPole::default(), 0.01).unwrap();
    let mut s = lean(&State::new(0.0, [0.0; 3], [0.0; 3]), 3.0, 0.0, 0.0);
    let mut t: TangentBasis<3, 4> = sim.tangent(&s).unwrap();
    let (mut raw_worst, mut worst) = (0.0f64, 0.0f64);
    for _ in 0..300 {
        let raw_prev = sim.tangent(&s).unwrap();
        let lin = sim.linearize(&mut s, &t).unwrap();
        let raw = sim.tangent(&s).unwrap();
        raw_worst = raw_worst.max(raw.distance(&raw_prev));
        worst = worst.max(lin.basis.distance(&t));
        t = lin.basis;
        // Still orthonormal and tangent.
        let m = t.matrix::<6>();
        assert!((m.tr_mul(&m) - SMatrix::<f64, 4, 4>::identity()).amax() < 1e-13);
        assert!(
            (raw.matrix::<6>() * raw.matrix::<6>().transpose() - m * m.transpose()).amax() < 1e-12
        );
    }
    println!("|T_kᵀ T_(k+1) − I| along 300 steps: raw {raw_worst:.3}, transported {worst:.2e}");
    assert!(worst < 0.05, "{worst}");
    // Across a projection: an estimate moved off the manifold and projected back.
    let before: TangentBasis<3, 4> = t;
    let mut moved = displaced(
        &s,
        &SVector::<f64, 6>::new(0.01, -0.02, 0.015, 0.05, -0.03, 0.02),
    );
    sim.project(&mut moved).unwrap();
    let after = sim.tangent_along(&moved, &before).unwrap();
    let gap = after.distance(&before);
    println!(
        "across a projection: raw {:.3}, transported {gap:.2e}",
        sim.tangent(&moved).unwrap().distance(&before)
    );
    assert!(gap < 0.1, "{gap}");
}
