//! The Whipple bicycle (`examples/models/bicycle.rs`) against the benchmark of Meijaard,
//! Papadopoulos, Ruina and Schwab (2007): the lean and steer eigenvalues of the upright,
//! straight-ahead motion from the step's exact Jacobian against Table 2 at v = 0, 1, ..., 10
//! m/s, the weave and capsize speeds, and rides of the nonlinear model (constraints kept after
//! every step, energy kept, self-stability inside the stable speed range only).

include!("../../examples/models/bicycle.rs");

use spark::nalgebra::Complex;

#[test]
fn the_model_has_the_whipple_sizes() {
    assert_eq!(Bicycle::COORDINATES, 8);
    assert_eq!(Bicycle::HOLONOMIC_CONSTRAINTS, 1);
    let p = Bicycle::default();
    // Table 1 as printed, through the macro's defaults.
    assert_eq!(
        (p.w, p.c, p.rr, p.rf, p.mb, p.ibxz, p.ihxz),
        (1.02, 0.08, 0.3, 0.35, 85.0, 2.4, -0.00756)
    );
    assert_eq!(p.lam, core::f64::consts::PI / 10.0);
}

/// The fused evaluations of the coupled step (`stage_terms`, `end_terms`), one body each with
/// the sines and cosines shared, equal the separate evaluations to the bit, at leaned, steered,
/// pitched, moving states.
#[test]
fn fused_evaluations_equal_the_separate_ones() {
    use spark::nalgebra::SVector;
    let sys = Bicycle::default();
    for k in 0..20 {
        let s = k as f64;
        let q = SVector::<f64, 8>::from_fn(|i, _| (0.7 * s + 1.3 * i as f64).sin());
        let v = SVector::<f64, 8>::from_fn(|i, _| (1.1 * s - 0.6 * i as f64).cos());
        let nu = SVector::<f64, 4>::from_fn(|i, _| (0.3 * s + i as f64).sin());
        let mu = SVector::<f64, 1>::new(0.7 - 0.1 * s);
        crate::common::assert_fused_evaluations(&sys, 0.1 * s, (&q, &v), &nu, &mu);
    }
}

/// Every eigenvalue of Table 2 (printed with 14 decimals) to 1e-12; the eigenvalues computed
/// from the paper's own printed linearized matrices differ from it by up to 8.5e-13.
#[test]
fn eigenvalues_equal_table_2() {
    let p = Bicycle::default();
    let mut worst: f64 = 0.0;
    for v in 0..=10u8 {
        let ours = whipple::eigenvalues(p, f64::from(v)).expect("linearization");
        for (got, want) in ours.iter().zip(whipple::TABLE2[usize::from(v)]) {
            let d = got - Complex::new(want.0, want.1);
            let e = d.re.hypot(d.im);
            assert!(e < 1e-12, "v = {v}: {got} vs Table 2 {want:?}");
            worst = worst.max(e);
        }
    }
    println!("largest difference from Table 2: {worst:.2e}");
}

/// The same eigenvalues from the printed `M, C1, K0, K2`: an independent reference.
#[test]
fn eigenvalues_equal_those_of_the_printed_linearized_equations() {
    let p = Bicycle::default();
    for k in 0..=20u8 {
        let v = f64::from(k) * 0.5;
        let ours = whipple::eigenvalues(p, v).expect("linearization");
        let linear = whipple::linearized_eigenvalues(v, p.g);
        for (got, want) in ours.iter().zip(linear) {
            let d = got - want;
            assert!(d.re.hypot(d.im) < 2e-12, "v = {v}: {got} vs {want}");
        }
    }
}

#[test]
fn weave_and_capsize_speeds_equal_table_2() {
    let p = Bicycle::default();
    let weave = whipple::root(|v| whipple::weave_real_part(p, v), 4.0, 5.0).expect("weave");
    let capsize = whipple::root(|v| whipple::capsize_eigenvalue(p, v), 5.5, 7.0).expect("capsize");
    assert!(
        (weave - whipple::WEAVE_SPEED).abs() < 1e-12,
        "weave speed {weave}"
    );
    assert!(
        (capsize - whipple::CAPSIZE_SPEED).abs() < 1e-12,
        "capsize speed {capsize}"
    );
}

/// At 5 m/s (between the weave and capsize speeds) a lean-rate kick dies out; at 4 m/s (below
/// the weave speed) it does not. Both rides keep the constraints after every step and the
/// energy (the model is conservative).
#[test]
fn rides_keep_the_constraints_and_the_energy_and_show_self_stability() {
    let p = Bicycle::default();
    let peak = |r: &ride::Ride, from: f64| {
        r.lean
            .iter()
            .filter(|(t, _)| *t >= from)
            .map(|(_, l)| l.abs())
            .fold(0.0, f64::max)
    };
    let stable = ride::ride(p, 5.0, 0.5, 0.01, 600).expect("ride at 5 m/s");
    let weaving = ride::ride(p, 4.0, 0.5, 0.01, 600).expect("ride at 4 m/s");
    for r in [&stable, &weaving] {
        assert!(
            r.residual.0 < 1e-14,
            "holonomic residual {:e}",
            r.residual.0
        );
        assert!(
            r.residual.1 < 1e-11,
            "velocity-level residual {:e}",
            r.residual.1
        );
        assert!(r.energy_error < 1e-9, "energy error {:e}", r.energy_error);
    }
    assert!(
        peak(&stable, 5.0) < 0.1 * peak(&stable, 0.0),
        "5 m/s does not settle"
    );
    assert!(
        peak(&weaving, 5.0) > 0.5 * peak(&weaving, 0.0),
        "4 m/s settles"
    );
}
