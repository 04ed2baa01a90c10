// A model whose header does not parse (a model is not generic): the stub keeps the name and
// the recovered body, so the code using its fields, `Default`, constants and an `Integrator`
// reports no further error, only the real mistake below.
spark::mechanics! {
    /// An oscillator with a type parameter.
    pub struct Oscillator<T> {
        coordinates: [q],
        velocities: [v],
        parameters: [m = 1.0, k = 4.0],
        lagrangian: 0.5 * m * v.powi(2) - 0.5 * k * q.powi(2),
    }
}

fn main() -> Result<(), spark::Error> {
    let o = Oscillator { k: 9.0, ..Oscillator::default() };
    let counts: [usize; 3] = [
        Oscillator::COORDINATES,
        Oscillator::HOLONOMIC_CONSTRAINTS,
        Oscillator::PARAMETERS,
    ];
    let coordinates: [&'static str; 1] = Oscillator::COORDINATE_NAMES;
    let velocities: [&'static str; 1] = Oscillator::VELOCITY_NAMES;
    let parameters: [&'static str; 2] = Oscillator::PARAMETER_NAMES;
    println!("{counts:?} {coordinates:?} {velocities:?} {parameters:?}");
    let mut sim = spark::Integrator::<Oscillator, spark::GaussLobatto<2>>::new(o, 0.01)?;
    let mut s = spark::State::new(0.0, [1.0], [0.0]);
    sim.step(&mut s)?;
    Ok(())
}
