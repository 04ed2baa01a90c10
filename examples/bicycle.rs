//! The Whipple bicycle benchmark of Meijaard, Papadopoulos, Ruina and Schwab (Proc. R. Soc. A
//! 463 (2007)) through `mechanics!` (`models/bicycle.rs`: 8 coordinates, the front contact as
//! a holonomic constraint, rolling without slip as 4 nonholonomic ones).
//!
//! 1. Linearizes the upright, straight-ahead motion at v = 0, 1, ..., 10 m/s through the
//!    step's exact Jacobian (`Integrator::step_with_jacobian`, `GaussLobatto<8>`, h = 0.05 s,
//!    order 16), restricted to lean, steer and their rates on the constraint manifold, and
//!    prints the continuous-time eigenvalues `ln(μ)/h` next to the paper's Table 2 and next to
//!    the eigenvalues of the paper's printed linearized matrices `M, C1, K0, K2`.
//! 2. Finds the weave and capsize speeds (where the weave pair and the capsize eigenvalue cross
//!    zero) and compares them with Table 2.
//! 3. Rides the nonlinear model from upright with a lean rate of 0.5 rad/s at 4 m/s (unstable
//!    weave) and 5 m/s (self-stable) for 6 s, printing the constraint residuals and the
//!    energy error, and writes `examples/out/bicycle_eigenvalues.svg` (the paper's Fig. 3) and
//!    `examples/out/bicycle_ride.svg`.
//!
//! Exits with an error if an eigenvalue differs from Table 2 by more than 1e-12 or a speed by
//! more than 1e-12 m/s.
//!
//! `cargo run --release --example bicycle`

use spark::nalgebra::Complex;

include!("models/plot.rs");
include!("models/bicycle.rs");

type Res<T> = Result<T, Box<dyn std::error::Error>>;

fn show(c: &Complex<f64>) -> String {
    if c.im == 0.0 {
        format!("{:+.14}", c.re)
    } else {
        format!("{:+.14}{:+.14}i", c.re, c.im)
    }
}

fn table(p: Bicycle) -> Res<f64> {
    println!(
        "Lean and steer eigenvalues (1/s) of the upright straight-ahead motion, GaussLobatto<{}>, \
         h = {} s:",
        whipple::S,
        whipple::H
    );
    println!("   v  source                       eigenvalues");
    let mut worst: f64 = 0.0;
    let mut worst_linear: f64 = 0.0;
    for v in 0..=10u8 {
        let speed = f64::from(v);
        let ours = whipple::eigenvalues(p, speed)?;
        let paper = whipple::TABLE2[usize::from(v)].map(|(re, im)| Complex::new(re, im));
        let linear = whipple::linearized_eigenvalues(speed, p.g);
        let row = |l: &[Complex<f64>; 4]| l.iter().map(show).collect::<Vec<_>>().join("  ");
        let dev = |a: &[Complex<f64>; 4], b: &[Complex<f64>; 4]| {
            a.iter()
                .zip(b)
                .map(|(x, y)| {
                    let d = x - y;
                    d.re.hypot(d.im)
                })
                .fold(0.0, f64::max)
        };
        let (d, dl) = (dev(&ours, &paper), dev(&linear, &paper));
        worst = worst.max(d);
        worst_linear = worst_linear.max(dl);
        println!(
            "  {v:2}  spark (step Jacobian)       {}   |Δ| {d:.1e}",
            row(&ours)
        );
        println!("      Table 2                      {}", row(&paper));
        println!(
            "      printed M, C1, K0, K2        {}   |Δ| {dl:.1e}",
            row(&linear)
        );
    }
    println!(
        "largest difference from Table 2: spark {worst:.2e}, the printed matrices' eigenvalues \
         {worst_linear:.2e}"
    );
    Ok(worst)
}

fn speeds(p: Bicycle) -> Res<f64> {
    let weave = whipple::root(|v| whipple::weave_real_part(p, v), 4.0, 5.0)?;
    let capsize = whipple::root(|v| whipple::capsize_eigenvalue(p, v), 5.5, 7.0)?;
    let (dw, dc) = (
        (weave - whipple::WEAVE_SPEED).abs(),
        (capsize - whipple::CAPSIZE_SPEED).abs(),
    );
    println!(
        "weave speed   {weave:.14} m/s   Table 2 {:.14}   |Δ| {dw:.1e}",
        whipple::WEAVE_SPEED
    );
    println!(
        "capsize speed {capsize:.14} m/s   Table 2 {:.14}   |Δ| {dc:.1e}",
        whipple::CAPSIZE_SPEED
    );
    Ok(dw.max(dc))
}

fn figure(p: Bicycle) -> Res<()> {
    let mut re: [Vec<(f64, f64)>; 4] = Default::default();
    let mut im = Vec::new();
    let start = std::time::Instant::now();
    for k in 0..=200 {
        let v = f64::from(k) * 0.05;
        let l = whipple::eigenvalues(p, v)?;
        for (series, c) in re.iter_mut().zip(l.iter()) {
            series.push((v, c.re));
        }
        im.push((v, l.iter().map(|c| c.im.abs()).fold(0.0, f64::max)));
    }
    println!(
        "201 linearizations (one step_with_jacobian of GaussLobatto<{}> and a 4 x 4 eigenproblem \
         each): {:.2} ms each",
        whipple::S,
        start.elapsed().as_secs_f64() * 1e3 / 201.0
    );
    use plotters::style::RGBColor;
    plot::lines(
        "examples/out/bicycle_eigenvalues.svg",
        "Whipple bicycle: lean/steer eigenvalues from spark's step Jacobian (cf. Meijaard et al. 2007, Fig. 3)",
        ("forward speed v (m/s)", plot::Axis::Linear),
        ("eigenvalue (1/s)", plot::Axis::Linear),
        &[
            ("Re λ (sorted)", &re[0], RGBColor(31, 119, 180)),
            ("", &re[1], RGBColor(31, 119, 180)),
            ("", &re[2], RGBColor(31, 119, 180)),
            ("", &re[3], RGBColor(31, 119, 180)),
            ("|Im λ| of the weave pair", &im, RGBColor(214, 39, 40)),
        ],
    )
}

fn rides(p: Bicycle) -> Res<()> {
    let (h, steps) = (0.01, 600);
    let slow = ride::ride(p, 4.0, 0.5, h, steps)?;
    let stable = ride::ride(p, 5.0, 0.5, h, steps)?;
    for (name, r) in [("4.0 m/s", &slow), ("5.0 m/s", &stable)] {
        let peak = |from: f64| {
            r.lean
                .iter()
                .filter(|(t, _)| *t >= from)
                .map(|(_, l)| l.abs())
                .fold(0.0, f64::max)
        };
        println!(
            "ride at {name}, GaussLobatto<2>, h = {h}: max |lean| over [0, 6] s {:.3e} rad, over \
             [5, 6] s {:.3e} rad; after every step |g| <= {:.1e}, |hidden, k| <= {:.1e}; \
             max |ΔE/E| {:.1e}; final speed {:.6} m/s",
            peak(0.0),
            peak(5.0),
            r.residual.0,
            r.residual.1,
            r.energy_error,
            r.final_speed
        );
    }
    use plotters::style::RGBColor;
    plot::lines(
        "examples/out/bicycle_ride.svg",
        "Whipple bicycle, nonlinear: lean angle after a 0.5 rad/s lean-rate kick",
        ("t (s)", plot::Axis::Linear),
        ("lean φ (rad)", plot::Axis::Linear),
        &[
            (
                "v = 4.0 m/s (weave unstable)",
                &slow.lean,
                RGBColor(214, 39, 40),
            ),
            (
                "v = 5.0 m/s (self-stable)",
                &stable.lean,
                RGBColor(31, 119, 180),
            ),
        ],
    )
}

fn main() -> Res<()> {
    let p = Bicycle::default();
    let worst = table(p)?;
    let speed = speeds(p)?;
    std::fs::create_dir_all("examples/out")?;
    figure(p)?;
    rides(p)?;
    println!("wrote examples/out/bicycle_eigenvalues.svg and examples/out/bicycle_ride.svg");
    if worst > 1e-12 || speed > 1e-12 {
        return Err(
            format!("differs from Table 2: eigenvalues {worst:.1e}, speeds {speed:.1e}").into(),
        );
    }
    Ok(())
}
