//! Work-precision on Andrews' squeezing mechanism over [0, 0.03]: fixed steps against adaptive
//! steps (`Integrator::advance_to`), error in q(0.03) against a fine reference, for
//! `GaussLobatto<2>` and `<3>`. Work is counted in step solves (one solve of the step equations;
//! an adaptive step with its Richardson estimate costs three). Prints the table
//! `docs/adaptive.md` quotes and writes `examples/out/seven_body_work_precision.svg`.
//!
//! `cargo run --release --example adaptive_seven_body`

include!("models/seven_body.rs");
include!("models/plot.rs");

use plotters::style::RGBColor;
use spark::{GaussLobatto, Integrator, Method, Options, State};

const T_END: f64 = 0.03;

/// q(0.03) with fixed step h.
fn fixed<Meth: Method>(h: f64) -> Result<State<7>, spark::Error> {
    let mut sim = Integrator::<SevenBody, Meth>::new(SevenBody::default(), h)?;
    let mut s = State::new(0.0, Q0, [0.0; 7]);
    for _ in 0..(T_END / h).round() as usize {
        sim.step(&mut s)?;
    }
    Ok(s)
}

/// q(0.03) with adaptive steps at `atol = tol`, `rtol = relative · tol`, and the statistics.
fn adaptive<Meth: Method>(
    tol: f64,
    relative: f64,
) -> Result<(State<7>, spark::AdvanceStats), spark::Error> {
    let o = Options {
        rtol: relative * tol,
        atol: tol,
        ..Options::default()
    };
    let mut sim = Integrator::<SevenBody, Meth>::new(SevenBody::default(), 1e-5)?.with_options(o);
    let mut s = State::new(0.0, Q0, [0.0; 7]);
    let stats = sim.advance_to(&mut s, T_END)?;
    Ok((s, stats))
}

fn error(s: &State<7>, r: &State<7>) -> f64 {
    (0..7).fold(0.0, |m, i| m.max((s.q[i] - r.q[i]).abs()))
}

/// Prints and collects (solves, error) for fixed steps and for the two tolerance modes.
fn curves<Meth: Method>(
    name: &str,
    hs: &[f64],
    reference: &State<7>,
) -> Result<[Vec<(f64, f64)>; 3], spark::Error> {
    let mut out = [Vec::new(), Vec::new(), Vec::new()];
    println!("{name}: fixed steps");
    for &h in hs {
        match fixed::<Meth>(h) {
            Ok(x) => {
                let (n, e) = ((T_END / h).round(), error(&x, reference));
                println!("  h = {h:.2e}: {n:>6} steps (= solves), error {e:.2e}");
                out[0].push((n, e));
            }
            Err(e) => println!("  h = {h:.2e}: {e}"),
        }
    }
    for (k, (relative, label)) in [(1.0, "rtol = atol = tol"), (0.0, "atol = tol, rtol = 0")]
        .into_iter()
        .enumerate()
    {
        println!("{name}: adaptive, {label}");
        for tol in [1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9] {
            match adaptive::<Meth>(tol, relative) {
                Ok((x, st)) => {
                    let e = error(&x, reference);
                    println!(
                        "  tol {tol:.0e}: {:>5} accepted, {:>3} rejected, {:>6} solves, error {e:.2e}",
                        st.accepted, st.rejected, st.step_solves
                    );
                    out[k + 1].push((st.step_solves as f64, e));
                }
                Err(e) => println!("  tol {tol:.0e}: {e}"),
            }
        }
    }
    Ok(out)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let reference = fixed::<GaussLobatto<3>>(2.5e-6)?;
    let two = curves::<GaussLobatto<2>>(
        "GaussLobatto<2>",
        &[1e-3, 5e-4, 2.5e-4, 1.25e-4, 6.25e-5, 3e-5],
        &reference,
    )?;
    let three = curves::<GaussLobatto<3>>(
        "GaussLobatto<3>",
        &[1.5e-3, 1e-3, 5e-4, 2.5e-4, 1.25e-4],
        &reference,
    )?;
    std::fs::create_dir_all("examples/out")?;
    let path = "examples/out/seven_body_work_precision.svg";
    let colours = [
        RGBColor(0, 90, 181),
        RGBColor(90, 160, 230),
        RGBColor(160, 200, 240),
        RGBColor(200, 60, 20),
        RGBColor(235, 130, 80),
        RGBColor(245, 185, 150),
    ];
    let labels = [
        "GL2 fixed",
        "GL2 adaptive rtol=atol",
        "GL2 adaptive atol",
        "GL3 fixed",
        "GL3 adaptive rtol=atol",
        "GL3 adaptive atol",
    ];
    let data: Vec<&Vec<(f64, f64)>> = two.iter().chain(three.iter()).collect();
    let series: Vec<plot::Series> = (0..6)
        .map(|i| (labels[i], data[i].as_slice(), colours[i]))
        .collect();
    plot::lines(
        path,
        "Seven-body mechanism: error in q(0.03) against step solves",
        ("step solves", plot::Axis::Log),
        ("max |q - q_ref|", plot::Axis::Log),
        &series,
    )?;
    println!("wrote {path}");
    Ok(())
}
