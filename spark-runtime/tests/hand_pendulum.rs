//! The runtime on a hand-written model (no macro): the Cartesian pendulum.

use nalgebra::{SMatrix, SVector};
use spark_runtime::{
    ConstraintJacobian, DynamicsJacobian, Error, GaussLobatto, Integrator, Lagrangian, Method,
    Model, State, VelocityConstraintJacobian,
};

#[derive(Clone, Copy)]
struct Pendulum {
    m: f64,
    l: f64,
    g: f64,
}

type V2 = SVector<f64, 2>;

impl Model for Pendulum {
    fn first_non_finite_parameter(&self) -> Option<&'static str> {
        [("m", self.m), ("l", self.l), ("g", self.g)]
            .into_iter()
            .find(|(_, x)| !x.is_finite())
            .map(|(n, _)| n)
    }
}

impl Lagrangian<2, 1> for Pendulum {
    fn lagrangian(&self, _t: f64, q: &V2, v: &V2) -> f64 {
        0.5 * self.m * v.norm_squared() - self.m * self.g * q[1]
    }
    fn momentum_force(&self, _t: f64, _q: &V2, v: &V2) -> (V2, V2) {
        (v * self.m, V2::new(0.0, -self.m * self.g))
    }
    fn dynamics_jacobian(&self, t: f64, q: &V2, v: &V2) -> DynamicsJacobian<2> {
        let (p, f) = self.momentum_force(t, q, v);
        DynamicsJacobian {
            p,
            f,
            lvv: SMatrix::identity() * self.m,
            lvq: SMatrix::zeros(),
            lqq: SMatrix::zeros(),
        }
    }
    fn constraints(&self, _t: f64, q: &V2) -> SVector<f64, 1> {
        SVector::from([q.norm_squared() - self.l * self.l])
    }
    fn constraint_jacobian(
        &self,
        t: f64,
        q: &V2,
        mu: &SVector<f64, 1>,
    ) -> ConstraintJacobian<2, 1> {
        ConstraintJacobian {
            g: self.constraints(t, q),
            gq: SMatrix::from([[2.0 * q[0]], [2.0 * q[1]]]),
            hess_mu: SMatrix::identity() * (2.0 * mu[0]),
        }
    }
    fn velocity_constraint_jacobian(
        &self,
        _t: f64,
        q: &V2,
        v: &V2,
    ) -> VelocityConstraintJacobian<2, 1> {
        VelocityConstraintJacobian {
            w: SVector::from([2.0 * q.dot(v)]),
            wq: SMatrix::from([[2.0 * v[0]], [2.0 * v[1]]]),
            wv: SMatrix::from([[2.0 * q[0]], [2.0 * q[1]]]),
        }
    }
}

/// θ'' = -(g/l) sin θ with classical RK4 at a tiny step: an independent reference.
fn reference(theta0: f64, t_end: f64, g_over_l: f64) -> (f64, f64) {
    let n = 200_000;
    let h = t_end / n as f64;
    let f = |th: f64, om: f64| (om, -g_over_l * th.sin());
    let (mut th, mut om) = (theta0, 0.0);
    for _ in 0..n {
        let k1 = f(th, om);
        let k2 = f(th + 0.5 * h * k1.0, om + 0.5 * h * k1.1);
        let k3 = f(th + 0.5 * h * k2.0, om + 0.5 * h * k2.1);
        let k4 = f(th + h * k3.0, om + h * k3.1);
        th += h / 6.0 * (k1.0 + 2.0 * k2.0 + 2.0 * k3.0 + k4.0);
        om += h / 6.0 * (k1.1 + 2.0 * k2.1 + 2.0 * k3.1 + k4.1);
    }
    (th, om)
}

fn error_at<Meth: Method>(h: f64, t_end: f64) -> f64 {
    let sys = Pendulum {
        m: 1.0,
        l: 1.0,
        g: 1.0,
    };
    let mut sim = Integrator::<Pendulum, Meth>::new(sys, h).unwrap();
    let mut s = State::new(0.0, [1.0, 0.0], [0.0, 0.0]);
    let steps = (t_end / h).round() as usize;
    for _ in 0..steps {
        sim.step(&mut s).unwrap();
        let (g, w) = sim.constraint_residual(&s);
        assert!(g < 1e-12 && w < 1e-12, "residuals {g:e} {w:e}");
    }
    let (th, om) = reference(core::f64::consts::FRAC_PI_2, t_end, 1.0);
    let q = [th.sin(), -th.cos()];
    let v = [om * th.cos(), om * th.sin()];
    (s.q[0] - q[0])
        .abs()
        .max((s.q[1] - q[1]).abs())
        .max((s.v[0] - v[0]).abs())
        .max((s.v[1] - v[1]).abs())
}

fn slope<Meth: Method>(hs: &[f64]) -> Vec<f64> {
    let errs: Vec<f64> = hs.iter().map(|&h| error_at::<Meth>(h, 2.0)).collect();
    eprintln!("{errs:?}");
    errs.windows(2)
        .zip(hs.windows(2))
        .map(|(e, h)| (e[0] / e[1]).ln() / (h[0] / h[1]).ln())
        .collect()
}

#[test]
fn orders_are_2s() {
    for (p, s) in [
        (2.0, slope::<GaussLobatto<1>>(&[0.1, 0.05, 0.025])),
        (4.0, slope::<GaussLobatto<2>>(&[0.2, 0.1, 0.05])),
        (6.0, slope::<GaussLobatto<3>>(&[0.4, 0.2, 0.1])),
    ] {
        eprintln!("order {p}: slopes {s:?}");
        for x in s {
            assert!((x - p).abs() < 0.25, "expected {p}, slope {x}");
        }
    }
}

#[test]
fn inconsistent_state_is_rejected_and_kept() {
    let sys = Pendulum {
        m: 1.0,
        l: 1.0,
        g: 1.0,
    };
    let mut sim = Integrator::<Pendulum, GaussLobatto<2>>::new(sys, 0.01).unwrap();
    let mut s = State::new(0.0, [1.1, 0.0], [0.0, 0.3]);
    let before = s;
    assert!(matches!(
        sim.step(&mut s),
        Err(Error::InconsistentState { .. })
    ));
    assert_eq!(s, before);
    sim.project(&mut s).unwrap();
    let (g, w) = sim.constraint_residual(&s);
    assert!(g < 1e-14 && w < 1e-14, "{g:e} {w:e}");
    sim.step(&mut s).unwrap();
}
