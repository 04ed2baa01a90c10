//! Jay's Lagrange-d'Alembert SPARK methods through the macro (Jay, *Lagrange-d'Alembert SPARK
//! integrators for nonholonomic Lagrangian systems*, §§6-8): Lobatto IIIA-B and IIIA-B-D
//! (order 2S − 2), symplectic Euler I and II (order 1) and Gauss (order 2S) against the closed
//! form of the skate on an inclined plane (§8.2); the s = 2 IIIA-B, SE-I and SE-II steps against
//! their reduced forms (§7.5 (7.2), §7.1, §7.2) hand-coded on the nonholonomic particle (§8.1);
//! the Lobatto methods on the thesis skate with a holonomic and a nonholonomic constraint.
//!
//! `cargo test --release --test suite nonholonomic_lobatto:: -- --nocapture` prints the errors.

use crate::common;

use common::run;

use spark::nalgebra::SVector;
use spark::{
    GaussLobatto, Integrator, LobattoIIIAB, LobattoIIIABD, Method, Options, State,
    SymplecticEulerI, SymplecticEulerII,
};

include!("../../examples/models/inclined_skate.rs");
include!("../../examples/models/nonholonomic_particle.rs");

/// The thesis skate with a holonomic and a nonholonomic constraint (its model file names it
/// `Skate` too).
mod thesis {
    include!("../../examples/models/skate.rs");
}
use thesis::Skate as Rod;

/// Max of the Euclidean norms of the q- and v-errors.
fn err<const N: usize>(a: &State<N>, b: &State<N>) -> f64 {
    (a.q - b.q).norm().max((a.v - b.v).norm())
}

/// Errors at T = 2 against the closed form; checks the order and (when given) the errors the
/// guide's independent prototypes measured, to 2%.
/// `expected` holds `(index into hs, error)` pairs.
fn skate_order<Meth: Method>(label: &str, order: f64, hs: &[f64], expected: &[(usize, f64)]) {
    let s0 = inclined_skate_start();
    let t_end = 2.0;
    let exact = inclined_skate_exact(t_end);
    let errs: Vec<f64> = hs
        .iter()
        .map(|&h| {
            err(
                &run::<Skate, Meth, 3, 0, 1>(Skate::default(), s0, h, t_end),
                &exact,
            )
        })
        .collect();
    common::assert_order(label, order, hs, &errs);
    for &(i, x) in expected {
        let e = errs[i];
        assert!((e / x - 1.0).abs() < 0.02, "{label}: {e:e} vs guide {x:e}");
    }
}

const HS: [f64; 4] = [0.2, 0.1, 0.05, 0.025];

#[test]
fn lobatto_iiia_b_has_order_2s_minus_2_on_the_skate() {
    // guide E5 ("ours"): 1.08e-2 … 1.67e-4; 2.15e-5 … 5.23e-9; 2.73e-8 … 1.04e-13.
    skate_order::<LobattoIIIAB<2>>("IIIA-B S=2", 2.0, &HS, &[(0, 1.08e-2), (3, 1.67e-4)]);
    skate_order::<LobattoIIIAB<3>>("IIIA-B S=3", 4.0, &HS, &[(0, 2.15e-5), (3, 5.23e-9)]);
    skate_order::<LobattoIIIAB<4>>("IIIA-B S=4", 6.0, &HS[..3], &[(0, 2.73e-8)]);
}

#[test]
fn lobatto_iiia_b_d_has_order_2s_minus_2_on_the_skate() {
    // guide E5 ("ours"): 1.06e-2 … 1.67e-4; 5.70e-5 … 1.40e-8; 5.57e-8 … 2.14e-13.
    skate_order::<LobattoIIIABD<2>>("IIIA-B-D S=2", 2.0, &HS, &[(0, 1.06e-2), (3, 1.67e-4)]);
    skate_order::<LobattoIIIABD<3>>("IIIA-B-D S=3", 4.0, &HS, &[(0, 5.70e-5), (3, 1.40e-8)]);
    skate_order::<LobattoIIIABD<4>>("IIIA-B-D S=4", 6.0, &HS[..3], &[(0, 5.57e-8)]);
}

#[test]
fn symplectic_euler_i_and_ii_have_order_1_on_the_skate() {
    // guide E5: SE-I 3.33e-1, 1.53e-1, 7.37e-2, 3.62e-2; SE-II 2.59e-1 … 3.50e-2.
    let e1 = [(0, 3.33e-1), (1, 1.53e-1), (2, 7.37e-2), (3, 3.62e-2)];
    skate_order::<SymplecticEulerI>("SE-I", 1.0, &HS, &e1);
    skate_order::<SymplecticEulerII>("SE-II", 1.0, &HS, &[(0, 2.59e-1), (3, 3.50e-2)]);
    let hs = [0.05, 0.025, 0.0125, 0.00625];
    skate_order::<SymplecticEulerI>("SE-I (small h)", 1.0, &hs, &[]);
    skate_order::<SymplecticEulerII>("SE-II (small h)", 1.0, &hs, &[]);
}

#[test]
fn gauss_has_order_2s_on_the_skate() {
    // guide E5: Gauss SPARK 6.10e-3, 7.82e-6, 2.93e-8 at h = 0.2.
    skate_order::<GaussLobatto<1>>("Gauss S=1", 2.0, &HS, &[(0, 6.10e-3), (3, 9.48e-5)]);
    skate_order::<GaussLobatto<2>>("Gauss S=2", 4.0, &HS, &[(0, 7.82e-6), (3, 1.90e-9)]);
    skate_order::<GaussLobatto<3>>("Gauss S=3", 6.0, &HS[..3], &[(0, 2.93e-8)]);
}

// ---------------------------------------------------------------------------------------------
// Reduced forms of 004 §7 on the particle: L = ½|v|² − U, U = q1² + q2², k = K(q) v with
// K(q) = (−q2, 0, 1) (b = 0). Each is linear in its multiplier and solved in closed form here.
// ---------------------------------------------------------------------------------------------

type V3 = SVector<f64, 3>;

fn grad_u(q: &V3) -> V3 {
    V3::new(2.0 * q[0], 2.0 * q[1], 0.0)
}

fn kk(q: &V3) -> V3 {
    V3::new(-q[1], 0.0, 1.0)
}

/// `v = w − Kᵀν` with `K v = 0` (the linear KKT solve `[I Kᵀ; K 0]`, M = I).
fn project_out(w: &V3, k: &V3) -> V3 {
    w - k * (k.dot(w) / k.dot(k))
}

/// 004 §7.5: phase A (7.2) then the linear phase B.
fn reduced_iiia_b(q0: &V3, v0: &V3, h: f64) -> (V3, V3) {
    let k0 = kk(q0);
    let a = v0 - grad_u(q0) * (0.5 * h);
    // V1 = a − (h/2) Ψ1 K0ᵀ; q1 = q0 + h V1 (its second entry does not depend on Ψ1);
    // ½K(q0)V1 + ½K(q1)V1 = V1_3 − q̄ V1_1 = 0 with q̄ = (q0_2 + q1_2)/2.
    let q1_2 = q0[1] + h * a[1];
    let qbar = 0.5 * (q0[1] + q1_2);
    let psi_h2 = (a[2] - qbar * a[0]) / (1.0 + qbar * q0[1]); // (h/2) Ψ1
    let v_half = a - k0 * psi_h2;
    let q1 = q0 + v_half * h;
    let v1 = project_out(&(v_half - grad_u(&q1) * (0.5 * h)), &kk(&q1));
    (q1, v1)
}

/// 004 §7.1 (SE-I).
fn reduced_se1(q0: &V3, v0: &V3, h: f64) -> (V3, V3) {
    let a = v0 - grad_u(q0) * h;
    let k0 = kk(q0);
    let q1_2 = q0[1] + h * a[1];
    let psi_h = (a[2] - q1_2 * a[0]) / (1.0 + q1_2 * q0[1]); // h Ψ
    let v1 = a - k0 * psi_h;
    (q0 + v1 * h, v1)
}

/// 004 §7.2 (SE-II).
fn reduced_se2(q0: &V3, v0: &V3, h: f64) -> (V3, V3) {
    let q1 = q0 + v0 * h;
    (q1, project_out(&(v0 - grad_u(&q1) * h), &kk(&q1)))
}

fn same_as_reduced<Meth: Method>(label: &str, reduced: fn(&V3, &V3, f64) -> (V3, V3)) {
    let h = 0.1;
    let opts = Options {
        tolerance: 1e-15,
        ..Options::default()
    };
    let mut sim = Integrator::<Particle, Meth>::new(Particle {}, h)
        .unwrap()
        .with_options(opts);
    let mut s = State::new(0.0, [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]);
    let mut worst = 0.0f64;
    for _ in 0..50 {
        let (q1, v1) = reduced(&s.q, &s.v, h);
        sim.step(&mut s).unwrap();
        worst = worst.max((s.q - q1).amax()).max((s.v - v1).amax());
    }
    eprintln!("{label}: max one-step distance to the reduced form over 50 steps {worst:e}");
    assert!(worst < 1e-13, "{label}: {worst:e}");
}

#[test]
fn steps_equal_the_reduced_forms_of_section_7() {
    same_as_reduced::<LobattoIIIAB<2>>("IIIA-B S=2 vs (7.2)", reduced_iiia_b);
    same_as_reduced::<SymplecticEulerI>("SE-I vs 7.1", reduced_se1);
    same_as_reduced::<SymplecticEulerII>("SE-II vs 7.2", reduced_se2);
}

// ---------------------------------------------------------------------------------------------
// Mixed holonomic + nonholonomic: the thesis skate (ℓ = 1).
// ---------------------------------------------------------------------------------------------

fn rod_errors<Meth: Method>(hs: &[f64], reference: &State<4>) -> Vec<f64> {
    let s0 = thesis::skate_start();
    hs.iter()
        .map(|&h| {
            err(
                &run::<Rod, Meth, 4, 1, 1>(Rod::default(), s0, h, 2.0),
                reference,
            )
        })
        .collect()
}

#[test]
fn lobatto_methods_on_a_mixed_model() {
    let s0 = thesis::skate_start();
    let reference = run::<Rod, GaussLobatto<3>, 4, 1, 1>(Rod::default(), s0, 0.005, 2.0);
    let hs = [0.2, 0.1, 0.05, 0.025];
    let e = rod_errors::<LobattoIIIAB<2>>(&hs, &reference);
    common::assert_order("mixed IIIA-B S=2", 2.0, &hs, &e);
    let e = rod_errors::<LobattoIIIABD<2>>(&hs, &reference);
    common::assert_order("mixed IIIA-B-D S=2", 2.0, &hs, &e);
    let e = rod_errors::<LobattoIIIAB<3>>(&hs, &reference);
    common::assert_order("mixed IIIA-B S=3", 4.0, &hs, &e);
    let e = rod_errors::<LobattoIIIABD<3>>(&hs, &reference);
    common::assert_order("mixed IIIA-B-D S=3", 4.0, &hs, &e);
    let e = rod_errors::<SymplecticEulerI>(&[0.02, 0.01, 0.005], &reference);
    common::assert_order("mixed SE-I", 1.0, &[0.02, 0.01, 0.005], &e);
}

#[test]
fn symplectic_euler_ii_refuses_holonomic_constraints() {
    let mut sim = Integrator::<Rod, SymplecticEulerII>::new(Rod::default(), 0.1).unwrap();
    let mut s = State::new(0.0, [-0.5, 0.0, 0.5, 0.0], [0.0, -0.5, 0.0, 0.5]);
    let before = s;
    assert!(matches!(
        sim.step(&mut s),
        Err(spark::Error::Unsupported { .. })
    ));
    assert_eq!(s, before);
}
