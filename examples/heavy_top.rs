//! A heavy symmetric top in unit-quaternion coordinates (issue 16): a rigid body in 3D through
//! `mechanics!`, its model in `models/heavy_top.rs` (helpers for the body angular velocity). Prints
//! the energy error and the drift of the two conserved momenta (vertical, and about the
//! symmetry axis) over 20 s, and writes the path of the symmetry axis's tip, seen from above
//! (precession with nutation), to `examples/out/heavy_top.svg`. Then the same checks for a
//! spatial double pendulum of two rigid bodies (`models/spatial_double_pendulum.rs`).
//!
//! `cargo run --release --example heavy_top`

include!("models/heavy_top.rs");
include!("models/plot.rs");
include!("models/spatial_double_pendulum.rs");

use plotters::style::RGBColor;
use spark::{GaussLobatto, Integrator, State};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let top = HeavyTop::default();
    // Tilted 0.5 rad, spinning at 15 rad/s about its axis.
    let q = [0.25f64.cos(), 0.25f64.sin(), 0.0, 0.0];
    let mut s = State::new(0.0, q, quaternion_rate(&q, &[0.0, 0.3, 15.0]));
    let mut sim = Integrator::<HeavyTop, GaussLobatto<2>>::new(top, 0.01)?;
    let e0 = sim.energy(&s);
    let (q0, v0): ([f64; 4], [f64; 4]) = (s.q.into(), s.v.into());
    let (lz0, l30) = (
        vertical_momentum(&top, &q0, &v0),
        top.i3 * body_rate(&q0, &v0)[2],
    );
    let (mut de, mut dlz, mut dl3, mut residual) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    let mut tip = Vec::new();
    for _ in 0..2000 {
        sim.step(&mut s)?;
        let (q, v): ([f64; 4], [f64; 4]) = (s.q.into(), s.v.into());
        de = de.max((sim.energy(&s) - e0).abs());
        dlz = dlz.max((vertical_momentum(&top, &q, &v) - lz0).abs());
        dl3 = dl3.max((top.i3 * body_rate(&q, &v)[2] - l30).abs());
        residual = residual.max(sim.constraint_residual(&s).0);
        let [a, b, c, d] = q;
        tip.push((2.0 * (b * d + a * c), 2.0 * (c * d - a * b)));
    }
    println!("heavy top, GaussLobatto<2>, h = 0.01, t in [0, 20]:");
    println!("  max |E - E0| = {de:.2e} (E0 = {e0:.4})");
    println!("  max |Lz - Lz0| = {dlz:.2e} (Lz0 = {lz0:.4}), max |L3 - L30| = {dl3:.2e} (L30 = {l30:.4})");
    println!("  max | |q|^2 - 1 | = {residual:.1e}");
    std::fs::create_dir_all("examples/out")?;
    let path = "examples/out/heavy_top.svg";
    plot::lines(
        path,
        "Heavy top: the symmetry axis's tip seen from above (x, y), 20 s",
        ("x", plot::Axis::Linear),
        ("y", plot::Axis::Linear),
        &[("tip of e3", &tip, RGBColor(0, 90, 181))],
    )?;
    println!("wrote {path}");

    let p = SpatialDoublePendulum::default();
    let qa = [0.3f64.cos(), 0.3f64.sin(), 0.0, 0.0];
    let qb = [0.5f64.cos(), 0.0, 0.5f64.sin(), 0.0];
    let mut s = sdp_state(&p, qa, qb, [0.5, -1.0, 4.0], [1.5, 0.3, -6.0]);
    let mut sim = Integrator::<SpatialDoublePendulum, GaussLobatto<2>>::new(p, 0.005)?;
    let (e0, lz0) = (sim.energy(&s), sdp_vertical_momentum(&p, &s));
    let (mut de, mut dlz, mut residual) = (0.0f64, 0.0f64, 0.0f64);
    for _ in 0..4000 {
        sim.step(&mut s)?;
        de = de.max((sim.energy(&s) - e0).abs());
        dlz = dlz.max((sdp_vertical_momentum(&p, &s) - lz0).abs());
        let (g, gv) = sim.constraint_residual(&s);
        residual = residual.max(g).max(gv);
    }
    println!("spatial double pendulum (11 coordinates, 5 constraints), GaussLobatto<2>, h = 0.005, t in [0, 20]:");
    println!("  max |E - E0| = {de:.2e} (E0 = {e0:.4}), max |Lz - Lz0| = {dlz:.2e} (Lz0 = {lz0:.4}), residuals <= {residual:.1e}");
    Ok(())
}
