// 30 helpers, each calling the previous one twice: 2^29 inlinings. The call fails at once.
spark::mechanics! {
    fn h0(a: f64) -> f64 { a.sin() }
    fn h1(a: f64) -> f64 { h0(a) + h0(a) }
    fn h2(a: f64) -> f64 { h1(a) + h1(a) }
    fn h3(a: f64) -> f64 { h2(a) + h2(a) }
    fn h4(a: f64) -> f64 { h3(a) + h3(a) }
    fn h5(a: f64) -> f64 { h4(a) + h4(a) }
    fn h6(a: f64) -> f64 { h5(a) + h5(a) }
    fn h7(a: f64) -> f64 { h6(a) + h6(a) }
    fn h8(a: f64) -> f64 { h7(a) + h7(a) }
    fn h9(a: f64) -> f64 { h8(a) + h8(a) }
    fn h10(a: f64) -> f64 { h9(a) + h9(a) }
    fn h11(a: f64) -> f64 { h10(a) + h10(a) }
    fn h12(a: f64) -> f64 { h11(a) + h11(a) }
    fn h13(a: f64) -> f64 { h12(a) + h12(a) }
    fn h14(a: f64) -> f64 { h13(a) + h13(a) }
    fn h15(a: f64) -> f64 { h14(a) + h14(a) }
    fn h16(a: f64) -> f64 { h15(a) + h15(a) }
    fn h17(a: f64) -> f64 { h16(a) + h16(a) }
    fn h18(a: f64) -> f64 { h17(a) + h17(a) }
    fn h19(a: f64) -> f64 { h18(a) + h18(a) }
    fn h20(a: f64) -> f64 { h19(a) + h19(a) }
    fn h21(a: f64) -> f64 { h20(a) + h20(a) }
    fn h22(a: f64) -> f64 { h21(a) + h21(a) }
    fn h23(a: f64) -> f64 { h22(a) + h22(a) }
    fn h24(a: f64) -> f64 { h23(a) + h23(a) }
    fn h25(a: f64) -> f64 { h24(a) + h24(a) }
    fn h26(a: f64) -> f64 { h25(a) + h25(a) }
    fn h27(a: f64) -> f64 { h26(a) + h26(a) }
    fn h28(a: f64) -> f64 { h27(a) + h27(a) }
    fn h29(a: f64) -> f64 { h28(a) + h28(a) }
    pub struct Doubling {
        coordinates: [x],
        velocities: [v],
        lagrangian: 0.5 * v.powi(2) - h29(x),
    }
}

fn main() {}
