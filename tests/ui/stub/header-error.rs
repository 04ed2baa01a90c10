// A model whose header does not parse (`struct` is missing): the name and the body are
// recovered, so the body's own mistakes are reported too, and the stub has the fields,
// `Default` and constants that the code below uses. Only the real mistakes are reported.
spark::mechanics! {
    /// A pendulum without `struct`.
    pub Pendulum {
        coordinates: [theta],
        velocities: [omega],
        parameters: [m = 1.0, l = 1.0, g = 9.81],
        lagrangian: 0.5 * m * (l * omega).powi(2) + m * g * l * thetaa.cos(),
    }
}

fn main() {
    let p = Pendulum { l: 2.0, ..Pendulum::default() };
    let counts: [usize; 3] = [
        Pendulum::COORDINATES,
        Pendulum::HOLONOMIC_CONSTRAINTS,
        Pendulum::PARAMETERS,
    ];
    let coordinates: [&'static str; 1] = Pendulum::COORDINATE_NAMES;
    let velocities: [&'static str; 1] = Pendulum::VELOCITY_NAMES;
    let parameters: [&'static str; 3] = Pendulum::PARAMETER_NAMES;
    println!("{counts:?} {coordinates:?} {velocities:?} {parameters:?} {}", p.m * p.l * p.g);
}
