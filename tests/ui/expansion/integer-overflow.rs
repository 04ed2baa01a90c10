// Integer arithmetic of constants and ranges is checked: overflow is an error on its tokens.
spark::mechanics! {
    const MIN: usize = -9223372036854775807 - 1;
    const NEG: usize = -MIN;
    const BIG: usize = 4294967296 * 4294967296;
    pub struct Overflow {
        coordinates: [x],
        velocities: [v],
        lagrangian: 0.5 * v.powi(2)
            + (0..=9223372036854775807).map(|i| x).sum::<f64>()
            + (MIN..9223372036854775807).map(|i| x).sum::<f64>(),
    }
}

fn main() {}
