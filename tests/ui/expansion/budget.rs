// Expansion is bounded by what it produces: each model fails at once, on the construct that
// would blow up.
spark::mechanics! {
    const N: usize = 100000;
    pub struct HugeArray {
        coordinates: [x[N]],
        velocities: [v[N]],
        lagrangian: (0..N).map(|i| 0.5 * v[i].powi(2)).sum::<f64>(),
    }
}

spark::mechanics! {
    pub struct NestedLoops {
        coordinates: [x[2]],
        velocities: [v[2]],
        lagrangian: 0.5 * v[0].powi(2) + 0.5 * v[1].powi(2),
        holonomic: [for i in 0..1000 { for j in 0..1000 { x[0] - x[1] * j } }],
    }
}

spark::mechanics! {
    pub struct NestedSums {
        coordinates: [x],
        velocities: [v],
        lagrangian: 0.5 * v.powi(2)
            + (0..1000).map(|i| (0..1000).map(|j| x * j).sum::<f64>()).sum::<f64>(),
    }
}

fn main() {}
