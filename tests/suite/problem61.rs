//! Test problem (6.1) through the macro's DAE form: order 2s in y and z against the exact
//! solution (000 figures 6.1, 6.2), for s = 1, 2, 3.

use crate::common;

include!("../../examples/models/problem61.rs");

use spark::{dae, GaussLobatto, Integrator, Method, Options};

fn errors<Meth: Method>(h: f64) -> (f64, f64) {
    // The default Newton tolerance (1e-12 relative per step) accumulates to about 3e-11 at
    // t = 1: below that the algebraic error, not the method, would be measured.
    let options = Options {
        tolerance: 1e-14,
        ..Options::default()
    };
    let mut sim = Integrator::<Problem61, Meth>::new(Problem61 {}, h)
        .unwrap()
        .with_options(options);
    // λ0 = 1 selects the exact branch (λ² + λ − 2 = 0 also has λ = −2).
    let mut s = dae::State::new(0.0, [1.0, 1.0], [1.0, 1.0], [1.0]);
    for _ in 0..(1.0 / h).round() as usize {
        sim.step(&mut s).unwrap();
        let (g, w) = sim.constraint_residual(&s);
        assert!(g < 1e-12 && w < 1e-11, "{g:e} {w:e}");
    }
    let (a, b) = (2f64.exp(), (-1f64).exp());
    let ey = ((s.y[0] - a).powi(2) + (s.y[1] - b).powi(2)).sqrt();
    let ez = ((s.z[0] - a).powi(2) + (s.z[1] - b).powi(2)).sqrt();
    (ey, ez)
}

fn check<Meth: Method>(hs: &[f64]) {
    let e: Vec<(f64, f64)> = hs.iter().map(|&h| errors::<Meth>(h)).collect();
    let ey: Vec<f64> = e.iter().map(|x| x.0).collect();
    let ez: Vec<f64> = e.iter().map(|x| x.1).collect();
    let p = Meth::ORDER as f64;
    common::assert_order(&format!("(6.1) y, order {p}"), p, hs, &ey);
    common::assert_order(&format!("(6.1) z, order {p}"), p, hs, &ez);
}

#[test]
fn order_2s_in_y_and_z() {
    check::<GaussLobatto<1>>(&[1.0 / 20.0, 1.0 / 40.0, 1.0 / 80.0, 1.0 / 160.0]);
    check::<GaussLobatto<2>>(&[1.0 / 10.0, 1.0 / 20.0, 1.0 / 40.0, 1.0 / 80.0]);
    check::<GaussLobatto<3>>(&[1.0 / 10.0, 1.0 / 20.0, 1.0 / 40.0]);
}

/// Dense output and events for DAE states: `simulate` on (6.1) reports `y`, `z` and `λ` at
/// requested times against the exact solution, and locates `y2 = 1/2` (t = ln 2) to 1e-12.
#[test]
fn dense_output_and_events_follow_the_exact_solution() {
    use spark::simulate::{Direction, EventOn, ReportOn};
    let options = Options {
        rtol: 1e-12,
        atol: 1e-12,
        tolerance: 1e-14,
        ..Options::default()
    };
    let mut sim = Integrator::<Problem61, GaussLobatto<3>>::new(Problem61 {}, 0.05)
        .unwrap()
        .with_options(options);
    let mut s = dae::State::new(0.0, [1.0, 1.0], [1.0, 1.0], [1.0]);
    let half = |s: &dae::State<2, 1>| s.y[1] - 0.5;
    let events = [EventOn {
        function: &half,
        direction: Direction::Falling,
        terminal: false,
    }];
    let outputs: Vec<f64> = (1..10).map(|k| 0.1 * k as f64 + 0.0123).collect();
    let (mut worst, mut reported, mut event_time) = (0.0f64, 0, None);
    let stats = sim
        .simulate(&mut s, 1.0, &outputs, &events, |r| match r {
            ReportOn::Output(x) => {
                let t = x.t;
                let (a, b) = ((2.0 * t).exp(), (-t).exp());
                let e = [
                    x.y[0] - a,
                    x.y[1] - b,
                    x.z[0] - a,
                    x.z[1] - b,
                    x.lambda[0] - t.exp(),
                ];
                worst = e.iter().fold(worst, |m, d| m.max(d.abs()));
                reported += 1;
            }
            ReportOn::Event { state, .. } => event_time = Some(state.t),
        })
        .unwrap();
    let at = event_time.expect("no event");
    eprintln!(
        "worst dense error {worst:e}, event at {at} (ln 2 = {}), {stats:?}",
        2f64.ln()
    );
    assert_eq!(reported, outputs.len());
    assert!(worst < 1e-9, "{worst:e}");
    assert!((at - 2f64.ln()).abs() < 1e-12, "{:e}", at - 2f64.ln());
}
