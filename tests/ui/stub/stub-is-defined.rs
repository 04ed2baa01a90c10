// A model with an error still defines its struct with the parameter fields, so the code
// using it reports no further errors: only the real mistake below is reported.
spark::mechanics! {
    /// A pendulum with a typo in its Lagrangian.
    #[derive(Default)]
    pub struct Pendulum {
        coordinates: [x, y],
        velocities: [vx, vy],
        parameters: [m = 1.0, l = 1.0, g = 9.81],
        lagrangian: 0.5 * m * (vx.powi(2) + vy.powi(2)) - m * g * yy,
        holonomic: [x.powi(2) + y.powi(2) - l.powi(2)],
    }
}

fn length(p: &Pendulum) -> f64 {
    p.l
}

fn main() {
    let p = Pendulum { m: 1.0, l: 2.0, g: 9.81 };
    let q = p;
    assert_eq!(length(&q), 2.0);
    println!("{:?}", Pendulum::default());
}

/// The stub also implements the model traits: integrator code using it adds no error.
#[allow(dead_code)]
fn simulate() -> Result<(), spark::Error> {
    let mut sim = spark::Integrator::<Pendulum, spark::GaussLobatto<2>>::new(Pendulum::default(), 0.01)?;
    let mut s = spark::State::new(0.0, [1.0, 0.0], [0.0, 0.0]);
    sim.project(&mut s)?;
    sim.step(&mut s)?;
    let _ = sim.energy(&s);
    Ok(())
}
