// Inertia tensors no rigid body has.
spark::mechanics! {
    pub struct Model {
        bodies: {
            a: Body { mass: 1.0, inertia: [0.1, -0.2, 0.1] },
            b: Body { mass: 1.0, inertia: [[0.1, 0.01, 0.0], [0.02, 0.1, 0.0], [0.0, 0.0, 0.1]] },
            c: Body { mass: 1.0, inertia: [0.1, 0.1, 0.5] },
        },
        joints: {
            ja: Revolute { parent: world, child: a },
            jb: Revolute { parent: a, child: b },
            jc: Revolute { parent: b, child: c },
        },
    }
}

fn main() {}
