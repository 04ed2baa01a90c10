// A four-bar linkage written with `bodies` and `joints`: the loop closed by a point connection
// (a holonomic constraint, not a coordinate). Shared by `examples/bodies_four_bar.rs` and
// `tests/mechanisms/bodies.rs`.

spark::mechanics! {
    /// A four-bar in the x-z plane: crank 1 m from the origin, coupler 3 m, rocker 2 m from
    /// (3.5, 0, 0), the loop closed by a point connection; the crank is actuated.
    pub struct FourBar {
        gravity: [0.0, 0.0, -9.81],
        bodies: {
            crank: Body { mass: 1.0, com: [0.0, 0.0, 0.5], inertia: [0.1, 0.1, 0.01] },
            coupler: Body { mass: 2.0, com: [1.5, 0.0, 0.0], inertia: [0.01, 0.4, 0.4] },
            rocker: Body { mass: 1.5, com: [0.0, 0.0, 1.0], inertia: [0.5, 0.5, 0.01] },
        },
        joints: {
            drive: Revolute { parent: world, child: crank, axis: [0.0, 1.0, 0.0] },
            knee: Revolute {
                parent: crank,
                child: coupler,
                origin: [0.0, 0.0, 1.0],
                axis: [0.0, 1.0, 0.0],
            },
            rock: Revolute {
                parent: world,
                child: rocker,
                origin: [3.5, 0.0, 0.0],
                axis: [0.0, 1.0, 0.0],
            },
            pin: Connect {
                body1: coupler,
                body2: rocker,
                anchor1: [3.0, 0.0, 0.0],
                anchor2: [0.0, 0.0, 2.0],
            },
        },
        actuated: [drive],
    }
}

/// The point `(x, z)` of the coupler at `(along, up)` in its frame, from the geometry alone.
#[allow(dead_code)]
fn coupler_point(q: &[f64], along: f64, up: f64) -> [f64; 2] {
    let c = q[0] + q[1];
    [
        q[0].sin() + along * c.cos() + up * c.sin(),
        q[0].cos() - along * c.sin() + up * c.cos(),
    ]
}

/// The loop gap of [`FourBar`], from its geometry (not from the model).
#[allow(dead_code)]
fn four_bar_gap(q: &[f64]) -> f64 {
    let b1 = coupler_point(q, 3.0, 0.0);
    let b2 = [3.5 + 2.0 * q[2].sin(), 2.0 * q[2].cos()];
    (b1[0] - b2[0]).hypot(b1[1] - b2[1])
}

/// An assembled configuration of [`FourBar`] at crank angle `q0` (the coupler's far end up).
#[allow(dead_code)]
fn four_bar_assembled(q0: f64) -> [f64; 3] {
    let a = [q0.sin(), q0.cos()];
    let d = [3.5, 0.0];
    let (dx, dz) = (d[0] - a[0], d[1] - a[1]);
    let l = dx.hypot(dz);
    // The circles of radius 3 about `a` and 2 about `d` meet at `b`.
    let along = (9.0 - 4.0 + l * l) / (2.0 * l);
    let h = (9.0 - along * along).sqrt();
    let b = [
        a[0] + along * dx / l - h * dz / l,
        a[1] + along * dz / l + h * dx / l,
    ];
    let c = (-(b[1] - a[1])).atan2(b[0] - a[0]);
    [q0, c - q0, (b[0] - d[0]).atan2(b[1] - d[1])]
}
