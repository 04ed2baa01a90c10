//! Arrays, loops, constants and helpers in the DSL (issue 16): a model written with them is
//! the model written out by hand.

use spark::{GaussLobatto, Integrator, State};

include!("../../examples/models/chain3d.rs");
chain!(Chain, 3);

spark::mechanics! {
    /// The same chain written out.
    pub struct ChainByHand {
        coordinates: [x0, x1, x2, y0, y1, y2, z0, z1, z2],
        velocities: [vx0, vx1, vx2, vy0, vy1, vy2, vz0, vz1, vz2],
        parameters: [g = 9.81],
        lagrangian: 0.5 * (vx0.powi(2) + vy0.powi(2) + vz0.powi(2)) - g * z0
            + 0.5 * (vx1.powi(2) + vy1.powi(2) + vz1.powi(2)) - g * z1
            + 0.5 * (vx2.powi(2) + vy2.powi(2) + vz2.powi(2)) - g * z2,
        holonomic: [
            x0.powi(2) + y0.powi(2) + z0.powi(2) - 1.0,
            (x1 - x0).powi(2) + (y1 - y0).powi(2) + (z1 - z0).powi(2) - 1.0,
            (x2 - x1).powi(2) + (y2 - y1).powi(2) + (z2 - z1).powi(2) - 1.0,
        ],
    }
}

#[test]
fn names_and_sizes_of_an_array_model() {
    assert_eq!(Chain::COORDINATES, 9);
    assert_eq!(Chain::HOLONOMIC_CONSTRAINTS, 3);
    assert_eq!(
        Chain::COORDINATE_NAMES,
        ["x[0]", "x[1]", "x[2]", "y[0]", "y[1]", "y[2]", "z[0]", "z[1]", "z[2]"]
    );
    assert_eq!(Chain::VELOCITY_NAMES[4], "vy[1]");
}

#[test]
fn the_array_model_steps_like_the_model_written_out() {
    // Links along (sin a, 0, -cos a) with a twist in y, at rest: a consistent state.
    let mut q = [0.0; 9];
    let (mut px, mut py, mut pz) = (0.0, 0.0, 0.0);
    for i in 0..3 {
        let a = 0.4 + 0.3 * i as f64;
        let b = 0.2 * i as f64;
        px += a.sin() * b.cos();
        py += a.sin() * b.sin();
        pz -= a.cos();
        q[i] = px;
        q[3 + i] = py;
        q[6 + i] = pz;
    }
    let mut a = State::new(0.0, q, [0.0; 9]);
    let mut b = a;
    let mut sa = Integrator::<Chain, GaussLobatto<2>>::new(Chain::default(), 0.01).unwrap();
    let mut sb =
        Integrator::<ChainByHand, GaussLobatto<2>>::new(ChainByHand::default(), 0.01).unwrap();
    for _ in 0..200 {
        sa.step(&mut a).unwrap();
        sb.step(&mut b).unwrap();
    }
    let diff = (a.q - b.q).amax().max((a.v - b.v).amax());
    assert!(diff < 1e-13, "{diff:e}");
    assert!(sa.constraint_residual(&a).0 < 1e-12);
    assert!(a.v.amax() > 0.1, "the chain did not move");
}

spark::mechanics! {
    const K: usize = 2;
    /// A pendulum through `hypot`, a constant as a number and an unrolled product.
    pub struct HypotPendulum {
        coordinates: [p[K]],
        velocities: [w[K]],
        parameters: [g = 9.81],
        lagrangian: (0..K).map(|i| 0.5 * w[i].powi(2)).sum::<f64>() * (1..=3).map(|i| i).product::<f64>() / 6.0
            - g * p[K - 1] * (K - 1),
        holonomic: [hypot(p[0], p[1]) - 1.0, ],
    }
}

spark::mechanics! {
    /// The same pendulum written out.
    pub struct SqrtPendulum {
        coordinates: [x, y],
        velocities: [vx, vy],
        parameters: [g = 9.81],
        lagrangian: 0.5 * (vx.powi(2) + vy.powi(2)) - g * y,
        holonomic: [(x.powi(2) + y.powi(2)).sqrt() - 1.0],
    }
}

#[test]
fn hypot_constants_and_products_mean_what_they_say() {
    let mut a = State::new(0.0, [0.6, -0.8], [0.8, 0.6]);
    let mut b = a;
    let mut sa =
        Integrator::<HypotPendulum, GaussLobatto<3>>::new(HypotPendulum::default(), 0.05).unwrap();
    let mut sb =
        Integrator::<SqrtPendulum, GaussLobatto<3>>::new(SqrtPendulum::default(), 0.05).unwrap();
    for _ in 0..100 {
        sa.step(&mut a).unwrap();
        sb.step(&mut b).unwrap();
    }
    let diff = (a.q - b.q).amax().max((a.v - b.v).amax());
    assert!(diff < 1e-13, "{diff:e}");
    assert_eq!(HypotPendulum::COORDINATE_NAMES, ["p[0]", "p[1]"]);
}

spark::mechanics! {
    const N: usize = 2;
    /// A planar double pendulum with masses and lengths as parameter arrays.
    pub struct Double {
        coordinates: [x[N], y[N]],
        velocities: [vx[N], vy[N]],
        parameters: [m[N] = 1.0, l[N] = 1.0, g = 9.81],
        lagrangian: (0..N).map(|i| m[i] * (0.5 * (vx[i].powi(2) + vy[i].powi(2)) - g * y[i])).sum::<f64>(),
        holonomic: [
            x[0].hypot(y[0]) - l[0],
            for i in 1..N { (x[i] - x[i - 1]).hypot(y[i] - y[i - 1]) - l[i] },
        ],
    }
}

spark::mechanics! {
    /// The same, written out.
    pub struct DoubleByHand {
        coordinates: [x0, x1, y0, y1],
        velocities: [vx0, vx1, vy0, vy1],
        parameters: [m0 = 1.0, m1 = 1.0, l0 = 1.0, l1 = 1.0, g = 9.81],
        lagrangian: m0 * (0.5 * (vx0.powi(2) + vy0.powi(2)) - g * y0)
            + m1 * (0.5 * (vx1.powi(2) + vy1.powi(2)) - g * y1),
        holonomic: [
            (x0.powi(2) + y0.powi(2)).sqrt() - l0,
            ((x1 - x0).powi(2) + (y1 - y0).powi(2)).sqrt() - l1,
        ],
    }
}

#[test]
fn parameter_arrays_are_array_fields() {
    assert_eq!(Double::PARAMETERS, 5);
    assert_eq!(
        Double::PARAMETER_NAMES,
        ["m[0]", "m[1]", "l[0]", "l[1]", "g"]
    );
    let d = Double::default();
    assert_eq!((d.m, d.l, d.g), ([1.0, 1.0], [1.0, 1.0], 9.81));
    let sys = Double {
        m: [2.0, 0.5],
        l: [1.2, 0.7],
        ..Double::default()
    };
    let hand = DoubleByHand {
        m0: 2.0,
        m1: 0.5,
        l0: 1.2,
        l1: 0.7,
        ..DoubleByHand::default()
    };
    let q = [1.2 * 0.6, 1.2 * 0.6 + 0.7, -1.2 * 0.8, -1.2 * 0.8];
    let mut a = State::new(0.0, q, [0.0; 4]);
    let mut b = a;
    let mut sa = Integrator::<Double, GaussLobatto<2>>::new(sys, 0.01).unwrap();
    let mut sb = Integrator::<DoubleByHand, GaussLobatto<2>>::new(hand, 0.01).unwrap();
    for _ in 0..200 {
        sa.step(&mut a).unwrap();
        sb.step(&mut b).unwrap();
    }
    let diff = (a.q - b.q).amax().max((a.v - b.v).amax());
    assert!(diff < 1e-13, "{diff:e}");
    // A non-finite element is named in the error, and the state is kept.
    sa.system_mut().m[1] = f64::NAN;
    let before = a;
    assert_eq!(
        sa.step(&mut a),
        Err(spark::Error::NonFiniteParameter { name: "m[1]" })
    );
    assert_eq!(a, before);
}
