// The Whipple bicycle of Meijaard, Papadopoulos, Ruina and Schwab (Proc. R. Soc. A 463 (2007))
// written with `bodies`, `joints` and two `Wheel`s: the same benchmark as
// `examples/models/bicycle.rs` (Table 1's parameters), which writes the Lagrangian by hand.
//
// The world is z up (the paper's is z down): the paper's (x, y, z) is (x, -y, -z) here, so the
// products of inertia `I_xz` change sign. The rear frame B (with the rider) hangs on a `Free`
// joint whose origin is the rear wheel's centre (0, 0, rr); the rear wheel R spins on it, the
// front frame H steers about the steer axis (tilted back by λ = π/10, through the ground point
// (w + c, 0, 0) = (1.1, 0, 0)), and the front wheel F spins on H at (w, 0, rf) = (1.02, 0, 0.35).
// Each wheel rolls without slip on the ground: one holonomic row (the contact height) and two
// nonholonomic rows each, with the free joint's quaternion norm three holonomic and four
// nonholonomic constraints on ten coordinates: the Whipple model's three degrees of freedom.
// Shared by `tests/mechanisms/bicycle_bodies.rs`.

spark::mechanics! {
    /// The Whipple bicycle with the benchmark parameters, from bodies, joints and two wheels.
    pub struct BodiesBicycle {
        gravity: [0.0, 0.0, -9.81],
        bodies: {
            // Every body's frame has the world's axes in the reference configuration.
            rear_frame: Body {
                mass: 85.0,
                com: [0.3, 0.0, 0.6],
                inertia: [[9.2, 0.0, -2.4], [0.0, 11.0, 0.0], [-2.4, 0.0, 2.8]],
            },
            rear_wheel: Body { mass: 2.0, inertia: [0.0603, 0.12, 0.0603] },
            front_frame: Body {
                mass: 4.0,
                com: [-0.2, 0.0, 0.7],
                inertia: [[0.05892, 0.0, 0.00756], [0.0, 0.06, 0.0], [0.00756, 0.0, 0.00708]],
            },
            front_wheel: Body { mass: 3.0, inertia: [0.1405, 0.28, 0.1405] },
        },
        joints: {
            ride: Free { parent: world, child: rear_frame, origin: [0.0, 0.0, 0.3] },
            rear_hub: Revolute {
                parent: rear_frame,
                child: rear_wheel,
                axis: [0.0, 1.0, 0.0],
            },
            steer: Revolute {
                parent: rear_frame,
                child: front_frame,
                origin: [1.1, 0.0, -0.3],
                axis: [-(PI / 10.0).sin(), 0.0, (PI / 10.0).cos()],
            },
            front_hub: Revolute {
                parent: front_frame,
                child: front_wheel,
                origin: [-0.08, 0.0, 0.35],
                axis: [0.0, 1.0, 0.0],
            },
            rear_contact: Wheel { body: rear_wheel, radius: 0.3, axis: [0.0, 1.0, 0.0] },
            front_contact: Wheel { body: front_wheel, radius: 0.35, axis: [0.0, 1.0, 0.0] },
        },
    }
}
