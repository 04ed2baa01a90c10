//! The HTML animations of the examples' mechanisms (the Delta robot, a Jansen leg, the arm of
//! `tests/models/viewer_arm.xml` and the five-bar), each simulated for a second, written, and
//! opened in headless Chromium: a screenshot at two times of the animation (`#t=…&paused`),
//! checked for a mechanism inside the frame, for a change between the two times, and for the
//! page's console (its "drew" line, no error). Skipped, saying so, only when `chromium` is not
//! installed (`.ci/run` installs it).

use std::path::{Path, PathBuf};
use std::process::Command;

use spark::{GaussLobatto, Integrator, State};
use spark_viewer::Recording;

spark::mechanics! {
    /// `tests/models/delta.xml`.
    pub struct Delta {
        mjcf: "../tests/models/delta.xml",
    }
}

spark::mechanics! {
    /// `tests/models/jansen_leg.xml`.
    pub struct JansenLeg {
        mjcf: "../tests/models/jansen_leg.xml",
    }
}

spark::mechanics! {
    /// `tests/models/viewer_arm.xml`.
    pub struct ViewerArm {
        mjcf: "../tests/models/viewer_arm.xml",
    }
}

include!("../../examples/models/five_bar.rs");

const H: f64 = 0.005;
const STEPS: usize = 200;

fn delta() -> Recording {
    let mut sim = Integrator::<Delta, GaussLobatto<2>>::new(Delta::default(), H).unwrap();
    let mut s = State::new(0.0, Delta::REFERENCE_CONFIGURATION, [0.0; 15]);
    let arms = ["arm_0", "arm_1", "arm_2"].map(|n| {
        Delta::COORDINATE_NAMES
            .iter()
            .position(|m| *m == n)
            .unwrap()
    });
    let mut rec = Recording::new("Delta robot", &Delta::GEOMETRY);
    for _ in 0..STEPS {
        rec.frame(s.t, &Delta::body_poses(&s.q)).unwrap();
        let goal: [f64; 3] =
            std::array::from_fn(|i| 0.25 * (std::f64::consts::TAU * (s.t + i as f64 / 3.0)).sin());
        let u: [f64; 3] =
            std::array::from_fn(|i| 200.0 * (goal[i] - s.q[arms[i]]) - 2.0 * s.v[arms[i]]);
        let d = sim.system_mut();
        (d.arm_0_motor, d.arm_1_motor, d.arm_2_motor) = (u[0], u[1], u[2]);
        sim.step(&mut s).unwrap();
    }
    rec
}

fn jansen() -> Recording {
    let mut sim = Integrator::<JansenLeg, GaussLobatto<2>>::new(JansenLeg::default(), H).unwrap();
    sim.system_mut().drive = 3.0;
    let mut s = State::new(0.0, JansenLeg::REFERENCE_CONFIGURATION, [0.0; 7]);
    let mut rec = Recording::new("Jansen leg", &JansenLeg::GEOMETRY);
    for _ in 0..STEPS {
        rec.frame(s.t, &JansenLeg::body_poses(&s.q)).unwrap();
        sim.step(&mut s).unwrap();
    }
    rec
}

fn arm() -> Recording {
    let mut sim = Integrator::<ViewerArm, GaussLobatto<2>>::new(ViewerArm::default(), H).unwrap();
    let mut s = State::new(0.0, [0.0, 0.6, 0.4, 0.0], [1.5, 0.0, 0.0, 2.0]);
    let mut rec = Recording::new("arm", &ViewerArm::GEOMETRY);
    for _ in 0..STEPS {
        rec.frame(s.t, &ViewerArm::body_poses(&s.q)).unwrap();
        sim.step(&mut s).unwrap();
    }
    rec
}

fn five_bar() -> Recording {
    let mut sim = Integrator::<FiveBar, GaussLobatto<2>>::new(FiveBar::default(), H).unwrap();
    let mut s = State::new(0.0, [0.0; 4], [0.0; 4]);
    let mut rec = Recording::new("five-bar", &FiveBar::GEOMETRY);
    for _ in 0..STEPS {
        rec.frame(s.t, &FiveBar::body_poses(&s.q)).unwrap();
        let w = std::f64::consts::TAU * s.t;
        let goal = [0.4 * w.sin(), -0.4 * w.sin()];
        let d = sim.system_mut();
        d.tau_a = 5.0 * (goal[0] - s.q[0]) - 0.2 * s.v[0];
        d.tau_b = 5.0 * (goal[1] - s.q[1]) - 0.2 * s.v[1];
        sim.step(&mut s).unwrap();
    }
    rec
}

fn chromium() -> Option<PathBuf> {
    ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.exists())
}

/// A screenshot of `page` at `#{hash}`: its pixels (RGB, row-major), width, height, and the
/// page's console messages.
fn screenshot(
    browser: &Path,
    page: &Path,
    hash: &str,
    out: &Path,
) -> (Vec<[u8; 3]>, usize, usize, Vec<String>) {
    let profile = out.with_extension("profile");
    let _ = std::fs::remove_dir_all(&profile);
    let url = format!("file://{}#{hash}", page.display());
    let run = Command::new("timeout")
        .arg("120")
        .arg(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
            "--enable-logging=stderr",
            "--v=0",
            "--window-size=800,600",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("--screenshot={}", out.display()))
        .arg(&url)
        .output()
        .expect("chromium runs");
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        out.exists(),
        "chromium wrote no screenshot of {url} (status {}):\n{stderr}",
        run.status
    );
    let console: Vec<String> = stderr
        .lines()
        .filter(|l| l.contains(":CONSOLE"))
        .map(|l| l.split_once("] ").map_or(l, |x| x.1).to_string())
        .collect();
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(out).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    let channels = info.color_type.samples();
    assert!(channels >= 3, "an RGB screenshot: {:?}", info.color_type);
    let pixels = buf[..info.buffer_size()]
        .chunks_exact(channels)
        .map(|c| [c[0], c[1], c[2]])
        .collect();
    (pixels, info.width as usize, info.height as usize, console)
}

/// The page's background and the height of its control bar (`html.rs`).
const BACKGROUND: [u8; 3] = [0xf4, 0xf5, 0xf7];
const BAR: usize = 84;

/// Whether a pixel is the mechanism's (not the background, not the faint ground grid).
fn ink(p: [u8; 3]) -> bool {
    let d: i32 = (0..3)
        .map(|k| (p[k] as i32 - BACKGROUND[k] as i32).abs())
        .sum();
    d > 90
}

fn check(name: &str, rec: &Recording, browser: &Path, dir: &Path) {
    let page = dir.join(format!("{name}.html"));
    let warnings = rec.write_html(&page).unwrap();
    assert!(warnings.is_empty(), "{name}: {warnings:?}");
    let html = std::fs::read_to_string(&page).unwrap();
    for fetch in [
        "http://",
        "https://",
        "<script src",
        "<link",
        "@import",
        "url(",
    ] {
        assert!(!html.contains(fetch), "{name}: the page fetches: `{fetch}`");
    }
    let (t0, t1) = (rec.times()[0], rec.times()[rec.len() - 1]);
    let times = [t0 + 0.1 * (t1 - t0), t0 + 0.8 * (t1 - t0)];
    let mut shots = Vec::new();
    for (k, t) in times.iter().enumerate() {
        let png = dir.join(format!("{name}-{k}.png"));
        let (px, w, h, console) = screenshot(browser, &page, &format!("t={t}&paused"), &png);
        assert!(
            console.iter().any(|l| l.contains("spark-viewer: drew")),
            "{name} at t = {t}: the page did not draw; console: {console:?}"
        );
        let foreign: Vec<&String> = console
            .iter()
            .filter(|l| !l.starts_with("\"spark-viewer: drew"))
            .collect();
        assert!(
            foreign.is_empty(),
            "{name} at t = {t}: console messages: {foreign:?}"
        );
        // The mechanism: enough ink, none on the view's border.
        let view = h - BAR;
        let (mut count, mut x0, mut x1, mut y0, mut y1) = (0usize, w, 0, view, 0);
        for y in 0..view {
            for x in 0..w {
                if ink(px[y * w + x]) {
                    count += 1;
                    (x0, x1, y0, y1) = (x0.min(x), x1.max(x), y0.min(y), y1.max(y));
                }
            }
        }
        assert!(
            count > w * view / 500,
            "{name} at t = {t}: only {count} pixels of mechanism ({})",
            png.display()
        );
        assert!(
            x0 > 2 && y0 > 2 && x1 < w - 3 && y1 < view - 3,
            "{name} at t = {t}: the mechanism ({x0}..{x1} × {y0}..{y1}) touches the frame \
             ({w} × {view}; {})",
            png.display()
        );
        shots.push((px, w, view));
    }
    let (a, b) = (&shots[0], &shots[1]);
    let changed = (0..a.2 * a.1).filter(|&i| a.0[i] != b.0[i]).count();
    assert!(
        changed > a.1 * a.2 / 1000,
        "{name}: the pictures at t = {} and {} differ in only {changed} pixels",
        times[0],
        times[1]
    );
    println!("{name}: ok ({changed} pixels changed between the two times)");
}

#[test]
fn animations_render_in_headless_chromium() {
    let recordings = [
        ("delta", delta()),
        ("jansen", jansen()),
        ("arm", arm()),
        ("five_bar", five_bar()),
    ];
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("spark-viewer-html");
    std::fs::create_dir_all(&dir).unwrap();
    for (name, rec) in &recordings {
        let page = rec.html().unwrap();
        assert!(page.warnings.is_empty(), "{name}: {:?}", page.warnings);
        assert!(
            page.html.len() < 8 << 20,
            "{name}: {} bytes",
            page.html.len()
        );
    }
    let Some(browser) = chromium() else {
        eprintln!(
            "SKIPPED: chromium is not installed (`apt-get install chromium`): the pages were \
             written and checked, not rendered"
        );
        return;
    };
    for (name, rec) in &recordings {
        check(name, rec, &browser, &dir);
    }
}
