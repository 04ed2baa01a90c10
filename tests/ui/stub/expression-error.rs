// A model with an error in an expression: code that uses its `Default`, its constants and an
// `Integrator` of it reports no further error, only the real mistake below.
spark::mechanics! {
    /// A pendulum whose Lagrangian misspells a coordinate.
    pub struct Pendulum {
        coordinates: [x, y],
        velocities: [vx, vy],
        parameters: [m = 1.0, l = 1.0, g = 9.81],
        lagrangian: 0.5 * m * (vx.powi(2) + vy.powi(2)) - m * g * yy,
        holonomic: [x.powi(2) + y.powi(2) - l.powi(2)],
    }
}

fn main() -> Result<(), spark::Error> {
    let p = Pendulum::default();
    let counts: [usize; 3] = [
        Pendulum::COORDINATES,
        Pendulum::HOLONOMIC_CONSTRAINTS,
        Pendulum::PARAMETERS,
    ];
    let coordinates: [&'static str; 2] = Pendulum::COORDINATE_NAMES;
    let velocities: [&'static str; 2] = Pendulum::VELOCITY_NAMES;
    let parameters: [&'static str; 3] = Pendulum::PARAMETER_NAMES;
    println!("{counts:?} {coordinates:?} {velocities:?} {parameters:?} {}", p.l);
    let mut sim = spark::Integrator::<Pendulum, spark::GaussLobatto<2>>::new(p, 0.01)?;
    let mut s = spark::State::new(0.0, [1.0; Pendulum::COORDINATES], [0.0; Pendulum::COORDINATES]);
    sim.project(&mut s)?;
    sim.step(&mut s)?;
    println!("{:?}", sim.energy(&s));
    Ok(())
}
