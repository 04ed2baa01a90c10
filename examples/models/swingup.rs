// The cart-pole swing-up problem shared by `cartpole_swingup` and `cartpole_swingup_bench`
// (included with `include!` after `models/cartpole.rs`): its costs, bounds and start.

#[allow(dead_code)]
mod swingup {
    use spark::control::cost::{Cost, Quadratic, StageCost, TerminalCost};
    use spark::nalgebra::{SMatrix, SVector};
    use spark::State;

    use super::cartpole::{cartesian, CartPole, TC, V4};

    /// Swing-up intervals (3 s).
    pub const H_SWING: usize = 150;
    /// The input bound (N).
    pub const U_MAX: f64 = 20.0;
    /// The swing-up plan holds upright from this time on (s).
    pub const SWING_TIME: f64 = 1.5;

    /// The pole tip's offset from upright, `(x − xc, y − l)`, weighed with `w`, the cart
    /// position with `w_cart`, the velocities with `w_vel`: a quadratic form on `[q; v]`.
    pub fn weights(w: f64, w_cart: f64, w_vel: f64) -> SMatrix<f64, 6, 6> {
        let mut q = SMatrix::<f64, 6, 6>::zeros();
        q[(0, 0)] = w + w_cart;
        q[(1, 1)] = w;
        q[(0, 1)] = -w;
        q[(1, 0)] = -w;
        q[(2, 2)] = w;
        for i in 3..6 {
            q[(i, i)] = w_vel;
        }
        q
    }

    /// The swing-up's costs: light weights while swinging, then upright held (`hold` on the
    /// state) from interval `hold_from` on: a time-varying stage cost, through the `Cost` trait.
    pub struct SwingUp {
        pub swing: Quadratic<6, 1>,
        pub hold: SMatrix<f64, 6, 6>,
        pub hold_from: usize,
    }

    impl Cost<3, 1, 6> for SwingUp {
        fn stage(&self, k: usize, x: &State<3>, u: &SVector<f64, 1>) -> StageCost<6, 1> {
            if k < self.hold_from {
                self.swing.stage(k, x, u)
            } else {
                Quadratic {
                    q: self.hold,
                    ..self.swing
                }
                .stage(k, x, u)
            }
        }
        fn terminal(&self, x: &State<3>) -> TerminalCost<6> {
            Cost::<3, 1, 6>::terminal(&self.swing, x)
        }
    }

    /// Upright at rest over the cart at the origin.
    pub fn upright(l: f64) -> SVector<f64, 6> {
        SVector::from([0.0, 0.0, l, 0.0, 0.0, 0.0])
    }

    /// The swing-up's costs for the pole of `p`.
    pub fn cost(p: &CartPole) -> SwingUp {
        SwingUp {
            swing: Quadratic {
                q: weights(0.01, 0.0, 0.001),
                r: SMatrix::identity() * 2e-3,
                qf: weights(1e3, 10.0, 10.0),
                x_ref: upright(p.l),
                u_ref: SVector::zeros(),
            },
            hold: weights(100.0, 1.0, 1.0),
            hold_from: (SWING_TIME / TC).round() as usize,
        }
    }

    /// Hanging at rest over the cart at the origin.
    pub fn hanging(p: &CartPole) -> State<3> {
        cartesian(p, 0.0, &V4::new(0.0, core::f64::consts::PI, 0.0, 0.0))
    }
}
