//! The skate on an inclined plane of Small's thesis (§8.3.2): a rod of length ℓ with two point
//! masses m/2 at its ends (q1, q2) and (q3, q4), gravity downhill along +q1, one holonomic
//! constraint (the rod length) and one nonholonomic constraint (the centre moves along the
//! rod), integrated by the (1,1)- and (2,2)-Gauss-Lobatto SPARK methods (Definition 5.2.1).
//!
//! The thesis prints m = 1, γ sin β = 1, ℓ = 2, q0 = (−½, 0, ½, 0), v0 = (0, −½, 0, ½). These
//! data contradict each other: the printed ends are 1 apart, so g(q0) = ½(1 − ℓ²) = −3/2 with
//! ℓ = 2. This example uses ℓ = 1 (the smallest change, as the implementation guide recommends):
//! then g, the hidden constraint and k all vanish at t0.
//!
//! Prints
//! 1. the global q-error at T = 2 against a reference computed with the (3,3)-Gauss-Lobatto
//!    SPARK method (order 6) at h = 1/400, with the observed orders (thesis figure 8.4);
//! 2. the energy error of the (2,2) method at h = 0.1 on t ∈ [0, 200] (thesis figure 8.6),
//!    written to examples/out/skate_energy.svg;
//! 3. what happens with the printed data (ℓ = 2): `step` returns `Error::InconsistentState`
//!    and leaves the state as it was; `project` makes it consistent (it moves the ends apart to
//!    length 2), after which `step` goes through.
//!
//! `cargo run --release --example skate`

include!("models/plot.rs");

use plotters::style::RED;
use spark::{GaussLobatto, Integrator, Method, State};

include!("models/skate.rs");

/// The printed initial data.
fn start() -> State<4> {
    State::new(0.0, [-0.5, 0.0, 0.5, 0.0], [0.0, -0.5, 0.0, 0.5])
}

/// The state at `t_end` after steps of `h` from `start()` with ℓ = 1; the largest residual
/// (max of |g|, |g_q v|, |k|) seen after any step.
fn run<Meth: Method>(h: f64, t_end: f64) -> Result<(State<4>, f64), spark::Error> {
    let mut sim = Integrator::<Skate, Meth>::new(Skate::default(), h)?;
    let mut s = start();
    let mut worst = 0.0f64;
    for _ in 0..(t_end / h).round() as usize {
        sim.step(&mut s)?;
        let (g, w) = sim.constraint_residual(&s);
        worst = worst.max(g).max(w);
    }
    Ok((s, worst))
}

fn q_error(a: &State<4>, b: &State<4>) -> f64 {
    (0..4).fold(0.0f64, |m, i| m.max((a.q[i] - b.q[i]).abs()))
}

fn convergence() -> Result<(), spark::Error> {
    let t_end = 2.0;
    let (reference, _) = run::<GaussLobatto<3>>(1.0 / 400.0, t_end)?;
    println!(
        "1. global q-error max_i |q_i(T) - q_ref,i(T)| at T = {t_end} (reference: (3,3)-Gauss-Lobatto SPARK, h = 1/400)"
    );
    println!(
        "{:>8} {:>12} {:>7} {:>12} {:>7} {:>10}",
        "h", "(1,1) err", "order", "(2,2) err", "order", "max resid"
    );
    let hs = [0.2, 0.1, 0.05, 0.025, 0.0125];
    let mut prev: Option<(f64, f64)> = None;
    for &h in &hs {
        let (s1, r1) = run::<GaussLobatto<1>>(h, t_end)?;
        let (s2, r2) = run::<GaussLobatto<2>>(h, t_end)?;
        let (e1, e2) = (q_error(&s1, &reference), q_error(&s2, &reference));
        let order = |e: f64, p: f64| format!("{:.2}", (p / e).ln() / 2f64.ln());
        let (o1, o2) = prev.map_or(("".into(), "".into()), |(p1, p2)| {
            (order(e1, p1), order(e2, p2))
        });
        println!(
            "{h:>8} {e1:>12.3e} {o1:>7} {e2:>12.3e} {o2:>7} {:>10.1e}",
            r1.max(r2)
        );
        prev = Some((e1, e2));
    }
    Ok(())
}

fn energy() -> Result<Vec<(f64, f64)>, Box<dyn std::error::Error>> {
    let (h, steps) = (0.1, 2000);
    let mut sim = Integrator::<Skate, GaussLobatto<2>>::new(Skate::default(), h)?;
    let mut s = start();
    let e0 = sim.energy(&s);
    let mut out = Vec::with_capacity(steps);
    for _ in 0..steps {
        sim.step(&mut s)?;
        out.push((s.t, sim.energy(&s) - e0));
    }
    let (max, first, last) = plot::tenths(&out);
    println!(
        "\n2. energy error of (2,2) SPARK, h = {h}, t in [0, 200]: E0 = {e0}, max |E - E0| = {max:.2e} \
         (first 10% of the run: {first:.2e}, last 10%: {last:.2e})"
    );
    Ok(out)
}

fn printed_data() -> Result<(), spark::Error> {
    println!("\n3. the printed data, l = 2 (inconsistent: g(q0) = -3/2)");
    let sys = Skate {
        l: 2.0,
        ..Skate::default()
    };
    let mut sim = Integrator::<Skate, GaussLobatto<2>>::new(sys, 0.1)?;
    let mut s = start();
    let (g, w) = sim.constraint_residual(&s);
    println!("   residuals at t0: max |g| = {g}, max |g_q v|, |k| = {w}");
    let before = s;
    match sim.step(&mut s) {
        Err(e) => println!(
            "   step: Err({e:?})\n         \"{e}\"; state unchanged: {}",
            s == before
        ),
        Ok(()) => println!("   step unexpectedly succeeded"),
    }
    sim.project(&mut s)?;
    let (g, w) = sim.constraint_residual(&s);
    println!(
        "   project: q = {:?}, v = {:?}\n            residuals: max |g| = {g:.1e}, max |g_q v|, |k| = {w:.1e}",
        s.q.as_slice(),
        s.v.as_slice()
    );
    sim.step(&mut s)?;
    let (g, w) = sim.constraint_residual(&s);
    println!(
        "   step after project: Ok, t = {}, residuals {g:.1e}, {w:.1e}",
        s.t
    );
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("skate on an inclined plane (thesis §8.3.2) with l = 1, m = 1, gamma sin(beta) = 1");
    convergence()?;
    let e = energy()?;
    std::fs::create_dir_all("examples/out")?;
    let path = "examples/out/skate_energy.svg";
    plot::lines(
        path,
        "Skate (thesis fig. 8.6), (2,2) SPARK, h = 0.1: E(t) - E(0)",
        ("t", plot::Axis::Linear),
        ("E - E0", plot::Axis::Linear),
        &[("(2,2) Gauss-Lobatto SPARK", &e, RED)],
    )?;
    println!("   wrote {path}");
    printed_data()?;
    Ok(())
}
