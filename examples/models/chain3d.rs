// `chain!(Name, N)`: the 3D chain of N unit point masses on unit rods hanging from the origin,
// written with the DSL's arrays; shared by `examples/chain3d.rs` and `tests/suite/arrays.rs`.
// `chain!(Name, N, fields...)` adds the model fields given (a nonholonomic constraint, say).

/// A 3D chain of `$n` unit masses on unit rods, hanging from the origin, with the fields
/// `$extra` besides.
macro_rules! chain {
    ($name:ident, $n:literal $(, $($extra:tt)*)?) => {
        spark::mechanics! {
            const N: usize = $n;
            fn norm2(a: f64, b: f64, c: f64) -> f64 { a.powi(2) + b.powi(2) + c.powi(2) }
            pub struct $name {
                coordinates: [x[N], y[N], z[N]],
                velocities: [vx[N], vy[N], vz[N]],
                parameters: [g = 9.81],
                lagrangian: (0..N).map(|i| 0.5 * norm2(vx[i], vy[i], vz[i]) - g * z[i]).sum::<f64>(),
                holonomic: [
                    norm2(x[0], y[0], z[0]) - 1.0,
                    for i in 1..N { norm2(x[i] - x[i - 1], y[i] - y[i - 1], z[i] - z[i - 1]) - 1.0 },
                ],
                $($($extra)*)?
            }
        }
    };
}
