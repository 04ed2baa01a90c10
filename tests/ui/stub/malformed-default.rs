// A model whose parameter defaults are malformed: the stub still has a `Default` (the
// malformed defaults read as zero there) and its constants, so the code using them reports no
// further error, only the real mistakes below.
spark::mechanics! {
    /// A damped spring with two malformed defaults.
    pub struct Spring {
        coordinates: [x],
        velocities: [vx],
        parameters: [m = 2.0 * 0.5, k = 4.0, d = 1e999],
        lagrangian: 0.5 * m * vx.powi(2) - 0.5 * k * x.powi(2) + d * x,
    }
}

fn main() {
    let s = Spring::default();
    let t = Spring { k: 2.0, ..s };
    let counts: [usize; 3] = [Spring::COORDINATES, Spring::HOLONOMIC_CONSTRAINTS, Spring::PARAMETERS];
    let coordinates: [&'static str; 1] = Spring::COORDINATE_NAMES;
    let velocities: [&'static str; 1] = Spring::VELOCITY_NAMES;
    let parameters: [&'static str; 3] = Spring::PARAMETER_NAMES;
    println!("{counts:?} {coordinates:?} {velocities:?} {parameters:?} {}", t.m + t.k + t.d);
}
