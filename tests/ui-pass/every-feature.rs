//! Every DSL feature in one crate that denies all warnings: the expansion is warning-free.
#![deny(warnings)]

spark::mechanics! {
    /// A driven, damped-looking (but conservative) mechanism using every DSL feature.
    #[allow(clippy::approx_constant)]
    pub struct Everything {
        coordinates: [x, y, theta],
        velocities: [vx, vy, omega],
        parameters: [m = 1.0, l = 1.5, g = 9.81, a = -0.5, k, j = 2],
        definitions: {
            let r2 = x.powi(2) + y.powi(2);
            let drive = 0.1 * (2.0 * PI * t).sin();
        },
        lagrangian: {
            let ke = 0.5 * m * (vx.powi(2) + vy.powi(2)) + 0.5 * j * omega.powi(2);
            let pe = m * g * y + 0.5 * k * (theta - drive).powi(2)
                + a * sqrt(r2 + 1.0) + exp(-r2) + ln(2.0 + cos(theta))
                + tan(0.1 * theta) + asin(0.5 * theta.sin()) + acos(0.5 * theta.cos())
                + atan(x) + atan2(y, 2.0 + x.powi(2)) + y.atan2(3.0)
                + sinh(0.1 * x) + cosh(0.1 * y) + tanh(theta) + x.powf(2.0).powf(0.5 + 0.0 * y)
                + core::f64::consts::PI * theta.sqrt().powi(2) - 3 * x / (1.0 + r2);
            ke - pe
        },
        holonomic: [r2 - (l + 0.1 * t).powi(2)],
    }
}

use spark::{GaussLobatto, Integrator, State};

fn main() {
    let sys = Everything {
        m: 1.0,
        l: 1.5,
        g: 9.81,
        a: -0.5,
        k: 1.0,
        j: 2.0,
    };
    assert_eq!(Everything::COORDINATES, 3);
    assert_eq!(Everything::HOLONOMIC_CONSTRAINTS, 1);
    assert_eq!(Everything::PARAMETER_NAMES, ["m", "l", "g", "a", "k", "j"]);
    let sim = Integrator::<Everything, GaussLobatto<2>>::new(sys, 0.01).expect("valid step");
    let s = State::new(0.0, [1.5, 0.0, 0.5], [0.0, 0.0, 0.0]);
    let (g, _) = sim.constraint_residual(&s);
    assert!(g < 1e-12);
}
