// The Cartesian cart-pole shared by `cartpole` and `cartpole_lqr` (included with `include!`):
// the model, its hand-linearized minimal model, a zero-order-hold discretization, a discrete
// Riccati iteration and the closed-loop run.

#[allow(dead_code)]
mod cartpole {
    use spark::nalgebra::{SMatrix, SVector};
    use spark::{GaussLobatto, Integrator, State};

    spark::mechanics! {
        /// A cart on a rail with viscous friction (`c`), pushed by the force input `u`,
        /// carrying a point mass `m` on a massless rod of length `l`; gravity along −y. Upright
        /// is `x = xc`, `y = l`.
        pub struct CartPole {
            coordinates: [xc, x, y],
            velocities: [vc, vx, vy],
            parameters: [mc = 1.0, m = 0.2, l = 0.5, g = 9.81, c = 0.4],
            inputs: [u],
            lagrangian: 0.5 * mc * vc.powi(2) + 0.5 * m * (vx.powi(2) + vy.powi(2)) - m * g * y,
            forces: [u, 0.0, 0.0],
            dissipation: 0.5 * c * vc.powi(2),
            holonomic: [(x - xc).powi(2) + y.powi(2) - l.powi(2)],
        }
    }

    /// The control period.
    pub const TC: f64 = 0.02;
    /// Integrator steps per control period (h = TC / STEPS_PER_PERIOD).
    pub const STEPS_PER_PERIOD: usize = 2;

    pub type M4 = SMatrix<f64, 4, 4>;
    pub type V4 = SVector<f64, 4>;

    /// The minimal state `(xc, θ, vc, ω)` of a Cartesian state (θ the lean from upright).
    pub fn minimal(p: &CartPole, s: &State<3>) -> V4 {
        let th = (s.q[1] - s.q[0]).atan2(s.q[2]);
        // d/dt (x − xc, y) = l ω (cos θ, −sin θ).
        let om = ((s.v[1] - s.v[0]) * th.cos() - s.v[2] * th.sin()) / p.l;
        V4::new(s.q[0], th, s.v[0], om)
    }

    /// The consistent Cartesian state of a minimal one.
    pub fn cartesian(p: &CartPole, t: f64, z: &V4) -> State<3> {
        let (xc, th, vc, om) = (z[0], z[1], z[2], z[3]);
        State::new(
            t,
            [xc, xc + p.l * th.sin(), p.l * th.cos()],
            [vc, vc + p.l * om * th.cos(), -p.l * om * th.sin()],
        )
    }

    /// The continuous linearization at upright, by hand. With θ the lean:
    /// `(mc + m) xc'' + m l cos θ θ'' − m l sin θ θ'² = u − c xc'` and
    /// `m l cos θ xc'' + m l² θ'' − m g l sin θ = 0`; at θ = 0 the second gives
    /// `xc'' + l θ'' = g θ`, so `mc xc'' = u − c xc' − m g θ` and `θ'' = (g θ − xc'') / l`.
    pub fn linearized(p: &CartPole) -> (M4, V4) {
        let mut a = M4::zeros();
        a[(0, 2)] = 1.0;
        a[(1, 3)] = 1.0;
        // xc'' = (u − c vc − m g θ) / mc
        a[(2, 1)] = -p.m * p.g / p.mc;
        a[(2, 2)] = -p.c / p.mc;
        // θ'' = (g θ − xc'') / l
        a[(3, 1)] = (p.g + p.m * p.g / p.mc) / p.l;
        a[(3, 2)] = p.c / (p.mc * p.l);
        let b = V4::new(0.0, 0.0, 1.0 / p.mc, -1.0 / (p.mc * p.l));
        (a, b)
    }

    /// Zero-order-hold discretization over `tc`: the exponential of `[[A, B], [0, 0]] tc` by
    /// its Taylor series (30 terms; `|A| tc` is below 1 here).
    pub fn zoh(a: &M4, b: &V4, tc: f64) -> (M4, V4) {
        let mut big = SMatrix::<f64, 5, 5>::zeros();
        big.fixed_view_mut::<4, 4>(0, 0).copy_from(&(a * tc));
        big.fixed_view_mut::<4, 1>(0, 4).copy_from(&(b * tc));
        let mut term = SMatrix::<f64, 5, 5>::identity();
        let mut sum = term;
        for k in 1..30 {
            term = term * big / k as f64;
            sum += term;
        }
        (
            sum.fixed_view::<4, 4>(0, 0).into_owned(),
            sum.fixed_view::<4, 1>(0, 4).into_owned(),
        )
    }

    /// The discrete LQR gain `K` (u = −K z) of `z⁺ = A z + B u` with the costs `Q`, `r`, from the
    /// Riccati iteration `P ← Q + Aᵀ P A − Aᵀ P B (r + Bᵀ P B)⁻¹ Bᵀ P A` run to a fixed point
    /// (`P` kept symmetric).
    pub fn lqr(a: &M4, b: &V4, q: &M4, r: f64) -> Result<SMatrix<f64, 1, 4>, String> {
        let mut p = *q;
        for it in 0..100_000 {
            let pb = p * b;
            let s = r + b.dot(&pb);
            let next = q + a.transpose() * p * a - (a.transpose() * pb) * (pb.transpose() * a) / s;
            // Symmetrized: the update above treats P as symmetric, and round-off in its
            // antisymmetric part would otherwise grow like the open loop (|λ|² per iteration).
            let next = (next + next.transpose()) * 0.5;
            let change = (next - p).amax() / (1.0 + p.amax());
            p = next;
            if change < 1e-14 {
                let pb = p * b;
                return Ok((pb.transpose() * a) / (r + b.dot(&pb)));
            }
            if !change.is_finite() {
                return Err(format!("the Riccati iteration diverged at iteration {it}"));
            }
        }
        Err("the Riccati iteration did not converge".into())
    }

    /// The costs on `(xc, θ, vc, ω)` and on `u`.
    pub fn costs() -> (M4, f64) {
        (M4::from_diagonal(&V4::new(10.0, 100.0, 1.0, 1.0)), 0.1)
    }

    /// One sample of the closed loop: time, lean θ, cart position, cart speed, force, and the
    /// largest constraint residual of the period.
    pub struct Sample {
        pub t: f64,
        pub theta: f64,
        pub xc: f64,
        pub vc: f64,
        pub u: f64,
        pub residual: f64,
    }

    /// Runs the closed loop for `t_end` from the lean `theta0` at rest: every `TC` the input is
    /// set to `law(state)` and held for `STEPS_PER_PERIOD` steps of `GaussLobatto<2>`.
    pub fn closed_loop(
        p: CartPole,
        theta0: f64,
        t_end: f64,
        mut law: impl FnMut(&CartPole, &State<3>) -> f64,
    ) -> Result<Vec<Sample>, spark::Error> {
        let h = TC / STEPS_PER_PERIOD as f64;
        let mut sim = Integrator::<CartPole, GaussLobatto<2>>::new(p, h)?;
        let mut s = cartesian(&p, 0.0, &V4::new(0.0, theta0, 0.0, 0.0));
        let mut out = Vec::new();
        let periods = (t_end / TC).round() as usize;
        for _ in 0..periods {
            let u = law(sim.system(), &s);
            sim.system_mut().u = u;
            let z = minimal(&p, &s);
            let mut residual = 0.0f64;
            for _ in 0..STEPS_PER_PERIOD {
                sim.step(&mut s)?;
                let (g, w) = sim.constraint_residual(&s);
                residual = residual.max(g).max(w);
            }
            out.push(Sample {
                t: s.t - TC,
                theta: z[1],
                xc: z[0],
                vc: z[2],
                u,
                residual,
            });
        }
        Ok(out)
    }

    /// Prints the closed loop every 0.5 s, plots lean, cart position and force to `path`, and
    /// checks the end: the pole upright (|θ| < 1e-3 rad), the cart within 1 cm of the origin, every
    /// constraint residual below 1e-12.
    pub fn report(run: &[Sample], title: &str, path: &str) -> Result<(), Box<dyn std::error::Error>> {
        use plotters::style::{BLUE, GREEN, RED};
        println!(
            "{:>6} {:>12} {:>12} {:>12} {:>10}",
            "t", "lean θ", "cart xc", "force u", "residual"
        );
        for s in run.iter().step_by(25) {
            println!(
                "{:>6.2} {:>12.6} {:>12.6} {:>12.6} {:>10.1e}",
                s.t, s.theta, s.xc, s.u, s.residual
            );
        }
        let angle: Vec<(f64, f64)> = run.iter().map(|s| (s.t, s.theta)).collect();
        let cart: Vec<(f64, f64)> = run.iter().map(|s| (s.t, s.xc)).collect();
        let force: Vec<(f64, f64)> = run.iter().map(|s| (s.t, s.u / 10.0)).collect();
        std::fs::create_dir_all("examples/out")?;
        super::plot::lines(
            path,
            title,
            ("t", super::plot::Axis::Linear),
            ("lean θ (rad), cart xc (m), force u / 10 (N)", super::plot::Axis::Linear),
            &[
                ("lean θ", &angle, RED),
                ("cart xc", &cart, BLUE),
                ("force u / 10", &force, GREEN),
            ],
        )?;
        println!("wrote {path}");
        let last = run.last().ok_or("no samples")?;
        let worst = run.iter().fold(0.0f64, |m, s| m.max(s.residual));
        println!(
            "after {:.2} s: lean {:.2e} rad, cart {:.2e} m; largest constraint residual {worst:.1e}",
            last.t + TC,
            last.theta,
            last.xc
        );
        if last.theta.abs() > 1e-3 || last.xc.abs() > 1e-2 || worst > 1e-12 {
            return Err("the cart-pole was not stabilized upright on its constraint".into());
        }
        Ok(())
    }
}
