// Constants, helpers and the model's names share one namespace (as rustc's E0428): a name
// defined twice is an error on both definitions.
spark::mechanics! {
    const m: usize = 3;
    const N: usize = 2;
    const N: usize = 4;
    const f: usize = 1;
    fn f(a: f64) -> f64 { a }
    fn g(a: f64) -> f64 { a }
    fn g(a: f64) -> f64 { 2.0 * a }
    pub struct Duplicates {
        coordinates: [x[N], x],
        velocities: [v[N], w],
        parameters: [m = 1.0],
        lagrangian: {
            let N = 2.0;
            0.5 * m * (v[0].powi(2) + v[1].powi(2) + w.powi(2)) - g(w) * N
        },
    }
}

fn main() {}
