//! The runtime on a hand-written model (no macro): the Cartesian pendulum.

use spark_runtime::{Error, GaussLobatto, Integrator, Method, State};

#[path = "../models/pendulum.rs"]
mod pendulum;
use pendulum::{reference, Pendulum};

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
    let (th, om) = reference(core::f64::consts::FRAC_PI_2, 0.0, t_end, 1.0);
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
