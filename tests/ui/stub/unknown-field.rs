// A model with an unknown field: code that uses its `Default` and its constants reports no
// further error, only the real mistake below.
spark::mechanics! {
    /// An oscillator with a misspelt field.
    pub struct Oscillator {
        coordinates: [q],
        velocities: [v],
        parameters: [m = 1.0, k = 4.0],
        lagrangian: 0.5 * m * v.powi(2) - 0.5 * k * q.powi(2),
        holonomik: [q - 1.0],
    }
}

fn main() {
    let o = Oscillator::default();
    let counts: [usize; 3] = [
        Oscillator::COORDINATES,
        Oscillator::HOLONOMIC_CONSTRAINTS,
        Oscillator::PARAMETERS,
    ];
    let coordinates: [&'static str; 1] = Oscillator::COORDINATE_NAMES;
    let velocities: [&'static str; 1] = Oscillator::VELOCITY_NAMES;
    let parameters: [&'static str; 2] = Oscillator::PARAMETER_NAMES;
    println!("{counts:?} {coordinates:?} {velocities:?} {parameters:?} {}", o.m + o.k);
}
