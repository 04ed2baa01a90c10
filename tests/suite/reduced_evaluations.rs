//! The reduced evaluations `mechanics!` emits for the simplified Newton iteration
//! (`Lagrangian::mass_force`: p, f, L_vv and L_vq v; `Lagrangian::constraint_gradient`: g and G;
//! `Lagrangian::velocity_constraint`: w, G and w_q v; `Lagrangian::momentum`: p) agree with the full ones they stand for
//! (`dynamics_jacobian`, `constraint_jacobian`, `velocity_constraint_jacobian`), on a
//! model where every block is nonzero and depends on the state: a position-dependent mass
//! matrix, a gyroscopic (magnetic) term coupling v and q, explicit time dependence. And the
//! macro's `CONSTANT_MASS` verdict, which lets a step skip the mass matrix at its end point.
//! And the fused evaluations of the coupled step (`Lagrangian::stage_terms`,
//! `Lagrangian::end_terms`, `Lagrangian::nonholonomic_velocity_jacobian`) against the separate
//! ones, on a nonholonomic model.

use spark::nalgebra::SVector;
use spark::Lagrangian;

spark::mechanics! {
    /// A bead on a time-varying curve in a magnetic field, with a mass that depends on position.
    struct Coupled {
        coordinates: [x, y],
        velocities: [vx, vy],
        parameters: [b = 0.7, k = 0.3],
        lagrangian: 0.5 * (1.0 + k * x.powi(2)) * (vx.powi(2) + vy.powi(2))
            + 0.5 * b * (x * vy - y * vx) * (1.0 + 0.1 * t)
            + k * x * y * vx * vy
            - y.cos(),
        holonomic: [x.powi(2) + 2.0 * y.powi(2) - 1.0 - 0.1 * t.sin()],
    }
}

spark::mechanics! {
    /// A point mass on a circle, its mass a parameter.
    struct Bead {
        coordinates: [x, y],
        velocities: [vx, vy],
        parameters: [m = 2.0],
        lagrangian: 0.5 * m * (vx.powi(2) + vy.powi(2)) - m * y,
        holonomic: [x.powi(2) + y.powi(2) - 1.0],
    }
}

spark::mechanics! {
    /// A point mass whose inertia grows with time.
    struct Growing {
        coordinates: [x],
        velocities: [vx],
        lagrangian: 0.5 * (1.0 + t) * vx.powi(2),
    }
}

/// `CONSTANT_MASS` is decided from `L_vv`: constant with parameters allowed, not constant when
/// it depends on q or t.
#[test]
fn constant_mass_is_decided_symbolically() {
    let verdicts = [
        <Bead as Lagrangian<2, 1>>::CONSTANT_MASS,
        <Coupled as Lagrangian<2, 1>>::CONSTANT_MASS,
        <Growing as Lagrangian<1, 0>>::CONSTANT_MASS,
        <Bead as Lagrangian<2, 1>>::QUADRATIC_IN_V,
        <Coupled as Lagrangian<2, 1>>::QUADRATIC_IN_V,
    ];
    assert_eq!(verdicts, [true, false, false, true, true]);
}

spark::mechanics! {
    /// A damped point mass on a spring: `∂Q/∂v ≠ 0`, `∂f/∂q ≠ 0`, `L_vq = 0`.
    struct Damped {
        coordinates: [x],
        velocities: [vx],
        parameters: [c = 0.3],
        lagrangian: 0.5 * vx.powi(2) - 0.5 * x.powi(2),
        dissipation: 0.5 * c * vx.powi(2),
    }
}

/// The zero-block verdicts (`ZERO_LVQ`, `ZERO_LQQ`, `ZERO_FV`), which let exact Newton
/// matrices skip blocks, are decided symbolically, and a block declared zero is zero at every
/// point evaluated.
#[test]
fn zero_blocks_are_decided_symbolically_and_hold() {
    fn flags<Sys: Lagrangian<N, M>, const N: usize, const M: usize>() -> [bool; 3] {
        [Sys::ZERO_LVQ, Sys::ZERO_LQQ, Sys::ZERO_FV]
    }
    assert_eq!(flags::<Bead, 2, 1>(), [true, true, true]);
    assert_eq!(flags::<Coupled, 2, 1>(), [false, false, true]);
    assert_eq!(flags::<Damped, 1, 0>(), [true, false, false]);
    assert_eq!(flags::<Growing, 1, 0>(), [true, true, true]);
    fn check<Sys: Lagrangian<N, M>, const N: usize, const M: usize>(sys: &Sys) {
        let [lvq, lqq, fv] = flags::<Sys, N, M>();
        for k in 0..20 {
            let s = k as f64;
            let q = SVector::<f64, N>::from_fn(|i, _| (0.7 * s + i as f64).sin());
            let v = SVector::<f64, N>::from_fn(|i, _| (1.1 * s - i as f64).cos());
            let d = sys.dynamics_jacobian(0.1 * s, &q, &v);
            assert!(!lvq || d.lvq.iter().all(|&x| x == 0.0));
            assert!(!lqq || d.lqq.iter().all(|&x| x == 0.0));
            assert!(!fv || d.fv.iter().all(|&x| x == 0.0));
            // And a block declared nonzero is nonzero somewhere (the verdicts are not just `false`).
            if k == 3 {
                assert!(lvq || d.lvq.amax() > 0.0);
                assert!(lqq || d.lqq.amax() > 0.0);
                assert!(fv || d.fv.amax() > 0.0);
            }
        }
    }
    check(&Bead::default());
    check(&Coupled::default());
    check(&Damped::default());
    check(&Growing::default());
}

#[test]
fn reduced_evaluations_equal_the_full_ones() {
    let sys = Coupled::default();
    let mut worst = 0.0f64;
    for k in 0..50 {
        let s = k as f64;
        let t = 0.1 * s;
        let q = SVector::<f64, 2>::new((0.7 * s).sin(), (1.3 * s).cos());
        let v = SVector::<f64, 2>::new((0.4 * s).cos() - 0.5, (2.1 * s).sin());
        let full = sys.dynamics_jacobian(t, &q, &v);
        let reduced = sys.mass_force(t, &q, &v);
        assert!(
            full.lvq.amax() > 1e-3,
            "L_vq must not vanish for this test to mean anything"
        );
        worst = worst
            .max((reduced.p - full.p).amax())
            .max((reduced.f - full.f).amax())
            .max((reduced.lvv - full.lvv).amax())
            .max((reduced.lvq_v - full.lvq * v).amax());
        let full_w = sys.velocity_constraint_jacobian(t, &q, &v);
        let reduced_w = sys.velocity_constraint(t, &q, &v);
        assert!(full_w.wq.amax() > 1e-3, "∂w/∂q must not vanish either");
        worst = worst
            .max((reduced_w.w - full_w.w).amax())
            .max((reduced_w.gq - full_w.wv).amax())
            .max((reduced_w.wq_v - full_w.wq * v).amax());
        let c = sys.constraint_jacobian(t, &q, &SVector::<f64, 1>::new(0.5));
        let (g, gq) = sys.constraint_gradient(t, &q);
        worst = worst.max((g - c.g).amax()).max((gq - c.gq).amax());
        worst = worst.max((sys.momentum(t, &q, &v) - full.p).amax());
    }
    assert!(worst < 1e-14, "largest difference {worst:e}");
}

spark::mechanics! {
    /// A skate on a tilted, rotating plane, held at unit distance from the origin: a
    /// nonholonomic constraint and a holonomic one that share the sines and cosines of the
    /// heading with the Lagrangian, a position-dependent potential, explicit time dependence.
    struct TiltedSkate {
        coordinates: [x, y, th],
        velocities: [vx, vy, w],
        parameters: [m = 1.3, j = 0.4, g = 9.81, tilt = 0.3],
        lagrangian: 0.5 * m * (vx.powi(2) + vy.powi(2)) + 0.5 * j * w.powi(2)
            - m * g * tilt.sin() * (x * th.cos() + y * (0.2 * t).sin()),
        holonomic: [x.powi(2) + y.powi(2) + 0.1 * th.sin() - 1.0],
        nonholonomic: [vx * th.sin() - vy * th.cos() + 0.1 * t * w],
    }
}

/// The fused evaluations of the coupled step (`Lagrangian::stage_terms`: p, f, k, k_vᵀν;
/// `Lagrangian::end_terms`: p, w, k, g, Gᵀμ; `Lagrangian::nonholonomic_velocity_jacobian`: k,
/// k_v), which `mechanics!` emits as one body each, equal the separate evaluations they stand
/// for to the bit (the same expressions, shared).
#[test]
fn fused_evaluations_equal_the_separate_ones() {
    let sys = TiltedSkate::default();
    for k in 0..50 {
        let s = k as f64;
        let t = 0.1 * s;
        let q = SVector::<f64, 3>::new((0.7 * s).sin(), (1.3 * s).cos(), 0.3 * s);
        let v = SVector::<f64, 3>::new((0.4 * s).cos() - 0.5, (2.1 * s).sin(), 0.2 - 0.01 * s);
        let nu = SVector::<f64, 1>::new((0.9 * s).sin());
        let mu = SVector::<f64, 1>::new(0.7 - 0.1 * s);
        crate::common::assert_fused_evaluations(&sys, t, (&q, &v), &nu, &mu);
    }
}
