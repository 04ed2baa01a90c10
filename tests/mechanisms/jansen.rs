//! Theo Jansen's linkage from `tests/models/jansen_leg.xml` (benches/reference/jansen_mjcf.py,
//! the holy numbers in centimetres): its closures against the independent kinematics of
//! `tests/data/jansen_kinematics.csv` (benches/reference/jansen.py), and a driven leg keeping
//! every bar's length to round-off while its foot traces the recorded path.

use spark::{GaussLobatto, Integrator, State};

use crate::common::reference::Table;

include!("../../examples/models/jansen_geometry.rs");

spark::mechanics! {
    /// One Jansen leg: seven hinges, three loop closures, a motor on the crank.
    pub struct JansenLeg {
        mjcf: "tests/models/jansen_leg.xml",
    }
}

/// The joints of the recorded leg at row `r` (metres).
fn recorded(t: &Table, r: usize) -> linkage::Joints {
    let p = |name: &str| {
        [
            0.01 * t.f64(r, &format!("{name}_x")),
            0.01 * t.f64(r, &format!("{name}_y")),
        ]
    };
    linkage::Joints {
        o: p("O"),
        p: p("P"),
        pin: p("crank"),
        upper: p("upper"),
        back: p("back"),
        lower: p("lower"),
        knee: p("knee"),
        foot: p("foot"),
    }
}

#[test]
fn the_file_has_one_degree_of_freedom_and_a_motor() {
    assert_eq!(
        JansenLeg::COORDINATE_NAMES,
        [
            "crank",
            "bar_j",
            "bar_k",
            "triangle_bde",
            "bar_f",
            "bar_c",
            "triangle_ghi"
        ]
    );
    // Three planar connects: their out-of-plane rows are dropped, six rows remain.
    assert_eq!(JansenLeg::HOLONOMIC_CONSTRAINTS, 6);
    assert_eq!(JansenLeg::INPUT_NAMES, ["drive"]);
    assert_eq!(JansenLeg::REFERENCE_CONFIGURATION, [0.0; 7]);
}

#[test]
fn recorded_poses_satisfy_the_model_closures() {
    let t = Table::read("jansen_kinematics.csv").unwrap();
    assert_eq!(t.len(), 360);
    let sim = Integrator::<JansenLeg, GaussLobatto<2>>::new(JansenLeg::default(), 0.01).unwrap();
    // The file is posed at crank angle 0, the recorded row 0; the geometry module agrees.
    let reference = recorded(&t, 0);
    let mine = linkage::pose(0.0, false);
    for (a, b) in [(reference.foot, mine.foot), (reference.knee, mine.knee)] {
        assert!(linkage::dist(a, b) < 1e-15, "{a:?} {b:?}");
    }
    let mut worst = (0.0f64, 0.0f64, 0.0f64);
    for r in 0..t.len() {
        let pose = recorded(&t, r);
        let q = linkage::coordinates(&reference, &pose);
        // The recorded crank angle is the crank's coordinate.
        assert!((q[0] - t.f64(r, "theta")).sin().abs() < 1e-14, "row {r}");
        let s = State::new(0.0, q, [0.0; 7]);
        // The model's closure rows vanish at every recorded pose: its bars are the holy numbers.
        worst.0 = worst.0.max(sim.constraint_residual(&s).0);
        // Forward kinematics of those coordinates return the recorded joints.
        let (x, _) = linkage::forward(&reference, &q);
        worst.1 = worst.1.max(linkage::dist(x.foot, pose.foot));
        worst.2 = worst.2.max(
            linkage::bar_errors(&pose)
                .iter()
                .fold(0.0f64, |m, e| m.max(e.abs())),
        );
    }
    assert!(worst.0 < 1e-14, "closure residual {:e} m", worst.0);
    assert!(worst.1 < 1e-14, "foot {:e} m", worst.1);
    assert!(worst.2 < 1e-14, "recorded bars {:e} m", worst.2);
}

/// The recorded foot at crank angle `theta` (cubic Lagrange interpolation over the 1° rows).
fn recorded_foot(t: &Table, theta: f64) -> [f64; 2] {
    let n = t.len();
    let step = std::f64::consts::TAU / n as f64;
    let x = theta.rem_euclid(std::f64::consts::TAU) / step;
    let i = x.floor() as isize;
    let s = x - i as f64;
    let mut foot = [0.0; 2];
    for node in -1..=2 {
        let mut w = 1.0;
        for other in -1..=2 {
            if other != node {
                w *= (s - other as f64) / (node - other) as f64;
            }
        }
        let r = (i + node).rem_euclid(n as isize) as usize;
        foot[0] += w * 0.01 * t.f64(r, "foot_x");
        foot[1] += w * 0.01 * t.f64(r, "foot_y");
    }
    foot
}

#[test]
fn driven_leg_keeps_its_bars_and_walks_the_recorded_path() {
    let t = Table::read("jansen_kinematics.csv").unwrap();
    let reference = recorded(&t, 0);
    // A constant torque against the crank's damping (0.05 N m s): about 1 turn per second.
    let sys = JansenLeg {
        drive: 0.05 * std::f64::consts::TAU,
        ..JansenLeg::default()
    };
    let h = 0.002;
    let mut sim = Integrator::<JansenLeg, GaussLobatto<2>>::new(sys, h).unwrap();
    let mut s = State::new(0.0, JansenLeg::REFERENCE_CONFIGURATION, [0.0; 7]);
    let e0 = sim.energy(&s);
    let (mut worst_g, mut worst_bar, mut worst_foot) = (0.0f64, 0.0f64, 0.0f64);
    // ∫ d ω² dt by the trapezoidal rule.
    let mut dissipated = 0.0;
    for _ in 0..1500 {
        let w0 = s.v[0];
        sim.step(&mut s).unwrap();
        dissipated += 0.05 * 0.5 * h * (w0 * w0 + s.v[0] * s.v[0]);
        worst_g = worst_g.max(sim.constraint_residual(&s).0);
        let q: [f64; 7] = s.q.into();
        let (x, gaps) = linkage::forward(&reference, &q);
        let bars = linkage::bar_errors(&x);
        worst_bar = bars
            .iter()
            .chain(gaps.iter())
            .fold(worst_bar, |m, e| m.max(e.abs()));
        worst_foot = worst_foot.max(linkage::dist(x.foot, recorded_foot(&t, q[0])));
    }
    assert!(worst_g < 1e-12, "closure residual {worst_g:e} m");
    assert!(worst_bar < 1e-12, "bar lengths and gaps {worst_bar:e} m");
    // Interpolation over 1° rows: about 1e-7 m.
    assert!(
        worst_foot < 1e-6,
        "foot off the recorded path by {worst_foot:e} m"
    );
    // The crank turned more than once, forward.
    assert!(s.q[0] > std::f64::consts::TAU, "crank angle {}", s.q[0]);
    // Energy balance: E(T) − E(0) = τ (θ(T) − θ(0)) − ∫ d ω² dt.
    let work = sim.system().drive * s.q[0];
    let balance = sim.energy(&s) - e0 - work + dissipated;
    assert!(
        balance.abs() < 1e-4 * work,
        "energy balance {balance:e} J of work {work:e} J"
    );
}

/// Started from rest at its reference pose (all angles zero), the leg's simplified Newton
/// iteration alone converges: its updates reach the rounding of the closure rows (about 1e-12
/// m/s, g/h with |g| ~ ε × the bars' lengths) within three iterations, which the step must
/// accept as converged although |q0| = 0. Without the full-Newton fallback its first step used
/// to fail with `NoConvergence` (updates stalled at 4e2 times the tolerance).
#[test]
fn leg_steps_from_rest_without_the_full_newton_fallback() {
    let sys = JansenLeg {
        drive: 0.05 * std::f64::consts::TAU,
        ..JansenLeg::default()
    };
    let options = spark::Options {
        full_newton_fallback: false,
        ..spark::Options::DEFAULT
    };
    let mut sim = Integrator::<JansenLeg, GaussLobatto<2>>::new(sys, 0.002)
        .unwrap()
        .with_options(options);
    let mut s = State::new(0.0, [0.0; 7], [0.0; 7]);
    let mut worst_g = 0.0f64;
    for n in 0..500 {
        sim.step(&mut s)
            .unwrap_or_else(|e| panic!("step {n} at t = {}: {e}", s.t));
        assert!(sim.last_step_stats().stage_iterations <= 10);
        worst_g = worst_g.max(sim.constraint_residual(&s).0);
    }
    assert!(worst_g < 1e-12, "closure residual {worst_g:e} m");
    assert!(s.v[0] > 0.0, "crank speed {}", s.v[0]);
}
