//! Paper 002, §4 / Fig. 2: the Lobatto IIIA-B methods for index-2 DAEs on the nonholonomic
//! particle in a harmonic potential (guide-papers E8), in Lagrangian form
//! L = ½|v|² − ½(x² + y²), k = v_z − y v_x, q0 = (1, 0, 0), v0 = p0 = (0, 1, 0), λ0 = 0.
//!
//! For s = 2..5 and h = 0.4 … 0.0125 it integrates to the final time T = 10 (002 does not give
//! its final time; this choice is ours) with 002's method proper, the multiplier carried from
//! step to step (`spark::lobatto_index2::step_with_multiplier`), and prints the relative errors
//! of q, p (= v here) and λ (= −ψ in this library's sign convention) against a reference
//! computed with GaussLobatto<4> (order 8) at h = 0.0025 (002 uses the same method at
//! h = 1e-4; an independent higher-order reference avoids comparing a method with itself), the
//! reference λ being the consistent multiplier of the reference state. It also prints the q, v
//! error of the `Integrator` variant (`LobattoIIIABIndex2<S>`, consistent multiplier at every
//! step start). The curves are written to examples/out/lobatto_index2_qp.svg and
//! examples/out/lobatto_index2_lambda.svg.
//!
//! Expected (002 Cor 3.1): slopes 2s − 2 = 2, 4, 6, 8 for q and p, s or s − 1 = 2, 2, 4, 4 for λ.
//!
//! `cargo run --release --example lobatto_index2`

include!("models/plot.rs");
include!("models/index2_particle.rs");

use plotters::style::RGBColor;
use spark::lobatto_index2::{consistent_multiplier, step_with_multiplier};
use spark::{GaussLobatto, Integrator, LobattoIIIABIndex2, Options, State};

const T_END: f64 = 10.0;

/// Full Newton throughout: the errors of this study reach 1e-15, below what the default
/// simplified iteration's stopping test guarantees (1e-12 relative per solve).
const EXACT: Options = Options {
    tolerance: 1e-12,
    max_iterations: 20,
    consistency_tolerance: 1e-8,
    simplified_newton: false,
    ..Options::DEFAULT
};

/// 002's method with the multiplier carried: the end state, λ = −ψ and max |k| after any step.
fn paper<const S: usize>(h: f64) -> Result<(State<3>, f64, f64), spark::Error> {
    let sys = Particle {};
    let o = EXACT;
    let mut s = e8_start();
    let mut psi = consistent_multiplier(&sys, &s)?;
    let mut kmax = 0.0f64;
    for _ in 0..(T_END / h).round() as usize {
        let (n, p, _) =
            step_with_multiplier(&LobattoIIIABIndex2::<S>::TABLEAU, &sys, h, &o, &s, &psi)?;
        kmax = kmax.max((n.v[2] - n.q[1] * n.v[0]).abs());
        (s, psi) = (n, p);
    }
    Ok((s, -psi[0], kmax))
}

/// The `Integrator` variant (consistent multiplier at every step start).
fn integrator<const S: usize>(h: f64) -> Result<State<3>, spark::Error> {
    let mut sim =
        Integrator::<Particle, LobattoIIIABIndex2<S>>::new(Particle {}, h)?.with_options(EXACT);
    let mut s = e8_start();
    for _ in 0..(T_END / h).round() as usize {
        sim.step(&mut s)?;
    }
    Ok(s)
}

struct Row {
    h: f64,
    q: f64,
    p: f64,
    lambda: f64,
    q_int: f64,
    k: f64,
}

fn table<const S: usize>(hs: &[f64], reference: &State<3>, lambda_ref: f64) -> Vec<Row> {
    let rel = |a: &spark::nalgebra::SVector<f64, 3>, b: &spark::nalgebra::SVector<f64, 3>| {
        (a - b).norm() / b.norm()
    };
    let mut rows = Vec::new();
    for &h in hs {
        match (paper::<S>(h), integrator::<S>(h)) {
            (Ok((s, lambda, k)), Ok(si)) => rows.push(Row {
                h,
                q: rel(&s.q, &reference.q),
                p: rel(&s.v, &reference.v),
                lambda: (lambda - lambda_ref).abs() / lambda_ref.abs(),
                q_int: rel(&si.q, &reference.q).max(rel(&si.v, &reference.v)),
                k,
            }),
            (Err(e), _) | (_, Err(e)) => println!("   s = {S}, h = {h}: {e}"),
        }
    }
    println!(
        "s = {S} (expected slopes: q, p {}, λ {})",
        2 * S - 2,
        if S % 2 == 0 { S } else { S - 1 }
    );
    println!(
        "  {:>8}  {:>9} {:>5}  {:>9} {:>5}  {:>9} {:>5}  {:>9} {:>5}  {:>8}",
        "h", "err q", "slope", "err p", "slope", "err λ", "slope", "Integ.q,v", "slope", "max|k|"
    );
    for (i, r) in rows.iter().enumerate() {
        let slope = |f: fn(&Row) -> f64| {
            if i == 0 {
                "".to_string()
            } else {
                let prev = &rows[i - 1];
                format!("{:.2}", (f(prev) / f(r)).ln() / (prev.h / r.h).ln())
            }
        };
        println!(
            "  {:>8.4}  {:>9.2e} {:>5}  {:>9.2e} {:>5}  {:>9.2e} {:>5}  {:>9.2e} {:>5}  {:>8.1e}",
            r.h,
            r.q,
            slope(|r| r.q),
            r.p,
            slope(|r| r.p),
            r.lambda,
            slope(|r| r.lambda),
            r.q_int,
            slope(|r| r.q_int),
            r.k
        );
    }
    rows
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut sim =
        Integrator::<Particle, GaussLobatto<4>>::new(Particle {}, 0.0025)?.with_options(EXACT);
    let mut reference = e8_start();
    for _ in 0..(T_END / 0.0025).round() as usize {
        sim.step(&mut reference)?;
    }
    let lambda_ref = -consistent_multiplier(&Particle {}, &reference)?[0];
    println!(
        "002 §4: nonholonomic particle, T = {T_END}; reference GaussLobatto<4>, h = 0.0025: \
         q = {:.12?}, p = {:.12?}, λ = {lambda_ref:.12}",
        reference.q.as_slice(),
        reference.v.as_slice()
    );
    println!("relative errors of 002's method (λ carried between steps); 'Integ.' = Integrator variant\n");
    let hs = [0.4, 0.2, 0.1, 0.05, 0.025, 0.0125];
    let all = [
        table::<2>(&hs, &reference, lambda_ref),
        table::<3>(&hs, &reference, lambda_ref),
        table::<4>(&hs, &reference, lambda_ref),
        table::<5>(&hs, &reference, lambda_ref),
    ];

    let colors = [
        RGBColor(200, 30, 30),
        RGBColor(30, 90, 200),
        RGBColor(30, 150, 60),
        RGBColor(150, 60, 170),
    ];
    let lighter = |c: RGBColor| RGBColor(c.0 / 2 + 120, c.1 / 2 + 120, c.2 / 2 + 120);
    let pts = |rows: &[Row], f: fn(&Row) -> f64| -> Vec<(f64, f64)> {
        rows.iter()
            .map(|r| (r.h, f(r)))
            .filter(|p| p.1 > 0.0)
            .collect()
    };
    let q: Vec<_> = all.iter().map(|r| pts(r, |r| r.q)).collect();
    let p: Vec<_> = all.iter().map(|r| pts(r, |r| r.p)).collect();
    let l: Vec<_> = all.iter().map(|r| pts(r, |r| r.lambda)).collect();
    let names_q = ["s=2 q", "s=3 q", "s=4 q", "s=5 q"];
    let names_p = ["s=2 p", "s=3 p", "s=4 p", "s=5 p"];
    let names_l = ["s=2 λ", "s=3 λ", "s=4 λ", "s=5 λ"];
    let mut series: Vec<plot::Series> = Vec::new();
    for i in 0..4 {
        series.push((names_q[i], &q[i], colors[i]));
        series.push((names_p[i], &p[i], lighter(colors[i])));
    }
    std::fs::create_dir_all("examples/out")?;
    let path = "examples/out/lobatto_index2_qp.svg";
    plot::lines(
        path,
        "002 Fig. 2 style: Lobatto IIIA-B (2.5), relative error of q and p at T = 10",
        ("h", plot::Axis::Log),
        ("relative error", plot::Axis::Log),
        &series,
    )?;
    println!("\nwrote {path}");
    let series: Vec<plot::Series> = (0..4).map(|i| (names_l[i], &l[i][..], colors[i])).collect();
    let path = "examples/out/lobatto_index2_lambda.svg";
    plot::lines(
        path,
        "002 Fig. 2 style: Lobatto IIIA-B (2.5), relative error of λ at T = 10",
        ("h", plot::Axis::Log),
        ("relative error", plot::Axis::Log),
        &series,
    )?;
    println!("wrote {path}");
    Ok(())
}
