//! A small arm in the style of the MuJoCo Menagerie's models (`tests/models/viewer_arm.xml`,
//! written for spark: visual and collision default classes, materials, every primitive geom
//! and an STL mesh), its four motors following a joint-space PD law along a reaching motion
//! for 4 s. Writes the HTML animation `examples/out/viewer_arm.html` (the file's visual geoms,
//! the collision geoms of group 3 left out) and with `--features rerun` the Rerun recording
//! `examples/out/viewer_arm.rrd` (the finger mesh as a 3D asset).
//!
//! `cargo run --release -p spark-examples --example viewer_arm`

use spark::{GaussLobatto, Integrator, State};

spark::mechanics! {
    /// The arm of `tests/models/viewer_arm.xml`.
    pub struct ViewerArm {
        mjcf: "../tests/models/viewer_arm.xml",
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!(
        "{} visuals (of the file's geoms, groups 0-2), {} sites, bodies {:?}",
        ViewerArm::VISUALS.len(),
        ViewerArm::SITES.len(),
        ViewerArm::BODY_NAMES
    );
    let h = 0.002;
    let mut sim = Integrator::<ViewerArm, GaussLobatto<2>>::new(ViewerArm::default(), h)?;
    let mut s = State::new(0.0, [0.0; 4], [0.0; 4]);
    let mut movie =
        spark_viewer::Recording::new("arm (tests/models/viewer_arm.xml)", &ViewerArm::GEOMETRY);
    let (kp, kd) = (60.0, 4.0);
    for n in 0..2000 {
        if n % 4 == 0 {
            movie.frame(s.t, &ViewerArm::body_poses(&s.q))?;
            movie.scalar("energy (J)", s.t, sim.energy(&s))?;
        }
        let w = std::f64::consts::TAU * 0.25 * s.t;
        let goal = [
            1.2 * w.sin(),
            0.6 + 0.3 * w.cos(),
            0.9 - 0.4 * w.sin(),
            2.0 * w,
        ];
        let u: [f64; 4] = std::array::from_fn(|i| kp * (goal[i] - s.q[i]) - kd * s.v[i]);
        let d = sim.system_mut();
        (d.yaw_motor, d.shoulder_motor, d.elbow_motor, d.wrist_motor) = (u[0], u[1], u[2], u[3]);
        sim.step(&mut s)
            .map_err(|e| format!("step failed at t = {}: {e}", s.t))?;
    }
    let out = concat!(env!("CARGO_MANIFEST_DIR"), "/out");
    movie.write_html(format!("{out}/viewer_arm.html"))?;
    println!("wrote examples/out/viewer_arm.html");
    // The Rerun recording needs the `rerun` crate (large): `--features rerun`.
    #[cfg(feature = "rerun")]
    {
        movie.write_rrd(format!("{out}/viewer_arm.rrd"))?;
        println!("wrote examples/out/viewer_arm.rrd");
    }
    #[cfg(not(feature = "rerun"))]
    println!(
        "examples/out/viewer_arm.rrd: run with `--features rerun` to write the Rerun recording"
    );
    Ok(())
}
