//! The reference data in `tests/data/` (from the scripts in `benches/reference/`): every file
//! parses, its sizes match its header, every number is finite, the self-consistency residuals
//! its script recorded are at round-off, and the poses are rotations; the four-bar's poses close
//! its loop. The comparisons of spark's models with these data live with the models' tests.

use crate::common;

use common::reference::{poses, relative_error, samples, Table};

/// `(name, coordinates, inputs, input column prefix)` of every dynamics file.
const DYNAMICS: [(&str, usize, usize, &str); 5] = [
    ("panda", 7, 7, "tau"),
    ("ur5", 6, 6, "tau"),
    ("mjcf_arm", 6, 3, "ctrl"),
    ("four_bar", 3, 1, "ctrl"),
    ("delta_loop", 12, 3, "ctrl"),
];

fn dynamics(name: &str) -> Table {
    Table::read(&format!("{name}_dynamics.csv")).unwrap()
}

#[test]
fn dynamics_files_match_their_headers() {
    for (name, n, u, input) in DYNAMICS {
        let t = dynamics(name);
        let states = t.meta_f64("states") as usize;
        assert_eq!(t.len(), states, "{name}: rows");
        assert!(states >= 40, "{name}: {states} states");
        assert_eq!(t.meta_f64("coordinates") as usize, n, "{name}");
        assert_eq!(t.meta_words("joint_names").len(), n, "{name}: joint names");
        assert_eq!(t.count("q"), n, "{name}");
        assert_eq!(t.count("v"), n, "{name}");
        assert_eq!(t.count("a"), n, "{name}");
        assert_eq!(t.count(input), u, "{name}");
        assert!(
            t.meta("versions").contains("numpy"),
            "{name}: versions recorded"
        );
        for (r, row) in t.rows.iter().enumerate() {
            for (c, cell) in row.iter().enumerate() {
                let x: f64 = cell.parse().unwrap_or(f64::NAN);
                assert!(x.is_finite(), "{name}: row {r}, column {}", t.columns[c]);
            }
            assert!(t.f64(r, "kinetic") >= 0.0, "{name}: row {r}");
        }
    }
}

#[test]
fn typed_samples_read_back() {
    let panda = samples::<7, 7>(&dynamics("panda"), "tau");
    let ur5 = samples::<6, 6>(&dynamics("ur5"), "tau");
    let arm = samples::<6, 3>(&dynamics("mjcf_arm"), "ctrl");
    let loop4 = samples::<3, 1>(&dynamics("four_bar"), "ctrl");
    let delta = samples::<12, 3>(&dynamics("delta_loop"), "ctrl");
    for n in [panda.len(), ur5.len(), arm.len(), loop4.len(), delta.len()] {
        assert!(n >= 40, "{n} states");
    }
    // The Panda's URDF damping is recorded per joint (0.003 N m s on each of its 7 joints).
    let t = dynamics("panda");
    assert_eq!(t.vector::<7>(0, "damping"), [0.003; 7]);
    assert_eq!(t.meta_numbers("gravity"), [0.0, 0.0, -9.81]);
    assert_eq!(
        dynamics("mjcf_arm").meta_numbers("gravity"),
        [0.4, -0.3, -9.7]
    );
}

#[test]
fn recorded_self_consistency_is_at_round_off() {
    for (name, ..) in DYNAMICS {
        let t = dynamics(name);
        let residuals = t.residuals();
        assert!(residuals.len() >= 3, "{name}: {residuals:?}");
        for (key, r) in residuals {
            println!("{name}: {key} = {r:.3e}");
            assert!(r < 1e-12, "{name}: {key} = {r:e}");
        }
    }
}

#[test]
fn poses_are_rotations_for_every_body_and_state() {
    for (name, ..) in DYNAMICS {
        let t = Table::read(&format!("{name}_poses.csv")).unwrap();
        let states = dynamics(name).len();
        let bodies = t.meta_words("body_names");
        assert_eq!(bodies.len(), t.meta_f64("bodies") as usize, "{name}");
        assert_eq!(
            t.len(),
            states * bodies.len(),
            "{name}: one row per state and body"
        );
        let mut worst = 0.0f64;
        for (i, p) in poses(&t).iter().enumerate() {
            assert_eq!(p.state, i / bodies.len(), "{name}: row {i}");
            assert_eq!(p.body, bodies[i % bodies.len()], "{name}: row {i}");
            let r = p.rotation;
            for a in 0..3 {
                for b in 0..3 {
                    let dot: f64 = (0..3).map(|k| r[a][k] * r[b][k]).sum();
                    worst = worst.max((dot - f64::from(u8::from(a == b))).abs());
                }
            }
            let det = r[0][0] * (r[1][1] * r[2][2] - r[1][2] * r[2][1])
                - r[0][1] * (r[1][0] * r[2][2] - r[1][2] * r[2][0])
                + r[0][2] * (r[1][0] * r[2][1] - r[1][1] * r[2][0]);
            worst = worst.max((det - 1.0).abs());
            assert!(p.position.iter().all(|x| x.is_finite()));
        }
        println!("{name}: largest |R Rᵀ − I|, |det R − 1| = {worst:.1e}");
        assert!(worst < 1e-12, "{name}: {worst:e}");
    }
}

#[test]
fn four_bar_poses_close_the_loop() {
    // The rocker's tip, (0.8, 0, 0) in the rocker's frame, is the ground pivot (1, 0, 0).
    let t = Table::read("four_bar_poses.csv").unwrap();
    let mut worst = 0.0f64;
    for p in poses(&t).iter().filter(|p| p.body == "rocker") {
        for i in 0..3 {
            let tip = p.position[i] + p.rotation[i][0] * 0.8;
            worst = worst.max((tip - [1.0, 0.0, 0.0][i]).abs());
        }
    }
    println!("four-bar: largest loop gap in the poses {worst:.1e}");
    assert!(worst < 1e-12, "{worst:e}");
    // MuJoCo's soft loop differs from the exact accelerations (stored for comparison only).
    let d = dynamics("four_bar");
    assert!(d.meta("mujoco_relative_difference").starts_with("median"));
    let gaps: Vec<f64> = (0..d.len())
        .map(|r| relative_error(&d.vector::<3>(r, "mujoco_a"), &d.vector::<3>(r, "a")))
        .collect();
    let worst_gap = gaps.iter().fold(0.0f64, |m, g| m.max(*g));
    println!("four-bar: MuJoCo's soft loop against the exact accelerations, worst {worst_gap:.2e}");
    assert!(worst_gap > 1e-3, "the soft constraint is not the exact one");
}

#[test]
fn delta_poses_close_both_loops() {
    // The rods' tips, (0.45, 0, 0) in each rod's frame: rod 0's is the platform's origin, and
    // the three are the corners of the platform's equilateral triangle (radius 0.05).
    let t = Table::read("delta_loop_poses.csv").unwrap();
    let all = poses(&t);
    let tip = |state: usize, body: &str| -> [f64; 3] {
        all.iter()
            .find(|p| p.state == state && p.body == body)
            .unwrap()
            .point([0.45, 0.0, 0.0])
    };
    let dist = |a: [f64; 3], b: [f64; 3]| (0..3).map(|i| (a[i] - b[i]).powi(2)).sum::<f64>().sqrt();
    let side = 0.05 * 3f64.sqrt();
    let mut worst = 0.0f64;
    for s in 0..dynamics("delta_loop").len() {
        let (t0, t1, t2) = (tip(s, "rod_0"), tip(s, "rod_1"), tip(s, "rod_2"));
        let origin = all
            .iter()
            .find(|p| p.state == s && p.body == "platform")
            .unwrap()
            .position;
        worst = worst
            .max(dist(t0, origin))
            .max((dist(t0, t1) - side).abs())
            .max((dist(t1, t2) - side).abs())
            .max((dist(t2, t0) - side).abs());
    }
    println!("delta: largest loop gap in the poses {worst:.1e}");
    assert!(worst < 1e-12, "{worst:e}");
}

#[test]
fn malformed_files_are_errors_with_their_line() {
    let short = "# a: 1\nx,y\n1,2\n3\n";
    assert!(Table::parse(short).unwrap_err().contains("line 4"));
    let comment = "# a: 1\nx,y\n1,2\n# late: 2\n";
    assert!(Table::parse(comment).unwrap_err().contains("line 4"));
    assert!(Table::parse("# no colon\n").unwrap_err().contains("line 1"));
    assert!(Table::parse("# a: 1\n").is_err());
    assert!(Table::read("no_such_file.csv").is_err());
}

#[test]
fn jansen_leg_keeps_every_bar_length() {
    // Each bar `joint-joint:name` of the header keeps the length `name=value` at every angle.
    let t = Table::read("jansen_kinematics.csv").unwrap();
    assert_eq!(t.len(), t.meta_f64("states") as usize);
    let lengths: Vec<(&str, f64)> = t
        .meta_words("lengths")
        .iter()
        .map(|w| {
            let (k, v) = w.split_once('=').unwrap();
            (k, v.parse().unwrap())
        })
        .collect();
    assert_eq!(lengths.len(), 13);
    let bars = t.meta_words("bars");
    assert_eq!(bars.len(), 11);
    let mut worst = 0.0f64;
    for r in 0..t.len() {
        for bar in &bars {
            let (ends, name) = bar.split_once(':').unwrap();
            let (p, q) = ends.split_once('-').unwrap();
            let dx = t.f64(r, &format!("{p}_x")) - t.f64(r, &format!("{q}_x"));
            let dy = t.f64(r, &format!("{p}_y")) - t.f64(r, &format!("{q}_y"));
            let want = lengths.iter().find(|(k, _)| *k == name).unwrap().1;
            worst = worst.max((dx.hypot(dy) - want).abs());
        }
    }
    println!("jansen: largest bar-length error {worst:.1e}");
    assert!(worst < 1e-12, "{worst:e}");
}
