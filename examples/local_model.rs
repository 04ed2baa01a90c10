//! The harmonic oscillator with a local model (Jay, JCAM 204 (2007) §7; E3 of the reading
//! guide): midpoint SRKLM with a step far longer than the period keeps the phase, and its
//! energy error stays bounded on [0, 200].
//!
//! `y₁' = y₂`, `y₂' = −ω² y₁` with `ω = ρ √(1 + (δ/ρ)²)`, `ρ = 200`, `δ = 1` (period
//! `T = 2π/ω ≈ 0.0314155`), `y(0) = (0.2, 0.5)`, local model `z₁' = z₂`, `z₂' = −ρ² z₁` (solved
//! exactly), step `h = 0.2 ≈ 6.4 T`. Prints, for SRKLM, RKLM and the plain Gauss method of the
//! same `S` (the methods with the trivial model `g ≡ 0`), the solution at `t = 1`, the phase
//! error at `t = 1` and `t = 200`, and `max |H − H₀|` on [0, 200] (also on its first and last
//! tenth, to show the absence of drift); then the one-step map of midpoint SRKLM. Writes the
//! analogues of the paper's Figs. 4 and 5 to `examples/out/local_model.svg`.
//!
//! `cargo run --release --example local_model`

use std::f64::consts::PI;

use plotters::prelude::*;
use spark::nalgebra::{Matrix2, Vector2};
use spark::{Error, LocalModelJacobians, LocalModelOde, Rklm, Srklm};

type V = Vector2<f64>;
type M = Matrix2<f64>;

const RHO: f64 = 200.0;
const DELTA: f64 = 1.0;
const H: f64 = 0.2;
const T_END: f64 = 200.0;

/// `e^{τA}` for `A = [[0, 1], [−k², 0]]`: the flow of `x'' = −k² x` over `τ`.
fn rotation(k: f64, tau: f64) -> M {
    let (s, c) = (k * tau).sin_cos();
    M::new(c, s / k, -k * s, c)
}

fn oscillator_matrix(k: f64) -> M {
    M::new(0.0, 1.0, -k * k, 0.0)
}

/// The oscillator of frequency `omega`, with the local model of frequency `rho`, or with the
/// trivial local model `g ≡ 0` (flow `z(t) = z₀`) if `rho` is `None`: then RKLM and SRKLM are
/// the plain Gauss method (Theorem 6 (3)).
struct Oscillator {
    omega: f64,
    rho: Option<f64>,
}

impl Oscillator {
    fn energy(&self, y: &V) -> f64 {
        0.5 * (self.omega * self.omega * y[0] * y[0] + y[1] * y[1])
    }
    fn exact(&self, y0: &V, t: f64) -> V {
        rotation(self.omega, t) * y0
    }
    /// Phase of `y` on its ellipse, so that the exact solution turns at the rate `ω`.
    fn angle(&self, y: &V) -> f64 {
        (-y[1]).atan2(self.omega * y[0])
    }
    /// `angle(y) − angle(exact)`, in `(−π, π]`.
    fn phase_error(&self, y: &V, exact: &V) -> f64 {
        wrap(self.angle(y) - self.angle(exact))
    }
}

fn wrap(x: f64) -> f64 {
    let y = (x + PI).rem_euclid(2.0 * PI) - PI;
    if y == -PI {
        PI
    } else {
        y
    }
}

impl LocalModelOde<2> for Oscillator {
    fn f(&self, _t: f64, y: &V) -> V {
        oscillator_matrix(self.omega) * y
    }
    fn f_y(&self, _t: f64, _y: &V) -> M {
        oscillator_matrix(self.omega)
    }
    fn g(&self, _t: f64, z: &V) -> V {
        match self.rho {
            Some(rho) => oscillator_matrix(rho) * z,
            None => V::zeros(),
        }
    }
    fn flow(&self, t0: f64, z0: &V, t: f64) -> V {
        match self.rho {
            Some(rho) => rotation(rho, t - t0) * z0,
            None => *z0,
        }
    }
}

impl LocalModelJacobians<2> for Oscillator {
    fn g_y(&self, _t: f64, _z: &V) -> M {
        match self.rho {
            Some(rho) => oscillator_matrix(rho),
            None => M::zeros(),
        }
    }
    fn flow_jacobian(&self, t0: f64, _z0: &V, t: f64) -> M {
        match self.rho {
            Some(rho) => rotation(rho, t - t0),
            None => M::identity(),
        }
    }
}

/// A run on [0, 200] with `h = 0.2`: every step point `(t, y)`, starting with `(0, y0)`.
fn run(
    y0: V,
    mut step: impl FnMut(&mut f64, &mut V) -> Result<(), Error>,
) -> Result<Vec<(f64, V)>, Error> {
    let n = (T_END / H).round() as usize;
    let (mut t, mut y) = (0.0, y0);
    let mut out = Vec::with_capacity(n + 1);
    out.push((t, y));
    for _ in 0..n {
        step(&mut t, &mut y)?;
        out.push((t, y));
    }
    Ok(out)
}

/// The numbers printed for one method.
struct Summary {
    at_one: V,
    phase_one: f64,
    phase_end: f64,
    max_phase: f64,
    energy_max: f64,
    energy_first: f64,
    energy_last: f64,
}

fn summarize(p: &Oscillator, y0: &V, run: &[(f64, V)]) -> Summary {
    let h0 = p.energy(y0);
    let errors: Vec<f64> = run.iter().map(|(_, y)| (p.energy(y) - h0).abs()).collect();
    let tenth = errors.len() / 10;
    let max = |e: &[f64]| e.iter().cloned().fold(0.0, f64::max);
    let one = run
        .iter()
        .position(|(t, _)| (t - 1.0).abs() < 1e-9)
        .unwrap();
    let phase = |k: usize| p.phase_error(&run[k].1, &p.exact(y0, run[k].0));
    Summary {
        at_one: run[one].1,
        phase_one: phase(one),
        phase_end: phase(run.len() - 1),
        max_phase: (0..run.len()).map(|k| phase(k).abs()).fold(0.0, f64::max),
        energy_max: max(&errors),
        energy_first: max(&errors[..tenth]),
        energy_last: max(&errors[errors.len() - tenth..]),
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let omega = RHO * (1.0 + (DELTA / RHO).powi(2)).sqrt();
    let with_model = Oscillator {
        omega,
        rho: Some(RHO),
    };
    let plain = Oscillator { omega, rho: None };
    let y0 = V::new(0.2, 0.5);
    println!(
        "omega = {omega:.13}, period T = {:.14}, h = {H} = {:.2} T, H0 = {:.6}",
        2.0 * PI / omega,
        H * omega / (2.0 * PI),
        with_model.energy(&y0)
    );

    let mut srklm1 = Srklm::<1>::new(H)?;
    let mut srklm2 = Srklm::<2>::new(H)?;
    let mut rklm1 = Rklm::<1>::new(H)?;
    let mut gauss1 = Rklm::<1>::new(H)?;
    let mut gauss2 = Rklm::<2>::new(H)?;
    let runs: Vec<(&str, Vec<(f64, V)>)> = vec![
        (
            "midpoint SRKLM (S = 1)",
            run(y0, |t, y| srklm1.step(&with_model, t, y))?,
        ),
        (
            "midpoint RKLM (S = 1)",
            run(y0, |t, y| rklm1.step(&with_model, t, y))?,
        ),
        (
            "plain midpoint (S = 1)",
            run(y0, |t, y| gauss1.step(&plain, t, y))?,
        ),
        (
            "SRKLM S = 2",
            run(y0, |t, y| srklm2.step(&with_model, t, y))?,
        ),
        (
            "plain Gauss S = 2",
            run(y0, |t, y| gauss2.step(&plain, t, y))?,
        ),
    ];
    let exact_one = with_model.exact(&y0, 1.0);
    println!("exact y(1) = ({:.5}, {:.4})", exact_one[0], exact_one[1]);
    println!(
        "{:<24} {:>22} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10}",
        "method",
        "y(1)",
        "phase(1)",
        "phase(200)",
        "max|phase|",
        "max|dH|",
        "1st tenth",
        "last tenth"
    );
    for (name, r) in &runs {
        let s = summarize(&with_model, &y0, r);
        println!(
            "{:<24} ({:>9.5}, {:>9.4}) {:>10.2e} {:>10.2e} {:>10.2e} {:>10.2e} {:>10.2e} {:>10.2e}",
            name,
            s.at_one[0],
            s.at_one[1],
            s.phase_one,
            s.phase_end,
            s.max_phase,
            s.energy_max,
            s.energy_first,
            s.energy_last
        );
    }
    println!("(phases in rad; dH = H - H0 on [0, 200]; the Gauss methods conserve the quadratic H exactly)");

    // The one-step map of midpoint SRKLM (the problem is linear): columns are the steps of e₁, e₂.
    let mut map = M::zeros();
    for k in 0..2 {
        let (mut t, mut y) = (0.0, V::ith(k, 1.0));
        Srklm::<1>::new(H)?.step(&with_model, &mut t, &mut y)?;
        map.set_column(k, &y);
    }
    let det = map.determinant();
    let turn = (0.5 * map.trace()).acos(); // the eigenvalues are e^{±i·turn} when det = 1
    let exact_turn = wrap(H * omega).abs();
    println!(
        "midpoint SRKLM one-step map: det = {det:.15}, eigenvalue angle {turn:.10} rad vs exact \
         |hω mod 2π| = {exact_turn:.10} rad: phase drift {:.3e} rad per step = {:.3e} rad per unit time",
        turn - exact_turn,
        (turn - exact_turn) / H
    );

    // h = 0.2 is far outside the asymptotic regime (hω = 40): the correction ODE (18) still
    // oscillates with ω, so a higher S need not help there. The error at t = 1 against h:
    println!("error |y(1) - exact| of SRKLM against h (hρ = 40 down to 0.16):");
    println!("{:>10} {:>8} {:>12} {:>12}", "h", "h rho", "S = 1", "S = 2");
    for k in 0..9 {
        let h = H / f64::from(1u32 << k);
        let n = (1.0 / h).round() as usize;
        let mut s1 = Srklm::<1>::new(h)?;
        let mut s2 = Srklm::<2>::new(h)?;
        let (mut t1, mut y1, mut t2, mut y2) = (0.0, y0, 0.0, y0);
        for _ in 0..n {
            s1.step(&with_model, &mut t1, &mut y1)?;
            s2.step(&with_model, &mut t2, &mut y2)?;
        }
        println!(
            "{h:>10.6} {:>8.2} {:>12.3e} {:>12.3e}",
            h * RHO,
            (y1 - exact_one).norm(),
            (y2 - exact_one).norm()
        );
    }

    plot("examples/out/local_model.svg", &with_model, &y0, &runs)?;
    println!("wrote examples/out/local_model.svg");
    Ok(())
}

/// Left: y₁ on [0, 1], exact (line) and at the steps of midpoint SRKLM and of the plain midpoint
/// rule (Fig. 4). Right: `H − H₀` of midpoint SRKLM on [0, 200] (Fig. 5).
fn plot(
    path: &str,
    p: &Oscillator,
    y0: &V,
    runs: &[(&str, Vec<(f64, V)>)],
) -> Result<(), Box<dyn std::error::Error>> {
    std::fs::create_dir_all("examples/out")?;
    let root = SVGBackend::new(path, (1400, 520)).into_drawing_area();
    root.fill(&WHITE)?;
    let (left, right) = root.split_horizontally(700);

    let mut chart = ChartBuilder::on(&left)
        .caption(
            "Oscillator, h = 0.2 = 6.4 periods: y1(t) on [0, 1]",
            ("sans-serif", 18),
        )
        .margin(15)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(0.0..1.0, -0.25..0.25)?;
    chart.configure_mesh().x_desc("t").y_desc("y1").draw()?;
    let fine = 4000;
    chart
        .draw_series(LineSeries::new(
            (0..=fine).map(|k| {
                let t = k as f64 / fine as f64;
                (t, p.exact(y0, t)[0])
            }),
            BLUE.stroke_width(1),
        ))?
        .label("exact")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLUE));
    for (name, color) in [
        ("midpoint SRKLM (S = 1)", RED),
        ("plain midpoint (S = 1)", BLACK),
    ] {
        let r = &runs.iter().find(|(n, _)| *n == name).unwrap().1;
        chart
            .draw_series(
                r.iter()
                    .filter(|(t, _)| *t <= 1.0 + 1e-9)
                    .map(|(t, y)| Cross::new((*t, y[0]), 6, color.stroke_width(2))),
            )?
            .label(name)
            .legend(move |(x, y)| Cross::new((x + 10, y), 6, color.stroke_width(2)));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .background_style(WHITE)
        .border_style(BLACK)
        .draw()?;

    let srklm = &runs[0].1;
    let h0 = p.energy(y0);
    let e: Vec<(f64, f64)> = srklm.iter().map(|(t, y)| (*t, p.energy(y) - h0)).collect();
    let e_max = e.iter().fold(0.0f64, |m, q| m.max(q.1.abs()));
    let mut chart = ChartBuilder::on(&right)
        .caption(
            "Midpoint SRKLM: H(t) - H(0) on [0, 200]",
            ("sans-serif", 18),
        )
        .margin(15)
        .x_label_area_size(40)
        .y_label_area_size(80)
        .build_cartesian_2d(0.0..T_END, -1.2 * e_max..1.2 * e_max)?;
    chart
        .configure_mesh()
        .x_desc("t")
        .y_desc("H - H0")
        .y_label_formatter(&|y| format!("{y:.1e}"))
        .draw()?;
    chart.draw_series(LineSeries::new(e.iter().cloned(), RED))?;
    root.present()?;
    Ok(())
}
