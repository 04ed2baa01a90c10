// A planar five-bar linkage written with `bodies:` and `joints:` (no file: the viewer draws its
// default drawing): two cranks of 0.15 m on hinges about y at x = ±0.1 m, two couplers of
// 0.2 m whose tips are held together by a `Connect` (the loop; its out-of-plane row is dropped),
// a motor on each crank. The couplers' joint frames are turned by ±30° so that the zero
// configuration is assembled. Included by `examples/five_bar.rs` and spark-viewer's tests.
spark::mechanics! {
    /// A planar five-bar linkage with two motors.
    pub struct FiveBar {
        bodies: {
            crank_a: Body { mass: 0.2, com: [0.0, 0.0, 0.075], inertia: [4e-4, 4e-4, 1e-5] },
            crank_b: Body { mass: 0.2, com: [0.0, 0.0, 0.075], inertia: [4e-4, 4e-4, 1e-5] },
            coupler_a: Body { mass: 0.25, com: [0.0, 0.0, 0.1], inertia: [8e-4, 8e-4, 1e-5] },
            coupler_b: Body { mass: 0.25, com: [0.0, 0.0, 0.1], inertia: [8e-4, 8e-4, 1e-5] },
        },
        joints: {
            a: Revolute { parent: world, child: crank_a, origin: [-0.1, 0.0, 0.0], axis: [0.0, 1.0, 0.0] },
            b: Revolute { parent: world, child: crank_b, origin: [0.1, 0.0, 0.0], axis: [0.0, 1.0, 0.0] },
            knee_a: Revolute {
                parent: crank_a,
                child: coupler_a,
                origin: [0.0, 0.0, 0.15],
                rotation: Rotation::axis_angle([0.0, 1.0, 0.0], PI / 6.0),
                axis: [0.0, 1.0, 0.0],
                damping: 0.01,
            },
            knee_b: Revolute {
                parent: crank_b,
                child: coupler_b,
                origin: [0.0, 0.0, 0.15],
                rotation: Rotation::axis_angle([0.0, 1.0, 0.0], -PI / 6.0),
                axis: [0.0, 1.0, 0.0],
                damping: 0.01,
            },
            tip: Connect { body1: coupler_a, body2: coupler_b, anchor1: [0.0, 0.0, 0.2], anchor2: [0.0, 0.0, 0.2] },
        },
        actuated: [a, b],
    }
}
