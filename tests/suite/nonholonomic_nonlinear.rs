//! A nonholonomic constraint nonlinear in the velocities: a particle in an anisotropic
//! potential whose speed in the (q1, q2) plane is held at 1 by an ideal constraint force
//! (`k = ½(v1² + v2² − 1)`, reaction `−k_vᵀψ = −ψ (v1, v2, 0)`). The step's Newton matrix then
//! needs the second derivatives of `k_vᵀψ` in `v` (`hess_vv`), which no affine constraint
//! exercises.
//!
//! Reference: RK4 on the index-reduced ODE, independent of spark: differentiating `k` along the
//! motion gives `ψ = −(v1 ∂U/∂q1 + v2 ∂U/∂q2) / (v1² + v2²)`.

use crate::common;

use spark::{Emprk, GaussLobatto, Integrator, LobattoIIIAB, Method, State};

spark::mechanics! {
    /// Unit mass, U = ½ q1² + q2² + ½ q3², planar speed held at 1.
    pub struct SpeedControlled {
        coordinates: [q1, q2, q3],
        velocities: [v1, v2, v3],
        lagrangian: 0.5 * (v1.powi(2) + v2.powi(2) + v3.powi(2))
            - (0.5 * q1.powi(2) + q2.powi(2) + 0.5 * q3.powi(2)),
        nonholonomic: [0.5 * (v1.powi(2) + v2.powi(2) - 1.0)],
    }
}

const T_END: f64 = 2.0;

fn start() -> State<3> {
    State::new(0.0, [1.0, 0.0, 0.0], [0.0, 1.0, 0.5])
}

/// `(q, v)` at `T_END` by RK4 on the index-reduced ODE with `n` steps.
fn reference(n: usize) -> [f64; 6] {
    let f = |y: &[f64; 6]| {
        let (q, v) = (&y[..3], &y[3..]);
        let grad = [q[0], 2.0 * q[1], q[2]];
        let psi = -(v[0] * grad[0] + v[1] * grad[1]) / (v[0] * v[0] + v[1] * v[1]);
        [
            v[0],
            v[1],
            v[2],
            -grad[0] - psi * v[0],
            -grad[1] - psi * v[1],
            -grad[2],
        ]
    };
    let s = start();
    common::rk4(
        f,
        [s.q[0], s.q[1], s.q[2], s.v[0], s.v[1], s.v[2]],
        T_END,
        n,
    )
}

/// Error at `T_END` against `exact`, checking `|k|` after every step.
fn error<Meth: Method>(h: f64, exact: &[f64; 6]) -> f64 {
    let mut sim = Integrator::<SpeedControlled, Meth>::new(SpeedControlled {}, h).unwrap();
    let mut s = start();
    for _ in 0..(T_END / h).round() as usize {
        sim.step(&mut s).unwrap();
        let k = (0.5 * (s.v[0].powi(2) + s.v[1].powi(2) - 1.0)).abs();
        assert!(k < 1e-12, "|k| = {k:e} after a step");
        assert!(sim.constraint_residual(&s).1 < 1e-12);
    }
    (0..3).fold(0.0f64, |m, i| {
        m.max((s.q[i] - exact[i]).abs())
            .max((s.v[i] - exact[3 + i]).abs())
    })
}

#[test]
fn orders_with_a_constraint_nonlinear_in_v() {
    let exact = reference(40_000);
    // The reference's own error (RK4, h = 5e-5) is below 1e-15; check it against half the steps.
    let coarse = reference(20_000);
    let ref_err = (0..6).fold(0.0f64, |m, i| m.max((exact[i] - coarse[i]).abs()));
    assert!(ref_err < 1e-13, "reference not converged: {ref_err:e}");

    let hs = [0.2, 0.1, 0.05, 0.025];
    let errs: Vec<f64> = hs
        .iter()
        .map(|&h| error::<GaussLobatto<1>>(h, &exact))
        .collect();
    common::assert_order("nonlinear k, GaussLobatto<1>", 2.0, &hs, &errs);
    let errs: Vec<f64> = hs
        .iter()
        .map(|&h| error::<GaussLobatto<2>>(h, &exact))
        .collect();
    common::assert_order("nonlinear k, GaussLobatto<2>", 4.0, &hs, &errs);
    let hs3 = [0.2, 0.1, 0.05];
    let errs: Vec<f64> = hs3
        .iter()
        .map(|&h| error::<GaussLobatto<3>>(h, &exact))
        .collect();
    common::assert_order("nonlinear k, GaussLobatto<3>", 6.0, &hs3, &errs);
    let errs: Vec<f64> = hs.iter().map(|&h| error::<Emprk<2>>(h, &exact)).collect();
    common::assert_order("nonlinear k, Emprk<2>", 4.0, &hs, &errs);
    let errs: Vec<f64> = hs
        .iter()
        .map(|&h| error::<LobattoIIIAB<3>>(h, &exact))
        .collect();
    common::assert_order("nonlinear k, LobattoIIIAB<3>", 4.0, &hs, &errs);
}
