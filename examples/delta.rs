//! A Delta parallel robot read from `tests/models/delta.xml` (benches/reference/delta_mjcf.py):
//! three arms on motors, forearms as universal-universal chains (the parallelograms' kinematic
//! equivalent), a platform that only translates; fifteen hinges and two welds (three closed
//! legs). A joint-space PD law on the arms tracks the arm angles that the Delta's inverse
//! kinematics gives for a circle of the platform. Reports the closure residual after every
//! step and the platform's tracking error (the platform's centre from the three arm angles by
//! the Delta's forward kinematics, three spheres), draws the platform path to
//! `docs/figures/delta_platform_path.svg`, and writes the motion as a self-contained HTML
//! animation `examples/out/delta.html` and, with the feature `rerun`, a Rerun recording
//! `examples/out/delta.rrd` (`rerun examples/out/delta.rrd`), with the closure residual and the
//! tracking error as time series.
//!
//! `cargo run --release -p spark-examples --example delta [--features rerun]`

use spark::{GaussLobatto, Integrator, State};

include!("models/plot.rs");

// Relative to this crate's Cargo.toml (examples/): the file lives in tests/models/.
spark::mechanics! {
    /// The Delta robot of `tests/models/delta.xml`.
    pub struct Delta {
        mjcf: "../tests/models/delta.xml",
    }
}

const R_BASE: f64 = 0.2;
const R_PLATFORM: f64 = 0.05;
const ARM: f64 = 0.2;
const FOREARM: f64 = 0.45;
/// The arms' angle below the horizontal at `qpos0`.
const TILT: f64 = std::f64::consts::PI / 6.0;

type V3 = [f64; 3];

fn sub(a: V3, b: V3) -> V3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn dot(a: V3, b: V3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn cross(a: V3, b: V3) -> V3 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn scale(s: f64, a: V3) -> V3 {
    [s * a[0], s * a[1], s * a[2]]
}

fn add(a: V3, b: V3) -> V3 {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

/// Leg `i`'s radial direction.
fn radial(i: usize) -> V3 {
    let phi = std::f64::consts::TAU * i as f64 / 3.0;
    [phi.cos(), phi.sin(), 0.0]
}

/// The elbow of leg `i` at arm coordinate `q` (a rotation about the arm's tangent axis that
/// turns the arm downwards).
fn elbow(i: usize, q: f64) -> V3 {
    let e = radial(i);
    let b = TILT + q;
    add(scale(R_BASE + ARM * b.cos(), e), [0.0, 0.0, -ARM * b.sin()])
}

/// The platform's centre from the three arm coordinates: the lower intersection of the spheres
/// of radius FOREARM about the elbows, each moved in by the platform radius.
fn forward(q: [f64; 3]) -> V3 {
    let s: Vec<V3> = (0..3)
        .map(|i| sub(elbow(i, q[i]), scale(R_PLATFORM, radial(i))))
        .collect();
    // Trilateration in the frame of the three centres.
    let ex = {
        let d = sub(s[1], s[0]);
        scale(1.0 / dot(d, d).sqrt(), d)
    };
    let i = dot(ex, sub(s[2], s[0]));
    let ey = {
        let d = sub(sub(s[2], s[0]), scale(i, ex));
        scale(1.0 / dot(d, d).sqrt(), d)
    };
    let ez = cross(ex, ey);
    let d = dot(sub(s[1], s[0]), sub(s[1], s[0])).sqrt();
    let j = dot(ey, sub(s[2], s[0]));
    let x = d / 2.0;
    let y = (i * i + j * j) / (2.0 * j) - i * x / j;
    let z = (FOREARM * FOREARM - x * x - y * y).sqrt();
    let p = add(s[0], add(scale(x, ex), scale(y, ey)));
    let below = if ez[2] < 0.0 { 1.0 } else { -1.0 };
    add(p, scale(below * z, ez))
}

/// The arm coordinates that put the platform's centre at `c` (the elbows outward).
fn inverse(c: V3) -> [f64; 3] {
    std::array::from_fn(|i| {
        let e = radial(i);
        let d = sub(add(c, scale(R_PLATFORM, e)), scale(R_BASE, e));
        let (dr, dz) = (dot(d, e), d[2]);
        // |ARM (cos b e − sin b z) − d| = FOREARM:  dr cos b − dz sin b = k.
        let k = (ARM * ARM + dot(d, d) - FOREARM * FOREARM) / (2.0 * ARM);
        let a = dr.hypot(dz);
        let delta = dz.atan2(dr);
        -(k / a).acos() - delta - TILT
    })
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!(
        "{} coordinates, {} closure rows, sparse factors: {}",
        Delta::COORDINATE_NAMES.len(),
        Delta::HOLONOMIC_CONSTRAINTS,
        <Delta as spark::Lagrangian<15, 12, 0>>::SPARSE_SADDLE
    );
    let home = forward([0.0; 3]);
    let back = inverse(home);
    println!(
        "platform at qpos0: ({:.4}, {:.4}, {:.4}) m; inverse kinematics returns arm angles {:.1e} from 0",
        home[0],
        home[1],
        home[2],
        back.iter().fold(0.0f64, |m, x| m.max(x.abs()))
    );
    // A circle of radius 6 cm through the home position, 2 s a turn, 5 cm above it.
    let target = |t: f64| {
        let w = std::f64::consts::PI;
        let lift = 0.05 * (1.0 - (-2.0 * t).exp());
        [
            home[0] + 0.06 * (w * t).sin(),
            home[1] + 0.06 * (1.0 - (w * t).cos()),
            home[2] + lift,
        ]
    };
    let (kp, kd) = (200.0, 2.0);
    let h = 0.002;
    let mut sim = Integrator::<Delta, GaussLobatto<2>>::new(Delta::default(), h)?;
    let arms = ["arm_0", "arm_1", "arm_2"].map(|n| {
        Delta::COORDINATE_NAMES
            .iter()
            .position(|m| *m == n)
            .expect("arm joint")
    });
    let mut s = State::new(0.0, Delta::REFERENCE_CONFIGURATION, [0.0; 15]);
    let (mut closure, mut worst_track, mut late_track) = (0.0f64, 0.0f64, 0.0f64);
    let (mut path, mut wanted) = (Vec::new(), Vec::new());
    let mut movie =
        spark_viewer::Recording::new("Delta robot (tests/models/delta.xml)", &Delta::GEOMETRY);
    let steps = (10.0 / h) as usize;
    for n in 0..steps {
        let goal = inverse(target(s.t + h));
        let d = sim.system_mut();
        let u: [f64; 3] =
            std::array::from_fn(|i| kp * (goal[i] - s.q[arms[i]]) - kd * s.v[arms[i]]);
        (d.arm_0_motor, d.arm_1_motor, d.arm_2_motor) = (u[0], u[1], u[2]);
        sim.step(&mut s)
            .map_err(|e| format!("step failed at t = {}: {e}", s.t))?;
        closure = closure.max(sim.constraint_residual(&s).0);
        let c = forward(arms.map(|k| s.q[k]));
        let want = target(s.t);
        let err = dot(sub(c, want), sub(c, want)).sqrt();
        worst_track = worst_track.max(err);
        if s.t > 2.0 {
            late_track = late_track.max(err);
        }
        if n % 5 == 0 {
            path.push((c[0], c[1]));
            wanted.push((want[0], want[1]));
            movie.frame(s.t, &Delta::body_poses(&s.q))?;
            movie.scalar("closure residual (m)", s.t, sim.constraint_residual(&s).0)?;
            movie.scalar("tracking error (m)", s.t, err)?;
        }
    }
    println!(
        "10 s of PD tracking (kp = {kp}, kd = {kd}, GL2, h = {h}): worst closure residual {closure:.1e} m; \
         platform tracking error {worst_track:.1e} m (worst), {late_track:.1e} m after t = 2 s"
    );
    // The same run without the full-Newton fallback: does the simplified iteration converge?
    let no_fallback = spark::Options {
        full_newton_fallback: false,
        ..spark::Options::DEFAULT
    };
    let mut sim =
        Integrator::<Delta, GaussLobatto<2>>::new(Delta::default(), h)?.with_options(no_fallback);
    let mut s = State::new(0.0, Delta::REFERENCE_CONFIGURATION, [0.0; 15]);
    let mut failed = None;
    for _ in 0..steps {
        let goal = inverse(target(s.t + h));
        let d = sim.system_mut();
        let u: [f64; 3] =
            std::array::from_fn(|i| kp * (goal[i] - s.q[arms[i]]) - kd * s.v[arms[i]]);
        (d.arm_0_motor, d.arm_1_motor, d.arm_2_motor) = (u[0], u[1], u[2]);
        if let Err(e) = sim.step(&mut s) {
            failed = Some(e);
            break;
        }
    }
    match failed {
        None => println!("without the full-Newton fallback: 10 s stepped as well"),
        Some(e) => println!(
            "without the full-Newton fallback: the step fails at t = {}: {e}",
            s.t
        ),
    }

    use plotters::style::RGBColor;
    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../docs/figures/delta_platform_path.svg"
    );
    plot::lines(
        file,
        "Delta robot from MJCF under arm PD control: platform centre, top view",
        ("x (m)", plot::Axis::Linear),
        ("y (m)", plot::Axis::Linear),
        &[
            ("target circle", &wanted, RGBColor(160, 160, 160)),
            ("simulated platform", &path, RGBColor(31, 119, 180)),
        ],
    )?;
    println!("wrote docs/figures/delta_platform_path.svg");
    let out = concat!(env!("CARGO_MANIFEST_DIR"), "/out");
    movie.write_html(format!("{out}/delta.html"))?;
    println!("wrote examples/out/delta.html");
    // The Rerun recording needs the `rerun` crate (large): `--features rerun`.
    #[cfg(feature = "rerun")]
    {
        movie.write_rrd(format!("{out}/delta.rrd"))?;
        println!("wrote examples/out/delta.rrd");
    }
    #[cfg(not(feature = "rerun"))]
    println!("examples/out/delta.rrd: run with `--features rerun` to write the Rerun recording");
    Ok(())
}
