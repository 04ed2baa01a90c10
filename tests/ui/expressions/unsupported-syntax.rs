// Syntax a model does not support, each reported on its own tokens.
spark::mechanics! {
    pub struct Everything {
        coordinates: [x, y],
        velocities: [vx, vy],
        parameters: [m = 1.0, k = 2.0],
        definitions: {
            let a = if x > 0.0 { x } else { -x };
            let b = match k { _ => 1.0 };
            let c = { for i in 0..3 { } 1.0 };
            let d = { while true { } 1.0 };
            let e = loop { break 1.0; };
            let f = (|z: f64| z * z)(x);
            let g = vec![x, y];
            let h = x as f32;
            let i = [x, y][0];
            let j = x.abs() + y.sine() + x.log(2.0);
            let l = x % 2.0 + y ^ 2;
            let n = (x + y) * 0.5;
        },
        lagrangian: 0.5 * m * (vx.powi(2) + vy.powi(2)) + a + b + c + d + e + f + g + h + i + j + l + n,
    }
}

fn main() {}
